#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A mutex as a class (a `pthread_mutex_t` must not move, so it lives in an object). Not
/// Sendable: shared state goes in a `Locked` box, which holds one of these.
public final class PthreadLock {
    fileprivate var mutex = pthread_mutex_t()

    public init() { pthread_mutex_init(&mutex, nil) }
    deinit { pthread_mutex_destroy(&mutex) }

    /// Runs `body` holding the lock.
    public func locked<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return try body()
    }

    /// Inside `locked`: releases the lock until `condition` is broadcast, then holds it again.
    /// Callers loop on their own predicate (wake-ups may be spurious).
    public func wait(_ condition: PthreadCondition) {
        pthread_cond_wait(&condition.condition, &mutex)
    }
}

/// A condition variable to wait on with a `PthreadLock` held (see `PthreadLock.wait`); a
/// `Locked` box has one (`withLock(until:)`, `broadcast`).
public final class PthreadCondition {
    fileprivate var condition = pthread_cond_t()

    public init() { pthread_cond_init(&condition, nil) }
    deinit { pthread_cond_destroy(&condition) }

    /// Wakes every thread waiting on it.
    public func broadcast() { pthread_cond_broadcast(&condition) }
}
