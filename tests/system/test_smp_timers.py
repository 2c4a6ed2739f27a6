"""Timers across CPUs (kernel/shell/cmd_smp.c, docs/smp.md): every CPU has
its own timer wheel and hrtimer heap; a timer armed from one CPU for
another fires there, on time, even if that CPU sleeps with its tick
stopped (the arming CPU wakes it with an IPI); and timers armed, moved and
cancelled from every CPU at once are never lost, doubled, early or run on
the wrong CPU."""
import os
import re
import signal
import time

import pytest

TIMERON_HR = re.compile(r"hrtimer: ran on CPU (\d+), ([\d.]+) us after its deadline")
TIMERON_WHEEL = re.compile(r"wheel timer: ran on CPU (\d+) at jiffy (\d+) \(due at (\d+)\)")
STRESS = re.compile(r"stress: (\d+) CPUs, (\d+) arms, (\d+) fired, (\d+) cancelled, "
                    r"(\d+) re-armed while pending, (\d+) still pending; (\d+) early, "
                    r"(\d+) on the wrong CPU \(\d+ not checked: re-armed as it fired\); "
                    r"(\d+) ran with no arming owing it")
STRESS_MORE = re.compile(r"stress: (\d+) steps from timer callbacks, (\d+) from interrupt handlers; "
                         r"latest: hrtimer ([\d.]+) ms, wheel timer (\d+) jiffies after its "
                         r"deadline; (\d+) later than (\d+) ms; longest stall ([\d.]+) ms")


@pytest.mark.parametrize("mode", ["tickless", "dyntick"])
def test_timer_armed_for_a_sleeping_cpu_fires_there_on_time(boot, mode):
    """Under icount (exact): CPU 2 sleeps with its tick stopped (tickless:
    nothing of its own is due; dyntick: every CPU idle) when the boot CPU
    arms a 100 ms hrtimer and wheel timer for it.  Both run on CPU 2; the
    hrtimer within 100 us of its deadline in tickless (24 us measured: the
    IPI, the wake and the interrupt path at 16 ns an instruction), within a
    tick more in dyntick (3283 us measured), the wheel timer on its jiffy.  Without the IPI CPU 2 would sleep to its device's limit
    (68 s) first: the test fails with the kick taken out of
    tick_kick_remote."""
    vm = boot(append=f"tick={mode}", extra=["-smp", "4"], icount=4)
    vm.cmd("idle 1")                    # let every CPU settle and stop its tick
    out = vm.cmd("timeron 2 100")
    hr, wheel = TIMERON_HR.search(out), TIMERON_WHEEL.search(out)
    assert hr and wheel, out
    # dyntick runs hrtimers at tick resolution (one tick is 4000 us).
    limit = 100 if mode == "tickless" else 4000 + 100
    assert int(hr.group(1)) == 2 and float(hr.group(2)) < limit, out
    assert int(wheel.group(1)) == 2 and wheel.group(2) == wheel.group(3), out
    # The boot CPU's own timers still fire on the boot CPU.
    out = vm.cmd("timeron 0 10")
    assert TIMERON_HR.search(out).group(1) == "0", out


def check_stress(out, cpus):
    m = STRESS.search(out)
    assert m, out
    n, arms, fired, cancelled, replaced, pending, early, wrong, unowed = map(int, m.groups())
    assert n == cpus, out
    # Every arming ended exactly one way (the kernel checks the same sum
    # and says error: if not; this is the test's own check of its figures).
    assert arms == fired + cancelled + replaced + pending and pending == 0, out
    assert early == 0 and wrong == 0 and unowed == 0, out
    assert arms > 1000 and fired > 100 and cancelled > 100, out
    more = STRESS_MORE.search(out)
    assert more, out
    from_callbacks, from_irqs, hr_late, wheel_late, too_late, bound, stall = more.groups()
    assert int(from_callbacks) > 0 and int(from_irqs) > 0, out
    # Late by no more than the bound beyond the longest the host stopped a
    # CPU (the kernel judges the wheel timers the same way).
    assert float(hr_late) <= int(bound) + float(stall), out
    assert "stress: ok" in out, out


