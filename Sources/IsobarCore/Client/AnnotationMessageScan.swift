#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The client's one-pass reader of a whole `annotations` line (`AnnotationSet.apply(storage:)`):
/// the top-level members are read where the scan reaches them, each key compared as bytes with the
/// members the set reads or the formatter writes, duplicates caught with a bitmask over those
/// names, and the `upsert` items read by ``AnnotationItemScan``; no `JSONObject`, no array of
/// fields, no stack of keys for the top level.
///
/// It takes only lines the general reader (`AnnotationSet.apply(_:)` on a `JSONObject`) accepts,
/// and only in the form the formatter writes them (unescaped known keys, each once; `version` a
/// whole number; `full` a boolean or null; `day` and `field` one of their values unescaped, or
/// null; `source` a string or null; `fetchedAt` a number or null; `upsert` and `remove` arrays);
/// for anything else it returns nil and the line takes the general reader whole, so its outcome
/// and error are exactly the general reader's. Reading changes nothing: the set applies the
/// result only once the whole line has been read. `ClientMessageScanTests` compares the two.
enum AnnotationMessageScan {
    /// What the set applies from one line: ranges are byte ranges into the line.
    struct Message: Equatable {
        var version: Int
        var full: Bool
        /// nil: absent or null (the set keeps its day).
        var day: Day?
        /// nil: absent or null (the set keeps its field).
        var field: Field?
        /// The `source` string's bytes between its quotes (no escape in them), or nil when it is
        /// absent or null (the set then holds no source).
        var source: Range<Int>?
        var fetchedAt: Double?
    }

    /// The top-level keys the reader knows, in the order of their bits in `seen`.
    private enum Key: Int {
        case type, client, version, full, day, field, units, windUnit, locale, snapshot, source, fetchedAt, ageSeconds, upsert, remove

        /// The key spelled by `length` bytes at `start`, or nil.
        static func find(_ start: UnsafeRawPointer, _ length: Int) -> Key? {
            func equal(_ name: StaticString) -> Bool { memcmp(start, name.utf8Start, length) == 0 }
            switch length {
            case 3: return equal("day") ? .day : nil
            case 4: return equal("type") ? .type : equal("full") ? .full : nil
            case 5: return equal("field") ? .field : equal("units") ? .units : nil
            case 6: return equal("client") ? .client : equal("locale") ? .locale : equal("source") ? .source
                : equal("upsert") ? .upsert : equal("remove") ? .remove : nil
            case 7: return equal("version") ? .version : nil
            case 8: return equal("windUnit") ? .windUnit : equal("snapshot") ? .snapshot : nil
            case 9: return equal("fetchedAt") ? .fetchedAt : nil
            case 10: return equal("ageSeconds") ? .ageSeconds : nil
            default: return nil
            }
        }
    }

