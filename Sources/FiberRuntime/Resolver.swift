import CLibUV
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Turns host names into socket addresses: IP literals at once, names
/// through the system resolver (`uv_getaddrinfo` on libuv's thread pool, so
/// the loop never blocks), with a small cache in front.
///
/// Special names (RFC 6761) never reach the network: `localhost` and names
/// under `.localhost` are 127.0.0.1 and ::1, and names under `.invalid` fail at
/// once. (glibc would send the AAAA query for `localhost` to the name server.)
///
/// Names given in `hosts` are answered from that table, in its order, before
/// anything else (as curl's `--resolve` does): a service pinned to known
/// addresses, or a test that needs a name with several addresses.
public final class Resolver: Sendable {
    /// The process-wide resolver, caching answers for 30 seconds.
    public static let shared = Resolver()

    private let cache: Locked<ResolverCache>
    /// Fixed answers by lower-cased name; their ports are replaced by the one asked for.
    private let hosts: [String: [SocketAddress]]

    /// A resolver whose cache keeps answers for `cacheTTL` (zero disables it) and at most `cacheCapacity` hosts.
    /// A name in `hosts` (matched without regard to case) resolves to its addresses, in
    /// the order given, with the port of the request; an empty list fails as a name
    /// with no address does.
    public init(cacheTTL: Duration = .seconds(30), cacheCapacity: Int = 512, hosts: [String: [SocketAddress]] = [:]) {
        cache = Locked(ResolverCache(ttl: cacheTTL, capacity: cacheCapacity))
        self.hosts = Dictionary(hosts.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    /// Forgets every cached answer.
    public func clearCache() { cache.withLock { $0.removeAll() } }

    /// The addresses of `host`, in the resolver's order, each with `port`.
    ///
    /// - Throws: `TransportError` `.dnsFailure` (with the host and the
    ///   resolver's error name) when the name does not resolve;
    ///   `.eventLoopShutdown` if `loop` is shut down; `CancellationError`.
    public func resolve(host: String, port: Int, on loop: EventLoop) async throws -> [SocketAddress] {
        if let literal = SocketAddress(ipLiteral: host, port: port) { return [literal] }
        let name = host.lowercased()
        if let fixed = hosts[name] {
            guard !fixed.isEmpty else {
                throw TransportError(.dnsFailure, operation: "resolve", host: host, codeName: "EAI_NODATA",
                                     systemMessage: "the resolver's host table lists no address")
            }
            return fixed.map { $0.with(port: port) }
        }
        if name.isEmpty || name == "invalid" || name.hasSuffix(".invalid") || name.hasSuffix(".invalid.") {
            throw TransportError(.dnsFailure, operation: "resolve", host: host, codeName: "EAI_NONAME",
                                 systemMessage: "names under .invalid never resolve (RFC 6761)")
        }
        if name == "localhost" || name.hasSuffix(".localhost") || name == "localhost." || name.hasSuffix(".localhost.") {
            // IPv4 first: most local servers listen on 127.0.0.1; Happy Eyeballs moves on at once if not.
            return [.ipv4([127, 0, 0, 1], port: port), .ipv6(Array(repeating: 0, count: 15) + [1], port: port)]
        }
        let now = ContinuousClock.now
        if let hit = cache.withLock({ $0.lookup(host: name, port: port, now: now) }) { return hit }
        let addresses = try await getaddrinfo(host: host, port: port, on: loop)
        cache.withLock { $0.store(addresses, host: name, port: port, now: now) }
        return addresses
    }

    /// Asks the system resolver, bypassing the cache and the special names.
    /// `family` narrows the query (`AF_INET`, `AF_INET6`); the default asks for both.
    func getaddrinfo(host: String, port: Int, family: Int32 = AF_UNSPEC, on loop: EventLoop) async throws -> [SocketAddress] {
        let once = OnceContinuation<[SocketAddress]>()
        return try await withTaskCancellationHandler {
            try await once.wait {
                do {
                    try loop.execute {
                        guard loop.isAcceptingHandles else {
                            once.resume(with: .failure(TransportError(.eventLoopShutdown, operation: "resolve", host: host)))
                            return
                        }
                        let request = UVRequest.make(UV_GETADDRINFO)
                        request.resolution = { status, list in
                            guard status == 0 else {
                                once.resume(with: .failure(UVError.transportError(status, operation: "resolve", host: host)))
                                return
                            }
                            let found = Self.addresses(from: list, port: port)
                            once.resume(with: found.isEmpty
                                ? .failure(TransportError(.dnsFailure, operation: "resolve", host: host, codeName: "EAI_NODATA",
                                                          systemMessage: "no IPv4 or IPv6 address"))
                                : .success(found))
                        }
                        var hints = addrinfo()
                        hints.ai_family = family
                        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
                        let status = uv_getaddrinfo(loop.uvLoop, request.pointer(as: uv_getaddrinfo_t.self),
                                                    UVRequest.getaddrinfoCallback, host, nil, &hints)
                        if status < 0 {
                            request.discard()
                            once.resume(with: .failure(UVError.transportError(status, operation: "resolve", host: host)))
                        }
                    }
                } catch {
                    once.resume(with: .failure(TransportError(.eventLoopShutdown, operation: "resolve", host: host)))
                }
            }
        } onCancel: {
            // The lookup itself finishes on the thread pool; its answer is dropped.
            once.resume(with: .failure(CancellationError()))
        }
    }

    private static func addresses(from list: UnsafeMutablePointer<addrinfo>?, port: Int) -> [SocketAddress] {
        var found: [SocketAddress] = []
        var node = list
        while let current = node {
            if let sa = current.pointee.ai_addr, let address = SocketAddress(UnsafePointer(sa)) {
                let withPort = address.family == .ipv4
                    ? SocketAddress.ipv4(address.ipBytes, port: port)
                    : SocketAddress.ipv6(address.ipBytes, port: port, scopeID: address.scopeID)
                if !found.contains(withPort) { found.append(withPort) }
            }
            node = current.pointee.ai_next
        }
        return found
    }
}
