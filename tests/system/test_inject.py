"""Fault injection (`inject`, kernel/shell/cmd_inject.c): the timer
hardware lies on purpose and lull must recover, on 1 CPU and on 4.

Every injection arms witness timers on every CPU around the fault and
prints one "recovered:" line when all of them fired exactly once and none
early, and jiffies agree with the clocksource; any broken promise is an
`error:` line instead.  Around each sequence the test compares uptime with
the host's clock: it must be monotonic and within generous bounds.
The watchdog's own tests are in test_watchdog.py.
"""
import re
import time

import pytest

CPUS = [1, 4]
MODES = ["tickless", "dyntick", "periodic"]
PERIOD_MS = 4                   # HZ=250, the default build


def smp(cpus):
    return ["-smp", str(cpus)] if cpus > 1 else []


def uptime_s(vm):
    m = re.search(r"up (\d+\.\d+) s", vm.cmd("uptime"))
    assert m, "no uptime line"
    return float(m.group(1))


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


class HostClock:
    """uptime against the host's clock, over a whole sequence."""

    def __init__(self, vm):
        self.vm = vm
        self.host0 = time.monotonic()
        self.up0 = uptime_s(vm)

    def check(self):
        up = uptime_s(self.vm)
        host = time.monotonic() - self.host0
        assert up > self.up0, f"uptime went from {self.up0} to {up}"
        # Guest time may lag the host's by the typing and by host stalls,
        # never run ahead of it; a 10 ms step is inside the slack.
        assert up - self.up0 <= host + 0.05, (up - self.up0, host)
        assert up - self.up0 >= 0.5 * host - 0.5, (up - self.up0, host)


@pytest.mark.timing
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("cpus", CPUS)
def test_interrupt_faults_recover(boot, cpus, mode):
    """Lost ticks, spurious ticks, a torn PM-timer read, an interrupt storm
    and a late wakeup, one after the other, in each tick mode."""
    vm = boot(extra=smp(cpus))
    assert "error" not in vm.cmd(f"tick {mode}")
    clock = HostClock(vm)

    out = run(vm, "inject lost-tick 25")
    assert "interrupts off on CPU 0 for 25 ticks (100 ms)" in out, out
    m = recovered(out, vm.cpus)
    assert float(m.group(3)) >= 40, out         # the first witness, due mid-fault, waited

    out = run(vm, "inject spurious-tick 200")
    m = re.search(r"200 extra interrupts on vector 0x[0-9a-f]+ \((\S+)\): (\d+) judged stale, "
                  r"(\d+) handled as ticks", out)
    # The device's own interrupts may land among them (periodic mode).
    assert m and 200 <= int(m.group(2)) + int(m.group(3)) <= 210, out
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


@pytest.mark.parametrize("cpus", CPUS)
def test_clocksource_faults_caught_by_the_watchdog(boot, cpus):
    """A TSC that steps forward, one that steps back, one that drifts
    500 ppm, and a current clocksource that stops: each is caught, time
    never goes backwards, every witness fires once."""
    # A 10 ms step, give or take what the interval's rate error adds.
    for fault, words in [("tsc-step +10", r"watchdog: \+(99\d\d|100\d\d) us against hpet"),
                         ("tsc-step -10", r"watchdog: -(99\d\d|100\d\d) us against hpet"),
                         ("tsc-skew +500", r"watchdog: \+\d+ us against hpet in \d+ ms \(\+4\d\d ppm\)")]:
        vm = boot(extra=smp(cpus))
        assert "* tsc" in vm.cmd("clocksource")
        clock = HostClock(vm)
        out = run(vm, f"inject {fault}")
        assert re.search(r"clocksource: tsc marked unstable: " + words, out), out
        m = re.search(r"watchdog: caught tsc after (\d+) checks?; timekeeping on hpet", out)
        assert m, out
        # The targets: a 10 ms step within one check, 500 ppm within two.
        assert int(m.group(1)) <= (2 if "skew" in fault else 1), out
        recovered(out, vm.cpus)
        clock.check()
        vm.close()

    vm = boot(extra=smp(cpus))
    clock = HostClock(vm)
    out = run(vm, "inject clocksource-stall")
    assert "inject: tsc stopped counting" in out, out
    assert re.search(r"clocksource: tsc marked unstable: watchdog: -\d+ us against hpet", out), out
    assert "clocksource: switched to hpet" in out, out
    recovered(out, vm.cpus)
    clock.check()


@pytest.mark.parametrize("device", ["lapic", "hpet", "pit"])
def test_a_deadline_that_passes_during_idle_entry_costs_no_wakeup(boot, device):
    # The device's old deadline passes while the idle entry programs the
    # sleep, so its interrupt is pending at the halt (kernel/idle.c).  It
    # must be taken before the halt and the sleep given up, not counted as
    # a wakeup of 0 ms judged stale.  -icount: no host input meanwhile.
    vm = boot(append=f"clockevent={device}", icount=4)
    vm.cmd("wakeups reset")
    out = run(vm, "inject idle-race")
    assert re.search(r"^inject: CPU 0's idle entry let its deadline pass, then programmed its "
                     r"sleep: the pending interrupt came before the halt, and the sleep was "
                     r"given up\b", out, re.M), out
    recovered(out, 1)
    out = vm.cmd("wakeups")
    m = re.search(r"given up before the halt (\d+)", out)
    assert m and int(m.group(1)) >= 1, out
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
                  r"\.\.(0x[0-9a-f]+)")
    word, lo, hi = (int(m.group(i), 16) for i in (1, 2, 3))
    assert lo <= word < hi and hi - lo == 1024
    vm.expect_exact("system halted")
