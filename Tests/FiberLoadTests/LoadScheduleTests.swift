import FiberLoad
import Testing

/// The timetables of the open-loop schedules, without running anything.
@Suite struct LoadScheduleTests {
    static func seconds(_ d: Duration?) -> Double? {
        d.map { Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18 }
    }

    @Test func constantRateStartsEveryRequestOnTime() {
        let schedule = LoadSchedule.constantRate(perSecond: 200, maxInFlight: 8)
        #expect(Self.seconds(schedule.intendedStart(of: 0)) == 0)
        #expect(abs(Self.seconds(schedule.intendedStart(of: 100))! - 0.5) < 1e-9)
        #expect(schedule.scheduledCount(before: .seconds(1), limit: 10_000) == 200)
        #expect(schedule.scheduledCount(before: .seconds(1), limit: 50) == 50)
        #expect(schedule.isOpenLoop && schedule.maxInFlight == 8)
    }

    @Test func closedLoopHasNoTimetable() {
        let schedule = LoadSchedule.closedLoop(concurrency: 4)
        #expect(schedule.intendedStart(of: 3) == nil)
        #expect(!schedule.isOpenLoop && schedule.maxInFlight == 4)
    }

    @Test func rampSendsTheAreaUnderItsRateAndThenHolds() {
        // 0 → 100/s over 2 s: 100 requests during the ramp, then 100/s.
        let schedule = LoadSchedule.ramp(from: 0, to: 100, over: .seconds(2), maxInFlight: 16)
        #expect(schedule.scheduledCount(before: .seconds(2), limit: 10_000) == 100)
        #expect(schedule.scheduledCount(before: .seconds(3), limit: 10_000) == 200)
        // Half of the ramp's requests start in its last 0.6 s (t = √2 s onwards).
        #expect(abs(Self.seconds(schedule.intendedStart(of: 50))! - 2.0.squareRoot()) < 1e-6)
        // Starts never go backwards.
        let starts = (0..<300).compactMap { Self.seconds(schedule.intendedStart(of: $0)) }
        #expect(starts.count == 300)
        #expect(zip(starts, starts.dropFirst()).allSatisfy { $0 <= $1 })
    }

    @Test func fallingRampAndFlatRamp() {
        let falling = LoadSchedule.ramp(from: 100, to: 50, over: .seconds(1), maxInFlight: 4)
        #expect(falling.scheduledCount(before: .seconds(1), limit: 10_000) == 75)
        let flat = LoadSchedule.ramp(from: 10, to: 10, over: .seconds(1), maxInFlight: 4)
        #expect(flat.scheduledCount(before: .seconds(2), limit: 10_000) == 20)
    }
}
