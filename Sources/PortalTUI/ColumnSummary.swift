import Foundation
import PortalEngine

/// One line of a frequency table: a value and how many rows hold it.
public struct FrequencyRow: Sendable, Hashable {
    public var value: Value
    public var count: Int
    public init(value: Value, count: Int) {
        self.value = value
        self.count = count
    }
}

/// Where a page of a frequency table starts, by key (count descending, then value).
public enum FrequencyAnchor: Sendable, Hashable {
    case first
    case last
    /// Values strictly after this one in the table's order.
    case after(FrequencyRow)
    /// Values strictly before this one; returned in the table's order.
    case before(FrequencyRow)
    /// This value (with its count then) and those after it.
    case atOrAfter(FrequencyRow)
}

public struct FrequencyRequest: Sendable, Hashable {
    public var entity: String
    public var filter: String
    public var column: String
    public var anchor: FrequencyAnchor
    public var limit: Int
    public init(entity: String, filter: String, column: String, anchor: FrequencyAnchor, limit: Int) {
        self.entity = entity
        self.filter = filter
        self.column = column
        self.anchor = anchor
        self.limit = limit
    }
}

/// What `I` shows of a column over the filtered rows.
public struct ColumnSummary: Sendable, Hashable {
    /// What the values are, which decides the lines shown: numbers get an average and a
    /// histogram, text its shortest and longest value, dates their earliest and latest and a
    /// histogram.
    public enum Kind: Sendable, Hashable { case number, text, date, other }

    public var kind: Kind
    public var rows: Int
    public var nulls: Int
    public var distinct: Int
    public var minimum: Value
    public var maximum: Value
    public var average: Double?
    public var shortest: Value?
    public var longest: Value?
    public var histogram: [HistogramBin]

    public init(kind: Kind, rows: Int, nulls: Int, distinct: Int, minimum: Value, maximum: Value, average: Double? = nil,
                shortest: Value? = nil, longest: Value? = nil, histogram: [HistogramBin] = []) {
        self.kind = kind
        self.rows = rows
        self.nulls = nulls
        self.distinct = distinct
        self.minimum = minimum
        self.maximum = maximum
        self.average = average
        self.shortest = shortest
        self.longest = longest
        self.histogram = histogram
    }
}

/// One bar of a histogram: where it starts (its label) and how many values fall in it.
public struct HistogramBin: Sendable, Hashable {
    public var label: String
    public var count: Int
    public init(label: String, count: Int) {
        self.label = label
        self.count = count
    }
}

/// How a range of values is cut into bins: `count` bins of `width` from `lower`. Integers with
/// at most 20 distinct possible values get one bin each; other ranges 16 bins (integer ranges
/// in whole-number widths, so that no bin is empty for want of integers).
public struct HistogramPlan: Sendable, Hashable {
    public var lower: Double
    public var width: Double
    public var count: Int
    public var integral: Bool

    public static let bins = 16

    public init(lower: Double, upper: Double, integral: Bool) {
        self.lower = lower
        self.integral = integral
        let span = upper - lower
        if !(span > 0) || !span.isFinite {
            (width, count) = (1, 1)
        } else if integral {
            let values = span + 1
            width = values <= 20 ? 1 : (values / Double(Self.bins)).rounded(.up)
            count = Int((values / width).rounded(.up))
        } else {
            (width, count) = (span / Double(Self.bins), Self.bins)
        }
    }

    /// The bin counts with the empty bins filled in, from (bin, count) pairs.
    public func filled(_ pairs: [(bin: Int, count: Int)]) -> [Int] {
        var counts = Array(repeating: 0, count: count)
        for (bin, n) in pairs where counts.indices.contains(bin) { counts[bin] += n }
        return counts
    }

    /// Bin `i`'s label for numbers: `3`, `100–199`, or `1.5–2.25`.
    public func numberLabel(_ i: Int) -> String {
        let start = lower + Double(i) * width
        if integral {
            return width == 1 ? Self.number(start) : "\(Self.number(start))–\(Self.number(start + width - 1))"
        }
        return "\(Self.number(start))–\(Self.number(start + width))"
    }

    /// Bin `i`'s label for dates (day numbers): the day it starts, with the time when the bins
    /// are shorter than a day.
    public func dateLabel(_ i: Int) -> String {
        Self.date(fromDayNumber: lower + Double(i) * width, withTime: width < 1)
    }

    /// Whole numbers without a fraction, others with at most 4 significant decimals.
    static func number(_ x: Double) -> String {
        if x == x.rounded(), abs(x) < 1e15 { return String(Int64(x)) }
        return String(format: "%.4g", x)
    }

    /// A Julian day number as `YYYY-MM-DD` (and `HH:MM`), by the engine's one date text (UTC,
    /// proleptic Gregorian); the number itself outside the years 1–9999.
    static func date(fromDayNumber jd: Double, withTime: Bool) -> String {
        let seconds = ((jd - 2_440_587.5) * 86_400).rounded()
        guard let text = DateSemantics.text(seconds) else { return String(jd) }
        return String(text.prefix(withTime ? 16 : 10))
    }
}

/// A bar of `width` cells for `count` out of `largest`, in eighths of a cell (█ and ▏▎▍▌▋▊▉).
public enum Bar {
    static let partials: [Character] = ["▏", "▎", "▍", "▌", "▋", "▊", "▉"]

    public static func text(_ count: Int, of largest: Int, width: Int) -> String {
        let (full, partial) = parts(count, of: largest, width: width)
        return String(repeating: "█", count: full) + (partial.map { String($0) } ?? "")
    }

    /// The bar as its full cells and the partial one after them, if any.
    static func parts(_ count: Int, of largest: Int, width: Int) -> (full: Int, partial: Character?) {
        guard largest > 0, count > 0, width > 0 else { return (0, nil) }
        let eighths = Int((Double(count) / Double(largest) * Double(width * 8)).rounded())
        let full = min(width, eighths / 8)
        if eighths % 8 > 0, full < width { return (full, partials[eighths % 8 - 1]) }
        // A value that is there gets at least a sliver.
        return full == 0 ? (0, partials[0]) : (full, nil)
    }
}
