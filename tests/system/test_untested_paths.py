"""Paths of the shell, the Makefile and the boot menu that no other module
covers: `tick` and `every` with no argument, `every off` with nothing
pending, what `make clean` removes, QEMU_EXTRA reaching QEMU, every GRUB
menu entry past the first two (chosen with arrow keys on the serial
console, as a person would), and a kernel built with another HZ.

(A NULL-pointer fault is not tried: no command dereferences page 0;
`fault pf` reads an unmapped high address and test_exceptions covers it.)
"""
import os
import re
import shlex
import shutil
import subprocess
import tempfile
import time

import pytest

from lullvm import screen
from lullvm.qemu import BUILD, ROOT
from test_console import vga_text

GRUB_CFG = os.path.join(ROOT, "boot", "grub.cfg")
# Ctrl-N, GRUB's menu key for the next entry: one byte.  (The Down arrow is
# three, ESC [ B, and GRUB's serial terminal reads them as one key only if
# they arrive within its escape timeout; under icount, guest time between
# bytes is not the host's, and once the arrow was read as ESC and the rest
# lost: the hz=100 entry booted tick=tickless.)
DOWN = "\x0e"


def lines(out):
    return out.replace("\r", "").splitlines()


def built_hz(vm):
    """The HZ the booted kernel was built with, from `version`."""
    return int(re.search(r"built with HZ=(\d+)\)", vm.cmd("version")).group(1))


