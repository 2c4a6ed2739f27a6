"""Several CPUs: the boot CPU starts every application processor the ACPI
MADT lists (INIT, start-up IPI, start-up IPI through boot/trampoline.asm),
each comes up on its own stack and per-CPU segment, runs its own tick on
its local APIC timer, and sleeps by the mode's rule (docs/smp.md).

What a wrong kernel would show here: a CPU missing from `cpus` (it never
reached ap_main, or the boot CPU gave up on it), an AP that halts and wakes
(its wakeups count moves: an interrupt reached it that nothing should send),
a boot CPU whose tick or shell broke because an AP ran over shared state
(the suite's timing checks on -smp 4 below), or a fallback with no line
saying why."""
import re

import pytest

from lullvm import parse
from lullvm.rtc import MAX_SPACING_NS, rtc_edge

def cpus_table(vm):
    out = vm.cmd("cpus").replace("\r", "")
    assert out.splitlines()[0].split()[:4] == ["cpu", "apic", "state", "tick"], out
    return parse.cpus(out), out


@pytest.mark.parametrize("n", [1, 2, 4, 8])
def test_every_cpu_in_the_madt_starts(run, n):
    """Every CPU the MADT lists comes up, halts, and stays asleep through an
    idle second: nothing wakes an AP that has no tick and no interrupt
    meant for it.  Driven by run= under icount: typed, each wait for the
    host's next byte let QEMU move the idle guest's clock on to the next
    deadline, an AP's LAPIC maximum (68.7 s) among them, and each such
    leap woke the APs (94 wakeups "since reset" on CPU 1, CI)."""
    # `sleep 10` first: under icount QEMU 7.2 hands each vCPU in turn all
    # the time up to the next timer deadline, so while the boot CPU runs
    # on without halting an AP gets none; without the sleep CPU 1 had not
    # yet taken the IPI that starts its tick ("none") when `cpus` ran.
    r = run(["sleep 10", "cpus", "wakeups reset", "idle 1", "cpus"], extra=["-smp", str(n)])
    if n == 1:
        assert "smp: one CPU (the MADT lists 1)" in r.log, r.tail()
    else:
        ids = " ".join(str(i) for i in range(n))
        assert re.search(rf"smp: {n} CPUs online \(APIC IDs {ids}; start-up code at 0x[0-9a-f]{{5}}\)",
                         r.log), r.tail()
    out = r.out("cpus")
    rows = parse.cpus(out)
    assert [row.index for row in rows] == list(range(n)), out
    assert [row.apic for row in rows] == list(range(n)), out
    # The boot CPU runs the command, with its tick.
    assert rows[0].state == "busy" and rows[0].tick.startswith("running, tickless on lapic"), out
    # Every AP is up and halted, its tick following the boot CPU's mode:
    # tickless, so stopped.  Its wakeups count from its first idle entry
    # with a tick: the IPI that told it the boot CPU's tick had started
    # (and a second start-up IPI, if it answered just after the boot CPU
    # sent it: QEMU ends the halt for it, SDM 8.4.3) woke it before that.
    # Once at most since: the tick an AP starts with is one-shot at the
    # next jiffy boundary, stopped when it first goes idle; an AP that
    # first goes idle after that boundary takes it.
    for row in rows[1:]:
        assert row.state == "idle" and row.tick == "stopped, tickless on lapic" and row.wakeups <= 1, out
    # From the reset on, over an idle second, nothing wakes an AP.
    out = r.out("cpus", 1)
    rows = parse.cpus(out)
    assert len(rows) == n and all(row.wakeups == 0 for row in rows[1:]), out


def test_q35_and_grub_start_the_aps(boot):
    vm = boot(machine="q35", extra=["-smp", "3"])
    assert "smp: 3 CPUs online (APIC IDs 0 1 2;" in vm.log_text()
    # Enter at GRUB's menu: its 2 s countdown polls the keyboard, which
    # under icount costs seconds of host time (10 s for this boot, 4 s
    # with the Enter).
    vm = boot(iso=True, extra=["-smp", "2"], timeout=60, wait_prompt=False)
    vm.expect(r"lull \(default", timeout=60)
    vm.send("\r")
    vm.wait_prompt(60)
    assert "smp: 2 CPUs online (APIC IDs 0 1;" in vm.log_text()
    assert len(cpus_table(vm)[0]) == 2


