#!/usr/bin/python3
"""Writes the seed corpus of tests/fuzz/fuzz_acpi.c: a control byte, then
ACPI table sets laid out as physical memory from 0xE0000 on
(FUZZ_ACPI_BASE), as acpi_parse finds them -- an RSDP at the start, the tables after it.  Values are QEMU's for
-machine pc (OEM "BOCHS", PM timer at port 0x608, HPET at 0xfed00000,
IRQ0 on GSI 2), so the seeds are the tables lull meets every day.

    tests/fuzz/gen_acpi_seeds.py [DIR]     (default: tests/fuzz/corpus/acpi)

tests/unit/test_acpi_tables.c patches these files at the offsets below
(the OFF_* constants there must match them; memory starts at the file's
second byte).  Spec: ACPI 6.5, 5.2.
"""
import os
import struct
import sys

BASE = 0xE0000
OFF_RSDP, OFF_RSDT, OFF_XSDT = 0x000, 0x040, 0x080
OFF_FADT, OFF_DSDT, OFF_MADT, OFF_HPET, OFF_WAET = 0x100, 0x200, 0x300, 0x400, 0x440
SIZE = 0x480
FIX_CHECKSUMS = 1       # the harness's control byte (first of each file): repair checksums


def checksum(data):
    """The byte that makes `data` sum to 0 modulo 256."""
    return (-sum(data)) & 0xFF


def table(sig, body, rev=1):
    """A table with the common header (5.2.6) and a correct checksum."""
    length = 36 + len(body)
    head = struct.pack("<4sIBB6s8sI4sI", sig, length, rev, 0, b"BOCHS ", b"BXPC    ", 1, b"BXPC", 1)
    t = bytearray(head + body)
    t[9] = checksum(t)
    return bytes(t)


def gas(space, width, address):
    """Generic Address Structure (5.2.3.2)."""
    return struct.pack("<BBBBQ", space, width, 0, 0, address)


def rsdp(rev):
    r = bytearray(struct.pack("<8sB6sBI", b"RSD PTR ", 0, b"BOCHS ", rev, BASE + OFF_RSDT))
    if rev >= 2:
        r += struct.pack("<IQB3s", 36, BASE + OFF_XSDT, 0, b"\0\0\0")
    r[8] = checksum(r[:20])
    if rev >= 2:
        r[32] = checksum(r)
    return bytes(r)


def fadt(rev):
    """FADT (5.2.9, Table 5.9): revision 1 is 116 bytes, revision 3 244."""
    f = bytearray(244 - 36 if rev >= 3 else 116 - 36)
    struct.pack_into("<II", f, 0, 0, BASE + OFF_DSDT)         # FIRMWARE_CTRL, DSDT
    struct.pack_into("<I", f, 64 - 36, 0x604)                  # PM1a_CNT_BLK
    struct.pack_into("<I", f, 76 - 36, 0x608)                  # PM_TMR_BLK
    f[91 - 36] = 4                                             # PM_TMR_LEN
    f[108 - 36] = 0x32                                         # CENTURY
    flags = 1 << 8                                             # TMR_VAL_EXT
    if rev >= 3:
        struct.pack_into("<H", f, 109 - 36, 3)                 # IAPC_BOOT_ARCH
        flags |= 1 << 10                                       # RESET_REG_SUP
        f[116 - 36:128 - 36] = gas(1, 8, 0xCF9)                # RESET_REG
        f[128 - 36] = 0x0F                                     # RESET_VALUE
        struct.pack_into("<Q", f, 140 - 36, BASE + OFF_DSDT)   # X_DSDT
        f[172 - 36:184 - 36] = gas(1, 16, 0x604)               # X_PM1a_CNT_BLK
        f[208 - 36:220 - 36] = gas(1, 32, 0x608)               # X_PM_TMR_BLK
    struct.pack_into("<I", f, 112 - 36, flags)
    return table(b"FACP", bytes(f), rev)


def dsdt(root_slash):
    """A DSDT whose AML is some Scope() filler and Name(_S5, Package(4){0,0,0,0})."""
    s5 = (b"\x08\\_S5_" if root_slash else b"\x08_S5_") + b"\x12\x06\x04\x00\x00\x00\x00"
    return table(b"DSDT", b"\x10\x0a\\_SB_\x5b\x82\x04PCI0" + s5 + b"\xa3" * 8)


def madt():
    """MADT (5.2.12): two CPUs, an I/O APIC, IRQ0 -> GSI 2, an NMI entry."""
    e = struct.pack("<BBBBI", 0, 8, 0, 0, 1) + struct.pack("<BBBBI", 0, 8, 1, 1, 1)
    e += struct.pack("<BBBBII", 1, 12, 0, 0, 0xFEC00000, 0)
    e += struct.pack("<BBBBIH", 2, 10, 0, 0, 2, 0)
    e += struct.pack("<BBBHB", 4, 6, 0xFF, 0, 1)
    return table(b"APIC", struct.pack("<II", 0xFEE00000, 1) + e)


def hpet():
    """HPET table (HPET spec 1.0a, 3.2.4)."""
    return table(b"HPET", struct.pack("<I", 0x8086A201) + gas(0, 0, 0xFED00000) +
                 struct.pack("<BHB", 0, 0x80, 0))


def memory(rev, root_slash=False):
    m = bytearray(SIZE)
    others = [OFF_FADT, OFF_MADT, OFF_HPET, OFF_WAET]
    parts = {OFF_RSDP: rsdp(rev),
             OFF_RSDT: table(b"RSDT", b"".join(struct.pack("<I", BASE + o) for o in others)),
             OFF_FADT: fadt(3 if rev >= 2 else 1), OFF_DSDT: dsdt(root_slash),
             OFF_MADT: madt(), OFF_HPET: hpet(), OFF_WAET: table(b"WAET", b"\0\0\0\0")}
    if rev >= 2:
        parts[OFF_XSDT] = table(b"XSDT", b"".join(struct.pack("<Q", BASE + o) for o in others))
    for off, data in parts.items():
        m[off:off + len(data)] = data
    return bytes(m)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus", "acpi")
    os.makedirs(out, exist_ok=True)
    seeds = {"qemu-pc-acpi1": memory(0), "acpi2-xsdt": memory(2, root_slash=True)}
    # Each twice: as it is, and with the harness's checksum repair on.
    for name, data in seeds.items():
        for control, suffix in ((0, ""), (FIX_CHECKSUMS, "-fix")):
            with open(os.path.join(out, f"{name}{suffix}.bin"), "wb") as f:
                f.write(bytes([control]) + data)


if __name__ == "__main__":
    main()
