#if canImport(Glibc)
import Glibc
#endif
import Foundation
import IsobarCore
import IsobarHost
import IsobarStdio
import Synchronization

/// The full-screen text map of `isobar attach` on a terminal.
///
/// Keys: arrows pan a quarter of the span, + and - zoom by two, d toggles the day, f cycles the
/// field, u cycles units, Enter selects the station nearest the centre, Esc clears it, `/` searches
/// places (`geocode`) and stations by name or id, places listed first (type, Enter; 1-9 centres
/// the map on a hit, and selects it when it is a station), `n` asks for the station nearest the centre
/// (anywhere, not only in view), `*` toggles the selected station as a favorite, q quits.
final class TerminalMap: @unchecked Sendable {
    // @unchecked: `viewport` is only touched on the key-reading thread (run()); redraws take `drawLock`.
    private let session: AttachSession
    private var viewport: Viewport
    /// Held while a frame is drawn: a redraw from the session's thread and one from the keys never interleave.
    private let drawLock = Mutex(())
    private var original = termios()
    /// The search being typed after `/` (nil: not typing).
    private var typing: String?
    /// The selected station (for `*`).
    private var selected: String?

    /// Raised by the process's shutdown (SIGTERM/SIGINT from outside; Ctrl-C in the map is `q`).
    let stop: StopFlag

    init(session: AttachSession, start: Viewport, stop: StopFlag) {
        self.session = session
        self.viewport = start
        self.stop = stop
    }

    func run() {
        enterRawMode()
        defer { leaveRawMode() }
        session.onChange = { [weak self] in self?.draw() }
        session.update(viewport)
        session.start()
        session.announce()
        draw()
        while let key = readKey() {
            if !handle(key) { break }
            draw()
        }
    }

    enum Key { case up, down, left, right, character(Character), enter, escape }

    private func handle(_ key: Key) -> Bool {
        if let query = typing {
            switch key {
            case .enter:
                typing = nil
                if !query.isEmpty {
                    // Places (the places stage) and stations (the filter), listed places first.
                    session.publish(GeocodeRequest(client: session.client, query: query, limit: 5).write(to:))
                    session.publish(SearchRequest(client: session.client, query: query, limit: 9).write(to:))
                }
            case .escape: typing = nil
            case .character("\u{7F}"), .character("\u{08}"): typing = String(query.dropLast())
            case .character(let c): if query.count < 100 { typing = query + String(c) }
            default: break
            }
            return true
        }
        let region = viewport.region
        var center = region.center
        var dlat = region.latitudeDelta, dlon = region.longitudeDelta
        switch key {
        case .up: center.latitude += dlat / 4
        case .down: center.latitude -= dlat / 4
        case .left: center.longitude -= dlon / 4
        case .right: center.longitude += dlon / 4
        case .character("+"), .character("="): dlat /= 2; dlon /= 2
        case .character("-"), .character("_"): dlat *= 2; dlon *= 2
        case .character("d"): viewport.day = viewport.day == .today ? .tomorrow : .today
        case .character("f"):
            let all = Field.allCases
            let current = viewport.presentation.field ?? .temperature
            viewport.presentation.field = all[((all.firstIndex(of: current) ?? 0) + 1) % all.count]
        case .character("u"):
            // imperial -> metric -> imperial with knots -> imperial
            switch (viewport.presentation.units, viewport.presentation.windUnit) {
            case (.metric, _): viewport.presentation.units = .imperial; viewport.presentation.windUnit = .knots
            case (_, .knots): viewport.presentation.units = .imperial; viewport.presentation.windUnit = nil
            default: viewport.presentation.units = .metric; viewport.presentation.windUnit = nil
            }
        case .enter:
            let items = session.snapshot().annotations.values.filter { $0.count == 1 }
            if let nearest = TextMap.nearest(items, to: region.center) { select(nearest.id) }
            return true
        case .escape:
            select(nil)
            return true
        case .character("/"):
            typing = ""
            return true
        case .character("n"):
            session.publish(NearestRequest(client: session.client, point: region.center).write(to:))
            return true
        case .character("i"):
            // The selected station's detail screen (`detail` -> `report`, in the viewport's units and locale).
            guard let id = selected else { return true }
            session.publish(DetailRequest(client: session.client, id: id).write(to:))
            return true
        case .character("*"):
            guard let id = selected else { return true }
            let on = !favoriteIDs().contains(id)
            session.publish(FavoriteRequest(client: session.client, id: id, on: on).write(to:))
            return true
        case .character(let c) where c.isNumber && c != "0":
            // Jump to search hit c: centre on it; a station is selected too.
            guard let hit = searchHits().dropFirst((c.wholeNumberValue ?? 1) - 1).first else { return true }
            center = hit.coordinate
            viewport.region = Region(clampingCenter: center, latitudeDelta: dlat, longitudeDelta: dlon)
            session.update(viewport)
            if let id = hit.station { select(id) }
            return true
        case .character("q"), .character("Q"): return false
        default: return true
        }
        viewport.region = Region(clampingCenter: center, latitudeDelta: dlat, longitudeDelta: dlon)
        session.update(viewport)
        return true
    }

