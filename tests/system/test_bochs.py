"""Cross-check in Bochs: its Haswell CPU model offers the local APIC's
TSC-deadline mode, which QEMU's TCG does not, so this is where lull's
`tsc-deadline` clock event device is tested.  The self-test's GRUB entry
runs in Bochs and must pass, including a one-shot on tsc-deadline; and the
default GRUB entry boots to a shell that ticks tickless on tsc-deadline.

How Bochs is run, and why its bochsrc says what it says: bochs.py."""
import os
import re
import shutil
import subprocess
import time

import pytest

from bochs import Bochs, BochsShell
from conftest import ELF, ISO, LOG_DIR

HASWELL = "corei7_haswell_4770"     # a model with TSC-deadline mode (docs/hardware.md)


def selftest_iso(tmp_path):
    """The ISO with the self-test entry as the default, no menu delay."""
    root = tmp_path / "iso"
    (root / "boot" / "grub").mkdir(parents=True)
    shutil.copy(ELF, root / "boot" / "lull.elf")
    (root / "boot" / "grub" / "grub.cfg").write_text(
        "set timeout=0\nmenuentry selftest {\n\tmultiboot /boot/lull.elf selftest\n}\n")
    iso = tmp_path / "selftest.iso"
    subprocess.run(["grub-mkrescue", "-o", str(iso), str(root)], check=True,
                   capture_output=True)
    return iso


@pytest.mark.parametrize("model, deadline", [(HASWELL, True), ("p3_katmai", False)])
def test_selftest_in_bochs(tmp_path, model, deadline):
    iso = selftest_iso(tmp_path)
    com1 = tmp_path / "com1.log"
    bochs = Bochs(tmp_path, model, iso, f"mode=file, dev={com1}")
    text = ""
    # Bochs writes the serial file as the guest sends it, byte by byte:
    # wait for the summary line's newline, not just its start (CI once read
    # "# selftest: " with the rest of the line still to come).
    summary = re.compile(r"# selftest: [^\n]*\n")
    try:
        end = time.monotonic() + 120
        while time.monotonic() < end and bochs.proc.poll() is None:
            text = com1.read_text(errors="replace") if com1.exists() else ""
            if summary.search(text):
                break
            time.sleep(0.5)
        os.makedirs(LOG_DIR, exist_ok=True)
        if com1.exists():                   # keep the serial log, like the QEMU tests
            text = com1.read_text(errors="replace")
            shutil.copy(com1, os.path.join(LOG_DIR, f"bochs-{model}.log"))
        if not summary.search(text):
            # Bochs died or stalled: say how, with its own words.
            raise bochs.failure(text, "# selftest:", 120)
    finally:
        bochs.stop()
    assert re.search(r"# selftest: \d+ tests, 0 failed", text), text[-3000:]
    if deadline:
        assert "clockevent: registered tsc-deadline" in text
        assert re.search(r"ok \d+ clockevent tsc-deadline one-shot fires on time", text)
    else:
        assert "no TSC-deadline mode (CPUID.1:ECX[24] clear)" in text


# -- the shell, booted as a user boots it -----------------------------------
#
# Every time below is guest time, read by lull itself (bochs.py: with
# `clock: sync=none` guest time is counted in instructions and does not
# follow the wall clock).  So the bounds are logical -- a sleep cannot end
# early, a one-shot is not a tick late, a skipped tick is not an interrupt --
# never a comparison with the host's clock, and a busy host cannot break
# them: no @pytest.mark.timing rerun.

HZ = 250                    # the default entry's rate, checked on `tick`
TICK_US = 1000000 // HZ
IDLE_S = 5


def uptime(sh):
    """(ns, jiffies) from `uptime`."""
    out = sh.cmd("uptime")
    m = re.search(r"up (\d+)\.(\d{9}) s, jiffies (\d+)", out)
    assert m, f"`uptime` printed no time and jiffies:\n{out}"
    return int(m[1]) * 10**9 + int(m[2]), int(m[3])


def tsc_deadline_events(sh):
    """How many interrupts the tsc-deadline device has raised, from `clockevent`."""
    out = sh.cmd("clockevent")
    m = re.search(r"^\* tsc-deadline .* oneshot .* events (\d+)$", out, re.M)
    assert m, f"`clockevent` does not mark tsc-deadline (*) as the tick device:\n{out}"
    return int(m[1])


def jiffies_since(j1, j0):
    return (j1 - j0) & 0xffffffff       # jiffies start near the wrap: every boot crosses it


