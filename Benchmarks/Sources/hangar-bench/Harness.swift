import CAllocationCounter

/// Keeps `value` alive and opaque to the optimizer, so a benchmarked result is neither elided nor freed early.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

/// The timings of one contender on one operation and dataset.
struct Sample {
    var durations: [Duration] = []
    /// The fewest allocations seen in one run (they only vary by lazily built caches), or nil when not counted.
    var allocations: UInt64?

    var median: Duration {
        let sorted = durations.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    var minimum: Duration { durations.min() ?? .zero }
}

/// Something that does one operation on one dataset: ours or a peer's.
struct Contender {
    var name: String
    var isOurs: Bool
    /// Runs the whole operation once and returns its result, which the harness keeps alive until the clock stopped.
    var run: () throws -> Any
    /// Runs before every `run`, outside the clock and the allocation count (a fresh store file for a save row).
    var prepare: (() throws -> Void)?
    /// A short name for summary tables (the full name when nil).
    var label: String?
    /// For a peer that cannot run in this process (plistlib): it times `warmUp + iterations` runs itself, elsewhere,
    /// and returns the measured durations. The harness calls it once, after the in-process rounds, instead of `run`.
    var selfTimed: ((_ warmUp: Int, _ iterations: Int) throws -> [Duration])?

    var shortName: String { label ?? name }
}

/// What happened to one contender: its timings, or why it has none.
enum Outcome {
    case measured(Sample)
    case notAvailable(String)
}

enum Harness {
    static let countsAllocations = hangar_allocation_counting_available() != 0

    /// Runs each contender once for every warm-up round and every measured round, taking turns within a round,
    /// so that load from other processes on a shared machine falls on every contender alike.
    static func measure(_ contenders: [Contender], warmUp: Int, iterations: Int) -> [Outcome] {
        var outcomes: [Outcome] = contenders.map { _ in .measured(Sample()) }
        let clock = ContinuousClock()
        for round in 0..<(warmUp + iterations) {
            for (index, contender) in contenders.enumerated() where contender.selfTimed == nil {
                guard case .measured(var sample) = outcomes[index] else { continue }
                do {
                    try contender.prepare?()
                    let (duration, allocations) = try runOnce(contender, clock: clock)
                    // Off the clock, with this run's result freed: glibc keeps a freed small block in a fast bin
                    // until a later large request consolidates them all, so without this the next contender
                    // (whichever it is) pays for this one's garbage (~120 ms after libplist's 5 million nodes of
                    // pilots.bplist, more than Hangar's whole decode). Every run starts from a trimmed heap.
                    hangar_release_free_memory()
                    if round >= warmUp {
                        sample.durations.append(duration)
                        if countsAllocations {
                            sample.allocations = min(sample.allocations ?? .max, allocations)
                        }
                    }
                    outcomes[index] = .measured(sample)
                } catch {
                    outcomes[index] = .notAvailable("\(error)")
                }
            }
        }
        for (index, contender) in contenders.enumerated() {
            guard let selfTimed = contender.selfTimed else { continue }
            do {
                outcomes[index] = .measured(Sample(durations: try selfTimed(warmUp, iterations)))
            } catch {
                outcomes[index] = .notAvailable("\(error)")
            }
        }
        return outcomes
    }

    /// One timed run: only what happens in here is on the clock (and in a profile toggled on `runOnce`).
    @inline(never)
    static func runOnce(_ contender: Contender, clock: ContinuousClock) throws -> (Duration, UInt64) {
        let allocationsBefore = hangar_allocation_count()
        let start = clock.now
        let result = try contender.run()
        let end = clock.now
        let allocationsAfter = hangar_allocation_count()
        blackHole(result)
        return (end - start, allocationsAfter - allocationsBefore)
    }
}

extension Duration {
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) * 1e-18
    }

    var milliseconds: Double { seconds * 1e3 }
}

// MARK: - Formatting without Foundation's String(format:)

func fixed(_ value: Double, _ digits: Int) -> String {
    guard value.isFinite else { return "-" }
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let rounded = (abs(value) * scale).rounded()
    let whole = Int(rounded / scale)
    var text = (value < 0 && rounded != 0 ? "-" : "") + String(whole)
    if digits > 0 {
        let fraction = Int(rounded - Double(whole) * scale)
        let fractionText = String(fraction)
        text += "." + String(repeating: "0", count: digits - fractionText.count) + fractionText
    }
    return text
}

func megabytes(_ bytes: Int) -> String {
    if bytes < 1_000 { return "\(bytes) B" }
    return bytes >= 1_000_000 ? fixed(Double(bytes) / 1e6, 1) + " MB" : fixed(Double(bytes) / 1e3, 0) + " KB"
}

func groupedCount(_ value: UInt64) -> String {
    let digits = Array(String(value))
    var text = ""
    for (index, digit) in digits.enumerated() {
        if index > 0 && (digits.count - index) % 3 == 0 { text.append(",") }
        text.append(digit)
    }
    return text
}

/// A plain-text table with left-aligned first columns and right-aligned numbers.
struct Table {
    var header: [String]
    var leftAligned: Int
    var rows: [[String]] = []

    func render() -> String {
        var widths = header.map(\.count)
        for row in rows {
            for (column, cell) in row.enumerated() { widths[column] = max(widths[column], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                return column < leftAligned ? cell + padding : padding + cell
            }.joined(separator: "  ")
        }
        var lines = [line(header)]
        lines.append(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  "))
        lines += rows.map(line)
        return lines.joined(separator: "\n")
    }
}
