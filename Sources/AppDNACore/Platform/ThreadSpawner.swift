#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A thread `ThreadSpawner` started, to wait for with `join` (from any thread: a value that
/// can be kept in a `Locked` box).
public struct SpawnedThread: Sendable {
    #if canImport(Darwin)
    /// Darwin's `pthread_t` is a pointer, which Swift does not let cross threads: kept as its
    /// address (an identifier to pthread_join, never dereferenced here).
    private let address: UInt
    fileprivate init(handle: pthread_t) { address = UInt(bitPattern: handle) }
    fileprivate var handle: pthread_t { pthread_t(bitPattern: address)! }
    #else
    fileprivate let handle: pthread_t
    #endif

    /// Waits until the thread's body has returned (`pthread_join`).
    public func join() { pthread_join(handle, nil) }
}

/// pthreads without Foundation, the one place threads are started: `queue replay`'s senders,
/// `HTTPServer`'s workers, `ChunkPipeline`'s readers and `OrderedChunkWork`'s workers.
public enum ThreadSpawner {
    final class Box { let body: () -> Void; init(_ body: @escaping () -> Void) { self.body = body } }

    /// Starts `body` on a new thread; wait for it with `join`.
    public static func spawn(_ body: @escaping () -> Void) -> SpawnedThread {
        guard let thread = trySpawn(body) else { preconditionFailure("pthread_create failed") }
        return thread
    }

    /// Starts `body` on a new thread, or returns nil (and never runs `body`) when the system
    /// refuses one: for callers that can do the work themselves instead (`ChunkPipeline`).
    /// `stackBytes`: the thread's stack instead of the system's default (RLIMIT_STACK, 8 MiB
    /// on Linux): a server's hundreds of workers each reserve theirs in the address space.
    public static func trySpawn(stackBytes: Int? = nil, _ body: @escaping () -> Void) -> SpawnedThread? {
        let context = Unmanaged.passRetained(Box(body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        if let stackBytes { pthread_attr_setstacksize(&attributes, stackBytes) }
        // glibc's pthread_t is an integer (`pthread_t()` is 0); Darwin's is a non-optional
        // pointer (`typedef struct _opaque_pthread_t *__darwin_pthread_t`, SDK sys/_pthread/_pthread_types.h) and pthread_create takes `pthread_t?`.
        #if canImport(Darwin)
        var thread: pthread_t? = nil
        #else
        var thread = pthread_t()
        #endif
        let rc = pthread_create(&thread, &attributes, { raw in
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            box.body()
            return nil
        }, context)
        if rc != 0 {
            Unmanaged<Box>.fromOpaque(context).release()
            return nil
        }
        #if canImport(Darwin)
        return SpawnedThread(handle: thread!)
        #else
        return SpawnedThread(handle: thread)
        #endif
    }

    /// Starts `body` on a thread nobody joins (its resources go when it ends).
    public static func spawnDetached(_ body: @escaping () -> Void) {
        pthread_detach(spawn(body).handle)
    }

    /// Starts `body` on a thread nobody joins, or returns false (and never runs `body`) when
    /// the system refuses one: for servers, which answer "busy" instead of crashing.
    public static func trySpawnDetached(stackBytes: Int? = nil, _ body: @escaping () -> Void) -> Bool {
        guard let thread = trySpawn(stackBytes: stackBytes, body) else { return false }
        pthread_detach(thread.handle)
        return true
    }
}
