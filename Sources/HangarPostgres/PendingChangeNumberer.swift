import Hangar

/// Numbers the changes this store's single writes (``PostgresStore/save(envelope:key:in:expectedRevision:)``)
/// left pending, one numbering for every write waiting: a write whose statement found the numbering lock taken
/// waits here instead of running `number_changes` itself, so sixteen such writes cost one numbering, not sixteen
/// round trips. A write still returns only once its change is numbered (or the numbering failed, which is logged:
/// the next numbering by any writer or follower takes the change then, as after a lost connection).
actor PendingChangeNumberer {
    private let engine: PostgresEngine
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private var numbering = false

    init(engine: PostgresEngine) {
        self.engine = engine
    }

    /// Returns once a numbering that started after this call has ended: every change committed before the call
    /// is numbered then.
    func awaitNumbering() async {
        await withCheckedContinuation { continuation in
            waiting.append(continuation)
            guard !numbering else { return }
            numbering = true
            Task { await self.numberWhileWaited() }
        }
    }

    /// Numbers, and wakes the writes that waited before the numbering began, until no write waits.
    private func numberWhileWaited() async {
        while !waiting.isEmpty {
            let served = waiting
            waiting = []
            _ = await engine.numberPendingChanges()
            for continuation in served { continuation.resume() }
        }
        numbering = false
    }
}
