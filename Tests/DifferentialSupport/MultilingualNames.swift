/// Names in many languages and scripts, for the folding tests: accented and special Latin
/// letters (ß, ligatures, Turkish dotless ı and İ, Vietnamese stacked accents), decomposed
/// letters, Greek (final sigma), Cyrillic, Armenian, Cherokee, CJK, Hangul, Hebrew, Arabic,
/// Devanagari, Thai, full-width forms and emoji.
public enum MultilingualNames {
    public static let all = [
        "José", "Ångström", "Łukasz", "Dvořák", "NGUYỄN", "Yılmaz", "İstanbul", "Straße", "ẞ", "ﬁlm", "ﬀ", "Øystein",
        "Ærøskøbing", "Zoë", "François", "Müller", "Ñuñez", "Şahin", "Ğüzel", "Čapek", "Ľubomír", "Đorđe", "Ørsted",
        "Þórður", "Ēriks", "Kęstutis", "Agnieszka Wróbel", "Nguyễn Thị Ánh", "Trần Đức", "ΟΔΥΣΣΕΥΣ", "Ὀδυσσεύς",
        "ΐ", "Σωκράτης", "Александр", "Йошкар-Ола", "Ёлка", "Україна", "Ґанок", "Їжак", "Παναγιώτης", "東京",
        "北京市", "서울", "한국어", "やまだ たろう", "カタカナ", "שלום", "محمد", "मोहनदास", "ประเทศไทย", "Ꭰ",
        "Ꭓ", "ꭰ", "Ǆemal", "ǅ", "ǈ", "K", "Å", "Ω", "😀 emoji 👍🏽", "ǰ", "ẖ", "ŉ", "ﬓ", "Σ", "ς", "ΣΑΣ",
        "I\u{307}", "e\u{301}cole", "A\u{30A}ngstro\u{308}m", "Ⅻ", "ⓐⒷ", "Ａｂｃ", "ǲ", "Ǳ", "ǳ", "ꙋ", "Ꙋ",
        "anna", "ANNA", "Änna", "Ånna-Maria", "Jürgen", "zürich", "ZURICH", "Zürich", "strasse", "STRASSE",
    ]
}
