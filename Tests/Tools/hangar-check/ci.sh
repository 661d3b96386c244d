#!/usr/bin/env bash
# Tests/Tools/hangar-check/ci.sh OUT: hangar-check as CI runs it, from the repository's root after the examples'
# build (.build/debug/pilots-server): one run under faults that must pass, then one run for each planted fault
# (a pilots-server built with the PlantedFaults trait) that must be caught by the check it breaks. The histories,
# verdicts and server logs stay in OUT (CI keeps them).
set -euo pipefail
out=${1:?usage: ci.sh OUT}
rm -rf "$out"
mkdir -p "$out"
# promote: the primary stopped for good and the synchronous standby promoted, midway (the servers get a URL of both).
faults=${HANGAR_CHECK_FAULTS:-kill,pause,restart,promote}

# The checks themselves, on histories made by hand.
python3 -m unittest discover -s Tests/Tools/hangar-check -p 'test_*.py'

# The examples' own pilots-server first: the planted build below replaces .build/debug/pilots-server.
cp .build/debug/pilots-server "$out/pilots-server"
rm -f .build/debug.yaml
swift build --package-path Examples/Pilots --scratch-path .build --traits PlantedFaults --product pilots-server \
    >"$out/planted-build.log" 2>&1 || { cat "$out/planted-build.log"; exit 1; }
cp .build/debug/pilots-server "$out/pilots-server-planted"

check() {
    local name=$1
    shift
    echo "hangar-check: $name"
    Scripts/with-postgres.sh --standbys 2 --delay 500 \
        python3 Tests/Tools/hangar-check/hangar_check.py --out "$out/$name" "$@"
}
# A planted fault is caught when the run's faults meet it (a lost answer after a commit, say): up to three runs.
caught() {
    local name=$1
    shift
    for attempt in 1 2 3; do
        check "$name" "$@" && return 0
        echo "hangar-check: $name not caught in run $attempt"
    done
    return 1
}
status=0
check run --server "$out/pilots-server" --duration "${HANGAR_CHECK_DURATION:-45}" --faults "$faults" || status=1
# Each planted fault, and the check that must find what it breaks.
caught planted-no-revision-check --server "$out/pilots-server-planted" --server-env HANGAR_PLANTED_FAULT=no-revision-check \
    --faults none --duration 20 --expect-caught appends || status=1
caught planted-no-token-wait --server "$out/pilots-server-planted" --server-env HANGAR_PLANTED_FAULT=no-token-wait \
    --faults none --duration 20 --expect-caught sessions || status=1
caught planted-no-idempotency-record --server "$out/pilots-server-planted" \
    --server-env HANGAR_PLANTED_FAULT=no-idempotency-record --faults kill,pause --fault-every 1 --client-timeout 1 --duration 30 \
    --expect-caught appends || status=1
rm -f "$out/pilots-server" "$out/pilots-server-planted"
gzip -f "$out"/*/history.jsonl
exit $status
