#ifndef PROSCENIUM_CMEDIASHIMS_H
#define PROSCENIUM_CMEDIASHIMS_H
/// Wrappers for libvpx and libopus macros and variadic calls that Swift cannot import directly.
#include <vpx/vpx_encoder.h>
#include <vpx/vpx_decoder.h>
#include <opus/opus.h>

#endif
