import Foundation

/// `[c]`, `[d]` and `[cd]` folding of UTF-8 text byte by byte, from tables (FoldTables.swift),
/// with the answers of Foundation's `String.folding(options:locale: nil)`, which NSPredicate uses:
/// no Foundation, no String and no allocation per text. The in-memory evaluator and the SQL
/// functions both fold here.
///
/// Foundation folds a letter together with the combining marks after it (a cluster):
/// - `[c]` maps each scalar on its own (full case folding: `ß` → `ss`, `ﬁ` → `fi`, `İ` → `i̇`).
/// - `[d]` keeps the first scalar of a decomposable Latin, Greek or Cyrillic letter (`é` → `e`,
///   `й` → `и`) and drops the marks after any letter below U+0510 (`e` + U+0301 → `e`; `ł`, `ø`,
///   `ı` have no decomposition and stay). After a letter of another script it keeps the marks (the
///   first one dropped when it is below U+0510 and the letter did not change) and puts two or
///   more in canonical order (as it orders a mark after a letter that ends with marks): those
///   cases, rare, take Foundation's path. A mark with no letter before it (the start of the
///   text, or after U+0000) is folded as a letter.
public enum TextFolding {
    /// Which folding.
    public enum Mode: Int, Sendable {
        case caseInsensitive = 0, diacriticInsensitive = 1, caseAndDiacriticInsensitive = 2

        /// Nil when neither is asked for (no folding).
        public init?(caseInsensitive: Bool, diacriticInsensitive: Bool) {
            switch (caseInsensitive, diacriticInsensitive) {
            case (true, false): self = .caseInsensitive
            case (false, true): self = .diacriticInsensitive
            case (true, true): self = .caseAndDiacriticInsensitive
            case (false, false): return nil
            }
        }

        var options: String.CompareOptions {
            switch self {
            case .caseInsensitive: .caseInsensitive
            case .diacriticInsensitive: .diacriticInsensitive
            case .caseAndDiacriticInsensitive: [.caseInsensitive, .diacriticInsensitive]
            }
        }
    }

    /// The room `fold` needs for `count` bytes of text: one scalar folds to three times its bytes
    /// at most (U+0390 `ΐ` is ι, U+0308, U+0301 under `[c]`), and `fold` stores eight bytes at a
    /// time.
    public static func capacity(forFolding count: Int) -> Int { 3 * count + 16 }

    /// Folds `bytes` into `out` (at least `capacity(forFolding:)` bytes) and returns the folded
    /// count. Nil when the text needs Foundation's path: invalid UTF-8 (which Foundation reads as
    /// U+FFFD), or two combining marks or more after a letter whose marks `[d]` keeps.
    ///
    /// With a `limit`, folding may stop once that many bytes are folded (what follows never
    /// changes them): a prefix test folds no more than the prefix needs.
    public static func fold(_ bytes: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableBufferPointer<UInt8>, mode: Mode,
                            limit: Int = .max) -> Int? {
        guard let tables = Tables.shared, out.count >= capacity(forFolding: bytes.count) else { return nil }
        guard let source = bytes.baseAddress, let target = out.baseAddress else { return 0 }
        return fold(source, bytes.count, into: target, mode: mode, limit: limit, tables)
    }

    /// What the scalars before leave for a combining mark that follows (`[d]`).
    private enum Marks {
        static let foldAsLetter: UInt8 = 0, drop: UInt8 = 1, keepOne: UInt8 = 2, keepOneDroppingLow: UInt8 = 3, keptOne: UInt8 = 4
    }

