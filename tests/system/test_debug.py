"""`make debug`'s promise: QEMU waits for gdb, and gdb finds lull's symbols
and stops where it is told."""
import os
import subprocess
import time

import pexpect

from lullvm.qemu import BUILD, ELF, ROOT, qemu_args


def gdb_socket_args(sock):
    """QEMU's gdb stub on a Unix socket: no TCP port to find free or collide on."""
    return ["-S", "-chardev", f"socket,id=gdb,path={sock},server=on,wait=off",
            "-gdb", "chardev:gdb"]


def wait_for(path, seconds=10):
    deadline = time.monotonic() + seconds
    while not os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.01)


def test_gdb_attaches_and_breaks_in_kmain(tmp_path):
    sock = str(tmp_path / "gdb.sock")
    args = qemu_args(extra=gdb_socket_args(sock))
    qemu = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        wait_for(sock)
        out = subprocess.run(
            ["gdb", "-batch", "-nx", ELF,
             "-ex", f"target remote {sock}",
             "-ex", "break kmain", "-ex", "continue", "-ex", "bt 1",
             "-ex", "info line *$pc"],
            capture_output=True, text=True, timeout=60).stdout
    finally:
        qemu.kill()
        qemu.wait()
    assert "Breakpoint 1, kmain" in out, out
    assert "kernel/main.c" in out, out


def test_make_debug_writes_gdbinit(tmp_path):
    """The Makefile recipe writes a .gdbinit that loads the ELF and connects."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    # BUILD=build: the default, whatever BUILD the tests run with.
    out = subprocess.run(["make", "-n", "debug", "BUILD=build"], cwd=root, capture_output=True,
                         text=True).stdout
    assert "target remote %s" in out and "/gdb.sock > .gdbinit" in out, out
    assert "path=build/gdb.sock,server=on,wait=off -gdb chardev:gdb -S" in out, out
    out = subprocess.run(["make", "-n", "debug", "BUILD=build", "GDBPORT=4321"], cwd=root,
                         capture_output=True, text=True).stdout
    assert "localhost:4321 > .gdbinit" in out, out
    assert "-gdb tcp:127.0.0.1:4321 -S" in out, out


def test_make_debug_waits_for_gdb_and_gdbinit_breaks_in_kmain():
    """The README's session for real: `make debug` in one terminal, then
    `gdb -x .gdbinit`, `break kmain`, `continue` in another, from the same
    directory.  gdb leaves (detach), lull boots on, Ctrl-A X quits QEMU.

    `make debug` writes .gdbinit into the repository root: whatever was
    there before is put back afterwards."""
    gdbinit = os.path.join(ROOT, ".gdbinit")
    saved = open(gdbinit, "rb").read() if os.path.exists(gdbinit) else None
    sock = os.path.join(BUILD, "gdb.sock")     # as the Makefile spells it
    if os.path.exists(os.path.join(ROOT, sock)):
        os.remove(os.path.join(ROOT, sock))     # so only QEMU's new one is waited for
    make = pexpect.spawn("make", ["--no-print-directory", "debug"], cwd=ROOT,
                         env=dict(os.environ, BUILD=BUILD), encoding="utf-8",
                         codec_errors="replace", timeout=120)
    try:
        make.expect_exact("lull: QEMU waits for gdb at")
        wait_for(os.path.join(ROOT, sock), seconds=30)
        with open(gdbinit) as f:
            assert f.read() == f"file {os.path.join(ROOT, ELF)}\ntarget remote {sock}\n"
        # -nx: no ~/.gdbinit of whoever runs the tests; .gdbinit comes in
        # through -x, as the README says.
        gdb = subprocess.run(
            ["gdb", "-batch", "-nx", "-x", ".gdbinit", "-ex", "p/x $pc",
             "-ex", "break kmain", "-ex", "continue", "-ex", "bt 1", "-ex", "detach"],
            cwd=ROOT, capture_output=True, text=True, timeout=30)
        out = gdb.stdout + gdb.stderr
        # -S: QEMU had not run a single instruction, the CPU still at the
        # reset vector (F000:FFF0).
        assert "$1 = 0xfff0" in out, out
        assert "Breakpoint 1, kmain" in out, out
        assert "#0  kmain" in out and "kernel/main.c" in out, out
        # Released by gdb, lull boots to its prompt on make's terminal.
        make.expect_exact("lull> ", timeout=30)
        make.send("\x01x")                      # Ctrl-A X: QEMU quits
        make.expect(pexpect.EOF, timeout=20)
    finally:
        make.close(force=True)
        if saved is None:
            if os.path.exists(gdbinit):
                os.remove(gdbinit)
        else:
            with open(gdbinit, "wb") as f:
                f.write(saved)


def test_wrong_multiboot_magic_is_reported_and_halts(tmp_path):
    """Start lull as if a non-Multiboot loader had jumped to it: gdb zeroes
    EAX at _start."""
    sock = str(tmp_path / "gdb.sock")
    args = qemu_args(extra=gdb_socket_args(sock))
    qemu = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    try:
        wait_for(sock)
        subprocess.run(
            ["gdb", "-batch", "-nx", ELF, "-ex", f"target remote {sock}",
             "-ex", "break _start", "-ex", "continue", "-ex", "set $eax = 0x1234",
             "-ex", "detach"],
            capture_output=True, text=True, timeout=60)
        try:
            out, _ = qemu.communicate(timeout=3)
        except subprocess.TimeoutExpired:
            qemu.kill()
            out, _ = qemu.communicate()
    finally:
        if qemu.poll() is None:
            qemu.kill()
    text = out.decode(errors="replace")
    assert "not started by a Multiboot loader (EAX=0x00001234" in text, text
    assert "lull> " not in text
