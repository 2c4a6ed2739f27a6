"""The ISO on UEFI firmware: OVMF (Debian's package ovmf) in QEMU's 64-bit
PC, q35, where GRUB's x86_64-efi image from the hybrid ISO boots the same
32-bit kernel by Multiboot2 (boot/grub.cfg, docs/boot.md), and the 32-bit
OVMF (ovmf-ia32) in qemu-system-i386, where GRUB's i386-efi image does.
What UEFI takes away, and what lull must find another way: no RSDP in the
BIOS area (it comes from GRUB's copy), no VGA text mode (lull draws its
console on the framebuffer GRUB hands over; the screenshot test reads it
back).  The same checks as under BIOS: the prompt, ACPI with the HPET and
the PM timer, the same clocksource choices, the tick modes, reboot and poweroff.
Under icount, as every test whose subject is not the host's clock.
"""
import os
import re
import shutil
import tempfile
import time

import pytest

from lullvm import screen
from lullvm import parse
from lullvm.qemu import ICOUNT_SHIFT, ISO, LOG_DIR, OVMF32_VARS, Lull, qemu_args, uefi_args
from conftest import close_all



@pytest.fixture
def uefi(request):
    """Factory: uefi(bits=64, monitor=False) -> Lull at the prompt, booted
    from the ISO by OVMF (bits=32: the 32-bit OVMF, as `make run UEFI=32`)."""
    os.makedirs(LOG_DIR, exist_ok=True)
    vms = []
    tmp = tempfile.mkdtemp(prefix="lull-uefi-")
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name)

    def _boot(bits=64, monitor=False):
        mon = os.path.join(tmp, f"mon{len(vms)}.sock") if monitor else None
        # Debian's 32-bit OVMF is the Secure Boot build: SMM, and flash in
        # two parts, the variable store a copy (lullvm.qemu.uefi_args).
        vars_fd = os.path.join(tmp, f"vars{len(vms)}.fd")
        if bits == 32:
            shutil.copy(OVMF32_VARS, vars_fd)
        qemu, machine, extra = uefi_args("x86_64" if bits == 64 else "i386", vars_fd)
        args = qemu_args(iso=ISO, machine=machine, extra=extra, memory=256, monitor=mon,
                         qemu=qemu, icount=ICOUNT_SHIFT)
        vm = Lull(args, os.path.join(LOG_DIR, f"{name}{'-' + str(len(vms)) if vms else ''}.log"), 60)
        vm.monitor_path = mon
        vms.append(vm)
        vm.wait_prompt(90)          # OVMF and GRUB's 2 s menu: ~7-9 s under TCG
        return vm

    yield _boot
    close_all(request, vms)
    shutil.rmtree(tmp, ignore_errors=True)


def lines(out):
    return out.replace("\r", "").splitlines()


def check_screen(vm, tmp_path, name):
    """The screenshot reads back as the console model says: every row, the
    cursor, and nothing but lull's two colours.  Returns the rows."""
    time.sleep(0.3)             # the prompt's last byte reaches the screen after COM1
    path = str(tmp_path / f"{name}.ppm")
    vm.monitor(f"screendump {path}")
    rows, cursor, colours = screen.read_screen(path)
    m = re.search(r"^framebuffer: \d+x\d+, \d+ bpp at 0x[0-9a-f]+: a (\d+)x(\d+) text console",
                  vm.log_text(), re.M)
    assert m, vm.log_text()
    cols, nrows = int(m.group(1)), int(m.group(2))
    with open(vm.log_path, encoding="utf-8", errors="replace", newline="") as f:
        serial = f.read()       # as sent: log_text() turns each CR into a line end
    want, want_cursor = screen.console_screen(screen.lull_output(serial), cols, nrows)
    assert rows[:nrows] == want, "\n".join(f"{a!r}\n{b!r}" for a, b in zip(rows, want) if a != b)
    assert cursor == want_cursor, (cursor, want_cursor)
    assert colours == {screen.BLACK, screen.GREY}, colours
    return rows[:nrows]


