extension QueueLocation {
    /// `{"path":…,"line":…,"row_id":…}`: where an event is, as `queue inspect --json` and the
    /// replay dead-letter file both write it.
    public var jsonObject: JSONObject {
        var object = JSONObject()
        object["path"] = .string(path)
        object["line"] = line > 0 ? .integer(line) : .null
        object["row_id"] = rowID.map { .integer($0) } ?? .null
        return object
    }
}
