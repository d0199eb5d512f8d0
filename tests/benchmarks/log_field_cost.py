#!/usr/bin/env python3
"""What each field of a log's records costs once compressed: one log's
records (its frames decompressed by zstd), compressed whole as the writer
compresses them (zstd level 1), then again without one field in every
record. Prints bytes per record, and what leaving each field out saves.

    log_field_cost.py LOG.rlog
"""
import subprocess
import sys

FIELDS = {4: "gap since the previous return", 5: "duration", 6: "descriptor", 7: "channel", 8: "offset",
          9: "size", 10: "result", 13: "checksum", 14: "bytes not kept"}


def varint(b, i):
    value, shift = 0, 0
    while True:
        c = b[i]
        i += 1
        value |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return value, i


def encoded(v):
    out = bytearray()
    while True:
        c, v = v & 0x7F, v >> 7
        out.append(c | (0x80 if v else 0))
        if not v:
            return bytes(out)


def fields(record):
    out, i = [], 0
    while i < len(record):
        start = i
        key, i = varint(record, i)
        wire = key & 7
        if wire == 0:
            _, i = varint(record, i)
        elif wire == 1:
            i += 8
        elif wire == 5:
            i += 4
        elif wire == 2:
            n, i = varint(record, i)
            i += n
        else:
            raise ValueError("wire type %d" % wire)
        out.append((key >> 3, record[start:i]))
    return out


def compressed(records, drop):
    body = b"".join(encoded(len(r)) + r for r in (b"".join(f for n, f in p if n not in drop) for p in records))
    return len(subprocess.run(["zstd", "-1", "-c"], input=body, capture_output=True, check=True).stdout)


def main():
    raw = subprocess.run(["zstd", "-dc", sys.argv[1]], capture_output=True, check=True).stdout
    records, i = [], 0
    while i < len(raw):
        n, i = varint(raw, i)
        records.append(fields(raw[i:i + n]))
        i += n
    whole = compressed(records, set())
    print("%d records, %.2f bytes each compressed" % (len(records), whole / len(records)))
    for drop in [{k} for k in FIELDS] + [{4, 5}]:
        saved = (whole - compressed(records, drop)) / len(records)
        print("  without %-40s %.2f bytes less" % (" and ".join(FIELDS[k] for k in sorted(drop)), saved))


if __name__ == "__main__":
    main()
