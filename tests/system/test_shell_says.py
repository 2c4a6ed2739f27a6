"""A command that changes the system says what it changed, in one line:
the state read back after the change (in the words of the command's own
query), and what it was before, or "unchanged" when it already was so.
Every command of the table is sorted into one of the kinds below, so a
new one has to say which it is."""
import re

from lullvm import parse
from lullvm.shell_table import commands

# Commands that change something and then say so in one line.
CHANGES = {"tick", "dyntick", "hz", "clockevent", "clocksource", "every", "wakeups", "wheel",
           "slack", "slice", "preempt"}
# Commands that run something and report it in lines of their own (or end
# the machine, or only wait: `sleep` changes nothing).
RUNS = {"busy", "inject", "timeron", "keytimer", "stress", "alarm", "latency", "trace", "idle",
        "power", "timerload", "watchdog", "sleep", "reboot", "poweroff", "fault", "spawn", "kill", "top"}
# Commands that only show.
SHOWS = {"help", "version", "cmdline", "mem", "acpi", "date", "uptime", "timers", "cpus", "irqs", "ps"}


def built_hz(vm):
    return int(re.search(r"built with HZ=(\d+)\)", vm.cmd("version")).group(1))


def said(vm, line):
    """The one line `line` printed (it must print exactly one)."""
    out = [ln for ln in vm.cmd(line).replace("\r", "").splitlines() if ln.strip()]
    assert len(out) == 1, (line, out)
    return out[0]


def test_every_command_is_of_one_kind():
    names = {c.name for c in commands()}
    assert CHANGES | RUNS | SHOWS == names, names ^ (CHANGES | RUNS | SHOWS)
    assert not (CHANGES & RUNS or CHANGES & SHOWS or RUNS & SHOWS)


def test_each_change_says_what_it_is_now_and_was(vm):
    hz = built_hz(vm)
    boot = parse.TickState("tickless", hz, "lapic", "tsc")
    # The tick, its rate, its device and the clocksource: parse.switch_said,
    # then the command's own query agrees.
    steps = [("tick periodic", boot._replace(mode="periodic")),
             ("tick periodic", boot._replace(mode="periodic")),
             ("dyntick on", boot._replace(mode="dyntick")),
             ("dyntick off", boot._replace(mode="periodic")),
             ("hz 1000", boot._replace(mode="periodic", hz=1000)),
             ("hz 1000", boot._replace(mode="periodic", hz=1000)),
             ("clockevent pit", boot._replace(mode="periodic", hz=1000, device="pit")),
             ("clockevent pit", boot._replace(mode="periodic", hz=1000, device="pit")),
             ("clocksource hpet", boot._replace(mode="periodic", hz=1000, device="pit",
                                                clocksource="hpet")),
             ("clocksource pmtmr", boot._replace(mode="periodic", hz=1000, device="pit",
                                                 clocksource="acpi_pm")),
             ("clocksource acpi_pm", boot._replace(mode="periodic", hz=1000, device="pit",
                                                   clocksource="acpi_pm")),
             ("clockevent lapic", boot._replace(mode="periodic", hz=1000, clocksource="acpi_pm")),
             ("clocksource tsc", boot._replace(mode="periodic", hz=1000)),
             ("tick tickless", boot._replace(hz=1000)),
             (f"hz {hz}", boot)]
    was = boot
    for line, now in steps:
        assert re.fullmatch(parse.switch_said(line, was, now), said(vm, line)), (line, was, now)
        was = now
        assert said(vm, "tick") == f"tick: {now.mode} on {now.device}, HZ={now.hz}"
        assert said(vm, "hz") == f"HZ={now.hz} (tick every {1_000_000 // now.hz} us)"
        assert re.search(rf"^\* {now.device} ", vm.cmd("clockevent"), re.M), line
        assert re.search(rf"^\* {now.clocksource} ", vm.cmd("clocksource"), re.M), line

    # The rest: (command, the line it says), in order.
    for line, want in [
            ("every off", "every: off (unchanged)"),
            ("every 100", "every: 100 ms (was off)"),
            ("every 100", "every: 100 ms (restarted)"),
            ("every 50", "every: 50 ms (was 100 ms)"),
            ("wheel level", "wheel: level, 1 timers pending (was cascade)"),
            ("wheel level", "wheel: level, 1 timers pending (unchanged)"),
            ("wheel cascade", "wheel: cascade, 1 timers pending (was level)"),
            ("every off", "every: off (was 50 ms)"),
            ("slack 10", "slack: default 10% for timers armed from now on (was exact)"),
            ("slack 10", "slack: default 10% for timers armed from now on (unchanged)"),
            ("slack default", "slack: default exact for timers armed from now on (was 10%)"),
            ("slack piggyback off", "slack: piggyback off (was on)"),
            ("slack piggyback off", "slack: piggyback off (unchanged)"),
            ("slack piggyback on", "slack: piggyback on (was off)"),
            ("slice 20", f"slice: {20 * hz // 1000} jiffies ({20 * hz // 1000 * 1000 // hz} ms at HZ={hz}) "
                         f"(was {100 * hz // 1000} jiffies)"),
            ("slice 20", f"slice: {20 * hz // 1000} jiffies ({20 * hz // 1000 * 1000 // hz} ms at HZ={hz}) "
                         f"(unchanged)"),
            ("preempt off", "preempt: off (a woken task waits at the tail of its CPU's queue) (was on)"),
            ("preempt off", "preempt: off (a woken task waits at the tail of its CPU's queue) (unchanged)"),
            ("preempt on", "preempt: on (a woken task takes the CPU from a task in ring 3 at once) (was off)")]:
        assert said(vm, line) == want, line
        query = said(vm, line.split()[0])
        if line.split()[0] in ("every", "wheel", "slice", "preempt"):
            assert want.startswith(query + " ("), (want, query)

    # wakeups reset: the count read back after it (0, on one CPU with
    # nothing armed), since when, and what it was.
    m = re.fullmatch(r"wakeups: (\d+) since the reset at ([\d.]+) s of uptime \(was (\d+) in ([\d.]+) s\)",
                     said(vm, "wakeups reset"))
    assert m and int(m.group(1)) == 0, m
    up = parse.uptime(vm.cmd("uptime"))
    assert 0 < float(m.group(2)) <= up.seconds
    # Again: what it was counts from the last reset (the keys typed since,
    # each an interrupt that may wake the CPU), over the time since it.
    again = re.fullmatch(r"wakeups: 0 since the reset at ([\d.]+) s of uptime \(was \d+ in ([\d.]+) s\)",
                         said(vm, "wakeups reset"))
    assert again, again
    assert abs(float(again.group(1)) - float(m.group(2)) - float(again.group(2))) < 0.002
