"""Two boots under -icount with the same commands print the same numbers.

Under `-icount shift=4,sleep=off` QEMU's virtual clock is a count of guest
instructions (16 ns each) plus the idle time it skips to the next timer
deadline, and every emulated timer runs on it.  What the guest does without
input is then a function of its instructions alone: the boot, calibrations
included, prints the same to the last digit (compared whole).

Input does not repeat.  A byte typed at the shell arrives at whatever guest
instant the host's timing lets it, and meanwhile an idle guest's clock leaps
from deadline to deadline (seen: 68 guest days in 5 host seconds at the
prompt in tickless mode).  So the absolute uptime, and jiffies, at which
the measurement starts differ between runs.  (Input sent during the boot,
which would fix that, is dropped by uart_enable_rx_irq on purpose; the
boot option run= does fix it: test_a_run_without_input_is_identical, at
the end, compares two such runs byte for byte.)

What we do about it.  The whole sequence goes in one paste, and the
measurement starts after the input is done, on an instant the guest
defines:

  busy 2          2 guest seconds of spinning (under a host second):
                  the rest of the paste arrives meanwhile and waits in
                  the console's ring, so no input comes later.  (It was
                  1 s; a full-suite run on a host loaded by other QEMUs
                  once saw the two tickless boots' 1 ms deadlines at
                  different phases of the jiffy, which input arriving
                  after the spin would explain; not confirmed.)
  timeron 0 10    ends when a wheel timer runs: on the jiffy grid
  sleep 1         ends on a tick in periodic and dyntick mode; timeron's
                  output (its lateness, which differs) is behind us
  wakeups reset, latency 2000 1000, sleep 1, idle 10, wakeups

What must then agree: the number of wakeups in `idle 10` and in
`wakeups`, in total and per cause, within one (a wakeup on a tick boundary
may be charged to the tick or to the timer due on it, or fall on either
side of the window's end: CI saw both).  What still moves a little is time measured
inside the guest, because the code that measures it runs a number of
instructions that depends on the absolute values (64-bit division by
shift-and-subtract in kernel/lib/div64.c, the timer wheel's buckets and
cascades, which follow jiffies): the latency figures by up to 2 us (about
120 instructions; its tail, max and p99, more, and with a late byte of the
paste by tens of us: the typed runs leave the tail out), a histogram bin
by a sample or two, and in dyntick and periodic mode `idle`'s span and sleep lengths by
under a tick.  SLACK below allows that much and no more; without -icount
the same test fails in every mode (the boot's calibrations, the wakeup
counts and the histogram all differ).

The CMOS clock is given a fixed start date (`-rtc clock=vm,base=...`): with
the host's date the boot would print a different `rtc:` line.
"""
import os
import re
import subprocess
import time

import pytest

from lullvm import parse
from lullvm.qemu import PROMPT, qemu_args
from test_drift import RTC_VM

ICOUNT_SHIFT = 4
LATENCY_COUNT = 2000
LATENCY = f"latency {LATENCY_COUNT} 1000"
PASTE = ["busy 2", "timeron 0 10", "sleep 1", "wakeups reset", LATENCY, "sleep 1", "idle 10",
         "wakeups"]


class Slack:
    """How far two runs' figures may differ in one tick mode."""

    def __init__(self, latency_us=0, bin_pct=0, idle_ms=0):
        self.latency_us = latency_us            # latency min, avg, p50
        self.bin_pct = bin_pct                  # a histogram bin's count, % of samples
        self.idle_ms = idle_ms                  # idle's span, mean and max sleep


# Counts of wakeups, per cause, are compared exactly in every mode.
SLACK = {
    # Tickless: whether a sample's interrupt also does the tick's work
    # (3 us more under icount: 22 against 25 us, CI) is the phase typing
    # set (docs/benchmarks.md, the timer path by instruction); run= fixes
    # the phase: test_a_run_without_input_is_identical.
    "tickless": Slack(latency_us=4, bin_pct=1),
    # Periodic and dyntick: a sample waits for the next tick, so every
    # sample moves with the phase `latency` starts at.  A pasted line whose
    # last bytes arrive after `sleep 1` ended costs an interrupt each before
    # `latency` starts, 16 us under icount (CI: avg 3550.0 against 3565.8).
    # A few of those, not a tick's worth.
    "dyntick": Slack(latency_us=50, bin_pct=1, idle_ms=4),
    "periodic": Slack(latency_us=50, bin_pct=1, idle_ms=4),
}


