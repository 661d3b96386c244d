/// How far a store's state reaches: what a write returns and what a read is as of, so a later read can ask for a
/// state at least that new (read your writes, monotonic reads) on whichever server answers it.
///
/// On PostgreSQL it is the position in the write-ahead log (WAL) the commit reached, with the change feed's
/// sequence; on SQLite, one file with one writer, the change feed's sequence alone. Its text, ``description``, is
/// what the HTTP layer sends as `Hangar-Token`: `42` on SQLite, `42@0/16B3748` on PostgreSQL (sequence `@` WAL
/// position as PostgreSQL writes it).
///
/// ```swift
/// let saved = try await store.writeReturningToken { try await $0.save(amelia, key: "amelia") }
/// let read = try await store.read(after: saved.token) { try await $0.load(Pilot.self, key: "amelia") }
/// ```
public struct CommitToken: Sendable, Hashable, CustomStringConvertible, LosslessStringConvertible {
    /// The change feed's sequence the state includes (its last change numbered; 0 for none).
    public let changeSequence: Int
    /// The write-ahead log position the state includes (PostgreSQL), `nil` on an engine without one.
    public let walPosition: UInt64?

    /// A token of `changeSequence` and, on PostgreSQL, `walPosition`.
    public init(changeSequence: Int, walPosition: UInt64? = nil) {
        self.changeSequence = max(0, changeSequence)
        self.walPosition = walPosition
    }

    /// Reads a token's text (``description``); `nil` for text that is not one.
    public init?(_ description: String) {
        let parts = description.split(separator: "@", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let sequence = Self.decimal(parts[0]) else { return nil }
        var position: UInt64?
        if parts.count == 2 {
            guard let wal = Self.walPosition(String(parts[1])) else { return nil }
            position = wal
        }
        self.init(changeSequence: sequence, walPosition: position)
    }

    /// `SEQUENCE` or `SEQUENCE@HIGH/LOW` (the WAL position in PostgreSQL's hexadecimal form).
    public var description: String {
        guard let walPosition else { return String(changeSequence) }
        return "\(changeSequence)@\(Self.walText(walPosition))"
    }

    /// Whether a state as of this token includes everything `other` includes: by WAL position when both have
    /// one (the sequence is numbered after commit there, so the position is the finer measure), else by sequence.
    public func covers(_ other: CommitToken) -> Bool {
        if let mine = walPosition, let theirs = other.walPosition { return mine >= theirs }
        return changeSequence >= other.changeSequence
    }

    /// The newer of two tokens (`self` when neither covers more): what a client keeps of the tokens it saw.
    public func newest(_ other: CommitToken?) -> CommitToken {
        guard let other else { return self }
        return other.covers(self) && !covers(other) ? other : self
    }

    /// PostgreSQL's `pg_lsn` text (`16/B374D848`) as a number; `nil` when it is not one.
    public static func walPosition(_ text: String) -> UInt64? {
        let halves = text.split(separator: "/", omittingEmptySubsequences: false)
        guard halves.count == 2, (1...8).contains(halves[0].count), (1...8).contains(halves[1].count),
            let high = UInt64(halves[0], radix: 16), let low = UInt64(halves[1], radix: 16)
        else { return nil }
        return high << 32 | low
    }

    /// A WAL position in PostgreSQL's `pg_lsn` text.
    public static func walText(_ position: UInt64) -> String {
        String(position >> 32, radix: 16, uppercase: true) + "/"
            + String(position & 0xFFFF_FFFF, radix: 16, uppercase: true)
    }

    private static func decimal(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 19, text.utf8.allSatisfy({ (48...57).contains($0) }) else {
            return nil
        }
        return Int(text)
    }
}

/// A value read or written, with the token of the state it belongs to (``CommitToken``).
public struct Tokened<Value> {
    /// What the read or write returned.
    public var value: Value
    /// The state it is as of: for a write, its commit; for a read, at least what it saw.
    public var token: CommitToken

    /// Pairs `value` with `token`.
    public init(_ value: Value, token: CommitToken) {
        self.value = value
        self.token = token
    }
}

extension Tokened: Sendable where Value: Sendable {}
