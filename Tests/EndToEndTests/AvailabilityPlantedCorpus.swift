/// What `AvailabilityCheckTests.testEveryPlantedFormIsCaughtOrAllowed` plants in a copy of the
/// tree (Sources/appdna/PlantedCorpus.swift): one form of newer API per line. A line whose comment
/// says "caught" must be named by scripts/check-availability at the package's macOS 13 target, a
/// line whose comment says "allowed" must not be, and no other line may be. The forms are those a
/// Mac compiler rejects at a macOS 13 target (or accepts under a guard) and a Linux build does not.
enum AvailabilityPlantedCorpus {
    static let source = #"""
import Observation
import Synchronization

enum PlantedError: Error { case failed }
func plantedTypedThrows() throws(PlantedError) {}
func plantedIsolated() -> @isolated(any) () -> Void { {} }
func plantedAny(_ value: Any) -> Bool { value is Int }

func plantedCall(_ bytes: [UInt8]) -> String? {
    String(validating: bytes, as: UTF8.self) // caught: call
}
func plantedKeyPath() -> AnyKeyPath {
    \Duration.attoseconds // caught: key path
}
func plantedOwnMemberKeyPath() -> KeyPath<Int, Int> {
    \Int.plantedOwnMember // caught: key path to an own macOS 15 member
}
func plantedDefault(_ text: String? = String(validating: [UInt8](), as: UTF8.self)) {} // caught: default argument
func plantedOperator(_ left: RangeSet<Int>, _ right: RangeSet<Int>) -> Bool { // caught: type of a parameter
    left == right // caught: operator
}
func plantedStatic() -> Int128 { // caught: type in a signature
    .max // caught: static member
}
func plantedLiteral() {
    _ = 5 as Int128 // caught: literal of a newer type
}
struct PlantedObservable: Observable {} // caught: conformance
func plantedConstraint<T: AtomicRepresentable>(_ value: T) {} // caught: generic constraint
typealias PlantedAlias = Mutex<Int> // caught: type-only mention in a typealias
func plantedOptionalMention() -> [Int128]? { nil } // caught: type nested in generic arguments
func plantedClosure() {
    _ = { (value: Int128) in value } // caught: closure parameter type
}
func plantedAtomic() {
    let counter = Atomic<Int>(0) // caught: Atomic
    _ = counter.load(ordering: .relaxed) // caught: Atomic member
}
final class PlantedMutexBox: Sendable {
    let count = Mutex<Int>(0) // caught: Mutex
}
// typed throws: only where the function type's metadata is needed
func plantedTypedThrowsGeneric() {
    let handlers: [() throws(PlantedError) -> Void] = [] // caught: typed throws as a generic argument
    _ = handlers
}
func plantedTypedThrowsMetatype() {
    _ = (() throws(PlantedError) -> Void).self // caught: typed throws metatype
}
func plantedTypedThrowsErased() -> Bool {
    plantedAny(plantedTypedThrows) // caught: typed throws erased to Any
}
func plantedTypedThrowsCast(_ value: Any) -> Bool {
    value is () throws(PlantedError) -> Void // caught: typed throws cast
}
struct PlantedHandlers {
    var all: [() throws(PlantedError) -> Void] // caught: typed throws in a stored property's generic argument
    var one: (() throws(PlantedError) -> Void)? // allowed: an optional typed-throws function
}
func plantedIsolatedList(_ list: [@isolated(any) () -> Void]) {} // caught: @isolated(any) in a parameter's generic argument
func plantedTypedThrowsPlain() throws(PlantedError) { // allowed: typed throws in a signature
    try plantedTypedThrows() // allowed: calling a typed-throws function
}
func plantedIsolatedGeneric() {
    let queue: [@isolated(any) () -> Void] = [] // caught: @isolated(any) as a generic argument
    _ = queue
}
func plantedIsolatedErased() -> Bool {
    plantedAny(plantedIsolated()) // caught: @isolated(any) erased to Any
}
func plantedIsolatedParameter(_ body: @escaping @isolated(any) () -> Void) {} // allowed: @isolated(any) parameter
struct PlantedPack<each Element> {} // caught: parameter pack in a generic type
@available(macOS 14, *)
struct PlantedPackAnnotated<each Element> {} // allowed: pack in a type marked macOS 14
func plantedVariadic<each Element>(_ value: repeat each Element) {} // allowed: pack in a generic function
// the package's own declarations
@available(macOS 15, *)
func plantedOwnNew() -> Int { 1 } // allowed: declared for macOS 15
@available(macOS 15, *)
struct PlantedOwnType { var value = 1 }
@available(macOS 15, *)
extension Int { var plantedOwnMember: Int { self } }
@available(macOS, unavailable)
func plantedOwnNever() {}
@available(macOS 15, *)
@propertyWrapper struct PlantedWrapper { var wrappedValue: Int }
@available(macOS 15, *)
func + (left: PlantedOwnType, right: PlantedOwnType) -> PlantedOwnType { left }
func plantedOwnCaller() -> Int {
    plantedOwnNew() // caught: own macOS 15 function
}
func plantedOwnTypeMention() -> [PlantedOwnType] { [] } // caught: own macOS 15 type
func plantedOwnMemberUse() -> Int {
    1.plantedOwnMember // caught: own macOS 15 extension member
}
func plantedOwnNeverUse() {
    plantedOwnNever() // caught: own declaration unavailable on macOS
}
struct PlantedWrapped {
    @PlantedWrapper var count = 1 // caught: own macOS 15 property wrapper
}
func plantedOwnKeyPath() -> KeyPath<PlantedOwnType, Int>? { nil } // caught: own type in a key path type
// newer than the oldest compiler CI builds with (Swift 6.0.3): caught even where guarded
func plantedSpan(_ values: [Int]) -> Int {
    if #available(macOS 26, *) {
        return values.span.count // caught: Span (Swift 6.2, back-deployed)
    }
    return 0
}
func plantedInlineArray() -> Int {
    if #available(macOS 26, *) {
        let pair: InlineArray<2, Int> = [1, 2] // caught: InlineArray (Swift 6.2)
        return pair.count // caught: InlineArray member
    }
    return 0
}
// #available and guard #available scoping
func plantedGuarded(_ bytes: [UInt8]) -> String? {
    if #available(macOS 15, *), let text = String(validating: bytes, as: UTF8.self) { // allowed: condition after #available
        return text
    }
    if #available(macOS 15, *) {
        _ = plantedOwnNew() // allowed: inside if #available
        let run = { String(validating: bytes, as: UTF8.self) } // allowed: closure inside if #available
        _ = run
    } else {
        _ = String(validating: bytes, as: UTF8.self) // caught: else of if #available
    }
    if #available(macOS 14, *) {
        _ = Int128(1) // caught: under a lower #available
    }
    if #unavailable(macOS 15) {
        _ = String(validating: bytes, as: UTF8.self) // caught: then of #unavailable
    } else {
        _ = String(validating: bytes, as: UTF8.self) // allowed: else of #unavailable
    }
    do {
        guard #available(macOS 15, *) else { return nil }
        _ = Mutex<Int>(0) // allowed: after guard #available
    }
    _ = String(validating: bytes, as: UTF8.self) // caught: after the block that held the guard
    guard #available(macOS 15, *), let text = String(validating: bytes, as: UTF8.self) else { // allowed: guard condition after #available
        return String(validating: bytes, as: UTF8.self) // caught: guard's else body
    }
    return text + (String(validating: bytes, as: UTF8.self) ?? "") // allowed: after guard #available
}
@available(macOS 15, *)
func plantedAnnotated(_ bytes: [UInt8]) -> String? {
    _ = PlantedOwnType() + PlantedOwnType() // allowed: own operator in a macOS 15 function
    return String(validating: bytes, as: UTF8.self) // allowed: in a macOS 15 function
}
func plantedOwnOperator() {
    if #available(macOS 15, *) {
        _ = PlantedOwnType() + PlantedOwnType() // allowed: own operator under #available
    }
}
func plantedOlder() -> Duration {
    .seconds(1) // allowed: macOS 13 API
}
// syntax Swift 6.0.3 (the oldest compiler CI builds with) does not parse: caught even where guarded
func plantedTrailingParameter(first: Int, second: Int,) {} // caught: trailing comma in a parameter list
struct PlantedTrailingGeneric<First, Second,> {} // caught: trailing comma in a generic parameter list
func plantedTrailingArgument() {
    plantedTrailingParameter(first: 1, second: 2,) // caught: trailing comma in an argument list
}
func plantedTrailingGenericArgument() -> Dictionary<String, Int,> { [:] } // caught: trailing comma in a generic argument list
func plantedTrailingTuple() -> (Int, Int) { (1, 2,) } // caught: trailing comma in a tuple
func plantedTrailingInterpolation(_ value: Int) -> String { "\(value,)" } // caught: trailing comma in an interpolation
func plantedTrailingSubscript(_ values: [Int]) -> Int { values[0,] } // caught: trailing comma in a subscript
func plantedTrailingCapture() -> () -> Int {
    let value = 1
    return { [value,] in value } // caught: trailing comma in a capture list
}
func plantedTrailingLiterals() -> ([Int], [Int: Int]) {
    ([1, 2,], [1: 2,]) // allowed: trailing commas in array and dictionary literals
}
func plantedTrailingMultiline() -> [[Int]] {
    [
        [1,], // allowed: trailing comma in a nested array literal
        [2],
    ]
}
func plantedTrailingFullList(
    first: Int,
    second: Int, // caught: trailing comma in a multi-line parameter list
) {}
nonisolated struct PlantedNonisolatedType {} // caught: nonisolated on a type
nonisolated extension PlantedNonisolatedType {} // caught: nonisolated on an extension
nonisolated public final class PlantedNonisolatedClass {} // caught: nonisolated before other modifiers
final class PlantedNonisolatedMember: Sendable {
    nonisolated(unsafe) static var shared = 0 // allowed: nonisolated(unsafe) (Swift 5.10)
    nonisolated func plain() {} // allowed: nonisolated on a member
    nonisolated class func plainClassMember() {} // allowed: nonisolated on a class member
}
nonisolated(nonsending) func plantedNonsending() async {} // caught: nonisolated(nonsending)
@concurrent func plantedConcurrent() async {} // caught: @concurrent
struct PlantedStatic { static let limit = 1; let value = 2 }
func plantedMetatypeKeyPath() -> AnyKeyPath {
    \PlantedStatic.Type.limit // caught: metatype key path
}
func plantedInstanceKeyPath() -> AnyKeyPath {
    \PlantedStatic.value // allowed: an instance key path
}
func `planted raw identifier`() {} // caught: raw identifier
func plantedEscapedKeyword(`class`: Int) -> Int { `class` } // allowed: a backquoted keyword
final class PlantedWeakLet: Sendable {
    weak let other: PlantedWeakLet? // caught: weak let
    init(other: PlantedWeakLet?) { self.other = other }
}
final class PlantedWeakVar {
    weak var other: PlantedWeakVar? // allowed: weak var
}
@MainActor final class PlantedIsolatedDeinit {
    isolated deinit {} // caught: isolated deinit
}
func plantedUnsafe(_ pointer: UnsafePointer<Int>) -> Int {
    unsafe pointer.pointee // caught: unsafe expression
}
func plantedUnsafeName(unsafe: Int) -> Int { unsafe } // allowed: a parameter named unsafe
@unsafe func plantedUnsafeAttribute() {} // caught: @unsafe
struct PlantedValueGeneric<let count: Int> {} // caught: value generic parameter
@abi(func plantedOldName() -> Int) // caught: @abi
func plantedABIName() -> Int { 1 }
func plantedInText() -> String {
    "weak let a, nonisolated struct, values[0,], `a b`" // allowed: the forms in a string
}
func plantedLookAlikes() -> Bool {
    // weak let a, nonisolated struct S, values[0,], `a b`, isolated deinit // allowed: the forms in a comment
    /* nested /* unsafe x */ f(a,) */ return "a,)".contains(/(a,)/) // allowed: a trailing comma in a regex literal and a string
}
#if compiler(>=6.1)
func plantedUnderCompilerCheck(first: Int,) {} // allowed: in #if compiler(>=6.1)
#endif
// API newer than Swift 6.0.3 with an old date or none
func plantedTaskName() {
    _ = Task(name: "planted") {} // caught: Task(name:)
}
func plantedTaskNameless() {
    _ = Task {} // allowed: Task without a name
}
func plantedInterpolationDefault(_ value: Int?) -> String {
    "\(value, default: "none")" // caught: interpolation with default:
}
func plantedInterpolation(_ value: Int) -> String {
    "\(value)" // allowed: plain interpolation
}
func plantedTaskGroup() async -> Int {
    await withTaskGroup { group in // caught: withTaskGroup without of:
        group.addTask { 1 }
        return await group.reduce(0, +)
    }
}
func plantedThrowingTaskGroup() async throws -> Int {
    try await withThrowingTaskGroup { group in // caught: withThrowingTaskGroup without of:
        group.addTask { 1 }
        return try await group.reduce(0, +)
    }
}
func plantedTaskGroupOf() async -> Int {
    await withTaskGroup(of: Int.self) { group in // allowed: withTaskGroup(of:)
        group.addTask { 1 }
        return await group.reduce(0, +)
    }
}
// conformances the code uses without naming them
func plantedEncodable<T: Encodable>(_ type: T.Type) {}
func plantedCollection<C: Collection>(_ values: C) -> Int { values.count }
func plantedNeverEncodable() {
    plantedEncodable(Never.self) // caught: Never: Encodable used implicitly
    plantedEncodable(Int.self) // allowed: an old conformance used implicitly
    if #available(macOS 14, *) {
        plantedEncodable(Never.self) // allowed: Never: Encodable under #available(macOS 14)
    }
}
func plantedEnumeratedCollection() -> Int {
    plantedCollection([1].enumerated()) // caught: EnumeratedSequence: Collection used implicitly
}
func plantedEnumeratedMembers() -> [Int] {
    _ = [1].enumerated().reversed() // allowed: Sequence's reversed() where 6.3 picks BidirectionalCollection's
    return [1].enumerated().map { $0.offset } // allowed: Sequence's map where 6.3 picks Collection's
}
func plantedEnumeratedLoop(_ values: [Int]) -> Int {
    var total = 0
    for (index, value) in values.enumerated().reversed() { total += index + value } // allowed: a for-in over it
    return total
}
func plantedContinuationSet(_ continuation: AsyncStream<Int>.Continuation) -> Int {
    Set([continuation]).count // caught: a Set of AsyncStream.Continuation
}
"""#
}
