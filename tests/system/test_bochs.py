"""Cross-check in Bochs: its Haswell CPU model offers the local APIC's
TSC-deadline mode, which QEMU's TCG does not, so this is where lull's
`tsc-deadline` clock event device is tested.  The self-test's GRUB entry
runs in Bochs and must pass, including a one-shot on tsc-deadline.  The
default GRUB entry, booted to the shell: test_bochs_shell.py.

How Bochs is run, and why its bochsrc says what it says: bochs.py."""
import os
import re
import shutil
import subprocess
import time

import pytest

from lullvm.bochs import Bochs
from lullvm.qemu import ELF, LOG_DIR

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
