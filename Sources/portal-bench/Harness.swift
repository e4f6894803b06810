import Foundation

/// One benchmark figure: our time against a baseline doing the same work, measured in the same run.
struct Figure {
    let name: String
    let oursMilliseconds: Double
    let baselineMilliseconds: Double
    /// Extra facts to print beside the ratio (peak memory, absolute medians, goals).
    var notes: [String: String] = [:]

    var ratio: Double { baselineMilliseconds > 0 ? oursMilliseconds / baselineMilliseconds : .infinity }
}

/// Times `body` `runs` times (after one warm-up run) and returns the median in milliseconds.
func medianMilliseconds(runs: Int = 5, warmUp: Bool = true, _ body: () throws -> Void) rethrows -> Double {
    if warmUp { try body() }
    var samples: [Double] = []
    for _ in 0..<max(runs, 1) {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000)
    }
    return median(samples)
}

/// Times `baseline` and `ours` alternately, `runs` times each after a warm-up round of both, and
/// returns both medians: both see the same machine load, so the machine's drift between two
/// separate series of runs does not move the ratio. `prepare` runs untimed before each run of
/// `ours` (to put a session back where the timed step starts), `setUp` before each run of
/// either (to empty a table). With `cpu`, the clock is the calling thread's CPU time, which other
/// processes on a shared machine cannot inflate (for single-threaded work); else wall time.
/// `--runs N`: every paired figure times N runs of each side (after the warm-up) instead of its
/// own number: `--runs 1` under callgrind counts each side's instructions in reasonable time.
let runsAsked: Int? = CommandLine.arguments.firstIndex(of: "--runs")
    .flatMap { $0 + 1 < CommandLine.arguments.count ? Int(CommandLine.arguments[$0 + 1]) : nil }

func pairedMedians(runs: Int = 7, cpu: Bool = false, setUp: () throws -> Void = {}, prepare: () throws -> Void = {},
                   ours: () throws -> Void, baseline: () throws -> Void) throws -> (ours: Double, baseline: Double) {
    func timed(_ body: () throws -> Void) throws -> Double {
        try setUp()
        let start = now(cpu: cpu)
        try body()
        return Double(now(cpu: cpu) - start) / 1_000_000
    }
    var oursSamples: [Double] = []
    var baselineSamples: [Double] = []
    for run in 0...max(runsAsked ?? runs, 1) {
        let b = try timed(baseline)
        try prepare()
        let o = try timed(ours)
        if run > 0 {
            baselineSamples.append(b)
            oursSamples.append(o)
        }
    }
    return (median(oursSamples), median(baselineSamples))
}

/// Nanoseconds of the calling thread's CPU time (`cpu`), or of the monotonic clock.
private func now(cpu: Bool) -> UInt64 {
    guard cpu else { return DispatchTime.now().uptimeNanoseconds }
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

func median(_ samples: [Double]) -> Double {
    let sorted = samples.sorted()
    guard !sorted.isEmpty else { return 0 }
    let mid = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/// Prints figures as text lines, or as JSON lines with `--json`.
struct Reporter {
    let json: Bool

    func report(_ figure: Figure) {
        if json {
            var object: [String: Any] = [
                "name": figure.name,
                "ours_ms": rounded(figure.oursMilliseconds),
                "baseline_ms": rounded(figure.baselineMilliseconds),
                "ratio": rounded(figure.ratio),
            ]
            for (key, value) in figure.notes { object[key] = value }
            if let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]),
               let line = String(data: data, encoding: .utf8) {
                print(line)
            }
        } else {
            let notes = figure.notes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            print(String(format: "%-28@ ours %10.2f ms  baseline %10.2f ms  ratio %6.3f  %@",
                         figure.name as NSString, figure.oursMilliseconds, figure.baselineMilliseconds,
                         figure.ratio, notes as NSString))
        }
        fflush(nil)
    }

    private func rounded(_ x: Double) -> Double { (x * 1000).rounded() / 1000 }
}

/// A scratch folder for benchmark databases, under .build/ so it is never committed.
func benchDirectory() -> URL {
    let url = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        .appendingPathComponent(".build/bench-data", isDirectory: true)
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
