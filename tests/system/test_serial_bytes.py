"""Every byte value over the serial line: each does its job from the line
editor's table (kernel/shell/lineedit.c, docs/boot.md "Line editing") or
nothing, and the shell answers normally afterwards.

The console output these tests expect is worked out, byte for byte, by
Editor below: the same table written in Python.  What the shell prints for
a finished line (version, `unknown command`, ...) is read from lull when
each test starts, so the tests compare whole transcripts - every echo, every
prompt - without repeating the shell's wording.
"""
import os
import random
import re
import termios
import time

import pexpect
import pytest

from lullvm.qemu import PROMPT

LINEEDIT_MAX = 255          # include/shell/lineedit.h
LINEEDIT_HISTORY = 16
ARGS_MAX = 16               # include/shell/args.h

CR, LF, BS, DEL, ESC = 0x0D, 0x0A, 0x08, 0x7F, 0x1B
CTRL_C, CTRL_U = 0x03, 0x15
# How kernel/panic.c starts its reports.
CRASH_MARKERS = ("panic: ", "*** CPU exception", "system halted.")


def printable(b):
    return 0x20 <= b <= 0x7E


class Editor:
    """The byte table of kernel/shell/lineedit.c as a Python model.

    feed() returns what lull must send back: strings (echo) and, for each
    line ended, one event - ("line", text), ("cancel",) or ("too_long",) -
    after which the shell prints something and a new prompt."""

    def __init__(self):
        self.shown = ""         # the line as kept and echoed
        self.typed = 0          # characters typed; > len(shown) past the limit
        self.history = []       # oldest first
        self.pos = 0            # 0: the new line; k: the k-th newest history line
        self.draft = ("", 0)    # the new line (shown, typed) while browsing
        self.esc = None         # None, "ESC", "CSI" or "SS3"
        self.last = None
        self.out = []

    def feed(self, data):
        self.out = []
        for b in data:
            self._byte(b)
        return self.out

    def _show(self, text, typed):
        self.out.append("\b \b" * len(self.shown) + text)
        self.shown, self.typed = text, typed

    def _history(self, older):
        if older and self.pos < len(self.history):
            if self.pos == 0:
                self.draft = (self.shown, self.typed)
            self.pos += 1
        elif not older and self.pos > 0:
            self.pos -= 1
        else:
            return
        if self.pos:
            entry = self.history[-self.pos]
            self._show(entry, len(entry))
        else:
            self._show(*self.draft)

    def _escape(self, b):
        """True if b belongs to the escape sequence in progress."""
        state, self.esc = self.esc, None
        if state == "ESC":
            self.esc = {ord("["): "CSI", ord("O"): "SS3"}.get(b)
            return self.esc is not None
        if state == "CSI" and 0x20 <= b <= 0x3F:
            self.esc = "CSI"                    # parameter or intermediate
            return True
        if not (0x40 if state == "CSI" else 0x20) <= b <= 0x7E:
            return False                        # ends it; does its own job
        if b in (ord("A"), ord("B")):
            self._history(older=b == ord("A"))
        return True

    def _reset(self):
        self.shown, self.typed, self.pos = "", 0, 0

    def _byte(self, b):
        after_cr, self.last = self.last == CR, b
        if self.esc and self._escape(b):
            return
        if b == LF and after_cr:
            return                              # second half of CR LF
        if b in (CR, LF):
            self.out.append("\n")
            if self.typed > LINEEDIT_MAX:
                self.out.append(("too_long",))
            else:
                self.out.append(("line", self.shown))
                if self.shown and self.history[-1:] != [self.shown]:
                    self.history = (self.history + [self.shown])[-LINEEDIT_HISTORY:]
            self._reset()
        elif b == CTRL_C:
            self.out += ["^C\n", ("cancel",)]
            self._reset()
        elif b == CTRL_U:
            self.out.append("\b \b" * len(self.shown))
            self._reset()
        elif b in (BS, DEL):
            if self.typed > len(self.shown):
                self.typed -= 1
            elif self.shown:
                self.shown, self.typed = self.shown[:-1], self.typed - 1
                self.out.append("\b \b")
        elif b == ESC:
            self.esc = "ESC"
        elif printable(b):
            self.typed += 1
            if len(self.shown) < LINEEDIT_MAX and self.typed == len(self.shown) + 1:
                self.shown += chr(b)
                self.out.append(chr(b))
        # every other byte does nothing


