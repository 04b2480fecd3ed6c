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
    /// Touched only inside `lock.locked`. In memory of its own, not a stored property: an
    /// inout access of a stored `var` is what ThreadSanitizer checks as a "Swift access", at
    /// the property's address, and an empty `Value` (`Locked(())`, a lock for a file) has no
    /// bytes, so its address is that of whatever lies next (the lock object allocated with
    /// the box): the access inside the lock was reported as racing with another thread's read
    /// of the lock on its way in (issue 49, `DeliveryRecorder.append` on two workers). A
    /// pointer's memory is its own (at least one byte is allocated) and is checked as plain
    /// memory, which the lock orders.
    private let value: UnsafeMutablePointer<Value>

    public init(_ value: Value) {
        self.value = UnsafeMutablePointer<Value>.allocate(capacity: 1)
        self.value.initialize(to: value)
    }

    deinit {
        value.deinitialize(count: 1)
        value.deallocate()
    }

    /// Runs `body` with the value, holding the lock: what `body` changes, the next holder sees.
    public func withLock<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
        try lock.locked { () throws(E) -> R in try body(&value.pointee) }
    }

    /// Holding the lock, waits until `isReady` holds, then runs `body`. While waiting the lock
    /// is released (others change the value and `broadcast`); `waiters`, when given, counts the
    /// threads waiting, so a producer can tell whether to wake one or start one. The value is
    /// never lent out across a wait: each check is an access of its own.
    public func withLock<R>(until isReady: (Value) -> Bool, counting waiters: WritableKeyPath<Value, Int>? = nil,
                            _ body: (inout Value) -> R) -> R {
        lock.locked {
            while !isReady(value.pointee) {
                if let waiters { value.pointee[keyPath: waiters] += 1 }
                lock.wait(changed)
                if let waiters { value.pointee[keyPath: waiters] -= 1 }
            }
            return body(&value.pointee)
        }
    }

    /// Wakes every thread waiting in `withLock(until:)` to look at the value again (call it
    /// after changing what they wait for, inside `withLock` or after it).
    public func broadcast() {
        changed.broadcast()
    }
}

// The one audited unchecked site of shared mutable state. Why unchecked: `value` is memory
// the compiler cannot see guarded (and the pthread lock and condition are not Sendable);
// every access to it above is inside `lock.locked`, and only Sendable values are shared so.
extension Locked: @unchecked Sendable where Value: Sendable {}
