"""Lab pit (docs/labs/pit.md): pit_set_periodic, pit_set_oneshot,
pit_set_next_event and pit_ch2_start_us in drivers/timer/pit.c, graded on
a fake 8254 (what the code wrote, which QEMU does not always show), then
through the KTAP self-test (boot option selftest) and a tick on the PIT."""
import re

import pytest

from conftest import assert_unit, boot, expect, idle_rate


@pytest.mark.points(10)
def test_programs_the_8254_on_a_fake_chip():
    """Host test test_pit: each function's mode, count, byte order, gate
    and speaker bits, with interrupts off, as the chip would take them."""
    assert_unit("test_pit", "test_pit_set_periodic_programs_mode_2", "test_pit_set_oneshot_programs_mode_0",
                "test_pit_set_next_event_writes_a_mode_0_count", "test_pit_ch2_start_us_counts_and_gates")


@pytest.fixture(scope="module")
def ktap():
    b = boot([], append="selftest")
    return b.log


RESULT = re.compile(r"(not )?ok \d+ |KTAP version|TAP version|1\.\.")


def ktap_ok(log, what):
    """The self-test's KTAP line for `what` says ok; else that line with
    what the kernel printed for it: a driver's complaint since the result
    before it (past that result's own `#` lines), and the `#` lines after
    it, which give the numbers."""
    lines = log.replace("\r", "").split("\n")
    hits = [i for i, l in enumerate(lines) if re.match(r"(not )?ok \d+ ", l) and what in l]
    expect(hits, f"a KTAP line 'ok N {what}' from the selftest boot", "no such line",
           "\n".join(lines[-20:]))
    for i in hits:
        start = i
        while start > 0 and not RESULT.match(lines[start - 1]):
            start -= 1
        while start < i and lines[start].startswith("#"):
            start += 1
        end = i + 1
        while end < len(lines) and lines[end].startswith("#"):
            end += 1
        diag = lines[start:i][-12:] + lines[i:end][:6]
        expect(lines[i].startswith("ok ") and "# SKIP" not in lines[i], f"'ok N {what}'", lines[i],
               "\n".join(diag))


@pytest.mark.points(15)
def test_one_shot_fires_on_time(ktap):
    ktap_ok(ktap, "clockevent pit one-shot fires on time")


@pytest.mark.points(15)
def test_periodic_at_hz(ktap):
    ktap_ok(ktap, "clockevent pit periodic at 250 Hz")


@pytest.mark.points(10)
def test_channel_2_times_the_other_clocks(ktap):
    ktap_ok(ktap, "agrees with PIT channel 2")


@pytest.mark.points(10)
def test_the_tick_on_the_pit():
    """Periodic on the PIT: 250 wakeups a second, and `tick` names the PIT.
    (Its one-shot is the self-test's check above: a stopped tick would
    also run the dyntick and tickless labs' code, which this lab's grade
    must not depend on.)"""
    b = boot(["tick periodic", "clockevent pit", "idle 2", "tick"])
    rate = idle_rate(b.out("idle 2"))
    expect(abs(rate - 250) <= 2, "periodic on the PIT (pit_set_periodic): 250 wakeups/s at HZ=250",
           f"{rate} wakeups/s", b.out("clockevent pit") + b.out("idle 2"))
    expect(re.search(r"\bpit\b", b.out("tick")), "`tick` to name the PIT as the tick device",
           "another device", b.out("tick"))
