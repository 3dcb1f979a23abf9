#include "media_shims.h"

#include <string.h>

vpx_codec_err_t ms_vp8_enc_config_default(vpx_codec_enc_cfg_t *cfg) {
    return vpx_codec_enc_config_default(vpx_codec_vp8_cx(), cfg, 0);
}

vpx_codec_err_t ms_vp8_enc_init(vpx_codec_ctx_t *ctx, const vpx_codec_enc_cfg_t *cfg) {
    return vpx_codec_enc_init(ctx, vpx_codec_vp8_cx(), cfg, 0);
}

vpx_codec_err_t ms_vp8_dec_init(vpx_codec_ctx_t *ctx, unsigned int threads) {
    vpx_codec_dec_cfg_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.threads = threads;
    return vpx_codec_dec_init(ctx, vpx_codec_vp8_dx(), &cfg, 0);
}

vpx_codec_err_t ms_vpx_control_int(vpx_codec_ctx_t *ctx, int ctrl_id, int value) {
    return vpx_codec_control_(ctx, ctrl_id, value);
}

vpx_codec_err_t ms_vp8_dec_get_frame_corrupted(vpx_codec_ctx_t *ctx, int *corrupted) {
    return vpx_codec_control_(ctx, VP8D_GET_FRAME_CORRUPTED, corrupted);
}

void ms_vpx_img_wrap_i420(vpx_image_t *img, unsigned int width, unsigned int height,
                          uint8_t *y, int y_stride, uint8_t *u, uint8_t *v, int uv_stride) {
    memset(img, 0, sizeof *img);
    img->fmt = VPX_IMG_FMT_I420;
    img->cs = VPX_CS_BT_601;
    img->range = VPX_CR_STUDIO_RANGE;
    img->w = width;
    img->h = height;
    img->d_w = width;
    img->d_h = height;
    img->r_w = width;
    img->r_h = height;
    img->bit_depth = 8;
    img->bps = 12;
    img->x_chroma_shift = 1;
    img->y_chroma_shift = 1;
    img->planes[VPX_PLANE_Y] = y;
    img->planes[VPX_PLANE_U] = u;
    img->planes[VPX_PLANE_V] = v;
    img->stride[VPX_PLANE_Y] = y_stride;
    img->stride[VPX_PLANE_U] = uv_stride;
    img->stride[VPX_PLANE_V] = uv_stride;
}

int ms_vpx_packet_frame(const vpx_codec_cx_pkt_t *pkt, const uint8_t **buf, size_t *size,
                        int *is_keyframe) {
    if (pkt == NULL || pkt->kind != VPX_CODEC_CX_FRAME_PKT) return 0;
    *buf = (const uint8_t *)pkt->data.frame.buf;
    *size = pkt->data.frame.sz;
    *is_keyframe = (pkt->data.frame.flags & VPX_FRAME_IS_KEY) != 0;
    return 1;
}

int ms_opus_enc_set_bitrate(OpusEncoder *enc, opus_int32 bps) {
    return opus_encoder_ctl(enc, OPUS_SET_BITRATE(bps));
}

int ms_opus_enc_get_bitrate(OpusEncoder *enc, opus_int32 *bps) {
    return opus_encoder_ctl(enc, OPUS_GET_BITRATE(bps));
}

int ms_opus_enc_set_inband_fec(OpusEncoder *enc, opus_int32 on) {
    return opus_encoder_ctl(enc, OPUS_SET_INBAND_FEC(on));
}

int ms_opus_enc_set_packet_loss_perc(OpusEncoder *enc, opus_int32 percent) {
    return opus_encoder_ctl(enc, OPUS_SET_PACKET_LOSS_PERC(percent));
}

int ms_opus_enc_set_dtx(OpusEncoder *enc, opus_int32 on) {
    return opus_encoder_ctl(enc, OPUS_SET_DTX(on));
}

int ms_opus_enc_get_lookahead(OpusEncoder *enc, opus_int32 *samples) {
    return opus_encoder_ctl(enc, OPUS_GET_LOOKAHEAD(samples));
}

int ms_opus_dec_get_last_packet_duration(OpusDecoder *dec, opus_int32 *samples) {
    return opus_decoder_ctl(dec, OPUS_GET_LAST_PACKET_DURATION(samples));
}
