"""One guest in QEMU, measured from the host: lull's shell or the Linux init.

Both guests answer the same commands (`idle`, `latency`, `sleep`, `uptime`,
`poweroff`) at a prompt on the serial port, so one piece of code times them
the same way.  QEMU is started and its console driven by the system tests'
Lull class (tests/lullvm/qemu.py).

The power proxy is the CPU time the host gives the QEMU process.  Near the
floor, /proc/PID/stat's 10 ms ticks are far too coarse, so it is read in
nanoseconds from every thread's /proc/PID/task/TID/schedstat (first field:
time spent on a CPU) and summed: the vCPU thread, the main loop, RCU and
whatever else QEMU runs.
"""
import glob
import os
import re
import statistics
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(ROOT, "tests"))
from lullvm.qemu import ICOUNT_RTC, Lull, qemu_args  # noqa: E402,F401

# Both guests' `idle` (lull's, and linux/init.c's, which prints the first
# figures alone): looser than lullvm.parse.idle, which reads lull's whole line.
IDLE_RE = re.compile(r"idle (\d+\.\d+) s: (\d+) wakeups \((\d+\.\d+)/s\)")
# On several CPUs `idle` adds one line per CPU after the sum.
IDLE_CPU_RE = re.compile(r"^cpu (\d+): (\d+) wakeups \((\d+\.\d+)/s\)", re.M)
HALTED_RE = re.compile(r"halted (\d+\.\d+)%")
ALL_IRQS_RE = re.compile(r"all interrupts (\d+)")
CAUSE_RE = re.compile(r"^\s*(\d+)\s+(\d+\.\d+)\t(.+?)\s*$", re.M)
# p50/p99 past lull's 20 ms histogram print as ">=20000": a lower bound.
LATENCY_RE = re.compile(r"latency: n=(\d+) period=(\d+)us min=(\d+) avg=(\d+\.\d+) "
                        r"p50=(>=)?(\d+) p99=(>=)?(\d+) max=(\d+)")
# A log2 bin "LO-HI us COUNT", or lull's last one, open-ended: ">=LO us COUNT".
HIST_RE = re.compile(r"^\s*(?:(\d+)-(\d+)|>=(\d+))\s+us\s+(\d+)", re.M)
UPTIME_RE = re.compile(r"up (\d+)\.(\d{9}) s")
LINUX_CLOCKS_RE = re.compile(r"^clocksource \S+, clockevent \S+", re.M)
PANIC = "system halted."     # the last line of lull's panic report
# Our own typing at the shell wakes lull through the UART: not idle wakeups.
OWN_TYPING = "(uart)"
# A line of `cpus`: index, APIC ID, state, tick, "wakeups since reset (rate/s)".
CPUS_RE = re.compile(r"^\s*(\d+)\s+(\d+)\s+(idle|busy|off)\s+(.+?)\s+(\d+) \([\d.]+/s\)\s*$", re.M)


def qemu_thread_ns(pid):
    """{thread id: nanoseconds of CPU it has used so far} for the process."""
    threads = {}
    for path in glob.glob(f"/proc/{pid}/task/*/schedstat"):
        try:
            with open(path) as f:
                threads[path.split("/")[4]] = int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            pass    # a thread that ended between glob and open
    return threads


def qemu_cpu_ns(pid):
    """Nanoseconds of CPU the process has used so far, all threads summed."""
    return sum(qemu_thread_ns(pid).values())


class Guest:
    """A booted guest at its prompt, or one that failed to get there."""

    def __init__(self, qemu, accel, kernel=None, iso=None, append=None, cpu=None,
                 extra=(), prompt="lull> ", log_path=None, boot_timeout=60, icount=None):
        # A row boots the CPUs it names (one unless -smp says): the test
        # suite's LULL_SMP must not change what the bench measures.
        if "-smp" not in extra:
            extra = ["-smp", "1"] + list(extra)
        # nic: the machine the recorded figures were measured on, QEMU's
        # default network card included (lullvm.qemu.qemu_args).
        args = qemu_args(elf=kernel, iso=iso, append=append, cpu=cpu, icount=icount, extra=extra,
                         qemu=qemu, nic=True)
        args[args.index("-accel") + 1] = accel
        self.prompt = prompt
        t0 = time.monotonic()
        self.vm = Lull(args, log_path, boot_timeout)
        self.pid = self.vm.child.pid
        self.vm.child.expect(r"\S", timeout=boot_timeout)
        self.first_byte_s = time.monotonic() - t0
        self.started = t0

    def wait_prompt(self, timeout=60):
        """Wait for the first prompt; return seconds since QEMU started."""
        if self.vm.child.expect_exact([self.prompt, PANIC], timeout=timeout) == 1:
            raise RuntimeError("the guest panicked while booting (see its serial log)")
        return time.monotonic() - self.started

    def wait_for_either(self, text, other, timeout=60):
        """Seconds since QEMU started until `text`; None if `other` came first."""
        i = self.vm.child.expect_exact([text, other, PANIC], timeout=timeout)
        if i == 2:
            raise RuntimeError("the guest panicked while booting (see its serial log)")
        return time.monotonic() - self.started if i == 0 else None

    def cmd(self, line, timeout=30):
        """Type a line; return its output (without the echo) up to the next prompt."""
        self.vm.type(line + "\r")
        self.vm.child.expect_exact(self.prompt, timeout=timeout)
        out = self.vm.child.before.replace("\r\n", "\n")
        return out.split("\n", 1)[1] if "\n" in out else ""

    def timed_cmd(self, line, timeout=30):
        """Type a line, and time from its Enter to the next prompt: (seconds, output)."""
        self.vm.type(line)
        self.vm.child.expect_exact(line, timeout=timeout)        # the echo
        t0 = time.monotonic()
        self.vm.child.send("\r")
        self.vm.child.expect_exact(self.prompt, timeout=timeout)
        return time.monotonic() - t0, self.vm.child.before.replace("\r\n", "\n")

    def uptime(self):
        """(guest seconds, host monotonic seconds at the middle of the exchange)."""
        h0 = time.monotonic()
        out = self.cmd("uptime")
        h1 = time.monotonic()
        m = UPTIME_RE.search(out)
        if not m:
            raise RuntimeError(f"uptime: unexpected output {out!r}")
        return int(m.group(1)) + int(m.group(2)) / 1e9, (h0 + h1) / 2

    def close(self, poweroff=True):
        if poweroff and self.vm.alive():
            try:
                self.vm.type("poweroff\r")
                self.vm.wait_exit(timeout=10)
            except Exception:
                pass
        self.vm.close()


