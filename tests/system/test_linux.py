"""The 2005 dynamic-tick interface on Linux 6.1 (linux/, docs/linux.md):
the patched kernel that `make linux` builds, booted in qemu-system-i386
under TCG with linux/init.c as its whole user space (lullvm.linux), and
checked over the serial console as lull is.

    dyn_tick_state   the three status lines, the runtime switch, nohz=off
    dyn_tick_stats   idle entries that stopped the tick, ticks skipped,
                     idle exits by cause
    dyntick=         the boot option and the dyn-tick: boot messages
    /proc/interrupts local timer interrupts per second, idle, switch on/off
    checkpatch       each patch clean under the tree's --strict

Guest time.  A boot on one CPU runs under icount and is driven by init's
arguments (linux_run): nothing is typed, so the same boot prints the same
numbers every time, and a 3 s idle window costs no host time.  The two
tests on two CPUs keep the host's clock and are typed to, as at a
terminal: QEMU before 8.1 cannot boot Linux on two CPUs under icount
(lullvm.linux.icount_boots_smp).

`make test` runs `make linux` before the system tests, so the kernel is
there and current; run alone, these tests fail with that advice.
"""
import os
import re
import subprocess
import time

import pytest

pytestmark = pytest.mark.linux

from lullvm.linux import (BZIMAGE, DYN_TICK_STATE as STATE, DYN_TICK_STATS as STATS,
                          LinuxGuest, dyn_tick_state, dyn_tick_stats, linux_args,
                          local_timer_irqs, run_linux)
from lullvm.qemu import ICOUNT_SHIFT, LOG_DIR, ROOT
from conftest import close_all, log_name, print_run_logs_if_failed

IDLE_MS = 3000
# The bound for one idle CPU with the switch on, and how close to HZ the
# rate must be with it off (the tick runs: HZ, less what a sleep's start
# and end cut off).
MAX_IDLE_RATE_ON = 20
OFF_RATE_FRACTION = (0.85, 1.05)
# One idle window among init's arguments: the counters, IDLE_MS of sleep,
# the counters again (read by idle_window_of).
IDLE_WINDOW = ["cat /proc/interrupts", f"cat {STATS}", f"sleep {IDLE_MS}",
               "cat /proc/interrupts", f"cat {STATS}"]


def need_bzimage():
    if not os.path.exists(BZIMAGE):
        pytest.fail(f"no {BZIMAGE}: run `make linux` first (`make test` does)")


@pytest.fixture
def linux(request):
    """Factory: linux(smp=1, append="", icount=ICOUNT_SHIFT) -> LinuxGuest
    at init's prompt, typed to."""
    need_bzimage()
    os.makedirs(LOG_DIR, exist_ok=True)
    guests = []
    name = log_name(request)

    def _boot(smp=1, append="", icount=ICOUNT_SHIFT):
        log = os.path.join(LOG_DIR, f"{name}{'-' + str(len(guests)) if guests else ''}.log")
        g = LinuxGuest(linux_args(smp=smp, append=append, icount=icount), log, 60)
        guests.append(g)
        g.wait_prompt(60)
        return g

    yield _boot
    close_all(request, guests)


@pytest.fixture
def linux_run(request):
    """Factory: linux_run(commands, append="") -> the InitLog of a boot on
    one CPU under icount that runs `commands` as init's arguments and
    powers off; one still running after 60 host seconds fails the test."""
    need_bzimage()
    runs = []

    def _run(commands, append="", timeout=60):
        log = os.path.join(LOG_DIR, f"{log_name(request)}-run{len(runs)}.log")
        r = run_linux(commands, append=append, timeout=timeout, log_path=log)
        runs.append(r)
        assert r.finished, f"Linux did not power off within {timeout} s:\n{r.tail()}"
        return r

    yield _run
    print_run_logs_if_failed(request, runs)


def idle_window_of(r, nth=0):
    """The nth IDLE_WINDOW of a run: CPU 0's local timer interrupts per
    second of its sleep, and CPU 0's dyn_tick_stats across it."""
    irqs = [local_timer_irqs(r.ok("cat /proc/interrupts", 2 * nth + i))[0] for i in (0, 1)]
    s0, s1 = (dyn_tick_stats(r.ok(f"cat {STATS}", 2 * nth + i))[0] for i in (0, 1))
    return (irqs[1] - irqs[0]) / (IDLE_MS / 1000), {k: s1[k] - s0[k] for k in s1}


# ------------------------------------------------ typed, on the host's clock

def state(g):
    return dyn_tick_state(g.run(f"cat {STATE}"))


