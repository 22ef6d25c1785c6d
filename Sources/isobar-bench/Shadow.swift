import IsobarCore

/// An in-process `FilterEngine` fed the same snapshot and viewports as the pipeline's filter. The
/// filter is deterministic, so the shadow says in advance which viewport produces an update and
/// with which version (a pan that changes nothing produces none), and how many annotations the
/// client will hold; the benchmark waits for exactly that.
final class Shadow {
    let engine = FilterEngine()
    private var out = JSONWriter(capacity: 1 << 20)

    init(lines: [[UInt8]]) {
        for line in lines { handle(line) }
        out.bytes.removeAll(keepingCapacity: true)
    }

    var snapshot: StationSnapshot? { engine.snapshot(for: .today) }

    /// What the filter answers to one viewport line.
    struct Answer {
        /// The version of the `visible` message it sends, nil when it sends none.
        let version: Int?
        /// Annotations the client holds afterwards (stations shown singly plus clusters).
        let annotations: Int
        /// Stations inside the region.
        let inView: Int
    }

    func answer(_ viewport: Viewport) -> (line: [UInt8], answer: Answer) {
        var writer = JSONWriter()
        viewport.write(to: &writer)
        let line = Array(writer.bytes.dropLast())
        out.bytes.removeAll(keepingCapacity: true)
        handle(line)
        var version: Int?
        var start = 0
        let bytes = out.bytes
        for (i, byte) in bytes.enumerated() where byte == 0x0A {
            if let object = try? JSONObject(storage: Array(bytes[start..<i])), (try? object.requireString("type")) == "visible" {
                version = try? object.optionalInt("version")
            }
            start = i + 1
        }
        var annotations = 0, inView = 0
        if let snapshot {
            annotations = Clusterer.items(in: viewport.region, of: snapshot, limit: viewport.limit).total
            snapshot.grid.forEach(in: viewport.region) { _ in inView += 1 }
        }
        return (line, Answer(version: version, annotations: annotations, inView: inView))
    }

    private func handle(_ line: [UInt8]) {
        line.withUnsafeBytes { engine.handle(line: $0, now: 1_000, into: &out) }
    }
}

/// Random pans and zooms, seeded: a walk that pans by up to half the span (70%), zooms in or out
/// by up to 2x (30%), keeps spans within `spans`, and every `jumpEvery` steps jumps to a random
/// station so the whole map is covered.
struct PanPlanner {
    var rng: SplitMix64
    let spans: ClosedRange<Double>
    let jumpEvery: Int
    /// longitudeDelta / latitudeDelta, like a phone map in portrait at mid latitudes.
    let aspect = 1.25
    private var center = Coordinate(latitude: 0, longitude: 0)
    private var span = 1.0
    private var step = 0

    init(seed: UInt64, spans: ClosedRange<Double>, jumpEvery: Int = 50) {
        rng = SplitMix64(seed: seed)
        self.spans = spans
        self.jumpEvery = jumpEvery
    }

    mutating func next(in snapshot: StationSnapshot) -> Region {
        if step % jumpEvery == 0 {
            let station = snapshot.stations[Int(rng.next() % UInt64(snapshot.stations.count))]
            center = station.coordinate
            span = rng.uniform(spans)
        } else if rng.next() % 10 < 7 {
            center = Coordinate(latitude: center.latitude + rng.uniform(-0.5...0.5) * span,
                                longitude: center.longitude + rng.uniform(-0.5...0.5) * span * aspect)
        } else {
            span = min(spans.upperBound, max(spans.lowerBound, span * (rng.next() % 2 == 0 ? rng.uniform(0.5...1) : rng.uniform(1...2))))
        }
        step += 1
        let region = Region(clampingCenter: center, latitudeDelta: span, longitudeDelta: span * aspect)
        center = region.center
        return region
    }
}
