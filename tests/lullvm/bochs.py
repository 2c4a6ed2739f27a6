"""Running lull in Bochs for the system tests: the bochsrc, starting Bochs,
Bochs' own words when it fails, and lull's shell on Bochs' COM1.

What the bochsrc needs on any machine:
- `sound: driver=dummy`.  Bochs' default sound driver is ALSA; on a machine
  with no sound card Bochs 2.7 aborts at start-up ("*** buffer overflow
  detected ***", exit status 134) before the guest runs.  lull makes no
  sound, so the dummy driver loses nothing.
- `display_library: rfb, options="timeout=0"`.  The only display Debian's
  bochs package has without X (wx is its other one); it does not wait for a
  VNC client, and it takes the first free TCP port from 5900 up, so a port
  someone else holds does not stop it.
- `clock: sync=none` (the default here): guest time is counted in
  instructions (ips), not taken from the host, so a busy host slows Bochs
  down but cannot stretch a time lull measures.  The flip side: guest time
  does not follow the wall clock.  While lull halts, Bochs jumps to its
  next timer event, so an idle guest second passes in a fraction of a real
  one (`sleep 2000` in 0.05 s, `idle 30` in 0.8 s); compare guest times
  only with other guest times.  Bochs' own ruler for them is the CMOS
  clock: its seconds are counted on the same instruction clock as the TSC,
  the local APIC timer, the PIT and the HPET, and lull reads it only for
  `date`.  `time0=utc` starts it at the host's UTC, as QEMU's is by
  default.

Guest time against the host's clock (measured with Bochs 2.7, ips=50000000,
guest idle at the prompt; tests/system/test_bochs_shell.py):
- `sync=realtime` does not give it: it paces only the devices on Bochs'
  virtual timer, not the instruction clock the TSC and the APIC timer
  count, and an idle guest still skips ahead: lull's uptime ran 42 times
  faster than the host's clock.
- `sync=slowdown` does, coarsely: Bochs sleeps whenever guest time is more
  than a second ahead of the host's, and the host time it compares with is
  time(NULL), whole seconds.  An idle guest therefore runs ahead of the
  host by a lead that settles within the first second at 0-2 s (1.0 s
  measured) and then moves by the granularity of time(NULL): 0.95-1.11 s
  over 16 s, sampled every 0.25 s.  So over a window, guest and host time
  agree within one second (plus the time it takes to read `uptime`),
  whatever the window's length.  Slowdown can only slow Bochs down: while
  Bochs has emulated less time since it started than the host has run
  (its busy boot, when the host cannot do `ips` instructions a second),
  it lets the guest run up to 1.5 times the host's speed to catch up
  (MAXMULT in Bochs' iodev/slowdown_timer.cc): lull's uptime then gained
  +2.2 s in 4.5 s at ips=50000000 on a loaded 2-core host, and +2.5 s in
  4.5 s even at 20000000 under a load of 4.  So a run against the host's
  clock uses a low ips, SLOWDOWN_IPS (the fewer instructions a guest
  second holds, the less a slow host falls behind), and waits until the
  lead stops growing before it compares: settled, the lead stayed within
  0.36-0.54 s over 8 s at 20 MIPS under a load of 3.8.

COM1 goes to a file (`mode=file`, output only: enough for the self-test) or
to a terminal (`mode=term`, Bochs 2.7's bochsrc "COM1" section: "This can be
a real serial line, or a pty").  BochsShell opens a pty of its own with
os.openpty() and hands Bochs the slave side, so the test types into the
master side like a person at a terminal: no TCP port, no display.
"""
import codecs
import os
import re
import select
import subprocess
import time
import tty

from lullvm.qemu import PROMPT, describe_exit, emulator_failure

BOCHSRC = """\
megs: 128
cpu: model={model}, ips={ips}
romimage: file=/usr/share/bochs/BIOS-bochs-latest
vgaromimage: file=/usr/share/vgabios/vgabios.bin
ata0: enabled=1, ioaddr1=0x1f0, ioaddr2=0x3f0, irq=14
ata0-master: type=cdrom, path={iso}, status=inserted
boot: cdrom
com1: enabled=1, {com1}
clock: sync={sync}, time0=utc
display_library: rfb, options="timeout=0"
sound: driver=dummy
log: {log}
panic: action=fatal
error: action=report
info: action=report
debug: action=ignore
"""


# Instructions per guest second: the TSC's rate, and the LAPIC timer's
# times 16.  50 MIPS is about what Bochs 2.7 does on one core of the
# development machines.
IPS = 50_000_000
# How far guest time may be from the host's over any window under
# `clock: sync=slowdown`: the one-second quantum of Bochs' slowdown timer
# (its comparison with time(NULL)); and the ips that keeps Bochs ahead of
# the host, so that the quantum is all (above).
SLOWDOWN_LEAD_S = 1.0
SLOWDOWN_IPS = 10_000_000