def test_without_a_madt_one_cpu_and_a_reason(boot):
    vm = boot(machine="isapc", cpu="pentium")
    assert "smp: one CPU (no ACPI MADT lists any other)" in vm.log_text()
    rows, out = cpus_table(vm)
    assert len(rows) == 1 and rows[0].apic == 0, out


def test_cpus_takes_no_arguments(boot):
    vm = boot(extra=["-smp", "2"])
    assert vm.cmd("cpus 1").startswith("usage: cpus"), vm.cmd("cpus 1")
    assert vm.cmd("version").startswith("lull")


def test_the_boot_cpu_keeps_exact_time_with_aps_up(run):
    """Under -icount the boot CPU's timing is exact: with three APs
    started, a `sleep 1000` between two `uptime`s moves uptime by 1.000 s
    (+ the commands' own instructions), and `idle 10` on the boot CPU
    sleeps through with one wakeup: the APs add none, and none of them
    wakes.  Driven by run=: typed, while lull waited for the rest of a
    paste QEMU moved the idle guest's clock on to the next deadline, an
    AP's device maximum (68.7 s), which then fell inside the window now and
    then (1 wakeup with "max sleep 67720.3 ms" on CPU 1 in `idle 10`, 2 of
    6 runs).  The first command waits out boot's one timer, the TSC's
    second calibration a second after boot."""
    r = run(["sleep 1500", "uptime", "sleep 1000", "uptime", "wakeups reset", "idle 10",
             "wakeups 0", "cpus", "wakeups 1", "wakeups 2", "wakeups 3"], extra=["-smp", "4"])
    assert "smp: 4 CPUs online (APIC IDs 0 1 2 3;" in r.log, r.tail()
    ns = parse.uptime(r.out("uptime", 1)).ns - parse.uptime(r.out("uptime")).ns
    assert 1_000_000_000 <= ns <= 1_002_000_000, ns
    # The boot CPU's causes: the window's end, and at most one interrupt
    # of its own timer that was already due as it went idle (the busy
    # shell's next tick, fired before the idle entry reprogrammed it, and
    # not a tick any more).
    idle, w0 = r.out("idle 10"), r.out("wakeups 0")
    causes = parse.wakeups(w0).causes
    assert causes.get("hrtimer: sleep", 0) <= 1 and causes.get("irq 0xf0 (lapic-timer)", 0) <= 1, \
        idle + w0
    assert set(causes) <= {"hrtimer: sleep", "irq 0xf0 (lapic-timer)"}, idle + w0
    assert all(idle_line(idle, cpu)[0] == 0 for cpu in (1, 2, 3)), idle
    # cpus counts from the reset too: the boot CPU's wakeups are idle's,
    # each AP's none, and each AP's own table says the same.
    out = r.out("cpus")
    rows = parse.cpus(out)
    assert len(rows) == 4 and 1 <= rows[0].wakeups <= 2, out
    for cpu in (1, 2, 3):
        wakeups = parse.wakeups(r.out(f"wakeups {cpu}"))
        assert wakeups.total == 0 and not wakeups.causes, r.out(f"wakeups {cpu}")
        assert rows[cpu].wakeups == 0, out


def test_busy_on_another_cpu(run):
    """busy SECONDS CPU: an IPI wakes the AP, which spins there in the
    background (the shell returns at once) and halts again when done.
    From a reset: the AP shows busy, then idle with exactly one wakeup (the
    IPI); the boot CPU never waited for it.  Misuse says why.  Driven by
    run=: typed, whether CPU 1 had taken the IPI when `cpus` ran depended
    on whether the boot CPU halted for the next byte in between (under
    icount an AP runs only while the boot CPU halts: test_smp_timers.py's
    docstring); `sleep 10` lets it, as the one before the reset lets CPU 1
    take the IPI that starts its tick (it counts wakeups from then on)."""
    r = run(["sleep 10", "wakeups reset", "busy 1 1", "sleep 10", "cpus", "sleep 1500", "cpus",
             "busy 1 1", "busy 1 1", "busy 1 2", "busy 1 x", "busy 1 1 1", "busy 1 -1", "version"],
            extra=["-smp", "2"])
    assert r.out("busy 1 1").strip() == "busy: CPU 1 spins for 1 s in the background (see cpus)", r.tail()
    during, after = parse.cpus(r.out("cpus")), parse.cpus(r.out("cpus", 1))
    assert during[1].state == "busy", r.out("cpus")
    assert after[1].state == "idle" and after[1].wakeups == 1, r.out("cpus", 1)
    # Once more: the slot is taken at once, before CPU 1 has run the call.
    assert r.out("busy 1 1", 1).strip() == "busy: CPU 1 spins for 1 s in the background (see cpus)"
    assert r.out("busy 1 1", 2).strip() == "error: CPU 1 is busy already"
    assert r.out("busy 1 2").strip() == "error: no CPU 2 (2 online; see cpus)"
    for bad in ("busy 1 x", "busy 1 1 1", "busy 1 -1"):
        assert r.out(bad).startswith("usage: busy SECONDS(1..3600) [CPU]"), bad
    assert r.out("version").startswith("lull")


