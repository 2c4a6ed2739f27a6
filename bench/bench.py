#!/usr/bin/python3
"""make bench: the HZ trade-off, measured.  lull's tick modes side by side,
and beside them an idle Linux guest in the same QEMU.

For every configuration QEMU boots (TCG, or also KVM with ACCEL=kvm) and the
host measures, from outside the guest:

  wakeups/s     the guest's own count over an idle window (`idle 20`), and
                the top causes (`wakeups`; for Linux, /proc/interrupts)
  host CPU      ms of CPU the QEMU process used per second of guest idle,
                repeated (3 times in a full run): median and spread
  latency       a cyclictest loop of 1 ms periods (`latency 5000 1000`); the
                *-icount rows measure only this, under -icount shift=4,sleep=off
                (QEMU's virtual clock counts guest instructions): lull's own
                timer path without the host's tails
  sleep         how late `sleep 10|100|1000` returns, timed by the host
  drift         guest uptime minus host time over the idle window
  boot          QEMU start to the prompt: -kernel, and the ISO through GRUB
  per CPU       rows booted with -smp 4: each CPU's wakeups over the window
                (`idle`'s line per CPU) and its state (`cpus` after it),
                all CPUs idle or one spinning (`busy SECONDS 1`) through
                the whole window
  timerload     the timerload-* rows (bench/timerload.py): 50 periodic
                hrtimers per slack class, wakeups against the optimum under
                -icount, host CPU in real time, and piggybacking on and off
                while the host sends serial bytes

Output: a table here, and in build/bench/ results.md, results.csv, PNG plots,
per-boot serial logs (logs/) and the raw traces.  See docs/benchmarks.md.
A row is "ok" only if the guest ran the configuration asked for; if any row
failed, the results are still written and the exit status is 1.

    /usr/bin/python3 bench/bench.py [--quick] [--only NAME,...] [--no-linux] [--timerload-s S]
"""
import argparse
import glob
import os
import platform
import re
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import guest  # noqa: E402
import linux  # noqa: E402
import report  # noqa: E402
import timerload  # noqa: E402

ROOT = guest.ROOT
BUILD = os.environ.get("BUILD", os.path.join(ROOT, "build"))
ACCEL = os.environ.get("ACCEL", "tcg")
LULL_CPU = "qemu32"     # qemu-system-i386's default, named so every row says it
HZ_DEFAULT = 250
SMP_CPUS = 4            # the several-CPU rows: qemu-system-i386 -smp 4
ICOUNT_SHIFT = 4        # the icount rows: -icount shift=4 (16 ns per guest instruction)
BUSY_CPU = 1            # the CPU that spins in the "one CPU busy" rows


class Config:
    """One row of the table: how to boot it and what it should turn out to be."""

    def __init__(self, name, what, append="", kind="lull", hz=HZ_DEFAULT, expect=None, trace=False,
                 qemu="qemu-system-i386", cpu=LULL_CPU, smp=1, busy_cpu=None, icount=None, ref=None,
                 dyntick=None, keep_booted=False, machine=None):
        self.name, self.what, self.append, self.kind = name, what, append, kind
        self.machine = machine      # a boot row: QEMU's -machine (None: pc)
        self.qemu, self.cpu = qemu, cpu
        self.smp = smp              # CPUs QEMU gives the guest (-smp)
        self.busy_cpu = busy_cpu    # this CPU spins through the idle window (`busy S CPU`)
        self.icount = icount        # -icount shift: latency alone, on QEMU's virtual clock
        self.ref = ref or name      # a Linux row: which of linux.REFERENCES it boots
        self.hz = hz                # tick rate: hrtimers run at tick resolution in periodic/dyntick
        self.expect = expect        # "mode: M, device: D" that `dyntick` must print
        self.trace = trace          # one of the three rows of the timeline picture
        self.dyntick = dyntick      # a Linux row: "on"/"off", typed as `dyntick on|off` first
        self.keep_booted = keep_booted  # a Linux row: the next row of its ref reuses this boot


