#ifndef PROSCENIUM_CSDL2_SHIM_H
#define PROSCENIUM_CSDL2_SHIM_H
#include <SDL.h>
#endif
