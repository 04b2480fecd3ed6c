/// A stack of plain values in manually managed memory, for the parser's open containers and
/// their keys. A Swift Array checked uniqueness and bounds on every push, pop and write to the
/// top (about a fifth of the parser's instructions on a bundle of many small objects); here
/// those are a compare and a store. The owner frees the memory with `deallocate()` (the parser
/// is a struct, so it cannot do that in a deinit).
struct JSONParserStack<Element> {
    private(set) var base: UnsafeMutablePointer<Element>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 4)
        base = UnsafeMutablePointer<Element>.allocate(capacity: self.capacity)
    }

    @inline(__always) var isEmpty: Bool { count == 0 }

    /// The innermost element; the stack must not be empty.
    @inline(__always) var top: Element { base[count - 1] }

    /// Where the innermost element is, to read or change one field of it without copying the
    /// whole element; the stack must not be empty.
    @inline(__always) var topPointer: UnsafeMutablePointer<Element> { base + (count - 1) }

    @inline(__always) subscript(index: Int) -> Element {
        get { base[index] }
        nonmutating set { base[index] = newValue }
    }

    @inline(__always)
    mutating func push(_ element: Element) {
        if count == capacity { grow() }
        (base + count).initialize(to: element)
        count += 1
    }

    /// Drops elements from the top until `count` are left. The elements are plain values, so
    /// nothing needs deinitialising, and a dropped element stays readable until the next push.
    @inline(__always)
    mutating func truncate(to newCount: Int) { count = newCount }

    @inline(__always)
    mutating func removeAll() { count = 0 }

    private mutating func grow() {
        let bigger = UnsafeMutablePointer<Element>.allocate(capacity: capacity * 2)
        bigger.moveInitialize(from: base, count: count)
        base.deallocate()
        base = bigger
        capacity *= 2
    }

    func deallocate() { base.deallocate() }
}