# ------------------------------------------------------------ measurements

def cpu_window(g, seconds, pulse=None):
    """Host CPU of QEMU over the middle of a guest idle period of `seconds`.

    The first and last half second (a quarter of short windows) are left
    out: there the guest is still starting the command or already printing
    its result, and one line of serial output costs more than an idle
    second.  What remains is what idling itself costs.

    pulse: (interval in seconds, function): the function is called every
    interval on the host clock, from the start of the period to its end,
    while the host CPU is measured too; how often, in the result's "pulses".
    """
    margin = min(0.5, seconds / 4)
    start = time.monotonic()
    pulses = 0

    def wait_until(t):
        nonlocal pulses
        while pulse and start + (pulses + 1) * pulse[0] <= t:
            time.sleep(max(0.0, start + (pulses + 1) * pulse[0] - time.monotonic()))
            pulse[1]()
            pulses += 1
        time.sleep(max(0.0, t - time.monotonic()))
    wait_until(start + margin)
    th0, t0 = qemu_thread_ns(g.pid), time.monotonic()
    wait_until(start + seconds - margin)
    th1, t1 = qemu_thread_ns(g.pid), time.monotonic()
    if pulse:       # on to the end of the period, outside the measurement
        wait_until(start + seconds - pulse[0] / 2)
    used = sorted((ns - th0.get(tid, 0) for tid, ns in th1.items()), reverse=True)
    cpu = sum(used)
    # With a CPU spinning (`busy`), its vCPU thread (QEMU runs one host
    # thread per vCPU under TCG) is nearly a whole host CPU, and hides what
    # the idle CPUs cost: the rest is the host CPU less the busiest thread.
    rest = sum(used[1:])
    return dict(cpu_ms=cpu / 1e6, cpu_window_s=t1 - t0, cpu_ms_per_s=cpu / 1e6 / (t1 - t0), pulses=pulses,
                busiest_thread_ms_per_s=used[0] / 1e6 / (t1 - t0) if used else 0.0,
                rest_cpu_ms_per_s=rest / 1e6 / (t1 - t0))


def start_cmd(g, line):
    """Type a line and Enter, and return once the guest has echoed the
    Enter: the command has started.  Its output is read with expect."""
    g.vm.type(line)
    g.vm.child.expect_exact(line)
    g.vm.child.send("\r")
    g.vm.child.expect_exact("\n")


def wait_boot_timers(g, limit=5.0):
    """Idle means nothing pending: let the one timer boot leaves behind (the
    TSC's second calibration, a second after boot) run first."""
    deadline = time.monotonic() + limit
    while "tsc-refine" in g.cmd("timers") and time.monotonic() < deadline:
        time.sleep(0.2)