def wait_suitable(g, want=1, reads=100):
    """`suitable` becomes 1 when the first CPU switches its tick to nohz
    mode, which can come after /init started (linux/README.md): read it
    up to `reads` times, 100 ms of guest time apart."""
    for _ in range(reads):
        s = state(g)
        if s["suitable"] == want:
            return s
        g.run("sleep 100")
    return s


def idle_window(g):
    """Sleep IDLE_MS in init: local timer interrupts per second on CPU 0.
    Typed on the host's clock, the guest's time between the commands is the
    few milliseconds the typing takes."""
    before = local_timer_irqs(g.run("cat /proc/interrupts"))
    g.run(f"sleep {IDLE_MS}", timeout=IDLE_MS / 1000 + 20)
    after = local_timer_irqs(g.run("cat /proc/interrupts"))
    return (after[0] - before[0]) / (IDLE_MS / 1000)


def no_kernel_complaints(log):
    """The serial log (with `dmesg`'s, which holds what init keeps off the
    console) has no kernel warning."""
    for bad in ("WARNING:", "BUG:", "Call Trace", "Oops", "soft lockup", "rcu_sched self-detected"):
        assert bad not in log, f"{bad} in the guest's log:\n{log[-3000:]}"


def test_boot_messages_and_status_lines(linux):
    """Two CPUs, so the host's clock (icount_boots_smp); nothing is timed."""
    g = linux(smp=2, icount=None)
    s = wait_suitable(g)
    assert s == {"suitable": 1, "enabled": 1, "using APIC": 1}, s
    log = g.run("dmesg", timeout=30)
    assert re.search(r"dyn-tick: Found suitable timer: lapic", log), log
    m = re.search(r"dyn-tick: Maximum ticks to skip limited to (\d+)", log)
    assert m and int(m.group(1)) > 0, log
    assert "dyn-tick: Timer using dynamic tick" in log, log
    assert "dyn-tick: Timer not enabled during boot" not in log
    assert "Cannot use local APIC" not in log
    # Both CPUs have a row of counters.
    assert sorted(dyn_tick_stats(g.run(f"cat {STATS}"))) == [0, 1]
    no_kernel_complaints(g.log_text() + log)


@pytest.mark.timing
def test_toggles_under_load_on_two_cpus(linux):
    """Two CPUs, so the host's clock (icount_boots_smp), and the guest's
    uptime is checked against it: a loaded host makes the round trips of
    the two readings longer, which the bounds take in."""
    g = linux(smp=2, icount=None)
    wait_suitable(g)

    def uptime():
        """The guest's uptime, and the host's clock before the command
        went out and after its answer came back: the guest read its
        clock somewhere in between."""
        before = time.monotonic()
        out = g.run("cat /proc/uptime")
        return float(out.split()[0]), before, time.monotonic()

    u0, b0, a0 = uptime()
    # 200 toggles take some 40 ms of the spin's 1000 under load.
    g.run("spin 2 1000")
    g.run(f"toggle 200 {STATE}", timeout=60)
    g.run("wait", timeout=30)
    g.run(f"toggle 200 {STATE}", timeout=60)      # and idle
    u1, b1, a1 = uptime()
    # No hang (every command answered) and no time jump: the guest's
    # uptime advanced as the host's clock did, within 50 ms (/proc/uptime
    # counts in 10 ms) beyond the two readings' round trips.  Against the
    # host's clock after each answer alone, a loaded host's slow trip read
    # as 71 ms of guest time too many (CI).
    assert (b1 - a0) - 0.05 <= u1 - u0 <= (a1 - b0) + 0.05, (u1 - u0, b1 - a0, a1 - b0)
    assert state(g) == {"suitable": 1, "enabled": 1, "using APIC": 1}
    # The switch still works after 400 toggles.
    rate = idle_window(g)
    assert rate <= MAX_IDLE_RATE_ON, rate
    no_kernel_complaints(g.log_text() + g.run("dmesg", timeout=30))


# ------------------------------------------- driven by init, under icount

