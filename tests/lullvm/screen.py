"""The framebuffer console read back from a screenshot, and what it should
show: the tests' model of drivers/platform/framebuffer.c.

QEMU's monitor command `screendump FILE` writes what the emulated display
shows as a PPM image.  lull draws its console in the 8x13 font of
kernel/lib/font_8x13.c, light grey on black, from the top-left corner; the
screenshot is cut into 8x13 cells and each cell looked up among the font's
glyphs, so the test reads the screen as text without OCR.  The glyph table
is parsed from the C file itself: a wrong font, a shifted cell, a wrong
pixel format or colour all show as unreadable cells.

The model (`console_screen`) replays lull's serial output through the same
rules the console promises for every screen: printable bytes drawn, \\n,
\\r, \\b and \\t obeyed, other control bytes dropped, wrapping at the last
column and scrolling at the last row.  The screen must equal the model.
"""
import os
import re

from PIL import Image

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FONT_C = os.path.join(ROOT, "kernel", "lib", "font_8x13.c")
FONT_W, FONT_H = 8, 13
CURSOR_ROWS = 2                 # FB_CURSOR_ROWS: the cursor lights a cell's bottom rows
BLACK = (0, 0, 0)
GREY = (0xAA, 0xAA, 0xAA)       # FB_GREY in every channel
TAB = 8


def font_glyphs():
    """{13-row bitmap: character} from kernel/lib/font_8x13.c."""
    with open(FONT_C) as f:
        text = f.read()
    glyphs = {}
    for rows, ch in re.findall(r"\{((?:0x[0-9a-f]{2}, ){%d}0x[0-9a-f]{2})\},  /\* '(.)' \*/"
                               % (FONT_H - 1), text):
        bits = tuple(int(x, 16) for x in rows.split(", "))
        assert bits not in glyphs, f"{ch!r} and {glyphs.get(bits)!r} are drawn alike"
        glyphs[bits] = ch
    assert len(glyphs) == 0x7E - 0x20 + 1, len(glyphs)
    return glyphs


def read_screen(path):
    """(rows of text, (row, col) of the cursor or None, set of colours)
    from a screendump.  An unreadable cell reads as '\\ufffd'."""
    glyphs = font_glyphs()
    im = Image.open(path).convert("RGB")
    width, height = im.size
    data = im.tobytes()
    colours = set()
    lines, cursor = [], None
    for r in range(height // FONT_H):
        line = []
        for c in range(width // FONT_W):
            bits = []
            for y in range(FONT_H):
                off = ((r * FONT_H + y) * width + c * FONT_W) * 3
                b = 0
                for x in range(FONT_W):
                    px = data[off + 3 * x:off + 3 * x + 3]
                    colours.add(px)
                    if px != bytes(BLACK):
                        b |= 0x80 >> x
                bits.append(b)
            ch = glyphs.get(tuple(bits))
            if ch is None:
                # The cursor's cell: its glyph with the bottom rows lit.
                top = tuple(bits[:FONT_H - CURSOR_ROWS])
                if all(b == 0xFF for b in bits[FONT_H - CURSOR_ROWS:]):
                    for cand, g in glyphs.items():
                        if cand[:FONT_H - CURSOR_ROWS] == top:
                            ch, cursor = g, (r, c)
                            break
            line.append(ch if ch is not None else "\ufffd")
        lines.append("".join(line).rstrip())
    return lines, cursor, {tuple(p) for p in colours}


def console_screen(output, cols, rows):
    """(rows of text, (row, col) of the cursor): what a console of cols x
    rows characters shows after printing `output` from a clear screen."""
    screen = [[" "] * cols for _ in range(rows)]
    row = col = 0
    for ch in output:
        if ch == "\n":
            row, col = row + 1, 0
        elif ch == "\r":
            col = 0
        elif ch == "\b":
            col = max(col - 1, 0)
        elif ch == "\t":
            col = (col + TAB) & ~(TAB - 1)
        elif ord(ch) < 0x20:
            continue
        else:
            screen[row][col] = ch if 0x20 <= ord(ch) <= 0x7E else " "
            col += 1
        if col >= cols:
            row, col = row + 1, 0
        if row >= rows:
            screen = screen[1:] + [[" "] * cols]
            row = rows - 1
    return ["".join(l).rstrip() for l in screen], (row, col)


def lull_output(serial_log):
    """What lull printed, from its first byte (a newline before the version
    line), with each line end turned back into LF: the UART sends CR LF,
    and the pty the tests read adds a CR of its own (CR CR LF); a CR just
    before a LF changes nothing on a screen.  What the firmware and GRUB
    printed before lull is cut off."""
    m = re.search(r"\r*\nlull \d+\.\d+\.\d+ \(git ", serial_log)
    assert m, serial_log[-2000:]
    return re.sub(r"\r+\n", "\n", serial_log[m.start():])
