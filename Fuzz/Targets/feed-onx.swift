import IsobarCore

/// Fuzz target `feed-onx`: `OnXFeed.parse` on any body (FeedCheck lists the invariants).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFeedOnX(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FeedCheck.run(data, size, format: "onX") { body, notes in
        let parsed = try OnXFeed.parse(body)
        for warning in parsed.warnings { warning.write(to: &notes) }
        for error in parsed.errors { error.write(to: &notes) }
        return parsed.stations
    }
    return 0
}