def test_idle_tick_stops_and_the_switch_brings_it_back(linux_run):
    r = linux_run([f"cat {STATE}", *IDLE_WINDOW,
                   f"write {STATE} 0", f"cat {STATE}", *IDLE_WINDOW,
                   f"write {STATE} 1", *IDLE_WINDOW, "dmesg"])
    hz = r.hz
    assert dyn_tick_state(r.ok(f"cat {STATE}")) == {"suitable": 1, "enabled": 1, "using APIC": 1}
    rate_on, d_on = idle_window_of(r, 0)
    assert rate_on <= MAX_IDLE_RATE_ON, (rate_on, d_on)
    # The tick was stopped and ticks skipped: most of the window's HZ * s.
    assert d_on["stopped"] >= 1 and d_on["skipped"] >= hz * IDLE_MS / 1000 * 0.8, d_on
    r.ok(f"write {STATE} 0")
    assert dyn_tick_state(r.ok(f"cat {STATE}", 1)) == {"suitable": 1, "enabled": 0, "using APIC": 1}
    rate_off, d_off = idle_window_of(r, 1)
    lo, hi = OFF_RATE_FRACTION
    assert lo * hz <= rate_off <= hi * hz, (rate_off, hz)
    assert d_off["stopped"] == 0 and d_off["skipped"] == 0, d_off
    r.ok(f"write {STATE} 1")
    rate_again, _ = idle_window_of(r, 2)
    assert rate_again <= MAX_IDLE_RATE_ON, rate_again
    no_kernel_complaints(r.log)


def test_stats_count_exits_by_cause(linux_run):
    bad = ("2", "x", "maybe")
    r = linux_run([f"cat {STATE}", *IDLE_WINDOW,
                   *(f"write {STATE} {b}" for b in bad), f"cat {STATE}", f"write {STATS} 0"])
    assert dyn_tick_state(r.ok(f"cat {STATE}"))["enabled"] == 1
    _, d = idle_window_of(r)
    # The sleep's own timer ends the last stopped stretch: a timer exit.
    # Every stretch that stopped the tick ended one way or the other.
    assert d["timer"] >= 1, d
    assert d["timer"] + d["other"] >= d["stopped"] - 1, d
    # Malformed writes: an error, and the state is unchanged.
    for b in bad:
        out = r.out(f"write {STATE} {b}")
        assert out.startswith("error: write") and "Invalid argument" in out, (b, out)
    assert dyn_tick_state(r.ok(f"cat {STATE}", 1))["enabled"] == 1
    out = r.out(f"write {STATS} 0")
    assert out.startswith("error: write"), out


def test_nohz_off_wins(linux_run):
    r = linux_run(["dmesg", f"cat {STATE}", f"write {STATE} 1", f"write {STATE} 0",
                   f"cat {STATE}", *IDLE_WINDOW], append="nohz=off")
    log = r.ok("dmesg")
    assert "dyn-tick: No suitable timer found (nohz=off)" in log, log
    assert "dyn-tick: Found suitable timer" not in log
    assert dyn_tick_state(r.ok(f"cat {STATE}"))["suitable"] == 0
    out = r.out(f"write {STATE} 1")
    assert out.startswith("error: write") and "No such device" in out, out
    r.ok(f"write {STATE} 0")
    assert dyn_tick_state(r.ok(f"cat {STATE}", 1))["enabled"] == 0
    rate, _ = idle_window_of(r)
    assert rate >= OFF_RATE_FRACTION[0] * r.hz, (rate, r.hz)


def test_dyntick_disable_at_boot_then_on_at_run_time(linux_run):
    r = linux_run([f"cat {STATE}", "dmesg", *IDLE_WINDOW, f"write {STATE} 1", *IDLE_WINDOW],
                  append="dyntick=disable")
    s = dyn_tick_state(r.ok(f"cat {STATE}"))
    assert s == {"suitable": 1, "enabled": 0, "using APIC": 1}, s
    log = r.ok("dmesg")
    assert "dyn-tick: Timer not enabled during boot" in log, log
    assert "dyn-tick: Timer using dynamic tick" not in log
    hz = r.hz
    rate_off, _ = idle_window_of(r, 0)
    assert OFF_RATE_FRACTION[0] * hz <= rate_off <= OFF_RATE_FRACTION[1] * hz, (rate_off, hz)
    # What a boot option could not do: turn it on without a reboot.
    r.ok(f"write {STATE} 1")
    rate_on, _ = idle_window_of(r, 1)
    assert rate_on <= MAX_IDLE_RATE_ON, rate_on


@pytest.mark.parametrize("value,enabled", [("enable", 1), ("enabled,forceapic", 1),
                                           ("disable", 0), ("bogus", 1)])
def test_dyntick_option_prefix_rules(linux_run, value, enabled):
    r = linux_run([f"cat {STATE}", "dmesg"], append=f"dyntick={value}")
    s = dyn_tick_state(r.ok(f"cat {STATE}"))
    assert s["suitable"] == 1 and s["enabled"] == enabled, s
    if value == "bogus":
        # Ignored with a warning, the default (on) kept.
        log = r.ok("dmesg")
        assert re.search(r"dyn-tick: dyntick=bogus is neither enable nor disable: ignored", log), log


def test_series_is_checkpatch_clean():
    r = subprocess.run([os.path.join(ROOT, "tools", "linux-checkpatch")], cwd=ROOT,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