def measure_idle(g, seconds, per_cpu=False):
    """Idle for `seconds`: wakeups, causes, host CPU and drift over the window.

    per_cpu: also each CPU's wakeups over the window (`idle`'s own line
    per CPU; its first line is then their sum) and each CPU's state from
    `cpus` just after it (see per_cpu_rates)."""
    g0, h0 = g.uptime()
    start_cmd(g, f"idle {seconds}")
    r = cpu_window(g, seconds)
    g.vm.child.expect_exact(g.prompt, timeout=seconds + 60)
    out = g.vm.child.before.replace("\r\n", "\n")
    if per_cpu:
        cpus_out = g.cmd("cpus")
    g1, h1 = g.uptime()
    m = IDLE_RE.search(out)
    if not m:
        raise RuntimeError(f"idle: unexpected output {out!r}")
    # The rate from count and span: the guest prints it truncated to 0.01/s.
    r.update(span_s=float(m.group(1)), wakeups=int(m.group(2)),
             wakeups_per_s=int(m.group(2)) / float(m.group(1)),
             drift_ms=((g1 - g0) - (h1 - h0)) * 1000, drift_window_s=h1 - h0)
    h = HALTED_RE.search(out)
    r["halted_pct"] = float(h.group(1)) if h else None
    a = ALL_IRQS_RE.search(out)
    r["all_irqs"] = int(a.group(1)) if a else None
    r["causes"] = CAUSE_RE.findall(out)     # Linux: printed by idle itself
    c = LINUX_CLOCKS_RE.search(out)
    r["clocks"] = c.group(0) if c else None
    if per_cpu:
        r.update(per_cpu_rates(out, cpus_out, r["span_s"]))
        # The row's own rate stays the boot CPU's, as on one CPU.
        r["wakeups"] = r["per_cpu"][0]["wakeups"]
        r["wakeups_per_s"] = r["per_cpu_wakeups_per_s"][0]
    return r


def per_cpu_rates(idle_out, cpus_out, span_s):
    """Each CPU's wakeups per second over the `idle` window (its line per
    CPU: the count over the guest's span, as `idle` prints the rate only to
    0.01/s), and each CPU's state and tick from `cpus`."""
    counts = {int(i): int(n) for i, n, _ in IDLE_CPU_RE.findall(idle_out)}
    lines = CPUS_RE.findall(cpus_out)
    if not lines or len(counts) != len(lines):
        raise RuntimeError(f"idle/cpus: unexpected output {idle_out!r} {cpus_out!r}")
    cpus = [dict(cpu=int(i), apic=int(apic), state=state, tick=tick, wakeups=counts[int(i)])
            for i, apic, state, tick, _ in lines]
    rates = [c["wakeups"] / span_s for c in cpus]
    return dict(per_cpu=cpus, per_cpu_span_s=span_s, per_cpu_wakeups_per_s=rates,
                total_wakeups_per_s=sum(rates))


def lull_causes(g):
    """The `wakeups` table, without the wakeups our typing caused."""
    out = g.cmd("wakeups")
    return [c for c in CAUSE_RE.findall(out) if OWN_TYPING not in c[2]]


def measure_floor(g, seconds):
    """Host CPU of a guest that has stopped everything: no shell, just wait."""
    r = cpu_window(g, seconds)
    r["span_s"] = seconds
    return r


# `latency ... breakdown` (include/time/path.h): a stage's average and
# slowest ns, and the part before the interrupt's entry.
BREAKDOWN_STAGE_RE = re.compile(r"^  ([a-z ]+?) +(\d+) +(\d+)\r?$", re.M)
BREAKDOWN_BEFORE_RE = re.compile(r"^  deadline to entry +(-?\d+)\r?$", re.M)


def measure_latency(g, count, period_us, timeout):
    return parse_latency(g.cmd(f"latency {count} {period_us}", timeout=timeout))


def parse_latency(out, breakdown=False):
    """`latency`'s figures and histogram (and its breakdown, if asked for)."""
    m = LATENCY_RE.search(out)
    if not m:
        raise RuntimeError(f"latency: unexpected output {out!r}")
    n, period_us, lo, avg, p50_clipped, p50, p99_clipped, p99, top = m.groups()
    r = dict(n=int(n), period_us=int(period_us), min=int(lo), avg=float(avg), p50=int(p50),
             p99=int(p99), max=int(top), p50_clipped=bool(p50_clipped),
             p99_clipped=bool(p99_clipped))
    r["hist"] = []
    for lo, hi, open_lo, count in HIST_RE.findall(out):
        if open_lo:     # the open last bin: drawn up to the largest sample
            lo, hi = int(open_lo), max(2 * int(open_lo), r["max"] + 1)
        r["hist"].append((int(lo), int(hi), int(count)))
    if breakdown:
        before = BREAKDOWN_BEFORE_RE.search(out)
        stages = BREAKDOWN_STAGE_RE.findall(out)
        if not before or not stages:
            raise RuntimeError(f"latency breakdown: unexpected output {out!r}")
        r["breakdown"] = {"deadline to entry": int(before.group(1))}
        r["breakdown"].update((name, int(avg)) for name, avg, _ in stages)
    return r


def measure_sleeps(g, sleeps_ms, reps):
    """Overshoot of `sleep MS` seen from the host, in ms.

    The host times Enter -> prompt; the same for `sleep 0` is the serial
    round trip and the shell's own work, and is subtracted.
    """
    def median_time(ms):
        return statistics.median(g.timed_cmd(f"sleep {ms}")[0] for _ in range(reps))
    base = median_time(0)
    return {ms: (median_time(ms) - base) * 1000 - ms for ms in sleeps_ms}, base * 1000


def capture_trace(g, seconds):
    out = g.cmd(f"trace {seconds}", timeout=seconds + 60)
    return "\n".join(line for line in out.splitlines()
                     if line.startswith("#") or line.startswith("t_ns") or line[:1].isdigit())
