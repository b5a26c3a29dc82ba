import Dispatch
import Foundation
import FiberRuntime

/// A request to which serializers are attached, each with a completion or awaited:
/// `.validate()`, `.responseDecodable(of:)`, `.responseData`, `.responseString`,
/// `.responseVoid`, or `response(using:)` with a serializer of your own. However many
/// are attached, the request goes to the network once, when the first one is.
///
/// ```swift
/// fiber.chain(fiber.request(.get, "/products/42"))
///     .validate(statusCode: 200..<300)
///     .responseDecodable(of: Product.self) { response in print(response.value as Any) }
///     .responseVoid { response in print("finished:", response.isSuccess) }
/// ```
///
/// A chain is a value: `validate` returns a new chain that shares the call of the one it
/// came from, and its checks apply to the serializers attached to it. Without any
/// `validate`, a response must pass the client's `validateStatus` rule (2xx when it has
/// none). Failures are typed: `.httpError` for a rejected status, `.decodingError` for a
/// body that does not serialize or a `Content-Type` the chain does not accept, and the
/// call's own `FiberError` otherwise.
public struct RequestChain: Sendable {
    /// The request, as it was built.
    public let request: FiberRequest
    private let fiber: Fiber
    private let validations: [@Sendable (FiberResponse) throws(FiberError) -> Void]
    private let call: SharedCall

    init(fiber: Fiber, request: FiberRequest) {
        self.init(fiber: fiber, request: request, validations: [], call: SharedCall())
    }

    private init(fiber: Fiber, request: FiberRequest, validations: [@Sendable (FiberResponse) throws(FiberError) -> Void],
                 call: SharedCall) {
        self.fiber = fiber
        self.request = request
        self.validations = validations
        self.call = call
    }

    // MARK: Validation

    /// The same chain, accepting only the client's `validateStatus` rule (2xx without one).
    public func validate() -> RequestChain {
        adding { response throws(FiberError) in try response.validateStatus() }
    }

    /// The same chain, accepting only the statuses in `codes`.
    public func validate<Codes: Sequence & Sendable>(statusCode codes: Codes) -> RequestChain where Codes.Element == Int {
        let accepted = Set(codes)
        return adding { response throws(FiberError) in
            guard accepted.contains(response.statusCode) else {
                throw .httpError(statusCode: response.statusCode, data: response.data, response: response)
            }
        }
    }

    /// The same chain, accepting only a `Content-Type` among `types` (`type/subtype`,
    /// `type/*` or `*/*`; parameters ignored). An empty body passes whatever its type.
    public func validate(contentType types: [String]) -> RequestChain {
        adding { response throws(FiberError) in
            guard !response.data.isEmpty else { return }
            let received = response.header("Content-Type")?.split(separator: ";").first
                .map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
            let matches = types.contains { pattern in
                let wanted = pattern.lowercased()
                if wanted == "*/*" || wanted == received { return true }
                guard wanted.hasSuffix("/*") else { return false }
                return received.hasPrefix(String(wanted.dropLast()))
            }
            guard matches else {
                throw .decodingError(underlying: UnacceptableContentType(received: received, accepted: types), data: response.data)
            }
        }
    }

    /// The same chain with `check` run on every response before serializing. A
    /// `FiberError` it throws is the call's; any other error becomes
    /// `.interceptor(name: "validate", underlying:)`.
    public func validate(_ check: @escaping @Sendable (FiberResponse) throws -> Void) -> RequestChain {
        adding { response throws(FiberError) in
            do {
                try check(response)
            } catch let error as FiberError {
                throw error
            } catch {
                throw .interceptor(name: "validate", underlying: error)
            }
        }
    }

    private func adding(_ check: @escaping @Sendable (FiberResponse) throws(FiberError) -> Void) -> RequestChain {
        RequestChain(fiber: fiber, request: request, validations: validations + [check], call: call)
    }

    // MARK: Awaited

    /// The response made by `serializer`, after the chain's validations.
    public func response<Serializer: ResponseSerializer>(using serializer: Serializer) async
        -> NetworkResponse<Serializer.SerializedObject> {
        let outcome = await call.outcome(of: fiber, request)
        let result: Result<Serializer.SerializedObject, FiberError>
        switch outcome.result {
        case .failure(let error):
            result = .failure(error)
        case .success(let response):
            do throws(FiberError) {
                if validations.isEmpty { try response.validateStatus() }
                for check in validations { try check(response) }
                result = .success(try serializer.serialize(response))
            } catch {
                result = .failure(error)
            }
        }
        return NetworkResponse(request: request, response: outcome.response, result: result)
    }

