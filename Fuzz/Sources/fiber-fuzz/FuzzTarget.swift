/// One fuzz target: a name, the check run on each input, and the seed inputs
/// it starts from (valid messages of each shape, written by `FIBER_FUZZ_WRITE_SEEDS`).
///
/// A target fails by calling `FuzzCheck.fail`, which aborts: libFuzzer then
/// saves the input as a crash artifact. To add a target, write a file with a `static let target = FuzzTarget(...)` and list it in
/// `FuzzTarget.all`; `Scripts/fuzz` finds it by name.
struct FuzzTarget: Sendable {
    let name: String
    let run: @Sendable (_ input: [UInt8]) -> Void
    let seeds: @Sendable () -> [[UInt8]]

    static let all: [FuzzTarget] = [
        HTTP1ResponseFuzz.target,
        InflaterFuzz.target,
        ZlibStreamFuzz.target,
        WebSocketFrameFuzz.target,
        WebSocketMessageFuzz.target,
        UTF8ValidatorFuzz.target,
        PerMessageDeflateFuzz.target,
        CacheControlFuzz.target,
        HTTPDateFuzz.target,
        TraceParentFuzz.target,
        HTTPTargetFuzz.target,
        MultipartFormFuzz.target,
        FormURLEncodingFuzz.target,
        HTTP2FramesFuzz.target,
    ]
}
