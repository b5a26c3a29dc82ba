@testable import Fiber
import Testing

/// The one LRU map: every operation against a naive model.
@Suite struct LRUMapTests {
    @Test func evictsTheLeastRecentlyUsed() {
        var cache = LRUMap<String, Int>()
        cache.set(1, for: "a")
        cache.set(2, for: "b")
        cache.set(3, for: "c")
        _ = cache.value(for: "a")
        #expect(cache.evict(toCount: 2) == ["b"])
        #expect(cache.peek("a") == 1 && cache.peek("c") == 3)
        cache.set(4, for: "d")
        #expect(cache.evict(toCount: 1).sorted() == ["a", "c"])
        #expect(cache.keys == ["d"])
        #expect(cache.removeAll { key, _ in key == "d" } == ["d"])
        #expect(cache.count == 0)
        #expect(cache.removeOldest() == nil)
    }

    @Test func agreesWithANaiveModelOverRandomOperations() {
        var cache = LRUMap<String, Int>()
        var model: [(key: String, value: Int)] = []  // least recently used first
        var seed: UInt64 = 42
        func next(_ bound: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(bound))
        }
        for step in 0..<5_000 {
            let key = "k\(next(12))"
            switch next(5) {
            case 0, 1:
                cache.set(step, for: key)
                model.removeAll { $0.key == key }
                model.append((key, step))
            case 2:
                let expected = model.firstIndex { $0.key == key }.map { model.remove(at: $0) }
                if let expected { model.append(expected) }
                #expect(cache.value(for: key) == expected?.value)
            case 3:
                let limit = next(10)
                let evicted = cache.evict(toCount: limit)
                let expected = model.prefix(max(0, model.count - limit)).map(\.key)
                model.removeFirst(expected.count)
                #expect(evicted == expected)
            default:
                let expected = model.firstIndex { $0.key == key }.map { model.remove(at: $0).value }
                #expect(cache.remove(key) == expected)
            }
            #expect(cache.count == model.count)
        }
    }

    @Test func storingAgainReplacesAndMarksUsedAndFreedSlotsAreReused() {
        var cache = LRUMap<String, Int>()
        cache.set(1, for: "a")
        cache.set(2, for: "b")
        cache.set(10, for: "a")  // a: new value, most recent
        #expect(cache.count == 2 && cache.removeOldest()! == ("b", 2))
        for i in 0..<100 { cache.set(i, for: "k\(i)") }
        cache.evict(toCount: 2)
        #expect(cache.count == 2 && cache.peek("k99") == 99 && cache.peek("k98") == 98)
        #expect(cache.removeAll { _, value in value == 98 } == ["k98"])
        #expect(cache.remove("absent") == nil && cache.remove("k99") == 99)
        #expect(cache.count == 0 && cache.value(for: "k99") == nil)
        cache.set(7, for: "again")  // a freed slot is reused
        #expect(cache.value(for: "again") == 7)
        cache.removeAll()
        #expect(cache.count == 0 && cache.removeOldest() == nil)
    }
}
