/// `weather`: the places stage names the point (reverse geocoding within
/// ``Gazetteer/defaultRadiusKm``) or looks the place id up, and passes the request on to the
/// filter as a ``Spot``; the filter finds the station and the formatter words the answer
/// (`conditions`, or a `report` under the place's name).
extension PlacesEngine {
    func weather(_ request: WeatherRequest, into out: inout JSONWriter) throws(MessageError) {
        var spot = Spot(client: request.client, point: Coordinate(latitude: 0, longitude: 0), radiusKm: request.radiusKm,
                        detail: request.detail, day: request.day, presentation: request.presentation)
        switch request.target {
        case .place(let id):
            guard let gazetteer else { throw MessageError(unavailable) }
            guard let place = gazetteer.place(id: id) else { throw MessageError("unknown place id \(id)") }
            spot.point = place.coordinate
            spot.place = place
            spot.placeDistanceKm = 0
        case .point(let point):
            // Without a gazetteer the weather at a point still works: the answer names no place.
            spot.point = point
            if let nearby = gazetteer?.reverse(point) {
                spot.place = nearby.place
                spot.placeDistanceKm = nearby.distanceKm
            }
        }
        spot.write(to: &out)
    }
}