    /// Reads `line` whole, appending its `upsert` items (read as ``AnnotationItemScan`` reads
    /// them, with `keepsDetail`) to `upserts` and the elements of its `remove` array to `removes`
    /// (where each string lies, so the set removes those ids without walking the array again;
    /// nil for an element of another kind, which it ignores); nil for anything but a line of the
    /// formatter's form that the general reader accepts (`upserts` and `removes` may then hold
    /// part of theirs).
    static func read(_ line: UnsafeRawBufferPointer, keepsDetail: Bool, upserts: inout [ScannedItem],
                     removes: inout [ScannedItem.Text]) -> Message? {
        guard let base = line.baseAddress else { return nil }
        var scanner = JSONScanner(line)
        scanner.skipWhitespace()
        guard scanner.peek() == UInt8(ascii: "{") else { return nil }
        scanner.index += 1
        var seen: UInt16 = 0
        var message = Message(version: 0, full: false)
        while true {
            guard let name = AnnotationItemScan.memberName(&scanner), let key = Key.find(base + name.lowerBound, name.count),
                  seen & (1 << key.rawValue) == 0 else { return nil }
            seen |= 1 << key.rawValue
            guard let first = scanner.peek() else { return nil }
            let start = scanner.index
            switch key {
            case .upsert:
                // Room for an item per 96 bytes of the rest of the line (the formatter writes
                // more per item), made once: from room for 16, a jump's fifty items took two
                // doublings, each copying the items read so far. At 120 bytes an item the room is
                // at most 1.25 times the rest of the line, held while the line is applied.
                // Reserved once the value is known to be an array (a line with another kind
                // there is declined without holding room sized by its rest).
                guard first == UInt8(ascii: "[") else { return nil }
                upserts.reserveCapacity(upserts.count + (line.count - start) / 96)
                guard scanner.readElements(into: &upserts, { AnnotationItemScan.item(&$0, keepsDetail: keepsDetail) }) else { return nil }
            case .remove:
                guard first == UInt8(ascii: "["), scanner.forEachElement({ Self.removeElement(&$0, into: &removes) }) else { return nil }
            case .type, .client, .units, .windUnit, .locale, .snapshot, .ageSeconds:
                // Not read by the set: only validated, whatever its kind (as the general reader).
                guard (try? scanner.scanValue(depth: 1)) != nil else { return nil }
            case .version, .fetchedAt:
                if first == UInt8(ascii: "n"), key == .fetchedAt {
                    guard (try? scanner.scanValue(depth: 1)) == .null else { return nil }
                    break
                }
                guard let value = AnnotationItemScan.number(&scanner) else { return nil }
                if key == .fetchedAt {
                    message.fetchedAt = value
                } else {
                    // `optionalInt`: whole, below 9e15 in magnitude.
                    guard value == value.rounded(), abs(value) < 9e15 else { return nil }
                    message.version = Int(value)
                }
            case .full:
                guard first == UInt8(ascii: "t") || first == UInt8(ascii: "f") || first == UInt8(ascii: "n"),
                      let kind = try? scanner.scanValue(depth: 1) else { return nil }
                message.full = kind == .bool && first == UInt8(ascii: "t")
            case .day, .field, .source:
                if first == UInt8(ascii: "n") {
                    guard (try? scanner.scanValue(depth: 1)) == .null else { return nil }
                    // null: the set keeps its day and field, and holds no source.
                    break
                }
                guard first == UInt8(ascii: "\""), let escaped = try? scanner.scanString(), !escaped else { return nil }
                let inner = (start + 1)..<(scanner.index - 1)
                switch key {
                case .day:
                    guard let day = Self.day(base, inner) else { return nil }
                    message.day = day
                case .field:
                    guard let field = Self.field(base, inner) else { return nil }
                    message.field = field
                default:
                    message.source = inner
                }
            }
            scanner.skipWhitespaceIfAny()
            guard let next = scanner.peek() else { return nil }
            scanner.index += 1
            if next == UInt8(ascii: "}") { break }
            guard next == UInt8(ascii: ",") else { return nil }
        }
        // `version` is required; nothing but whitespace may follow the object.
        guard seen & (1 << Key.version.rawValue) != 0 else { return nil }
        scanner.skipWhitespace()
        guard scanner.atEnd else { return nil }
        return message
    }

    /// Reads one element of `remove`, validated as `scanValue(depth: 1)` of the array validates
    /// it, and appends a string's place in the line and whether it has an escape (an id the set
    /// removes) to `removes`. An element of another kind is skipped, not kept (the set ignores it,
    /// and a line of a million zeros must not cost a million entries). False when it is no valid
    /// value.
    private static func removeElement(_ scanner: inout JSONScanner, into removes: inout [ScannedItem.Text]) -> Bool {
        if scanner.peek() == UInt8(ascii: "\"") {
            guard let text = AnnotationItemScan.string(&scanner) else { return false }
            removes.append(text)
            return true
        }
        return (try? scanner.scanValue(depth: 2)) != nil
    }

    /// The day spelled by the bytes at `range`, or nil.
    private static func day(_ base: UnsafeRawPointer, _ range: Range<Int>) -> Day? {
        spells(base, range, "today") ? .today : spells(base, range, "tomorrow") ? .tomorrow : nil
    }

    /// The field spelled by the bytes at `range`, or nil.
    private static func field(_ base: UnsafeRawPointer, _ range: Range<Int>) -> Field? {
        spells(base, range, "temperature") ? .temperature : spells(base, range, "wind") ? .wind
            : spells(base, range, "precipitation") ? .precipitation : spells(base, range, "conditions") ? .conditions : nil
    }

    /// Whether the bytes at `range` are exactly `name`.
    @inline(__always)
    private static func spells(_ base: UnsafeRawPointer, _ range: Range<Int>, _ name: StaticString) -> Bool {
        range.count == name.utf8CodeUnitCount && memcmp(base + range.lowerBound, name.utf8Start, range.count) == 0
    }
}