CONFIGS = [
    Config("floor", "floor: every timer stopped, every IRQ masked, halted", "floor", kind="floor"),
    Config("periodic-100", "periodic, HZ=100", "tick=periodic hz=100", hz=100,
           expect="mode: periodic, device: lapic, HZ=100"),
    Config("periodic-250", "periodic, HZ=250", "tick=periodic hz=250",
           expect="mode: periodic, device: lapic, HZ=250", trace=True),
    Config("periodic-1000", "periodic, HZ=1000", "tick=periodic hz=1000", hz=1000,
           expect="mode: periodic, device: lapic, HZ=1000"),
    Config("dyntick-pit", "dyntick on the PIT (dyntick=enable)", "dyntick=enable",
           expect="mode: dyntick, device: pit, HZ=250", trace=True),
    Config("dyntick-lapic", "dyntick on the LAPIC (dyntick=enable,forceapic)", "dyntick=enable,forceapic",
           expect="mode: dyntick, device: lapic, HZ=250"),
    Config("tickless-lapic", "tickless on the LAPIC", "tick=tickless clockevent=lapic",
           expect="mode: tickless, device: lapic, HZ=250", trace=True),
    Config("tickless-hpet", "tickless on the HPET", "tick=tickless clockevent=hpet",
           expect="mode: tickless, device: hpet, HZ=250"),
    Config("tickless-tsc-deadline", "tickless on TSC-deadline", "tick=tickless clockevent=tsc-deadline",
           expect="mode: tickless, device: tsc-deadline, HZ=250"),
    # The same as tickless-lapic in the QEMU binary and CPU model of the
    # amd64 Linux guest, so that comparison is like with like too.
    Config("tickless-lapic-x86_64", "tickless on the LAPIC, in qemu-system-x86_64 -cpu qemu64",
           "tick=tickless clockevent=lapic", expect="mode: tickless, device: lapic, HZ=250",
           qemu="qemu-system-x86_64", cpu="qemu64"),
    # Under -icount shift=4,sleep=off the guest's clock counts its own
    # instructions and skips idle time: a stall of QEMU's thread on the host
    # is invisible to the guest, so the latency left is lull's own timer
    # path, the same in every run (tests/system/test_determinism.py).  Only
    # latency: an idle window there costs no host time and has no drift.
    # Every tick mode on every clock event device, each booted twice (the
    # two runs must agree to the instruction: the bench says whether they
    # did), with `latency ... breakdown`: where the instructions go between
    # a deadline and its callback (include/time/path.h).
    Config("periodic-250-icount", "periodic, HZ=250, latency under -icount", "tick=periodic hz=250",
           expect="mode: periodic, device: lapic, HZ=250", icount=ICOUNT_SHIFT),
    Config("periodic-hpet-icount", "periodic on the HPET, latency under -icount",
           "tick=periodic clockevent=hpet", expect="mode: periodic, device: hpet, HZ=250",
           icount=ICOUNT_SHIFT),
    Config("periodic-pit-icount", "periodic on the PIT, latency under -icount",
           "tick=periodic clockevent=pit", expect="mode: periodic, device: pit, HZ=250",
           icount=ICOUNT_SHIFT),
    Config("dyntick-lapic-icount", "dyntick on the LAPIC, latency under -icount", "dyntick=enable,forceapic",
           expect="mode: dyntick, device: lapic, HZ=250", icount=ICOUNT_SHIFT),
    Config("dyntick-hpet-icount", "dyntick on the HPET, latency under -icount",
           "tick=dyntick clockevent=hpet", expect="mode: dyntick, device: hpet, HZ=250",
           icount=ICOUNT_SHIFT),
    Config("dyntick-pit-icount", "dyntick on the PIT (the 2005 patch's default), latency under -icount",
           "dyntick=enable", expect="mode: dyntick, device: pit, HZ=250", icount=ICOUNT_SHIFT),
    Config("tickless-lapic-icount", "tickless on the LAPIC, latency under -icount",
           "tick=tickless clockevent=lapic", expect="mode: tickless, device: lapic, HZ=250",
           icount=ICOUNT_SHIFT),
    Config("tickless-hpet-icount", "tickless on the HPET, latency under -icount",
           "tick=tickless clockevent=hpet", expect="mode: tickless, device: hpet, HZ=250",
           icount=ICOUNT_SHIFT),
    Config("tickless-pit-icount", "tickless on the PIT, latency under -icount",
           "tick=tickless clockevent=pit", expect="mode: tickless, device: pit, HZ=250",
           icount=ICOUNT_SHIFT),
    # Four CPUs: each ticks on its own local APIC timer in the boot CPU's
    # mode (docs/smp.md).  All idle, then CPU 1 spinning through the window:
    # tickless stops each idle CPU's tick whatever the others do; dyntick,
    # as in 2005, skips only while every CPU is idle.  `floor` stops before
    # the other CPUs are started: they stay waiting for a start-up IPI.
    Config("floor-4cpu", "floor on 4 CPUs (the APs never started)", "floor", kind="floor", smp=SMP_CPUS),
    Config("periodic-250-4cpu", "periodic, HZ=250, 4 CPUs idle", "tick=periodic hz=250",
           expect="mode: periodic, device: lapic, HZ=250", smp=SMP_CPUS),
    Config("dyntick-lapic-4cpu", "dyntick on the LAPIC, 4 CPUs idle", "dyntick=enable,forceapic",
           expect="mode: dyntick, device: lapic, HZ=250", smp=SMP_CPUS),
    Config("tickless-lapic-4cpu", "tickless on the LAPIC, 4 CPUs idle", "tick=tickless clockevent=lapic",
           expect="mode: tickless, device: lapic, HZ=250", smp=SMP_CPUS),
    Config("periodic-250-4cpu-busy1", "periodic, HZ=250, 4 CPUs, CPU 1 busy", "tick=periodic hz=250",
           expect="mode: periodic, device: lapic, HZ=250", smp=SMP_CPUS, busy_cpu=BUSY_CPU),
    Config("dyntick-lapic-4cpu-busy1", "dyntick on the LAPIC, 4 CPUs, CPU 1 busy", "dyntick=enable,forceapic",
           expect="mode: dyntick, device: lapic, HZ=250", smp=SMP_CPUS, busy_cpu=BUSY_CPU, trace=True),
    Config("tickless-lapic-4cpu-busy1", "tickless on the LAPIC, 4 CPUs, CPU 1 busy",
           "tick=tickless clockevent=lapic", expect="mode: tickless, device: lapic, HZ=250",
           smp=SMP_CPUS, busy_cpu=BUSY_CPU, trace=True),
    Config("linux-686", "Linux, " + linux.REFERENCES["linux-686"]["what"], kind="linux"),
    Config("linux-amd64", "Linux, " + linux.REFERENCES["linux-amd64"]["what"], kind="linux"),
    # lull's own part of the boot (kmain to the prompt, `boot: ready in N
    # ms`), per machine, under -icount: a count of instructions.
    Config("boot-pc", "lull's own boot, -machine pc, 1 CPU", kind="boot", icount=ICOUNT_SHIFT),
    Config("boot-pc-2cpu", "lull's own boot, -machine pc, 2 CPUs", kind="boot", smp=2,
           icount=ICOUNT_SHIFT),
    Config("boot-q35", "lull's own boot, -machine q35, 1 CPU", kind="boot", machine="q35",
           icount=ICOUNT_SHIFT),
    Config("boot-isapc-486", "lull's own boot, -machine isapc -cpu 486 (no TSC: no figure)",
           kind="boot", machine="isapc", cpu="486", icount=ICOUNT_SHIFT),
    # The tickless Linux guest's latency under -icount, beside lull's
    # *-icount rows (its boot there takes ~15 s of host time).
    Config("linux-amd64-icount", "Linux, " + linux.REFERENCES["linux-amd64"]["what"] +
           ", latency under -icount", kind="linux", ref="linux-amd64", icount=ICOUNT_SHIFT),
    Config("linux-686-icount", "Linux, " + linux.REFERENCES["linux-686"]["what"] +
           ", latency under -icount", kind="linux", ref="linux-686", icount=ICOUNT_SHIFT),
    # Linux 6.1 with the 2005 interface (linux/, docs/linux.md): two rows
    # from one boot, the run-time switch flipped between them, which a boot
    # option (nohz=off) could only give as two boots.
    Config("linux-6.1+dyntick-on", "Linux 6.1 + linux/ series, dyn_tick_state 1", kind="linux",
           ref="linux-6.1-dyntick", dyntick="on", keep_booted=True),
    Config("linux-6.1+dyntick-off", "Linux 6.1 + linux/ series, dyn_tick_state 0 (same boot)",
           kind="linux", ref="linux-6.1-dyntick", dyntick="off"),
]
ISO_CONFIG = "tickless-lapic"   # what GRUB's default entry boots: the ISO boot time goes in its row


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="smoke run: short windows, one repetition")
    p.add_argument("--only", help="comma-separated configuration names (default: all; "
                   "`timerload` for all the timerload rows)")
    p.add_argument("--no-linux", action="store_true", help="skip the Linux reference rows")
    p.add_argument("--idle", type=int, help="idle window in seconds (default 20, quick 3)")
    p.add_argument("--timerload-s", type=int, help="the timerload rows' real-time window in seconds "
                   f"(default {timerload.REALTIME_S}, quick {timerload.QUICK_REALTIME_S})")
    p.add_argument("--out", default=os.path.join(BUILD, "bench"), help="output directory")
    p.add_argument("--no-plots", action="store_true")
    a = p.parse_args()
    a.idle = a.idle or (3 if a.quick else 20)
    a.timerload_s = a.timerload_s or (timerload.QUICK_REALTIME_S if a.quick else timerload.REALTIME_S)
    a.reps = 1 if a.quick else 3
    a.latency_count, a.latency_period_us = (1000, 1000) if a.quick else (5000, 1000)
    a.sleep_reps = 1 if a.quick else 3
    a.iso_reps = 1 if a.quick else 2
    a.trace_s = 2
    # The busy CPU spins through rep 1's idle window, `cpus` and the trace
    # after it, with room to spare (the shell takes 1..3600 s: BUSY_MAX_S).
    a.busy_s = a.idle + a.trace_s + 15
    return a


