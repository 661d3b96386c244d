#if HANGAR_PLANTED_FAULTS
    import Foundation

    /// The faults hangar-check plants to show that it finds what each one breaks. They exist only in a build with the
    /// package trait `PlantedFaults` (`swift build --traits PlantedFaults` in Examples/Pilots), never in a build an
    /// app makes; in such a build, the one `HANGAR_PLANTED_FAULT` names is on.
    package enum PlantedFault: String, Sendable {
        /// A read with a token does not wait for the replica to replay it: stale reads.
        case noTokenWait = "no-token-wait"
        /// A write does not check the revision it expects: lost updates.
        case noRevisionCheck = "no-revision-check"
        /// An idempotency key's remembered answer is never found: a retried write applied twice.
        case noIdempotencyRecord = "no-idempotency-record"

        /// Whether `fault` is planted in this process.
        package static func isPlanted(_ fault: PlantedFault) -> Bool { planted == fault }

        private static let planted = ProcessInfo.processInfo.environment["HANGAR_PLANTED_FAULT"].flatMap {
            PlantedFault(rawValue: $0)
        }
    }
#endif
