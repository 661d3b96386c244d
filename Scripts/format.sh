#!/usr/bin/env bash
# Formats the sources with the toolchain's swift-format, then lints strictly (force unwraps, force tries,
# documentation comments). `Scripts/format.sh --check` only lints.
set -euo pipefail
cd "$(dirname "$0")/.."
paths=(Package.swift Sources Tests Examples Benchmarks/Sources Fuzz)
[[ "${1:-}" == "--check" ]] || swift format --in-place --recursive --parallel "${paths[@]}"
swift format lint --strict --recursive --parallel "${paths[@]}"
