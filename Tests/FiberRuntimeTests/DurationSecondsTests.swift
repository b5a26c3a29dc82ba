@testable import FiberRuntime
import Testing

@Suite struct DurationSecondsTests {
    /// The two-halves reading agrees with the components' to a `Double`'s precision, both signs,
    /// across the halves' boundary (2⁶⁴ attoseconds, some 18.4 s) and far beyond it.
    @Test func secondsAgreeWithTheComponents() {
        var durations: [Duration] = [.zero, .nanoseconds(1), .nanoseconds(-1), .seconds(1.5), .milliseconds(-250),
                                     .seconds(18), .seconds(19), .seconds(86_400 * 365 * 100), .seconds(-86_400)]
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<2000 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            durations.append(.nanoseconds(Int64(bitPattern: seed) >> Int64(seed % 40)))
        }
        for duration in durations {
            let (seconds, attoseconds) = duration.components
            let expected = Double(seconds) + Double(attoseconds) / 1e18
            #expect(abs(duration.seconds - expected) <= abs(expected) * 1e-15 + 1e-18, "\(duration)")
        }
        #expect(Duration.seconds(1.5).seconds == 1.5 && Duration.milliseconds(-250).seconds == -0.25)
    }
}
