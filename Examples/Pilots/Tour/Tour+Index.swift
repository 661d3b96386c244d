import Hangar
import PilotModels

extension Tour {
    // MARK: 11

    /// Pages through the pilots by airframe hours, most first, two at a time, with the cursor each page gives:
    /// one index range scan a page, and a pilot with several airplanes in the range listed once.
    func pageThroughAnIndex() async throws {
        heading(11, "Page through an index with a cursor")
        var query = IndexQuery(
            collection: Pilot.collection, index: Pilot.airframeHoursIndex.name,
            match: .range(from: .included(3_000), to: nil), order: .descending, limit: 2)
        let count = try await store.read { [query] in try await $0.count(query) }
        print("  Pilots with an airplane of 3,000 airframe hours or more: \(count), most hours first")
        var listed: [String] = []
        var pages = 0
        while true {
            let page = try await store.read { [query] in try await $0.page(query, documents: true) }
            pages += 1
            for document in page.documents {
                let name = try document.envelope()["name"]?.stringValue ?? "?"
                print("  page \(pages): \(pad(document.key, 12)) \(name), revision \(document.revision)")
            }
            listed += page.keys
            guard let next = page.next else { break }
            print("  next: \(next.text.prefix(24))… (opaque: it names the index, the order and the range)")
            query.after = next
        }
        // Keys compared by their bytes.
        let once = Set(listed.map { Array($0.utf8) }).count == listed.count && listed.count == count
        print("  \(listed.count) pilots on \(pages) pages, each listed once: \(once ? "yes" : "no: THIS IS A BUG")")
        let atHome = try await store.read {
            try await $0.page(
                IndexQuery(
                    collection: Pilot.collection, index: Pilot.homeAirfieldNameIndex.name,
                    match: .prefix([.string(tourWatchedAirfield)])))
        }
        print(
            "  Home airfield \(tourWatchedAirfield), by name (index homeAirfieldName): "
                + atHome.keys.joined(separator: ", "))
    }
}

/// The key step 12 saves at ``tourWatchedAirfield`` and deletes again while it watches that airfield's pilots.
let tourWatchedKey = "SE-LIVE-0001"

/// The airfield steps 11 and 12 query: Ada's home since step 5 moved her there.
let tourWatchedAirfield = "ESKN"

extension Tour {
    // MARK: 12

    /// Watches the pilots of ``tourWatchedAirfield`` by name (a live query): the page now, then the page again when a
    /// pilot arrives there and when it leaves, each as of the change that altered it.
    func watchAQuery() async throws {
        heading(12, "Watch a query: the page again when a change alters it")
        let query = IndexQuery(
            collection: Pilot.collection, index: Pilot.homeAirfieldNameIndex.name,
            match: .prefix([.string(tourWatchedAirfield)]),
            limit: 10)
        // The page is read before the writes, each next page after the write that alters it; all in one task
        // that the watchdog cancels, so a live query that misses a change fails the tour instead of hanging it.
        let watcher = Task { [store] in
            var pages = store.observe(query).makeAsyncIterator()
            var seen: [LiveQueryResult] = []
            if let first = try await pages.next() { seen.append(first) }
            // Another airfield's pilot first: a change the query only compares, which gives no page.
            var visitor = Fleet.mei
            visitor.homeAirfield = "ESVA"
            try await store.write { [visitor] in try await $0.save(visitor, key: tourWatchedKey) }
            visitor.homeAirfield = tourWatchedAirfield
            try await store.write { [visitor] in try await $0.save(visitor, key: tourWatchedKey) }
            if let arrived = try await pages.next() { seen.append(arrived) }
            try await store.write { try await $0.delete(key: tourWatchedKey, in: Pilot.collection) }
            if let left = try await pages.next() { seen.append(left) }
            return seen
        }
        let watchdog = Task {
            try await Task.sleep(for: .seconds(10))
            watcher.cancel()
        }
        defer { watchdog.cancel() }
        print("  The tour saves \(tourWatchedKey) at ESVA, moves it to \(tourWatchedAirfield), then deletes it")
        let results = (try? await watcher.value) ?? []
        guard results.count == 3 else {
            throw TourError("the live query did not give its three pages within 10 s")
        }
        for result in results {
            var line =
                "  as of change \(pad("\(result.sequence)", 4)) \(tourWatchedAirfield): \(result.keys.joined(separator: ", "))"
            if let changes = result.changes {
                if !changes.added.isEmpty { line += " (added \(changes.added.joined(separator: ", ")))" }
                if !changes.removed.isEmpty { line += " (removed \(changes.removed.joined(separator: ", ")))" }
            } else {
                line += " (the first page)"
            }
            print(line)
        }
        let sequences = results.map(\.sequence)
        let skipped = sequences[1] == sequences[0] + 2 && sequences[2] == sequences[1] + 1
        print(
            "  The change at ESVA gave no page; each page as of the change that altered it: "
                + (skipped ? "yes" : "no: THIS IS A BUG"))
    }
}