    /// The body decoded from JSON as `type`, with `decoder` or the client's.
    public func responseDecodable<Value: Decodable & Sendable>(of type: Value.Type = Value.self,
                                                              decoder: JSONDecoder? = nil) async -> NetworkResponse<Value> {
        await response(using: DecodableResponseSerializer<Value>(decoder: decoder))
    }

    /// The body as it came.
    public func responseData() async -> NetworkResponse<Data> { await response(using: DataResponseSerializer()) }

    /// The body as text (see `StringResponseSerializer`).
    public func responseString(encoding: String.Encoding? = nil) async -> NetworkResponse<String> {
        await response(using: StringResponseSerializer(encoding: encoding))
    }

    /// Only whether the call succeeded.
    public func responseVoid() async -> NetworkResponse<Void> { await response(using: VoidResponseSerializer()) }

    // MARK: With a completion

    /// Calls `completion` with the response made by `serializer`; returns the chain, for
    /// more serializers or `cancel()`. No thread waits meanwhile.
    ///
    /// Without a `queue`, `completion` runs on the event loop that ran the request, as
    /// a server's callbacks usually do: keep it short (no blocking call, no heavy work),
    /// or pass a queue to run it there (`.main` in a program that runs a main queue).
    @discardableResult
    public func response<Serializer: ResponseSerializer>(
        using serializer: Serializer, queue: DispatchQueue? = nil,
        completion: @escaping @Sendable (NetworkResponse<Serializer.SerializedObject>) -> Void
    ) -> RequestChain {
        let chain = self
        // Started at once, on the loop the transport would send on: no hop there from the global pool.
        Task(executorPreference: fiber.transport.executorPreference()) {
            let response = await chain.response(using: serializer)
            if let queue { queue.async { completion(response) } } else { completion(response) }
        }
        return self
    }

    /// Calls `completion` (on `queue`, else on the request's event loop) with the body decoded from JSON as `type`.
    @discardableResult
    public func responseDecodable<Value: Decodable & Sendable>(
        of type: Value.Type = Value.self, decoder: JSONDecoder? = nil, queue: DispatchQueue? = nil,
        completion: @escaping @Sendable (NetworkResponse<Value>) -> Void
    ) -> RequestChain {
        response(using: DecodableResponseSerializer<Value>(decoder: decoder), queue: queue, completion: completion)
    }

    /// Calls `completion` (on `queue`, else on the request's event loop) with the body as it came.
    @discardableResult
    public func responseData(queue: DispatchQueue? = nil,
                             completion: @escaping @Sendable (NetworkResponse<Data>) -> Void) -> RequestChain {
        response(using: DataResponseSerializer(), queue: queue, completion: completion)
    }

    /// Calls `completion` (on `queue`, else on the request's event loop) with the body as text.
    @discardableResult
    public func responseString(encoding: String.Encoding? = nil, queue: DispatchQueue? = nil,
                               completion: @escaping @Sendable (NetworkResponse<String>) -> Void) -> RequestChain {
        response(using: StringResponseSerializer(encoding: encoding), queue: queue, completion: completion)
    }

    /// Calls `completion` (on `queue`, else on the request's event loop) with whether the call succeeded.
    @discardableResult
    public func responseVoid(queue: DispatchQueue? = nil,
                             completion: @escaping @Sendable (NetworkResponse<Void>) -> Void) -> RequestChain {
        response(using: VoidResponseSerializer(), queue: queue, completion: completion)
    }

    // MARK: Control

    /// Cancels the call: every serializer attached, awaited or with a completion,
    /// gets `FiberError.cancelled` (unless the response was in already).
    public func cancel() { call.cancel() }

    /// The request as a `curl` command line for a POSIX shell, credentials redacted
    /// (see `FiberRequest.cURL(includingCredentials:)`).
    public var cURL: String { request.cURL() }

    /// The same chain, after handing its `curl` command line to `log` (default: print).
    @discardableResult
    public func cURLLog(_ log: @Sendable (String) -> Void = { print($0) }) -> RequestChain {
        log(cURL)
        return self
    }
}

/// The `Content-Type` of a response was not among those a chain accepts: the
/// `underlying` error of a `FiberError.decodingError`.
public struct UnacceptableContentType: Error, Sendable, Equatable, CustomStringConvertible {
    /// The type received (`type/subtype`, lowercased; empty when there was none).
    public let received: String
    /// The types the chain accepted.
    public let accepted: [String]