def test_shell_on_tsc_deadline_in_bochs(tmp_path):
    """The default GRUB entry of build/lull.iso on a Haswell: the tick is
    tickless on tsc-deadline, timers fire on it, and idle skips the tick."""
    os.makedirs(LOG_DIR, exist_ok=True)
    sh = BochsShell(tmp_path, HASWELL, ISO, os.path.join(LOG_DIR, "bochs-shell-tsc-deadline.log"))
    try:
        # GRUB's menu waits 2 s, then boots the first entry: no typing here.
        sh.expect(r"clockevent: registered tsc-deadline", timeout=90)
        boot = sh.expect(r"tick: (\w+) on ([\w-]+) .*at HZ=(\d+)\D", timeout=30)
        assert boot.groups() == ("tickless", "tsc-deadline", str(HZ)), boot[0]
        sh.wait_prompt(timeout=30)

        # The status lines all name the same device and mode.
        out = sh.cmd("tick")
        assert f"tick: tickless on tsc-deadline, HZ={HZ}" in out, out
        out = sh.cmd("dyntick")
        assert "mode: tickless, device: tsc-deadline" in out, out

        # A sleep on an hrtimer, programmed on tsc-deadline, ends, and not
        # early: uptime moves at least 500 ms across it, and jiffies with it
        # (to the tick, read a command apart: +-2).
        ns0, j0 = uptime(sh)
        sh.cmd("sleep 500")
        ns1, j1 = uptime(sh)
        assert ns1 - ns0 >= 500 * 10**6, f"`sleep 500` ended after {(ns1 - ns0) / 1e6} ms"
        ticks = (ns1 - ns0) * HZ // 10**9
        assert abs(jiffies_since(j1, j0) - ticks) <= 2, \
            f"jiffies advanced {jiffies_since(j1, j0)} while uptime advanced {ticks} ticks"

        # One-shots fire at their own deadline, not at the next tick: 50
        # hrtimers 10 ms apart.  Bochs delivers each one 60-75 us late at 50
        # MIPS (the instructions from the deadline to the handler), so a
        # quarter tick (1000 us) is generous; a tick-quantized timer would
        # be up to 4000 us late, a lost one never ends the command.
        out = sh.cmd("latency 50 10000")
        m = re.search(r"latency: n=(\d+) .* max=(\d+) \(us\)", out)
        assert m and m[1] == "50", f"`latency 50 10000` did not report 50 wakeups:\n{out}"
        assert int(m[2]) < TICK_US // 4, f"a one-shot fired {m[2]} us late:\n{out}"

        # Idle with nothing pending but idle's own timer: the tick is
        # skipped.  Periodic would wake HZ*IDLE_S = 1250 times with a 4 ms
        # longest sleep.  Tickless wakes once, for the timer ending the idle
        # (1-2 seen; <= 5 leaves room for a stray UART interrupt), and
        # sleeps most of the window in one go (>= 80% of it).
        e0 = tsc_deadline_events(sh)
        ns0, j0 = uptime(sh)
        out = sh.cmd(f"idle {IDLE_S}", timeout=60)
        ns1, j1 = uptime(sh)
        e1 = tsc_deadline_events(sh)
        m = re.search(r"idle [\d.]+ s: (\d+) wakeups .* max sleep ([\d.]+) ms", out)
        assert m, f"`idle {IDLE_S}` printed no summary:\n{out}"
        assert int(m[1]) <= 5, f"the tick was not skipped while idle:\n{out}"
        assert float(m[2]) >= IDLE_S * 1000 * 0.8, f"no long sleep while idle:\n{out}"
        # Across it, jiffies kept time (at least IDLE_S * HZ, in step with
        # uptime) although tsc-deadline raised under a tenth as many
        # interrupts (12 seen, the typing included): the catch-up after
        # each skip, not the interrupts, advanced jiffies.
        dj = jiffies_since(j1, j0)
        assert dj >= IDLE_S * HZ, f"jiffies advanced {dj} over `idle {IDLE_S}`"
        assert abs(dj - (ns1 - ns0) * HZ // 10**9) <= 2, \
            f"jiffies advanced {dj}, uptime {(ns1 - ns0) / 1e9} s"
        assert 1 <= e1 - e0 < dj // 10, \
            f"tsc-deadline raised {e1 - e0} interrupts while jiffies advanced {dj}"
    finally:
        sh.close()
