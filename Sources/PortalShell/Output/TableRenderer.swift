import PortalEngine
import PortalTUI

/// Aligned columns with a header and a rule line. The widths are fixed from the first
/// `sampleSize` rows, then every row is written as it comes: memory stays bounded. A later
/// number wider than its column is written whole and shifts the rest of its row: numbers are
/// never cut (text is, with `…`).
final class TableRenderer: RowRenderer {
    static let sampleSize = 100
    /// No column grows wider than this; longer cells are cut with `…`.
    static let maximumWidth = 50

    let options: OutputOptions
    let stream: OutputStream
    private var columns: [String] = []
    private(set) var widths: [Int] = []
    private var sample: [[Value]] = []
    private(set) var sampling = true
    private let null: String

    init(_ options: OutputOptions, _ stream: OutputStream) {
        self.options = options
        self.stream = stream
        self.null = options.nullText ?? "NULL"
    }

    func begin(columns: [String]) {
        self.columns = columns
    }

    func row(_ values: [Value]) {
        if sampling {
            sample.append(values)
            if sample.count >= Self.sampleSize { flushSample() }
        } else {
            write(values)
        }
    }

    func end() {
        if sampling { flushSample() }
    }

    private func flushSample() {
        sampling = false
        widths = columns.map { options.header ? min(DisplayWidth.of(TerminalText.escaped($0)), Self.maximumWidth) : 1 }
        for values in sample {
            for (i, value) in values.enumerated() where i < widths.count {
                widths[i] = max(widths[i], min(DisplayWidth.of(text(value)), Self.maximumWidth))
            }
        }
        if options.header { writeHeader() }
        for values in sample { write(values) }
        sample = []
    }

    func text(_ value: Value) -> String {
        ValueText.display(value, null: null, escape: options.escapeControlCharacters)
    }

    private func writeHeader() {
        for (i, name) in columns.enumerated() {
            if i > 0 { stream.write(" | ") }
            writeCell(TerminalText.escaped(name), width: widths[i], rightAligned: false, style: options.color ? "\u{1B}[1m" : nil,
                      last: i == columns.count - 1)
        }
        stream.write(10)
        for (i, width) in widths.enumerated() {
            if i > 0 { stream.write("-+-") }
            stream.write(String(repeating: "-", count: width))
        }
        stream.write(10)
    }

    func write(_ values: [Value]) {
        for (i, value) in values.enumerated() where i < widths.count {
            if i > 0 { stream.write(" | ") }
            let style: String? = options.color && value.isNull ? "\u{1B}[2m" : nil
            writeCell(text(value), width: widths[i], rightAligned: ValueText.isNumber(value), style: style,
                      last: i == values.count - 1)
        }
        stream.write(10)
    }

    /// One cell padded to `width` columns (the last cell of a line is not padded on the right).
    /// Right-aligned cells are numbers: they are never cut, however wide.
    func writeCell(_ text: String, width: Int, rightAligned: Bool, style: String?, last: Bool) {
        var text = text
        var used = DisplayWidth.of(text)
        if used > width && !rightAligned { (text, used) = DisplayWidth.truncate(text, to: width) }
        let padding = max(0, width - used)
        if rightAligned { pad(padding) }
        if let style { stream.write(style) }
        stream.write(text)
        if style != nil { stream.write("\u{1B}[0m") }
        if !rightAligned && !last { pad(padding) }
    }

    private static let spaces = [UInt8](repeating: 32, count: 64)

    /// Writes `count` spaces without building a string.
    func pad(_ count: Int) {
        var left = count
        while left > 0 {
            let n = min(left, Self.spaces.count)
            Self.spaces.withUnsafeBufferPointer { stream.write(bytes: UnsafeBufferPointer(rebasing: $0[0..<n])) }
            left -= n
        }
    }
}
