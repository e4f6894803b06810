// Writes Sources/PortalPredicate/FoldTables.swift: what `[c]`, `[d]` and `[cd]` do to each
// Unicode scalar, in compact tables that TextFolding reads byte by byte.
//
//     swift scripts/generate-fold-tables.swift > Sources/PortalPredicate/FoldTables.swift
//
// The answers must equal Foundation's `String.folding(options:locale: nil)`, which NSPredicate's
// [c]/[d]/[cd] use. Foundation folds with Core Foundation's own copy of Unicode's data (full case
// folding from CaseFolding.txt, canonical decompositions and the Grapheme_Extend set from
// UnicodeData.txt and DerivedCoreProperties.txt, of the Unicode version it ships) and rules of
// its own: it keeps only the first scalar of a decomposition when that is Latin, Greek or
// Cyrillic (below U+0510) and leaves other decomposable scalars whole; it folds Cherokee to lower
// case. So each scalar's table entry is read from Foundation itself, one scalar at a time (and
// in the two contexts below); the rules that join scalars into clusters are TextFolding's code.
// TextFoldingTests checks the result against Foundation over every scalar, in context.
import Foundation

enum Mode: Int, CaseIterable { case c = 0, d = 1, cd = 2 }

// Texts compare by their scalars here: Swift's `==` would take "ǰ" and "j\u{30C}" for equal.
func same(_ a: String, _ b: String) -> Bool { a.unicodeScalars.elementsEqual(b.unicodeScalars) }

func fold(_ text: String, _ mode: Mode) -> String {
    let options: String.CompareOptions = switch mode {
    case .c: .caseInsensitive
    case .d: .diacriticInsensitive
    case .cd: [.caseInsensitive, .diacriticInsensitive]
    }
    return text.folding(options: options, locale: nil)
}

// Flag bits of an entry (TextFolding reads the same values).
let changes: UInt32 = 1 << 20, nonBase: UInt32 = 1 << 21, absorbsMarks: UInt32 = 1 << 22
let dropsFirstLowMark: UInt32 = 1 << 23, decomposesAsMark: UInt32 = 1 << 24, marksAfterNeedFoundation: UInt32 = 1 << 25

/// Whether a letter takes in the scalar as a combining mark.
func isNonBase(_ scalar: Unicode.Scalar) -> Bool { same(fold("a" + String(scalar), .d), "a") }

var pool: [UInt8] = []
var poolOffsets: [[UInt8]: Int] = [:]
var entries: [[UInt32]] = []            // one per distinct entry: [c, d, cd]
var entryIndex: [[UInt32]: Int] = [:]
var scalarEntries = [UInt16](repeating: 0, count: 0x110000)

func entry(_ value: UInt32) -> [UInt32] {
    guard let scalar = Unicode.Scalar(value) else { return [0, 0, 0] }
    let text = String(scalar)
    // A scalar is "non-base" (a combining mark to Foundation) when a base letter takes it in.
    let scalarIsNonBase = isNonBase(scalar)
    // A mark Foundation decomposes when it keeps it (after a letter of another script).
    let decomposes = scalarIsNonBase && !same(fold("\u{531}" + text, .cd), "\u{561}" + text)
    return Mode.allCases.map { mode in
        var bits: UInt32 = scalarIsNonBase ? nonBase : 0
        if decomposes { bits |= decomposesAsMark }
        let folded = fold(text, mode)
        if !same(folded, text) {
            let bytes = Array(folded.utf8)
            precondition(bytes.count < 16, "U+\(String(value, radix: 16)) folds to \(bytes.count) bytes")
            let offset = poolOffsets[bytes] ?? {
                let offset = pool.count
                pool += bytes
                poolOffsets[bytes] = offset
                return offset
            }()
            precondition(offset < 1 << 16)
            bits |= changes | UInt32(bytes.count) << 16 | UInt32(offset)
        }
        if mode != .c {
            // Marks after it: taken away (Latin, Greek, Cyrillic), or kept (other scripts; the
            // first one taken away when it is below U+0510 and this scalar did not change).
            // U+0951 and U+0301 are combining marks of both kinds.
            if same(fold(text + "\u{951}", mode), folded) { bits |= absorbsMarks }
            if same(fold(text + "\u{301}", mode), folded) { bits |= dropsFirstLowMark }
            // A kept mark is put in canonical order with the marks the fold ends with.
            if bits & absorbsMarks == 0, let last = folded.unicodeScalars.last, isNonBase(last) {
                bits |= marksAfterNeedFoundation
            }
        }
        return bits
    }
}

for value in UInt32(0)...0x10FFFF {
    let e = entry(value)
    let index = entryIndex[e] ?? {
        entries.append(e)
        entryIndex[e] = entries.count - 1
        return entries.count - 1
    }()
    precondition(index < 1 << 16)
    scalarEntries[Int(value)] = UInt16(index)
}

// Two stages: blocks of 128 scalars, the same blocks shared.
let blockSize = 128
var blocks: [[UInt16]] = []
var blockIndex: [[UInt16]: Int] = [:]
var stage1: [UInt16] = []
for start in stride(from: 0, to: 0x110000, by: blockSize) {
    let block = Array(scalarEntries[start..<(start + blockSize)])
    let index = blockIndex[block] ?? {
        blocks.append(block)
        blockIndex[block] = blocks.count - 1
        return blocks.count - 1
    }()
    stage1.append(UInt16(index))
}

func base64<T: FixedWidthInteger>(_ values: [T]) -> String {
    var bytes: [UInt8] = []
    for value in values {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }
    let text = Data(bytes).base64EncodedString()
    var lines: [String] = []
    var rest = Substring(text)
    while !rest.isEmpty {
        lines.append("        " + rest.prefix(100))
        rest = rest.dropFirst(100)
    }
    return lines.joined(separator: "\n")
}

print("""
// Generated by scripts/generate-fold-tables.swift from Foundation's folding of each Unicode
// scalar; do not edit. TextFolding reads these tables, TextFoldingTests checks them.

/// What `[c]`, `[d]` and `[cd]` do to each scalar, as little-endian base64: `stage1` maps a scalar's
/// block of \(blockSize) to a block of `stage2`, which maps it to an entry; `entries` holds three
/// UInt32 per entry (c, d, cd): the folded bytes' offset in `pool` (low 16 bits), their count (4
/// bits), then flags (see TextFolding).
enum FoldTables {
    static let blockShift = \(blockSize.trailingZeroBitCount)
    static let stage1 = \"\"\"
\(base64(stage1))
        \"\"\"
    static let stage2 = \"\"\"
\(base64(blocks.flatMap { $0 }))
        \"\"\"
    static let entries = \"\"\"
\(base64(entries.flatMap { $0 }))
        \"\"\"
    static let pool = \"\"\"
\(base64(pool))
        \"\"\"
}
""")
FileHandle.standardError.write(Data("\(entries.count) entries, \(blocks.count) blocks, \(pool.count) bytes of folds\n".utf8))
