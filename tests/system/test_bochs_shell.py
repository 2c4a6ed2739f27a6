"""lull's shell in Bochs, booted from the ISO's default entry as a user
boots it and driven through COM1 on a pty: the core checks of the QEMU
suite (uptime against a reference, sleep, idle, the dyntick status and the
switches between tick modes, the clocksource and clock event lists) on a
CPU with TSC-deadline mode (the tick runs tickless on tsc-deadline) and on
one without (p3_katmai: tickless on the local APIC timer).

One Bochs boot per CPU model serves every test here but the last (Bochs
takes 5-8 s to the prompt); each test leaves the tick as it found it.

Two references for time (bochs.py says why no other):
- Bochs' own clock, under `clock: sync=none`: the CMOS clock's seconds,
  counted on the same instruction clock as every timer Bochs emulates,
  found to within a probe's spacing (test_drift.rtc_edge).  Everything
  else here is guest time read by lull itself, so the bounds are logical:
  a sleep cannot end early, a skipped tick is not an interrupt.  Nothing
  the host does can break them: not marked timing.
- The host's clock, under `clock: sync=slowdown`, for one test
  (test_uptime_follows_the_host): within bochs.SLOWDOWN_LEAD_S over any
  window, marked timing.
"""
import os
import re
import time

import pytest

from lullvm import parse
from lullvm.bochs import SLOWDOWN_IPS, SLOWDOWN_LEAD_S, BochsShell
from lullvm.qemu import ISO, LOG_DIR
from test_bochs import HASWELL
from test_drift import drift_ppm
from test_dyntick import assert_tick_state, clockevents, idle
from test_time import uptime, uptime_of

# The tick device each model's boot must pick, and what `dyntick` then says
# in its "using APIC" line.
MODELS = {
    HASWELL: dict(device="tsc-deadline", using_apic=0),
    "p3_katmai": dict(device="lapic", using_apic=1),       # no TSC-deadline mode
}
CLOCKSOURCES = {"pit", "hpet", "acpi_pm", "tsc"}
CLOCKEVENTS = {"pit", "hpet", "lapic"}          # and tsc-deadline where the CPU has it

# Drift against the CMOS clock.  A probe's output takes ~5 ms at 115200
# baud in Bochs: probes come 18.7 ms apart (sleep 9), so a bracket of up to
# 25 ms counts, and each edge is off by at most half of one.  Over
# DRIFT_IDLE_S that is 2 x 12.5 ms / 120 s = 208 ppm; measured -0.7 ppm over
# 300 s.  A driver constant 0.5 % off is 5000 ppm.
DRIFT_IDLE_S = 120
DRIFT_MAX_SPACING_NS = 25_000_000
DRIFT_BOUND_PPM = 250


@pytest.fixture(scope="module", params=sorted(MODELS))
def shell(request, tmp_path_factory):
    """Bochs with this CPU model at lull's first prompt; .model, .boot_log
    and .hz (the build's) set."""
    model = request.param
    os.makedirs(LOG_DIR, exist_ok=True)
    sh = BochsShell(tmp_path_factory.mktemp(model), model, ISO,
                    os.path.join(LOG_DIR, f"bochs-shell-{model}.log"))
    try:
        # GRUB's menu waits 2 s, then boots the first entry: no typing here.
        sh.boot_log = sh.wait_prompt(timeout=90)
        sh.model = model
        sh.hz = int(re.search(r"built with HZ=(\d+)", sh.boot_log).group(1))
        yield sh
    finally:
        sh.close()


def expected(sh):
    return MODELS[sh.model]


def jiffies_since(j1, j0):
    return (j1 - j0) & 0xffffffff       # jiffies start near the wrap: every boot crosses it


def test_boot_picks_the_best_tick_device(shell):
    device = expected(shell)["device"]
    m = re.search(r"^tick: (\w+) on ([\w-]+) .*at HZ=(\d+)\D", shell.boot_log, re.M)
    assert m and m.groups() == ("tickless", device, str(shell.hz)), shell.boot_log[-2000:]
    if device == "tsc-deadline":
        assert "clockevent: registered tsc-deadline" in shell.boot_log
    else:
        assert "lapic: no TSC-deadline mode (CPUID.1:ECX[24] clear)" in shell.boot_log


