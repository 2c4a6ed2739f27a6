"""The 2005 dyntick patch's user interface, as the patch had it: its boot
option parsed its way, its boot messages in its order and in the cases it
printed them, the PM timer's old name, and the tick device a user expects
after every switch (said in one line when it changes)."""
import re

import pytest

from lullvm.qemu import MACHINE_SHAPES


def status(vm):
    return vm.cmd("dyntick").replace("\r", "")


def say(vm, line):
    """A command's output, without the carriage returns."""
    return vm.cmd(line).replace("\r", "")


def boot_lines(vm):
    """The boot log up to the prompt, one stripped line each."""
    log = vm.log_text().replace("\r", "")
    return [ln.strip() for ln in log[:log.index("lull> ")].split("\n")]


# The patch: strncmp(value, "enable", 6) turns it on; strstr(value,
# "forceapic") puts it on the local APIC.  Anything else: not enabled.
@pytest.mark.parametrize("value, enabled, apic, mode, device", [
    ("enable", 1, 0, "dyntick", "pit"),
    ("enable,forceapic", 1, 1, "dyntick", "lapic"),
    ("enabled", 1, 0, "dyntick", "pit"),                # a prefix, as strncmp saw it
    ("enable;forceapic=yes", 1, 1, "dyntick", "lapic"),
    ("forceapic,enable", 0, 1, "periodic", "lapic"),    # "enable" not at the start
    ("forceapic", 0, 1, "periodic", "lapic"),
    ("disable", 0, 0, "periodic", "pit"),
    ("disable,forceapic", 0, 1, "periodic", "lapic"),
])
def test_dyntick_option_parses_as_the_patch_did(boot, value, enabled, apic, mode, device):
    vm = boot(append=f"dyntick={value}")
    out = status(vm)
    assert out.startswith(f"suitable:\t1\nenabled:\t{enabled}\nusing APIC:\t{apic}\n"), out
    assert f"mode: {mode}, device: {device}," in out, out
    log = vm.log_text()
    assert "cmdline:" not in log                        # accepted without a warning
    if mode == "dyntick":
        assert "dyn-tick: Timer using dynamic tick" in log
        assert "dyn-tick: Timer not enabled during boot" not in log
    else:
        assert "dyn-tick: Timer not enabled during boot" in log
        assert "dyn-tick: Timer using dynamic tick" not in log


def test_dyntick_option_without_any_of_its_words_is_warned_and_ignored(boot):
    vm = boot(append="dyntick=sometimes")
    assert "cmdline: bad value 'sometimes' for option 'dyntick' (ignored" in vm.log_text()
    assert "mode: tickless, device: lapic," in status(vm)       # lull's default stands


def test_boot_messages_in_the_patchs_order(vm):
    lines = boot_lines(vm)
    want = ["Using tsc for high-res timesource",
            "dyn-tick: Found suitable timer: tsc",
            "dyn-tick: Registering dynamic tick timer vlull-1"]
    at = [lines.index(w) for w in want]
    assert at == sorted(at), lines
    skip = [i for i, ln in enumerate(lines) if ln.startswith("dyn-tick: Maximum ticks to skip")]
    assert skip and skip[0] > at[-1], lines
    # Tickless is lull's mode, not the patch's: neither of its last words.
    assert "dyn-tick: Timer using dynamic tick" not in lines
    assert "dyn-tick: Timer not enabled during boot" not in lines
    assert any(re.match(r"tick: tickless on lapic \(rating \d+; the best-rated device that can run it\) "
                        r"at HZ=\d+ \(default\)", ln) for ln in lines), lines


def test_pm_timer_is_pmtmr_too(boot):
    """The patch's name for the ACPI PM timer is accepted wherever lull's is."""
    vm = boot(append="clocksource=pmtmr")
    assert "Using acpi_pm for high-res timesource" in vm.log_text()
    assert re.search(r"^\* acpi_pm\s", vm.cmd("clocksource"), re.M)
    assert vm.cmd("clocksource tsc").strip() == "clocksource: timekeeping on tsc (was acpi_pm)"
    assert vm.cmd("clocksource pmtmr").strip() == "clocksource: timekeeping on acpi_pm (was tsc)"
    assert re.search(r"^\* acpi_pm\s", vm.cmd("clocksource"), re.M)


