import Dispatch
import Foundation

/// Every request method with a completion instead of `await`, for code that is not
/// async. Each returns at once, without blocking a thread: the request runs in a task
/// of its own, and `completion` gets a `NetworkResponse` on `queue`, or without one on
/// the event loop that ran the request (keep it short there: no blocking call). The
/// `RequestChain` returned cancels the request (`cancel()`) or takes more serializers.
///
/// The value is decoded from JSON with the client's decoder, except `Data` (the body
/// as it came) and `Empty` (any 2xx, with or without a body). The status must pass
/// the client's `validateStatus` rule (2xx without one), else the result is
/// `.httpError` and the response is still there to read.
extension Fiber {
    /// Sends `request`; see the extension's overview.
    @discardableResult
    public func send<Value: Decodable & Sendable>(
        _ request: FiberRequest, as type: Value.Type = Value.self, queue: DispatchQueue? = nil,
        completion: @escaping @Sendable (NetworkResponse<Value>) -> Void
    ) -> RequestChain {
        chain(request).response(using: BodySerializer<Value>(), queue: queue, completion: completion)
    }

    /// Sends a `GET`; see the extension's overview.
    @discardableResult
    public func get<Value: Decodable & Sendable>(
        _ path: String, query: [String: String] = [:], headers: [String: String] = [:], as type: Value.Type = Value.self,
        queue: DispatchQueue? = nil, completion: @escaping @Sendable (NetworkResponse<Value>) -> Void
    ) -> RequestChain {
        send(request(.get, path, query: query, headers: headers), queue: queue, completion: completion)
    }

    /// Sends a `DELETE`; see the extension's overview.
    @discardableResult
    public func delete<Value: Decodable & Sendable>(
        _ path: String, query: [String: String] = [:], headers: [String: String] = [:], as type: Value.Type = Value.self,
        queue: DispatchQueue? = nil, completion: @escaping @Sendable (NetworkResponse<Value>) -> Void
    ) -> RequestChain {
        send(request(.delete, path, query: query, headers: headers), queue: queue, completion: completion)
    }

    /// Sends a `POST` without a body; see the extension's overview.
    @discardableResult
    public func post<Value: Decodable & Sendable>(
        _ path: String, query: [String: String] = [:], headers: [String: String] = [:], as type: Value.Type = Value.self,
        queue: DispatchQueue? = nil, completion: @escaping @Sendable (NetworkResponse<Value>) -> Void
    ) -> RequestChain {
        send(request(.post, path, query: query, headers: headers), queue: queue, completion: completion)
    }

    /// Sends a `POST` with `body` as JSON (a body that does not encode: `.encodingError`,
    /// nothing sent); see the extension's overview.
    @discardableResult
    public func post<Body: Encodable, Value: Decodable & Sendable>(
        _ path: String, body: Body, query: [String: String] = [:], headers: [String: String] = [:],
        as type: Value.Type = Value.self, queue: DispatchQueue? = nil,
        completion: @escaping @Sendable (NetworkResponse<Value>) -> Void
    ) -> RequestChain {
        send(jsonRequest(.post, path, body, query, headers), queue: queue, completion: completion)
    }

    /// Sends a `PUT` with `body` as JSON; see the extension's overview.
    @discardableResult
    public func put<Body: Encodable, Value: Decodable & Sendable>(
        _ path: String, body: Body, query: [String: String] = [:], headers: [String: String] = [:],
        as type: Value.Type = Value.self, queue: DispatchQueue? = nil,
        completion: @escaping @Sendable (NetworkResponse<Value>) -> Void
    ) -> RequestChain {
        send(jsonRequest(.put, path, body, query, headers), queue: queue, completion: completion)
    }

    /// Sends a `PATCH` with `body` as JSON; see the extension's overview.
    @discardableResult
    public func patch<Body: Encodable, Value: Decodable & Sendable>(
        _ path: String, body: Body, query: [String: String] = [:], headers: [String: String] = [:],
        as type: Value.Type = Value.self, queue: DispatchQueue? = nil,
        completion: @escaping @Sendable (NetworkResponse<Value>) -> Void
    ) -> RequestChain {
        send(jsonRequest(.patch, path, body, query, headers), queue: queue, completion: completion)
    }

    /// Sends `endpoint`; `completion` gets its `Response` decoded; see the extension's overview.
    @discardableResult
    public func request<E: Endpoint>(
        _ endpoint: E, queue: DispatchQueue? = nil, completion: @escaping @Sendable (NetworkResponse<E.Response>) -> Void
    ) -> RequestChain where E.Response: Sendable {
        send(request(for: endpoint), queue: queue, completion: completion)
    }

    /// Sends `endpoint` and returns its `Response` with the response's metadata, or the
    /// failure, without throwing.
    public func response<E: Endpoint>(for endpoint: E) async -> NetworkResponse<E.Response> where E.Response: Sendable {
        await chain(request(for: endpoint)).response(using: BodySerializer<E.Response>())
    }
}

/// The completion methods' serializer: `Data` as it came, anything else from JSON.
struct BodySerializer<Value: Decodable & Sendable>: ResponseSerializer {
    func serialize(_ response: FiberResponse) throws(FiberError) -> Value {
        if let data = response.data as? Value { return data }
        return try DecodableResponseSerializer<Value>().serialize(response)
    }
}