def test_clocksource_and_clockevent_lists(shell):
    device = expected(shell)["device"]
    out = shell.cmd("clocksource")
    assert set(re.findall(r"^[* ] (\S+)\s+rating", out, re.M)) == CLOCKSOURCES, out
    assert re.search(r"^\* tsc\s", out, re.M), out
    current, events, _ = clockevents(shell)
    want = CLOCKEVENTS | ({"tsc-deadline"} if device == "tsc-deadline" else set())
    assert set(events) == want and current == device, shell.cmd("clockevent")
    # A switch away and back, each named in one line.
    for was, name in (("tsc", "hpet"), ("hpet", "acpi_pm"), ("acpi_pm", "tsc")):
        out = shell.cmd(f"clocksource {name}")
        assert out.strip() == f"clocksource: timekeeping on {name} (was {was})", out


PASTED_LINES = 40


def test_a_paste_arrives_whole_while_lull_prints(shell):
    """Bochs receives at the line's rate, whatever lull does, and lull
    prints with interrupts off: without the drain in uart_send (the QUIRK
    there) 40 pasted `uptime`s lost bytes ("upteep") and Bochs logged
    "com1: receive FIFO overflow"."""
    shell.send("uptime\r" * PASTED_LINES)
    outs = [shell.wait_prompt(10) for _ in range(PASTED_LINES)]
    garbled = [out for out in outs if not re.fullmatch(r"uptime\nup \S+ s, jiffies \d+  HZ=\d+\n",
                                                       out)]
    assert not garbled, f"{len(garbled)} of {PASTED_LINES} pasted lines garbled: {garbled[:3]}"
    assert "receive FIFO overflow" not in shell.bochs.log.read_text(errors="replace")


def test_uptime_keeps_bochs_time(shell):
    """lull's uptime over DRIFT_IDLE_S of Bochs' own seconds (its CMOS clock)."""
    ppm = drift_ppm(shell, "continuous", DRIFT_IDLE_S, DRIFT_MAX_SPACING_NS)
    assert abs(ppm) <= DRIFT_BOUND_PPM, f"{shell.model}: uptime drifts {ppm:+.1f} ppm"


def test_sleep_500_ends_on_time_and_returns_the_prompt(shell):
    # One paste: no wait for the host between the two `uptime`s.  A sleep
    # on an hrtimer never ends early; late only by the commands' own
    # instructions and the serial line at 115200 baud (the prompt, the
    # second `uptime` coming in): 506.7 ms on both models.  Broken to end
    # at 90 %, it took 456.9 ms.
    shell.send("uptime\rsleep 500\ruptime\r")
    outs = [shell.wait_prompt(30) for _ in range(3)]
    (t0, j0, _), (t1, j1, _) = uptime_of(outs[0]), uptime_of(outs[2])
    said = outs[1].split("\n", 1)[1] if "\n" in outs[1] else ""
    assert said.strip() == "", f"`sleep 500` printed {said!r}"
    assert 0.500 <= t1 - t0 < 0.520, f"`sleep 500` took {(t1 - t0) * 1000:.3f} ms of uptime"
    # jiffies moved with uptime, to the tick (each read is up to a tick behind).
    ticks = (t1 - t0) * shell.hz
    assert abs(jiffies_since(j1, j0) - ticks) <= 2, \
        f"jiffies advanced {jiffies_since(j1, j0)} while uptime advanced {ticks:.1f} ticks"


