"""The 2005 dynamic-tick interface on Linux 6.1 (linux/, docs/linux.md):
the patched kernel that `make linux` builds, booted in qemu-system-i386
under TCG with linux/init.c as its whole user space (tools/linux-boot),
and checked over the serial console as lull is.

    dyn_tick_state   the three status lines, the runtime switch, nohz=off
    dyn_tick_stats   idle entries that stopped the tick, ticks skipped,
                     idle exits by cause
    dyntick=         the boot option and the dyn-tick: boot messages
    /proc/interrupts local timer interrupts per second, idle, switch on/off
    checkpatch       each patch clean under the tree's --strict

`make test` runs `make linux` before the system tests, so the kernel is
there and current; run alone, these tests fail with that advice.
"""
import os
import re
import subprocess
import time

import pytest

pytestmark = pytest.mark.linux

from lullvm.qemu import BUILD, LOG_DIR, ROOT, Lull
from conftest import close_all

LINUX = os.path.join(BUILD, "linux")
BZIMAGE = os.path.join(LINUX, "bzImage")
STATE = "/sys/devices/system/timer/timer0/dyn_tick_state"
STATS = "/sys/devices/system/timer/timer0/dyn_tick_stats"
INIT_PROMPT = "init> "
IDLE_MS = 3000
# The bound for one idle CPU with the switch on, and how close to
# HZ the rate must be with it off (the tick runs: HZ, less what a sleep's
# start and end cut off).
MAX_IDLE_RATE_ON = 20
OFF_RATE_FRACTION = (0.85, 1.05)


class LinuxGuest(Lull):
    """The patched Linux at init's prompt (linux/init.c)."""

    def wait_prompt(self, timeout=20):
        self._wait(self.child.expect_exact, INIT_PROMPT, timeout)
        return self.child.before

    def run(self, line, timeout=20):
        """A command of init's; its output, which must end in "ok"."""
        out = self.cmd(line, timeout=timeout)
        assert re.search(r"\bok\s*$", out) and "error:" not in out, (line, out)
        return out


def kernel_hz():
    with open(os.path.join(LINUX, "obj", ".config")) as f:
        return int(re.search(r"^CONFIG_HZ=(\d+)$", f.read(), re.M).group(1))


@pytest.fixture
def linux(request):
    """Factory: linux(smp=1, append="") -> LinuxGuest at init's prompt."""
    if not os.path.exists(BZIMAGE):
        pytest.fail(f"no {BZIMAGE}: run `make linux` first (`make test` does)")
    os.makedirs(LOG_DIR, exist_ok=True)
    guests = []
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name)

    def _boot(smp=1, append=""):
        log = os.path.join(LOG_DIR, f"{name}{'-' + str(len(guests)) if guests else ''}.log")
        args = [os.path.join(ROOT, "tools", "linux-boot"), "-smp", str(smp)]
        if append:
            args += ["-append", append]
        g = LinuxGuest(args, log, 60)
        guests.append(g)
        g.wait_prompt(60)
        return g

    yield _boot
    close_all(request, guests)


def state(g):
    """dyn_tick_state's three lines as {name: value}; exactly those three."""
    out = g.run(f"cat {STATE}")
    lines = [l for l in out.splitlines() if l and not l.startswith("cat ok")]
    fields = {}
    for line in lines:
        m = re.fullmatch(r"(suitable|enabled|using APIC):\t([01])", line)
        assert m, f"not a status line: {line!r} in {out!r}"
        fields[m.group(1)] = int(m.group(2))
    assert list(fields) == ["suitable", "enabled", "using APIC"], out
    return fields


def wait_suitable(g, want=1, timeout=10):
    """`suitable` becomes 1 when the first CPU switches its tick to nohz
    mode, which can come after /init started (linux/README.md)."""
    deadline = time.monotonic() + timeout
    while True:
        s = state(g)
        if s["suitable"] == want or time.monotonic() > deadline:
            return s
        time.sleep(0.1)


def local_timer_irqs(g):
    """Local APIC timer interrupts so far, per CPU (/proc/interrupts LOC)."""
    out = g.run("cat /proc/interrupts")
    m = re.search(r"^\s*LOC:((?:\s+\d+)+)\s+Local timer interrupts", out, re.M)
    assert m, out
    return [int(x) for x in m.group(1).split()]


def stats(g):
    """dyn_tick_stats: {cpu: {stopped, skipped, timer, other}}."""
    out = g.run(f"cat {STATS}")
    lines = [l for l in out.splitlines() if l and not l.startswith("cat ok")]
    assert lines[0].split() == ["cpu", "stopped", "skipped", "timer", "other"], out
    rows = {}
    for line in lines[1:]:
        cpu, *vals = (int(x) for x in line.split())
        rows[cpu] = dict(zip(["stopped", "skipped", "timer", "other"], vals))
    return rows


def idle_window(g):
    """Sleep IDLE_MS in init; local timer interrupts per second on CPU 0,
    and the dyn_tick_stats of CPU 0 across it."""
    before, s0 = local_timer_irqs(g), stats(g)
    t = time.monotonic()
    g.run(f"sleep {IDLE_MS}", timeout=IDLE_MS / 1000 + 20)
    host_s = time.monotonic() - t
    after, s1 = local_timer_irqs(g), stats(g)
    delta = {k: s1[0][k] - s0[0][k] for k in s1[0]}
    # The guest slept IDLE_MS of its own time; the rate is per guest second.
    return (after[0] - before[0]) / (IDLE_MS / 1000), delta, host_s


def dmesg(g):
    """The kernel's log (init keeps all but warnings off the console)."""
    return g.run("dmesg", timeout=30)