    /// `fold(_:into:mode:limit:)` with the tables fetched and the room checked by the caller
    /// (`target` holds `capacity(forFolding: count)` bytes): what a caller folding row after row
    /// calls, one call per text.
    package static func fold(_ source: UnsafePointer<UInt8>, _ count: Int, into target: UnsafeMutablePointer<UInt8>,
                             mode: Mode, limit: Int, _ tables: Tables) -> Int? {
        let lower = mode != .diacriticInsensitive, marks = mode != .caseInsensitive
        let column = mode.rawValue
        let highBits: UInt64 = 0x8080_8080_8080_8080
        var i = 0, o = 0
        var after = Marks.foldAsLetter
        while i < count && o < limit {
            // ASCII eight bytes at a time (all of most text), or the ASCII bytes before the first
            // that is not: an upper-case letter (0x41…0x5A) is the byte whose high bit `+ 0x3F`
            // sets and `+ 0x25` does not (no carry crosses bytes below 0x80; the others are
            // masked away). The eight bytes stored may end in garbage that what follows
            // overwrites (`out` has room: see `capacity(forFolding:)`). A letter takes the marks
            // after it away; U+0000 does not.
            if i + 8 <= count {
                var word = UnsafeRawPointer(source + i).loadUnaligned(as: UInt64.self)
                let high = word & highBits
                // The ASCII bytes at the start of the word (little-endian: the low bytes first).
                let ascii = high == 0 ? 8 : high.trailingZeroBitCount >> 3
                if ascii > 0 {
                    if ascii < 8 { word &= (1 << UInt64(ascii * 8)) - 1 }
                    let upper = lower ? (word &+ 0x3F3F_3F3F_3F3F_3F3F) & ~(word &+ 0x2525_2525_2525_2525) & highBits : 0
                    UnsafeMutableRawPointer(target + o).storeBytes(of: word | upper >> 2, as: UInt64.self)
                    after = word >> UInt64(ascii * 8 - 8) & 0xFF == 0 ? Marks.foldAsLetter : Marks.drop
                    i &+= ascii
                    o &+= ascii
                    continue
                }
            }
            var byte = source[i]
            if byte < 0x80 {
                // A run of ASCII bytes shorter than a word (the end of the text, or before a
                // letter that is not ASCII), in a loop of its own.
                repeat {
                    target[o] = lower && byte &- 0x41 < 26 ? byte | 0x20 : byte
                    i &+= 1
                    o &+= 1
                    guard i < count else { break }
                    let next = source[i]
                    guard next < 0x80 else { break }
                    byte = next
                } while true
                after = byte == 0 ? Marks.foldAsLetter : Marks.drop
                continue
            }
            // A two-byte scalar here (most letters that are not ASCII), else the general decoder.
            let value: UInt32, length: Int
            if byte >= 0xC2 && byte <= 0xDF && i + 1 < count && source[i + 1] & 0xC0 == 0x80 {
                value = UInt32(byte & 0x1F) << 6 | UInt32(source[i + 1] & 0x3F)
                length = 2
            } else {
                guard let (decoded, decodedLength) = TextMatching.scalar(in: UnsafeBufferPointer(start: source, count: count), at: i) else {
                    return nil
                }
                value = decoded
                length = decodedLength
            }
            let entry = tables.entry(value, column)
            if marks && entry & Tables.nonBase != 0 && after != Marks.foldAsLetter {
                switch after {
                case Marks.drop:
                    break
                case Marks.keepOne, Marks.keepOneDroppingLow:
                    if entry & Tables.decomposesAsMark != 0 { return nil }
                    if after == Marks.keepOne || value >= 0x510 {
                        copyScalar(source + i, length, to: target + o)
                        o &+= length
                    }
                    after = Marks.keptOne
                default:
                    return nil
                }
                i &+= length
                continue
            }
            // From the pool four or sixteen bytes whatever the length (the pool and `out` have room).
            if entry & Tables.changes != 0 {
                let folded = Int(entry >> 16 & 0xF)
                let from = tables.pool + Int(entry & 0xFFFF)
                copy4(from, to: target + o)
                if folded > 4 { copy4(from + 4, to: target + o + 4); copy4(from + 8, to: target + o + 8); copy4(from + 12, to: target + o + 12) }
                o &+= folded
            } else {
                copyScalar(source + i, length, to: target + o)
                o &+= length
            }
            i &+= length
            if marks {
                after = entry & Tables.absorbsMarks != 0 ? Marks.drop
                    // A mark after it would be put in canonical order with the marks it ends with.
                    : entry & Tables.marksAfterNeedFoundation != 0 ? Marks.keptOne
                    : entry & Tables.dropsFirstLowMark != 0 ? Marks.keepOneDroppingLow : Marks.keepOne
            }
        }
        return o
    }

