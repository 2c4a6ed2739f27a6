"""Lab jiffies (docs/labs/jiffies.md): time_after and time_after_eq in
include/time/jiffies.h, tick_update_jiffies in kernel/time/tick_jiffies.c.  Every
boot starts jiffies two seconds before the 32-bit wrap."""
import pytest

from conftest import assert_unit, boot, expect, jiffies_follow_the_clock


@pytest.mark.points(15)
def test_comparisons_across_the_wrap():
    assert_unit("test_jiffies", "test_comparisons_across_the_wrap")


@pytest.mark.points(15)
def test_jiffies_are_the_ticks_elapsed_on_a_fake_clock():
    assert_unit("test_tick", "test_random_mixture", "test_across_the_32bit_wrap")


@pytest.mark.points(10)
@pytest.mark.parametrize("mode", ["periodic", "tickless"])
def test_the_boot_crosses_the_wrap(mode):
    """Sleepers armed before the wrap (at 2 s) that wake after it, in the
    right order and on their ticks; and jiffies that follow the clock
    through it, also after long sleeps with the tick stopped."""
    b = boot(["uptime", "sleep 1500", "uptime", "alarm multiple", "uptime", "sleep 1234", "uptime"],
             append=f"tick={mode}")
    expect("alarm multiple: PASS" in b.out("alarm multiple"),
           "'alarm multiple: PASS': sleepers armed before the wrap wake after it, in order",
           "no PASS", b.out("alarm multiple"))
    jiffies_follow_the_clock(b, 4)
