import FiberRuntime

/// The header collection of requests and responses, reachable with `import Fiber`
/// alone (it is defined in `FiberRuntime`).
public typealias HTTPHeaders = FiberRuntime.HTTPHeaders

/// The body of a streamed request (a file, a stream, parts), reachable with `import Fiber` alone.
public typealias HTTPRequestBody = FiberRuntime.HTTPRequestBody

/// The reachability monitor a client can be given (`Configuration.connectionMonitor`),
/// reachable with `import Fiber` alone.
public typealias ConnectionMonitor = FiberRuntime.ConnectionMonitor
