#!/usr/bin/python3
"""make soak: a day of guest time in each tick mode, in minutes of host time.

Under `-icount shift=4,sleep=off` QEMU's virtual clock advances 16 ns per
guest instruction and, when every CPU is halted, jumps straight to the next
timer deadline (docs/robustness.md has what we measured of sleep=on and
sleep=off).  A guest that mostly sleeps therefore lives through hours in
seconds: `idle 3600` takes as long on the host as its wakeups do to emulate.

For each tick mode (tickless, dyntick, periodic) one boot:

  every 100        a periodic wheel timer stays armed all the time (light load)
  per guest hour   `timeron 0 MS` (an hrtimer and a wheel timer, MS varying),
                   `stress 5` (timers armed and cancelled for 5 s, checked),
                   `idle 3600`, `uptime`

and the checks, each of which stops the run with the serial log's tail:
no panic and no line starting `error:`; every stress burst says `stress: ok`;
`uptime` never goes back; over the whole soak lull's uptime agrees with the
CMOS clock (`-rtc clock=vm`: it counts QEMU's virtual seconds and nothing
of lull's, see tests/system/test_drift.py) within UPTIME_PPM, and jiffies
with uptime within JIFFIES_SLACK ticks; no line says a clocksource became
unstable or a watchdog saw a skew (WATCHDOG_ALARM).

What dominates the host time is the cost of one wakeup, not the guest's
work: about 75 us each, mostly QEMU's vCPU thread and main loop handing the
clock over to each other, and half that (35 us) when both run on one host
CPU.  So QEMU is pinned to one CPU (taskset), and a day in periodic mode at
HZ=250 (21.6 million ticks) takes about 13 minutes instead of 27.

Output: $(BUILD)/soak/summary.md (also printed), summary.json, one serial
log per mode.  Exit status 1 if any check failed.

    /usr/bin/python3 tools/soak.py [--hours H] [--modes tickless,dyntick,periodic]
                                   [--hz HZ] [--smp N] [--cpu HOSTCPU]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(ROOT, "tests"))
from lullvm import parse  # noqa: E402
from lullvm.qemu import BUILD, ELF, ICOUNT_SHIFT, Lull, icount_host_cpu, qemu_args  # noqa: E402
from lullvm.rtc import RTC_VM, rtc_edge  # noqa: E402

MODES = ("tickless", "dyntick", "periodic")
EVERY_MS = 100               # the light load: a wheel timer 10 times a second
STRESS_S = 5                 # one burst per guest hour
IDLE_S = 3600                # `idle`'s longest window
# The ACPI PM timer: 24 bits at 3.579545 MHz wraps every 4.687 s.
PM_TIMER_WRAP_S = (1 << 24) / 3579545
# lull's TSC is refined to about 1 ppm of QEMU's virtual clock (test_drift
# sees within 3 ppm); the two RTC edges add ~10 ms, 0.1 ppm over a day.
UPTIME_PPM = 10
# rtc_edge's probes (`uptime`, `date`, `sleep MS`, test_drift.py) must
# come less than 15 ms apart.  Where a tick runs, `sleep` ends on one: at
# HZ=100 `sleep 9` can take 20 ms, so there it probes as for a tick-based
# clock, with `sleep 1` (10 ms).  A paste of probes covers about a second
# or less; EDGE_TRIES of rtc_edge's 6 pastes each make missing the edge
# (seen once in dozens of runs at HZ=250) all but impossible.
EDGE_TRIES = 3
# jiffies are read in the same `uptime` as the clocksource; a tickless CPU
# brings them up to date on every wakeup, so they lag by less than a tick.
JIFFIES_SLACK = 2

PANIC = "system halted."
ERROR_RE = re.compile(r"^(error:.*|panic.*)$", re.M)
# Any line saying a clocksource turned unstable: the clocksource watchdog's
# alarm ("clocksource: tsc marked unstable: watchdog: ...", which
# conftest.py looks for in every test's log), or any other way a counter
# could be condemned.
WATCHDOG_ALARM = re.compile(r"^.*clocksource\b.*\bunstable.*$", re.M | re.I)
WATCHDOG_RE = re.compile(r"checks (\d+), skipped for slow reads (\d+), alarms (\d+)")
STRESS_RE = re.compile(r"stress: \d+ CPUs, (\d+) arms, (\d+) fired, (\d+) cancelled, "
                       r"(\d+) re-armed while pending, (\d+) still pending; (\d+) early")
STRESS_KEYS = ("arms", "fired", "cancelled", "rearmed", "pending", "early")
TIMERON_HR_RE = re.compile(r"hrtimer: ran on CPU \d+, (\d+\.\d+) us after its deadline")
TIMERON_WHEEL_RE = re.compile(r"wheel timer: .*, (\d+\.\d+) ms after it was armed")


class SoakFailure(AssertionError):
    """A check failed; the message carries the serial log's tail."""


