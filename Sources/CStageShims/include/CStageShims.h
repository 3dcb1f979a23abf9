#ifndef PROSCENIUM_CSTAGESHIMS_H
#define PROSCENIUM_CSTAGESHIMS_H
/// Wrappers for OpenSSL macros and variadic calls that Swift cannot import directly.
#include <openssl/ssl.h>
#include <openssl/bio.h>

/// DTLSv1_get_timeout: 1 and the time left when a retransmission timer runs, else 0.
int stage_dtls_get_timeout(SSL *ssl, long *seconds, long *microseconds);
/// DTLSv1_handle_timeout: retransmits the last flight when the timer expired.
int stage_dtls_handle_timeout(SSL *ssl);
/// SSL_set_mtu + SSL_OP_NO_QUERY_MTU: DTLS records that fit a UDP datagram without PMTU probing.
void stage_ssl_set_mtu(SSL *ssl, long mtu);
/// SSL_CTX_set_tlsext_use_srtp returns 0 on success (sic).
int stage_ctx_set_srtp_profiles(SSL_CTX *ctx, const char *profiles);
/// A verify callback that accepts any certificate: WebRTC checks the SDP fingerprint instead.
void stage_ctx_accept_any_peer_certificate(SSL_CTX *ctx);
/// The peer's certificate (a new reference), OpenSSL 1.1 and 3 alike.
X509 *stage_ssl_peer_certificate(SSL *ssl);
/// SSL_CTX_set_min_proto_version(ctx, DTLS1_2_VERSION) and read-ahead, which DTLS needs.
int stage_ctx_configure_dtls12(SSL_CTX *ctx);
/// BIO_set_mem_eof_return(bio, -1): an empty memory BIO means "retry", not end of file.
void stage_bio_set_retry_on_empty(BIO *bio);

#include <stddef.h>
#include <sys/socket.h>
/// Datagrams for one sendmmsg(2); C owns the `struct mmsghdr` layout, which glibc declares
/// only under _GNU_SOURCE (so Swift cannot see it).
typedef struct stage_mmsg_batch stage_mmsg_batch;
/// A batch of up to `capacity` datagrams; NULL when out of memory.
stage_mmsg_batch *stage_mmsg_batch_create(unsigned capacity);
void stage_mmsg_batch_destroy(stage_mmsg_batch *batch);
/// Datagram `index`: `length` bytes at `bytes` (not copied), to `name` (`name_length` bytes, copied).
void stage_mmsg_batch_set(stage_mmsg_batch *batch, unsigned index, void *bytes, size_t length,
                          const struct sockaddr *name, socklen_t name_length);
/// sendmmsg(2) of datagrams `first` to `first + count - 1` on `fd`: how many were sent, or -1 and errno.
int stage_mmsg_batch_send(stage_mmsg_batch *batch, int fd, unsigned first, unsigned count);
/// gettid(2): the calling thread's kernel id, for reading its CPU time in /proc/self/task.
int stage_thread_id(void);
/// pthread_setname_np(3) for the calling thread: at most 15 bytes are kept (/proc/…/comm).
void stage_set_thread_name(const char *name);

#endif
