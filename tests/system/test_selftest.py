"""The in-kernel self-test: KTAP on the console, verdict as QEMU's exit code.

A line "ok N name # SKIP why" is KTAP's skip: neither a pass nor a failure.
The self-test skips what it cannot check honestly (a counter against the
counter its rate was measured from, the PIT clocksource that counts only
while it drives the tick), and these tests count a skip as a pass nowhere:
each counter must pass a check against one of another root, and each
clock event device must be timed, by a ruler the line names.

QEMU's RTC follows the host's wall clock by default, which the host's time
daemon may slew (seen here: 5000 ppm); the self-test's
boots give it QEMU's virtual clock (-rtc clock=vm), the one every other
emulated timer counts on, so "agrees with the RTC" judges lull and not
the host's NTP."""
import re

import pytest

from lullvm.qemu import EXIT_SELFTEST_PASS, MACHINE_SHAPES

SHAPES = MACHINE_SHAPES
RTC_VM = ["-rtc", "clock=vm"]
SKIP = re.compile(r"^(.*?) # SKIP (.*)$")
# The only reasons the self-test may give for a skip.
SKIP_REASONS = (r"counts only while it drives the tick",
                r"\S+'s rate was measured against it",
                r"both rates come from \S+")


def parse_ktap(log):
    text = log.replace("\r", "")
    assert "KTAP version 1" in text
    plan = int(re.search(r"^1\.\.(\d+)$", text, re.M).group(1))
    results = re.findall(r"^(ok|not ok) (\d+) (.*)$", text, re.M)
    return plan, results


def split_skips(results):
    """(passed names, {skipped name: why}, failed results)."""
    passed, skipped = [], {}
    for verdict, _, name in results:
        m = SKIP.match(name)
        if m:
            skipped[m.group(1)] = m.group(2)
        elif verdict == "ok":
            passed.append(name)
    return passed, skipped, [r for r in results if r[0] != "ok"]


def shape_args(shape):
    args = dict(SHAPES[shape])
    args["extra"] = list(args.get("extra", [])) + RTC_VM
    return args


@pytest.mark.timing
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_selftest_passes(boot, shape):
    vm = boot(append="selftest", wait_prompt=False, **shape_args(shape))
    code = vm.wait_exit(timeout=60)
    text = vm.log_text()
    plan, results = parse_ktap(text)
    passed, skipped, failed = split_skips(results)
    assert not failed, failed
    assert len(results) == plan
    assert [int(r[1]) for r in results] == list(range(1, plan + 1))
    assert code == EXIT_SELFTEST_PASS
    for name, why in skipped.items():
        assert any(re.fullmatch(r, why) for r in SKIP_REASONS), (name, why)
    # Every continuous counter passed a check against one of another root.
    for cs in re.findall(r"^ok \d+ clocksource (\S+) counts forward over", text, re.M):
        assert any(p.startswith(f"{cs} agrees with ") for p in passed), (cs, passed)
    # Every clock event device was timed, by a ruler the line names.
    for name in [r[2] for r in results if r[2].startswith("clockevent ")]:
        assert name in passed and "(timed by " in name, (name, skipped)


# What each shape's counters are checked against and timed with: never a
# counter with the same crystal behind its rate, unless the line says so.
COVERAGE = {
    "pc": ["tsc agrees with PIT channel 2 within", "tsc agrees with the RTC within",
           "acpi_pm agrees with hpet within", "tsc agrees with acpi_pm within",
           "tsc agrees with hpet within 0.2% # SKIP both rates come from hpet",
           "clocksource pit counts forward # SKIP",
           "clockevent lapic one-shot fires on time (timed by acpi_pm)",
           "clockevent hpet one-shot fires on time (timed by acpi_pm)",
           "clockevent hpet periodic at 250 Hz (timed by acpi_pm)",
           "clockevent pit one-shot fires on time (timed by tsc)",
           "clocksource tsc counts forward over"],
    "pc-no-hpet": ["tsc agrees with the RTC within",
                   "tsc agrees with acpi_pm within 0.2% # SKIP both rates come from acpi_pm",
                   "clockevent lapic one-shot fires on time (timed by tsc, whose rate also "
                   "comes from acpi_pm: checked against the RTC)",
                   "clockevent pit one-shot fires on time (timed by tsc)"],
    "isapc-pentium": [
        "tsc agrees with PIT channel 2 within 0.2% # SKIP tsc's rate was measured against it",
        "tsc agrees with the RTC within",
        "clockevent pit one-shot fires on time (timed by tsc, whose rate also comes from "
        "pit: checked against the RTC)"],
    "isapc-486": ["clockevent pit one-shot fires on time (timed by PIT channel 2, the same "
                  "crystal: rate not checked)"],
}


@pytest.mark.parametrize("shape", sorted(COVERAGE))
def test_selftest_covers_the_hardware(boot, shape):
    vm = boot(append="selftest", wait_prompt=False, **shape_args(shape))
    vm.wait_exit(timeout=60)
    _, results = parse_ktap(vm.log_text())
    names = "\n".join(r[2] for r in results)
    for expect in COVERAGE[shape]:
        assert expect in names, (expect, names)


@pytest.mark.timing
def test_selftest_from_the_grub_menu(boot):
    """The ISO's second menu entry boots the self-test."""
    vm = boot(iso=True, wait_prompt=False, timeout=60, extra=RTC_VM)
    vm.expect_exact("lull (default", timeout=30)
    vm.send("\x0e")                 # Ctrl-N: down to the self-test entry (one byte; test_untested_paths.DOWN says why)
    vm.send("\r")
    assert vm.wait_exit(timeout=90) == EXIT_SELFTEST_PASS
    assert "KTAP version 1" in vm.log_text()
