#!/usr/bin/env python3
"""Writes the canonical dump of property-list files as CPython's plistlib decodes them.

The dump is the peer's verdict, frozen: Tests/PropertyListTests/Support/CanonicalDump.swift renders our
decoded values the same way, and the conformance tests compare the two.

    Scripts/canonical-dump.py FILE...            # print each dump
    Scripts/canonical-dump.py --write DIR FILE...  # write DIR/<file name>.txt

Grammar: s"…" string (JSON escapes), i123 integer, r<16 hex digits> real bit pattern, d<16 hex digits>
date (seconds since 2001-01-01 as a double's bits), x<hex> data, T/F Booleans, [a,b] arrays,
{"k":v,…} dictionaries with keys sorted by code point. A UID reads as {"CF$UID":iN}, the form CF's XML writes for it.
"""
import datetime, json, plistlib, struct, sys, os

EPOCH = datetime.datetime(2001, 1, 1)

def dump(v):
    if isinstance(v, bool):
        return "T" if v else "F"
    if isinstance(v, int):
        return "i%d" % v
    if isinstance(v, float):
        return "r" + struct.pack(">d", v).hex()
    if isinstance(v, str):
        return "s" + json.dumps(v, ensure_ascii=True)
    if isinstance(v, bytes):
        return "x" + v.hex()
    if isinstance(v, datetime.datetime):
        delta = v.replace(tzinfo=None) - EPOCH
        seconds = delta.days * 86400 + delta.seconds + delta.microseconds / 1e6
        return "d" + struct.pack(">d", seconds).hex()
    if isinstance(v, plistlib.UID):
        return '{"CF$UID":i%d}' % v.data
    if isinstance(v, list):
        return "[" + ",".join(dump(e) for e in v) + "]"
    if isinstance(v, dict):
        return "{" + ",".join(json.dumps(k, ensure_ascii=True) + ":" + dump(v[k]) for k in sorted(v)) + "}"
    raise TypeError(type(v))

def main(argv):
    out = None
    if argv and argv[0] == "--write":
        out, argv = argv[1], argv[2:]
    for path in argv:
        with open(path, "rb") as f:
            text = dump(plistlib.load(f))
        if out:
            with open(os.path.join(out, os.path.basename(path) + ".txt"), "w") as f:
                f.write(text + "\n")
        else:
            print(text)

main(sys.argv[1:])
