import PortalPredicate

/// The values the differential worlds draw from: texts that fold, normalize and compare in
/// awkward ways (case, diacritics, ß, decomposed é, NUL, wildcards, digits, dates), numbers of
/// both types, and NULLs.
public enum DifferentialValues {
    public static let texts: [Value] = [
        "", "a", "A", "ab", "aB", "Ab", "abc", "b", "Zürich", "zurich", "ZURICH", "zürich", "Antônio", "antonio",
        "ANTONIO", "straße", "STRASSE", "strasse", "naïve", "naive", "日本", "🙂", "x y", "a*b", "a?b", "50", "5",
        "nul\u{0}byte", "\u{E9}", "e\u{301}", "É", "-3", "2021-01-01 00:00:00", "2020-12-31 23:59:59", .null,
    ]
    public static let numbers: [Value] = [0, 1, 2, 3, 5, 10, -1, -7, 42, 2.5, -0.5, 100, .null, .null]
}
