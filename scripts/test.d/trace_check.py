#!/usr/bin/env python3
"""Checks a chevron trace (Chrome trace-event JSON) or a screenshot of its HTML timeline.

    trace_check.py TRACE.json [--launches KERNEL=N ...] [--min-launches N] [--grid X,Y,Z]
                   [--block X,Y,Z] [--blocks N] [--flows N] [--device-runs KERNEL=N ...]
    trace_check.py --png SHOT.png     (the picture is not blank)

Launches are counted on the host's tracks (each launch also appears on its stream's track);
device runs are the launches as the device ran them, on the tracks "stream N on the device"
(CUDA events, or the CPU executor's clock), with a positive duration.
Exits non-zero with a one-line reason on the first failed check."""

import argparse
import json
import struct
import sys
import zlib


def fail(message):
    sys.exit("trace_check: " + message)


def check_trace(args):
    with open(args.trace) as f:
        trace = json.load(f)  # fails on invalid JSON
    events = trace["traceEvents"]
    host = {e["pid"] for e in events if e.get("name") == "process_name" and e["args"]["name"] == "host"}
    launches = [e for e in events if e.get("cat") == "launch" and e["pid"] in host]
    for event in launches:
        for key in ("kernel", "grid", "block", "device", "stream", "shared_bytes"):
            if key not in event["args"]:
                fail("launch event without `%s`: %s" % (key, event))
    for spec in args.launches:
        kernel, count = spec.rsplit("=", 1)
        found = sum(1 for e in launches if e["args"]["kernel"] == kernel)
        if found != int(count):
            fail("%d launches of %s, expected %s (launched: %s)"
                 % (found, kernel, count, sorted({e["args"]["kernel"] for e in launches})))
    if len(launches) < args.min_launches:
        fail("%d launches, expected at least %d" % (len(launches), args.min_launches))
    for key in ("grid", "block"):
        want = getattr(args, key)
        if want and any(e["args"][key] != [int(v) for v in want.split(",")] for e in launches):
            fail("a launch's %s is not %s" % (key, want))
    if args.blocks is not None:
        blocks = [e for e in events if e.get("cat") == "block"]
        if len(blocks) != args.blocks:
            fail("%d thread-block events, expected %d" % (len(blocks), args.blocks))
        for e in blocks:
            if not e["name"].startswith("block (") or e["ph"] != "X" or e["ts"] < 0 or e["dur"] <= 0:
                fail("malformed thread-block event: %s" % e)
    device_tracks = {(e["pid"], e["tid"]) for e in events if e.get("name") == "thread_name"
                     and e["args"]["name"].endswith(" on the device")}
    for spec in args.device_runs:
        kernel, count = spec.rsplit("=", 1)
        runs = [e for e in events if e.get("cat") == "device" and e.get("ph") == "X"
                and e["name"] == kernel and (e["pid"], e["tid"]) in device_tracks]
        if len(runs) != int(count):
            fail("%d device runs of %s on the device tracks, expected %s" % (len(runs), kernel, count))
        if any(e["dur"] <= 0 or e["ts"] < 0 for e in runs):
            fail("malformed device run of %s: %s" % (kernel, runs))
    flows = sum(1 for e in events if e.get("ph") == "s")
    if flows < args.flows:
        fail("%d flow arrows, expected at least %d" % (flows, args.flows))


def png_pixels(path):
    """(width, height, rows of RGB(A) bytes) of an 8-bit RGB or RGBA PNG."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("%s is not a PNG" % path)
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    if depth != 8 or color not in (2, 6):
        fail("unexpected PNG format (depth %d, color type %d)" % (depth, color))
    bpp = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, previous = [], bytearray(stride)
    for y in range(height):
        filter_type = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = previous[x]
            c = previous[x - bpp] if x >= bpp else 0
            if filter_type == 1:
                line[x] = (line[x] + a) & 255
            elif filter_type == 2:
                line[x] = (line[x] + b) & 255
            elif filter_type == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif filter_type == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        previous = line
    return width, height, bpp, rows


def check_png(path):
    width, height, bpp, rows = png_pixels(path)
    colors, non_white = set(), 0
    for line in rows[::4]:
        for x in range(0, width * bpp, bpp * 4):
            pixel = bytes(line[x:x + 3])
            colors.add(pixel)
            non_white += pixel != b"\xff\xff\xff"
    sampled = len(rows[::4]) * len(range(0, width * bpp, bpp * 4))
    if len(colors) < 4 or non_white < sampled // 100:
        fail("%s looks blank: %d colors, %d of %d sampled pixels not white"
             % (path, len(colors), non_white, sampled))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("trace", nargs="?")
    parser.add_argument("--png")
    parser.add_argument("--launches", nargs="*", default=[])
    parser.add_argument("--min-launches", type=int, default=0)
    parser.add_argument("--grid")
    parser.add_argument("--block")
    parser.add_argument("--blocks", type=int)
    parser.add_argument("--flows", type=int, default=0)
    parser.add_argument("--device-runs", nargs="*", default=[])
    args = parser.parse_args()
    if args.png:
        check_png(args.png)
    if args.trace:
        check_trace(args)


main()