def test_one_shots_fire_at_their_own_deadline(shell):
    # 50 hrtimers 10 ms apart.  Bochs delivers each 60-75 us late at 50
    # MIPS (the instructions from the deadline to the handler), so a
    # quarter tick is generous; a tick-quantized timer would be up to a
    # tick late, a lost one never ends the command.
    tick_us = 1_000_000 // shell.hz
    out = shell.cmd("latency 50 10000")
    lat = parse.latency(out)
    assert lat.n == 50, f"`latency 50 10000` did not report 50 wakeups:\n{out}"
    assert lat.max < tick_us // 4, f"a one-shot fired {lat.max} us late:\n{out}"


def test_idle_skips_the_tick(shell):
    """`idle 2` with nothing pending but idle's own timer: periodic would
    wake 2 * HZ times with 4 ms sleeps; tickless wakes for the window's end
    (1-2 seen; <= 5 leaves room for the tsc-refine timer and a stray UART
    interrupt) and sleeps at least half of it in one go."""
    device = expected(shell)["device"]
    seconds = 2
    _, e0, _ = clockevents(shell)
    _, j0, _ = uptime(shell)
    _, m = idle(shell, seconds)
    _, j1, _ = uptime(shell)
    _, e1, _ = clockevents(shell)
    assert m.wakeups <= 5, f"the tick was not skipped while idle: {m}"
    assert m.max_sleep_ms >= seconds * 1000 * 0.5, f"no long sleep while idle: {m}"
    # jiffies kept time although the tick device raised a fraction as many
    # interrupts: the catch-up after each skip advanced them.
    dj = jiffies_since(j1, j0)
    assert dj >= seconds * shell.hz, f"jiffies advanced {dj} over `idle {seconds}`"
    assert 1 <= e1[device] - e0[device] < dj // 10, \
        f"{device} raised {e1[device] - e0[device]} interrupts while jiffies advanced {dj}"


def test_dyntick_status_lines(shell):
    """The 2005 dyntick patch's status, line for line, on the boot's tick."""
    want = expected(shell)
    out = shell.cmd("dyntick")
    assert out.startswith(f"suitable:\t1\nenabled:\t1\nusing APIC:\t{want['using_apic']}\n"), \
        repr(out)
    d = parse.dyntick(out)      # the skips line too
    assert (d.mode, d.device, d.hz) == ("tickless", want["device"], shell.hz), out


def test_tick_on_the_pit_and_back_survives_bochs_spurious_irq7(shell):
    """Bochs raises IRQ7 when the PIT's request vanishes before the CPU
    acknowledges it (the QUIRK at pic_is_spurious): counted as spurious,
    never run as a device's interrupt, and the tick goes on."""
    device = expected(shell)["device"]
    assert shell.cmd("clockevent pit").strip() == f"clockevent: tick on pit (was {device})"
    assert shell.cmd("sleep 100").strip() == ""
    assert shell.cmd(f"clockevent {device}").strip() == f"clockevent: tick on {device} (was pit)"
    out = shell.cmd("irqs")
    assert re.search(r"^\s+spurious IRQ7 \(8259 PIC\): [1-9]", out, re.M), out
    assert not re.search(r"^\s+0x27\s", out, re.M), out        # no handler for line 7
    assert_tick_state(shell, "tickless", shell.hz, device, "tsc")


def test_tick_mode_switches(shell):
    """tick dyntick, tick periodic, and back to tickless: every status line
    agrees, and idle wakes as the mode says.  Periodic and dyntick need a
    periodic device: tsc-deadline is one-shot only, so they move to the
    LAPIC timer, and tickless back."""
    device, hz = expected(shell)["device"], shell.hz
    try:
        out = shell.cmd("tick dyntick").strip()
        moved = f"tick: dyntick on lapic, HZ={hz} (was tickless on tsc-deadline; " \
                "lapic: the best-rated device that can run it)"
        assert out == (moved if device == "tsc-deadline" else f"tick: dyntick on lapic, HZ={hz} (was tickless)"), out
        assert_tick_state(shell, "dyntick", hz, "lapic", "tsc")
        # The LAPIC timer holds 1374 s: whole skips to idle's own timer.
        _, m = idle(shell, 2)
        assert m.wakeups <= 5, f"dyntick did not skip: {m}"

        assert shell.cmd("tick periodic").strip() == f"tick: periodic on lapic, HZ={hz} (was dyntick)"
        assert_tick_state(shell, "periodic", hz, "lapic", "tsc")
        # Under sync=none every period is delivered on guest time, as under
        # QEMU's -icount: HZ a second, and the window's end, one more or
        # less for where in a tick it began (test_dyntick's bound).
        _, m = idle(shell, 1)
        assert hz <= m.wakeups <= hz + 2, f"periodic at HZ={hz}: {m}"
    finally:
        out = shell.cmd("tick tickless").strip()
    # Back on the device tickless had: the best-rated, or the one last
    # chosen with `clockevent`; either way named.
    assert out == f"tick: tickless on {device}, HZ={hz} (was periodic)" or \
        re.fullmatch(rf"tick: tickless on {device}, HZ={hz} \(was periodic on lapic; {device}: .+\)", out), out
    assert_tick_state(shell, "tickless", hz, device, "tsc")


