/// `outlook` (filter → forecast stage, topic `outlook`): a forecast is wanted for one cell,
/// because a client opened the detail of a station or place inside it and the filter holds no
/// current forecast for it. `{"type":"outlook","latitude":48.7,"longitude":21.3}`
public struct OutlookRequest: Sendable, Equatable {
    public var cell: ForecastCell

    public init(cell: ForecastCell) { self.cell = cell }

    public init(from object: JSONObject) throws(MessageError) {
        cell = try ForecastCell(from: object)
    }

    public func write(to out: inout JSONWriter) {
        out.objectStart()
        out.key("type"); out.string("outlook")
        cell.writeMembers(to: &out)
        out.objectEnd()
        out.newline()
    }
}