class Soak:
    """One boot of lull in one tick mode, driven through its shell."""

    def __init__(self, mode, log_path, hz=None, smp=1, host_cpu=None):
        self.mode, self.hz = mode, hz
        # Pinned (lullvm.qemu.icount_pin), though typed to: half the host time
        # a wakeup, and what the soak checks allows for input's timing.
        args = qemu_args(elf=ELF, append="", icount=ICOUNT_SHIFT,
                         extra=RTC_VM + ["-smp", str(smp)], pin=True, host_cpu=host_cpu)
        self.vm = Lull(args, log_path, 60)
        self.vm.wait_prompt(60)
        self.last_ns = 0
        self.stress = dict.fromkeys(STRESS_KEYS, 0)
        self.bursts = 0
        self.worst_hr_us = 0.0
        self.worst_wheel_ms = 0.0    # how far past its MS a wheel timer ran
        self.idle_wakeups = 0

    def fail(self, what):
        raise SoakFailure(f"{self.mode}: {what}\n--- serial log {self.vm.log_path}, last lines:\n"
                          + self.vm.log_text()[-2500:])

    def cmd(self, line, timeout=60):
        out = self.vm.cmd(line, timeout)
        self.check_output(line, out)
        return out

    def check_output(self, line, out):
        bad = ERROR_RE.search(out) or WATCHDOG_ALARM.search(out)
        if bad or PANIC in out:
            self.fail(f"`{line}` printed {bad.group(0) if bad else PANIC!r}")

    def uptime(self):
        """(ns, jiffies, HZ); fails if uptime went back."""
        out = self.cmd("uptime")
        try:
            u = parse.uptime(out)
        except parse.ParseError:
            self.fail(f"uptime: unexpected output {out!r}")
        ns = u.ns
        if ns < self.last_ns:
            self.fail(f"uptime went back: {self.last_ns} ns, then {ns} ns")
        self.last_ns = ns
        return ns, u.jiffies, u.hz

    def setup(self):
        self.cmd(f"tick {self.mode}")
        if self.hz:
            self.cmd(f"hz {self.hz}")
        tick = self.cmd("tick")
        if not tick.startswith(f"tick: {self.mode} "):
            self.fail(f"asked for {self.mode}, `tick` says {tick!r}")
        self.tick_line = tick.strip()
        self.cmd(f"every {EVERY_MS}")
        self.cmd("wakeups reset")

    def rtc_edge(self):
        """(uptime ns, RTC seconds) at a turn of the CMOS clock's second."""
        hz = int(re.search(r"HZ=(\d+)", self.tick_line).group(1))
        kind = "tick-based" if self.mode != "tickless" and hz == 100 else "continuous"
        for attempt in range(EDGE_TRIES):
            try:
                return rtc_edge(self.vm, kind)
            except AssertionError as e:
                if attempt == EDGE_TRIES - 1 or "no CMOS second edge" not in str(e):
                    self.fail(f"rtc_edge: {str(e)[:300]}")

    def hour(self, n):
        """One guest hour of load, then idle."""
        ms = 1 + (n * 7919) % 60000       # spread over timeron's range
        out = self.cmd(f"timeron 0 {ms}", timeout=120)
        hr, wheel = TIMERON_HR_RE.search(out), TIMERON_WHEEL_RE.search(out)
        if not hr or not wheel:
            self.fail(f"timeron: unexpected output {out!r}")
        self.worst_hr_us = max(self.worst_hr_us, float(hr.group(1)))
        self.worst_wheel_ms = max(self.worst_wheel_ms, float(wheel.group(1)) - ms)
        out = self.cmd(f"stress {STRESS_S}", timeout=120)
        m = STRESS_RE.search(out)
        if not m or "stress: ok" not in out:
            self.fail(f"stress: not clean: {out!r}")
        for k, v in zip(STRESS_KEYS, m.groups()):
            self.stress[k] += int(v)
        self.bursts += 1
        out = self.cmd(f"idle {IDLE_S}", timeout=1800)
        try:
            self.idle_wakeups += parse.idle(out).wakeups
        except parse.ParseError:
            self.fail(f"idle: unexpected output {out!r}")
        self.uptime()

    def close(self):
        self.vm.close()         # QEMU is stopped: nothing in the guest to save