def run(boot, mode, icount=ICOUNT_SHIFT):
    """{command: output} of one boot, from its first prompt on."""
    vm = boot(icount=icount, extra=RTC_VM)
    boot_log = vm.log_text().split("\n", 1)[1]      # less QEMU's command line
    said = vm.cmd(f"tick {mode}").strip()
    assert re.fullmatch(rf"tick: {mode} on lapic, HZ=\d+ \((unchanged|was tickless)\)", said), said
    vm.send("".join(line + "\r" for line in PASTE))
    outputs = {"boot": boot_log[:boot_log.index(PROMPT)]}
    for line in PASTE:
        out = vm.wait_prompt(60).replace("\r\n", "\n")
        # The echo of the line is printed when the shell reads it; drop it.
        echo, _, body = out.partition("\n")
        assert echo.strip() == line, out
        assert "error:" not in body, f"{line}: {body}"
        outputs[line] = body
    return outputs


def latency_figures(out):
    """{'min': us, 'avg': us, ..., bin label: count} from `latency`'s output."""
    lat = parse.latency(out)
    figures = {"n": lat.n, "min": lat.min, "avg": lat.avg, "max": lat.max}
    # A percentile past the histogram (">=20000") is a bound, not a figure.
    figures.update({k: v for k, v, bound in (("p50", lat.p50, lat.p50_at_least),
                                             ("p99", lat.p99, lat.p99_at_least)) if not bound})
    figures.update({f"{lo}-{hi}" if hi is not None else f">={lo}": n for lo, hi, n in lat.hist})
    assert figures.get("n") == LATENCY_COUNT, out
    return figures


def causes(out):
    """{cause: count} from `wakeups`."""
    return dict(parse.wakeups(out).causes)


def merge_phase_causes(c):
    """causes() with the tick and latency's hrtimer counted together (a
    wakeup both were due at is charged to either, by phase)."""
    c = dict(c)
    c["tick or hrtimer: latency"] = c.pop("tick", 0) + c.pop("hrtimer: latency", 0)
    return c


def differences(a, b, slack):
    """What differs between two runs beyond `slack`, as {what: (run a, run b)}."""
    diff = {}

    def compare(what, x, y, allowed):
        if abs(x - y) > allowed:
            diff[what] = (x, y)

    # The boot logs are not compared here: these boots are typed to, so they
    # run on every host CPU (lullvm.qemu.icount_pin), where QEMU's icount
    # race can deliver one wakeup up to ~1400 instructions late.  With a
    # CPU-bound process beside, that moved a boot's TSC calibration windows:
    # "spread 11 ppm" against "spread 7 ppm", the same 1000.003 MHz.  The
    # byte-exact boot is test_a_run_without_input_is_identical's, pinned.
    # Wakeups within one, in total and per cause: a wakeup that falls on a
    # tick boundary is charged to the tick or to the timer due on it, or
    # lands on one side of the window's end, by a few instructions of
    # phase, which typed input decides (seen: tick 1501/1500, hrtimer:
    # sleep 1/2; in dyntick 2002/2003 in all, `idle 10` 1/2).  Exactly:
    # test_a_run_without_input_is_identical, which has no input.
    # In tickless mode the phase decides more: a 1 ms deadline that falls
    # within a few us after a jiffy boundary (every fourth at HZ=250) finds
    # the tick's interrupt still running or just past, and idle gives up
    # the halt, so its wakeup is the tick's; seen in CI: tick 2000 against
    # tick 1501 + `hrtimer: latency` 500, with the same 2002 in all.  So the
    # tick and latency's timer are compared as one.
    ca, cb = (merge_phase_causes(causes(x["wakeups"])) for x in (a, b))
    ta, tb = (parse.wakeups(x["wakeups"]).total for x in (a, b))
    if abs(ta - tb) > 1 or set(ca) != set(cb) or any(abs(ca[k] - cb[k]) > 1 for k in ca):
        diff["wakeups"] = (a["wakeups"], b["wakeups"])
    ia, ib = parse.idle(a["idle 10"]), parse.idle(b["idle 10"])
    compare("idle wakeups", ia.wakeups, ib.wakeups, 1)
    compare("idle span ms", ia.span * 1000, ib.span * 1000, slack.idle_ms)
    if ia.wakeups == ib.wakeups:      # one more wakeup halves the mean
        compare("idle mean sleep ms", ia.mean_sleep_ms, ib.mean_sleep_ms, slack.idle_ms)
        compare("idle max sleep ms", ia.max_sleep_ms, ib.max_sleep_ms, slack.idle_ms)
    # Latency: the middle of the distribution and its histogram, not its
    # tail.  A byte of the paste that arrives after `busy 2` is over (a
    # loaded host delivers it late) costs an interrupt, 16 us under icount,
    # to whichever sample it lands in; a few late bytes move the max and
    # p99 by tens of us and the middle not at all.  CI saw periodic's max
    # and p99 move 64 us with the full suite and the Linux build beside.
    # The tail is compared exactly where nothing is typed:
    # test_a_run_without_input_is_identical.
    la, lb = latency_figures(a[LATENCY]), latency_figures(b[LATENCY])
    for key in sorted((set(la) | set(lb)) - {"max", "p99"}):
        allowed = (slack.latency_us if key in ("min", "avg", "p50") else
                   LATENCY_COUNT * slack.bin_pct / 100)
        compare(f"latency {key}", la.get(key, 0), lb.get(key, 0), allowed)
    return diff


