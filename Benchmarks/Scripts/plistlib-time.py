#!/usr/bin/env python3
"""Times Python's plistlib on one file, in its own loop, for hangar-bench (which cannot run it in process).

Usage: plistlib-time.py loads|dumps binary|xml FILE WARMUP RUNS

loads: plistlib.loads(the file's bytes, fmt=FMT).  dumps: plistlib.dumps(value, fmt=FMT), where value is the
file read once outside the clock.  Each run is timed alone with time.perf_counter_ns(); its result is released
after the clock stops.  Prints one JSON object: {"python": VERSION, "durations_ns": [one per measured run]}.
"""
import json
import platform
import plistlib
import sys
import time

sys.setrecursionlimit(20000)  # plistlib recurses ~2 frames per nesting level (the deep dataset has 500)


def main():
    operation, fmt_name, path, warm_up, runs = sys.argv[1:6]
    fmt = {"binary": plistlib.FMT_BINARY, "xml": plistlib.FMT_XML}[fmt_name]
    with open(path, "rb") as f:
        data = f.read()
    if operation == "loads":
        def once():
            return plistlib.loads(data, fmt=fmt)
    elif operation == "dumps":
        value = plistlib.loads(data, fmt=fmt)

        def once():
            return plistlib.dumps(value, fmt=fmt)
    else:
        raise SystemExit("unknown operation " + operation)
    durations = []
    for round_index in range(int(warm_up) + int(runs)):
        start = time.perf_counter_ns()
        result = once()
        end = time.perf_counter_ns()
        del result
        if round_index >= int(warm_up):
            durations.append(end - start)
    json.dump({"python": platform.python_version(), "durations_ns": durations}, sys.stdout)


if __name__ == "__main__":
    main()
