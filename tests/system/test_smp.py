"""Several CPUs: the boot CPU starts every application processor the ACPI
MADT lists (INIT, start-up IPI, start-up IPI through boot/trampoline.asm),
each comes up on its own stack and per-CPU segment, and halts.  So far
only the boot CPU ticks (issue #12's bring-up step; docs/smp.md).

What a wrong kernel would show here: a CPU missing from `cpus` (it never
reached ap_main, or the boot CPU gave up on it), an AP that halts and wakes
(its wakeups count moves: an interrupt reached it that nothing should send),
a boot CPU whose tick or shell broke because an AP ran over shared state
(the suite's timing checks on -smp 4 below), or a fallback with no line
saying why."""
import re
import time

import pytest

from test_dyntick import drift_over_idle
from test_time import guest_ns_across

CPUS_LINE = re.compile(r"^\s*(\d+)\s+(\d+)\s+(idle|busy|off)\s+(.+?)\s+(\d+) \((\d+\.\d)/s\)$", re.M)


def cpus_table(vm):
    out = vm.cmd("cpus").replace("\r", "")
    assert out.splitlines()[0].split()[:4] == ["cpu", "apic", "state", "tick"], out
    return [m.groups() for m in CPUS_LINE.finditer(out)], out


@pytest.mark.parametrize("n", [1, 2, 4, 8])
def test_every_cpu_in_the_madt_starts(boot, n):
    vm = boot(extra=["-smp", str(n)])
    log = vm.log_text()
    if n == 1:
        assert "smp: one CPU (the MADT lists 1)" in log
    else:
        ids = " ".join(str(i) for i in range(n))
        assert re.search(rf"smp: {n} CPUs online \(APIC IDs {ids}; start-up code at 0x[0-9a-f]{{5}}\)",
                         log), log
    # Each AP starts its tick when the IPI that tells it to reaches it, as
    # soon as it runs: with 8 vCPU threads on a 2-core host that can be
    # after the first `cpus` (two APs showed no tick yet at 130 ms).
    for _ in range(50):
        rows, out = cpus_table(vm)
        if all(r[3] != "none" for r in rows):
            break
        time.sleep(0.1)
    assert [int(r[0]) for r in rows] == list(range(n)), out
    assert [int(r[1]) for r in rows] == list(range(n)), out
    # The boot CPU runs the command, with its tick.
    assert rows[0][2] == "busy" and rows[0][3].startswith("running, tickless on lapic"), out
    # Every AP is up and halted, its tick following the boot CPU's mode:
    # tickless, so stopped.  Since boot each woke once for the IPI that told
    # it the boot CPU's tick had started, and may have once more: an AP that
    # answered just after the second start-up IPI was sent gets it while
    # halted, and QEMU ends the halt for it (the IPI itself is ignored, SDM
    # 8.4.3).  From a reset on, over an idle second, nothing may wake an
    # AP: it has no tick and no interrupt is meant for it.
    # And once more at most: the tick an AP starts with is one-shot at the
    # next jiffy boundary, stopped when it first goes idle; an AP thread
    # the host delays past that boundary (8 vCPUs on 2 cores) takes it.
    for r in rows[1:]:
        assert r[2] == "idle" and r[3] == "stopped, tickless on lapic" and 1 <= int(r[4]) <= 3, out
    vm.cmd("wakeups reset")
    vm.cmd("idle 1")
    rows, out = cpus_table(vm)
    assert len(rows) == n and all(r[4] == "0" for r in rows[1:]), out


def test_q35_and_grub_start_the_aps(boot):
    vm = boot(machine="q35", extra=["-smp", "3"])
    assert "smp: 3 CPUs online (APIC IDs 0 1 2;" in vm.log_text()
    vm = boot(iso=True, extra=["-smp", "2"], timeout=60)
    assert "smp: 2 CPUs online (APIC IDs 0 1;" in vm.log_text()
    assert len(cpus_table(vm)[0]) == 2


def test_without_a_madt_one_cpu_and_a_reason(boot):
    vm = boot(machine="isapc", cpu="pentium")
    assert "smp: one CPU (no ACPI MADT lists any other)" in vm.log_text()
    rows, out = cpus_table(vm)
    assert len(rows) == 1 and rows[0][1] == "0", out