@pytest.mark.parametrize("mode", ["tickless", "dyntick", "periodic"])
def test_two_boots_measure_the_same(boot, mode):
    a, b = run(boot, mode), run(boot, mode)
    assert 10 <= parse.idle(a["idle 10"]).span < 11, a
    diff = differences(a, b, SLACK[mode])
    assert not diff, "\n".join(f"{what} differs:\n{x}\n---\n{y}" for what, (x, y) in diff.items())


# Exact, with no input at all: the boot option run= gives the commands to
# the first prompt (kernel/shell/shell.c), so every instant of the run is
# defined by the guest's instructions.  Then the whole serial log, boot,
# calibrations, wakeup counts, the latency histogram and idle's figures,
# must be the same in both runs, byte for byte.
RUN = "run=wakeups,reset;" + LATENCY.replace(" ", ",") + ";sleep,1;idle,10;wakeups"


def run_to_file(mode, path):
    """Boot with run= and the serial line written to a file, which never
    makes the guest wait: on a pty, QEMU's UART holds each byte until the
    host reads it, and the guest's polling loop counts those instructions,
    so a busy host shifts the whole run in guest time (in dyntick that
    moved a latency average by 0.1 us, seen in CI on a loaded host).
    Returns the log once the last command has printed its last line."""
    args = qemu_args(append=f"tick={mode} {RUN}", icount=ICOUNT_SHIFT, extra=RTC_VM)
    args[args.index("stdio,id=console,signal=off")] = f"file,id=console,path={path}"
    qemu = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            text = open(path, encoding="utf-8", errors="replace").read() if os.path.exists(path) else ""
            if "run: done, powering off" in text and qemu.poll() is not None:
                return text
            assert qemu.poll() is None or "run: done" in text, \
                f"QEMU stopped: {qemu.stderr.read()!r}\n{text[-2000:]}"
            time.sleep(0.05)
        raise AssertionError(f"no end of the run after 60 s:\n{text[-2000:]}")
    finally:
        qemu.kill()
        qemu.wait()


@pytest.mark.parametrize("mode", ["tickless", "dyntick", "periodic"])
def test_a_run_without_input_is_identical(mode, tmp_path):
    logs = [run_to_file(mode, str(tmp_path / f"run{i}.log")) for i in range(2)]
    lat = parse.latency(logs[0])
    assert (lat.n, lat.period_us, lat.p50_at_least) == (2000, 1000, False), logs[0]
    assert 10 <= parse.idle(logs[0]).span < 11, logs[0]
    # Byte for byte, the last command's `wakeups` included.  Each boot runs
    # on one host CPU (conftest.icount_pin): on two, QEMU's main loop now and
    # then warped the clock past a deadline while the vCPU thread had not yet
    # counted its last instructions, and one latency sample of the 2000 came
    # out late by those instructions (dyntick: 11 of 40 runs differed from the
    # most common log; pinned, 0 of 40 in each mode; docs/robustness.md).
    # Pinned, CI still hit it once under a Linux build (max=46 against 26):
    # lull now reads the TSC right before its halt, which leaves the race
    # two instructions to add (kernel/idle.c, halt_until_interrupt).
    if logs[0] != logs[1]:
        a, b = logs[0].splitlines(), logs[1].splitlines()
        first = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        raise AssertionError(f"the runs part at line {first}:\n{a[first:first + 1]}\n{b[first:first + 1]}")