# ------------------------------------------------------------ the machine

def machine_info():
    def first_line(cmd):
        try:
            return subprocess.run(cmd, capture_output=True, text=True).stdout.splitlines()[0]
        except (OSError, IndexError):
            return "?"
    cpu = "?"
    with open("/proc/cpuinfo") as f:
        m = re.search(r"^model name\s*:\s*(.+)$", f.read(), re.M)
        cpu = m.group(1) if m else cpu
    return {
        "host CPU": f"{cpu}, {os.cpu_count()} cores",
        "host kernel": platform.release(),
        "QEMU": first_line(["qemu-system-i386", "--version"]),
        "lull": first_line(["git", "-C", ROOT, "describe", "--always", "--dirty"]),
        "date": time.strftime("%Y-%m-%d %H:%M %Z"),
    }


# ------------------------------------------------------------ progress

class Progress:
    """Which configuration, how long so far, about how long left.

    The estimate is the planned seconds of the work not done yet, scaled by
    how the work done so far compared with its plan."""

    def __init__(self, plan):
        self.plan = plan            # [(name, estimated seconds)]
        self.t0 = time.monotonic()

    def start(self, i, detail="", fraction=0.0):
        """Print a line as work starts on step i, `fraction` of it already done."""
        name, est = self.plan[i]
        elapsed = time.monotonic() - self.t0
        done = sum(e for _, e in self.plan[:i]) + fraction * est
        left = sum(e for _, e in self.plan[i:]) - fraction * est
        if done > 30:
            left *= min(2.0, max(0.5, elapsed / done))
        print(f"bench: [{i + 1}/{len(self.plan)}] {name}{detail}  "
              f"({_mmss(elapsed)} elapsed, about {_mmss(left)} left)", flush=True)