    /// Copies four bytes (of the pool, which has room past its end; what is past a fold's end is
    /// overwritten or not counted).
    @inline(__always)
    private static func copy4(_ from: UnsafePointer<UInt8>, to: UnsafeMutablePointer<UInt8>) {
        UnsafeMutableRawPointer(to).storeBytes(of: UnsafeRawPointer(from).loadUnaligned(as: UInt32.self), as: UInt32.self)
    }

    /// Copies a scalar of `length` bytes (2 to 4) without reading past it.
    @inline(__always)
    private static func copyScalar(_ from: UnsafePointer<UInt8>, _ length: Int, to: UnsafeMutablePointer<UInt8>) {
        if length == 4 { return copy4(from, to: to) }
        UnsafeMutableRawPointer(to).storeBytes(of: UnsafeRawPointer(from).loadUnaligned(as: UInt16.self), as: UInt16.self)
        if length == 3 { to[2] = from[2] }
    }

    /// Foundation's fold, for what the tables cannot take.
    static func foldedByFoundation(_ text: String, mode: Mode) -> String {
        text.folding(options: mode.options, locale: nil)
    }

    /// FoldTables decoded once, in memory that lives as long as the process: plain pointers,
    /// read without a retain. Nil only if the generated tables were damaged: every text then
    /// takes Foundation's path.
    package struct Tables: @unchecked Sendable {
        // Entry flags, as scripts/generate-fold-tables.swift writes them.
        static let changes: UInt32 = 1 << 20, nonBase: UInt32 = 1 << 21, absorbsMarks: UInt32 = 1 << 22
        static let dropsFirstLowMark: UInt32 = 1 << 23, decomposesAsMark: UInt32 = 1 << 24
        static let marksAfterNeedFoundation: UInt32 = 1 << 25

        package static let shared = Tables()

        private let stage1: UnsafePointer<UInt16>
        private let stage2: UnsafePointer<UInt16>
        private let entries: UnsafePointer<UInt32>
        let pool: UnsafePointer<UInt8>

        private init?() {
            guard let stage1 = Self.decode(FoldTables.stage1, as: UInt16.self),
                  let stage2 = Self.decode(FoldTables.stage2, as: UInt16.self),
                  let entries = Self.decode(FoldTables.entries, as: UInt32.self),
                  let pool = Self.decode(FoldTables.pool, as: UInt8.self),
                  stage1.count == 0x110000 >> FoldTables.blockShift,
                  stage2.allSatisfy({ Int($0) * 3 + 2 < entries.count }),
                  stage1.allSatisfy({ (Int($0) + 1) << FoldTables.blockShift <= stage2.count }),
                  entries.allSatisfy({ $0 & Self.changes == 0 || Int($0 & 0xFFFF) + Int($0 >> 16 & 0xF) <= pool.count })
            else { return nil }
            self.stage1 = Self.immortal(stage1)
            self.stage2 = Self.immortal(stage2)
            self.entries = Self.immortal(entries)
            // Sixteen bytes of room past the end: `fold` copies sixteen at a time.
            self.pool = Self.immortal(pool + [UInt8](repeating: 0, count: 16))
        }

        /// The entry of a scalar (at most U+10FFFF) for a mode's column.
        @inline(__always)
        func entry(_ value: UInt32, _ column: Int) -> UInt32 {
            let block = Int(stage1[Int(value >> UInt32(FoldTables.blockShift))])
            let index = Int(stage2[block << FoldTables.blockShift | Int(value & (1 << UInt32(FoldTables.blockShift) - 1))])
            return entries[index * 3 + column]
        }

        private static func decode<T: FixedWidthInteger>(_ base64: String, as: T.Type) -> [T]? {
            guard let data = Data(base64Encoded: base64, options: .ignoreUnknownCharacters),
                  data.count % MemoryLayout<T>.size == 0 else { return nil }
            return data.withUnsafeBytes { raw in
                (0..<(data.count / MemoryLayout<T>.size)).map {
                    T(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * MemoryLayout<T>.size, as: T.self))
                }
            }
        }

        private static func immortal<T>(_ values: [T]) -> UnsafePointer<T> {
            let buffer = UnsafeMutableBufferPointer<T>.allocate(capacity: max(values.count, 1))
            _ = buffer.initialize(from: values)
            return UnsafePointer(buffer.baseAddress ?? UnsafeMutablePointer<T>.allocate(capacity: 1))
        }
    }
}
