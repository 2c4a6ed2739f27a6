"""`trace` and `latency` at the edges of their buffers, in forms the
benchmark's parsers read: a trace longer than its buffer holds says when
the buffer filled and how many events it dropped, and a latency figure
past the 20 ms histogram is printed as ">=" (a lower bound), never as if
it were exact."""
import os
import re
import signal
import sys
import time

import pytest

from lullvm import parse
from lullvm.qemu import ROOT

sys.path.insert(0, os.path.join(ROOT, "bench"))
import guest  # noqa: E402  (bench/guest.py: the benchmark's parsers)


def cmd(vm, line, timeout=10):
    """vm.cmd, with the serial line's carriage returns dropped."""
    return vm.cmd(line, timeout=timeout).replace("\r", "")


def test_trace_that_overflows_says_when_and_how_much(boot):
    # -icount: the ticks come exactly 1 ms apart, so when the buffer fills
    # is arithmetic, not the host's load.
    vm = boot(icount=4)
    # Periodic at HZ=1000 idles in three events a tick: more than the
    # buffer holds in 4 s (it is sized for 10 s at HZ=250).
    said = cmd(vm, "hz 1000").strip()          # from the build's HZ
    assert re.fullmatch(r"HZ=1000 \(tick every 1000 us; (was HZ=\d+|unchanged)\)", said), said
    assert cmd(vm, "tick periodic").strip() == "tick: periodic on lapic, HZ=1000 (was tickless)"
    out = cmd(vm, "trace 4", timeout=60)
    tr = parse.trace(out)
    assert tr.full_after_s is not None, out[:1000]
    assert (tr.mode, tr.hz) == ("periodic", 1000)
    events, dropped = tr.events, tr.dropped
    after, asked, dropped_said = tr.full_after_s, tr.full_of_s, tr.full_dropped
    assert asked == 4 and dropped_said == dropped > 0
    # Said before the CSV, where a reader (and bench/plots.py, which skips
    # '#' lines) meets it first.
    assert out.index("buffer full") < out.index("t_ns,cpu,event,")
    rows = [r.t_ns for r in tr.rows if r.event in ("timer_irq", "idle_enter", "idle_exit")]
    assert len(rows) == events
    # 8192 events at 3000 a second on each CPU: on one CPU full after
    # 2.7307 s (2.730 seen), give or take the first tick's phase (1 ms)
    # and the 3 decimals printed; the kept events end where the buffer
    # filled, and the rest of the 4 s, three events a tick, went to
    # `dropped` (3811 seen for 3810), give or take two ticks' events on
    # each CPU for the same reasons.
    rate = 3000 * vm.cpus
    assert abs(after - 8192 / rate) <= 0.003, after
    assert abs((rows[-1] - rows[0]) / 1e9 - after) < 0.002, (rows[0], rows[-1], after)
    assert abs(dropped - (4 - after) * rate) <= 6 * vm.cpus, (dropped, after)

    # A trace that fits says nothing more.
    assert cmd(vm, "hz 250").strip() == "HZ=250 (tick every 4000 us; was HZ=1000)"
    out = cmd(vm, "trace 1", timeout=30)
    assert parse.trace(out).dropped == 0, out[:500]
    assert "buffer full" not in out


def test_latency_unclipped_is_exact_and_parses(boot):
    # -icount: no host stall can push a sample past the histogram's 20 ms
    # (tickless wakes ~20 us late on virtual time), so nothing is clipped.
    vm = boot(icount=4)
    r = guest.measure_latency(vm, 300, 1000, timeout=30)
    assert r["n"] == 300 and not r["p50_clipped"] and not r["p99_clipped"]
    assert r["p50"] <= r["p99"] <= r["max"] < 20000
    assert sum(n for _, _, n in r["hist"]) == 300
    assert all(lo < hi for lo, hi, _ in r["hist"])


class StalledHost:
    """Runs a command while the host stops QEMU for a moment (SIGSTOP):
    QEMU's virtual clock follows the host's, so the guest finds one timer
    that much late, as after a stall of a loaded host."""

    def __init__(self, vm, after_s, stall_s):
        self.vm, self.after_s, self.stall_s = vm, after_s, stall_s

    def cmd(self, line, timeout):
        self.vm.type(line + "\r")
        time.sleep(self.after_s)
        os.kill(self.vm.child.pid, signal.SIGSTOP)
        time.sleep(self.stall_s)
        os.kill(self.vm.child.pid, signal.SIGCONT)
        return self.vm.wait_prompt(timeout).replace("\r", "")


# A SIGSTOP of at least 150 ms lands somewhere in a 40 ms period: the
# sample due in it is late by at least 150 - 40 ms.
STALL_S, PERIOD_US = 0.15, 40000
LATE_US = int(STALL_S * 1e6) - PERIOD_US


@pytest.mark.timing
def test_latency_past_the_histogram_prints_at_least(boot):
    """On the host's clock (icount=None): a latency past the 20 ms
    histogram comes only from a host that stops QEMU, and the stop must
    reach lull's clock.  Under icount guest time stops with QEMU, and no
    command can hold a wakeup back that long while `latency` runs (the
    injections, `inject late-wakeup` among them, run inside their own
    command).  A loaded host only adds late samples, and it would take 25
    of the 50 past 20 ms to clip p50.

    50 samples 40 ms apart (2 s), one of them ~150 ms late: it is the p99
    (the 50th of 50) and past the 20 ms histogram; p50 is not."""
    vm = boot(icount=None)
    out = StalledHost(vm, after_s=0.6, stall_s=STALL_S).cmd(f"latency 50 {PERIOD_US}", timeout=30)
    lat = parse.latency(out)
    assert not lat.p50_at_least and (lat.p99, lat.p99_at_least) == (20000, True), out
    assert lat.max >= LATE_US, out
    # The last histogram bin holds it (and any stall of the host of more
    # than 16 ms), and has no upper edge to claim.
    assert any((lo, hi) == (16384, None) and n >= 1 for lo, hi, n in lat.hist), out
    assert not any(lo == 16384 and hi is not None for lo, hi, _ in lat.hist), out
    # The benchmark's parser reads the same output as a lower bound.
    r = guest.parse_latency(out)
    assert r["p99_clipped"] and r["p99"] == 20000 and not r["p50_clipped"]
    assert r["hist"][-1][0] == 16384 and r["hist"][-1][1] > r["max"] >= LATE_US
