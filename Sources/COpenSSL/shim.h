#ifndef PROSCENIUM_COPENSSL_SHIM_H
#define PROSCENIUM_COPENSSL_SHIM_H
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/bio.h>
#include <openssl/ec.h>
#include <openssl/rand.h>
#endif
