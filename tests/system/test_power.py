"""Leaving: poweroff and reboot end QEMU the expected way."""
from conftest import EXIT_ACPI_POWEROFF, EXIT_DEBUG_POWEROFF


def test_poweroff_with_acpi_exits_cleanly(boot):
    vm = boot()
    vm.type("poweroff\r")
    assert vm.wait_exit() == EXIT_ACPI_POWEROFF


def test_poweroff_without_acpi_uses_debug_exit(boot):
    vm = boot(machine="isapc", cpu="486")
    vm.type("poweroff\r")
    vm.expect_exact("poweroff: bye")
    assert vm.wait_exit() == EXIT_DEBUG_POWEROFF


def test_reboot_resets_the_machine(boot):
    vm = boot()
    vm.type("reboot\r")
    vm.expect_exact("reboot: resetting")
    # -no-reboot turns the reset into a QEMU exit with status 0.
    assert vm.wait_exit() == 0


def test_reboot_through_the_acpi_reset_register(boot):
    """q35's FADT offers a reset register; with the 8042 gone it must be
    what resets the machine."""
    vm = boot(machine="q35,i8042=off")
    assert "reset        port 0xcf9" in vm.cmd("acpi")
    vm.type("reboot\r")
    assert vm.wait_exit() == 0


def test_floor_stops_everything_and_halts(boot):
    vm = boot(append="floor", wait_prompt=False)
    vm.expect_exact("floor: all timers stopped, halting")
    import time
    time.sleep(1)
    assert vm.alive()
    assert "lull> " not in vm.log_text()
