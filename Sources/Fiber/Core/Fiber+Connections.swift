import FiberRuntime

extension Fiber {
    /// Counts of the connections of the client's transport (open, idle, leased, connecting)
    /// and of the requests waiting for one, over every loop and origin; nil when the
    /// transport is not the built-in HTTP one.
    ///
    /// A client that leaves `Configuration.http` alone shares `HTTPTransport.shared`,
    /// so the counts include every such client's connections.
    public func connectionStatistics() async -> ConnectionPoolStatistics? {
        guard let transport = transport as? HTTPTransport else { return nil }
        return await transport.client.statistics()
    }
}