def _mmss(s):
    return f"{int(s) // 60}:{int(s) % 60:02d}"


def estimate(cfg, a):
    if cfg.kind == "boot":
        return 3
    if cfg.icount is not None:
        return 20 if cfg.kind == "linux" else 5
    if cfg.kind == "floor":
        return a.reps * (a.idle + 1.5)
    if cfg.kind == "linux":
        return 10 + a.reps * (a.idle + 1) + a.latency_count * a.latency_period_us / 1e6 + 5
    extra = 0 if cfg.smp > 1 else latency_count(cfg, a) * max(a.latency_period_us / 1e6, 1 / cfg.hz) + 5
    extra += (a.trace_s + 1) if cfg.trace else 0
    extra += a.iso_reps * 6 if cfg.name == ISO_CONFIG else 0
    return a.reps * (a.idle + 2) + extra


def latency_count(cfg, a):
    """Samples for the latency run.  In periodic and dyntick modes hrtimers run
    at the next tick, so a 1 ms period gives one sample per tick: take the
    same number of seconds' worth as tickless, not the same count."""
    if cfg.kind == "lull" and not cfg.name.startswith("tickless"):
        seconds = a.latency_count * a.latency_period_us / 1e6
        return min(a.latency_count, int(seconds * cfg.hz))
    return a.latency_count


# ------------------------------------------------------------ one row

def accel_label(cfg, accel):
    """The accel column: "tcg", or "tcg, icount 4" for the icount rows."""
    return accel if cfg.icount is None else f"{accel}, icount {cfg.icount}"


def new_row(cfg, accel, qemu, cpu):
    return dict(config=cfg.name, what=cfg.what, kind=cfg.kind, append=cfg.append,
                accel=accel, qemu=qemu, cpu_model=cpu, status="ok", notes=[], reps=[],
                hz=cfg.hz if cfg.kind == "lull" else None, cpus=cfg.smp, busy_cpu=cfg.busy_cpu)


def log_path(a, cfg, accel, tag):
    d = os.path.join(a.out, "logs")
    os.makedirs(d, exist_ok=True)
    return os.path.join(d, f"{cfg.name}-{accel}-{tag}.log")


