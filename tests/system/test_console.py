"""The other half of the console: PS/2 keyboard in, VGA text screen out."""
import os
import re
import time


def vga_text(vm, path):
    """The 80x25 screen as text, read from guest memory at 0xB8000."""
    vm.monitor(f'pmemsave 0xb8000 4000 "{path}"')
    for _ in range(100):
        if os.path.exists(path) and os.path.getsize(path) == 4000:
            break
        time.sleep(0.02)
    data = open(path, "rb").read()
    chars = bytes(data[i] for i in range(0, 4000, 2)).decode("latin-1")
    return [chars[r * 80:(r + 1) * 80].rstrip() for r in range(25)]


def test_vga_mirrors_console_output(boot, tmp_path):
    vm = boot(monitor=True)
    vm.cmd("version")
    rows = vga_text(vm, str(tmp_path / "vga.bin"))
    assert any(r.startswith("lull> version") for r in rows), rows
    assert any(re.match(r"lull \d", r) for r in rows)


def test_vga_scrolls(boot, tmp_path):
    vm = boot(monitor=True)
    for i in range(30):
        vm.cmd(f"marker{i:02d}")
    rows = vga_text(vm, str(tmp_path / "vga.bin"))
    assert "unknown command: marker29 (try 'help')" in rows
    assert not any("marker00" in r for r in rows)   # scrolled away
    assert rows[-1].startswith("lull>")


def test_keyboard_types_into_the_shell(boot):
    vm = boot(monitor=True)
    for key in ["v", "e", "r", "s", "i", "o", "n", "ret"]:
        vm.monitor(f"sendkey {key}")
    out = vm.wait_prompt()
    assert re.search(r"lull \d+\.\d+\.\d+", out)
    # Shift, backspace and Ctrl-U through the keyboard too.
    for key in ["x", "ctrl-u", "shift-f", "r", "o", "b", "ret"]:
        vm.monitor(f"sendkey {key}")
    out = vm.wait_prompt()
    assert "unknown command: Frob" in out