def make_dry_run(*args):
    """`make -n ARGS` in the source tree: the commands make would run."""
    r = subprocess.run(["make", "-n", "--no-print-directory", f"BUILD={BUILD}", *args],
                       cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


# ---------------------------------------------------------------- shell

def test_tick_and_every_without_arguments(vm):
    hz = built_hz(vm)
    tick = lines(vm.cmd("tick"))
    assert len(tick) == 1 and re.fullmatch(rf"tick: tickless on [a-z0-9-]+, HZ={hz}", tick[0]), tick
    assert lines(vm.cmd("every")) == ["every: off"]
    # Stopping what never started changes nothing, and says so.
    assert lines(vm.cmd("every off")) == ["every: off (unchanged)"]
    assert lines(vm.cmd("every")) == ["every: off"]
    # Started, it is reported; asked again, restarted; stopped, off again.
    assert lines(vm.cmd("every 100")) == ["every: 100 ms (was off)"]
    assert lines(vm.cmd("every")) == ["every: 100 ms"]
    assert lines(vm.cmd("every 100")) == ["every: 100 ms (restarted)"]
    assert lines(vm.cmd("every 50")) == ["every: 50 ms (was 100 ms)"]
    assert lines(vm.cmd("every off")) == ["every: off (was 50 ms)"]
    assert lines(vm.cmd("every")) == ["every: off"]
    assert lines(vm.cmd("every off")) == ["every: off (unchanged)"]


# ---------------------------------------------------------------- Makefile

def test_make_clean_removes_only_the_build_dir_and_gdbinit():
    # As a user types it: no BUILD on the command line or in the environment.
    env = {k: v for k, v in os.environ.items() if k != "BUILD"}
    r = subprocess.run(["make", "-n", "--no-print-directory", "clean"], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    cmds = [l for l in r.stdout.splitlines() if l.strip()]
    assert cmds == ["rm -rf build .gdbinit"], cmds
    # And a BUILD=DIR build is cleaned with the same BUILD.
    assert make_dry_run("clean").split() == ["rm", "-rf", BUILD, ".gdbinit"]


def test_qemu_extra_reaches_qemu():
    out = make_dry_run("run", "QEMU_EXTRA=-machine q35")
    qemu = [shlex.split(l) for l in out.splitlines() if "qemu-system-i386" in l]
    assert len(qemu) == 1, out
    argv = qemu[0]
    i = argv.index("-machine")
    assert argv[i + 1] == "q35", argv
    assert os.path.join(BUILD, "lull.iso") in argv or f"{BUILD}/lull.iso" in argv


# ---------------------------------------------------------------- GRUB menu

def grub_entries():
    """(index, title, boot options) of every menu entry in boot/grub.cfg."""
    with open(GRUB_CFG) as f:
        text = f.read()
    found = re.findall(r'menuentry "([^"]*)" \{\s*multiboot2 /boot/lull\.elf *([^\n]*)\n', text)
    return [(i, title, opts.strip()) for i, (title, opts) in enumerate(found)]


ENTRIES = grub_entries()


def test_grub_cfg_has_the_entries_tested_here():
    assert len(ENTRIES) >= 10, ENTRIES
    assert ENTRIES[0][2] == "" and ENTRIES[1][2] == "selftest"


# What each boot option must change, seen from `tick` ({hz}: the build's).
TICK_OF_OPTION = {
    "tick=periodic": r"tick: periodic on [a-z0-9-]+, HZ={hz}",
    "dyntick=enable": r"tick: dyntick on pit, HZ={hz}",
    "dyntick=enable,forceapic": r"tick: dyntick on lapic, HZ={hz}",
    "tick=tickless": r"tick: tickless on [a-z0-9-]+, HZ={hz}",
    "hz=100": r"tick: tickless on [a-z0-9-]+, HZ=100",
    "hz=250": r"tick: tickless on [a-z0-9-]+, HZ=250",
    "hz=1000": r"tick: tickless on [a-z0-9-]+, HZ=1000",
}


@pytest.mark.parametrize("index, title, opts", ENTRIES[2:],
                         ids=[e[2] or str(e[0]) for e in ENTRIES[2:]])
def test_grub_entry(boot, index, title, opts):
    vm = boot(iso=True, wait_prompt=False)
    # The whole menu is drawn on the serial port; the countdown stops at
    # the first key.
    vm.expect_exact(ENTRIES[-1][1], timeout=30)
    vm.send(DOWN * index)
    vm.send("\r")
    if opts == "floor":
        vm.expect_exact("floor: all timers stopped, halting", timeout=30)
        # Halted for good: no prompt comes.
        with pytest.raises(AssertionError):
            vm.wait_prompt(timeout=3)
        assert vm.alive()
        return
    vm.wait_prompt(timeout=30)
    cmdline = lines(vm.cmd("cmdline"))
    assert cmdline[0] == f"command line: {opts}", cmdline
    assert f"  {opts}  (ok)" in cmdline, cmdline
    build_hz = built_hz(vm)
    tick = lines(vm.cmd("tick"))
    want = TICK_OF_OPTION[opts].replace("{hz}", str(build_hz))
    assert len(tick) == 1 and re.fullmatch(want, tick[0]), (want, tick)
    if opts.startswith("hz="):
        hz = int(opts[3:])
        assert lines(vm.cmd("hz")) == [f"HZ={hz} (tick every {1000000 // hz} us)"]


# ---------------------------------------------------------------- build-time HZ

# One rate other than the default, the article's 1000: the plumbing from
# `make HZ=` to the kernel is the same for every rate, and run-time `hz`
# switches cover 100 and 1000 in every tick mode (a second full kernel
# build here cost 18 s of CPU in every make test).
@pytest.mark.parametrize("hz", [1000])
def test_build_time_hz(boot, hz):
    build = tempfile.mkdtemp(prefix=f"lull-hz{hz}-")
    try:
        r = subprocess.run(["make", "-s", f"-j{os.cpu_count() or 1}", f"BUILD={build}",
                            f"HZ={hz}", f"{build}/lull.elf"], cwd=ROOT, capture_output=True, text=True,
                           timeout=300)
        assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
        vm = boot(elf=os.path.join(build, "lull.elf"))
        version = lines(vm.cmd("version"))
        assert len(version) == 1 and version[0].endswith(f"built with HZ={hz})"), version
        assert lines(vm.cmd("hz")) == [f"HZ={hz} (tick every {1000000 // hz} us)"]
        assert re.fullmatch(rf"tick: tickless on [a-z0-9-]+, HZ={hz}", lines(vm.cmd("tick"))[0])
    finally:
        shutil.rmtree(build, ignore_errors=True)


def test_grub_boots_by_multiboot2_with_acpi_from_the_loader(boot, tmp_path):
    """Every ISO entry loads lull with GRUB's `multiboot2` (include/
    multiboot2.h), which works on BIOS and UEFI alike: under SeaBIOS here
    (test_uefi.py has OVMF), ACPI starts from the RSDP copy GRUB hands over
    rather than from a scan of the BIOS area, and finds what the scan finds."""
    with open(GRUB_CFG) as f:
        text = f.read()
    assert "multiboot /boot" not in text, "an entry still uses Multiboot 1"
    vm = boot(iso=True, monitor=True)           # the default entry, after the timeout
    log = vm.log_text()
    assert re.search(r"acpi: RSDP rev 0 from the boot loader \(OEM BOCHS\)", log), log
    assert "acpi: no RSDP found" not in log and "multiboot2:" not in log, log
    assert re.search(r"^hpet: [\d.]+ MHz", log, re.M), log
    assert re.search(r"^acpi_pm: 24-bit PM timer", log, re.M), log
    # lull's header asks for a framebuffer, and on a BIOS the menu entry
    # keeps VGA text mode instead (gfxpayload=text): GRUB describes it as
    # an EGA-text framebuffer, and lull draws on the text screen, which
    # shows what COM1 showed, the boot lines printed before it included.
    assert "framebuffer: VGA text mode, 80x25 characters: the VGA text screen" in log, log
    time.sleep(0.3)
    with open(vm.log_path, encoding="utf-8", errors="replace", newline="") as f:
        want, _ = screen.console_screen(screen.lull_output(f.read()), 80, 25)
    rows = vga_text(vm, str(tmp_path / "vga.bin"))
    assert rows == want, "\n".join(f"{a!r}\n{b!r}" for a, b in zip(rows, want) if a != b)
    mem = lines(vm.cmd("mem"))
    assert re.fullmatch(r"boot loader: Multiboot2, GRUB [^,]+, ACPI 1\.0 RSDP copy", mem[0]), mem
    m = re.search(r"usable RAM: (\d+) KiB", "\n".join(mem))
    assert m and int(m.group(1)) > 100 * 1024, mem
    assert lines(vm.cmd("cmdline"))[0] == "command line: ", vm.cmd("cmdline")
