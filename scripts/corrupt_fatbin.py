#!/usr/bin/env python3
"""Damages the fatbin embedded in a CUDA executable (its `.nv_fatbin` section), as a corrupted
or hostile binary would have it: `corrupt_fatbin.py IN OUT CASE [SECTION]` (SECTION: `.nv_fatbin`,
or `__nv_relfatbin`, where -rdc=true executables keep their translation units' fatbins). Cases:
  header_size  the container's header size is 0xFFFF
  fat_size     the container's entry bytes are 2^40
  entry_offset the first entry's header size points past the end
  entry_size   the first entry's payload size points past the end
  elf          the cubin entry's ELF section table lies past the end of the entry (truncated)
  inflate      the compressed PTX entry claims 2^40 decompressed bytes
"""
import struct
import sys


def fatbin_section(data, section=b".nv_fatbin"):
    """File offset and size of a section of a 64-bit little-endian ELF file."""
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names_at = headers[shstrndx][4]
    for name, _type, _flags, _addr, offset, size in headers:
        end = data.index(b"\0", names_at + name)
        if data[names_at + name:end] == section:
            return offset, size
    sys.exit(f"corrupt_fatbin.py: no {section.decode()} section")


def containers(data, at, end):
    """Offset of every container between `at` and `end` (they follow each other, zero-padded)."""
    while at < end:
        if data[at] == 0:
            at += 1
            continue
        yield at
        header_size, fat_size = struct.unpack_from("<HQ", data, at + 6)
        at += header_size + fat_size


def entries(data, at):
    """(offset, kind, header size, payload size, flags) of the entries of the container at `at`."""
    header_size, fat_size = struct.unpack_from("<HQ", data, at + 6)
    cursor, end = at + header_size, at + header_size + fat_size
    while cursor < end:
        kind, _, entry_header, size = struct.unpack_from("<HHIQ", data, cursor)
        flags, = struct.unpack_from("<Q", data, cursor + 40)
        yield cursor, kind, entry_header, size, flags
        cursor += entry_header + size


def main():
    source, target, case = sys.argv[1:4]
    section = sys.argv[4] if len(sys.argv) > 4 else ".nv_fatbin"
    data = bytearray(open(source, "rb").read())
    at, size = fatbin_section(data, section.encode())
    # nvcc may put several containers in the section; the registered one is damaged whichever
    # it is, by damaging each.
    listed = [(c, list(entries(data, c))) for c in containers(data, at, at + size)]
    damaged = 0
    for container, its_entries in listed:
        first = its_entries[0]
        cubins = [e for e in its_entries if e[1] == 2 and not e[4] & 0xA000]
        compressed = [e for e in its_entries if e[4] & 0xA000]
        if case == "header_size":
            struct.pack_into("<H", data, container + 6, 0xFFFF)
        elif case == "fat_size":
            struct.pack_into("<Q", data, container + 8, 1 << 40)
        elif case == "entry_offset":
            struct.pack_into("<I", data, first[0] + 4, 0x7FFF0000)
        elif case == "entry_size":
            struct.pack_into("<Q", data, first[0] + 8, 1 << 40)
        elif case == "elf" and cubins:
            entry = cubins[0]
            struct.pack_into("<Q", data, entry[0] + entry[2] + 0x28, entry[3] + 4096)
        elif case == "inflate" and compressed:
            struct.pack_into("<Q", data, compressed[0][0] + 56, 1 << 40)
        elif case not in ("elf", "inflate"):
            sys.exit(f"corrupt_fatbin.py: unknown case {case}")
        else:
            continue
        damaged += 1
    if damaged == 0:
        sys.exit(f"corrupt_fatbin.py: nothing to damage for {case}")
    open(target, "wb").write(data)

main()
