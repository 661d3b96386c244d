public import Hangar

extension Pilot {
    /// The compound index of pilots by home airfield, then name: `GET /pilots?index=homeAirfieldName&prefix=ESSB`
    /// pages through one airfield's pilots in name order.
    public static var homeAirfieldNameIndex: IndexDefinition {
        .compound(name: "homeAirfieldName", [.path(Key.homeAirfield.rawValue), .path(Key.name.rawValue)])
    }

    /// The index of every airplane's airframe hours: a pilot with several airplanes in a range is listed once,
    /// at the first of their hours in the query's order.
    public static var airframeHoursIndex: IndexDefinition {
        .path(Key.airplanes.rawValue, Airplane.Key.airframeHours.rawValue, name: "airframeHours")
    }

    /// The indexes of pilots every Pilots app declares (the server, the tour): ``homeAirfieldNameIndex`` and
    /// ``airframeHoursIndex``.
    public static var queryIndexes: [IndexDefinition] { [homeAirfieldNameIndex, airframeHoursIndex] }
}
