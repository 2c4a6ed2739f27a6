"""Hostile ACPI tables: lull drops each with one `acpi:` line naming the
table and why, and runs on (drivers/platform/acpi_tables.c, acpi_sdt.c,
acpi_decode.c; the same cases on the host: tests/unit/test_acpi_tables.c, tests/fuzz/fuzz_acpi.c).

Two ways in:
  * QEMU's -acpitable file=... adds a table to the RSDT after QEMU's own,
    so of two HPET tables QEMU's comes first and wins (lull uses the first
    valid table of each kind).  QEMU rewrites the added table's length
    and checksum to fit the file, so this way only the body can be hostile.
  * A broken header (bad checksum, a length shorter than the header or
    running past memory) is made in guest memory: QEMU waits for gdb (-S),
    gdb stops at kmain -- the BIOS has laid the tables out by then, and
    lull has not read them yet -- patches the table and lets lull run.
Each table is built here, byte by byte (ACPI 6.5, 5.2.6; HPET spec 1.0a,
3.2.4), with a correct checksum unless the test breaks it.
"""
import re
import struct
import subprocess

import pytest

from lullvm import parse
from lullvm.qemu import ELF
from test_debug import gdb_socket_args, wait_for

HPET_QEMU = 0xFED00000
# Where QEMU's BIOS puts the tables on -m 128 (the last 128 KiB of RAM);
# gdb searches this much below 128 MiB for the table to patch.
TABLES_END = 128 << 20
TABLES_SEARCH = 1 << 20


def checksum(data):
    """The byte that makes `data` sum to 0 modulo 256 (5.2.6)."""
    return (-sum(data)) & 0xFF


def table(sig, body, oem_table_id):
    """A table with the common header and a correct checksum; the OEM table
    id (8 characters) is how gdb finds it in guest memory."""
    head = struct.pack("<4sIBB6s8sI4sI", sig, 36 + len(body), 1, 0, b"LULLT ",
                       oem_table_id, 1, b"LULL", 1)
    t = bytearray(head + body)
    t[9] = checksum(t)
    return bytes(t)


def hpet_table(base, oem_table_id=b"HOSTILE "):
    """HPET table (HPET spec 1.0a, 3.2.4): registers in memory space at `base`."""
    gas = struct.pack("<BBBBQ", 0, 64, 0, 0, base)      # Generic Address Structure
    return table(b"HPET", struct.pack("<I", 0x8086A201) + gas + struct.pack("<BHB", 0, 0x80, 0),
                 oem_table_id)


# gdb runs this in lull's memory at kmain; `t` is the table's address and
# the patch (below) uses rd, wr and fix_checksum.
GDB_SCRIPT = '''
import gdb, struct
inf = gdb.selected_inferior()
def rd(off, n): return bytes(inf.read_memory(t + off, n))
def wr(off, data): inf.write_memory(t + off, data)
def u32(off): return struct.unpack("<I", rd(off, 4))[0]
def fix_checksum(): wr(9, bytes([(rd(9, 1)[0] - sum(rd(0, u32(4)))) & 0xFF]))
start, t = {start}, None
while t is None:
    at = inf.search_memory(start, {end} - start, {oem_table_id!r})
    if at is None: raise gdb.GdbError("table not found")
    if bytes(inf.read_memory(at - 16, 4)) == {sig!r}: t = at - 16
    start = at + 1
{patch}
print("patched %s at 0x%x" % ({sig!r}.decode(), t))
'''


def boot_with(boot, tmp_path, tables=(), patch=None, extra=()):
    """Boot with these extra tables; with `patch` = (sig, OEM table id,
    python code), first patch that table in memory through gdb."""
    args = list(extra)
    for i, t in enumerate(tables):
        path = tmp_path / f"table{i}.bin"
        path.write_bytes(t)
        args += ["-acpitable", f"file={path}"]
    if patch is None:
        return boot(extra=args)
    sock = str(tmp_path / "gdb.sock")
    vm = boot(extra=args + gdb_socket_args(sock), wait_prompt=False)
    wait_for(sock)
    sig, oem_table_id, code = patch
    script = tmp_path / "patch.py"
    script.write_text(GDB_SCRIPT.format(start=TABLES_END - TABLES_SEARCH, end=TABLES_END,
                                        sig=sig, oem_table_id=oem_table_id, patch=code))
    out = subprocess.run(["gdb", "-batch", "-nx", ELF, "-ex", f"target remote {sock}",
                          "-ex", "break kmain", "-ex", "continue", "-ex", f"source {script}",
                          "-ex", "delete", "-ex", "detach"],
                         capture_output=True, text=True, timeout=60)
    assert f"patched {sig.decode()}" in out.stdout, out.stdout + out.stderr
    vm.wait_prompt(30)
    return vm


