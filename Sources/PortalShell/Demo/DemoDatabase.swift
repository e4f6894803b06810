import PortalEngine
import PortalSQLite
#if canImport(Glibc)
import Glibc
#endif

/// The demo database: a fitness tracker with users, shoes, routes and
/// workouts, generated from a fixed seed so every run writes the same data.
public enum DemoDatabase {
    public static let workoutCount = 250_000
    static let userCount = 2_000
    static let routeCount = 600
    static let shoeCount = 3_500
    static let seed: UInt64 = 0x5EED_F17E_55DB

    /// The demo under `$XDG_DATA_HOME/portal-shell/demo.sqlite`, generated when missing.
    public static func defaultLocation() throws -> (path: String, created: Bool) {
        let base: String
        if let xdg = getenv("XDG_DATA_HOME").map({ String(cString: $0) }), xdg.hasPrefix("/") {
            base = xdg
        } else if let home = getenv("HOME").map({ String(cString: $0) }), !home.isEmpty {
            base = home + "/.local/share"
        } else {
            throw ShellError("neither XDG_DATA_HOME nor HOME is set")
        }
        let folder = base + "/portal-shell"
        try makeDirectories(folder)
        let path = folder + "/demo.sqlite"
        if access(path, F_OK) == 0 { return (path, false) }
        // Our own file: a -journal or -wal left beside a deleted demo is stale, and goes.
        try write(to: path, replacing: true)
        return (path, true)
    }

    /// Writes the demo to `path` (through a temporary file, renamed when complete). An existing
    /// `path` is refused unless `replacing`, and never replaced when it is not a regular file.
    public static func write(to path: String, replacing: Bool = false) throws {
        try checkTarget(path, replacing: replacing)
        let temporary = path + ".tmp-\(getpid())"
        unlink(temporary)
        do {
            let connection = try Connection(path: temporary, readOnly: false, create: true)
            try generate(connection)
            connection.close()
        } catch {
            unlink(temporary)
            throw error
        }
        do {
            // SQLite would replay an old file's journal or WAL into the new one: they go first.
            if replacing { try removeCompanions(of: path) }
        } catch {
            unlink(temporary)
            throw error
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw ShellError(reason)
        }
    }

    /// Refuses to overwrite what is at `path`: anything without `replacing` (a usage error), and
    /// with it anything but a regular file (a device, a folder, a symbolic link).
    /// A stale journal or WAL left beside `path` would be replayed into the new file too.
    private static func checkTarget(_ path: String, replacing: Bool) throws {
        let present = ([path] + ShellDatabase.companionSuffixes.map { path + $0 }).filter { name in
            var info = stat()
            return lstat(name, &info) == 0
        }
        guard let first = present.first else { return }
        guard replacing else {
            var error = ShellError("'\(first)' already exists: nothing was written (--force replaces it)")
            error.reason = .usage
            throw error
        }
        for name in present {
            var info = stat()
            if lstat(name, &info) == 0 && (info.st_mode & S_IFMT) != S_IFREG {
                throw ShellError("'\(name)' is not a regular file: --force replaces only a database's files")
            }
        }
    }

    /// Deletes the `-journal`, `-wal` and `-shm` of an old database at `path`.
    private static func removeCompanions(of path: String) throws {
        for suffix in ShellDatabase.companionSuffixes where unlink(path + suffix) != 0 && errno != ENOENT {
            throw ShellError("cannot remove '\(path + suffix)': \(String(cString: strerror(errno)))")
        }
    }

    static func makeDirectories(_ path: String) throws {
        var partial = ""
        for component in path.split(separator: "/") {
            partial += "/" + component
            if mkdir(partial, 0o755) != 0 && errno != EEXIST {
                throw ShellError("cannot create '\(partial)': \(String(cString: strerror(errno)))")
            }
        }
    }

