#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <pthread.h>
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

struct stage_mmsg_batch {
    unsigned capacity;
    struct mmsghdr *headers;
    struct iovec *vectors;
    struct sockaddr_storage *names;
};

stage_mmsg_batch *stage_mmsg_batch_create(unsigned capacity) {
    stage_mmsg_batch *batch = calloc(1, sizeof *batch);
    if (!batch) return NULL;
    batch->capacity = capacity;
    batch->headers = calloc(capacity, sizeof *batch->headers);
    batch->vectors = calloc(capacity, sizeof *batch->vectors);
    batch->names = calloc(capacity, sizeof *batch->names);
    if (!batch->headers || !batch->vectors || !batch->names) {
        stage_mmsg_batch_destroy(batch);
        return NULL;
    }
    for (unsigned i = 0; i < capacity; i++) {
        batch->headers[i].msg_hdr.msg_iov = &batch->vectors[i];
        batch->headers[i].msg_hdr.msg_iovlen = 1;
        batch->headers[i].msg_hdr.msg_name = &batch->names[i];
    }
    return batch;
}

void stage_mmsg_batch_destroy(stage_mmsg_batch *batch) {
    if (!batch) return;
    free(batch->headers);
    free(batch->vectors);
    free(batch->names);
    free(batch);
}

void stage_mmsg_batch_set(stage_mmsg_batch *batch, unsigned index, void *bytes, size_t length,
                          const struct sockaddr *name, socklen_t name_length) {
    if (index >= batch->capacity || name_length > sizeof(struct sockaddr_storage)) return;
    batch->vectors[index].iov_base = bytes;
    batch->vectors[index].iov_len = length;
    memcpy(&batch->names[index], name, name_length);
    batch->headers[index].msg_hdr.msg_namelen = name_length;
}

int stage_mmsg_batch_send(stage_mmsg_batch *batch, int fd, unsigned first, unsigned count) {
    if (first + count > batch->capacity) count = batch->capacity - first;
    return sendmmsg(fd, &batch->headers[first], count, 0);
}

int stage_thread_id(void) { return (int)syscall(SYS_gettid); }

void stage_set_thread_name(const char *name) {
    char truncated[16];
    strncpy(truncated, name, sizeof truncated - 1);
    truncated[sizeof truncated - 1] = 0;
    pthread_setname_np(pthread_self(), truncated);
}