def assert_rejected_once(vm, pattern):
    """Exactly one `acpi:` line matches; return it."""
    lines = [l for l in vm.log_text().splitlines() if re.search(pattern, l)]
    assert len(lines) == 1, (pattern, lines, vm.log_text()[-3000:])
    assert lines[0].startswith("acpi: "), lines[0]
    return lines[0]


def assert_runs_on(vm):
    parse.uptime(vm.cmd("uptime"))     # a ParseError without an uptime line
    assert vm.cmd("sleep 100") == ""
    parse.uptime(vm.cmd("uptime"))


def test_hpet_table_with_a_bad_checksum(boot, tmp_path):
    vm = boot_with(boot, tmp_path, [hpet_table(HPET_QEMU)],
                   patch=(b"HPET", b"HOSTILE ", "wr(9, bytes([rd(9, 1)[0] ^ 0x55]))"))
    assert_rejected_once(vm, r"HPET at 0x[0-9a-f]{8}: bad checksum, ignored$")
    assert "hpet: 100.000 MHz" in vm.log_text()          # QEMU's own table still used
    assert_runs_on(vm)


def test_second_hpet_table_with_a_garbage_address(boot, tmp_path):
    """Both valid: the first (QEMU's) wins, the second is named and ignored."""
    vm = boot_with(boot, tmp_path, [hpet_table(0xDEAD0000)])
    assert_rejected_once(vm, r"HPET at 0x[0-9a-f]{8}: a second HPET table, ignored "
                             r"\(the first valid one is used\)$")
    assert f"at 0x{HPET_QEMU:08x}" in vm.log_text()
    assert "HPET         0xfed00000" in vm.cmd("acpi")
    assert_runs_on(vm)


@pytest.mark.parametrize("base,why", [
    (0xDEADBEEF00000000, r"register address out of reach \(0xdeadbeef00000000\)"),
    (0xFED00123, r"register address not on a 1 KiB boundary \(0xfed00123\)"),
])
def test_only_hpet_table_with_a_garbage_address(boot, tmp_path, base, why):
    vm = boot_with(boot, tmp_path, [hpet_table(base)], extra=["-no-hpet"])
    assert_rejected_once(vm, r"HPET at 0x[0-9a-f]{8}: " + why + ", ignored$")
    assert "hpet: none (no ACPI HPET table)" in vm.log_text()
    assert_runs_on(vm)


def test_hpet_table_pointing_at_ram(boot, tmp_path):
    """An address the parser cannot tell from a device: hpet_init sees in the
    memory map that it is RAM and writes nothing there."""
    vm = boot_with(boot, tmp_path, [hpet_table(0x00100000)], extra=["-no-hpet"])
    assert "hpet: registers at 0x100000 would be RAM; not used" in vm.log_text()
    assert_runs_on(vm)


def test_truncated_hpet_table(boot, tmp_path):
    vm = boot_with(boot, tmp_path, [hpet_table(HPET_QEMU)],
                   patch=(b"HPET", b"HOSTILE ", "wr(4, struct.pack('<I', 20))"))
    assert_rejected_once(vm, r"HPET at 0x[0-9a-f]{8}: length 20 is shorter than the header, ignored$")
    assert_runs_on(vm)


def test_table_running_past_the_end_of_memory(boot, tmp_path):
    vm = boot_with(boot, tmp_path, [hpet_table(HPET_QEMU)],
                   patch=(b"HPET", b"HOSTILE ", "wr(4, struct.pack('<I', 0xFFFFF))"))
    assert_rejected_once(vm, r"HPET at 0x[0-9a-f]{8}: its 1048575 bytes run out of memory, ignored$")
    assert_runs_on(vm)


def test_madt_like_garbage_table(boot, tmp_path):
    garbage = table(b"APIC", bytes(range(7, 200, 3)), b"HOSTILE ")
    vm = boot_with(boot, tmp_path, [garbage])
    assert_rejected_once(vm, r"APIC at 0x[0-9a-f]{8}: a second APIC table, ignored")
    assert_runs_on(vm)


# QEMU's MADT with its last entry turned into a processor entry too short
# for one (a processor's flags would be read past the table's end).
MADT_LAST_ENTRY_SHORT = '''
off = 44
while off + rd(off + 1, 1)[0] < u32(4): off += rd(off + 1, 1)[0]
wr(off, b"\\x00")
fix_checksum()
'''


def test_madt_entry_too_short_for_its_type(boot, tmp_path):
    vm = boot_with(boot, tmp_path, patch=(b"APIC", b"BXPC    ", MADT_LAST_ENTRY_SHORT))
    assert_rejected_once(vm, r"APIC at 0x[0-9a-f]{8}: entry of type 0 at offset \d+ is \d+ bytes long, "
                             r"the rest ignored$")
    assert_runs_on(vm)