    private func select(_ id: String?) {
        selected = id
        session.select(id)
    }

    /// The last search's hits, places first, then stations (at most 9 in all): what each shows,
    /// where it is, and the station id to select (nil for a place).
    private func searchHits() -> [(text: String, coordinate: Coordinate, station: String?)] {
        var hits: [(text: String, coordinate: Coordinate, station: String?)] = []
        let (results, locations) = session.lastSearch
        if let bytes = locations, let object = try? JSONObject(storage: bytes), let field = object.field("results") {
            for element in object.arrayElements(field) {
                let place = object.object(at: element.range)
                guard let coordinate = try? Coordinate(from: place), let name = try? place.requireString("name") else { continue }
                let region = [(try? place.optionalString("admin1")) ?? nil, (try? place.optionalString("country")) ?? nil].compactMap { $0 }
                hits.append(("⌖ " + ([name] + region).joined(separator: ", "), coordinate, nil))
            }
        }
        if let bytes = results, let object = try? JSONObject(storage: bytes), let field = object.field("hits") {
            for element in object.arrayElements(field) {
                let hit = object.object(at: element.range)
                guard let id = try? hit.requireString("id"), let coordinate = try? Coordinate(from: hit.requireObject("coordinate")) else { continue }
                func text(_ key: StaticString) -> String { ((try? hit.optionalString(key)) ?? nil) ?? "" }
                hits.append(("\(id) \(text("name")) \(text("title")) (\(text("match")))", coordinate, id))
            }
        }
        return Array(hits.prefix(9))
    }

    /// A `report` (the detail screen) as lines: title and subtitle, every labelled value, then the
    /// forecast's size and its first days.
    static func reportLines(_ report: JSONObject) -> [String] {
        func text(_ object: JSONObject, _ key: StaticString) -> String { ((try? object.optionalString(key)) ?? nil) ?? "" }
        func details(_ object: JSONObject) -> [String] {
            guard let field = object.field("details") else { return [] }
            return object.arrayElements(field).map { element in
                let line = report.object(at: element.range)
                return text(line, "label") + ": " + text(line, "value")
            }
        }
        var lines = ["detail: " + text(report, "title") + " — " + text(report, "subtitle") + ((try? report.optionalBool("stale")) == true ? " (stale)" : "")]
        lines += details(report).map { "  " + $0 }
        let hourly = report.field("hourly").map { report.arrayElements($0) } ?? []
        let daily = report.field("daily").map { report.arrayElements($0) } ?? []
        lines.append("  forecast: \(hourly.count) hours, \(daily.count) days" + (hourly.isEmpty && daily.isEmpty ? " (the feed has none)" : ""))
        for element in daily.prefix(3) {
            let point = report.object(at: element.range)
            lines.append("  " + text(point, "label") + " " + text(point, "summary") + ": " + details(point).joined(separator: "; "))
        }
        return lines
    }

    /// The ids in the last favorites list.
    private func favoriteIDs() -> [String] {
        guard let bytes = session.lastFavorites, let object = try? JSONObject(storage: bytes), let field = object.field("items") else { return [] }
        return object.arrayElements(field).compactMap { try? object.object(at: $0.range).optionalString("id") }
    }

    /// Lines for the last find answer and the favorites: what `/`, `n` and `*` show.
    private func findLines() -> [String] {
        var lines: [String] = []
        if let query = typing { lines.append("search: \(query)▏") }
        if let bytes = session.lastFindAnswer, let object = try? JSONObject(storage: bytes) {
            switch try? object.optionalString("type") {
            case "place":
                let id = (try? object.optionalString("id")) ?? nil
                let title = (try? object.optionalString("title")) ?? nil
                let km = (try? object.optionalNumber("distanceKm")) ?? nil
                let bearing = (try? object.optionalNumber("bearing")) ?? nil
                lines.append("nearest: \(id ?? "none") \(title ?? "") \(km.map { String(format: "%.1f km", $0) } ?? "") \(bearing.map { String(format: "bearing %.0f°", $0) } ?? "")")
            case "results", "locations":
                for (n, hit) in searchHits().enumerated() { lines.append("\(n + 1) \(hit.text)") }
                if lines.count == (typing == nil ? 0 : 1) { lines.append("search: no match") }
            case "report":
                lines += Self.reportLines(object)
            default: break
            }
        }
        let favorites = favoriteIDs()
        if !favorites.isEmpty { lines.append("★ \(favorites.count): " + favorites.joined(separator: " ")) }
        return lines
    }

