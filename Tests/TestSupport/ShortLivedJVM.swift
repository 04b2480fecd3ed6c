/// Options for a JVM that runs one short job in the suite (kotlinc on a file or two, `java` on a
/// small program): the quick C1 JIT only. HotSpot's optimising C2 tier spends more CPU on a
/// compiler that exits after seconds than it saves — kotlinc on the hostile codegen bundle took
/// 40 s of CPU by default and 19 s with C1 alone, and the suite runs eight tests at a time on two
/// cores. The code compiled and run is the same; only the JVM's own JIT differs.
public enum ShortLivedJVM {
    /// For `java`.
    public static let options = ["-XX:TieredStopAtLevel=1"]

    /// For `kotlinc` (its `-J` hands each option to the JVM it runs in).
    public static var kotlincOptions: [String] { options.map { "-J" + $0 } }
}
