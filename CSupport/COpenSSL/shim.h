#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/sha.h>

/* OpenSSL spells many calls as function-like macros, which Swift cannot
 * import; these inline wrappers give them a callable name. Nothing else. */

static inline long fiber_ssl_ctx_set_min_proto(SSL_CTX *ctx, int version) {
    return SSL_CTX_set_min_proto_version(ctx, version);
}
static inline long fiber_ssl_ctx_set_max_proto(SSL_CTX *ctx, int version) {
    return SSL_CTX_set_max_proto_version(ctx, version);
}
static inline long fiber_ssl_ctx_set_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_mode(ctx, mode);
}
static inline long fiber_ssl_ctx_set_session_cache_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_session_cache_mode(ctx, mode);
}
static inline long fiber_ssl_ctx_add1_chain_cert(SSL_CTX *ctx, X509 *cert) {
    return SSL_CTX_add1_chain_cert(ctx, cert);
}
static inline long fiber_ssl_set_host_name(SSL *ssl, const char *name) {
    return SSL_set_tlsext_host_name(ssl, name);
}
static inline int fiber_ssl_set_app_data(SSL *ssl, void *data) {
    return SSL_set_app_data(ssl, data);
}
static inline void *fiber_ssl_get_app_data(const SSL *ssl) {
    return SSL_get_app_data(ssl);
}
static inline long fiber_bio_mem_data(BIO *bio, char **data) {
    return BIO_get_mem_data(bio, data);
}
static inline long fiber_bio_set_mem_eof_return(BIO *bio, int value) {
    return BIO_set_mem_eof_return(bio, value);
}
static inline int fiber_x509_stack_count(STACK_OF(X509) *stack) {
    return sk_X509_num(stack);
}
static inline X509 *fiber_x509_stack_at(STACK_OF(X509) *stack, int index) {
    return sk_X509_value(stack, index);
}
static inline void fiber_openssl_free(void *pointer) {
    OPENSSL_free(pointer);
}
static inline uint64_t fiber_ssl_op_no_renegotiation(void) {
    return SSL_OP_NO_RENEGOTIATION;
}