def test_uefi_boot_acpi_tick_modes_screen_and_poweroff(uefi, tmp_path):
    """One boot on 64-bit OVMF, checked as under BIOS: ACPI from the boot
    loader's copy, the framebuffer console (the screenshot matches the
    serial console, before and after scrolling), the same clocksource
    choices, every tick mode with an idle window in each (under icount, so
    each window is exact guest time), and poweroff.  (One boot, not one
    each: OVMF takes 7-9 s of host time to reach GRUB.)"""
    vm = uefi(monitor=True)
    log = vm.log_text()
    # OVMF's RSDP is ACPI 2.0, so the XSDT; nothing scanned from the BIOS area.
    assert re.search(r"acpi: RSDP rev 2 from the boot loader \(OEM BOCHS\)", log), log
    assert re.search(r"^acpi: XSDT rev \d+ at 0x[0-9a-f]+", log, re.M), log
    assert "acpi: no RSDP found" not in log and "multiboot2:" not in log, log
    assert re.search(r"^hpet: [\d.]+ MHz, 64-bit counter", log, re.M), log
    assert re.search(r"^acpi_pm: 24-bit PM timer at port 0x[0-9a-f]+", log, re.M), log
    # The screen a student at a UEFI laptop sees: the boot lines and the
    # prompt drawn on the framebuffer, the same text as the serial console.
    rows = check_screen(vm, tmp_path, "boot")
    assert any(r.startswith("lull ") and "built with HZ=" in r for r in rows), rows
    assert any(re.fullmatch(r"boot: ready in [\d.]+ ms \(0 warnings on the command line\)", r)
               for r in rows), rows
    assert rows[[i for i, r in enumerate(rows) if r][-1]] == "lull>", rows
    mem = lines(vm.cmd("mem"))
    assert re.fullmatch(r"boot loader: Multiboot2, GRUB [^,]+, ACPI 2\.0 RSDP copy, "
                        r"64-bit EFI system table at 0x[0-9a-f]+", mem[0]), mem
    # The framebuffer lull's header asks for (boot/entry.asm), drawn on.
    assert re.fullmatch(r"framebuffer: \d+x\d+, 32 bits a pixel, RGB, at 0x[0-9a-f]+", mem[1]), mem
    assert re.search(r"^framebuffer: \d+x\d+, 32 bpp at 0x[0-9a-f]+: a \d+x\d+ text console "
                     r"in the 8x13 font", log, re.M), log
    assert "no suitable video mode" not in log, log       # GRUB's GOP driver (boot/grub.cfg)
    # The same clocksource choices as under BIOS: every counter, the TSC in use.
    cs = lines(vm.cmd("clocksource"))
    names = [re.match(r"[* ] (\S+)", l).group(1) for l in cs if re.match(r"[* ] \S+\s+rating", l)]
    assert names == ["pit", "hpet", "acpi_pm", "tsc"], cs
    assert any(l.startswith("* tsc") for l in cs), cs
    assert re.fullmatch(r"tick: tickless on lapic, HZ=\d+", lines(vm.cmd("tick"))[0])
    u0 = parse.uptime(vm.cmd("uptime")).seconds
    for was, mode in (("tickless", "periodic"), ("periodic", "dyntick"), ("dyntick", "tickless")):
        said = vm.cmd(f"tick {mode}").strip()
        assert re.fullmatch(rf"tick: {mode} on \S+, HZ=\d+ \(was {was}(| on \S+; .+)\)", said), said
        assert re.fullmatch(rf"tick: {mode} on \S+, HZ=\d+", lines(vm.cmd("tick"))[0]), mode
        idle = parse.idle(vm.cmd("idle 1", timeout=20))
        assert 1.0 <= idle.span < 1.01 and idle.halted > 90, (mode, idle)
    assert parse.uptime(vm.cmd("uptime")).seconds - u0 >= 3.0
    # Enough output to scroll: the boot lines are gone, the rest still matches.
    for command in ("help", "clocksource", "help"):     # well past one screen
        vm.cmd(command)
    rows = check_screen(vm, tmp_path, "scrolled")
    assert not any(r.startswith("acpi: ") for r in rows), "the boot lines scrolled away"
    vm.type("poweroff\r")
    assert vm.wait_exit(timeout=30) == 0, vm.log_text()[-1500:]


@pytest.mark.parametrize("bits", [64, 32])
def test_make_run_uefi_lands_at_the_prompt(bits):
    """`make run UEFI=1` and `UEFI=32`, as the README says: the same ISO on
    64-bit and on 32-bit OVMF; left by `reboot` on the one and `poweroff` on
    the other (make run's -no-reboot turns the reset into QEMU's exit)."""
    import pexpect
    from conftest import spawn_make_run
    child = spawn_make_run("UEFI=1" if bits == 64 else "UEFI=32")
    try:
        child.expect_exact("lull> ")
        child.send("mem\r")
        child.expect(r"boot loader: Multiboot2, GRUB [^,]+, ACPI 2\.0 RSDP copy, "
                     rf"{bits}-bit EFI system table")
        child.expect_exact("lull> ")
        child.send("reboot\r" if bits == 64 else "poweroff\r")
        child.expect(pexpect.EOF, timeout=30)
        child.close()
        assert child.exitstatus == 0, child.before
    finally:
        child.close(force=True)


def test_uefi32_boots_with_acpi_and_a_screen(uefi, tmp_path):
    """32-bit UEFI firmware (tablets, the first Intel Macs): GRUB's i386-efi
    image from the same ISO, the same kernel, ACPI and the screen."""
    vm = uefi(bits=32, monitor=True)
    log = vm.log_text()
    assert re.search(r"acpi: RSDP rev 2 from the boot loader \(OEM BOCHS\)", log), log
    assert re.search(r"^hpet: [\d.]+ MHz, 64-bit counter", log, re.M), log
    assert re.search(r"^acpi_pm: 24-bit PM timer", log, re.M), log
    mem = lines(vm.cmd("mem"))
    assert re.fullmatch(r"boot loader: Multiboot2, GRUB [^,]+, ACPI 2\.0 RSDP copy, "
                        r"32-bit EFI system table at 0x[0-9a-f]+", mem[0]), mem
    assert re.fullmatch(r"tick: tickless on lapic, HZ=\d+", lines(vm.cmd("tick"))[0])
    check_screen(vm, tmp_path, "boot32")