    public var description: String {
        "Content-Type \(received.isEmpty ? "(none)" : received) is not one of \(accepted.joined(separator: ", "))"
    }
}

/// The one network call of a chain. The first serializer to ask runs it in its own
/// task (an awaited one inline, a completion's in the task made for it), so an
/// awaited chain costs no task of its own; the others wait for its outcome.
final class SharedCall: Sendable {
    /// The task running the call, kept only while it runs it (see `outcome`), to cancel it.
    private struct Runner: @unchecked Sendable {
        // @unchecked: an `UnsafeCurrentTask` must not outlive its task. The runner removes
        // it under the lock before it returns from the call, and it is used only under
        // that lock, so it is never used once its task may have ended.
        let task: UnsafeCurrentTask
    }

    private enum State {
        case idle
        case running(Runner?, waiters: [Int: CheckedContinuation<Outcome, Never>], nextWaiter: Int)
        case finished(Outcome)
        case cancelledBeforeStart
    }

    private enum Role {
        case run
        case wait
        case done(Outcome)
    }

    // A pthread mutex (`Locked`), which ThreadSanitizer sees: the runner and the waiters
    // come from different threads.
    private let state = Locked(State.idle)

    /// The call's response or its error. A caller cancelled while waiting cancels the
    /// call: the response is one thing shared by every serializer.
    func outcome(of fiber: Fiber, _ request: FiberRequest) async -> Outcome {
        let role: Role = withUnsafeCurrentTask { current in
            state.withLock { state in
                switch state {
                case .idle:
                    state = .running(current.map(Runner.init), waiters: [:], nextWaiter: 0)
                    return .run
                case .running: return .wait
                case .finished(let outcome): return .done(outcome)
                case .cancelledBeforeStart: return .done(Outcome(.failure(.cancelled)))
                }
            }
        }
        switch role {
        case .done(let outcome):
            return outcome
        case .run:
            let outcome = await Self.perform(fiber, request)
            let waiters: [CheckedContinuation<Outcome, Never>] = state.withLock { state in
                guard case .running(_, let waiters, _) = state else { return [] }
                state = .finished(outcome)
                return Array(waiters.values)
            }
            for waiter in waiters { waiter.resume(returning: outcome) }
            return outcome
        case .wait:
            return await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
                    let ready: Outcome? = state.withLock { state in
                        switch state {
                        case .running(let runner, var waiters, let next):
                            waiters[next] = continuation
                            state = .running(runner, waiters: waiters, nextWaiter: next + 1)
                            return nil
                        case .finished(let outcome): return outcome
                        case .idle, .cancelledBeforeStart: return Outcome(.failure(.cancelled))
                        }
                    }
                    if let ready { continuation.resume(returning: ready) }
                }
            } onCancel: {
                self.cancel()
            }
        }
    }

    /// Cancels the call: the task running it, or the call before it starts.
    func cancel() {
        state.withLock { state in
            switch state {
            case .idle: state = .cancelledBeforeStart
            case .running(let runner, _, _): runner?.task.cancel()
            case .finished, .cancelledBeforeStart: break
            }
        }
    }

    private static func perform(_ fiber: Fiber, _ request: FiberRequest) async -> Outcome {
        do {
            return Outcome(.success(try await fiber.send(request)))
        } catch let error as FiberError {
            return Outcome(.failure(error))
        } catch is CancellationError {
            return Outcome(.failure(.cancelled))
        } catch {
            return Outcome(.failure(.interceptor(name: "unknown", underlying: error)))
        }
    }

    /// A call's outcome, and its response whether or not the chain accepts it.
    struct Outcome: Sendable {
        let result: Result<FiberResponse, FiberError>
        init(_ result: Result<FiberResponse, FiberError>) { self.result = result }

        var response: FiberResponse? {
            switch result {
            case .success(let response): response
            case .failure(.httpError(_, _, let response)): response
            case .failure: nil
            }
        }
    }
}

extension Fiber {
    /// `request` as a chain, to which serializers are attached (see `RequestChain`).
    public func chain(_ request: FiberRequest) -> RequestChain { RequestChain(fiber: self, request: request) }

    /// A request to `path` as a chain (see `RequestChain`).
    public func chain(_ method: HTTPMethod = .get, _ path: String, query: [String: String] = [:],
                      headers: [String: String] = [:]) -> RequestChain {
        chain(request(method, path, query: query, headers: headers))
    }
}
