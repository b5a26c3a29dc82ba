/// The trace a request belongs to, carried by the task (`TaskLocal`): every
/// request made, and every interceptor run, inside a trace sees its ID.
///
/// `Fiber.send` starts a trace with a new ID (from `FiberDefaults.traceIDGenerator`)
/// unless the caller already runs inside one, whose ID it keeps:
///
/// ```swift
/// try await TraceContext.$traceID.withValue("checkout-42") {
///     try await fiber.get("/cart")   // response.traceID == "checkout-42"
/// }
/// ```
public enum TraceContext {
    /// The current trace ID; empty outside any trace.
    @TaskLocal public static var traceID: String = ""
    /// Free-form context of the current trace (user, feature, …), logged and put on spans.
    @TaskLocal public static var metadata: [String: String] = [:]
}
