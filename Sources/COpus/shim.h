#ifndef PROSCENIUM_COPUS_SHIM_H
#define PROSCENIUM_COPUS_SHIM_H
#include <opus/opus.h>
#endif
