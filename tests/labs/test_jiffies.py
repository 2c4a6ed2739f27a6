"""Lab jiffies (docs/labs/jiffies.md): time_after and time_after_eq in
include/time/jiffies.h, jiffies_advance_locked in kernel/time/tick_jiffies.c
(under tick_update_jiffies).  Every boot starts jiffies two seconds before
the 32-bit wrap.  While the tick runs, jiffies step onto the wrap one at a
time; in a booted kernel it takes a skip over it with timers pending to
show a comparison that is not wrap-safe
(test_wheel_timers_fire_across_the_wrap)."""
import pytest

from conftest import assert_unit, boot, expect, jiffies_follow_the_clock
from lullvm import parse


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


# Ten wheel timers, each every 120 ms, for 4 s: the wrap, 2 s after boot,
# falls in the middle.  A timer with period P (whole ticks) and its first
# expiry one to two periods out fires floor(T / P) - 1 to floor(T / P)
# times in T ticks; one more either way for where in a tick the run began.
LOAD_TIMERS, LOAD_MS, LOAD_S = 10, 120, 4


@pytest.mark.points(10)
def test_wheel_timers_fire_across_the_wrap():
    """Wheel timers pending while jiffies cross the wrap, in tickless mode:
    the tick stops between expiries, so jiffies jump over the wrap instead
    of stepping onto it, and a wheel whose time_after_eq is a plain >=
    sees the jiffy after the jump as before its base and runs no timer
    again.  (In periodic mode the plain compare holds on most ticks; the
    host test test_comparisons_across_the_wrap checks every case.)  Only
    `timerload ... wheel`, which waits with wait_ns, not the alarm lab's
    sleep, and `uptime`: the wheel's code, which this lab builds on, runs
    the timers; the tickless lab's stub would wake the CPU every tick, and
    the same expiries fire."""
    load = f"timerload {LOAD_TIMERS} {LOAD_MS} {LOAD_MS} {LOAD_S} wheel"
    b = boot(["uptime", load, "uptime"], append="tick=tickless")
    said = b.out("uptime") + b.out(load) + b.out("uptime", 1)
    before, after = parse.uptime(b.out("uptime")), parse.uptime(b.out("uptime", 1))
    expect(after.jiffies < before.jiffies, "the run to cross the 32-bit wrap (jiffies smaller after it)",
           f"jiffies {before.jiffies} -> {after.jiffies}", said)
    t = parse.timerload(said)
    hz = before.hz
    period = -(-LOAD_MS * hz // 1000)           # ms_to_jiffies: rounded up
    whole = LOAD_S * hz // period
    lo, hi = LOAD_TIMERS * (whole - 2), LOAD_TIMERS * (whole + 1)
    why = (" (the wheel stopped after the wrap? a comparison of jiffies that is not wrap-safe: "
           "time_after, time_after_eq)" if t.fired < lo else "")
    expect(lo <= t.fired <= hi and t.early == 0,
           f"every expiry to fire across the wrap, none early: {lo} to {hi} fired "
           f"({LOAD_TIMERS} timers every {period} ticks for {LOAD_S} s at HZ={hz})",
           f"{t.fired} fired, {t.early} early{why}", said)
