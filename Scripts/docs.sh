#!/usr/bin/env bash
# Builds the DocC catalogs from the symbol graphs, with warnings as errors, into .build/docs/MODULE.doccarchive.
set -euo pipefail
cd "$(dirname "$0")/.."
graphs=.build/symbol-graphs
rm -rf "$graphs" && mkdir -p "$graphs"
swift build --target Hangar -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$graphs" \
    -Xswiftc -symbol-graph-minimum-access-level -Xswiftc public >/dev/null
for module in PropertyList Hangar; do
    mkdir -p ".build/docs/$module-graphs"
    cp "$graphs/$module".symbols.json "$graphs/$module"@*.symbols.json ".build/docs/$module-graphs/" 2>/dev/null || true
    docc convert "Sources/$module/$module.docc" --fallback-display-name "$module" --fallback-bundle-identifier "hangar.$module" \
        --additional-symbol-graph-dir ".build/docs/$module-graphs" --warnings-as-errors \
        --output-path ".build/docs/$module.doccarchive"
done
echo "docs: .build/docs/PropertyList.doccarchive .build/docs/Hangar.doccarchive"