class Bochs:
    """One Bochs process booting an ISO; its stdout, stderr and log go to
    files in tmp_path, for own_words().  sync: the bochsrc's `clock: sync=`,
    "none" or "slowdown" (above); ips: its `cpu: ips=`."""

    def __init__(self, tmp_path, model, iso, com1, sync="none", ips=IPS):
        self.what = f"Bochs ({model}, clock sync={sync})"
        self.out = tmp_path / "bochs.out"           # its stdout and stderr
        self.log = tmp_path / "bochs.log"
        rc = tmp_path / "bochsrc"
        rc.write_text(BOCHSRC.format(model=model, ips=ips, iso=os.path.abspath(iso),
                                    com1=com1, sync=sync, log=self.log))
        dbg = tmp_path / "dbg.rc"
        dbg.write_text("c\n")                       # Bochs' debugger: just continue
        with open(self.out, "wb") as outf:
            self.proc = subprocess.Popen(["bochs", "-q", "-rc", str(dbg), "-f", str(rc)],
                                         stdin=subprocess.DEVNULL, stdout=outf,
                                         stderr=subprocess.STDOUT, cwd=tmp_path)

    def own_words(self, serial):
        """The tail of what Bochs said, its log, and the serial console."""
        own = self.out.read_text(errors="replace")[-1500:] if self.out.exists() else ""
        own += "\n--- bochs.log ---\n"
        own += self.log.read_text(errors="replace")[-1500:] if self.log.exists() else ""
        return own + "\n--- serial ---\n" + serial[-1000:]

    def failure(self, serial, waited_for, timeout):
        """EmulatorFailure: how Bochs stopped or that it is still running."""
        status = self.proc.poll()
        state = describe_exit(status) if status is not None else f"still running after {timeout} s"
        return emulator_failure(self.what, state, self.own_words(serial), waited_for)

    def stop(self):
        self.proc.kill()
        self.proc.wait()


class BochsShell:
    """Bochs with lull's COM1 on a pty: wait for output, type shell lines.
    Everything lull prints is also written to log_path as it arrives."""

    def __init__(self, tmp_path, model, iso, log_path, sync="none", ips=IPS):
        self.master, self.slave = os.openpty()
        # A plain 8-bit line: no echo, no line editing, no signals from ^C.
        # (Bochs sets the same again when it opens the slave.)  The slave
        # stays open here too, so reads never see a hang-up while Bochs
        # starts or after it exits.
        tty.setraw(self.slave)
        self.bochs = Bochs(tmp_path, model, iso,
                           f"mode=term, dev={os.ttyname(self.slave)}", sync, ips)
        self.logf = open(log_path, "wb")
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.text = ""          # all lull printed, "\r" removed
        self.pos = 0            # the next expect() looks from here on

    def _read(self, wait):
        """Take in what Bochs has written, waiting up to wait seconds for
        it; False if there was nothing."""
        ready, _, _ = select.select([self.master], [], [], wait)
        if not ready:
            return False
        data = os.read(self.master, 4096)
        self.logf.write(data)
        self.logf.flush()
        self.text += self.decoder.decode(data).replace("\r", "")
        return True

    def expect(self, pattern, timeout=30, shown=None):
        """Wait for a regex in the output after the last match; return the
        match.  Bochs exiting, or the time-out, is an EmulatorFailure that
        names what was awaited (shown, or the pattern)."""
        regex = re.compile(pattern)
        end = time.monotonic() + timeout
        while True:
            exited = self.bochs.proc.poll() is not None
            if exited:
                while self._read(0):            # all it wrote before it exited
                    pass
            else:
                self._read(0.1)
            m = regex.search(self.text, self.pos)
            if m:
                self.pos = m.end()
                return m
            if exited or time.monotonic() > end:
                raise self.bochs.failure(self.text, shown or pattern, timeout)

    def wait_prompt(self, timeout=30):
        """Wait for the next prompt; return what came before it (as
        conftest's Lull.wait_prompt does, so the QEMU tests' helpers that
        paste and read prompt by prompt work here too)."""
        start = self.pos
        m = self.expect(re.escape(PROMPT), timeout, shown=PROMPT)
        return self.text[start:m.start()]

    def send(self, text):
        """Write text to the serial line at once (a paste); Bochs takes it
        in byte by byte at the line's rate, in guest time."""
        data = text.encode()
        while data:
            data = data[os.write(self.master, data):]

    def cmd(self, line, timeout=30):
        """Type a line and Enter; return what it printed before the next prompt."""
        self.send(line + "\r")
        out = self.wait_prompt(timeout)
        return out.split("\n", 1)[1] if "\n" in out else ""     # drop the echo

    def close(self):
        self.bochs.stop()
        self.logf.close()
        os.close(self.master)
        os.close(self.slave)
