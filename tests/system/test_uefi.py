"""The ISO on UEFI firmware: OVMF (Debian's package ovmf) in QEMU's 64-bit
PC, q35, where GRUB's x86_64-efi image from the hybrid ISO boots the same
32-bit kernel by Multiboot2 (boot/grub.cfg, docs/boot.md).  What UEFI takes
away, and what lull must find another way: no RSDP in the BIOS area (it
comes from GRUB's copy), no VGA text mode.  The same checks as under BIOS:
the prompt, ACPI with the HPET and the PM timer, the same clocksource
choices, time against the host, the tick modes, reboot and poweroff.
"""
import os
import re
import time

import pytest

from conftest import ISO, LOG_DIR, Lull, close_all, qemu_args

OVMF_CODE = "/usr/share/OVMF/OVMF_CODE.fd"
QEMU_X86_64 = "qemu-system-x86_64"


@pytest.fixture
def uefi(request):
    """Factory: uefi() -> Lull at the prompt, booted from the ISO by OVMF."""
    os.makedirs(LOG_DIR, exist_ok=True)
    vms = []
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name)

    def _boot():
        args = qemu_args(iso=ISO, machine="q35", extra=["-bios", OVMF_CODE], memory=256)
        args[0] = QEMU_X86_64
        vm = Lull(args, os.path.join(LOG_DIR, f"{name}{'-' + str(len(vms)) if vms else ''}.log"), 60)
        vms.append(vm)
        vm.wait_prompt(90)          # OVMF and GRUB's 2 s menu: ~7 s under TCG
        return vm

    yield _boot
    close_all(request, vms)


def lines(out):
    return out.replace("\r", "").splitlines()


def test_uefi_boot_finds_acpi_from_the_loader(uefi):
    vm = uefi()
    log = vm.log_text()
    # OVMF's RSDP is ACPI 2.0, so the XSDT; nothing scanned from the BIOS area.
    assert re.search(r"acpi: RSDP rev 2 from the boot loader \(OEM BOCHS\)", log), log
    assert re.search(r"^acpi: XSDT rev \d+ at 0x[0-9a-f]+", log, re.M), log
    assert "acpi: no RSDP found" not in log and "multiboot2:" not in log, log
    assert re.search(r"^hpet: [\d.]+ MHz, 64-bit counter", log, re.M), log
    assert re.search(r"^acpi_pm: 24-bit PM timer at port 0x[0-9a-f]+", log, re.M), log
    mem = lines(vm.cmd("mem"))
    assert re.fullmatch(r"boot loader: Multiboot2, GRUB [^,]+, ACPI 2\.0 RSDP copy, "
                        r"EFI system table at 0x[0-9a-f]+", mem[0]), mem
    # No framebuffer tag: the header does not ask for one yet (boot/entry.asm).
    assert not any(l.startswith("framebuffer:") for l in mem), mem
    assert "no suitable video mode" not in log, log       # gfxpayload=keep (boot/grub.cfg)
    # The same clocksource choices as under BIOS: every counter, the TSC in use.
    cs = lines(vm.cmd("clocksource"))
    names = [re.match(r"[* ] (\S+)", l).group(1) for l in cs if re.match(r"[* ] \S+\s+rating", l)]
    assert names == ["pit", "hpet", "acpi_pm", "tsc"], cs
    assert any(l.startswith("* tsc") for l in cs), cs
    assert re.fullmatch(r"tick: tickless on lapic, HZ=\d+", lines(vm.cmd("tick"))[0])


@pytest.mark.timing
def test_uefi_uptime_follows_the_host_and_modes_switch(uefi):
    vm = uefi()

    def uptime():
        h0 = time.monotonic()
        m = re.search(r"up (\d+\.\d+) s", vm.cmd("uptime"))
        return float(m.group(1)), (h0 + time.monotonic()) / 2

    g0, h0 = uptime()
    for mode in ("periodic", "dyntick", "tickless"):
        assert vm.cmd(f"tick {mode}").strip() == "", mode
        assert re.fullmatch(rf"tick: {mode} on \S+, HZ=\d+", lines(vm.cmd("tick"))[0]), mode
        out = vm.cmd("idle 1", timeout=20)
        assert re.search(r"idle 1\.\d+ s: \d+ wakeups", out), out
    g1, h1 = uptime()
    # Guest time against the host's, over the ~4 s of the switches and the
    # idle windows: generous (the host's scheduling, not lull's clock).
    assert abs((g1 - g0) - (h1 - h0)) < 0.05, (g1 - g0, h1 - h0)


@pytest.mark.parametrize("command", ["reboot", "poweroff"])
def test_uefi_reboot_and_poweroff(uefi, command):
    vm = uefi()
    vm.type(command + "\r")
    # -no-reboot: a reset ends QEMU as a power-off does.
    status = vm.wait_exit(timeout=30)
    assert status == 0, (command, status, vm.log_text()[-1500:])


def test_make_run_uefi_lands_at_the_prompt():
    """`make run UEFI=1`, as the README says: the same ISO on OVMF."""
    import pexpect
    from conftest import spawn_make_run
    child = spawn_make_run("UEFI=1")
    try:
        child.expect_exact("lull> ")
        child.send("mem\r")
        child.expect(r"boot loader: Multiboot2, GRUB [^,]+, ACPI 2\.0 RSDP copy, EFI system table")
        child.expect_exact("lull> ")
        child.send("poweroff\r")
        child.expect(pexpect.EOF, timeout=30)
    finally:
        child.close(force=True)
