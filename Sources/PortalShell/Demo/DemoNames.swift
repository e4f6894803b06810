/// Names for the demo database, in several scripts and with diacritics. Kept in the binary so
/// the program does not depend on where it is installed.
enum DemoNames {
    /// Given names and family names of one script; `familyFirst` for the scripts that write the
    /// family name first.
    struct Script {
        var given: [String]
        var family: [String]
        var familyFirst: Bool
        var separator: String
        var country: [String]
    }

    static let scripts: [Script] = [
        Script(given: ["José", "Zoë", "Søren", "Łukasz", "François", "Ångström", "Chloé", "Jürgen", "Inês", "Mikaël",
                       "Oğuz", "Renée", "Bjørn", "Anaïs", "Dvořák", "Ólafur", "Siobhán", "Tomáš", "Émile", "Núria",
                       "Anna", "Peter", "Maria", "John", "Laura", "David", "Emma", "Lucas", "Sofia", "Noah"],
               family: ["García", "Müller", "Nowak", "Łęcki", "Øster", "Lefèvre", "Çelik", "Şahin", "Sørensen", "Kovač",
                        "Novák", "Håkansson", "Ó Briain", "Dubois", "Schröder", "Pérez", "Jönsson", "Smith", "Rossi", "Brown"],
               familyFirst: false, separator: " ",
               country: ["Spain", "Germany", "Poland", "France", "Denmark", "Turkey", "Czechia", "Iceland", "Ireland", "Sweden"]),
        Script(given: ["Νίκος", "Ελένη", "Γιώργος", "Μαρία", "Δημήτρης", "Σοφία"],
               family: ["Παπαδόπουλος", "Κωνσταντίνου", "Νικολάου", "Γεωργίου"], familyFirst: false, separator: " ",
               country: ["Greece", "Cyprus"]),
        Script(given: ["Анна", "Дмитрий", "Ольга", "Сергей", "Наталья", "Иван", "Олена", "Тарас"],
               family: ["Иванов", "Смирнова", "Кузнецов", "Попова", "Шевченко", "Коваленко"], familyFirst: false, separator: " ",
               country: ["Ukraine", "Bulgaria", "Serbia", "Kazakhstan"]),
        Script(given: ["さくら", "健太", "陽菜", "蓮", "美咲", "翔"],
               family: ["佐藤", "鈴木", "高橋", "田中", "渡辺", "伊藤"], familyFirst: true, separator: "",
               country: ["Japan"]),
        Script(given: ["芳", "伟", "娜", "强", "静", "磊"],
               family: ["王", "李", "张", "刘", "陈", "杨"], familyFirst: true, separator: "",
               country: ["China", "Taiwan", "Singapore"]),
        Script(given: ["민준", "서연", "지호", "하은"],
               family: ["김", "이", "박", "최"], familyFirst: true, separator: "",
               country: ["South Korea"]),
        Script(given: ["محمد", "فاطمة", "أحمد", "ليلى", "يوسف"],
               family: ["العلي", "حسن", "الخطيب", "منصور"], familyFirst: false, separator: " ",
               country: ["Egypt", "Morocco", "Jordan"]),
        Script(given: ["נועה", "איתי", "תמר", "יונתן"],
               family: ["כהן", "לוי", "מזרחי"], familyFirst: false, separator: " ",
               country: ["Israel"]),
        Script(given: ["प्रिया", "अर्जुन", "अनन्या", "राहुल"],
               family: ["शर्मा", "पटेल", "सिंह", "गुप्ता"], familyFirst: false, separator: " ",
               country: ["India", "Nepal"]),
        Script(given: ["สมชาย", "มาลี", "อนันต์"],
               family: ["ศรีสุข", "วงศ์ใหญ่"], familyFirst: false, separator: " ",
               country: ["Thailand"]),
    ]

    static let cities = [
        "Zürich", "São Paulo", "Kraków", "Reykjavík", "Montréal", "Tōkyō", "東京", "서울", "Αθήνα", "Київ",
        "القاهرة", "Berlin", "Lisboa", "Malmö", "Göteborg", "Brno", "İstanbul", "Córdoba", "Nice", "Oslo",
    ]

    static let routeWords = [
        "Riverside", "Hill", "Lakeshore", "Old Town", "Forest", "Harbour", "Park", "Ridge", "Canal", "Bridge",
        "Sunrise", "Vineyard", "Cathedral", "Castle", "Meadow", "Coast",
    ]
    static let routeKinds = ["Loop", "Out & Back", "Trail", "Sprint", "Circuit", "Climb"]
    static let surfaces = ["road", "trail", "track", "gravel", "mixed"]

    static let shoeBrands: [(brand: String, models: [String])] = [
        ("ASICS", ["Gel-Kayano 29", "Gel-Nimbus 25", "Novablast 3"]),
        ("Brooks", ["Ghost 15", "Glycerin 20", "Adrenaline GTS 22"]),
        ("Hoka", ["Clifton 9", "Speedgoat 5", "Bondi 8"]),
        ("Nike", ["Pegasus 40", "Vaporfly 3", "Invincible 3"]),
        ("Saucony", ["Endorphin Speed 3", "Kinvara 14", "Peregrine 13"]),
        ("On", ["Cloudmonster", "Cloudsurfer", "Cloudultra 2"]),
        ("Salomon", ["Speedcross 6", "S/Lab Pulsar", "Sense Ride 5"]),
    ]

    static let workoutKinds: [(kind: String, speedKmh: ClosedRange<Double>, usesShoes: Bool, usesRoute: Bool)] = [
        ("run", 8...15, true, true), ("walk", 4...6.5, true, true), ("ride", 18...35, false, true),
        ("swim", 2...4, false, false), ("hike", 3...6, true, true), ("yoga", 0...0, false, false),
        ("strength", 0...0, false, false), ("row", 6...12, false, false),
    ]

    static let notes = [
        "Felt great 💪", "Rain the whole way ☔", "New personal best!", "Legs heavy after yesterday",
        "Windy on the bridge", "Easy recovery pace", "Intervals 6×800 m", "Too hot 🥵", "Morning fog",
        "With the club", "Knee a bit sore", "Café stop halfway ☕", "Ran with Zoë", "夜のジョギング",
        "Пробежка вдоль реки", "Tempo 3 × 2 km", "Hills, hills, hills", "\"Long\" run, 'slow' pace",
    ]
}