    static let schemaSQL = """
        CREATE TABLE User (
            UserId INTEGER PRIMARY KEY,
            Name TEXT NOT NULL,
            Email TEXT NOT NULL UNIQUE,
            City TEXT,
            Country TEXT NOT NULL,
            BirthDate TEXT,
            JoinedAt TEXT NOT NULL,
            WeightKg REAL
        );
        CREATE TABLE Route (
            RouteId INTEGER PRIMARY KEY,
            Name TEXT NOT NULL,
            City TEXT NOT NULL,
            DistanceKm REAL NOT NULL,
            ElevationM INTEGER,
            Surface TEXT NOT NULL
        );
        CREATE TABLE Shoe (
            ShoeId INTEGER PRIMARY KEY,
            UserId INTEGER NOT NULL REFERENCES User(UserId),
            Brand TEXT NOT NULL,
            Model TEXT NOT NULL,
            BoughtOn TEXT NOT NULL,
            RetiredOn TEXT
        );
        CREATE TABLE Workout (
            WorkoutId INTEGER PRIMARY KEY,
            UserId INTEGER NOT NULL REFERENCES User(UserId),
            RouteId INTEGER REFERENCES Route(RouteId),
            ShoeId INTEGER REFERENCES Shoe(ShoeId),
            Kind TEXT NOT NULL,
            StartedAt TEXT NOT NULL,
            DurationS INTEGER NOT NULL,
            DistanceKm REAL,
            AvgHeartRate INTEGER,
            Calories INTEGER NOT NULL,
            Notes TEXT
        );
        CREATE INDEX WorkoutUser ON Workout(UserId);
        CREATE INDEX WorkoutStartedAt ON Workout(StartedAt);
        CREATE INDEX WorkoutRoute ON Workout(RouteId);
        CREATE INDEX WorkoutShoe ON Workout(ShoeId);
        CREATE INDEX ShoeUser ON Shoe(UserId);
        """

    /// The engine's insert of one row of `table`, its values bound in `columns` order.
    private static func insert(_ table: String, _ columns: String...) -> String {
        Insert(table, columns: columns).rendered(in: SQLiteDialect()).sql
    }

