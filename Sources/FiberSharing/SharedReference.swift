import FiberRuntime

/// A value shared by reference across the process: read it from anywhere,
/// change it with `withLock`, and observe its changes as an `AsyncSequence`.
/// The stand-in for swift-sharing's `@Shared` storage.
///
/// ```swift
/// let reference = SharedReference(FiberConfiguration())
/// reference.withLock { $0.authToken = "t" }
/// for await config in reference.changes { … }
/// ```
public final class SharedReference<Value: Sendable & Equatable>: Sendable {
    private struct State {
        var value: Value
        var version = 0
        var observers: [Int: AsyncStream<Value>.Continuation] = [:]
        var nextObserver = 0
    }

    private let state: Locked<State>

    /// A reference holding `value`.
    public init(_ value: Value) {
        state = Locked(State(value: value))
    }

    /// The current value.
    public var value: Value { state.withLock { $0.value } }

    /// Counts the changes so far (0 until the first); a cheap way to notice one.
    public var version: Int { state.withLock { $0.version } }

    /// Changes the value under the lock and returns what `body` returns;
    /// observers get the new value if it differs from the old one.
    ///
    /// - Throws: what `body` throws (the value keeps any change made before the throw).
    @discardableResult
    public func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        try state.withLock { state in
            let old = state.value
            defer {
                if state.value != old {
                    state.version += 1
                    for observer in state.observers.values { observer.yield(state.value) }
                }
            }
            return try body(&state.value)
        }
    }

    /// Each new value, in order, from the time of the call (the current value
    /// is not repeated); ends when the consumer stops iterating.
    public var changes: AsyncStream<Value> {
        let (stream, continuation) = AsyncStream.makeStream(of: Value.self, bufferingPolicy: .bufferingNewest(16))
        let id = state.withLock { state in
            state.nextObserver += 1
            state.observers[state.nextObserver] = continuation
            return state.nextObserver
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.observers.removeValue(forKey: id) }
        }
        return stream
    }
}

/// Names a process-wide `SharedReference`, as swift-sharing's keys do:
/// `@Shared(.fiberConfiguration) var config`.
public protocol SharedKey<Value>: Sendable {
    /// The shared value's type.
    associatedtype Value: Sendable & Equatable
    /// The reference the key names.
    var reference: SharedReference<Value> { get }
}

/// A property wrapper over a `SharedReference`: reads give the current value,
/// `$name.withLock { }` changes it, `$name.changes` observes it.
@propertyWrapper
public struct Shared<Value: Sendable & Equatable>: Sendable {
    /// The reference this wrapper reads and writes.
    public let reference: SharedReference<Value>

    /// The wrapper over the reference `key` names.
    public init(_ key: some SharedKey<Value>) {
        self.reference = key.reference
    }

    /// The wrapper over `reference`.
    public init(_ reference: SharedReference<Value>) {
        self.reference = reference
    }

    /// The current value.
    public var wrappedValue: Value { reference.value }

    /// The wrapper itself, for `withLock` and `changes`.
    public var projectedValue: Shared<Value> { self }

    /// Changes the shared value; see `SharedReference.withLock`.
    ///
    /// - Throws: what `body` throws.
    @discardableResult
    public func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R { try reference.withLock(body) }

    /// Each new value; see `SharedReference.changes`.
    public var changes: AsyncStream<Value> { reference.changes }
}

/// The key of the process's `FiberConfiguration`.
public struct FiberConfigurationKey: SharedKey {
    /// The key (all instances name the same reference).
    public init() {}

    /// The process's configuration reference.
    public var reference: SharedReference<FiberConfiguration> { processConfiguration }
}

extension SharedKey where Self == FiberConfigurationKey {
    /// The process's `FiberConfiguration`, read by every `SharedFiber` made without a reference of its own.
    public static var fiberConfiguration: FiberConfigurationKey { FiberConfigurationKey() }
}

private let processConfiguration = SharedReference(FiberConfiguration())
