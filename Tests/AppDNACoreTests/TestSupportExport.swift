// The core tests use TestSupport's helpers (SplitMix64 among them) in every file, as they did
// when the seeded generator lived in this target.
@_exported import TestSupport