def run_lull(cfg, a, accel, progress, step):
    if cfg.icount is not None:
        return run_lull_icount(cfg, a, accel, progress, step)
    row = new_row(cfg, accel, cfg.qemu, cfg.cpu)
    elf = os.path.join(BUILD, "lull.elf")
    for rep in range(a.reps):
        progress.start(step, f" ({accel}) rep {rep + 1}/{a.reps}", rep / (a.reps + 0.5))
        g = guest.Guest(cfg.qemu, accel, kernel=elf, append=cfg.append, cpu=cfg.cpu,
                        extra=["-smp", str(cfg.smp)] if cfg.smp > 1 else [],
                        log_path=log_path(a, cfg, accel, f"rep{rep + 1}"))
        try:
            if cfg.kind == "floor":
                boot = g.wait_for_either("floor: all timers stopped, halting", g.prompt)
                if boot is None:
                    row["status"] = "failed: the boot option `floor` did not take effect (lull booted to the prompt)"
                    return row
                r = guest.measure_floor(g, a.idle)
                if "smp:" in g.vm.log_text():
                    row["status"] = "failed: `floor` halted, but the other CPUs were started (an smp: line)"
                    return row
            else:
                boot = g.wait_prompt()
                if rep == 0 and not check_config(g, cfg, row):
                    return row      # "not available" or "failed"
                if cfg.smp > 1 and not check_cpus(g, cfg, row):
                    return row
                guest.wait_boot_timers(g)
                if cfg.busy_cpu is not None and not start_busy(g, cfg, a, row):
                    return row
                g.cmd("wakeups reset")
                r = guest.measure_idle(g, a.idle, per_cpu=cfg.smp > 1)
                if cfg.busy_cpu is not None and r["per_cpu"][cfg.busy_cpu]["state"] != "busy":
                    row["status"] = f"failed: CPU {cfg.busy_cpu} was no longer busy at the end of the window"
                    return row
                r["causes"] = guest.lull_causes(g)
                if rep == 0:
                    extras(g, cfg, a, row)
            r.update(boot_s=boot, first_byte_s=g.first_byte_s)
            row["reps"].append(r)
        finally:
            g.close(poweroff=cfg.kind != "floor")
    if cfg.name == ISO_CONFIG:
        boots = []
        for rep in range(a.iso_reps):
            g = guest.Guest(cfg.qemu, accel, iso=os.path.join(BUILD, "lull.iso"), cpu=cfg.cpu,
                            log_path=log_path(a, cfg, accel, f"iso{rep + 1}"))
            try:
                boots.append(g.wait_prompt())
            finally:
                g.close()
        row["boot_iso_s"] = statistics.median(boots)
        row["notes"].append("ISO boot: GRUB's default entry, its 2 s menu timeout included")
    return row


ICOUNT_RUNS = 2     # boots per icount row: the second must repeat the first exactly
# The CMOS clock on QEMU's virtual clock from a fixed date: on the host's
# clock (the default) its update cycle, which rtc_init waits out, falls
# wherever the host's second does, and can move the whole run by that many
# instructions.  (Two boots of tickless on the PIT once differed, 2712 and
# 2709 skips, max latency 27 and 43 us.)  The other cause was QEMU's own:
# an -icount boot driven by run=, as these are, runs pinned to one host CPU
# (lullvm.qemu.icount_pin).  lullvm.qemu.qemu_args adds ICOUNT_RTC to every
# -icount boot, the Linux references' included; it is named here too.
ICOUNT_RTC = guest.ICOUNT_RTC
ICOUNT_SETTLE_MS = 1500     # guest time before the latency run: boot's own timer has fired


def run_lull_icount(cfg, a, accel, progress, step):
    """Latency alone, under -icount: lull's timer path without the host's
    tails, with its breakdown by stage, booted twice: guest time there is a
    count of instructions, so the two runs must give the same figures."""
    row = new_row(cfg, accel_label(cfg, accel), cfg.qemu, cfg.cpu)
    progress.start(step, f" ({accel}, icount {cfg.icount}, {ICOUNT_RUNS} boots)")
    runs = []
    n = latency_count(cfg, a)
    # The run= boot option types nothing: typed input arrives at a
    # host-paced instant and would move the run in guest time.  The sleep
    # lets boot's one timer (the TSC's second calibration) go first.  The
    # latency figures are the plain run's; the breakdown is a second run
    # with the stamps on, which cost a few dozen instructions each.
    lat = f"latency,{n},{a.latency_period_us}"
    run = f"run=sleep,{ICOUNT_SETTLE_MS};{lat};{lat},breakdown;dyntick"
    for i in range(ICOUNT_RUNS):
        g = guest.Guest(cfg.qemu, accel, kernel=os.path.join(BUILD, "lull.elf"),
                        append=f"{cfg.append} {run}", cpu=cfg.cpu, icount=cfg.icount,
                        extra=ICOUNT_RTC, log_path=log_path(a, cfg, accel, f"icount{i}"))
        try:
            g.vm.expect(r"= after the callback +\d+ +\d+\r*\n", timeout=n * a.latency_period_us / 1e6 * 8 + 60)
            out = g.vm.log_text()
            plain, stamped = out.split("lull> latency ")[1:3]
            r = guest.parse_latency(plain)
            b = guest.parse_latency(stamped, breakdown=True)
            r.update(breakdown=b["breakdown"], breakdown_avg=b["avg"])
            runs.append(r)
            g.vm.expect("run: done", timeout=60)        # run= powers off after its last command
            if not check_config(g, cfg, row, status=g.vm.log_text().split("lull> dyntick")[-1]):
                return row
        finally:
            g.close()
    row["latency"] = runs[0]
    row["icount_repeat"] = all(r == runs[0] for r in runs[1:])
    if not row["icount_repeat"]:
        row["notes"].append("the second boot's latency or breakdown differed from the first's")
    return row


