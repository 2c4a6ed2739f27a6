"""Drift of lull's clock against QEMU's virtual time, in parts per million,
on every machine shape and every clocksource it has.

The truth.  Under `-icount shift=N,sleep=off` QEMU runs one virtual clock
(2^N ns per guest instruction, and idle time skipped straight to the next
timer deadline), and every emulated timer is driven by it.  We give the
CMOS clock that clock (`-rtc clock=vm,base=...`): its seconds then roll
over exactly one virtual second apart.  lull never uses the CMOS clock to
keep time (only `date` reads it) and none of lull's rate constants
(PIT_INPUT_HZ, ACPI_PM_FREQ_HZ, the HPET period, the TSC and LAPIC
calibrations) touch it, so it is an independent ruler, on every shape.

Why not the host's clock or the QEMU monitor: with sleep=off the virtual
clock leaps ahead while lull waits at the prompt for the host to type, so
nothing read from outside the guest can be matched to a guest instant.
Both ends of a measurement are therefore taken inside the guest: a paste of
"uptime / date / sleep" probes (the console's ring buffer holds it) finds
the `uptime` at which the RTC second turned, to within one probe spacing.
Two such edges, `idle` seconds apart, give lull's length of a whole number
of true seconds.

Measured (shift 4, three runs): tsc, hpet and acpi_pm within 3 ppm on pc,
q35, pc-no-hpet and pentium3; tsc +3.5 to +4.4 ppm on isapc-pentium (its
TSC is calibrated once at boot against the PIT: 999.996 MHz, where the TSC
under icount counts virtual nanoseconds, 1000 MHz); pit -18 ppm on
isapc-486 over its shorter window.  Bounds (ERROR_PPM below): 10 ppm for a
continuous clocksource, 100 ppm for the tick-based pit.  A driver constant
0.5 % off is 5000 ppm.  Seen caught: PIT_INPUT_HZ 0.5 % high fails
isapc-486 (pit, -4988 ppm) and isapc-pentium (tsc, -4961 ppm); an
ACPI_PM_FREQ_HZ 0.5 % high fails acpi_pm on every shape that has it
(-4975 ppm) and the TSC on pc-no-hpet, which is calibrated against it.

No host timing is asserted: these tests are exact under icount and are not
marked `timing`.
"""
import re

import pytest

from lullvm.qemu import MACHINE_SHAPES
from lullvm.rtc import MAX_SPACING_NS, RTC_VM, rtc_edge

ICOUNT_SHIFT = 4
# Two edges are off by at most ~10 ms together (lullvm.rtc): over IDLE_S
# that is 3.3 ppm (continuous, 3000 s) and 33 ppm (tick-based, 300 s, kept
# short because it wakes 100 times a second); ERROR_PPM is about three times
# that.  A constant 0.5 % off is 5000 ppm, far outside.
IDLE_S = {"tick-based": 300, "continuous": 3000}
ERROR_PPM = {"tick-based": 100, "continuous": 10}


def drift_ppm(vm, kind, idle_s=None, max_spacing_ns=MAX_SPACING_NS):
    """lull's error over about idle_s (default IDLE_S[kind]) true seconds,
    in ppm (+ = runs fast)."""
    idle_s = idle_s or IDLE_S[kind]
    t0, s0 = rtc_edge(vm, kind, max_spacing_ns)
    out = vm.cmd(f"idle {idle_s}", timeout=60)
    assert out.startswith(f"idle {idle_s}."), out
    t1, s1 = rtc_edge(vm, kind, max_spacing_ns)
    true_ns = (s1 - s0) * 10**9
    return (t1 - t0 - true_ns) / true_ns * 1e6


def clocksources(vm):
    """[(name, in use, 'continuous' or 'tick-based')] from `clocksource`."""
    out = vm.cmd("clocksource")
    found = re.findall(r"^([* ]) (\S+)\s+rating .*\s(continuous|tick-based)", out, re.M)
    assert found, out
    return [(name, star == "*", kind) for star, name, kind in found]


@pytest.mark.parametrize("shape", MACHINE_SHAPES)
def test_every_clocksource_keeps_virtual_time(boot, shape):
    machine = dict(MACHINE_SHAPES[shape])
    machine["extra"] = machine.get("extra", []) + RTC_VM
    # hz=100: a tick-based clocksource wakes every tick; fewer cost less.
    vm = boot(append="hz=100", icount=ICOUNT_SHIFT, **machine)
    results = {}
    # The one lull chose first, then each other one it can switch to.
    for name, in_use, kind in sorted(clocksources(vm), key=lambda c: not c[1]):
        if not in_use:
            if kind == "tick-based":
                continue            # cannot be switched to at runtime
            out = vm.cmd(f"clocksource {name}")
            assert re.fullmatch(rf"clocksource: timekeeping on {name} \(was \S+\)", out.strip()), out
        results[name] = (drift_ppm(vm, kind), ERROR_PPM[kind])
    print(f"{shape}: " + ", ".join(f"{n} {p:+.1f} ppm" for n, (p, _) in results.items()))
    bad = {n: f"{p:+.1f} ppm (bound {b})" for n, (p, b) in results.items() if abs(p) > b}
    assert not bad, f"{shape}: drift against virtual time: {bad}"
