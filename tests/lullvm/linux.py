"""The patched Linux of linux/ (docs/linux.md): the kernel `make linux`
builds, booted in qemu-system-i386 by tools/linux-boot with linux/init.c
as its whole user space, and init's serial console.

    r = run_linux(["sleep 3000", "cat /proc/interrupts"], append="nohz=off")
    r.ok("cat /proc/interrupts")          # what init printed for it
    g = LinuxGuest(linux_args(smp=2, icount=None), log_path, 60)
    g.wait_prompt(); g.run("cat /proc/uptime")   # typed, as at a terminal

Guest time is lull's (lullvm.qemu): `-icount shift=4,sleep=off` with the
CMOS clock on the virtual clock from a fixed date, unless icount=None.
Under icount a boot that is typed to does not keep time with its typist:
while init waits for the next byte every CPU is idle, NO_HZ lets each
sleep to its next timer, and QEMU moves guest time on to that timer at
once, again and again (some 40 s of guest time per typed line here).  So
whatever is measured over guest time is measured in a boot driven by
init's arguments (run_linux), which types nothing and powers off after
its last command, as run= does for lull.
"""
import functools
import os
import re
import subprocess

from lullvm.qemu import BUILD, ICOUNT_RTC, ICOUNT_SHIFT, ROOT, Lull, RunLog, icount_pin, run_to_exit

LINUX = os.path.join(BUILD, "linux")
BZIMAGE = os.path.join(LINUX, "bzImage")
LINUX_BOOT = os.path.join(ROOT, "tools", "linux-boot")
INIT_PROMPT = "init> "
# The series' two files (linux/*.patch, docs/linux.md).
DYN_TICK_STATE = "/sys/devices/system/timer/timer0/dyn_tick_state"
DYN_TICK_STATS = "/sys/devices/system/timer/timer0/dyn_tick_stats"
# What the kernel passes on to init: 32 arguments after its name
# (init/main.c's set_init_arg, MAX_INIT_ARGS; one more panics the boot),
# from a command line of at most 2048 bytes with its final NUL (x86's
# COMMAND_LINE_SIZE).
MAX_INIT_COMMANDS = 32
MAX_CMDLINE = 2047


def kernel_hz():
    """The HZ the kernel was built with (its .config)."""
    with open(os.path.join(LINUX, "obj", ".config")) as f:
        return int(re.search(r"^CONFIG_HZ=(\d+)$", f.read(), re.M).group(1))


def init_arg(command):
    """One of init's commands as one kernel argument: ',' for each space."""
    if "," in command or '"' in command:
        raise ValueError(f"init's arguments cannot hold ',' or '\"': {command!r}")
    return ",".join(command.split())


@functools.lru_cache(maxsize=None)
def icount_boots_smp(qemu="qemu-system-i386"):
    """Whether this QEMU boots the patched Linux on more than one CPU under
    icount.

    QUIRK: under -icount QEMU runs all vCPUs in turn on one thread, and
    before 8.1 it gave the first CPU of each round the whole budget up to
    the next timer deadline.  A CPU that spins without PAUSE or HLT spends
    all of it, and the next starts every turn with nothing left.  Linux's
    boot CPU waits for the second in a schedule() loop (native_cpu_up), the
    second waits for its go-ahead in cpu_init() and never runs again: the
    boot stops after "x86: Booting SMP configuration:" (QEMU 7.2, every
    shift; lull's CPUs halt or PAUSE when they wait, so lull is spared).
    QEMU 8.1 splits the budget between the CPUs (commit 83ecdb18eb65,
    "accel/tcg/tcg-accel-ops-rr: ensure fairness with icount").  Before
    that, a Linux boot on several CPUs keeps the host's clock."""
    out = subprocess.run([qemu, "--version"], capture_output=True, text=True).stdout
    m = re.search(r"version (\d+)\.(\d+)", out)
    return bool(m) and (int(m.group(1)), int(m.group(2))) >= (8, 1)