BOOT_READY = re.compile(r"boot: ready(?: in ([\d.]+) ms)? \(")


def run_lull_boot(cfg, a, accel, progress, step):
    """lull's own part of the boot on one machine, as lull states it
    (`boot: ready in N ms`, by the TSC from kmain's first line), under
    -icount, booted twice: the two must agree."""
    row = new_row(cfg, accel_label(cfg, accel), cfg.qemu, cfg.cpu)
    progress.start(step, f" ({accel}, icount {cfg.icount}, {ICOUNT_RUNS} boots)")
    extra = ["-smp", str(cfg.smp)] + (["-machine", cfg.machine] if cfg.machine else []) + ICOUNT_RTC
    said = []
    for i in range(ICOUNT_RUNS):
        g = guest.Guest(cfg.qemu, accel, kernel=os.path.join(BUILD, "lull.elf"), cpu=cfg.cpu,
                        icount=cfg.icount, extra=extra,
                        log_path=log_path(a, cfg, accel, f"boot{i}"))
        try:
            g.wait_prompt()
            m = BOOT_READY.search(g.vm.log_text())
            if not m:
                row["status"] = "failed: no `boot: ready` line"
                return row
            said.append(float(m.group(1)) if m.group(1) else None)
            if not check_cpus(g, cfg, row):
                return row
        finally:
            g.close()
    row["boot_own_ms"] = said[0]
    row["icount_repeat"] = all(x == said[0] for x in said)
    if said[0] is None:
        row["notes"].append("no TSC: lull states no figure")
    return row


def check_cpus(g, cfg, row):
    """Did every CPU asked for start?  Fails the row if not."""
    m = re.search(r"smp: (\d+) CPUs online", g.vm.log_text())
    online = int(m.group(1)) if m else 1
    if online != cfg.smp:
        row["status"] = f"failed: asked for {cfg.smp} CPUs, {online} online"
    return online == cfg.smp


def start_busy(g, cfg, a, row):
    """CPU cfg.busy_cpu spins, in the background, past the idle window."""
    out = g.cmd(f"busy {a.busy_s} {cfg.busy_cpu}")
    if "spins for" not in out:
        row["status"] = f"failed: `busy {a.busy_s} {cfg.busy_cpu}` said {out.strip()!r}"
        return False
    return True


def check_config(g, cfg, row, status=None):
    """Did the boot options give the mode and device asked for?  Sets the
    row's tick and status; False if the row is to be measured no further.
    `status`: what `dyntick` printed, if it was run already (run=)."""
    if status is None:
        status = g.cmd("dyntick")
    m = re.search(r"(mode: \w+, device: [\w-]+), .* at (HZ=\d+)", status)
    row["tick"] = f"{m.group(1)}, {m.group(2)}" if m else "?"
    row["status"] = tick_status(cfg, row["tick"], g.vm.log_text())
    return row["status"] == "ok"


def tick_status(cfg, tick, boot_log):
    """A row's status from the tick `dyntick` reported ("mode: M, device: D,
    HZ=N") and the serial log of the boot.  Measuring some other mode than
    the one asked for would put its numbers under the wrong name, so a
    mismatch fails the row.  The one exception is TSC-deadline, which many
    CPUs (QEMU's qemu32 and qemu64 among them) do not have: "not available",
    with lull's own line saying why."""
    if not cfg.expect or tick == cfg.expect:
        return "ok"
    if cfg.name.endswith("tsc-deadline"):
        why = re.search(r"^.*(no TSC-deadline|is not there|cannot).*$", boot_log, re.M)
        return "not available: " + (why.group(0).strip() if why else tick)
    return f"failed: the boot options did not take effect: asked for '{cfg.expect}', got '{tick}'"


def extras(g, cfg, a, row):
    """Measured once per configuration: latency, sleep accuracy, the trace.
    The several-CPU rows only trace: their latency and sleeps are the boot
    CPU's, as in the one-CPU rows."""
    if cfg.smp > 1:
        trace(g, cfg, a, row)
        return
    n = latency_count(cfg, a)
    seconds = n * max(a.latency_period_us / 1e6, 1 / cfg.hz)
    row["latency"] = guest.measure_latency(g, n, a.latency_period_us, timeout=seconds * 4 + 30)
    row["sleep_overshoot_ms"], row["sleep_base_ms"] = guest.measure_sleeps(g, (10, 100, 1000), a.sleep_reps)
    trace(g, cfg, a, row)


