#!/usr/bin/env bash
# Longer runs of the reliability tests than `swift test` does.
#
#   Scripts/durability.sh [KILLS] [WRITES]
#
# KILLS: SIGKILLs of the saving child (default 500; the export and two-process tests scale with it).
# WRITES: writes per writer in the concurrency stress test (default 1000, i.e. 4,000 writes per case).
# HANGAR_DURABILITY_SEED=N replays the kill moments of an earlier run (each run prints its seed).
# Add --sanitize=thread by setting TSAN=1 (built in .build-tsan, so the normal build is untouched).
set -euo pipefail
cd "$(dirname "$0")/.."
kills="${1:-500}"
writes="${2:-1000}"
extra=()
if [[ "${TSAN:-0}" == 1 ]]; then extra=(--sanitize=thread --scratch-path .build-tsan); fi
export HANGAR_DURABILITY_KILLS="$kills" HANGAR_STRESS_WRITES="$writes"
swift build --build-tests "${extra[@]}"
swift test --skip-build "${extra[@]}" \
    --filter 'SQLiteKillDurabilityTests|SQLiteStoreConcurrencyTests|SQLiteStoreConcurrentOpenTests|AtomicFileTests' 2>&1 \
    | grep -E 'Tests: |✘|error|passed after|failed after'