def test_a_refused_call_leaves_the_running_one_alone(run):
    """smp_call claims CPU 1's slot before it writes the argument: `busy 30
    1` typed while `busy 1 1` is still in flight is refused and must not
    change how long CPU 1 spins.  Writing the argument first, the refused
    call turned the running one's 1 s into 30 (CPU 1 halted 0 % of the next
    3 s; seen on the code before the fix under icount, where both commands
    run before CPU 1 takes its IPI)."""
    r = run(["busy 1 1", "busy 30 1", "idle 3", "cpus"], extra=["-smp", "2"])
    assert r.out("busy 30 1").strip() == "error: CPU 1 is busy already", r.tail()
    cpu1 = parse.idle(r.out("idle 3")).cpus[1]
    # 1 s of the 3 spent spinning: halted about two thirds of the time.
    assert 55 <= cpu1.halted <= 75, r.out("idle 3")
    assert parse.cpus(r.out("cpus"))[1].state == "idle", r.out("cpus")


def test_irqs_per_cpu(boot):
    """irqs has a column per CPU and the total: the IPIs that woke CPU 1 are
    counted on CPU 1, the serial line's interrupts on CPU 0."""
    vm = boot(extra=["-smp", "3"])
    vm.cmd("busy 1 1")
    out = vm.cmd("irqs").replace("\r", "")
    assert out.splitlines()[0].split() == ["vector", "line", "device", "CPU0", "CPU1", "CPU2",
                                           "total"], out
    # One IPI each when the boot CPU's tick started (follow it), and one
    # more on CPU 1 for busy.
    ipi = re.search(r"^\s+0xf1\s+lapic\s+ipi-call\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)$", out, re.M)
    assert ipi and ipi.groups() == ("0", "2", "1", "3"), out
    uart = re.search(r"^\s+0x24\s+4\s+uart\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)$", out, re.M)
    assert uart and int(uart.group(1)) > 0 and uart.group(2) == uart.group(3) == "0", out
    assert int(uart.group(4)) == int(uart.group(1)), out
    # One CPU: one count column, and no IPI vector.
    vm1 = boot(extra=["-smp", "1"])
    out = vm1.cmd("irqs").replace("\r", "")
    assert out.splitlines()[0].split() == ["vector", "line", "device", "count"], out
    assert "ipi-call" not in out


def run_outputs(boot, run, append="", extra=()):
    """Boot under icount with the shell commands `run` (run= syntax) and no
    typed input; what each command printed, in order.  Nothing typed: a
    paste's bytes can reach the guest any guest time apart (while every CPU
    waits, QEMU moves guest time on to the next deadline), so a count since
    a reset would include whatever woke in between."""
    vm = boot(append=f"{append} run={run}".strip(), extra=list(extra), icount=4,
              wait_prompt=False)
    vm.expect("run: done", timeout=60)
    log = vm.log_text().replace("\r", "")
    hz = int(re.search(r"built with HZ=(\d+)", log).group(1))
    # `lull> CMD` then its output, for each command.
    outs = re.split(r"^lull> .*$", log.split("run: done")[0], flags=re.M)[1:]
    assert len(outs) == len(run.split(";")), log[-3000:]
    return hz, outs, log


def cpus_rows(out):
    """`cpus`' rows as (tick, wakeups since reset)."""
    return [(r.tick, r.wakeups) for r in parse.cpus(out)]