def trace(g, cfg, a, row):
    """`trace 2` for the timeline picture, if this row is one of its rows."""
    if cfg.trace:
        csv = guest.capture_trace(g, a.trace_s)
        path = os.path.join(a.out, f"trace-{cfg.name}.csv")
        with open(path, "w") as f:
            f.write(csv + "\n")
        row["trace"] = path


# A Linux guest a row left running for the next row of the same reference
# (Config.keep_booted): ref -> (Guest, package, append).
KEPT_BOOTED = {}


def run_linux(cfg, a, accel, progress, step):
    ref = linux.REFERENCES[cfg.ref]
    row = new_row(cfg, accel_label(cfg, accel), ref["qemu"], ref["cpu"])
    kept = KEPT_BOOTED.pop((cfg.ref, accel), None)
    if kept:
        g, row["package"], row["append"] = kept
        row["notes"].append("the boot of the row before")
        return measure_linux(g, cfg, a, accel, progress, step, row, None)
    progress.start(step, f" ({accel}) preparing")
    try:
        vmlinuz, initrd, package = linux.prepare(cfg.ref, os.path.join(a.out, "linux"))
    except linux.Unavailable as e:
        row["status"] = f"not available: {e}"
        print(f"bench: {cfg.name}: {row['status']}")
        return row
    row["package"] = package
    row["append"] = "console=ttyS0 quiet"
    progress.start(step, f" ({accel}) booting {package}")
    g = guest.Guest(ref["qemu"], accel, kernel=vmlinuz, append=row["append"], cpu=ref["cpu"],
                    extra=["-initrd", initrd], prompt="init> ",
                    log_path=log_path(a, cfg, accel, "boot"), boot_timeout=120, icount=cfg.icount)
    try:
        boot = g.wait_prompt(timeout=120)
    except BaseException:
        g.close()
        raise
    m = re.search(r"uptime at init \(s, idle s\): (\d+\.\d+)", g.vm.log_text())
    row["boot_to_init_s"] = float(m.group(1)) if m and cfg.icount is None else None
    return measure_linux(g, cfg, a, accel, progress, step, row, boot)


def measure_linux(g, cfg, a, accel, progress, step, row, boot):
    """The Linux row's measurements in a booted guest; closes it unless the
    next row keeps it (Config.keep_booted)."""
    keep = False
    try:
        if cfg.dyntick:
            out = g.cmd(f"dyntick {cfg.dyntick}")
            if f"dyntick {cfg.dyntick} ok" not in out:
                raise RuntimeError(f"dyntick {cfg.dyntick}: {out.strip()[-200:]}")
        # Under icount, latency alone (as in lull's icount rows): an idle
        # window there takes no host time, and host-timed sleeps mean nothing.
        if cfg.icount is None:
            # The repetitions are idle windows in one boot: Linux takes seconds to boot.
            for rep in range(a.reps):
                progress.start(step, f" ({accel}) idle window {rep + 1}/{a.reps}", (rep + 0.5) / (a.reps + 1))
                r = guest.measure_idle(g, a.idle)
                first = rep == 0 and boot is not None       # not for a row on a kept boot
                r.update(boot_s=boot if first else None, first_byte_s=g.first_byte_s if first else None)
                row["reps"].append(r)
            row["tick"] = r["clocks"]
        row["latency"] = guest.measure_latency(g, a.latency_count, a.latency_period_us,
                                               timeout=a.latency_count * a.latency_period_us / 1e6 * 4 + 30)
        if cfg.icount is None:
            row["sleep_overshoot_ms"], row["sleep_base_ms"] = guest.measure_sleeps(g, (10, 100, 1000), a.sleep_reps)
        keep = cfg.keep_booted
    finally:
        if keep:
            KEPT_BOOTED[(cfg.ref, accel)] = (g, row["package"], row["append"])
        else:
            g.close()
    return row


def failure_detail(e, a, cfg, accel, lines=15):
    """What a failed row was waiting for (a pexpect pattern) and the tail of
    its newest serial log, so that a failure says where it stopped."""
    wanted = [l.strip() for l in str(e).splitlines() if "re.compile" in l or l.strip().startswith("0:")]
    logs = sorted(glob.glob(log_path(a, cfg, accel, "*")), key=os.path.getmtime)
    tail = ""
    if logs:
        with open(logs[-1], encoding="utf-8", errors="replace") as f:
            tail = "".join(f.readlines()[-lines:])
    return (f"bench: {cfg.name} ({accel}) was waiting for: {'; '.join(wanted) or '?'}\n"
            f"bench: last {lines} lines of {logs[-1] if logs else 'no log'}:\n{tail}")


