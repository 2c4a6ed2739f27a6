"""Timers armed again from the shell: `every`, `alarm`, `keytimer` and
`sleep` run twice, re-armed while pending, and interrupted with Ctrl-C.
After each step the shell must still answer, and `timers` must list
exactly the timers that should be pending: a timer re-initialised while it
was still on the wheel used to be linked in twice (a loop in its bucket's
list, and a hang with interrupts off on the next walk).

Everything runs under icount.  `every` is driven by run=, its guest time
the guest's own.  A Ctrl-C must land while the command still waits, and
an idle guest under icount skips to its next deadline at once, so a typed
byte would come too late unless the wait is long in host time too:
`sleep` waits a day in periodic mode at HZ=1000, where every guest
millisecond is a wakeup that costs QEMU tens of host microseconds;
`keytimer`'s key and the Ctrl-C go in one write, so the interrupt that
arms the timer reads the Ctrl-C too; `alarm multiple`, whose sleeps are
fixed, runs while a second CPU spins, which keeps QEMU from skipping."""
import re
import time

from lullvm.parse import uptime, wakeups

CTRL_C = "\x03"
# The shell's own timers: everything else `timers` lists belongs to the
# kernel (the TSC refinement shortly after boot) and is left alone.
OURS = ("every", "alarm", "keytimer", "sleep")

TIMERS_HEAD_RE = re.compile(r"(\d+) wheel timers, (\d+) hrtimers pending \(jiffies (\d+)\)")
TIMER_LINE_RE = re.compile(r"^  (wheel|hrtimer) +expires (.*?)  (\S+)$")


def listed(out):
    """`timers`' output as a list of (kind, when, name), checked against its
    own head line: the counts must match the timers the walk found."""
    head = TIMERS_HEAD_RE.search(out)
    assert head, out
    found = [m.groups() for m in map(TIMER_LINE_RE.match, out.splitlines()) if m]
    wheel = [t for t in found if t[0] == "wheel"]
    hrtimers = [t for t in found if t[0] == "hrtimer"]
    assert (len(wheel), len(hrtimers)) == (int(head.group(1)), int(head.group(2))), out
    return found


def ours_in(out):
    """The shell's timers in a `timers` output, by name, sorted."""
    return sorted(name for _, _, name in listed(out) if name in OURS)


def ours(vm):
    return ours_in(vm.cmd("timers"))


def ticks_ahead(out, name):
    """How many ticks ahead the one pending wheel timer `name` expires."""
    found = [when for kind, when, n in listed(out) if kind == "wheel" and n == name]
    assert len(found) == 1, found
    m = re.search(r"\(in (\d+) ticks\)", found[0])
    assert m, found
    return int(m.group(1))


def started(vm):
    """Wait until the command just typed has started: the echo of Enter,
    and a pause over the few microseconds of guest work between it and
    the start (a Ctrl-C there would be taken as a typed byte)."""
    vm.expect_exact("\n")
    time.sleep(0.05)


def interrupt(vm):
    """Ctrl-C the running command, with `timers` in the same write: the line
    waits in the console's ring and runs the moment the command is gone,
    before a timer it left behind could fire (typed later, the idle guest
    would leap to it first).  It must say it was interrupted, and leave
    none of ours."""
    vm.send(CTRL_C + "timers\r")
    assert "^C (interrupted)" in vm.wait_prompt()
    assert ours_in(vm.wait_prompt()) == []


# Nothing is typed between these, so the guest's time between them is its
# own: driven by run=.
EVERY_SCRIPT = ["hz", "every 100", "timers", "every 50", "timers", "every",
                "wakeups reset", "sleep 300", "wakeups 0", "timers",
                "every 100000", "timers", "every 100000", "timers", "every",
                "every off", "timers", "every off", "timers", "every", "sleep 200", "timers"]


