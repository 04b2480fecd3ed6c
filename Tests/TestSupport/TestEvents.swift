/// Queue events for the tests of every target: the event ids and the SDK-shaped event as a
/// device stores it. One builder, so a change to the event schema is made once.
public enum TestEvents {
    /// A lowercase UUID numbered `n`: `0000000c-0000-4000-8000-00000000000c` for 12.
    public static func id(_ n: Int) -> String {
        let hex = String(n, radix: 16)
        return "\(String(repeating: "0", count: 8 - hex.count))\(hex)-0000-4000-8000-" + String(repeating: "0", count: 12 - hex.count) + hex
    }

    /// An SDK-shaped event as stored on a device: spacing and key order included (deliberately
    /// not what a JSON serialiser would write, so copying it as stored can be checked).
    public static func stored(_ n: Int, ts: Int64, name: String = "app_open", platform: String = "ios",
                              sdk: String = "1.0.78", properties: String = #"{"price":1.50}"#) -> String {
        #"{"schema_version":1, "event_id":"\#(id(n))","event_name":"\#(name)","ts_ms":\#(ts),"user":{"anon_id":"11111111-1111-4111-8111-111111111111"},"device":{"platform":"\#(platform)","sdk_version":"\#(sdk)","os":"17.0.1"},"context":{"session_id":"s1","client_seq":\#(n)},"properties":\#(properties),"privacy":{"consent":{"analytics":true}}}"#
    }
}
