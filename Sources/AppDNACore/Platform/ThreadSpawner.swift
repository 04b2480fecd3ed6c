/// pthreads without Foundation: `queue replay`'s senders and `webhook listen`'s connections.
public enum ThreadSpawner {
    final class Box { let body: () -> Void; init(_ body: @escaping () -> Void) { self.body = body } }

    /// Starts `body` on a new thread; join it with `pthread_join`.
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

    /// Starts `body` on a thread nobody joins (its resources go when it ends).
    public static func spawnDetached(_ body: @escaping () -> Void) {
        pthread_detach(spawn(body))
    }
}