def test_stress_from_every_cpu_at_once(boot):
    """Without icount QEMU runs the four vCPUs in parallel host threads
    (docs/smp.md), so the arms, moves and cancels really race."""
    vm = boot(extra=["-smp", "4"])
    check_stress(vm.cmd("stress 3", timeout=60), 4)
    # On host time too, the shell waiting for a timer on another CPU is
    # woken when it fires there (it slept 68 s before the callback kicked
    # it: under icount the sleep costs no time, so only this catches it).
    out = vm.cmd("timeron 3 100", timeout=10)
    assert TIMERON_HR.search(out).group(1) == "3", out
    # And the shell is still fine, every CPU's queue empty.
    out = vm.cmd("timers")
    assert re.findall(r"cpu (\d): 0 wheel timers, 0 hrtimers pending", out) == \
        ["0", "1", "2", "3"], out


def test_stress_round_robin_and_one_cpu(boot):
    vm = boot(extra=["-smp", "2"], icount=4)
    check_stress(vm.cmd("stress 2", timeout=60), 2)
    vm = boot(extra=["-smp", "1"])
    check_stress(vm.cmd("stress 1", timeout=60), 1)


@pytest.mark.parametrize("mode", ["tickless", "dyntick", "periodic"])
def test_stress_10_s_in_every_tick_mode(boot, mode):
    """The soak in host time: 10 s of arms, moves and cancels from every
    CPU, from timer callbacks and from interrupt handlers, in each mode;
    every expiry checked (not early, at most once, not later than the
    bound the kernel states).  On two CPUs, as many as this machine has
    cores: with more virtual CPUs than host cores, all of them spinning,
    the host time-slices them and a timer waits out another vCPU's slice
    (385 ms seen with four on a loaded host), which says nothing about
    lull.  The guest-time soak is make soak."""
    vm = boot(append=f"tick={mode}", extra=["-smp", "2"])
    check_stress(vm.cmd("stress 10", timeout=60), 2)


def test_a_host_that_stops_the_guest_is_not_blamed_on_lull(boot):
    """The host stops QEMU for 400 ms in the middle of a stress run
    (SIGSTOP, as a loaded host or a CPU quota does: a CI run once had a
    timer 100 ms late this way).  The timers due in those 400 ms run late
    by about that much; the arming loops measure the stop as their longest
    stall, and stress still says ok.  Without the stall measured, the run
    fails with a callback more than 100 ms late."""
    vm = boot(extra=["-smp", "2"])
    vm.type("stress 3\r")
    time.sleep(1.5)
    os.kill(vm.child.pid, signal.SIGSTOP)
    time.sleep(0.4)
    os.kill(vm.child.pid, signal.SIGCONT)
    out = vm.wait_prompt(60).replace("\r\n", "\n")
    check_stress(out, 2)
    more = STRESS_MORE.search(out)
    hr_late, stall = float(more.group(3)), float(more.group(7))
    assert stall >= 350 and hr_late >= 300, out


def test_misuse_says_why(boot):
    vm = boot(extra=["-smp", "2"])
    for bad in ["timeron", "timeron 1", "timeron x 10", "timeron 1 0", "timeron 1 60001",
                "timeron 8 10", "stress", "stress 0", "stress 61", "stress 1 2"]:
        assert vm.cmd(bad).startswith("usage: "), bad
    assert vm.cmd("timeron 2 10").startswith("error: no CPU 2"), vm.cmd("timeron 2 10")
    assert vm.cmd("busy 2 1").startswith("busy: CPU 1")
    assert vm.cmd("stress 1").startswith("error: CPU 1 is busy already")
    assert vm.cmd("version").startswith("lull")