def run_config(cfg, a, accel, progress, step):
    try:
        if cfg.kind == "linux":
            row = run_linux(cfg, a, accel, progress, step)
        elif cfg.kind == "boot":
            row = run_lull_boot(cfg, a, accel, progress, step)
        else:
            row = run_lull(cfg, a, accel, progress, step)
    except Exception as e:     # one broken row must not lose the others
        ref = linux.REFERENCES.get(cfg.ref, dict(qemu=cfg.qemu, cpu=cfg.cpu))
        row = new_row(cfg, accel, ref["qemu"], ref["cpu"])
        row["status"] = f"failed: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:200]
        row["notes"].append(f"serial logs in {os.path.join(a.out, 'logs')}")
        print(failure_detail(e, a, cfg, accel))
    if row["status"] != "ok":
        print(f"bench: {cfg.name} ({accel}): {row['status']}")
    return report.summarize(row)


def timerload_estimate(names, a):
    """Seconds for the timerload rows: an icount boot, one real-time window each."""
    return 10 + len(timerload.realtime_rows(names, a.quick)) * (a.timerload_s + 3)


def run_timerload(names, a, progress, step):
    def log(tag):
        return log_path(a, Config("timerload", ""), "tcg", tag)
    env = timerload.Env(os.path.join(BUILD, "lull.elf"), LULL_CPU, log, a.quick, a.timerload_s,
                        lambda detail, done: progress.start(step, f" {detail}", done))
    rows = timerload.run(env, names)
    for r in rows:
        if r["status"] != "ok":
            print(f"bench: {r['config']}: {r['status']}")
    return rows


def main():
    a = parse_args()
    os.makedirs(a.out, exist_ok=True)
    configs = [c for c in CONFIGS if not (a.no_linux and c.kind == "linux")]
    tl_names = timerload.NAMES
    if a.only:
        names = a.only.split(",")
        if "timerload" in names:        # every timerload row
            names = [n for n in names if n != "timerload"] + timerload.NAMES
        unknown = set(names) - {c.name for c in CONFIGS} - set(timerload.NAMES)
        if unknown:
            sys.exit(f"bench: unknown configuration {', '.join(sorted(unknown))}; "
                     f"known: {', '.join([c.name for c in CONFIGS] + timerload.NAMES)}")
        configs = [c for c in configs if c.name in names]
        tl_names = [n for n in timerload.NAMES if n in names]
    # The side-by-side comparison is under TCG; with ACCEL=kvm lull's rows
    # are measured under KVM in addition (the Linux guests stop on emulation
    # failures under a nested software KVM).
    work = [(c, "tcg") for c in configs]
    if ACCEL == "kvm":
        work += [(c, "kvm") for c in configs if c.kind != "linux" and c.icount is None]
    plan = [(c.name, estimate(c, a)) for c, acc in work]
    if tl_names:
        plan.append(("timerload", timerload_estimate(tl_names, a)))
    progress = Progress(plan)
    info = machine_info()
    print(f"bench: {info['host CPU']}; {info['QEMU']}; {len(work)} configurations"
          f"{f' and {len(tl_names)} timerload rows' if tl_names else ''}, "
          f"{'quick run' if a.quick else 'full run'}: idle {a.idle} s x {a.reps}")
    rows = [run_config(c, a, acc, progress, i) for i, (c, acc) in enumerate(work)]
    for g, _, _ in KEPT_BOOTED.values():     # its next row was not asked for
        g.close()
    tl_rows = run_timerload(tl_names, a, progress, len(work)) if tl_names else []
    info["run"] = (f"{'quick' if a.quick else 'full'}: idle window {a.idle} s x {a.reps}, "
                   f"latency {a.latency_count} x {a.latency_period_us} us, "
                   + (f"timerload {timerload.ICOUNT_S} s under icount and {a.timerload_s} s in real time, "
                      if tl_names else "") +
                   f"took {_mmss(time.monotonic() - progress.t0)}")
    info["command"] = (f"ACCEL={ACCEL} " if ACCEL != "tcg" else "") + " ".join(["bench/bench.py"] + sys.argv[1:])
    report.write_all(rows, info, a.out, plots=not a.no_plots, timerload_rows=tl_rows)
    failed = [f"{r['config']} ({r['accel']})" for r in rows + tl_rows if r["status"].startswith("failed")]
    if failed:      # the results are written, but the run did not do what it was asked
        sys.exit(f"bench: {len(failed)} configuration(s) failed: {', '.join(failed)}")


if __name__ == "__main__":
    main()
