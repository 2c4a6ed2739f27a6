"""Malformed words and refused requests, told apart: malformed words
(wrong count, not a number, out of range, an unknown keyword) get the
command's usage line and nothing else; a well-formed request the kernel
refuses gets exactly one `error:` line saying why, and no usage line."""
import re

import pytest

HELP_LINE = re.compile(r"^  (\S+)", re.M)      # a command's name in `help`

MALFORMED = ["clocksource a b", "clockevent a b", "hz abc", "hz 300", "hz 250 1", "tick bogus",
             "tick periodic now", "dyntick maybe", "dyntick on off", "wakeups now", "idle x",
             "idle 0", "latency 10", "latency 10 49", "trace 0", "trace 11", "every x",
             "alarm 0 10", "keytimer 0", "busy 0", "sleep -5", "fault xx", "version now",
             "uptime x", "timers x", "irqs x", "date x", "acpi x", "mem x", "cmdline x"]


def usage_only(out, name):
    """The output is one line, the usage line of `name`."""
    lines = [line for line in out.splitlines() if line.strip()]
    return len(lines) == 1 and lines[0].startswith(f"usage: {name}")


def assert_refused(vm, cmd, why):
    """Exactly one error line, matching `why`, and no usage line."""
    out = vm.cmd(cmd)
    errors = [line for line in out.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, (cmd, out)
    assert "usage:" not in out, (cmd, out)
    assert re.search(why, errors[0]), (cmd, out)


def test_malformed_words_get_usage_only(vm):
    for cmd in MALFORMED:
        out = vm.cmd(cmd)
        assert usage_only(out, cmd.split()[0]), (cmd, out)
        assert "error:" not in out, (cmd, out)


def test_every_command_with_too_many_words_gets_usage_only(vm):
    """Even reboot, poweroff, fault and the long-running commands check
    their word count first."""
    names = HELP_LINE.findall(vm.cmd("help"))
    assert len(names) > 20
    for name in names:
        out = vm.cmd(name + " x y z q w e r t")
        assert usage_only(out, name), (name, out)


def test_refusals_on_a_pc(vm):
    # pit counts only its own tick interrupts: refused, not malformed.
    assert_refused(vm, "clocksource pit", r"\bpit\b.*cannot be switched to")
    assert_refused(vm, "clocksource nosuch", r"no clocksource 'nosuch'")
    assert_refused(vm, "clockevent nosuch", r"no clock event device 'nosuch'")
    assert re.search(r"^\* tsc ", vm.cmd("clocksource"), re.M)     # nothing changed


def test_refusals_on_a_486(boot):
    # No TSC, no ACPI PM timer, no HPET: only the PIT, which cannot count
    # across skipped ticks, so every mode but periodic is refused.
    vm = boot(machine="isapc", cpu="486")
    for cmd in ("tick dyntick", "tick tickless", "dyntick on"):
        assert_refused(vm, cmd, r"\bpit\b")
    assert_refused(vm, "clocksource pit", r"\bpit\b.*cannot be switched to")
    assert_refused(vm, "clockevent lapic", r"no clock event device 'lapic'")
    assert vm.cmd("tick").startswith("tick: periodic on pit")
