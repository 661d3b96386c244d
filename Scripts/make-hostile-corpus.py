#!/usr/bin/env python3
"""Writes the hostile-input corpus: Tests/PropertyListTests/Fixtures/invalid/hostile-*.

Each file exercises one defense of one decoder; HostileInputTests.swift holds, per file, the typed error it must
give (code, message fragment, location) and the time bound. The files are small and committed; this script is how
they were made, so that they can be made again (it is deterministic: run it, and `git status` shows no change).

It also writes the seeds of the model-layer fuzz target, Fuzz/seeds/pilots/: Pilot documents in every format,
valid ones and ones with hostile class tags, so that the fuzzer starts inside the registry rather than at its door.

    python3 Scripts/make-hostile-corpus.py
"""
import datetime
import json
import os
import plistlib
import struct

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Tests", "PropertyListTests", "Fixtures", "invalid")
SEEDS = os.path.join(ROOT, "Fuzz", "seeds", "pilots")


# ---------------------------------------------------------------- binary

def ascii_string(text):
    data = text.encode("ascii")
    assert len(data) < 15
    return bytes([0x50 | len(data)]) + data


def bplist(objects, ref_size=1, offset_size=1, top=0, object_count=None, table_offset=None, trailer_extra=b""):
    """A bplist00 file of the given objects (marker + payload bytes each), with trailer fields that may lie."""
    out = bytearray(b"bplist00")
    offsets = []
    for obj in objects:
        offsets.append(len(out))
        out += obj
    real_table_offset = len(out)
    for offset in offsets:
        out += offset.to_bytes(offset_size, "big")
    out += trailer_extra
    out += bytes([0, 0, 0, 0, 0, 0, offset_size, ref_size])
    out += struct.pack(">QQQ", len(objects) if object_count is None else object_count, top,
                       real_table_offset if table_offset is None else table_offset)
    return bytes(out)


def binary_files():
    files = {}
    # A → B → A: object 0 is an array holding object 1, an array holding object 0.
    files["hostile-bin-reference-cycle.bplist"] = bplist([b"\xA1\x01", b"\xA1\x00"])
    # An array that holds itself.
    files["hostile-bin-self-reference.bplist"] = bplist([b"\xA1\x00"])
    # 64 levels of [x, x]: 2^65 - 1 values once expanded, from 65 objects (about 300 bytes).
    levels = 64
    objects = [bytes([0xA2, level + 1, level + 1]) for level in range(levels)]
    objects.append(ascii_string("leaf"))
    files["hostile-bin-shared-ref-bomb-2e64.bplist"] = bplist(objects)
    # A data object that claims 2^31 bytes in a file of a few dozen.
    files["hostile-bin-count-larger-than-file.bplist"] = bplist([b"\x4F\x12\x80\x00\x00\x00" + b"abcd"])
    # The trailer puts the offset table far beyond the end of the file.
    files["hostile-bin-offset-table-outside-file.bplist"] = bplist([ascii_string("x")], table_offset=1 << 40)
    # 8-byte offsets × 2^61 objects is 2^64: the table size overflows a 64-bit multiply.
    files["hostile-bin-offset-size-count-overflow.bplist"] = bplist([ascii_string("x")], offset_size=8,
                                                                     object_count=1 << 61)
    # A 16-byte integer whose high 8 bytes are all ones: −1 · 2^64 + …, below −2^63.
    files["hostile-bin-int128-negative-high.bplist"] = bplist([b"\x14" + b"\xFF" * 8 + b"\x00" * 7 + b"\x01"])
    # UTF-16BE "a", a low surrogate before its high one, then "b": no valid pairing.
    files["hostile-bin-utf16-bad-surrogates.bplist"] = bplist([b"\x64" + "a".encode("utf-16-be")
                                                               + b"\xDC\x00\xD8\x00" + "b".encode("utf-16-be")])
    # Trailer widths: references of 0 bytes, offsets of 9 bytes.
    files["hostile-bin-trailer-ref-size-0.bplist"] = bplist([b"\xA1\x01", ascii_string("x")], ref_size=0)
    files["hostile-bin-trailer-offset-size-9.bplist"] = bplist([ascii_string("x")], offset_size=9)
    return files


# ---------------------------------------------------------------- XML

HEADER = (b'<?xml version="1.0" encoding="UTF-8"?>\n'
          b'<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n')


