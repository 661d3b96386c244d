#!/usr/bin/env bash
# Builds a libFuzzer target and runs it.
#   Scripts/fuzz.sh TARGET [SECONDS] [extra libFuzzer flags]     TARGET: binary | xml | openstep | json | pilots
#   Scripts/fuzz.sh --build-only [TARGET...]                        compiles (every target by default), runs nothing
#
# A target is Fuzz/TARGET.swift, compiled with Fuzz/RoundTrip.swift. It names the modules it needs, in dependency
# order, one line each (folders are searched for *.swift; a word !FILE leaves that file out); without such lines it
# gets PropertyList alone:
#   // fuzz-module: PropertyList Sources/PropertyList
#   // fuzz-module: Hangar Sources/Hangar/Model Sources/Hangar/Registry
# and may name extra seed folders the same way:   // fuzz-seeds: Migrations/Pilots
# Every module is built with -sanitize=fuzzer,address. A failed compile fails the script (no stale fuzzer runs).
#
# Seeds come from Tests/Corpus{,/invalid,/wild/files,/libplist}, Tests/PropertyListTests/Fixtures/{valid,invalid}, Fuzz/seeds/TARGET and the
# target's fuzz-seeds folders; the working corpus and any crash files go under .build-fuzz/TARGET/. Exit status 1
# when a crash, leak, timeout or OOM file exists in .build-fuzz/TARGET/artifacts: turn it into a named fixture and
# a test, fix it, then delete it.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ ${1:-} == --build-only ]]; then
    shift
    (( $# > 0 )) || set -- $(cd Fuzz && ls ./*.swift | sed 's|^./||; s|\.swift$||' | grep -v '^RoundTrip$')
    for name in "$@"; do
        FUZZ_BUILD_ONLY=1 "$0" "$name"
        echo "fuzz.sh: built $name"
    done
    exit 0
fi
target=${1:?usage: Scripts/fuzz.sh binary|xml|openstep|json|pilots [seconds] [libFuzzer flags]}
seconds=${2:-60}
shift $(( $# >= 2 ? 2 : 1 ))
[[ -f "Fuzz/$target.swift" ]] || { echo "no fuzz target Fuzz/$target.swift" >&2; exit 2; }

out=.build-fuzz/$target
mkdir -p "$out/corpus" "$out/artifacts" "$out/modules"
rm -f "$out/fuzzer"

# swiftc, with the linker's harmless "Cannot export local symbol" notes dropped; its own status decides.
compile() {
    local log status=0
    log=$(swiftc "$@" 2>&1) || status=$?
    [[ -z $log ]] || grep -v "Cannot export local symbol" <<<"$log" >&2 || true
    if (( status != 0 )); then echo "fuzz.sh: compiling $target failed" >&2; exit 1; fi
}

# One -package-name for every module and the target, as SwiftPM gives the package's targets, so `package` names
# (such as PropertyList's firstSubsecondDatePath) are visible across them.
flags=(-O -sanitize=fuzzer,address -parse-as-library -swift-version 6 -package-name Hangar
    -enable-upcoming-feature InternalImportsByDefault -enable-upcoming-feature ExistentialAny -I "$out/modules")
mapfile -t modules < <(sed -n 's|^// fuzz-module: *||p' "Fuzz/$target.swift")
(( ${#modules[@]} > 0 )) || modules=("PropertyList Sources/PropertyList")
objects=()
for line in "${modules[@]}"; do
    read -r -a words <<<"$line"
    name=${words[0]}
    # The folders' (and files') sources, but a word `!FILE` leaves that file out.
    paths=()
    excluded=()
    for word in "${words[@]:1}"; do
        if [[ $word == '!'* ]]; then excluded+=("${word#!}"); else paths+=("$word"); fi
    done
    mapfile -t sources < <(find "${paths[@]}" -name '*.swift' | sort | grep -vxF -f <(printf '%s\n' "${excluded[@]}"))
    compile "${flags[@]}" -module-name "$name" -wmo -emit-module -emit-module-path "$out/modules/$name.swiftmodule" \
        -c "${sources[@]}" -o "$out/modules/$name.o"
    objects+=("$out/modules/$name.o")
done
compile "${flags[@]}" -module-name "Fuzz$target" Fuzz/RoundTrip.swift "Fuzz/$target.swift" "${objects[@]}" \
    -o "$out/fuzzer"

[[ -z ${FUZZ_BUILD_ONLY:-} ]] || exit 0

seeds=("$out/corpus")
mapfile -t extra_seeds < <(sed -n 's|^// fuzz-seeds: *||p' "Fuzz/$target.swift")
for dir in Tests/Corpus Tests/Corpus/invalid Tests/Corpus/wild/files Tests/Corpus/libplist Tests/PropertyListTests/Fixtures/valid \
    Tests/PropertyListTests/Fixtures/invalid "Fuzz/seeds/$target" "${extra_seeds[@]}"; do
    [[ -d $dir ]] && seeds+=("$dir")
done
set +e
"$out/fuzzer" -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
    -print_final_stats=1 -artifact_prefix="$out/artifacts/" "$@" "${seeds[@]}" >"$out/last-run.log" 2>&1
status=$?
set -e
grep -E "^#[0-9]+.*(INITED|DONE)|ERROR|SUMMARY|^Done|stat::number_of_executed_units|stat::peak_rss" "$out/last-run.log" || true
echo "fuzzer exit status $status (log: $out/last-run.log)"
if compgen -G "$out/artifacts/crash-*" >/dev/null || compgen -G "$out/artifacts/leak-*" >/dev/null \
    || compgen -G "$out/artifacts/timeout-*" >/dev/null || compgen -G "$out/artifacts/oom-*" >/dev/null; then
    echo "FINDINGS in $out/artifacts:"; ls -l "$out/artifacts"; exit 1
fi
exit "$status"
