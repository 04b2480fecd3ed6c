import XCTest
@testable import AppDNACore

final class CodegenIdentifiersTests: XCTestCase {
    /// Every hostile key of issue 21 gets a name that is a valid identifier in Swift and
    /// Kotlin, and the documented rule gives exactly these names.
    func testHostileKeysGetTheDocumentedNames() {
        let keys = ["dark-mode", "2fa_enabled", "class", "default", "self", "a.b", "ünï", "", "dark_mode", "---"]
        let names = CodegenIdentifiers.names(for: keys)
        XCTAssertEqual(names, ["darkMode", "_2faEnabled", "class_", "default_", "self_", "aB", "uFCNUEF", "key", "darkMode_2", "key_2"])
        XCTAssertEqual(Set(names).count, names.count)
    }

    /// Collisions are resolved in UTF-8 byte order of the keys, not in input order, so the
    /// same bundle gives the same names whatever order its keys come in.
    func testCollisionSuffixesDoNotDependOnInputOrder() {
        let keys = ["dark_mode", "dark-mode", "darkMode", "Dark Mode"]
        let forward = CodegenIdentifiers.names(for: keys)
        let backward = Array(CodegenIdentifiers.names(for: keys.reversed()).reversed())
        XCTAssertEqual(forward, backward)
        // Byte order: "Dark Mode" < "dark-mode" < "darkMode" < "dark_mode".
        XCTAssertEqual(forward, ["darkMode_4", "darkMode_2", "darkMode_3", "darkMode"])
        XCTAssertEqual(CodegenIdentifiers.names(for: ["Dark Mode", "dark-mode", "darkMode", "dark_mode"]),
                       ["darkMode", "darkMode_2", "darkMode_3", "darkMode_4"])
    }

    /// Two keys that differ only in Unicode normalisation ("é" precomposed vs e + U+0301) are
    /// two keys: Swift's `==` would call them equal, bytes do not.
    func testCanonicallyEquivalentKeysAreTwoKeys() {
        let names = CodegenIdentifiers.names(for: ["caf\u{E9}", "cafe\u{301}"])
        XCTAssertEqual(names, ["cafUE9", "cafeU301"])
    }

    /// A name handed out as a suffix never steals a later key's own name, and reserved names
    /// are skipped.
    func testSuffixesAndReservedNamesStayUnique() {
        let names = CodegenIdentifiers.names(for: ["a-b", "a_b", "aB_2", "source"], reserved: ["source"])
        XCTAssertEqual(Set(names).count, 4)
        XCTAssertFalse(names.contains("source"))
    }

    /// Issue 34.1: a type never takes a member's name of its scope (`var _2xTest: _2xTest?`
    /// did not type-check), a type the file declares or uses, or another type's name up to case.
    func testTypeNamesAvoidMembersDeclaredTypesAndCaseTwins() {
        XCTAssertEqual(CodegenIdentifiers.typeNames(for: ["_2xTest", "darkMode"], members: ["_2xTest", "darkMode"], types: []),
                       ["_2xTest_2", "DarkMode"])
        XCTAssertEqual(CodegenIdentifiers.typeNames(for: ["ab", "aB"], members: [], types: []), ["Ab_2", "AB"])
        XCTAssertEqual(CodegenIdentifiers.typeNames(for: ["string", "self_", "type"], members: [], types: ["String"]),
                       ["String_2", "Self_", "Type_"])
    }

    /// Contextual and soft keywords get the `_` too, and a very long key is cut to a name a
    /// file system can hold as a class file.
    func testSoftKeywordsAndVeryLongKeys() {
        XCTAssertEqual(CodegenIdentifiers.names(for: ["it", "inline", "willSet", "value", "none"]),
                       ["it_", "inline_", "willSet_", "value_", "none_"])
        let long = String(repeating: "very-long-", count: 200)
        let names = CodegenIdentifiers.names(for: [long + "a", long + "b"])
        XCTAssertEqual(names.map(\.utf8.count), [CodegenIdentifiers.maximumLength, CodegenIdentifiers.maximumLength + 2])
        XCTAssertEqual(names[1], names[0] + "_2")
    }
}
