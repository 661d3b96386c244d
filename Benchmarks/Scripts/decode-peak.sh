#!/usr/bin/env bash
# The `memory` rows' measurement (peak RSS of one binary decode in a child process, minus the same child decoding
# tiny.bplist instead) for Hangar alone, without building the benchmark package: PropertyList's sources and a small
# main are compiled as one module (-O). For a quick check of a decoder change; hangar-bench --filter memory is the
# reference (it also runs libplist and Foundation).
#   Benchmarks/Scripts/decode-peak.sh DATASET-DIR [NAME...]     DATASET-DIR from Scripts/make-datasets.py
set -euo pipefail
cd "$(dirname "$0")/../.."
data=${1:?usage: decode-peak.sh DATASET-DIR [NAME...]}
shift
(( $# > 0 )) || set -- pilots wide strings deep
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/main.swift" <<'SWIFT'
import Glibc

func readWhole(_ path: String) -> [UInt8]? {
    guard let file = fopen(path, "rb") else { return nil }
    defer { fclose(file) }
    fseek(file, 0, SEEK_END)
    let size = ftell(file)
    fseek(file, 0, SEEK_SET)
    var bytes = [UInt8](repeating: 0, count: size)
    let read = bytes.withUnsafeMutableBytes { fread($0.baseAddress, 1, size, file) }
    return read == size ? bytes : nil
}

func peakKilobytes() -> Int? {
    guard let file = fopen("/proc/self/status", "r") else { return nil }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, 256, file) != nil {
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if text.hasPrefix("VmHWM:") { return Int(String(text.filter { $0.isNumber })) }
    }
    return nil
}

// main FILE [DECODE-INSTEAD]: reads FILE, decodes it (or DECODE-INSTEAD), prints VmHWM in kB.
let arguments = CommandLine.arguments
guard arguments.count >= 2, let bytes = readWhole(arguments[1]) else { exit(2) }
let decoded = arguments.count > 2 ? readWhole(arguments[2]) ?? [] : bytes
do {
    let value = try PropertyList(binary: decoded)
    print(peakKilobytes() ?? -1, value.kindName, bytes.count)
} catch {
    print("decode failed: \(error)")
    exit(1)
}
SWIFT
swiftc -O -swift-version 6 -package-name Hangar -module-name DecodePeak \
    -enable-upcoming-feature InternalImportsByDefault -enable-upcoming-feature ExistentialAny \
    $(find Sources/PropertyList -name '*.swift') "$work/main.swift" -o "$work/decode-peak" 2>&1 \
    | grep -E "error" || true
printf '%-8s %10s %12s %12s %14s %8s\n' dataset bplist "peak MB" "baseline MB" "decode peak MB" "x file"
for name in "$@"; do
    file=$data/$name.bplist
    peak=$("$work/decode-peak" "$file" | cut -d' ' -f1)
    base=$("$work/decode-peak" "$file" "$data/tiny.bplist" | cut -d' ' -f1)
    size=$(stat -c %s "$file")
    awk -v n="$name" -v p="$peak" -v b="$base" -v s="$size" 'BEGIN {
        d = (p - b) * 1024; printf "%-8s %7.1f MB %12.1f %12.1f %14.1f %7.2fx\n", n, s / 1e6, p / 1024, b / 1024, d / 1e6, d / s }'
done
