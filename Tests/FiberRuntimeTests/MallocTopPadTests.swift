import Testing
@testable import FiberRuntime
#if canImport(Glibc)
import Glibc
#endif

@Suite("Heap top padding")
struct MallocTopPadTests {
    @Test func startingALoopGroupKeepsHalfAMebibyteAtTheTopOfGlibcsHeaps() async throws {
        let group = EventLoopGroup(loopCount: 1)
        try await group.shutdown()
        if getenv("GLIBC_TUNABLES") != nil || getenv("FIBER_MALLOC_TOP_PAD") != nil {
            // Set from outside: the runtime leaves it alone (or applies the given count).
            return
        }
        if MallocTopPad.applied == nil, dlsym(nil, "__asan_init") != nil {
            // AddressSanitizer's allocator replaces glibc's and refuses mallopt.
            return
        }
        // glibc accepted it (mallopt returned 1).
        #expect(MallocTopPad.applied == 512 * 1024)
    }
}
