#if canImport(Glibc)
import Glibc
#endif
import Foundation
import IsobarCore
import IsobarHost

/// The full-screen text map of `isobar attach` on a terminal.
///
/// Keys: arrows pan a quarter of the span, + and - zoom by two, d toggles the day, f cycles the
/// field, u cycles units, Enter selects the station nearest the centre, Esc clears it, q quits.
final class TerminalMap: @unchecked Sendable {
    // @unchecked: `viewport` is only touched on the key-reading thread (run()); redraws take `drawLock`.
    private let session: AttachSession
    private var viewport: Viewport
    private let drawLock = NSLock()
    private var original = termios()

    init(session: AttachSession, start: Viewport) {
        self.session = session
        self.viewport = start
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
            let items = Array(session.snapshot().annotations.items.values).filter { $0.count == 1 }
            if let nearest = TextMap.nearest(items, to: region.center) { session.select(nearest.id) }
            return true
        case .escape:
            session.select(nil)
            return true
        case .character("q"), .character("Q"): return false
        default: return true
        }
        viewport.region = Region(clampingCenter: center, latitudeDelta: dlat, longitudeDelta: dlon)
        session.update(viewport)
        return true
    }

    private func draw() {
        drawLock.lock()
        defer { drawLock.unlock() }
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
        let mapHeight = max(3, height - 2 - calloutLines.count)
        let rows = TextMap.render(Array(state.annotations.items.values), region: shown.region, width: width, height: mapHeight)
        var screen = "\u{1B}[H"
        for row in rows { screen += row + "\u{1B}[K\r\n" }
        for line in calloutLines { screen += String(line.prefix(width)) + "\u{1B}[K\r\n" }
        screen += String(statusLine(state, shown).prefix(width)) + "\u{1B}[K\r\n"
        screen += String("arrows pan · +/- zoom · d day · f field · u units · Enter callout · Esc clear · q quit".prefix(width)) + "\u{1B}[K\u{1B}[J"
        FileHandle.standardOutput.write(Data(screen.utf8))
    }

    private func statusLine(_ state: (viewport: Viewport?, annotations: AnnotationSet, callout: [UInt8]?, status: String?), _ shown: Viewport) -> String {
        let r = shown.region
        var text = String(format: " %.3f,%.3f span %.3g×%.3g │ %d annotations │ %@ │ %@",
                          r.center.latitude, r.center.longitude, r.latitudeDelta, r.longitudeDelta,
                          state.annotations.items.count, shown.day.rawValue, (shown.presentation.field ?? .temperature).rawValue)
        if let fetchedAt = state.annotations.fetchedAt {
            let age = max(0, Date().timeIntervalSince1970 - fetchedAt)
            let stored = state.annotations.source == "store" ? "stored data, " : ""
            text += " │ \(stored)age \(Int(age / 60)) min"
        } else if state.annotations.version == 0 {
            text += " │ waiting for the pipeline…"
        }
        if let status = state.status, status.contains("\"state\":\"failed\"") {
            text += " │ ⚠ feed offline"
        }
        return text
    }

    private func readKey() -> Key? {
        var byte: UInt8 = 0
        while true {
            let n = read(0, &byte, 1)
            if n == 1 { break }
            if n < 0 && errno == EINTR { continue }
            return nil
        }
        switch byte {
        case 0x1B:
            var pollfd = Glibc.pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
            guard poll(&pollfd, 1, 30) > 0 else { return .escape }
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
