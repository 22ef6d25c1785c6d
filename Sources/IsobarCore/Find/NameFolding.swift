import Foundation

/// Folds names and queries to the form `search` compares: ASCII letters and digits, lowercased,
/// words separated by one space. "Ísafjörður" becomes "isafjordur", "São Pedro" "sao pedro",
/// "Saint-Denis (Réunion)" "saint denis reunion", "Москва" "moskva".
///
/// Transliteration is ICU's `Any-Latin; Latin-ASCII` through Foundation (available in
/// swift-corelibs-foundation on Linux as on Apple platforms): a real table, not a hand-made one,
/// so "ð" becomes "d", "ß" "ss", "Ł" "L" and Cyrillic, Greek or Han names get their Latin reading.
/// Should a transform ever be unavailable, Foundation's case- and diacritic-insensitive folding is
/// used instead (it strips accents but keeps letters such as "ð" or "ł" as they are).
/// Apostrophes vanish without splitting a word ("O'Hare" is "ohare"); any other punctuation or
/// space separates words. Bytes that are still not ASCII after the transform (a script ICU cannot
/// romanize) are kept, so such a name still matches a query in its own script.
public enum NameFolding {
    /// The folded UTF-8 bytes of `text`.
    public static func fold(_ text: String) -> [UInt8] {
        var ascii = true
        for byte in text.utf8 where byte >= 0x80 { ascii = false; break }
        if ascii { return foldASCII(text.utf8) }
        let latin = text.applyingTransform(StringTransform("Any-Latin; Latin-ASCII"), reverse: false)
            ?? text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
        return foldASCII(latin.utf8)
    }

    /// Lowercases ASCII letters, drops apostrophes, and turns every other run of non-alphanumeric
    /// ASCII into one space (none at either end).
    static func foldASCII<S: Sequence>(_ bytes: S) -> [UInt8] where S.Element == UInt8 {
        var out: [UInt8] = []
        var pendingSpace = false
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"):
                if pendingSpace && !out.isEmpty { out.append(0x20) }
                pendingSpace = false
                out.append(byte + 32)
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), 0x80...:
                if pendingSpace && !out.isEmpty { out.append(0x20) }
                pendingSpace = false
                out.append(byte)
            case UInt8(ascii: "'"), UInt8(ascii: "`"):
                continue
            default:
                pendingSpace = true
            }
        }
        return out
    }
}
