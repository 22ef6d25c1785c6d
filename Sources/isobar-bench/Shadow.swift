import IsobarCore

/// An in-process `FilterEngine` fed the same snapshot and viewports as the pipeline's filter. The
/// filter is deterministic, so the shadow says in advance which viewport produces an update and
/// with which version (a pan that changes nothing produces none), and how many annotations the
/// client will hold; the benchmark waits for exactly that.
final class Shadow {
    /// Holds every client the benchmark plays (no `maxClients` eviction, unlike a real filter).
    let engine: FilterEngine = {
        var options = FilterOptions()
        options.maxClients = .max
        return FilterEngine(options: options)
    }()
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
        /// Entries in the `visible` message's `upsert` and `remove` lists (0 when none is sent).
        var changes = 0
    }

    func answer(_ viewport: Viewport) -> (line: [UInt8], answer: Answer) {
        var writer = JSONWriter()
        viewport.write(to: &writer)
        let line = Array(writer.bytes.dropLast())
        out.bytes.removeAll(keepingCapacity: true)
        handle(line)
        var version: Int?
        var changes = 0
        var start = 0
        let bytes = out.bytes
        for (i, byte) in bytes.enumerated() where byte == 0x0A {
            if let object = try? JSONObject(storage: Array(bytes[start..<i])), (try? object.requireString("type")) == "visible",
               let visible = try? Visible(from: object) {
                version = visible.version
                changes += visible.upsert.count + visible.remove.count
            }
            start = i + 1
        }
        var annotations = 0, inView = 0
        if let snapshot {
            annotations = Clusterer.items(in: viewport.region, of: snapshot, limit: viewport.limit).total
            snapshot.grid.forEach(in: viewport.region) { _ in inView += 1 }
        }
        return (line, Answer(version: version, annotations: annotations, inView: inView, changes: changes))
    }

    private func handle(_ line: [UInt8]) {
        line.withUnsafeBytes { engine.handle(line: $0, now: 1_000, into: &out) }
    }
}

/// Random pans and zooms, seeded: a walk that pans by up to `step` x the span (70%; 0.5 by
/// default), zooms in or out by up to `zoom` x (30%; 2 by default), keeps spans within `spans`,
/// and every `jumpEvery` steps jumps to a random station so the whole map is covered.
///
/// The defaults are a user jumping around the map; `step: 0.1, zoom: 1.1` is a finger on the
/// glass: a pan or pinch reported as it happens (MapKit's `mapViewDidChangeVisibleRegion`,
/// throttled to 20 Hz), each report a small move from the last.
struct PanPlanner {
    var rng: SplitMix64
    let spans: ClosedRange<Double>
    let jumpEvery: Int
    let step: Double
    let zoom: Double
    /// longitudeDelta / latitudeDelta, like a phone map in portrait at mid latitudes.
    let aspect = 1.25
    private var center = Coordinate(latitude: 0, longitude: 0)
    private var span = 1.0
    private var count = 0

    init(seed: UInt64, spans: ClosedRange<Double>, jumpEvery: Int = 50, step: Double = 0.5, zoom: Double = 2) {
        rng = SplitMix64(seed: seed)
        self.spans = spans
        self.jumpEvery = jumpEvery
        self.step = step
        self.zoom = max(1, zoom)
    }

    mutating func next(in snapshot: StationSnapshot) -> Region {
        if count % jumpEvery == 0 {
            let station = snapshot.stations[Int(rng.next() % UInt64(snapshot.stations.count))]
            center = station.coordinate
            span = rng.uniform(spans)
        } else if rng.next() % 10 < 7 {
            center = Coordinate(latitude: center.latitude + rng.uniform(-step...step) * span,
                                longitude: center.longitude + rng.uniform(-step...step) * span * aspect)
        } else {
            span = min(spans.upperBound, max(spans.lowerBound, span * (rng.next() % 2 == 0 ? rng.uniform((1 / zoom)...1) : rng.uniform(1...zoom))))
        }
        count += 1
        let region = Region(clampingCenter: center, latitudeDelta: span, longitudeDelta: span * aspect)
        center = region.center
        return region
    }
}
