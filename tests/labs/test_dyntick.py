"""Lab dyntick (docs/labs/dyntick.md): the 2005 patch's skip in
stop_tick_if_worth_it and the catch-up in tick_restart
(kernel/time/tick_sched.c)."""
import pytest

from conftest import assert_unit, boot, expect, idle_rate, jiffies_follow_the_clock


@pytest.mark.points(20)
def test_skip_rules_on_a_fake_clock():
    assert_unit("test_tick", "test_dyntick_skip_rules")


@pytest.mark.points(10)
def test_whole_ticks_and_the_restart_at_each_hz_on_a_fake_clock():
    """At HZ=100, 1000 and 250: a skip counted in this rate's periods, an
    hrtimer mid-period skipped to the boundary before it (rounded down),
    and an early interrupt putting the device back to periodic at HZ."""
    assert_unit("test_tick", "test_dyntick_skips_whole_ticks_and_restarts_at_hz")


@pytest.mark.points(15)
@pytest.mark.parametrize("hz", [100, 250, 1000])
def test_wakeups_and_exact_jiffies_after_sleeps(hz):
    """Idle with nothing armed (after boot's one timer, at 1 s): under two
    wakeups a second, against HZ with every tick; a periodic
    100 ms timer: about ten; and after sleeps of odd lengths the jiffies
    are the ticks elapsed."""
    b = boot(["idle 1", "idle 3", "uptime", "idle 1", "uptime", "idle 2", "uptime", "every 100", "idle 2"],
             append=f"tick=dyntick hz={hz}")
    rate = idle_rate(b.out("idle 3"))
    expect(rate <= 2.0, f"idle with nothing armed: at most 2 wakeups/s (every tick would be {hz})",
           f"{rate} wakeups/s (is the tick skipped on idle entry?)", b.out("idle 3"))
    rate = idle_rate(b.out("idle 2", 1))
    expect(9 <= rate <= 11, "a 100 ms periodic timer: 9 to 11 wakeups/s", f"{rate} wakeups/s",
           b.out("every 100") + b.out("idle 2", 1))
    jiffies_follow_the_clock(b, 3, hz=hz)