    private func draw() {
        drawLock.withLock { _ in drawFrame() }
    }

    private func drawFrame() {
        var size = winsize()
        _ = ioctl(1, UInt(TIOCGWINSZ), &size)
        let width = max(20, Int(size.ws_col == 0 ? 80 : size.ws_col))
        let height = max(8, Int(size.ws_row == 0 ? 24 : size.ws_row))
        let state = session.snapshot()
        let shown = state.viewport ?? viewport
        var calloutLines: [String] = []
        if let callout = state.callout, let object = try? JSONObject(storage: callout), (try? object.optionalBool("clear")) != true {
            calloutLines.append("▌ " + ((try? object.optionalString("title")) ?? "") + " — " + ((try? object.optionalString("subtitle")) ?? ""))
            if let details = object.field("details") {
                for element in object.arrayElements(details) {
                    let line = object.object(at: element.range)
                    calloutLines.append("▌   " + ((try? line.optionalString("label")) ?? "") + ": " + ((try? line.optionalString("value")) ?? ""))
                }
            }
        }
        calloutLines += findLines()
        let mapHeight = max(3, height - 2 - calloutLines.count)
        let rows = TextMap.render(state.annotations.values, region: shown.region, width: width, height: mapHeight, dimStale: true)
        var screen = "\u{1B}[H"
        for row in rows { screen += row + "\u{1B}[K\r\n" }
        for line in calloutLines { screen += String(line.prefix(width)) + "\u{1B}[K\r\n" }
        screen += String(statusLine(state, shown).prefix(width)) + "\u{1B}[K\r\n"
        screen += String("arrows pan · +/- zoom · d day · f field · u units · Enter callout · i detail · Esc clear · / search · n nearest · * favorite · q quit".prefix(width)) + "\u{1B}[K\u{1B}[J"
        FileHandle.standardOutput.write(Data(screen.utf8))
    }

    private func statusLine(_ state: (viewport: Viewport?, annotations: AnnotationSet, callout: [UInt8]?, status: String?), _ shown: Viewport) -> String {
        let r = shown.region
        var text = String(format: " %.3f,%.3f span %.3g×%.3g │ %d annotations │ %@ │ %@",
                          r.center.latitude, r.center.longitude, r.latitudeDelta, r.longitudeDelta,
                          state.annotations.count, shown.day.rawValue, (shown.presentation.field ?? .temperature).rawValue)
        if let fetchedAt = state.annotations.fetchedAt {
            let age = max(0, Date().timeIntervalSince1970 - fetchedAt)
            let stored = state.annotations.source == "store" ? "stored data, " : ""
            text += " │ \(stored)age \(Int(age / 60)) min"
        } else if state.annotations.version == 0 {
            text += " │ waiting for the pipeline…"
        }
        let stale = state.annotations.staleCount
        if stale > 0 { text += " │ \(stale) stale" }
        if let status = state.status, status.contains("\"state\":\"failed\"") {
            text += " │ ⚠ feed offline"
        }
        return text
    }

    private func readKey() -> Key? {
        var byte: UInt8 = 0
        while true {
            // Waits in poll on stdin and the stop's wake descriptor, not in read, so a stop
            // (SIGTERM) ends the map at once and restores the terminal.
            guard stop.wait(readable: 0) == .readable else { return nil }
            let n = read(0, &byte, 1)
            if n == 1 { break }
            if n < 0 && errno == EINTR { continue }
            return nil
        }
        switch byte {
        case 0x1B:
            // timer: an escape sequence's bytes follow within 30 ms; none: the Esc key alone.
            guard stop.wait(readable: 0, timeout: 0.03) == .readable else { return .escape }
            var sequence: [UInt8] = [0, 0]
            guard read(0, &sequence, 2) == 2, sequence[0] == UInt8(ascii: "[") else { return .escape }
            switch sequence[1] {
            case UInt8(ascii: "A"): return .up
            case UInt8(ascii: "B"): return .down
            case UInt8(ascii: "C"): return .right
            case UInt8(ascii: "D"): return .left
            default: return .escape
            }
        case 0x0D, 0x0A: return .enter
        case 0x03: return .character("q")
        default: return .character(Character(Unicode.Scalar(byte)))
        }
    }

    private func enterRawMode() {
        tcgetattr(0, &original)
        var raw = original
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL)
        tcsetattr(0, TCSAFLUSH, &raw)
        FileHandle.standardOutput.write(Data("\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J".utf8))
    }

    private func leaveRawMode() {
        FileHandle.standardOutput.write(Data("\u{1B}[?25h\u{1B}[?1049l".utf8))
        tcsetattr(0, TCSAFLUSH, &original)
    }
}