def soak_mode(mode, hours, log_dir, hz=None, smp=1, host_cpu=None, progress=None):
    """Run one mode's soak; return its summary dict (raises SoakFailure)."""
    t0 = time.monotonic()
    s = Soak(mode, os.path.join(log_dir, f"soak-{mode}.log"), hz, smp, host_cpu)
    try:
        s.setup()
        ns0, j0, _ = s.uptime()
        edge0, rtc0 = s.rtc_edge()
        for n in range(hours):
            s.hour(n)
            if progress:
                progress(mode, n + 1, hours, time.monotonic() - t0)
        edge1, rtc1 = s.rtc_edge()
        ns1, j1, hz = s.uptime()
        out = s.cmd("wakeups")
        try:
            wakeups = parse.wakeups(out).total
        except parse.ParseError:
            s.fail(f"wakeups: unexpected output {out!r}")
        # The watchdog ran all along (on interrupts that came anyway) and
        # never cried wolf; its own counts, besides the log's lines.
        out = s.cmd("watchdog")
        m = WATCHDOG_RE.search(out)
        if not m:
            s.fail(f"watchdog: unexpected output {out!r}")
        wd_checks, wd_alarms = int(m.group(1)), int(m.group(3))
        if wd_checks == 0:
            s.fail("the watchdog never checked")
        if wd_alarms:
            s.fail(f"the watchdog counts {wd_alarms} alarm(s)")
        s.cmd("every off")
        # The whole log once more: a line between prompts (an interrupt's
        # report) that no command's output held.
        log = s.vm.log_text()
        alarms = WATCHDOG_ALARM.findall(log)
        true_ns = (rtc1 - rtc0) * 10**9
        ppm = (edge1 - edge0 - true_ns) / true_ns * 1e6
        jiffies_off = ((j1 - j0) & 0xFFFFFFFF) - (ns1 - ns0) * hz / 1e9
        r = dict(mode=mode, tick=s.tick_line, guest_hours=(ns1 - ns0) / 3.6e12,
                 host_s=time.monotonic() - t0, uptime_vs_rtc_ppm=ppm,
                 jiffies_vs_uptime_ticks=jiffies_off,
                 pm_timer_wraps=int((ns1 - ns0) / 1e9 / PM_TIMER_WRAP_S),
                 wakeups=wakeups, idle_wakeups=s.idle_wakeups, stress_bursts=s.bursts,
                 stress=s.stress, worst_hrtimer_late_us=s.worst_hr_us,
                 worst_wheel_late_ms=s.worst_wheel_ms,
                 watchdog_alarms=len(alarms), watchdog_checks=wd_checks,
                 watchdog_slow_reads=int(m.group(2)), panics=log.count(PANIC),
                 errors=len(ERROR_RE.findall(log)))
        if alarms:
            s.fail(f"{len(alarms)} clocksource watchdog alarm(s)")
        if r["panics"] or r["errors"]:
            s.fail(f"{r['panics']} panic(s), {r['errors']} error line(s) in the log")
        if abs(ppm) > UPTIME_PPM:
            s.fail(f"uptime {ppm:+.2f} ppm from the CMOS clock over the soak (bound {UPTIME_PPM})")
        if abs(jiffies_off) > JIFFIES_SLACK:
            s.fail(f"jiffies {jiffies_off:+.1f} ticks from uptime (bound {JIFFIES_SLACK})")
        return r
    finally:
        s.close()


