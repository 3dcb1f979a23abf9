#ifndef PROSCENIUM_CYUV_SHIM_H
#define PROSCENIUM_CYUV_SHIM_H
#include <libyuv.h>
#endif
