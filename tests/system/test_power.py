"""Leaving: poweroff and reboot end QEMU the expected way."""
from lullvm.qemu import EXIT_ACPI_POWEROFF, EXIT_DEBUG_POWEROFF


def test_poweroff_with_acpi_exits_cleanly(boot):
    vm = boot()
    vm.type("poweroff\r")
    assert vm.wait_exit() == EXIT_ACPI_POWEROFF


def test_poweroff_without_acpi_uses_debug_exit(boot):
    vm = boot(machine="isapc", cpu="486")
    vm.type("poweroff\r")
    vm.expect_exact("poweroff: bye")
    assert vm.wait_exit() == EXIT_DEBUG_POWEROFF


# kernel/power.c announces each way of resetting before it tries it, so the
# last of these lines in the log is the one that reset the machine.
# -no-reboot turns any reset, the triple fault included, into a QEMU exit
# with status 0: the exit status alone cannot tell them apart.
RESET_LINES = {
    "acpi": "acpi: reset register: writing",
    "8042": "reboot: 8042 pulse",
    "triple fault": "reboot: triple fault",
}


def reboot_and_see_how(vm):
    """Type reboot; return which of RESET_LINES the log shows after it."""
    vm.type("reboot\r")
    vm.expect_exact("reboot: resetting")
    assert vm.wait_exit() == 0
    log = vm.log_text().split("reboot: resetting", 1)[1]
    return [name for name, line in RESET_LINES.items() if line in log]


def test_reboot_on_pc_is_the_8042_pulse(boot):
    """pc's FADT is revision 1, with no reset register: the 8042 must do it."""
    vm = boot(machine="pc")
    assert "reset        not advertised" in vm.cmd("acpi")
    assert reboot_and_see_how(vm) == ["8042"]


def test_reboot_through_the_acpi_reset_register(boot):
    """q35's FADT offers a reset register; with the 8042 gone it must be
    what resets the machine, with nothing tried after it."""
    vm = boot(machine="q35,i8042=off")
    assert "reset        port 0xcf9" in vm.cmd("acpi")
    assert reboot_and_see_how(vm) == ["acpi"]
    assert "acpi: reset register: writing 0x0f to port 0xcf9" in vm.log_text()


def test_floor_stops_everything_and_halts(boot):
    vm = boot(append="floor", wait_prompt=False)
    vm.expect_exact("floor: all timers stopped, halting")
    import time
    time.sleep(1)
    assert vm.alive()
    assert "lull> " not in vm.log_text()
