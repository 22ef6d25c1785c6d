import Foundation
import Testing
@testable import IsobarClient

/// The client's state machine on recorded message streams, as the formatter writes them: full
/// sets, diffs, duplicates, gaps and their repair, clusters, wind rotation, stale marks, a filter
/// restart, and the answers to requests.
@Suite struct MapStateTests {
    static let wind = #"{"type":"annotations","client":"alice","version":1,"full":true,"day":"today","field":"wind","units":"imperial","windUnit":"mph","locale":"en","snapshot":"today-c92f6458fd25e70f","source":"feed","fetchedAt":1795316701.07,"ageSeconds":0,"upsert":[{"id":"K1D3","coordinate":{"latitude":43.40332,"longitude":-98.82952},"title":"7 mph W →","subtitle":"PLATTE","wind":{"speed":6.9,"unit":"mph","calm":false,"from":"W","fromDegrees":270,"to":"E","arrow":"→","rotation":90}},{"id":"cluster:3:10:4","coordinate":{"latitude":40.5,"longitude":-100.25},"title":"5 mph","subtitle":"12 stations","cluster":true,"count":12,"wind":{"speed":5,"unit":"mph","calm":false}},{"id":"OLD","coordinate":{"latitude":41,"longitude":-99},"title":"calm","subtitle":"OLD STATION","wind":{"speed":0,"unit":"mph","calm":true},"stale":true}],"remove":[]}"#

    static let platte = MapAnnotation(id: "K1D3", coordinate: .init(latitude: 43.40332, longitude: -98.82952), title: "7 mph W →",
                                      subtitle: "PLATTE", rotation: 90)
    static let cluster = MapAnnotation(id: "cluster:3:10:4", coordinate: .init(latitude: 40.5, longitude: -100.25), title: "5 mph",
                                       subtitle: "12 stations", isCluster: true, count: 12)
    static let old = MapAnnotation(id: "OLD", coordinate: .init(latitude: 41, longitude: -99), title: "calm", subtitle: "OLD STATION", isStale: true)

    static func diff(_ version: Int, upsert: String = "", remove: String = "") -> String {
        #"{"type":"annotations","client":"alice","version":\#(version),"full":false,"day":"today","field":"wind","snapshot":"today-c92f6458fd25e70f","source":"feed","fetchedAt":1795316760,"ageSeconds":0,"upsert":[\#(upsert)],"remove":[\#(remove)]}"#
    }

    func sorted(_ state: MapState) -> [MapAnnotation] { state.annotations.sorted { $0.id < $1.id } }

    static let view = MapViewport(latitude: 40.924, longitude: -108.0955, latitudeDelta: 25, longitudeDelta: 20, field: .wind)

    @Test func aFullSetGivesMapReadyValues() throws {
        var state = MapState(client: "alice")
        let reaction = state.receive(Self.wind)
        #expect(reaction == MapState.Reaction(send: [], changes: [.annotations], answer: nil))
        #expect(sorted(state) == [Self.platte, Self.old, Self.cluster].sorted { $0.id < $1.id })
        #expect(state.version == 1 && !state.isBroken)
        #expect(state.fetchedAt == 1795316701.07)
        #expect(state.dataAge(now: 1795316761.07).map { ($0 * 100).rounded() / 100 } == 60)
    }

