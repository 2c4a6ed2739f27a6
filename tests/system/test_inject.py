"""Fault injection (`inject`, kernel/shell/cmd_inject.c): the timer
hardware lies on purpose and lull must recover, on 1 CPU and on 4.

Every injection arms witness timers on every CPU around the fault and
prints one "recovered:" line when all of them fired exactly once and none
early, and jiffies agree with the clocksource; any broken promise is an
`error:` line instead.  Around each sequence the test holds lull's uptime
against the CMOS clock (lullvm.rtc): under icount both count QEMU's virtual
time, so lull must come out of the faults as far from it as it went in,
give or take the ruler's error and what a faulty counter itself moved the
clock before it was caught; and every uptime it printed is later than the
one before.  The watchdog's own tests are in test_watchdog.py.
"""
import re

import pytest

from lullvm import parse
from lullvm.parse import uptime_all
from lullvm.rtc import MAX_SPACING_NS, rtc_edge

CPUS = [1, 4]
MODES = ["tickless", "dyntick", "periodic"]
PERIOD_MS = 4                   # HZ=250, the default build
# What the ruler can be off by over a sequence: each of its two edges lies
# in a bracket of at most MAX_SPACING_NS, half of which its midpoint may
# miss by, plus the `date` read's wait for the CMOS update cycle (at most
# 2.2 ms) each.  Measured: within 8 ms of edges found to 1.5 ms.
RULER_NS = MAX_SPACING_NS + 5_000_000


def smp(cpus):
    return ["-smp", str(cpus)] if cpus > 1 else []


def recovered(out, cpus):
    """The witnesses' verdict: every timer once, none early, jiffies exact."""
    assert "error:" not in out, out
    m = re.search(r"^recovered: (\d+) timers on (\d+) CPUs? fired once each, none early, "
                  r"the latest ([\d.]+) ms late; jiffies \+(\d+) in (\d+) ms \((\d+) expected\)",
                  out, re.M)
    assert m, out
    assert int(m.group(1)) == 4 * cpus and int(m.group(2)) == cpus, out
    return m


def run(vm, line, timeout=30):
    out = vm.cmd(line, timeout=timeout)
    assert "usage:" not in out, out
    return out


class CmosRuler:
    """lull's uptime against the CMOS clock over a whole sequence: an edge
    of the CMOS second before it and one after (lullvm.rtc.rtc_edge), on
    the continuous clocksources lull keeps time on here (tsc, then hpet)."""

    def __init__(self, vm):
        self.vm = vm
        self.up0, self.sec0 = rtc_edge(vm, "continuous")

    def check(self, fault_ns=0):
        """lull's clock gained or lost no more than fault_ns (what a faulty
        counter moved it before it was caught) over the sequence; and every
        uptime printed so far came later than the one before it."""
        up1, sec1 = rtc_edge(self.vm, "continuous")
        error_ns = (up1 - self.up0) - (sec1 - self.sec0) * 10**9
        assert abs(error_ns) <= fault_ns + RULER_NS, (
            f"lull's clock is {error_ns / 1e6:+.3f} ms off the CMOS clock after "
            f"{sec1 - self.sec0} s (allowed: {fault_ns / 1e6:.3f} ms of fault "
            f"and {RULER_NS / 1e6:.0f} ms of ruler)")
        ups = [u.ns for u in uptime_all(self.vm.log_text())]
        back = [(a, b) for a, b in zip(ups, ups[1:]) if b <= a]
        assert not back, f"uptime did not move forward: {back[:3]}"


@pytest.mark.timing
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("cpus", CPUS)
def test_interrupt_faults_recover(boot, cpus, mode):
    """Lost ticks, spurious ticks, a torn PM-timer read, an interrupt storm
    and a late wakeup, one after the other, in each tick mode."""
    vm = boot(extra=smp(cpus))
    assert "error" not in vm.cmd(f"tick {mode}")
    clock = CmosRuler(vm)

    out = run(vm, "inject lost-tick 25")
    assert "interrupts off on CPU 0 for 25 ticks (100 ms)" in out, out
    m = recovered(out, vm.cpus)
    assert float(m.group(3)) >= 40, out         # the first witness, due mid-fault, waited

    out = run(vm, "inject spurious-tick 200")
    m = re.search(r"200 extra interrupts on vector 0x[0-9a-f]+ \((\S+)\): (\d+) judged stale, "
                  r"(\d+) handled as ticks, in (\d+) us", out)
    # The device's own interrupts may land among them, at most one a tick
    # in the span the kernel measured (and one more for the tick already
    # pending): a loaded host stretches the span, and with it this bound.
    hz = int(re.search(r"HZ=(\d+)", vm.cmd("hz")).group(1))
    own = int(m.group(4)) * hz // 1_000_000 + 2 if m else 0
    assert m and 200 <= int(m.group(2)) + int(m.group(3)) <= 200 + own, out
    recovered(out, vm.cpus)

    out = run(vm, "inject pm-glitch")
    assert re.search(r"a PM-timer read returned 0x[0-9a-f]+; the triple read rejected it", out), out
    recovered(out, vm.cpus)

    out = run(vm, "inject irq-storm 300")
    m = re.search(r"inject: (\d+) keyboard interrupts in 300 ms", out)
    assert m and int(m.group(1)) > 300, out
    recovered(out, vm.cpus)

    out = run(vm, "inject late-wakeup 40")
    m = re.search(r"wakeup was taken ([\d.]+) ms late", out)
    assert m and float(m.group(1)) >= 40, out
    recovered(out, vm.cpus)
    if mode != "periodic":
        # Catch-up, then a skip to the next timer: not shortened to
        # nothing, not lengthened (a tick of rounding in dyntick).
        m = re.search(r"the next skip ends ([\d.]+) ms after the late wakeup .*the next timer is "
                      r"due ([\d.]+) ms after it", out)
        assert m, out
        ends, due = float(m.group(1)), float(m.group(2))
        assert due - PERIOD_MS - 1 <= ends <= due + 0.5, out
    clock.check()
    assert vm.alive()