def test_cpus_takes_no_arguments(boot):
    vm = boot(extra=["-smp", "2"])
    assert vm.cmd("cpus 1").startswith("usage: cpus"), vm.cmd("cpus 1")
    assert vm.cmd("version").startswith("lull")


def test_the_boot_cpu_keeps_exact_time_with_aps_up(boot):
    """Under -icount the boot CPU's timing is exact: with three APs
    started, a `sleep 1000` pasted between two `uptime`s still moves uptime
    by 1.000 s (+ the commands' own instructions; a paste the host was slow
    to deliver shows as a wakeup of its own and is tried again), and `idle 10` on the
    boot CPU still sleeps through with one wakeup: the APs add none."""
    vm = boot(extra=["-smp", "4"], icount=4)
    # Under icount QEMU runs the vCPUs round-robin in one thread: all four
    # must start that way too (docs/smp.md).
    assert "smp: 4 CPUs online (APIC IDs 0 1 2 3;" in vm.log_text()
    for _ in range(3):      # test_time.guest_ns_across: again if the host was slow
        ns, said = guest_ns_across(vm, "sleep 1000", wakeups=1)
        if ns is not None:
            break
    assert ns is not None, f"other wakeups than the sleep's, every time:\n{said}"
    assert 1_000_000_000 <= ns <= 1_002_000_000, ns
    vm.send("wakeups reset\ridle 10\rcpus\r")
    outs = [vm.wait_prompt(30).replace("\r", "") for _ in range(3)]
    m = re.search(r"(\d+) wakeups", outs[1])
    assert m and int(m.group(1)) <= 1, outs[1]
    # cpus counts from the reset too: the boot CPU's wakeups are idle's
    # (and the serial line's), each AP's none.
    rows = [g.groups() for g in CPUS_LINE.finditer(outs[2])]
    assert len(rows) == 4 and 1 <= int(rows[0][4]) <= 5, outs[2]
    assert all(r[4] == "0" for r in rows[1:]), outs[2]


def test_busy_on_another_cpu(boot):
    """busy SECONDS CPU: an IPI wakes the AP, which spins there in the
    background (the shell returns at once) and halts again when done.
    From a reset: the AP shows busy, then idle with exactly one wakeup (the
    IPI); the boot CPU never waited for it.  Misuse says why."""
    vm = boot(extra=["-smp", "2"])
    vm.send("wakeups reset\rbusy 1 1\rcpus\rsleep 1500\rcpus\r")
    outs = [vm.wait_prompt(30).replace("\r", "") for _ in range(5)]
    assert "busy: CPU 1 spins for 1 s in the background (see cpus)" in outs[1], outs[1]
    during = [g.groups() for g in CPUS_LINE.finditer(outs[2])]
    after = [g.groups() for g in CPUS_LINE.finditer(outs[4])]
    assert during[1][2] == "busy", outs[2]
    assert after[1][2] == "idle" and after[1][4] == "1", outs[4]
    assert vm.cmd("busy 1 1").strip() == "busy: CPU 1 spins for 1 s in the background (see cpus)"
    assert vm.cmd("busy 1 1").strip() == "error: CPU 1 is busy already"
    assert vm.cmd("busy 1 2").strip() == "error: no CPU 2 (2 online; see cpus)"
    for bad in ("busy 1 x", "busy 1 1 1", "busy 1 -1"):
        assert vm.cmd(bad).startswith("usage: busy SECONDS [CPU]"), bad
    assert vm.cmd("version").startswith("lull")


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
    vm1 = boot()
    out = vm1.cmd("irqs").replace("\r", "")
    assert out.splitlines()[0].split() == ["vector", "line", "device", "count"], out
    assert "ipi-call" not in out


def build_hz(vm):
    return int(re.search(r"built with HZ=(\d+)", vm.cmd("version")).group(1))


def wakeups_per_cpu(vm, seconds):
    """Each CPU's wakeups over `idle SECONDS`, from a reset, all pasted
    together (under icount: exact guest time)."""
    vm.send(f"wakeups reset\ridle {seconds}\rcpus\r")
    outs = [vm.wait_prompt(60).replace("\r", "") for _ in range(3)]
    return [(r[3], int(r[4])) for r in (g.groups() for g in CPUS_LINE.finditer(outs[2]))], outs[2]


