#!/usr/bin/python3
"""Writes the seed corpus of tests/fuzz/fuzz_multiboot2.c: Multiboot2
information blocks (Multiboot2 2.0, 3.6) like GRUB's `multiboot2` command
hands over, under SeaBIOS (ACPI 1.0 RSDP, no framebuffer) and under UEFI
firmware (ACPI 2.0 RSDP too, a framebuffer, the EFI system table).

    tests/fuzz/gen_multiboot2_seeds.py [DIR]   (default: tests/fuzz/corpus/multiboot2)
"""
import os
import struct
import sys

END, CMDLINE, LOADER_NAME, MEMINFO, MMAP, FRAMEBUFFER, EFI64, ACPI_OLD, ACPI_NEW = 0, 1, 2, 4, 6, 8, 12, 14, 15
QEMU_MMAP = [(0x0, 0x9FC00, 1), (0x9FC00, 0x400, 2), (0xF0000, 0x10000, 2),
             (0x100000, 0x7EE0000, 1), (0x7FE0000, 0x20000, 2), (0xFFFC0000, 0x40000, 2)]


def tag(kind, payload):
    body = struct.pack("<II", kind, 8 + len(payload)) + payload
    return body + b"\0" * (-len(body) % 8)


def rsdp(revision):
    v1 = b"RSD PTR " + b"\0" + b"BOCHS " + bytes([revision]) + struct.pack("<I", 0x7FE1AD8)
    return v1 if revision == 0 else v1 + struct.pack("<IQ", 36, 0x7FE1B00) + b"\0" * 4


def block(tags):
    body = b"".join(tags) + tag(END, b"")
    return struct.pack("<II", 8 + len(body), 0) + body


def mmap():
    return struct.pack("<II", 24, 0) + b"".join(struct.pack("<QQII", a, n, t, 0) for a, n, t in QEMU_MMAP)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus", "multiboot2")
    os.makedirs(out, exist_ok=True)
    common = [tag(CMDLINE, b"/boot/lull.elf hz=100\0"), tag(LOADER_NAME, b"GRUB 2.06-13+deb12u1\0"),
              tag(MEMINFO, struct.pack("<II", 639, 130048)), tag(MMAP, mmap())]
    fb = tag(FRAMEBUFFER, struct.pack("<QIIIBBH", 0x80000000, 4096, 1024, 768, 32, 1, 0) + bytes([16, 8, 8, 8, 0, 8, 0, 0]))
    seeds = {
        "seabios": block(common + [tag(ACPI_OLD, rsdp(0))]),
        "uefi": block(common + [fb, tag(EFI64, struct.pack("<Q", 0x7F9EE018)),
                                tag(ACPI_OLD, rsdp(0)), tag(ACPI_NEW, rsdp(2))]),
        "minimal": block([]),
    }
    for name, data in seeds.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
