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

    public init() { mutex = PinnedCState.make(pthread_mutex_t()) { pthread_mutex_init($0, nil) } }

    deinit { PinnedCState.free(mutex) { pthread_mutex_destroy($0) } }

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

    public init() { condition = PinnedCState.make(pthread_cond_t()) { pthread_cond_init($0, nil) } }

    deinit { PinnedCState.free(condition) { pthread_cond_destroy($0) } }

    /// Wakes every thread waiting on it.
    public func broadcast() { pthread_cond_broadcast(condition) }
}

/// The one way the mutex and the condition variable hold their C state: in memory of its own,
/// allocated and initialised by C once, never moved (only its address is handed to C), and
/// destroyed by C before it is freed.
private enum PinnedCState {
    static func make<State>(_ blank: State, initialisedBy cInit: (UnsafeMutablePointer<State>) -> Void) -> UnsafeMutablePointer<State> {
        let state = UnsafeMutablePointer<State>.allocate(capacity: 1)
        state.initialize(to: blank)
        cInit(state)
        return state
    }

    static func free<State>(_ state: UnsafeMutablePointer<State>, destroyedBy cDestroy: (UnsafeMutablePointer<State>) -> Void) {
        cDestroy(state)
        state.deinitialize(count: 1)
        state.deallocate()
    }
}
