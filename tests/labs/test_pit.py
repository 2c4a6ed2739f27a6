"""Lab pit (docs/labs/pit.md): pit_set_periodic, pit_set_oneshot,
pit_set_next_event and pit_ch2_start_us in drivers/timer/pit.c, graded
through the KTAP self-test (boot option selftest) and a tick on the PIT."""
import re

import pytest

from conftest import boot, idle_rate


@pytest.fixture(scope="module")
def ktap():
    b = boot([], append="selftest", timeout=60)
    return b.log


def ktap_ok(log, what):
    lines = [l for l in log.splitlines() if re.match(r"(not )?ok \d+ ", l) and what in l]
    assert lines, f"no KTAP line for '{what}':\n{log[-2500:]}"
    for l in lines:
        assert l.startswith("ok ") and "# SKIP" not in l, l


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
    """Periodic on the PIT: 250 wakeups a second; dyntick on the PIT:
    skips of at most 13 ticks (the 16-bit counter's 54.9 ms)."""
    b = boot(["tick periodic", "clockevent pit", "idle 2", "tick dyntick", "idle 2", "dyntick"])
    assert abs(idle_rate(b.out("idle 2", 0)) - 250) <= 2, b.out("idle 2", 0)
    rate = idle_rate(b.out("idle 2", 1))
    assert 18 <= rate <= 21, f"dyntick on the PIT: {rate} wakeups/s, not one per 13-tick skip"
    assert re.search(r"device: pit", b.out("dyntick")), b.out("dyntick")
