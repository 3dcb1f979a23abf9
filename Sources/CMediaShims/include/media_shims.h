#ifndef PROSCENIUM_CMEDIASHIMS_H
#define PROSCENIUM_CMEDIASHIMS_H
/// Wrappers for libvpx and libopus macros and variadic calls that Swift cannot import directly.
/// Every function is a one-line forward; the Swift side (StageMedia/Codec) owns all policy.
#include <stdint.h>
#include <vpx/vpx_encoder.h>
#include <vpx/vpx_decoder.h>
#include <vpx/vp8cx.h>
#include <vpx/vp8dx.h>
#include <opus/opus.h>

#ifdef __cplusplus
extern "C" {
#endif

// MARK: libvpx (vpx_encoder.h / vpx_decoder.h: init functions are macros over *_ver calls)

/// `vpx_codec_enc_config_default(vpx_codec_vp8_cx(), cfg, 0)`.
vpx_codec_err_t ms_vp8_enc_config_default(vpx_codec_enc_cfg_t *cfg);
/// `vpx_codec_enc_init(ctx, vpx_codec_vp8_cx(), cfg, 0)`.
vpx_codec_err_t ms_vp8_enc_init(vpx_codec_ctx_t *ctx, const vpx_codec_enc_cfg_t *cfg);
/// `vpx_codec_dec_init(ctx, vpx_codec_vp8_dx(), &{threads, 0, 0}, 0)`.
vpx_codec_err_t ms_vp8_dec_init(vpx_codec_ctx_t *ctx, unsigned int threads);
/// `vpx_codec_control_(ctx, ctrl_id, value)` for controls taking an `int` or `unsigned int`.
vpx_codec_err_t ms_vpx_control_int(vpx_codec_ctx_t *ctx, int ctrl_id, int value);
/// `VP8D_GET_FRAME_CORRUPTED`: whether the last decoded frame (or a reference it used) is corrupt.
vpx_codec_err_t ms_vp8_dec_get_frame_corrupted(vpx_codec_ctx_t *ctx, int *corrupted);
/// Fills `img` as an I420 descriptor over caller-owned planes with explicit strides.
/// (`vpx_img_wrap` assumes one buffer with chroma strides of `aligned_width / 2`,
/// which is wrong for packed planes of odd width.)
void ms_vpx_img_wrap_i420(vpx_image_t *img, unsigned int width, unsigned int height,
                          uint8_t *y, int y_stride, uint8_t *u, uint8_t *v, int uv_stride);
/// Reads the fields of a `VPX_CODEC_CX_FRAME_PKT` (a union in C). Returns 0 for other kinds.
int ms_vpx_packet_frame(const vpx_codec_cx_pkt_t *pkt, const uint8_t **buf, size_t *size,
                        int *is_keyframe);

// MARK: libopus (opus_encoder_ctl / opus_decoder_ctl are variadic)

int ms_opus_enc_set_bitrate(OpusEncoder *enc, opus_int32 bps);
int ms_opus_enc_get_bitrate(OpusEncoder *enc, opus_int32 *bps);
int ms_opus_enc_set_inband_fec(OpusEncoder *enc, opus_int32 on);
int ms_opus_enc_set_packet_loss_perc(OpusEncoder *enc, opus_int32 percent);
int ms_opus_enc_set_dtx(OpusEncoder *enc, opus_int32 on);
int ms_opus_enc_get_lookahead(OpusEncoder *enc, opus_int32 *samples);
int ms_opus_dec_get_last_packet_duration(OpusDecoder *dec, opus_int32 *samples);

#ifdef __cplusplus
}
#endif
#endif