    static func generate(_ connection: Connection) throws {
        try connection.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF")
        try connection.execute(schemaSQL)
        var random = SplitMix64(seed: seed)
        try connection.execute("BEGIN")
        var userShoes: [[Int64]] = Array(repeating: [], count: userCount + 1)
        var userWeights: [Double] = Array(repeating: 70, count: userCount + 1)

        let insertUser = try connection.prepare(insert("User", "UserId", "Name", "Email", "City", "Country", "BirthDate",
                                                       "JoinedAt", "WeightKg"))
        for id in 1...userCount {
            let script = DemoNames.scripts[id % 3 == 0 ? random.index(DemoNames.scripts.count) : 0]
            let given = random.pick(script.given)
            let family = random.pick(script.family)
            let name = script.familyFirst ? family + script.separator + given : given + script.separator + family
            let weight = 50 + random.unit() * 50
            userWeights[id] = weight
            let birth: Value = random.unit() < 0.15 ? .null
                : .text(DemoDate.day(fromDays: -7305 + random.index(20000)))
            try insertUser.bind([
                .integer(Int64(id)), .text(name), .text("user\(id)@example.org"),
                random.unit() < 0.1 ? .null : .text(random.pick(DemoNames.cities)),
                .text(random.pick(script.country)), birth,
                .text(DemoDate.timestamp(seconds: 17_897 * 86_400 + random.index(3 * 365 * 86_400))),
                random.unit() < 0.2 ? .null : .real(rounded(weight, 1)),
            ])
            while try insertUser.step() {}
            insertUser.reset()
        }

        let insertRoute = try connection.prepare(insert("Route", "RouteId", "Name", "City", "DistanceKm", "ElevationM",
                                                        "Surface"))
        var routeDistances: [Double] = [0]
        for id in 1...routeCount {
            let distance = rounded(1 + random.unit() * 41, 2)
            routeDistances.append(distance)
            try insertRoute.bind([
                .integer(Int64(id)),
                .text("\(random.pick(DemoNames.routeWords)) \(random.pick(DemoNames.routeKinds)) \(id)"),
                .text(random.pick(DemoNames.cities)), .real(distance),
                random.unit() < 0.25 ? .null : .integer(Int64(random.index(1200))),
                .text(random.pick(DemoNames.surfaces)),
            ])
            while try insertRoute.step() {}
            insertRoute.reset()
        }

        let insertShoe = try connection.prepare(insert("Shoe", "ShoeId", "UserId", "Brand", "Model", "BoughtOn", "RetiredOn"))
        for id in 1...shoeCount {
            let user = 1 + random.index(userCount)
            userShoes[user].append(Int64(id))
            let brand = random.pick(DemoNames.shoeBrands)
            let bought = random.index(1200)
            try insertShoe.bind([
                .integer(Int64(id)), .integer(Int64(user)), .text(brand.brand), .text(random.pick(brand.models)),
                .text(DemoDate.day(fromDays: 18_600 + bought)),
                random.unit() < 0.6 ? .null : .text(DemoDate.day(fromDays: 18_600 + bought + 100 + random.index(400))),
            ])
            while try insertShoe.step() {}
            insertShoe.reset()
        }

        let insertWorkout = try connection.prepare(insert("Workout", "WorkoutId", "UserId", "RouteId", "ShoeId", "Kind",
                                                          "StartedAt", "DurationS", "DistanceKm", "AvgHeartRate",
                                                          "Calories", "Notes"))
        // Workouts in time order, 2021-01-01 onwards, about 3.5 years.
        let start = 18_628 * 86_400
        let span = 1_300 * 86_400
        for id in 1...workoutCount {
            let user = 1 + random.index(userCount)
            let kind = DemoNames.workoutKinds[random.index(DemoNames.workoutKinds.count)]
            let startedAt = start + span / workoutCount * (id - 1) + random.index(span / workoutCount)
            var duration = 900 + random.index(6300)
            var distance: Value = .null
            var route: Value = .null
            if kind.usesRoute && random.unit() < 0.7 {
                let routeId = 1 + random.index(routeCount)
                route = .integer(Int64(routeId))
                let laps = 1 + random.index(2)
                let km = routeDistances[routeId] * Double(laps)
                distance = .real(rounded(km, 2))
                let speed = kind.speedKmh.lowerBound + random.unit() * (kind.speedKmh.upperBound - kind.speedKmh.lowerBound)
                duration = Int(km / speed * 3600)
            } else if kind.speedKmh.upperBound > 0 {
                let speed = kind.speedKmh.lowerBound + random.unit() * (kind.speedKmh.upperBound - kind.speedKmh.lowerBound)
                distance = .real(rounded(speed * Double(duration) / 3600, 2))
            }
            var shoe: Value = .null
            if kind.usesShoes && !userShoes[user].isEmpty && random.unit() < 0.8 { shoe = .integer(random.pick(userShoes[user])) }
            let heartRate: Value = random.unit() < 0.3 ? .null : .integer(Int64(95 + random.index(90)))
            let calories = Int64(Double(duration) / 3600 * userWeights[user] * (kind.speedKmh.upperBound > 0 ? 8 : 4))
            let note: Value = random.unit() < 0.08 ? .text(random.pick(DemoNames.notes)) : .null
            try insertWorkout.bind([
                .integer(Int64(id)), .integer(Int64(user)), route, shoe, .text(kind.kind),
                .text(DemoDate.timestamp(seconds: startedAt)), .integer(Int64(duration)), distance, heartRate,
                .integer(calories), note,
            ])
            while try insertWorkout.step() {}
            insertWorkout.reset()
        }
        try connection.execute("COMMIT")
        try connection.execute("ANALYZE; PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode = DELETE")
    }

    private static func rounded(_ value: Double, _ digits: Int) -> Double {
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        return (value * scale).rounded() / scale
    }
}

/// The demo's draws from the seeded generator: the same seed gives the same demo everywhere.
extension SplitMix64 {
    /// A number in 0..<count (count > 0).
    mutating func index(_ count: Int) -> Int { Int(next() % UInt64(max(count, 1))) }

    /// A number in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }

    mutating func pick<T>(_ items: [T]) -> T { items[index(items.count)] }
}

/// Dates as text, written by the same code that reads them in predicates (`CAST(…, "NSDate")`).
enum DemoDate {
    /// `YYYY-MM-DD` of a day counted from 1970-01-01.
    static func day(fromDays days: Int) -> String {
        String(timestamp(seconds: days * 86_400).prefix(10))
    }

    /// `YYYY-MM-DD HH:MM:SS` of Unix seconds (the demo's dates are all within years 1–9999).
    static func timestamp(seconds: Int) -> String {
        DateSemantics.text(Double(seconds)) ?? ""
    }
}
