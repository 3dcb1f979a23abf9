#ifndef PROSCENIUM_CX11_SHIM_H
#define PROSCENIUM_CX11_SHIM_H
#include <X11/Xlib.h>
#endif