def test_every_cpu_ticks_in_periodic_mode(boot):
    """periodic ticks on every CPU: HZ x CPUs interrupts a second, as the
    mainline Kconfig help says; each AP on its own local APIC timer, at
    the boot CPU's rate, and following it when it changes (hz, tick).
    Under icount the counts are exact: HZ a second, plus the wakeup that
    ends `idle` on the boot CPU and the IPIs that tell the APs of a change.
    Fails with an AP timer left at its reset divider (8 times too fast, seen)
    or an AP that ignores a change."""
    vm = boot(append="tick=periodic", extra=["-smp", "4"], icount=4)
    hz = build_hz(vm)
    rows, out = wakeups_per_cpu(vm, 2)
    assert len(rows) == 4, out
    for tick, n in rows:
        assert tick == "running, periodic on lapic", out
        assert 2 * hz - 1 <= n <= 2 * hz + 2, out
    vm.cmd("hz 100")
    rows, out = wakeups_per_cpu(vm, 2)
    assert all(200 - 1 <= n <= 200 + 2 for _, n in rows), out
    # tickless: an idle AP has nothing due, its tick stops.
    vm.cmd("tick tickless")
    rows, out = wakeups_per_cpu(vm, 2)
    assert all(t == "stopped, tickless on lapic" and n == 0 for t, n in rows[1:]), out
    assert rows[0][1] <= 2, out


def idle_line(out):
    m = re.search(r"idle (\d+\.\d+) s: (\d+) wakeups .* max sleep (\d+\.\d+) ms", out)
    assert m, out
    return int(m.group(2)), float(m.group(3))


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
    still stopped while `cpus` runs)."""
    vm = boot(append=f"tick={mode}", extra=["-smp", "2"], icount=4)
    hz = build_hz(vm)
    vm.send("wakeups reset\ridle 2\rcpus\r")
    outs = [vm.wait_prompt(60).replace("\r", "") for _ in range(3)]
    n, longest = idle_line(outs[1])
    assert n <= 2 and longest > 1900, outs[1]
    # `cpus` itself runs on the boot CPU, busy: in dyntick the boot CPU,
    # waking first from the skip, woke CPU 1, whose tick runs while anyone
    # is busy (the 2005 rule); in tickless CPU 1 sleeps on.  Either way
    # CPU 1 woke at most a few times in the 2 s: it skipped too.
    seen = "running" if mode == "dyntick" else "stopped"
    rows = [g.groups() for g in CPUS_LINE.finditer(outs[2])]
    assert rows[1][3] == f"{seen}, {mode} on lapic" and int(rows[1][4]) <= 3, outs[2]

    vm.send("wakeups reset\rbusy 1 1\ridle 3\rcpus\r")
    outs = [vm.wait_prompt(60).replace("\r", "") for _ in range(4)]
    n, longest = idle_line(outs[2])
    if mode == "dyntick":
        assert hz <= n <= hz + 6, outs[2]       # ticked through the busy second
    else:
        assert n <= 4, outs[2]                  # slept through it
    assert longest > 1900, outs[2]              # and skipped once all were idle
    rows = [g.groups() for g in CPUS_LINE.finditer(outs[3])]
    assert rows[1][2] == "idle" and rows[1][3] == f"{seen}, {mode} on lapic", outs[3]


# Against the host's clock, as test_dyntick's single-CPU version (the same
# 10 ms in 20 s, for the same reasons), with three APs ticking by the
# mode's rule: their timers, IPIs and the dyntick busy check must leave
# the boot CPU's time alone.
@pytest.mark.timing
@pytest.mark.parametrize("mode", ["periodic", "dyntick", "tickless"])
def test_time_keeps_over_20s_on_4_cpus(boot, mode):
    vm = boot(append=f"tick={mode}", extra=["-smp", "4"])
    assert "smp: 4 CPUs online" in vm.log_text()
    drift = drift_over_idle(vm)
    assert abs(drift) <= 0.010, f"{mode}: drift {drift * 1000:.1f} ms"
    rows, out = cpus_table(vm)
    assert len(rows) == 4 and all(r[3].endswith(f"{mode} on lapic") for r in rows), out