def test_every_cpu_ticks_in_periodic_mode(boot):
    """periodic ticks on every CPU: HZ x CPUs interrupts a second, as the
    mainline Kconfig help says; each AP on its own local APIC timer, at
    the boot CPU's rate, and following it when it changes (hz, tick).
    Under icount the counts are exact: HZ a second, plus the wakeup that
    ends `idle` on the boot CPU and the IPIs that tell the APs of a change.
    Fails with an AP timer left at its reset divider (8 times too fast, seen)
    or an AP that ignores a change.  Driven by run=: typed, the guest time
    between a reset and `idle` is the host's to choose, and an idle AP's
    device maximum (68.7 s) could fall in it (CI: "1 (0.4/s)" on CPU 1).
    The first command waits out boot's one timer, the TSC's second
    calibration a second after boot, which tells every CPU (an IPI each);
    `sleep 10` after `tick tickless` lets each AP take the IPI that tells it
    (the shell does not wait for them) before the reset."""
    window = "wakeups,reset;idle,2;cpus"
    hz, outs, log = run_outputs(boot, f"sleep,1500;{window};hz,100;{window};tick,tickless;sleep,10;{window}",
                                append="tick=periodic", extra=["-smp", "4"])
    rows = cpus_rows(outs[3])
    assert len(rows) == 4, outs[3]
    for tick, n in rows:
        assert tick == "running, periodic on lapic", outs[3]
        assert 2 * hz - 1 <= n <= 2 * hz + 2, outs[3]
    rows = cpus_rows(outs[7])
    assert len(rows) == 4 and all(200 - 1 <= n <= 200 + 2 for _, n in rows), outs[7]
    # tickless: an idle AP has nothing due, its tick stops.
    rows = cpus_rows(outs[12])
    assert len(rows) == 4, outs[12]
    assert all(t == "stopped, tickless on lapic" and n == 0 for t, n in rows[1:]), outs[12]
    assert rows[0][1] <= 2, outs[12]


def test_idle_and_wakeups_report_each_cpu_and_the_sum(run):
    """`idle` and `wakeups` on several CPUs: one line per CPU and their sum,
    each CPU counting its own wakeups (under icount: exact).  periodic at
    HZ=100 for 2 s: about 200 on each CPU, the sum line is the sum, and
    `wakeups` charges them to the tick on every CPU; `wakeups 2` is CPU 2's
    table alone.  tickless: the idle APs never wake and count as halted
    the whole window (their sleep is still going on).  Fails with wakeups
    charged on the boot CPU only (every AP line 0 in periodic mode), or
    with a sleep in progress left out (an AP halted 0%).  Driven by run=
    (nothing typed, so no wait for the host's next byte moves guest time
    on in between), after boot's one timer, the TSC's second calibration;
    `sleep 10` lets each AP take the IPI that tells it of `tick tickless`."""
    r = run(["sleep 1500", "wakeups reset", "idle 2", "wakeups", "wakeups 2", "tick tickless",
             "sleep 10", "wakeups reset", "idle 2", "wakeups 4", "wakeups 9", "wakeups 1 2"],
            append="tick=periodic hz=100", extra=["-smp", "4"])
    idle, wakeups, w2 = r.out("idle 2"), r.out("wakeups"), r.out("wakeups 2")
    total = parse.idle(idle)
    assert list(total.cpus) == [0, 1, 2, 3], idle
    assert all(199 <= c.wakeups <= 202 for c in total.cpus.values()), idle
    assert total.wakeups == sum(c.wakeups for c in total.cpus.values()), idle
    # `wakeups`: the sum first, then each CPU; the tick woke every CPU.
    head = parse.wakeups(wakeups)
    assert head.scope == "4 CPUs" and len(head.cpus) == 4, wakeups
    assert head.total == sum(p.total for p in head.cpus.values()), wakeups
    assert head.causes.get("tick", 0) >= 4 * 199, wakeups
    head2 = parse.wakeups(w2)
    assert head2.scope == "CPU 2" and head2.total == head.cpus[2].total, w2
    assert not head2.cpus, w2

    idle = r.out("idle 2", 1)
    tickless = parse.idle(idle)
    assert len(tickless.cpus) == 4, idle
    for c in list(tickless.cpus.values())[1:]:
        assert c.wakeups == 0 and c.halted >= 99.9, idle
        assert c.mean_sleep_ms >= 1990 and c.max_sleep_ms >= 1990, idle
    assert tickless.halted >= 99.5, idle
    # Errors: a CPU that is not there, and not a number.
    assert r.out("wakeups 4").startswith("error: no CPU 4 (4 online; see cpus)"), r.out("wakeups 4")
    assert r.out("wakeups 9").startswith("usage: wakeups"), r.out("wakeups 9")
    assert r.out("wakeups 1 2").startswith("usage: wakeups"), r.out("wakeups 1 2")


