"""The CMOS clock as a ruler for lull's clocks under icount: find the
uptime at which the CMOS second turns (rtc_edge).  Under
`-icount shift=N,sleep=off` with `-rtc clock=vm,base=...` (RTC_VM, the
library's ICOUNT_RTC) the CMOS seconds roll over exactly one virtual second
apart, and lull never keeps time by the CMOS clock, so two edges some
seconds apart measure lull's clock against QEMU's virtual time
(tests/system/test_drift.py, tools/soak.py)."""
import datetime
import re

from lullvm.qemu import ICOUNT_RTC, ICOUNT_RTC_BASE

RTC_BASE = datetime.datetime.fromisoformat(ICOUNT_RTC_BASE).replace(tzinfo=datetime.timezone.utc)
RTC_VM = ICOUNT_RTC

# Edges are found to within one probe spacing, about 10 ms (sleep 9; on a
# tick-based clocksource at hz=100 sleep 1, which waits for the next tick):
# each edge is the midpoint of a bracket, so the two edges of a window are
# off by at most ~10 ms together.
PROBE_SLEEP_MS = {"tick-based": 1, "continuous": 9}
PROBES = 95                      # 95 x 20 bytes: fits the 2048-byte console ring
PASTES = 6                       # each covers ~0.95 s: retry until one holds an edge
MAX_SPACING_NS = 15_000_000      # wider: a host gap fell between probes; look again

PROBE_RE = re.compile(r"up (\d+)\.(\d{9}) s|(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)")


def rtc_edge(vm, kind, max_spacing_ns=MAX_SPACING_NS):
    """(lull's uptime in ns at which the CMOS second turned, RTC seconds
    since RTC_BASE just after it).  max_spacing_ns: the widest bracket
    that counts (wider where the serial line is slow: Bochs sends at
    115200 baud, and a probe's output alone takes ~5 ms)."""
    probe = f"uptime\rdate\rsleep {PROBE_SLEEP_MS[kind]}\r"
    for _ in range(PASTES):
        vm.send(probe * PROBES)
        text = "".join(vm.wait_prompt(30) for _ in range(3 * PROBES))
        ups, secs = [], []
        for m in PROBE_RE.finditer(text):
            if m.group(1):
                ups.append(int(m.group(1)) * 10**9 + int(m.group(2)))
            else:
                t = datetime.datetime(*map(int, m.groups()[2:]), tzinfo=datetime.timezone.utc)
                secs.append(int((t - RTC_BASE).total_seconds()))
        assert len(ups) == len(secs) == PROBES, text
        for i in range(1, PROBES):
            # date i is read just after uptime i: the second turned
            # between uptime i-1 and uptime i.
            if secs[i] != secs[i - 1] and ups[i] - ups[i - 1] <= max_spacing_ns:
                assert secs[i] == secs[i - 1] + 1, text
                return (ups[i - 1] + ups[i]) // 2, secs[i]
    raise AssertionError(f"no CMOS second edge seen in {PASTES} pastes of {PROBES} probes")
