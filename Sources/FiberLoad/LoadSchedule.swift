import FiberRuntime

/// When a load test sends its requests.
///
/// - `closedLoop`: a fixed number of workers, each sending its next request
///   when the last one answered (what wrk does). The server's slowness slows
///   the load down, so latencies read from it understate what users queued
///   behind a slow request would see.
/// - `constantRate` and `ramp`: open loop, requests start on a timetable
///   whatever the server does (what wrk2 does). Latency is measured from when
///   a request *should* have started, so a stall shows in the percentiles
///   instead of being omitted (coordinated-omission correction).
public enum LoadSchedule: Sendable, Hashable {
    /// `concurrency` workers, each with one request in flight.
    case closedLoop(concurrency: Int)
    /// `perSecond` requests a second, at most `maxInFlight` at once (later ones wait, and their wait counts).
    case constantRate(perSecond: Double, maxInFlight: Int)
    /// A rate rising (or falling) linearly from `from` to `to` requests a second
    /// over `over`, then staying at `to`; at most `maxInFlight` at once.
    case ramp(from: Double, to: Double, over: Duration, maxInFlight: Int)

    /// True for the open-loop schedules.
    public var isOpenLoop: Bool {
        if case .closedLoop = self { return false }
        return true
    }

    /// How many requests may be in flight at once.
    public var maxInFlight: Int {
        switch self {
        case .closedLoop(let concurrency): max(1, concurrency)
        case .constantRate(_, let limit), .ramp(_, _, _, let limit): max(1, limit)
        }
    }

    /// When the request numbered `index` (from 0) should start, from the
    /// start of the run; nil for a closed loop, which has no timetable.
    public func intendedStart(of index: Int) -> Duration? {
        let n = Double(index)
        switch self {
        case .closedLoop:
            return nil
        case .constantRate(let rate, _):
            guard rate > 0 else { return nil }
            return .seconds(n / rate)
        case .ramp(let from, let to, let over, _):
            let span = over.seconds
            // Requests sent by time t during the ramp: from·t + (to − from)·t² / (2·span).
            let sentDuringRamp = (from + to) / 2 * span
            guard span > 0, n < sentDuringRamp else {
                guard to > 0 else { return nil }
                return .seconds(span + (n - max(0, sentDuringRamp)) / to)
            }
            let slope = (to - from) / span
            if abs(slope) < 1e-12 {
                return from > 0 ? .seconds(n / from) : nil
            }
            // Solve slope/2·t² + from·t − n = 0 for the positive root.
            let t = (-from + (from * from + 2 * slope * n).squareRoot()) / slope
            return t.isFinite && t >= 0 ? .seconds(t) : nil
        }
    }

    /// How many requests the timetable starts before `elapsed` (open loop only).
    public func scheduledCount(before elapsed: Duration, limit: Int) -> Int {
        var count = 0
        while count < limit, let start = intendedStart(of: count), start < elapsed { count += 1 }
        return count
    }
}
