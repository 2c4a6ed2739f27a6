"""`make debug`'s promise: QEMU waits for gdb, and gdb finds lull's symbols
and stops where it is told."""
import os
import shutil
import socket
import subprocess

import pytest

from conftest import ELF, qemu_args


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


@pytest.mark.skipif(not shutil.which("gdb"), reason="gdb not installed")
def test_gdb_attaches_and_breaks_in_kmain():
    port = free_port()
    args = qemu_args(extra=["-S", "-gdb", f"tcp:127.0.0.1:{port}"])
    qemu = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        out = subprocess.run(
            ["gdb", "-batch", "-nx", ELF,
             "-ex", f"target remote 127.0.0.1:{port}",
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
    assert "target remote localhost:1234" in out
    assert "-s -S" in out


@pytest.mark.skipif(not shutil.which("gdb"), reason="gdb not installed")
def test_wrong_multiboot_magic_is_reported_and_halts():
    """Start lull as if a non-Multiboot loader had jumped to it: gdb zeroes
    EAX at _start."""
    port = free_port()
    args = qemu_args(extra=["-S", "-gdb", f"tcp:127.0.0.1:{port}"])
    qemu = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    try:
        subprocess.run(
            ["gdb", "-batch", "-nx", ELF, "-ex", f"target remote 127.0.0.1:{port}",
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