def normalize(text):
    # lull sends CR LF for a new line and the pty adds a CR of its own.
    return re.sub(r"\r+\n", "\n", text)


class Session:
    """A booted lull, the Editor model of its line editor, and what its
    shell prints for the lines the tests send."""

    def __init__(self, vm):
        self.vm = vm
        self.editor = Editor()
        self.known = {}
        # The shell's answers, read from lull itself.
        help_text = self._learn(b"help\r")
        self.commands = {l.split()[0] for l in help_text.splitlines() if l.startswith("  ")}
        assert "version" in self.commands, help_text
        self.known["help"] = help_text
        self.version = self.known["version"] = self._learn(b"version\r")
        assert self.version.startswith("lull "), self.version
        probe = "zq"
        self.unknown_before, self.unknown_after = self._learn(probe.encode() + b"\r").split(probe)
        self.too_long = self._learn(b"z" * (LINEEDIT_MAX + 1) + b"\r")
        assert "too long" in self.too_long
        self.too_many = self._learn(b"z " * (ARGS_MAX + 1) + b"\r")

    def _learn(self, data):
        """Send one line whose output the model cannot know yet; return it."""
        events = self.editor.feed(data)
        assert [e for e in events if isinstance(e, tuple)][0][0] in ("line", "too_long")
        echo = "".join(e for e in events if isinstance(e, str))
        got = self.send_and_read(data, 1)
        assert got.startswith(echo) and got.endswith(PROMPT), got
        return got[len(echo):-len(PROMPT)]

    def output_for(self, line):
        words = [w for w in line.split(" ") if w]
        if len(words) > ARGS_MAX:
            return self.too_many
        if not words:
            return ""
        if " ".join(words) in self.known:
            return self.known[" ".join(words)]
        if words[0] in self.commands:
            raise ValueError(f"the test data would run {line!r}: change the data")
        return self.unknown_before + words[0] + self.unknown_after

    def expect_text(self, events):
        text = ""
        for e in events:
            if isinstance(e, str):
                text += e
            elif e[0] == "line":
                text += self.output_for(e[1]) + PROMPT
            elif e[0] == "cancel":
                text += PROMPT
            else:
                text += self.too_long + PROMPT
        return text, sum(isinstance(e, tuple) for e in events)

    def send(self, data, typed=False):
        """Raw bytes to the serial line: pasted in one write, or typed one
        at a time.  (pexpect's send() would encode text as UTF-8.)"""
        fd = self.vm.child.child_fd
        if not typed:
            while data:
                data = data[os.write(fd, data):]
            return
        for b in data:
            os.write(fd, bytes([b]))
            time.sleep(0.001)

    def read_prompts(self, n, what="", timeout=10):
        """The console output up to the n-th prompt from now."""
        got = ""
        for i in range(n):
            try:
                k = self.vm.child.expect_exact([PROMPT] + list(CRASH_MARKERS), timeout=timeout)
            except pexpect.TIMEOUT:
                raise AssertionError(f"{what}: prompt {i + 1} of {n} never came; got "
                                     f"{normalize(got + self.vm.child.before)!r}") from None
            except pexpect.EOF:
                raise AssertionError(f"{what}: QEMU exited; got "
                                     f"{normalize(got + self.vm.child.before)!r}") from None
            if k:
                try:
                    rest = self.vm.child.read_nonblocking(100000, timeout=0.5)
                except (pexpect.TIMEOUT, pexpect.EOF):
                    rest = ""
                raise AssertionError(f"{what}: lull crashed:\n"
                                     + normalize(got + self.vm.child.before + self.vm.child.after + rest))
            got += self.vm.child.before + PROMPT
        return normalize(got)

    def send_and_read(self, data, n, typed=False, what=""):
        self.send(data, typed)
        return self.read_prompts(n, what)

    def check(self, data, typed=False, what=""):
        """Send data; lull must answer exactly as the table says."""
        want, prompts = self.expect_text(self.editor.feed(data))
        assert prompts, "end the data with a line, so there is a prompt to wait for"
        what = f"{what}{': ' if what else ''}sent {data!r}"
        got = self.send_and_read(data, prompts, typed, what)
        assert got == want, what
        return got

    def version_line(self):
        """What `version` typed at a prompt gives back: echo, output, prompt."""
        return "version\n" + self.version + PROMPT


