"""Cross-check in Bochs: its Haswell CPU model offers the local APIC's
TSC-deadline mode, which QEMU's TCG does not, so this is where lull's
`tsc-deadline` clock event device is tested.  The self-test's GRUB entry
runs in Bochs and must pass, including a one-shot on tsc-deadline.

What the bochsrc needs on any machine:
- `sound: driver=dummy`.  Bochs' default sound driver is ALSA; on a machine
  with no sound card Bochs 2.7 aborts at start-up ("*** buffer overflow
  detected ***", exit status 134) before the guest runs.  lull makes no
  sound, so the dummy driver loses nothing.
- `display_library: rfb, options="timeout=0"`.  The only display Debian's
  bochs package has without X (wx is its other one); it does not wait for a
  VNC client, and it takes the first free TCP port from 5900 up, so a port
  someone else holds does not stop it."""
import os
import re
import shutil
import subprocess
import time

import pytest

from conftest import BUILD, ELF, describe_exit, emulator_failure

BOCHSRC = """\
megs: 128
cpu: model={model}, ips=50000000
romimage: file=/usr/share/bochs/BIOS-bochs-latest
vgaromimage: file=/usr/share/vgabios/vgabios.bin
ata0: enabled=1, ioaddr1=0x1f0, ioaddr2=0x3f0, irq=14
ata0-master: type=cdrom, path={iso}, status=inserted
boot: cdrom
com1: enabled=1, mode=file, dev={com1}
clock: sync=none, time0=local
display_library: rfb, options="timeout=0"
sound: driver=dummy
log: {log}
panic: action=fatal
error: action=report
info: action=report
debug: action=ignore
"""


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


@pytest.mark.parametrize("model, deadline", [("corei7_haswell_4770", True), ("p3_katmai", False)])
def test_selftest_in_bochs(tmp_path, model, deadline):
    iso = selftest_iso(tmp_path)
    com1, log = tmp_path / "com1.log", tmp_path / "bochs.log"
    rc = tmp_path / "bochsrc"
    rc.write_text(BOCHSRC.format(model=model, iso=iso, com1=com1, log=log))
    dbg = tmp_path / "dbg.rc"
    dbg.write_text("c\n")                   # Bochs' debugger: just continue
    out = tmp_path / "bochs.out"               # its stdout and stderr
    with open(out, "wb") as outf:
        proc = subprocess.Popen(["bochs", "-q", "-rc", str(dbg), "-f", str(rc)],
                                stdin=subprocess.DEVNULL, stdout=outf,
                                stderr=subprocess.STDOUT, cwd=tmp_path)
    text = ""
    try:
        deadline_t = time.monotonic() + 120
        while time.monotonic() < deadline_t and proc.poll() is None:
            text = com1.read_text(errors="replace") if com1.exists() else ""
            if "# selftest:" in text:
                break
            time.sleep(0.5)
        status = proc.poll()
    finally:
        proc.kill()
        proc.wait()
    os.makedirs(os.path.join(BUILD, "test-logs"), exist_ok=True)
    if com1.exists():                       # keep the serial log, like the QEMU tests
        text = com1.read_text(errors="replace")
        shutil.copy(com1, os.path.join(BUILD, "test-logs", f"bochs-{model}.log"))
    if "# selftest:" not in text:
        # Bochs died or stalled: say how, with its own words, never an empty message.
        own = out.read_text(errors="replace")[-1500:]
        own += "\n--- bochs.log ---\n" + (log.read_text(errors="replace")[-1500:] if log.exists() else "")
        own += "\n--- serial ---\n" + text[-1000:]
        state = describe_exit(status) if status is not None else "still running after 120 s"
        raise emulator_failure(f"Bochs ({model})", state, own, "# selftest:")
    assert re.search(r"# selftest: \d+ tests, 0 failed", text), text[-3000:]
    if deadline:
        assert "clockevent: registered tsc-deadline" in text
        assert re.search(r"ok \d+ clockevent tsc-deadline one-shot fires on time", text)
    else:
        assert "no TSC-deadline mode (CPUID.1:ECX[24] clear)" in text
