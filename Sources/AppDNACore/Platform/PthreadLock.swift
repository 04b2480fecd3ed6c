#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A mutex as a class. The `pthread_mutex_t` lives in memory of its own, allocated once and
/// never moved, and only its address is passed around: a stored `pthread_mutex_t` handed to C
/// as `&mutex` is an inout access of the property, whose address Swift does not promise to
/// keep (it may pass a temporary), and which every thread would make before it holds the lock
/// (swift-nio allocates its lock storage for the same reason). Not Sendable: shared state goes
/// in a `Locked` box, which holds one of these.
public final class PthreadLock {
    fileprivate let mutex: UnsafeMutablePointer<pthread_mutex_t>

    public init() {
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` holding the lock.
    public func locked<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Inside `locked`: releases the lock until `condition` is broadcast, then holds it again.
    /// Callers loop on their own predicate (wake-ups may be spurious).
    public func wait(_ condition: PthreadCondition) {
        pthread_cond_wait(condition.condition, mutex)
    }
}

/// A condition variable to wait on with a `PthreadLock` held (see `PthreadLock.wait`); a
/// `Locked` box has one (`withLock(until:)`, `broadcast`). In allocated memory, as the mutex.
public final class PthreadCondition {
    fileprivate let condition: UnsafeMutablePointer<pthread_cond_t>

    public init() {
        condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deinitialize(count: 1)
        condition.deallocate()
    }

    /// Wakes every thread waiting on it.
    public func broadcast() { pthread_cond_broadcast(condition) }
}