def linux_args(smp=1, append="", commands=(), icount=ICOUNT_SHIFT, pin=None, host_cpu=None):
    """The command line for one boot of the patched Linux: tools/linux-boot
    (which builds the initramfs and execs QEMU) with QEMU_EXTRA set to what
    is asked here, never to the caller's environment's.

    smp, append  tools/linux-boot's -smp and -append (kernel options)
    commands     init's commands, run at boot before it reads the console
    icount       -icount shift=ICOUNT,sleep=off and the CMOS clock from a
                 fixed date (lullvm.qemu.ICOUNT_RTC); None: the host's clock
    pin          under icount, run on one host CPU (lullvm.qemu.icount_pin);
                 by default when the commands end in poweroff (nothing typed)
    """
    if icount is not None and smp > 1 and not icount_boots_smp():
        raise ValueError(f"this QEMU cannot boot Linux on {smp} CPUs under icount "
                         "(icount_boots_smp): pass icount=None")
    extra = []
    if icount is not None:
        extra = ["-icount", f"shift={icount},align=off,sleep=off", *ICOUNT_RTC]
    else:
        # On the host's clock, a loaded host stretches the guest's reads of
        # its clocks unevenly, and Linux's clocksource watchdog then finds
        # the TSC skewed against the HPET and says so on the console in the
        # middle of a command's answer (CI: "TSC found unstable after boot"
        # inside `cat dyn_tick_state` on two CPUs, the other test's guest
        # beside it).  That is the host, not the series: the TSC is not
        # watched in these boots.  (Under icount every clock counts the
        # same instructions: nothing to skew.)
        append = " ".join(a for a in ("tsc=nowatchdog", append) if a)
    args = ["env", "QEMU_EXTRA=" + " ".join(extra), LINUX_BOOT, "-smp", str(smp)]
    if append:
        args += ["-append", append]
    argv = [init_arg(c) for c in commands]
    # tools/linux-boot's kernel command line: "console=ttyS0 APPEND -- ARGV".
    cmdline = " ".join(["console=ttyS0", append, "--", *argv])
    if len(argv) > MAX_INIT_COMMANDS or len(cmdline) > MAX_CMDLINE:
        raise ValueError(f"{len(argv)} init commands, {len(cmdline)} bytes: more than "
                         f"one kernel command line holds ({MAX_INIT_COMMANDS}, {MAX_CMDLINE})")
    args += argv
    if pin is None:
        pin = bool(commands) and commands[-1] == "poweroff"
    return icount_pin(host_cpu) + args if icount is not None and pin else args


class LinuxGuest(Lull):
    """The patched Linux at init's prompt (linux/init.c), typed to."""

    def wait_prompt(self, timeout=20):
        self._wait(self.child.expect_exact, INIT_PROMPT, timeout)
        return self.child.before

    def run(self, line, timeout=20):
        """A command of init's; its output, which must end in "ok"."""
        out = self.cmd(line, timeout=timeout)
        assert re.search(r"\bok\s*$", out) and "error:" not in out, (line, out)
        return out


class InitLog(RunLog):
    """A boot driven by init's arguments: its serial log, cut into each
    command's output (init prints `init> COMMAND` before each)."""

    def out(self, cmd, nth=0):
        """What `cmd` printed (its nth run), up to init's next command."""
        parts = self.log.split(f"\n{INIT_PROMPT}{cmd}\n")
        assert len(parts) > nth + 1, f"`{cmd}` never ran:\n{self.tail()}"
        return re.split(rf"^{INIT_PROMPT}", parts[nth + 1], flags=re.M)[0]

    def ok(self, cmd, nth=0):
        """What `cmd` printed, which must end in "ok" (init's success)."""
        out = self.out(cmd, nth)
        assert re.search(r"\bok\s*$", out) and "error:" not in out, (cmd, out)
        return out

    @property
    def outs(self):
        """Every command's output, in the order they ran."""
        return re.split(rf"^{INIT_PROMPT}.*$", self.log, flags=re.M)[1:]

    @property
    def hz(self):
        """The HZ the kernel was built with."""
        return kernel_hz()


def run_linux(commands, smp=1, append="", timeout=120, icount=ICOUNT_SHIFT,
              log_path=None, **kw):
    """Boot the patched Linux with `commands` as init's arguments, then
    poweroff, and wait for QEMU to exit: an InitLog.  A boot still running
    at `timeout` host seconds is killed (InitLog.finished is then False)."""
    commands = list(commands)
    if not commands or commands[-1] != "poweroff":
        commands.append("poweroff")
    args = linux_args(smp=smp, append=append, commands=commands, icount=icount, **kw)
    return InitLog(*run_to_exit(args, timeout, log_path), log_path)


# ------------------------------------------------------------ outputs as numbers

def dyn_tick_state(out):
    """`cat dyn_tick_state`: its three lines as {name: 0 or 1}, exactly those."""
    fields = {}
    for line in out.splitlines():
        if not line or line.startswith("cat ok"):
            continue
        m = re.fullmatch(r"(suitable|enabled|using APIC):\t([01])", line)
        assert m, f"not a status line: {line!r} in {out!r}"
        fields[m.group(1)] = int(m.group(2))
    assert list(fields) == ["suitable", "enabled", "using APIC"], out
    return fields


def dyn_tick_stats(out):
    """`cat dyn_tick_stats`: {cpu: {stopped, skipped, timer, other}}."""
    lines = [l for l in out.splitlines() if l and not l.startswith("cat ok")]
    assert lines and lines[0].split() == ["cpu", "stopped", "skipped", "timer", "other"], out
    rows = {}
    for line in lines[1:]:
        cpu, *vals = (int(x) for x in line.split())
        rows[cpu] = dict(zip(["stopped", "skipped", "timer", "other"], vals))
    return rows


def local_timer_irqs(out):
    """`cat /proc/interrupts`: local APIC timer interrupts so far, per CPU (LOC)."""
    m = re.search(r"^\s*LOC:((?:\s+\d+)+)\s+Local timer interrupts", out, re.M)
    assert m, out
    return [int(x) for x in m.group(1).split()]
