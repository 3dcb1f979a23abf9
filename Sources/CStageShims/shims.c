#include "CStageShims.h"

int stage_dtls_get_timeout(SSL *ssl, long *seconds, long *microseconds) {
    struct timeval tv;
    if (DTLSv1_get_timeout(ssl, &tv) != 1) return 0;
    *seconds = tv.tv_sec;
    *microseconds = tv.tv_usec;
    return 1;
}

int stage_dtls_handle_timeout(SSL *ssl) { return (int)DTLSv1_handle_timeout(ssl); }

void stage_ssl_set_mtu(SSL *ssl, long mtu) {
    SSL_set_options(ssl, SSL_OP_NO_QUERY_MTU);
    SSL_set_mtu(ssl, mtu);
    DTLS_set_link_mtu(ssl, mtu);
}

int stage_ctx_set_srtp_profiles(SSL_CTX *ctx, const char *profiles) {
    return SSL_CTX_set_tlsext_use_srtp(ctx, profiles);
}

static int accept_any(int preverify_ok, X509_STORE_CTX *ctx) {
    (void)preverify_ok;
    (void)ctx;
    return 1;
}

void stage_ctx_accept_any_peer_certificate(SSL_CTX *ctx) {
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, accept_any);
}

X509 *stage_ssl_peer_certificate(SSL *ssl) { return SSL_get1_peer_certificate(ssl); }

int stage_ctx_configure_dtls12(SSL_CTX *ctx) {
    SSL_CTX_set_read_ahead(ctx, 1);
    return (int)SSL_CTX_set_min_proto_version(ctx, DTLS1_2_VERSION);
}

void stage_bio_set_retry_on_empty(BIO *bio) { BIO_set_mem_eof_return(bio, -1); }
