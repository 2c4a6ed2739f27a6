"""`make debug`'s promise: QEMU waits for gdb, and gdb finds lull's symbols
and stops where it is told."""
import os
import subprocess
import time

from conftest import ELF, qemu_args


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
    out = subprocess.run(["make", "-n", "debug"], cwd=root, capture_output=True,
                         text=True).stdout
    assert "target remote %s" in out and "/gdb.sock > .gdbinit" in out, out
    assert "path=build/gdb.sock,server=on,wait=off -gdb chardev:gdb -S" in out, out
    out = subprocess.run(["make", "-n", "debug", "GDBPORT=4321"], cwd=root,
                         capture_output=True, text=True).stdout
    assert "localhost:4321 > .gdbinit" in out, out
    assert "-gdb tcp:127.0.0.1:4321 -S" in out, out


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
