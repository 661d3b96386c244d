#!/usr/bin/env bash
# Profiles a server under hangar-load's conditional updates (GET + PUT If-Match, 16 connections) with perf:
#   Benchmarks/Scripts/profile-server.sh OUT SERVER-BIN LOAD-BIN BODIES [--db PATH | --url URL --schema S]
# SERVER-BIN prints `listening on http://HOST:PORT` (pilots-server or pilots-baseline-server, release builds);
# BODIES is hangar-load's bodies file (4-byte big-endian length, then a Pilot 2.0 binary plist, per body). Writes
# OUT.perf, OUT.load (hangar-load's report) and OUT.children (perf report, callers included). Samples on cpu-clock:
# hardware counters are not available on every machine.
set -u
out=$1; server=$2; load=$3; bodies=$4; shift 4
"$server" "$@" --port 0 --log-level warning > "$out.stdout" 2> "$out.stderr" &
pid=$!
for _ in $(seq 1 100); do grep -q "listening on" "$out.stdout" && break; sleep 0.2; done
url=$(grep -o "http://[0-9.:]*" "$out.stdout" | head -1)
"$load" --url "$url" --bodies "$bodies" --workload seed --connections 16 > "$out.seed" 2>&1
"$load" --url "$url" --bodies "$bodies" --workload update --connections 16 --warm-up 2 --duration 14 \
    > "$out.load" 2>&1 &
loader=$!
sleep 3
perf record -e cpu-clock -F 499 -g -p "$pid" -o "$out.perf" -- sleep 10 > /dev/null 2>&1
wait "$loader"
kill "$pid"
wait "$pid"
perf report -i "$out.perf" --children --sort symbol --stdio -g none 2>/dev/null | grep -E "^ +[0-9]" > "$out.children"
tail -1 "$out.load"