@pytest.mark.parametrize("mode", ["dyntick", "tickless"])
def test_only_the_boot_cpu_wakes_for_the_clocksource_wrap(run, mode):
    """The 24-bit PM timer wraps every 4.69 s, so someone must read it every
    2.34 s (test_time's one-CPU check): the boot CPU, 25 or 26 times in an
    idle minute under icount (by where in a 2.34 s period the window
    starts).  An idle AP need not wake for it: in tickless it sleeps on (0
    wakeups; 27 seen if each CPU keeps the limit), in dyntick the boot
    CPU's wake-up kicks it (as often, by the IPI: the AP's own device, a
    tick later, never fires first).  In dyntick a CPU may also tick once
    after a wake, while the others are still busy (the 2005 rule; 29
    wakeups seen on the boot CPU), so there the causes are counted.
    Driven by run=, after boot's one timer: typed, the wait for the
    host's bytes moved the window by whatever guest time QEMU skipped
    meanwhile, and an idle AP's device maximum (68.7 s) could fall in it."""
    r = run(["sleep 1500", "wakeups reset", "idle 60", "wakeups 0", "wakeups 1"],
            append=f"tick={mode} clocksource=acpi_pm", extra=["-smp", "4"])
    idle, w0, w1 = r.out("idle 60"), r.out("wakeups 0"), r.out("wakeups 1")
    n, longest = idle_line(idle, 0)
    assert 2300 <= longest <= 2400, idle
    causes = parse.wakeups(w0).causes
    assert 25 <= causes.get("limit: clocksource wrap", 0) <= 27, w0
    # Besides: the window's end, a tick (in dyntick, the extra ticks).
    assert set(causes) <= {"limit: clocksource wrap", "hrtimer: sleep", "tick"}, w0
    if mode == "tickless":
        assert n <= 29, (idle, w0)
    for cpu in (1, 2, 3):
        n, longest = idle_line(idle, cpu)
        if mode == "tickless":
            assert n == 0, idle
        else:
            assert 25 <= n <= 2 * 28, idle
    if mode == "dyntick":
        # Kicked, then a tick or two while the boot CPU is still busy.
        causes = parse.wakeups(w1).causes
        assert causes.get("irq 0xf1 (ipi-call)", 0) >= 25, w1
        assert not any(c.startswith("limit:") for c in causes), w1


def idle_line(out, cpu):
    """CPU `cpu`'s wakeups and longest sleep (ms) from `idle`'s line for it."""
    idle = parse.idle(out)
    assert cpu in idle.cpus and len(idle.cpus) > 1, out     # the CPU's own line, not the sum's
    return idle.cpus[cpu].wakeups, idle.cpus[cpu].max_sleep_ms


