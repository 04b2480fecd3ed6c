/// A value several threads share, reachable only with its lock held: the one place the
/// project vouches for thread safety by hand (as swift-nio's `NIOLockedValueBox` does), so a
/// class keeping its shared state in a `Locked` box has only `let` properties and is plainly
/// `Sendable`, checked by the compiler.
///
/// Keep what is read together in one value (a struct), so one `withLock` sees it consistent.
/// A thread may wait inside the box for the value to change (`withLock(until:)`); whoever
/// changes what it waits for calls `broadcast`.
public final class Locked<Value> {
    private let lock = PthreadLock()
    private let changed = PthreadCondition()
    /// Touched only inside `lock.locked`.
    private var value: Value

    public init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, holding the lock: what `body` changes, the next holder sees.
    public func withLock<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
        try lock.locked { () throws(E) -> R in try body(&value) }
    }

    /// Holding the lock, waits until `isReady` holds, then runs `body`. While waiting the lock
    /// is released (others change the value and `broadcast`); `waiters`, when given, counts the
    /// threads waiting, so a producer can tell whether to wake one or start one. The value is
    /// never lent out across a wait: each check is an access of its own.
    public func withLock<R>(until isReady: (Value) -> Bool, counting waiters: WritableKeyPath<Value, Int>? = nil,
                            _ body: (inout Value) -> R) -> R {
        lock.locked {
            while !isReady(value) {
                if let waiters { value[keyPath: waiters] += 1 }
                lock.wait(changed)
                if let waiters { value[keyPath: waiters] -= 1 }
            }
            return body(&value)
        }
    }

    /// Wakes every thread waiting in `withLock(until:)` to look at the value again (call it
    /// after changing what they wait for, inside `withLock` or after it).
    public func broadcast() {
        changed.broadcast()
    }
}

// The one audited unchecked site of shared mutable state. Why unchecked: `value` is a `var`
// the compiler cannot see guarded (and the pthread lock and condition are not Sendable);
// every access to it above is inside `lock.locked`, and only Sendable values are shared so.
extension Locked: @unchecked Sendable where Value: Sendable {}
