/// Draws annotations into a grid of characters: the terminal map of `isobar attach`.
///
/// Pure (no terminal I/O) so it can be tested: rows are strings of exactly `width` characters.
/// Each annotation's title is written starting at its projected column (equirectangular, with
/// longitudes taken relative to the center so the antimeridian is seamless); an empty title is a
/// dot. Later titles never overwrite earlier ones, and the center is marked with `+`. With
/// `dimStale`, a stale station's label is wrapped in the terminal's faint style (SGR 2 … 22): the
/// row then has more characters than columns, but still `width` visible ones.
public enum TextMap {
    public static func render(_ items: [AnnotationSet.Item], region: Region, width: Int, height: Int, dimStale: Bool = false) -> [String] {
        guard width > 0, height > 0 else { return [] }
        var grid = [[Character]](repeating: [Character](repeating: " ", count: width), count: height)
        var used = [[Bool]](repeating: [Bool](repeating: false, count: width), count: height)
        var faint = [[Bool]](repeating: [Bool](repeating: false, count: width), count: height)
        let longitudeSpan = min(360, region.longitudeDelta)
        let top = region.center.latitude + region.latitudeDelta / 2
        let centerRow = height / 2, centerColumn = width / 2
        grid[centerRow][centerColumn] = "+"
        used[centerRow][centerColumn] = true
        for item in items.sorted(by: { $0.id < $1.id }) {
            var delta = (item.coordinate.longitude - region.center.longitude).truncatingRemainder(dividingBy: 360)
            if delta > 180 { delta -= 360 } else if delta < -180 { delta += 360 }
            let column = Int(((delta + longitudeSpan / 2) / longitudeSpan * Double(width - 1)).rounded())
            let row = Int(((top - item.coordinate.latitude) / region.latitudeDelta * Double(height - 1)).rounded())
            guard row >= 0, row < height, column >= 0, column < width else { continue }
            var label = item.title.isEmpty ? "·" : item.title
            if item.count > 1 { label = "(\(item.count))" + label }
            let characters = Array(label)
            let start = max(0, min(column, width - characters.count))
            let end = min(width, start + characters.count)
            guard (start..<end).allSatisfy({ !used[row][$0] }) else {
                if !used[row][column] { grid[row][column] = "•"; used[row][column] = true }
                continue
            }
            for (offset, character) in characters.prefix(end - start).enumerated() {
                grid[row][start + offset] = character
                used[row][start + offset] = true
                faint[row][start + offset] = item.stale
            }
        }
        guard dimStale else { return grid.map { String($0) } }
        return zip(grid, faint).map { characters, faintRow in
            var text = ""
            var inFaint = false
            for (character, isFaint) in zip(characters, faintRow) {
                if isFaint != inFaint { text += isFaint ? "\u{1B}[2m" : "\u{1B}[22m"; inFaint = isFaint }
                text.append(character)
            }
            return inFaint ? text + "\u{1B}[22m" : text
        }
    }

    /// The annotation nearest the region's center (what Enter selects).
    public static func nearest(_ items: [AnnotationSet.Item], to center: Coordinate) -> AnnotationSet.Item? {
        items.min { distance($0.coordinate, center) < distance($1.coordinate, center) }
    }

    static func distance(_ a: Coordinate, _ b: Coordinate) -> Double {
        var dlon = abs(a.longitude - b.longitude).truncatingRemainder(dividingBy: 360)
        if dlon > 180 { dlon = 360 - dlon }
        let dlat = a.latitude - b.latitude
        return dlat * dlat + dlon * dlon
    }
}