def summary_table(results, hours):
    lines = [f"Soak: {hours} guest hour(s) per mode, icount shift={ICOUNT_SHIFT} sleep=off, "
             f"light load `every {EVERY_MS}`, `stress {STRESS_S}` and `timeron` every guest hour.",
             "",
             "| mode | guest h | host s | uptime vs RTC ppm | jiffies off (ticks) | PM timer wraps "
             "| wakeups | stress bursts | stress arms/fired/cancelled/early "
             "| worst hrtimer late us | worst wheel late ms | watchdog checks, alarms |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        st = r["stress"]
        lines.append(f"| {r['tick']} | {r['guest_hours']:.3f} | {r['host_s']:.0f} "
                     f"| {r['uptime_vs_rtc_ppm']:+.2f} | {r['jiffies_vs_uptime_ticks']:+.1f} "
                     f"| {r['pm_timer_wraps']} | {r['wakeups']} | {r['stress_bursts']} "
                     f"| {st['arms']}/{st['fired']}/{st['cancelled']}/{st['early']} "
                     f"| {r['worst_hrtimer_late_us']:.2f} | {r['worst_wheel_late_ms']:.2f} "
                     f"| {r['watchdog_checks']}, {r['watchdog_alarms']} |")
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--hours", type=int, default=24, help="guest hours per mode (default 24)")
    p.add_argument("--modes", default=",".join(MODES))
    p.add_argument("--hz", type=int, choices=(100, 250, 1000), help="tick rate (default: the build's)")
    p.add_argument("--smp", type=int, default=1, help="guest CPUs (default 1)")
    p.add_argument("--cpu", type=int, default=None, help="host CPU to pin QEMU to (default: the last)")
    a = p.parse_args()
    host_cpu = icount_host_cpu() if a.cpu is None else a.cpu
    out_dir = os.path.join(BUILD, "soak")
    os.makedirs(out_dir, exist_ok=True)
    rev = subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty"],
                         capture_output=True, text=True).stdout.strip()

    def progress(mode, n, total, host_s):
        print(f"  {mode}: guest hour {n}/{total}, {host_s:.0f} s of host time", flush=True)

    results, failures = [], []
    for mode in a.modes.split(","):
        print(f"soak: {mode}, {a.hours} guest hour(s), QEMU pinned to host CPU {host_cpu}", flush=True)
        try:
            results.append(soak_mode(mode, a.hours, out_dir, a.hz, a.smp, host_cpu, progress))
        except SoakFailure as e:
            failures.append(str(e))
            print(f"FAILED: {e}", flush=True)
    text = summary_table(results, a.hours)
    text += (f"\nlull {rev}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
             f"-smp {a.smp}, QEMU pinned to one host CPU; logs in {out_dir}/\n")
    if failures:
        text += "\nFAILED:\n" + "\n".join(f.split("\n")[0] for f in failures) + "\n"
    with open(os.path.join(out_dir, "summary.md"), "w") as f:
        f.write(text)
    with open(os.path.join(out_dir, "summary.json"), "w") as f:
        json.dump(dict(rev=rev, hours=a.hours, results=results, failures=failures), f, indent=1)
    print(text)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