@pytest.mark.parametrize("mode", ["tickless", "dyntick"])
@pytest.mark.parametrize("cpus", CPUS)
def test_hpet_comparator_written_in_the_past(boot, cpus, mode):
    vm = boot(extra=smp(cpus))
    assert "error" not in vm.cmd("clockevent hpet")
    assert "error" not in vm.cmd(f"tick {mode}")
    out = run(vm, "inject hpet-past")
    assert "the next HPET comparator write goes 1000 ticks behind the counter" in out, out
    assert re.search(r"hpet: the write in the past was caught: -ETIME, and \d+ retr", out), out
    recovered(out, vm.cpus)


def moved_ns(out):
    """The most the condemned counter can have moved lull's clock before
    the watchdog caught it: the skew its alarm line reports."""
    m = re.search(r"clocksource: tsc marked unstable: watchdog: ([+-]\d+) us against hpet", out)
    assert m, out
    return abs(int(m.group(1))) * 1000


@pytest.mark.timing
@pytest.mark.parametrize("cpus", CPUS)
def test_clocksource_faults_caught_by_the_watchdog(boot, cpus):
    """A TSC that steps forward, one that steps back, one that drifts
    500 ppm, and a current clocksource that stops: each is caught, time
    never goes backwards, every witness fires once, and lull's clock ends
    no further off the CMOS clock than the counter moved it before it was
    caught (a step back costs only the time since the last fold; a stall,
    the time it stood still)."""
    # A 10 ms step, give or take what the interval's rate error adds.
    for fault, words in [("tsc-step +10", r"watchdog: \+(99\d\d|100\d\d) us against hpet"),
                         ("tsc-step -10", r"watchdog: -(99\d\d|100\d\d) us against hpet"),
                         ("tsc-skew +500", r"watchdog: \+\d+ us against hpet in \d+ ms \(\+4\d\d ppm\)")]:
        vm = boot(extra=smp(cpus))
        assert "* tsc" in vm.cmd("clocksource")
        clock = CmosRuler(vm)
        out = run(vm, f"inject {fault}")
        assert re.search(r"clocksource: tsc marked unstable: " + words, out), out
        m = re.search(r"watchdog: caught tsc after (\d+) checks?; timekeeping on hpet", out)
        assert m, out
        # The targets: a 10 ms step within one check, 500 ppm within two.
        assert int(m.group(1)) <= (2 if "skew" in fault else 1), out
        recovered(out, vm.cpus)
        clock.check(moved_ns(out))
        vm.close()

    vm = boot(extra=smp(cpus))
    clock = CmosRuler(vm)
    out = run(vm, "inject clocksource-stall")
    assert "inject: tsc stopped counting" in out, out
    assert re.search(r"clocksource: tsc marked unstable: watchdog: -\d+ us against hpet", out), out
    assert "clocksource: switched to hpet" in out, out
    recovered(out, vm.cpus)
    clock.check(moved_ns(out))


@pytest.mark.parametrize("device", ["lapic", "hpet", "pit"])
def test_a_deadline_that_passes_during_idle_entry_costs_no_wakeup(boot, device):
    # The device's old deadline passes while the idle entry programs the
    # sleep, so its interrupt is pending at the halt (kernel/idle.c).  It
    # must be taken before the halt and the sleep given up, not counted as
    # a wakeup of 0 ms judged stale.
    vm = boot(append=f"clockevent={device}")
    vm.cmd("wakeups reset")
    out = run(vm, "inject idle-race")
    assert re.search(r"^inject: CPU 0's idle entry let its deadline pass, then programmed its "
                     r"sleep: the pending interrupt came before the halt, and the sleep was "
                     r"given up\b", out, re.M), out
    recovered(out, 1)
    out = vm.cmd("wakeups")
    given_up = parse.wakeups(out).given_up
    assert given_up is not None and given_up >= 1, out
    # No wakeup on the tick device's own line other than its events.
    vector = {"lapic": "0xf0", "hpet": "0x20", "pit": "0x20"}[device]
    assert f"irq {vector}" not in out, out


def test_inject_rejects_bad_input(vm):
    for line in ["inject", "inject bogus", "inject lost-tick", "inject lost-tick 0",
                 "inject lost-tick 1001", "inject lost-tick x", "inject tsc-step 10x",
                 "inject tsc-step +", "inject tsc-step 0", "inject hpet-past now",
                 "inject irq-storm 10001", "inject late-wakeup -5", "inject idle-race 1"]:
        out = vm.cmd(line)
        assert out.startswith("usage: inject "), (line, out)
    # Not possible here: a line saying why, and the shell goes on.
    out = vm.cmd("inject hpet-past")
    assert out.startswith("error: needs the tick on the hpet"), out
    assert "up " in vm.cmd("uptime")


def test_a_stack_overflow_is_a_panic_report(vm):
    vm.type("fault stack\r")
    m = vm.expect(r"panic: stack_guard_check: CPU 0's kernel stack overflowed or was written "
                  r"over: its guard word at (0x[0-9a-f]+) is 0x[0-9a-f]+ \(guard (0x[0-9a-f]+)"
                  r"\.\.(0x[0-9a-f]+), esp ")     # up to the comma: the whole number, not
                                                   # the part of it the serial line had so far
    word, lo, hi = (int(m.group(i), 16) for i in (1, 2, 3))
    assert lo <= word < hi and hi - lo == 1024
    vm.expect_exact("system halted")
