/// Threads without Foundation: a body run on a new pthread, joined by the caller. Shared with
/// a `PthreadLock` and a `PthreadCondition` for the state the threads hand each other.
public enum ThreadSpawner {
    final class Box { let body: () -> Void; init(_ body: @escaping () -> Void) { self.body = body } }

    /// Starts `body` on a new thread; the caller must `join` it.
    public static func spawn(_ body: @escaping () -> Void) -> pthread_t {
        let context = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { raw in
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            box.body()
            return nil
        }, context)
        precondition(rc == 0, "pthread_create failed")
        return thread
    }

    /// Waits for `thread` to end.
    public static func join(_ thread: pthread_t) {
        pthread_join(thread, nil)
    }
}
