"""The clocksource watchdog (kernel/time/watchdog.c): which reference it
picks and which case it says it is in, that it costs no wakeup against the
HPET and one per PM-timer wrap without it, and that it never cries wolf.
The faults it must catch are injected in test_inject.py; conftest.py checks
every serial log of the suite for a watchdog alarm where nothing was
injected."""
import re

from conftest import boot_cpu_idle


def counters(out):
    """{name: ppm} from `watchdog`'s per-counter lines."""
    return {m.group(1): int(m.group(2))
            for m in re.finditer(r"^\s+(\S+)\s+last [-+]\d+ ns \(([-+]\d+) ppm\)", out, re.M)}


def test_against_the_hpet_no_wakeups_of_its_own(boot):
    vm = boot()
    assert re.search(r"watchdog: against hpet, on interrupts that come anyway \(hpet does not "
                     r"wrap: no wakeups of its own\)", vm.log_text())
    vm.cmd("sleep 1100")                        # a check needs a second between interrupts
    vm.cmd("wakeups reset")
    vm.cmd("idle 6", timeout=30)
    out = vm.cmd("wakeups")
    assert "limit: watchdog" not in out, out
    out = vm.cmd("watchdog check")
    assert "alarms 0" in out, out
    seen = counters(out)
    assert set(seen) == {"tsc", "acpi_pm"}, out   # the pit counts ticks: not watched
    for name, ppm in seen.items():
        assert abs(ppm) < 200, out


def test_against_the_pm_timer_it_wakes_before_the_wrap(boot):
    # Under icount: the PM timer's rate is checked against PIT channel 2,
    # which a loaded host can stretch by percents (then acpi_pm is not
    # usable and there is nothing to watch with); guest time is exact.
    vm = boot(extra=["-no-hpet"], icount=4)
    m = re.search(r"watchdog: against acpi_pm, on interrupts that come anyway, but at least every "
                  r"(\d+) ms \(acpi_pm wraps\)", vm.log_text())
    assert m, vm.log_text()
    bound_ms = int(m.group(1))
    assert 2000 < bound_ms < 2400                # half of 2^24 / 3.579545 MHz
    out = boot_cpu_idle(vm.cmd("idle 12", timeout=40))
    m = re.search(r"idle [\d.]+ s: (\d+) wakeups .*max sleep ([\d.]+) ms", out)
    assert m, out
    # 12 s against a 2.34 s bound: 5 sleeps the watchdog cut short, and
    # the one that ends the window.
    assert 5 <= int(m.group(1)) <= 7 and float(m.group(2)) <= bound_ms + 1, out
    out = vm.cmd("wakeups")
    assert re.search(r"^\s*\d+\s+[\d.]+\s+limit: watchdog", out, re.M), out
    out = vm.cmd("watchdog")
    assert "alarms 0" in out and "tsc " in out, out


def test_watchdog_off(boot):
    vm = boot(append="watchdog=off")
    assert "watchdog: off (watchdog=off)" in vm.log_text()
    assert "watchdog: off (no reference counter)" in vm.cmd("watchdog")