# -- against the host's clock ----------------------------------------------

SAMPLES = 10
SAMPLE_GAP_S = 0.5
# Catching up, Bochs runs the guest at 1.5 times the host's speed: its lead
# grows 0.5 s a second.  Settled, it moves within the quantum's sawtooth
# (0.16 s seen at 20 and 50 MIPS), so a second's change under this means
# the catch-up is over.
CAUGHT_UP_S = 0.3
CATCH_UP_LIMIT_S = 60


def lead_of_uptime(sh):
    """(lull's uptime less the host's monotonic clock at the middle of
    reading it, how long the reading took), both in s."""
    h0 = time.monotonic()
    guest, _, _ = uptime(sh)
    h1 = time.monotonic()
    return guest - (h0 + h1) / 2, h1 - h0


def wait_until_caught_up(sh):
    """Wait for the end of the catch-up after a boot the host ran slower
    than `ips` (bochs.py); the lead then."""
    end = time.monotonic() + CATCH_UP_LIMIT_S
    lead, _ = lead_of_uptime(sh)
    while True:
        time.sleep(1)
        now, _ = lead_of_uptime(sh)
        if abs(now - lead) < CAUGHT_UP_S:
            return now
        assert time.monotonic() < end, \
            f"Bochs still catching up with the host's clock after {CATCH_UP_LIMIT_S} s"
        lead = now


@pytest.mark.timing
def test_uptime_follows_the_host(tmp_path):
    """Under `clock: sync=slowdown`, once Bochs has caught up with the
    host, lull's uptime leads the host's clock by an amount that moves by
    at most SLOWDOWN_LEAD_S (bochs.py), plus how long each `uptime` took to
    read.  Over 5 s, a clock running 25 % fast or slow, or one that follows
    instructions rather than time (42 times fast under sync=realtime),
    fails."""
    os.makedirs(LOG_DIR, exist_ok=True)
    sh = BochsShell(tmp_path, HASWELL, ISO, os.path.join(LOG_DIR, "bochs-shell-slowdown.log"),
                    sync="slowdown", ips=SLOWDOWN_IPS)
    try:
        boot_log = sh.wait_prompt(timeout=90)
        # The same boot shows the QUIRK at lapic_timer_calibrate: at 10
        # MIPS the APIC timer counts 625 kHz after /16, under the floor.
        assert "timer 10.000 MHz (bus / 1," in boot_log, boot_log[-2000:]
        wait_until_caught_up(sh)
        leads = []
        for _ in range(SAMPLES):
            leads.append(lead_of_uptime(sh))
            time.sleep(SAMPLE_GAP_S)
    finally:
        sh.close()
    lead0, read0 = leads[0]
    for lead, read in leads[1:]:
        allowed = SLOWDOWN_LEAD_S + (read0 + read) / 2
        assert abs(lead - lead0) <= allowed, \
            f"uptime moved {lead - lead0:+.3f} s against the host's clock (allowed {allowed:.3f}): " \
            f"leads {[round(x, 3) for x, _ in leads]}"
