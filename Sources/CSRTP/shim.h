#ifndef PROSCENIUM_CSRTP_SHIM_H
#define PROSCENIUM_CSRTP_SHIM_H
#include <srtp2/srtp.h>
#endif
