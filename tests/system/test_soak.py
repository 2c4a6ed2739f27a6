"""`make soak` in short: one guest hour in the two skipping modes, with
its checks.

tools/soak.py runs a day per mode (about 17 minutes of host time); here the
same driver runs one guest hour of tickless and of dyntick, in a few
seconds each.  (The periodic mode's hour, 360,000 ticks of real work for
QEMU at HZ=100, was a third of make test's soak time; `make soak` runs it.)  Every check of the long run
applies: no panic or `error:` line, stress clean, uptime monotonic and
within 10 ppm of the CMOS clock on QEMU's virtual clock, jiffies within 2
ticks of uptime, no clocksource watchdog alarm.  Exact under -icount: not
marked `timing`.
"""
import os
import sys

import pytest

from lullvm.qemu import LOG_DIR, ROOT

sys.path.insert(0, os.path.join(ROOT, "tools"))
import soak  # noqa: E402


# The periodic hour (360,000 ticks, the costliest by far) runs in `make
# soak` only: make test's time budget went to the labs' wrong answers.
@pytest.mark.parametrize("mode, hz", [("tickless", None), ("dyntick", None)])
def test_one_guest_hour(mode, hz):
    os.makedirs(LOG_DIR, exist_ok=True)
    r = soak.soak_mode(mode, 1, LOG_DIR, hz=hz)
    print(soak.summary_table([r], 1))
    assert r["guest_hours"] >= 1.0, r
    assert r["stress_bursts"] == 1 and r["stress"]["arms"] > 0, r
    assert r["watchdog_alarms"] == 0 and r["watchdog_checks"] > 0, r


@pytest.mark.parametrize("line", [
    # kernel/time/clocksource.c with kernel/time/watchdog.c's reason
    "clocksource: tsc marked unstable: watchdog: +10000 us against hpet in 3013 ms (+3318 ppm)",
    "clocksource: hpet marked unstable: watchdog: -10259 us against acpi_pm in 10 ms (-1000000 ppm)",
])
def test_watchdog_alarms_are_recognised(line):
    assert soak.WATCHDOG_ALARM.search("lull> \r\n" + line + "\r\n")


@pytest.mark.parametrize("line", [
    "* tsc      rating 280  999.999 MHz  64 bits  continuous  UNSTABLE",  # `clocksource` list
    "clocksource: switched to tsc (rating 280)",                        # at boot, or the watchdog's
    "clocksource: timekeeping on tsc (was hpet)",                       # `clocksource tsc`
])
def test_other_clocksource_lines_are_not_alarms(line):
    assert not soak.WATCHDOG_ALARM.search(line)