@pytest.mark.parametrize("mode", ["dyntick", "tickless"])
def test_one_busy_cpu_dyntick_vs_tickless(boot, mode):
    """The two SMP idle rules side by side, under icount (exact counts).
    All CPUs idle: both skip on every CPU.  CPU 1 busy for 1 s during an
    `idle 3` on the boot CPU: dyntick keeps the 2005 rule, no tick skipped
    while any CPU is busy, so the boot CPU ticks HZ times in that second
    (253 seen at HZ=250: the ticks, the skip's end and the IPIs), then
    skips again once all are idle; tickless lets the idle boot CPU sleep
    through whatever CPU 1 does.  Fails with the busy-CPU check taken out
    of the dyntick skip (the boot CPU skips through the busy second), and
    without the wake-up of the others when the first CPU wakes (CPU 1
    still stopped while `cpus` runs).

    The commands come from the boot option run=, not typed: a typed byte
    wakes the boot CPU (in dyntick it then wakes CPU 1), and while the
    host is between two bytes icount runs the idle guest's clock on to its
    next deadline, so how many wakeups a paste cost depended on the host
    (CI: 5 for CPU 1 where 3 were allowed, once QEMU was pinned to one
    host CPU).  The first command waits out boot's one timer, the TSC's
    second calibration a second after boot."""
    run = ("sleep,1500;wakeups,reset;idle,2;wakeups,0;cpus;"
           "wakeups,reset;busy,1,1;idle,3;wakeups,0;cpus")
    hz, outs, log = run_outputs(boot, run, append=f"tick={mode}", extra=["-smp", "2"])
    assert not any(c.endswith("(uart)") for out in (outs[3], outs[8]) for c in parse.wakeups(out).causes), \
        log[-3000:]

    # All idle for 2 s: each CPU sleeps through it (the boot CPU's window
    # end and CPU 1's kick, a wakeup or two).
    n, longest = idle_line(outs[2], 0)
    assert n <= 2 and longest > 1900, outs[2]
    n, longest = idle_line(outs[2], 1)
    assert n <= 3 and longest > 1900, outs[2]
    # `cpus` itself runs on the boot CPU, busy: in dyntick the boot CPU,
    # waking first from the skip, woke CPU 1, whose tick runs while anyone
    # is busy (the 2005 rule); in tickless CPU 1 sleeps on.  Either way
    # CPU 1 woke at most a few times in the 2 s: it skipped too.
    seen = "running" if mode == "dyntick" else "stopped"
    rows = parse.cpus(outs[4])
    assert rows[1].tick == f"{seen}, {mode} on lapic" and rows[1].wakeups <= 3, outs[4]

    # CPU 1 busy for the first second of `idle 3`.
    n, longest = idle_line(outs[7], 0)
    if mode == "dyntick":
        assert hz <= n <= hz + 6, outs[7]       # ticked through the busy second
    else:
        assert n <= 4, outs[7]                  # slept through it
    assert longest > 1900, outs[7]              # and skipped once all were idle
    rows = parse.cpus(outs[9])
    assert rows[1].state == "idle" and rows[1].tick == f"{seen}, {mode} on lapic", outs[9]


# The ruler under icount: the CMOS clock, which QEMU runs on its virtual
# clock and lull never keeps time by (lullvm.rtc; test_dyntick's one-CPU
# version measures the same way).  Each edge is the midpoint of a bracket of
# probes at most MAX_SPACING_NS apart, so two edges are off by at most that
# together; lull's rate against virtual time is within RATE_PPM once the
# TSC is refined (test_drift.py).
RATE_PPM = 10


def clock_against_cmos(vm, line):
    """Across `line` on vm, between two CMOS second edges: (lull's seconds
    less the CMOS clock's, the CMOS seconds, how far jiffies strayed from
    lull's clock in ticks).  Each uptime reading may come up to a tick
    after a jiffy boundary no interrupt has counted yet: |jiffies| < 2."""
    t0, s0 = rtc_edge(vm, "continuous")
    u0 = parse.uptime(vm.cmd("uptime"))
    vm.cmd(line, timeout=30)
    u1 = parse.uptime(vm.cmd("uptime"))
    t1, s1 = rtc_edge(vm, "continuous")
    jiffies_off = (u1.jiffies - u0.jiffies) % 2**32 - (u1.ns - u0.ns) * u0.hz / 1e9
    return (t1 - t0) / 1e9 - (s1 - s0), s1 - s0, jiffies_off


@pytest.mark.timing
@pytest.mark.parametrize("mode", ["periodic", "dyntick", "tickless"])
def test_time_keeps_over_10s_on_4_cpus(boot, mode):
    """test_dyntick's `test_time_keeps_over_10s_idle` with three APs
    ticking by the mode's rule: across `idle 10` lull's clock keeps the
    CMOS clock's time (to the edges and RATE_PPM) and jiffies keep lull's
    clock's, so the APs' timers, IPIs and the dyntick busy check leave the
    boot CPU's time alone.  Under icount: guest time against guest time."""
    vm = boot(append=f"tick={mode}", extra=["-smp", "4"])
    assert "smp: 4 CPUs online" in vm.log_text()
    error_s, true_s, jiffies_off = clock_against_cmos(vm, "idle 10")
    allowed_s = MAX_SPACING_NS / 1e9 + RATE_PPM * 1e-6 * true_s
    assert abs(error_s) <= allowed_s, \
        f"{mode}: lull's clock {error_s * 1000:+.1f} ms off the CMOS clock's {true_s} s " \
        f"(allowed {allowed_s * 1000:.1f} ms)"
    assert abs(jiffies_off) < 2, f"{mode}: jiffies {jiffies_off:+.2f} ticks off lull's clock"
    rows, out = cpus_table(vm)
    assert len(rows) == 4 and all(r[3].endswith(f"{mode} on lapic") for r in rows), out
