import CFiberShims
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A joinable POSIX thread running one closure: the home of an event loop.
final class LoopThread: @unchecked Sendable {
    // @unchecked: `handle` is written once in init, before the thread can be
    // joined by anybody, and read only by `join`, which runs once.
    private var handle = pthread_t()
    private var joined = false

    private final class Body {
        let name: String
        let run: () -> Void
        init(name: String, run: @escaping () -> Void) { self.name = name; self.run = run }
    }

    init(name: String, run: @escaping () -> Void) {
        let body = Unmanaged.passRetained(Body(name: name, run: run)).toOpaque()
        let rc = pthread_create(&handle, nil, { arg in
            let body = Unmanaged<Body>.fromOpaque(arg!).takeRetainedValue()
            cfiber_set_thread_name(body.name)
            body.run()
            return nil
        }, body)
        precondition(rc == 0, "pthread_create failed with \(rc)")
    }

    /// Joins the thread; safe to call more than once. Call only once the thread is known to be ending.
    func join() {
        guard !joined else { return }
        joined = true
        pthread_join(handle, nil)
    }
}
