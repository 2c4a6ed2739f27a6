"""CPU exceptions print a full report and halt; never a reboot or silence."""
import re
import time

import pytest

CASES = {
    "ud": (6, "#UD invalid opcode"),
    "gp": (13, "#GP general protection"),
    "pf": (14, "#PF page fault"),
    "null": (14, "#PF page fault"),     # a read of address 0: page 0 is unmapped
    "de": (0, "#DE divide error"),
}


@pytest.mark.parametrize("kind", sorted(CASES))
def test_fault_prints_report_and_halts(vm, kind):
    vector, name = CASES[kind]
    vm.type(f"fault {kind}\r")
    vm.expect_exact("system halted.", timeout=10)
    log = vm.log_text()
    report = log[log.index(f"*** CPU exception {vector}: {name} ***"):]
    assert re.search(r"error code: 0x[0-9a-f]{8}", report)
    assert re.search(r"EIP: 0x[0-9a-f]{8}  CS: 0x0008  EFLAGS: 0x[0-9a-f]{8}", report)
    for reg in ("EAX", "EBX", "ECX", "EDX", "ESI", "EDI", "EBP", "ESP", "CR2"):
        assert re.search(reg + r": 0x[0-9a-f]{8}", report), reg
    assert re.search(r"stack:\n\s+(0x[0-9a-f]{8}\s+){8}", report.replace("\r", ""))
    assert re.search(r"backtrace: (0x[0-9a-f]{8} ?){2,}", report)
    if kind == "pf":
        assert "faulting address (CR2): 0xdead0000" in report
        assert "page not present, read, kernel" in report
    if kind == "null":
        assert "faulting address (CR2): 0x00000000" in report
        assert re.search(r"CR2: 0x00000000\b", report)
        assert "page not present, read, kernel" in report
    if kind == "gp":
        assert "error code: 0x00001230" in report
    # Halted, not rebooted: QEMU (-no-reboot) is still running, and no new
    # boot banner appears.
    time.sleep(0.5)
    assert vm.alive()
    assert vm.log_text().count("lull 0.") == 1