def xml_files():
    files = {}
    # Billion laughs: entity declarations in an internal DTD subset.
    lol = b"".join(b'  <!ENTITY lol%d "&lol%d;&lol%d;&lol%d;&lol%d;&lol%d;&lol%d;&lol%d;&lol%d;&lol%d;&lol%d;">\n'
                   % ((n,) + (n - 1,) * 10) for n in range(1, 10))
    files["hostile-xml-entity-declarations.xml"] = (
        b'<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE plist [\n  <!ENTITY lol0 "lol">\n' + lol
        + b']>\n<plist version="1.0">\n<string>&lol9;</string>\n</plist>\n')
    # XXE: an external entity naming a local file.
    files["hostile-xml-external-entity.xml"] = (
        b'<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE plist [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> ]>\n'
        b'<plist version="1.0">\n<string>&xxe;</string>\n</plist>\n')
    # An entity reference nobody declared (and no DTD to declare it).
    files["hostile-xml-undeclared-entity.xml"] = (
        HEADER + b'<plist version="1.0">\n<string>&xxe;</string>\n</plist>\n')
    # Tags opened and never closed: the input ends inside <array>.
    files["hostile-xml-unclosed-tags.xml"] = (
        HEADER + b'<plist version="1.0">\n<dict>\n\t<key>a</key>\n\t<array>\n\t\t<string>x</string>\n')
    # 10,000 nested arrays, on one line.
    files["hostile-xml-deep-nesting-10000.xml"] = (
        HEADER + b'<plist version="1.0">\n' + b"<array>" * 10000 + b"</array>" * 10000 + b"\n</plist>\n")
    files["hostile-xml-invalid-base64.xml"] = (
        HEADER + b'<plist version="1.0">\n<data>\n\tSGVsbG8*gd29ybGQ=\n</data>\n</plist>\n')
    files["hostile-xml-integer-out-of-range.xml"] = (
        HEADER + b'<plist version="1.0">\n<integer>18446744073709551616</integer>\n</plist>\n')
    files["hostile-xml-invalid-date.xml"] = (
        HEADER + b'<plist version="1.0">\n<date>2023-02-29T12:00:00Z</date>\n</plist>\n')
    return files


# ---------------------------------------------------------------- OpenStep and JSON

def text_files():
    return {
        "hostile-openstep-unterminated-string.openstep": b'{\n    name = "Amelia;\n    age = 39;\n}\n',
        "hostile-openstep-unterminated-comment.openstep": b'{\n    name = Amelia; /* the rest is a comment\n}\n',
        "hostile-openstep-deep-nesting-10000.openstep": b"(" * 10000 + b")" * 10000 + b"\n",
        "hostile-json-deep-nesting-10000.json": b"[" * 10000 + b"]" * 10000 + b"\n",
        "hostile-json-unterminated-string.json": b'{"name": "Amelia}',
    }


# ---------------------------------------------------------------- seeds of the pilots fuzz target

def pilot_seeds():
    glider = {"class": "Glider", "model": "ASK 21", "registrationNumber": "D-1234", "airframeHours": 10,
              "aerotowLaunchCount": 1, "winchLaunchCount": 2}
    powered = {"class": "PoweredAirplane", "model": "Piper PA-18", "registrationNumber": "D-EFGH",
               "airframeHours": 2 ** 64 - 1, "engineHorsepower": 150, "engineHours": 900}
    plain = {"class": "Airplane", "model": "m", "registrationNumber": "r", "airframeHours": 0}
    untagged = {"model": "m", "registrationNumber": "r", "airframeHours": 1}
    pilot = {"name": "Amelia", "licenseNumber": "L-1", "homeAirfield": "EDDF",
             "dateOfBirth": datetime.datetime(1897, 7, 24),
             "airplanes": [glider, powered, plain, untagged]}
    hostile = dict(pilot, airplanes=[dict(untagged, **{"class": "Zeppelin"}), dict(untagged, **{"class": 5})])
    minimal = {"name": "X"}
    files = {
        "pilot.xml": plistlib.dumps(pilot, fmt=plistlib.FMT_XML, sort_keys=True),
        "pilot.bplist": plistlib.dumps(pilot, fmt=plistlib.FMT_BINARY, sort_keys=True),
        "pilot-hostile-tags.xml": plistlib.dumps(hostile, fmt=plistlib.FMT_XML, sort_keys=True),
        "pilot-minimal.bplist": plistlib.dumps(minimal, fmt=plistlib.FMT_BINARY),
    }
    without_date = {key: value for key, value in pilot.items() if key != "dateOfBirth"}
    files["pilot.json"] = json.dumps(without_date, sort_keys=True).encode()
    files["pilot.openstep"] = (b'{ name = Amelia; airplanes = ( { class = Glider; model = "ASK 21"; '
                               b'registrationNumber = "D-1234"; airframeHours = 10; aerotowLaunchCount = 1; '
                               b'winchLaunchCount = 2; } ); }\n')
    return files


def write(directory, files):
    os.makedirs(directory, exist_ok=True)
    for name, data in sorted(files.items()):
        with open(os.path.join(directory, name), "wb") as handle:
            handle.write(data)
    print(f"wrote {len(files)} files to {os.path.relpath(directory, ROOT)}")


def main():
    write(OUT, {**binary_files(), **xml_files(), **text_files()})
    write(SEEDS, pilot_seeds())


if __name__ == "__main__":
    main()
