"""Malformed words and refused requests, told apart: malformed words
(wrong count, not a number, out of range, an unknown keyword) get the
command's usage line and nothing else; a well-formed request the kernel
refuses gets exactly one `error:` line saying why, and no usage line."""
import re

import pytest

from lullvm.shell_table import commands

HELP_LINE = re.compile(r"^  (\S+)", re.M)      # a command's name in `help`

MALFORMED = ["clocksource a b", "clockevent a b", "hz abc", "hz 300", "hz 250 1", "tick bogus",
             "tick periodic now", "dyntick maybe", "dyntick on off", "wakeups now", "idle x",
             "idle 0", "idle 3601", "latency 10", "latency 10 49", "latency 0 1000",
             "latency 1000001 1000", "latency 10 1000001", "trace 0", "trace 11", "trace 1 task", "every x",
             "every 0", "alarm 0 10", "alarm 17 10", "alarm 2 0", "keytimer 0", "busy 0",
             "sleep -5", "fault xx", "version now",
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


# Each command whose usage states a range, as a line with a placeholder for
# each ranged word (WORD in "WORD(LO..HI)"); inject's faults one by one.
RANGED = {
    "sleep": ["sleep {MS}"], "busy": ["busy {SECONDS}"], "timeron": ["timeron 0 {MS}"],
    "stress": ["stress {SECONDS}"], "idle": ["idle {SECONDS}"], "trace": ["trace {SECONDS}"],
    "latency": ["latency {COUNT} {PERIOD_US}"], "every": ["every {MS}"], "power": ["power {SECONDS}"],
    "keytimer": ["keytimer {MS}"], "slack": ["slack {PERCENT}"], "slice": ["slice {MS}"], "top": ["top {SECONDS}"],
    "timerload": ["timerload {N} {MIN_MS} {MAX_MS} {SECONDS} {PERCENT} seed={S}"],
    "inject": ["inject lost-tick {N}", "inject spurious-tick {N}", "inject tsc-step +{MS}",
               "inject tsc-skew -{PPM}", "inject irq-storm {MS}", "inject late-wakeup {MS}"],
}


def ranges(usage, line):
    """{WORD: (lo, hi)} of the words in `line`, as `usage` states them (for
    inject, the fault's own alternative); a bound that is another word
    (MAX_MS(MIN_MS..)) is that word's least."""
    if line.startswith("inject "):
        fault = line.split()[1]
        usage = next(alt for alt in usage.split("|") if alt.startswith(fault + " "))
    found = {w: (lo, hi) for w, lo, hi in re.findall(r"([A-Z_]+)\((\w+)\.\.(\w+)\)", usage)}
    number = lambda b: int(b, 0) if b[0].isdigit() else number(found[b][0])
    return {w: (number(lo), number(hi)) for w, (lo, hi) in found.items()}


def test_every_stated_range_is_enforced(vm):
    """One number just outside the range the usage line states (the others
    at their least) gets that usage line and nothing else: what `help` says
    is what the handler does.  (Within the range, these would run.)"""
    table = {c.name: c for c in commands()}
    assert set(RANGED) == {c.name for c in table.values() if ".." in c.usage}
    tried = 0
    for name, lines in RANGED.items():
        usage = f"usage: {name} {table[name].usage}"
        for line in lines:
            bounds = ranges(table[name].usage, line)
            words = re.findall(r"\{(\w+)\}", line)
            assert words and set(words) <= set(bounds), (line, bounds)
            least = {w: bounds[w][0] for w in words}
            for w in words:
                lo, hi = bounds[w]
                for outside in [hi + 1] + ([lo - 1] if lo > 0 else []):
                    cmd = line.format(**dict(least, **{w: outside}))
                    out = vm.cmd(cmd, timeout=15)
                    assert out.strip() == usage, (cmd, out)
                    tried += 1
    assert tried > 30
