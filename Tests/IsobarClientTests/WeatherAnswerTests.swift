import Foundation
import IsobarCore
import Testing
@testable import IsobarClient

/// `weather` and its answer `conditions` (PROTOCOL.md), and the public state's `Codable` forms.
@Suite struct WeatherAnswerTests {
    static let london = #"{"type":"conditions","client":"alice","day":"today","field":"temperature","units":"imperial","windUnit":"mph","locale":"en","point":{"latitude":51.52,"longitude":-0.1},"radiusKm":50,"place":{"id":2643743,"name":"London","admin1":"England","countryCode":"GB","country":"United Kingdom","latitude":51.50853,"longitude":-0.12574,"population":8961989,"timeZone":"Europe/London"},"placeDistanceKm":2.196,"distanceKm":2.169,"bearing":226.9,"title":"London","subtitle":"London (2643743) · 1.3 mi · Today","station":{"id":"2643743","name":"London","coordinate":{"latitude":51.5085,"longitude":-0.1257}},"details":[{"label":"Temperature","value":"44.9 °F","key":"temperature","number":44.906,"unit":"°F"}],"icon":"rain","current":{"city":"London","state":"England","country":"United Kingdom","countryCode":"GB","temperature":44.906,"humidity":81,"pressure":1012,"windSpeed":9.17,"windDirection":80},"snapshot":"today-1","source":"feed","fetchedAt":1000,"ageSeconds":0}"#
    static let ocean = #"{"type":"conditions","client":"alice","day":"today","point":{"latitude":0,"longitude":-30},"radiusKm":10,"place":null,"placeDistanceKm":null,"title":"0.0000° N, 30.0000° W","subtitle":"no station within 10 km · Today","station":null,"details":[],"current":{"city":null,"state":null,"country":null,"countryCode":null,"temperature":null,"humidity":null,"pressure":null,"windSpeed":null,"windDirection":null},"snapshot":"today-1","source":"feed","fetchedAt":1000,"ageSeconds":0}"#

    @Test func conditionsAnswerAWeatherRequest() throws {
        var state = MapState(client: "alice")
        guard case .conditions(let london) = state.receive(Self.london).answer else { Issue.record("conditions"); return }
        #expect(london.title == "London" && london.station?.id == "2643743" && london.distanceKm == 2.169)
        #expect(london.place?.timeZone == "Europe/London" && london.current?.humidity == 81 && london.current?.windDirection == 80)
        #expect(london.details == [DetailLine(label: "Temperature", value: "44.9 °F", key: "temperature", number: 44.906, unit: "°F")])
        guard case .conditions(let ocean) = state.receive(Self.ocean).answer else { Issue.record("no station"); return }
        #expect(ocean.station == nil && ocean.place == nil && ocean.details.isEmpty && ocean.current?.temperature == nil)
        #expect(ocean.subtitle == "no station within 10 km · Today")
        // The request frame: a point, its radius.
        let request = WeatherRequest(client: "alice", target: .point(Coordinate(latitude: 37.57, longitude: 126.98)), radiusKm: 25)
        let frame = MapState.frame { request.write(to: &$0) }
        #expect(frame == #"{"type":"weather","client":"alice","latitude":37.57,"longitude":126.98,"radiusKm":25}"#)
    }

    @Test func connectionStatusAndAnswersAreCodable() throws {
        let statuses: [ConnectionStatus] = [.stopped, .connecting(attempt: 2), .connected,
                                            .waiting(attempt: 3, retryIn: 0.25, reason: "the gateway refused the WebSocket upgrade")]
        let data = try JSONEncoder().encode(statuses)
        #expect(try JSONDecoder().decode([ConnectionStatus].self, from: data) == statuses)
        var state = MapState(client: "alice")
        let answer = try #require(state.receive(Self.london).answer)
        #expect(try JSONDecoder().decode(MapState.Answer.self, from: JSONEncoder().encode(answer)) == answer)
        let changes: [MapUpdate.Change] = [.annotations, .connection, .error(ServerError(stage: "filter", message: "m", excerpt: ""))]
        #expect(try JSONDecoder().decode([MapUpdate.Change].self, from: JSONEncoder().encode(changes)) == changes)
    }
}
