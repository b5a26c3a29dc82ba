/* Fiber's llhttp types under names of Fiber's own (the library's functions and
 * layouts are unchanged). Swift shares an imported C type's metadata between
 * every module in a process that names it the same: swift-nio bundles another
 * llhttp version whose `llhttp_settings_t` has more callbacks, and with both in
 * one process (Fiber beside NIOHTTP1, AsyncHTTPClient, Vapor, Hummingbird) one
 * of them allocated the other's smaller struct and wrote past its end. */
#define llhttp__internal_s fiber_llhttp__internal_s
#define llhttp__internal_t fiber_llhttp__internal_t
#define llhttp_t fiber_llhttp_t
#define llhttp_settings_s fiber_llhttp_settings_s
#define llhttp_settings_t fiber_llhttp_settings_t
#include <llhttp.h>