    @Test func diffsApplyInOrderDuplicatesAreIgnoredAndAGapAsksOnceForAResync() throws {
        var state = MapState(client: "alice")
        _ = try state.setViewport(Self.view)
        _ = state.receive(Self.wind)
        let moved = #"{"id":"NEW","coordinate":{"latitude":42,"longitude":-97},"title":"3 mph S ↑","subtitle":"NEW","wind":{"speed":3,"unit":"mph","calm":false,"from":"S","fromDegrees":180,"to":"N","arrow":"↑","rotation":0}}"#
        #expect(state.receive(Self.diff(2, upsert: moved, remove: #""OLD","cluster:3:10:4""#)).changes == [.annotations])
        let new = MapAnnotation(id: "NEW", coordinate: .init(latitude: 42, longitude: -97), title: "3 mph S ↑", subtitle: "NEW", rotation: 0)
        #expect(sorted(state) == [Self.platte, new])
        #expect(state.fetchedAt == 1795316760)
        // The same version again (a duplicate): nothing changes, nothing is sent.
        #expect(state.receive(Self.diff(2, remove: #""K1D3""#)) == MapState.Reaction())
        #expect(sorted(state) == [Self.platte, new])
        // Version 4 after 2: a gap. One resync, the set is broken, a reconnection reports 0.
        let gap = state.receive(Self.diff(4, remove: #""K1D3""#))
        #expect(gap.send == [#"{"type":"resync","client":"alice","reason":"version gap"}"#])
        #expect(state.isBroken)
        #expect(state.helloFrames().first?.contains(#""version":0"#) == true)
        // Another diff while broken: no second resync.
        #expect(state.receive(Self.diff(5)).send == [])
        // The full set repairs it.
        #expect(state.receive(Self.wind.replacingOccurrences(of: #""version":1"#, with: #""version":6"#)).send == [])
        #expect(!state.isBroken && state.version == 6)
        #expect(sorted(state) == [Self.platte, Self.old, Self.cluster].sorted { $0.id < $1.id })
    }

    @Test func aStaleMarkArrivesAndLeavesOnItsOwn() throws {
        var state = MapState(client: "alice")
        _ = state.receive(Self.wind)
        let staleAgain = #"{"id":"K1D3","coordinate":{"latitude":43.40332,"longitude":-98.82952},"title":"7 mph W →","subtitle":"PLATTE","wind":{"speed":6.9,"unit":"mph","calm":false,"from":"W","fromDegrees":270,"to":"E","arrow":"→","rotation":90},"stale":true}"#
        _ = state.receive(Self.diff(2, upsert: staleAgain))
        #expect(state.annotation("K1D3")?.isStale == true)
        let fresh = staleAgain.replacingOccurrences(of: #","stale":true"#, with: "")
        _ = state.receive(Self.diff(3, upsert: fresh))
        #expect(state.annotation("K1D3") == Self.platte)
    }

    /// A filter that restarted takes the version the client reports and answers in full with the
    /// next one; the client never shows a blank map meanwhile.
    @Test func aFilterRestartIsRepairedByTheVersionReportedOnReconnection() throws {
        var state = MapState(client: "alice")
        #expect(try state.setViewport(Self.view).contains(#""version""#) == false)  // nothing shown yet: no version
        _ = state.receive(Self.wind)
        _ = state.receive(Self.diff(2, remove: #""OLD""#))
        let hello = state.helloFrames()
        #expect(hello == [#"{"type":"viewport","client":"alice","center":{"latitude":40.924,"longitude":-108.0955},"span":{"latitudeDelta":25,"longitudeDelta":20},"day":"today","field":"wind","limit":500,"version":2}"#])
        #expect(state.annotationCount == 2)
        let restarted = Self.wind.replacingOccurrences(of: #""version":1"#, with: #""version":3"#)
        #expect(state.receive(restarted).send == [])
        #expect(state.version == 3 && state.annotationCount == 3)
    }

    @Test func selectionCalloutAndClear() throws {
        var state = MapState(client: "alice")
        #expect(state.select("K1D3") == #"{"type":"select","client":"alice","id":"K1D3"}"#)
        let callout = #"{"type":"callout","client":"alice","id":"K1D3","day":"today","reason":"selected","clear":false,"title":"PLATTE","subtitle":"K1D3 · Today","coordinate":{"latitude":43.40332,"longitude":-98.82952},"details":[{"label":"Temperature","value":"46.4 °F"},{"label":"Wind","value":"6.9 mph from W (270°) →"}],"snapshot":"today-c92f6458fd25e70f","source":"feed","fetchedAt":1795316701.07,"ageSeconds":0}"#
        #expect(state.receive(callout).changes == [.callout])
        #expect(state.callout?.title == "PLATTE")
        #expect(state.callout?.details == [DetailLine(label: "Temperature", value: "46.4 °F"), DetailLine(label: "Wind", value: "6.9 mph from W (270°) →")])
        #expect(state.helloFrames() == [#"{"type":"select","client":"alice","id":"K1D3"}"#])
        _ = state.receive(#"{"type":"callout","client":"alice","id":"K1D3","day":"today","reason":"not-visible","clear":true}"#)
        #expect(state.callout == nil && state.selection == nil)
    }

    @Test func favoritesAnswerTheirRequestAndCount() throws {
        var state = MapState(client: "alice")
        let starred = #"{"type":"starred","client":"alice","reason":"added","field":"temperature","units":"imperial","windUnit":"mph","locale":"en","items":[{"id":"LZKZ","known":true,"name":"Košice","coordinate":{"latitude":48.66308,"longitude":21.24111},"today":{"title":"50°","details":[{"label":"Temperature","value":"50.0 °F"}]},"tomorrow":null},{"id":"GONE","known":false,"name":null,"coordinate":null,"today":null,"tomorrow":null}],"count":2}"#
        let reaction = state.receive(starred)
        #expect(reaction.changes == [.favorites])
        guard case .favorites(let list) = reaction.answer else { Issue.record("no answer"); return }
        #expect(list.items.map(\.id) == ["LZKZ", "GONE"] && list.items.map(\.known) == [true, false])
        #expect(list.items.first?.today?.title == "50°")
        #expect(state.favoriteCount == 2)
        // A list sent on join answers no request.
        #expect(state.receive(starred.replacingOccurrences(of: #""reason":"added""#, with: #""reason":"joined""#)).answer == nil)
    }

    @Test func answersDecodeFromTheProtocolsExamples() throws {
        var state = MapState(client: "alice")
        let place = #"{"type":"place","client":"alice","day":"today","point":{"latitude":48.7,"longitude":21.25},"id":"LZKZ","distanceKm":4.157,"bearing":189,"title":"Košice","subtitle":"LZKZ · Today","coordinate":{"latitude":48.66308,"longitude":21.24111},"details":[{"label":"Temperature","value":"50.0 °F"}],"snapshot":"today-1","source":"feed","fetchedAt":1000,"ageSeconds":0}"#
        guard case .place(let nearest) = state.receive(place).answer else { Issue.record("place"); return }
        #expect(nearest.id == "LZKZ" && nearest.distanceKm == 4.157 && nearest.bearing == 189)
        let results = #"{"type":"results","client":"alice","day":"today","query":"kosice","field":"temperature","units":"imperial","windUnit":"mph","locale":"en","snapshot":"today-1","source":"feed","fetchedAt":1000,"ageSeconds":0,"hits":[{"id":"LZKZ","name":"Košice","coordinate":{"latitude":48.66308,"longitude":21.24111},"title":"50°","match":"prefix"}],"count":1}"#
        guard case .results(let found) = state.receive(results).answer else { Issue.record("results"); return }
        #expect(found.hits.map(\.id) == ["LZKZ"] && found.hits.first?.match == "prefix" && found.count == 1)
        let vicinity = #"{"type":"vicinity","client":"alice","latitude":42.432356,"longitude":25.637389,"radiusKm":50,"place":{"id":726848,"name":"Stara Zagora","admin1":null,"countryCode":"BG","country":"Bulgaria","latitude":42.43205,"longitude":25.64262,"population":121582,"timeZone":"Europe/Sofia"},"distanceKm":0.43065677264090574,"bearing":94.52983171950022}"#
        guard case .vicinity(let near) = state.receive(vicinity).answer else { Issue.record("vicinity"); return }
        #expect(near.place?.name == "Stara Zagora" && near.place?.id == 726848)
        let locations = #"{"type":"locations","client":"alice","query":"springfield, il","results":[{"match":"exact","id":4250542,"name":"Springfield","admin1":"Illinois","countryCode":"US","country":"United States","latitude":39.80172,"longitude":-89.64371,"population":114394,"timeZone":"America/Chicago"}]}"#
        guard case .locations(let places) = state.receive(locations).answer else { Issue.record("locations"); return }
        #expect(places.results.map(\.admin1) == ["Illinois"])
        let error = #"{"type":"error","stage":"filter","client":"alice","message":"unknown station \"X\" in the today snapshot","excerpt":""}"#
        #expect(state.receive(error).changes == [.error(ServerError(stage: "filter", message: #"unknown station "X" in the today snapshot"#, excerpt: ""))])
        #expect(state.receive("not json") == MapState.Reaction())
    }

    /// The offline file's content: saved, written as JSON, read back into a new client's state,
    /// shown offline with its age, and its version reported on connection.
    @Test func aSavedStateIsShownOfflineAndReportsItsVersion() throws {
        var state = MapState(client: "alice")
        _ = try state.setViewport(Self.view)
        #expect(state.saved(at: 1) == nil)  // nothing shown yet
        _ = state.receive(Self.wind)
        _ = state.receive(Self.diff(2, remove: #""OLD""#))
        let saved = try #require(state.saved(at: 1795316800))
        let file = try JSONDecoder().decode(MapState.Saved.self, from: JSONEncoder().encode(saved))
        var next = MapState(client: "alice")
        let restored = next.restore(file)
        #expect(restored)
        #expect(sorted(next) == sorted(state))
        #expect(next.isOffline && next.restoredFrom == 1795316800)
        #expect(next.viewport == Self.view)
        #expect(next.helloFrames().first?.hasSuffix(#""version":2}"#) == true)
        // Another client's file is not shown.
        var bob = MapState(client: "bob")
        let shown = bob.restore(file)
        #expect(!shown && bob.annotationCount == 0)
        // The first live set replaces it.
        _ = next.receive(Self.wind.replacingOccurrences(of: #""version":1"#, with: #""version":3"#))
        #expect(next.restoredFrom == nil && next.annotationCount == 3)
    }
}
