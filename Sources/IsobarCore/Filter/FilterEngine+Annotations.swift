/// The formatter chained behind the filter (`FilterOptions.chainedFormat`, `isobar filter
/// --chain-format`): a client's set goes out as the `annotations` the formatter would make of the
/// `visible` the filter would have written, written straight from the snapshot's records. What it
/// saves per update: writing `visible`, its trip through the broker, and the formatter's reading it
/// back (BENCHMARKS.md, "The formatter chained behind the filter").
extension FilterEngine {
    func writeAnnotations(_ client: ClientState, snapshot: StationSnapshot?, full: Bool, stations: [Int32], clusters: [Cluster],
                          removed: [UInt64], staleThreshold threshold: Double?, defaults: ResolvedPresentation,
                          into out: inout JSONWriter) {
        let viewport = client.viewport
        let presentation = viewport.presentation.resolved(defaults)
        let titles = TitleFormatter(presentation)
        Annotations(client: viewport.client, version: client.version, full: full, day: viewport.day, presentation: presentation,
                    snapshot: snapshot?.info ?? .none).writeHead(to: &out)
        if let snapshot {
            let uniform = uniformStaleness(snapshot, threshold: threshold)
            let fetchedAt = snapshot.fetchedAt
            snapshot.stations.withUnsafeBufferPointer { all in
                for position in stations {
                    let stale = uniform ?? threshold.map { StaleClock.isStale(all[Int(position)], threshold: $0, fetchedAt: fetchedAt) } ?? false
                    all[Int(position)].writeAnnotation(stale: stale, titles: titles, into: &out)
                }
            }
        }
        for cluster in clusters { FormatEngine.write(cluster: cluster, titles: titles, into: &out) }
        Visible.writeTail(to: &out) { writeRemoved(removed, of: snapshot, into: &$0) }  // the tail of `annotations` too
    }
}
