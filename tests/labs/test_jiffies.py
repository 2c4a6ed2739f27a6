"""Lab jiffies (docs/labs/jiffies.md): time_after and time_after_eq in
include/time/jiffies.h, jiffies_advance_locked in kernel/time/tick_jiffies.c
(under tick_update_jiffies).  Every boot starts jiffies two seconds before
the 32-bit wrap."""
import pytest

from conftest import assert_unit, boot, expect, jiffies_follow_the_clock


@pytest.mark.points(15)
def test_comparisons_across_the_wrap():
    assert_unit("test_jiffies", "test_comparisons_across_the_wrap")


@pytest.mark.points(10)
def test_jiffies_count_whole_periods():
    """Host unit test test_tick_jiffies: one interrupt at a time, from a
    known boundary, at every HZ: a period ending exactly at now counts,
    partial ones do not, a skip counts all at once (in 64-bit arithmetic),
    the boundary moves by whole periods (no drift), a stale now adds
    nothing."""
    assert_unit("test_tick_jiffies", "test_whole_periods_since_the_boundary",
                "test_no_drift_over_many_late_interrupts")


@pytest.mark.points(15)
def test_jiffies_are_the_ticks_elapsed_on_a_fake_clock():
    assert_unit("test_tick", "test_random_mixture", "test_across_the_32bit_wrap")


@pytest.mark.points(10)
@pytest.mark.parametrize("mode", ["periodic", "tickless"])
def test_the_boot_crosses_the_wrap(mode):
    """Jiffies that follow the clock through the wrap (2 s after boot),
    also after long idles with the tick stopped (tickless: the catch-up
    counts every tick the idle CPU skipped).  Only `idle` and `uptime`:
    no other lab's code decides this check."""
    b = boot(["uptime", "idle 1", "uptime", "idle 2", "uptime", "idle 3", "uptime"],
             append=f"tick={mode}")
    jiffies_follow_the_clock(b, 4)
