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
"""#
}
