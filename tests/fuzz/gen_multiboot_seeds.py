#!/usr/bin/python3
"""Writes the seed corpus of tests/fuzz/fuzz_multiboot.c: a Multiboot
information block (Multiboot 0.6.96, 3.3) followed by the memory it points
into, from 0x10000 on (FUZZ_MB_BASE).  The block is what QEMU's -kernel
gives lull on -m 128: flags MEMORY|CMDLINE|MEM_MAP|LOADER_NAME, and its
six-entry memory map.

    tests/fuzz/gen_multiboot_seeds.py [DIR]   (default: tests/fuzz/corpus/multiboot)
"""
import os
import struct
import sys

BASE = 0x10000
MEMORY, CMDLINE, MODS, MEM_MAP, LOADER_NAME = 1 << 0, 1 << 2, 1 << 3, 1 << 6, 1 << 9
QEMU_MMAP = [(0x0, 0x9FC00, 1), (0x9FC00, 0x400, 2), (0xF0000, 0x10000, 2),
             (0x100000, 0x7EE0000, 1), (0x7FE0000, 0x20000, 2), (0xFFFC0000, 0x40000, 2)]


def seed(cmdline, mmap, mods=0):
    mem = bytearray()
    cmd_at = BASE + len(mem)
    mem += cmdline + b"\0"
    name_at = BASE + len(mem)
    mem += b"qemu\0"
    mods_at = BASE + len(mem)
    for i in range(mods):
        mem += struct.pack("<IIII", 0x200000 + i * 0x1000, 0x200FFF + i * 0x1000, name_at, 0)
    mmap_at = BASE + len(mem)
    for addr, length, kind in mmap:
        mem += struct.pack("<IQQI", 20, addr, length, kind)
    flags = MEMORY | CMDLINE | MEM_MAP | LOADER_NAME | (MODS if mods else 0)
    info = struct.pack("<IIIIIII16sIIIIII", flags, 639, 130944, 0, cmd_at, mods, mods_at,
                       b"\0" * 16, len(mem) - (mmap_at - BASE), mmap_at, 0, 0, 0, name_at)
    assert len(info) == 68
    return info + bytes(mem)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus", "multiboot")
    os.makedirs(out, exist_ok=True)
    seeds = {"qemu-kernel.bin": seed(b"/tmp/lull.elf hz=1000", QEMU_MMAP),
             "grub-with-module.bin": seed(b"/boot/lull.elf", QEMU_MMAP[:4], mods=2)}
    for name, data in seeds.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
