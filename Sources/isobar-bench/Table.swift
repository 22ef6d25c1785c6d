/// A plain-text table printed to stdout: the output format of every benchmark.
///
/// Columns are padded to their widest cell; the first column is left-aligned and the rest
/// right-aligned, so numbers line up. The layout is also valid Markdown.
struct Table {
    let title: String
    let header: [String]
    private(set) var rows: [[String]] = []
    private(set) var notes: [String] = []

    init(_ title: String, header: [String]) {
        self.title = title
        self.header = header
    }

    mutating func add(_ row: [String]) { rows.append(row) }
    mutating func note(_ text: String) { notes.append(text) }

    func render() -> String {
        let all = [header] + rows
        let columns = all.map(\.count).max() ?? 0
        var widths = [Int](repeating: 0, count: columns)
        for row in all {
            for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) }
        }
        func line(_ row: [String]) -> String {
            var cells: [String] = []
            for i in 0..<columns {
                let cell = i < row.count ? row[i] : ""
                let pad = String(repeating: " ", count: widths[i] - cell.count)
                cells.append(i == 0 ? cell + pad : pad + cell)
            }
            return "| " + cells.joined(separator: " | ") + " |"
        }
        var text = "\n### \(title)\n\n" + line(header) + "\n"
        text += "|" + widths.enumerated().map { i, w in
            i == 0 ? " " + String(repeating: "-", count: w) + " " : " " + String(repeating: "-", count: w - 1) + ": "
        }.joined(separator: "|") + "|\n"
        for row in rows { text += line(row) + "\n" }
        if !notes.isEmpty { text += "\n" + notes.map { "- " + $0 }.joined(separator: "\n") + "\n" }
        return text
    }

    func print() {
        Swift.print(render())
    }
}