def test_without_a_suitable_clocksource_the_patch_stops_early(boot):
    vm = boot(**MACHINE_SHAPES["isapc-486"])
    lines = boot_lines(vm)
    assert "Using pit for high-res timesource" in lines
    assert "dyn-tick: Cannot use timer pit" in lines
    assert "dyn-tick: No suitable timer found" in lines
    assert not any(ln.startswith("dyn-tick: Maximum ticks") for ln in lines), lines
    assert "dyn-tick: Timer not enabled during boot" not in lines


# A Pentium with its local APIC switched off: a TSC (suitable), no APIC.
NO_APIC = dict(machine="isapc", cpu="pentium,-apic")


def test_forceapic_without_a_local_apic_says_so_and_uses_the_pit(boot):
    vm = boot(append="dyntick=enable,forceapic", **NO_APIC)
    lines = boot_lines(vm)
    assert "dyn-tick: Cannot use local APIC" in lines, lines
    assert "dyn-tick: Timer using dynamic tick" in lines
    assert "mode: dyntick, device: pit," in status(vm)


def test_cannot_use_local_apic_only_when_forceapic_is_asked(boot):
    vm = boot(append="dyntick=enable", **NO_APIC)
    assert "Cannot use local APIC" not in vm.log_text()


# ------------------------------------------------ which device, and saying so

def test_dyntick_option_does_not_pin_tickless_to_the_pit(boot):
    """dyntick=enable asks for the PIT in the patch's modes only: a later
    tick=tickless runs on the best one-shot device."""
    vm = boot(append="dyntick=enable tick=tickless")
    assert "mode: tickless, device: lapic," in status(vm)
    out = say(vm, "tick dyntick")
    assert re.fullmatch(r"tick: dyntick on pit, HZ=\d+ \(was tickless on lapic; "
                        r"pit: the device dyntick= asked for\)\n", out), out
    assert "mode: dyntick, device: pit," in status(vm)


def test_a_switch_that_changes_the_device_says_so_in_one_line(boot):
    vm = boot(append="dyntick=enable")
    assert "mode: dyntick, device: pit," in status(vm)
    out = say(vm, "tick tickless")
    assert re.fullmatch(r"tick: tickless on lapic, HZ=\d+ \(was dyntick on pit; "
                        r"lapic: the best-rated device that can run it\)\n", out), out
    # No change: the same one line says so.
    assert re.fullmatch(r"tick: tickless on lapic, HZ=\d+ \(unchanged\)\n", say(vm, "tick tickless"))
    out = say(vm, "dyntick on")
    assert re.fullmatch(r"tick: dyntick on pit, HZ=\d+ \(was tickless on lapic; "
                        r"pit: the device dyntick= asked for\)\n", out), out


def test_the_chosen_device_comes_back_after_a_mode_it_cannot_run(boot):
    """`clockevent hpet` sticks: hpet's channel cannot run periodic here, so
    periodic moves to another device and tickless comes back to hpet."""
    vm = boot()
    assert say(vm, "clockevent hpet") == "clockevent: tick on hpet (was lapic)\n"
    assert "device: hpet," in status(vm)
    out = say(vm, "tick periodic")
    moved = "device: hpet," not in status(vm)
    if not moved:
        assert re.fullmatch(r"tick: periodic on hpet, HZ=\d+ \(was tickless\)\n", out), out
    else:
        assert re.fullmatch(r"tick: periodic on \S+, HZ=\d+ \(was tickless on hpet; "
                            r"\S+: the best-rated device that can run it\)\n", out), out
    out = say(vm, "tick tickless")
    assert "device: hpet," in status(vm), out
    if moved:
        assert re.fullmatch(r"tick: tickless on hpet, HZ=\d+ \(was periodic on \S+; "
                            r"hpet: the device chosen with clockevent\)\n", out), out