@pytest.fixture
def lull(vm):
    return Session(vm)


def test_the_serial_line_passes_every_byte_through(lull):
    """QEMU's stdio chardev (signal=off, in conftest's qemu_args) puts the pty
    in raw mode: no byte is a signal, flow control or line editing of the
    host's own.  Then ^C, ^\\ and ^Z reach lull as bytes."""
    iflag, _, cflag, lflag = termios.tcgetattr(lull.vm.child.child_fd)[:4]
    assert not lflag & termios.ISIG          # ^C ^\ ^Z: not SIGINT, SIGQUIT, SIGTSTP
    assert not lflag & (termios.ICANON | termios.IEXTEN)    # ^U ^W ^V ^O: not the pty's
    assert not iflag & (termios.IXON | termios.IXOFF)       # ^S ^Q: not flow control
    assert not iflag & (termios.ICRNL | termios.INLCR | termios.IGNCR)  # CR, LF as sent
    assert not iflag & (termios.ISTRIP | termios.PARMRK)    # all 8 bits, as sent
    assert cflag & termios.CSIZE == termios.CS8
    # ^C at an empty prompt: lull echoes it and gives a fresh prompt.
    assert lull.check(b"\x03") == "^C\n" + PROMPT
    # ^\ and ^Z each end an escape sequence - so lull saw them - and QEMU,
    # which a signal would have killed or stopped, still runs.
    for b in (b"\x1c", b"\x1a"):
        assert lull.check(b"\x1b[" + b + b"version\r") == lull.version_line()
    assert lull.vm.alive()


def expected_alone(b):
    """What byte b alone at an empty prompt echoes (the table, restated),
    when the byte before it was the CR of the previous command."""
    if printable(b):
        return chr(b) + "\b \b"             # it is typed; the test erases it
    if b == CR:
        return "\n" + PROMPT                # an empty line
    if b == CTRL_C:
        return "^C\n" + PROMPT
    # LF here is the second half of the CR LF before it; BS, DEL and ^U have
    # nothing to erase; ESC alone, other control bytes and 0x80-0xff do
    # nothing at all.
    return ""


def test_each_byte_alone_at_the_prompt(lull):
    for b in range(256):
        data = bytes([b]) + (b"\x7f" if printable(b) else b"") + b"version\r"
        got = lull.check(data, what=f"byte 0x{b:02x}")
        assert got == expected_alone(b) + lull.version_line(), f"byte 0x{b:02x}"


def test_each_byte_inside_an_escape_sequence(lull):
    """After ESC [ every byte either continues the sequence, ends it (and is
    swallowed), or ends it and does its own job.  Control bytes and bytes
    >= 0x80 are the last kind, which also shows that each one reached lull:
    had it been lost, the `v` of `version` would have ended the sequence."""
    for b in range(256):
        data = b"\x1b[" + bytes([b]) + b"version\r"
        got = lull.check(data, what=f"ESC [ 0x{b:02x}")
        if not printable(b):
            assert got.endswith(lull.version_line()), f"ESC [ 0x{b:02x}: {got!r}"


