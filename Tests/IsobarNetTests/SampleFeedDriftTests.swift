import IsobarCore
import IsobarNet
import IsobarSampleFeed
import Testing

@Suite struct SampleFeedDriftTests {
    func content(drift: Bool = true, seed: UInt64 = 7) throws -> SampleFeedContent {
        try SampleFeedContent(directory: TestSupport.fixtures, drift: drift ? SampleFeedDrift(seed: seed) : nil)
    }

    @Test func epochZeroIsTheFixtureByteForByte() throws {
        let content = try content()
        for day in Day.allCases {
            #expect(content.body(day, epoch: 0).bytes == (try TestSupport.fixtureBytes(day)))
            let rendered = OnXRecord.render(content.records(day, epoch: 0))
            let fixture = try OnXFeed.parse(try TestSupport.fixtureBytes(day))
            let reparsed = try OnXFeed.parse(rendered)
            #expect(reparsed.stations == fixture.stations, "rendering keeps every value exactly")
            #expect(reparsed.warnings == fixture.warnings)
        }
    }

    @Test func driftIsDeterministicAndChangesBetweenEpochs() throws {
        let first = try content(seed: 7)
        let second = try content(seed: 7)
        let other = try content(seed: 8)
        for epoch in [1, 2, 17, 1000] {
            #expect(first.body(.today, epoch: epoch).bytes == second.body(.today, epoch: epoch).bytes)
            #expect(first.body(.today, epoch: epoch).bytes != other.body(.today, epoch: epoch).bytes)
        }
        let one = first.records(.today, epoch: 1)
        let two = first.records(.today, epoch: 2)
        let base = first.records(.today, epoch: 0)
        #expect(one != base && two != one)
        #expect(zip(one, base).filter { $0.temperature != $1.temperature }.count > 150)
        #expect(first.body(.today, epoch: 1).etag != first.body(.today, epoch: 2).etag)
        #expect(first.body(.today, epoch: 1).bytes != first.body(.tomorrow, epoch: 1).bytes)
    }

    @Test func driftKeepsNullsIdentityAndValidRanges() throws {
        let content = try content()
        for day in Day.allCases {
            let base = content.records(day, epoch: 0)
            for epoch in 1...30 {
                let drifted = content.records(day, epoch: epoch)
                #expect(drifted.count == base.count)
                for (now, was) in zip(drifted, base) {
                    #expect(now.id == was.id && now.name == was.name)
                    #expect(now.latitude == was.latitude && now.longitude == was.longitude)
                    #expect((now.temperature == nil) == (was.temperature == nil))
                    #expect((now.windSpeed == nil) == (was.windSpeed == nil))
                    #expect((now.windDirection == nil) == (was.windDirection == nil))
                    #expect((now.chanceOfPrecipitation == nil) == (was.chanceOfPrecipitation == nil))
                    if let t = now.temperature, let t0 = was.temperature { #expect(abs(t - t0) <= 6.05) }
                    if let speed = now.windSpeed { #expect(speed >= 0) }
                    if let direction = now.windDirection { #expect(direction >= 0 && direction < 360 && direction == direction.rounded()) }
                    if let chance = now.chanceOfPrecipitation, let original = was.chanceOfPrecipitation {
                        if (0...100).contains(original) {
                            #expect((0...100).contains(chance) && chance == chance.rounded())
                        } else {
                            #expect(chance == original, "a fixture quirk such as 105 % is served as it is")
                        }
                    }
                }
                let parsed = try OnXFeed.parse(content.body(day, epoch: epoch).bytes)
                #expect(parsed.stations.count == 181 && parsed.errors.isEmpty)
            }
        }
        let tomorrow = try OnXFeed.parse(content.body(.tomorrow, epoch: 5).bytes)
        #expect(tomorrow.warnings.count == 5)
    }

    @Test func driftOffServesTheFixtureAtEveryEpoch() throws {
        let content = try content(drift: false)
        #expect(content.body(.today, epoch: 12).bytes == (try TestSupport.fixtureBytes(.today)))
        #expect(content.body(.today, epoch: 12).epoch == 0)
    }

    @Test func epochArithmetic() {
        let epochs = SampleFeedEpoch(origin: 1_000.5, period: 30)
        #expect(epochs.epoch(at: 0) == 0)
        #expect(epochs.epoch(at: 1_000.5) == 0)
        #expect(epochs.epoch(at: 1_030.4) == 0)
        #expect(epochs.epoch(at: 1_030.5) == 1)
        #expect(epochs.epoch(at: 1_300.5) == 10)
        #expect(epochs.start(of: 0) == 1_000)
        #expect(epochs.start(of: 10) == 1_300)
    }

    @Test func missingFixturesAreAClearError() {
        #expect(throws: SampleFeedError.self) { try SampleFeedContent(directory: "/nonexistent", drift: nil) }
    }
}
