#!/usr/bin/env bash
# Builds a libFuzzer target over the PropertyList sources and runs it.
#   Scripts/fuzz.sh TARGET [SECONDS] [extra libFuzzer flags]     TARGET: binary | xml | openstep | json
# Seeds come from ../shared/corpus and Tests/PropertyListTests/Fixtures; the working corpus and any crash
# files go under .build-fuzz/TARGET/. A crash becomes a named file under Tests/PropertyListTests/Fixtures/invalid/
# plus a test, by hand.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: Scripts/fuzz.sh binary|xml|openstep|json [seconds]}
seconds=${2:-60}
shift $(( $# >= 2 ? 2 : 1 ))
[[ -f "Fuzz/$target.swift" ]] || { echo "no fuzz target Fuzz/$target.swift" >&2; exit 2; }

out=.build-fuzz/$target
mkdir -p "$out/corpus" "$out/artifacts"
mapfile -t sources < <(find Sources/PropertyList -name '*.swift' | sort)
swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name Fuzz"$target" \
    "${sources[@]}" Fuzz/RoundTrip.swift "Fuzz/$target.swift" -o "$out/fuzzer" 2>&1 | grep -v "Cannot export local symbol" || true

seeds=("$out/corpus")
for dir in ../shared/corpus ../shared/corpus/invalid Tests/PropertyListTests/Fixtures/valid Tests/PropertyListTests/Fixtures/invalid; do
    [[ -d $dir ]] && seeds+=("$dir")
done
"$out/fuzzer" -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
    -artifact_prefix="$out/artifacts/" "$@" "${seeds[@]}" 2>&1 | tee "$out/last-run.log" | grep -E "^#[0-9]+.*(DONE|pulse)|ERROR|SUMMARY|Done" || true
grep -E "stat::number_of_executed_units|Done [0-9]+ runs" "$out/last-run.log" | tail -2 || true
if ls "$out"/artifacts/crash-* "$out"/artifacts/leak-* "$out"/artifacts/timeout-* "$out"/artifacts/oom-* >/dev/null 2>&1; then
    echo "FINDINGS in $out/artifacts:"; ls -l "$out/artifacts"; exit 1
fi