def no_kernel_complaints(g):
    log = g.log_text() + dmesg(g)
    for bad in ("WARNING:", "BUG:", "Call Trace", "Oops", "soft lockup", "rcu_sched self-detected"):
        assert bad not in log, f"{bad} in the guest's log:\n{log[-3000:]}"


def test_boot_messages_and_status_lines(linux):
    g = linux(smp=2)
    s = wait_suitable(g)
    assert s == {"suitable": 1, "enabled": 1, "using APIC": 1}, s
    log = dmesg(g)
    assert re.search(r"dyn-tick: Found suitable timer: lapic", log), log
    m = re.search(r"dyn-tick: Maximum ticks to skip limited to (\d+)", log)
    assert m and int(m.group(1)) > 0, log
    assert "dyn-tick: Timer using dynamic tick" in log, log
    assert "dyn-tick: Timer not enabled during boot" not in log
    assert "Cannot use local APIC" not in log
    # Both CPUs have a row of counters.
    assert sorted(stats(g)) == [0, 1]
    no_kernel_complaints(g)


@pytest.mark.timing
def test_idle_tick_stops_and_the_switch_brings_it_back(linux):
    g = linux()
    hz = kernel_hz()
    assert wait_suitable(g)["suitable"] == 1
    rate_on, d_on, _ = idle_window(g)
    assert rate_on <= MAX_IDLE_RATE_ON, (rate_on, d_on)
    # The tick was stopped and ticks skipped: most of the window's HZ * s.
    assert d_on["stopped"] >= 1 and d_on["skipped"] >= hz * IDLE_MS / 1000 * 0.8, d_on
    g.run(f"write {STATE} 0")
    assert state(g) == {"suitable": 1, "enabled": 0, "using APIC": 1}
    rate_off, d_off, _ = idle_window(g)
    lo, hi = OFF_RATE_FRACTION
    assert lo * hz <= rate_off <= hi * hz, (rate_off, hz)
    assert d_off["stopped"] == 0 and d_off["skipped"] == 0, d_off
    g.run(f"write {STATE} 1")
    rate_again, _, _ = idle_window(g)
    assert rate_again <= MAX_IDLE_RATE_ON, rate_again
    no_kernel_complaints(g)


def test_stats_count_exits_by_cause(linux):
    g = linux()
    wait_suitable(g)
    _, d, _ = idle_window(g)
    # The sleep's own timer ends the last stopped stretch: a timer exit.
    # Every stretch that stopped the tick ended one way or the other.
    assert d["timer"] >= 1, d
    assert d["timer"] + d["other"] >= d["stopped"] - 1, d
    # Malformed writes: an error, and the state is unchanged.
    for bad in ("2", "x", "maybe"):
        out = g.cmd(f"write {STATE} {bad}")
        assert out.startswith("error: write") and "Invalid argument" in out, (bad, out)
    assert state(g)["enabled"] == 1
    out = g.cmd(f"write {STATS} 0")
    assert out.startswith("error: write"), out


@pytest.mark.timing
def test_toggles_under_load_on_two_cpus(linux):
    g = linux(smp=2)
    wait_suitable(g)

    def uptime():
        """The guest's uptime, and the host's clock before the command
        went out and after its answer came back: the guest read its
        clock somewhere in between."""
        before = time.monotonic()
        out = g.run("cat /proc/uptime")
        return float(out.split()[0]), before, time.monotonic()

    u0, b0, a0 = uptime()
    g.run("spin 2 4000")
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
    rate, _, _ = idle_window(g)
    assert rate <= MAX_IDLE_RATE_ON, rate
    no_kernel_complaints(g)


def test_nohz_off_wins(linux):
    g = linux(append="nohz=off")
    log = dmesg(g)
    assert "dyn-tick: No suitable timer found (nohz=off)" in log, log
    assert "dyn-tick: Found suitable timer" not in log
    assert state(g)["suitable"] == 0
    out = g.cmd(f"write {STATE} 1")
    assert out.startswith("error: write") and "No such device" in out, out
    g.run(f"write {STATE} 0")
    assert state(g)["enabled"] == 0
    hz = kernel_hz()
    rate, _, _ = idle_window(g)
    assert rate >= OFF_RATE_FRACTION[0] * hz, (rate, hz)


@pytest.mark.timing
def test_dyntick_disable_at_boot_then_on_at_run_time(linux):
    g = linux(append="dyntick=disable")
    s = wait_suitable(g)
    assert s == {"suitable": 1, "enabled": 0, "using APIC": 1}, s
    log = dmesg(g)
    assert "dyn-tick: Timer not enabled during boot" in log, log
    assert "dyn-tick: Timer using dynamic tick" not in log
    hz = kernel_hz()
    rate_off, _, _ = idle_window(g)
    assert OFF_RATE_FRACTION[0] * hz <= rate_off <= OFF_RATE_FRACTION[1] * hz, (rate_off, hz)
    # What a boot option could not do: turn it on without a reboot.
    g.run(f"write {STATE} 1")
    rate_on, _, _ = idle_window(g)
    assert rate_on <= MAX_IDLE_RATE_ON, rate_on


@pytest.mark.parametrize("value,enabled", [("enable", 1), ("enabled,forceapic", 1),
                                           ("disable", 0), ("bogus", 1)])
def test_dyntick_option_prefix_rules(linux, value, enabled):
    g = linux(append=f"dyntick={value}")
    assert wait_suitable(g)["enabled"] == enabled
    if value == "bogus":
        # Ignored with a warning, the default (on) kept.
        log = dmesg(g)
        assert re.search(r"dyn-tick: dyntick=bogus is neither enable nor disable: ignored", log), log


def test_series_is_checkpatch_clean():
    r = subprocess.run([os.path.join(ROOT, "tools", "linux-checkpatch")], cwd=ROOT,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