def test_every_rearmed_while_pending(run):
    r = run(EVERY_SCRIPT)
    assert len(r.outs) == len(EVERY_SCRIPT), r.tail()
    steps = iter(zip(EVERY_SCRIPT, r.outs))

    def step(cmd):
        """The next command's output (it must be `cmd`'s)."""
        ran, out = next(steps)
        assert ran == cmd, (ran, cmd)
        return out

    rate = int(re.search(r"HZ=(\d+)", step("hz")).group(1))
    step("every 100")
    assert ours_in(step("timers")) == ["every"]
    step("every 50")
    assert ours_in(step("timers")) == ["every"]
    assert "every: 50 ms" in step("every")
    # The new period is running: 300 ms of guest time hold five or six of
    # its expiries (the old 100 ms period: two or three), and then it is
    # still one timer, due within one 50 ms period.
    step("wakeups reset")
    step("sleep 300")
    fired = wakeups(step("wakeups 0")).causes.get("timer: every", 0)
    assert 5 <= fired <= 6, r.out("wakeups 0")
    assert 0 <= ticks_ahead(step("timers"), "every") <= -(-50 * rate // 1000)
    # Far enough out that the re-arm lands in the bucket it is already
    # in: the case that looped the bucket's list.  Listed at once, a tick
    # at most after the arming; a re-arm linked twice, or at the old
    # period, is far outside.
    period = 100_000 * rate // 1000
    for _ in range(2):
        step("every 100000")
        out = step("timers")
        assert ours_in(out) == ["every"]
        assert period - 1 <= ticks_ahead(out, "every") <= period, out
    assert "every: 100000 ms" in step("every")
    for was in ("was 100000 ms", "unchanged"):
        assert step("every off").strip() == f"every: off ({was})"
        assert ours_in(step("timers")) == []
    assert step("every").strip() == "every: off"
    step("sleep 200")
    assert ours_in(step("timers")) == []


ALARM_DONE = "alarm order: PASS"


def test_alarm_twice_and_after_ctrl_c(boot):
    vm = boot(extra=["-smp", "2"])
    for _ in range(2):
        assert ALARM_DONE in vm.cmd("alarm order")
        assert ours(vm) == []
    # Interrupted while its sleepers are pending: they are deleted, and
    # the next run sets them up afresh.  `alarm multiple` sleeps 10 to 70
    # ticks, 3.5 s at HZ=100: gone in a few host milliseconds if the guest
    # idles, so CPU 1 spins meanwhile.  With a CPU always running, QEMU
    # cannot skip ahead, and guest time follows the instructions run: the
    # sleeps take a host second or more (about 2 s measured), the Ctrl-C
    # comes 50 ms after they begin.
    assert "error" not in vm.cmd("hz 100")
    assert "in the background" in vm.cmd("busy 10 1")
    vm.type("alarm multiple\r")
    vm.expect_exact("alarm multiple")
    started(vm)
    interrupt(vm)
    assert ALARM_DONE in vm.cmd("alarm order")
    assert ours(vm) == []


def wait_for_key_prompt(vm):
    """keytimer's line; its input hook is installed just after it is
    printed, and the pause makes sure no key arrives first."""
    vm.expect_exact("press a key")
    vm.expect_exact("\n")
    time.sleep(0.1)


def keytimer(vm, ms):
    """Run `keytimer MS`, pressing a key once it asks; return its output."""
    vm.type(f"keytimer {ms}\r")
    wait_for_key_prompt(vm)
    vm.send("k")
    return vm.wait_prompt()


def test_keytimer_twice_and_after_ctrl_c(vm):
    for _ in range(2):
        assert re.search(r"fired after \d+ us \(asked 50 ms\)", keytimer(vm, 50))
        assert ours(vm) == []
    # Armed by the key, then interrupted before it fires: the key and the
    # Ctrl-C in one write reach the UART's FIFO together, and the serial
    # interrupt reads both, so the timer is pending when the Ctrl-C comes,
    # whatever the host does.  (`timers` cannot ride along: the key's hook
    # is still in place and would eat it.)  Typed next, it finds a timer
    # left behind still pending: 60 s away in periodic mode at HZ=1000,
    # that many wakeups, seconds of host time.
    assert "error" not in vm.cmd("tick periodic") + vm.cmd("hz 1000")
    vm.type("keytimer 60000\r")
    wait_for_key_prompt(vm)
    vm.send("k" + CTRL_C)
    assert "^C (interrupted)" in vm.wait_prompt()
    assert ours(vm) == []
    assert re.search(r"fired after \d+ us \(asked 50 ms\)", keytimer(vm, 50))
    assert ours(vm) == []


# A day: at HZ=1000 in periodic mode, an hour of host time or more.
LONG_SLEEP = "sleep 86400000"


def test_sleep_interrupted_then_again(vm):
    assert "error" not in vm.cmd("tick periodic") + vm.cmd("hz 1000")
    for _ in range(2):
        vm.type(LONG_SLEEP + "\r")
        vm.expect_exact(LONG_SLEEP)
        started(vm)
        interrupt(vm)
    # Then a whole sleep, timed in guest time: nothing left over from the
    # interrupted ones ends it early.  Pasted, the three lines wait in the
    # console's ring, so the two readings are the sleep apart (more only if
    # the host split the paste).
    vm.send("uptime\rsleep 200\ruptime\r")
    before, slept, after = (vm.wait_prompt() for _ in range(3))
    assert slept.replace("\r", "").strip() == "sleep 200", slept
    assert uptime(after).ns - uptime(before).ns >= 200_000_000, (before, after)
    assert ours(vm) == []