def test_arrow_keys_and_other_escape_sequences(lull):
    lull.check(b"version\r")
    lull.check(b"frob\r")
    # Up shows frob, Up again erases it and shows version.
    assert lull.check(b"\x1b[A\x1b[A\r") == "frob" + "\b \b" * 4 + lull.version_line()
    # Up as a terminal in "application cursor keys" mode sends it.
    assert lull.check(b"\x1bOA\r") == lull.version_line()
    # Ctrl-Up, Ctrl-Down, Ctrl-Up.
    assert lull.check(b"\x1b[1;5A\x1b[1;5B\x1b[1;5A\r").endswith(lull.version_line())
    # Keys lull has no use for vanish whole, leaving no byte behind: Delete,
    # Left, Right, Ctrl-Right, Home, F1, F5, bracketed paste marks.
    got = lull.check(b"ver\x1b[3~\x1b[D\x1b[C\x1b[1;5C\x1b[H\x1bOP\x1b[15~"
                     b"\x1b[200~si\x1b[201~on\r")
    assert got == lull.version_line()
    # A lone ESC (the Escape key) takes nothing with it.
    assert lull.check(b"\x1bversion\r") == lull.version_line()
    assert lull.check(b"\x1b\x1b\x1bversion\r") == lull.version_line()
    # Partial sequences: Ctrl-U, Enter and Ctrl-C end them.
    assert lull.check(b"junk\x1b[12;" + b"\x15version\r").endswith(lull.version_line())
    assert lull.check(b"\x1b[\r") == "\n" + PROMPT
    assert lull.check(b"\x1bO\x03") == "^C\n" + PROMPT
    assert lull.check(b"\x1b[" + b"9" * 500 + b"\r") == "\n" + PROMPT
    assert lull.check(b"version\r") == lull.version_line()


def test_cr_lf_is_one_enter(lull):
    two = lull.version_line() * 2
    assert lull.check(b"version\r\nversion\r\n") == two        # pasted
    assert lull.check(b"version\r\nversion\r\n", typed=True) == two
    assert lull.check(b"version\nversion\n") == two            # LF alone is Enter
    # CR LF split around a running command is still one Enter.
    lull.check(b"version\r")
    assert lull.check(b"\nversion\r") == lull.version_line()
    # LF CR and CR CR are two.
    assert lull.check(b"version\n\r") == lull.version_line() + "\n" + PROMPT
    assert lull.check(b"version\r\r\n") == lull.version_line() + "\n" + PROMPT


def test_lines_at_and_over_the_limit(lull):
    at = b"z" * LINEEDIT_MAX
    unknown_at = lull.unknown_before + at.decode() + lull.unknown_after
    assert lull.check(at + b"\r").endswith(unknown_at + PROMPT)
    over = lull.check(at + b"zz\r")
    assert over.endswith(lull.too_long + PROMPT)
    assert "unknown command" not in over                      # never run cut short
    # One backspace brings it back to the limit ...
    assert lull.check(at + b"z\x7f\r").endswith(unknown_at + PROMPT)
    # ... bytes that do nothing do not count ...
    assert lull.check(at + b"\x00\x01\t\x80\xff\x1b[C\x1bOP\r").endswith(unknown_at + PROMPT)
    # ... and a trip through the history does not cut an over-long line short.
    assert lull.check(at + b"z\x1b[A\x1b[B\r").endswith(lull.too_long + PROMPT)
    lull.check(at + b"z\x15\x1b[A\x1b[B\x03")
    assert lull.check(b"version\r") == lull.version_line()


# Byte strings terminals and keyboards really send, mixed into the random
# bytes so that every seed meets the editing keys and escape sequences.
FRAGMENTS = [b"\x1b[A", b"\x1b[B", b"\x1bOA", b"\x1b[1;5D", b"\x1b[3~", b"\x1b[200~",
             b"\x1b", b"\x1b[", b"\x1bO", b"\r\n", b"\r", b"\n", b"\x03", b"\x15",
             b"\x7f", b"\b", b"\t", b"\x00", b"\x04", b"\x1a", b"\x1c"]
RANDOM_LENGTH = 400
SEEDS = [1, 2, 3]


def random_bytes(seed):
    rng = random.Random(seed)
    data = bytearray()
    while len(data) < RANDOM_LENGTH:
        if rng.random() < 0.2:
            data += rng.choice(FRAGMENTS)
        else:
            data.append(rng.randrange(256))
    return bytes(data)


@pytest.mark.parametrize("typed", [False, True], ids=["pasted", "typed"])
@pytest.mark.parametrize("seed", SEEDS)
def test_random_bytes(lull, seed, typed):
    """Random bytes then Ctrl-U, Enter: lull says exactly what the table
    says (garbage lines ended by a CR or LF in the data are run, and are
    unknown commands; nothing else is), and `version` works after."""
    got = lull.check(random_bytes(seed) + b"\x15\r" + b"version\r", typed=typed,
                     what=f"seed {seed}")
    assert got.endswith("\n" + PROMPT + lull.version_line())
