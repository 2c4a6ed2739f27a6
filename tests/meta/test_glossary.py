"""The glossary (docs/glossary.md) and the links into it: every entry has
an anchor and names a file of the tree; every link into the glossary from
README.md, docs/ and docs/labs/ lands on an entry; and the README and each
doc link a core term the first time their prose uses it, so a reader meets
no word before its definition.  Runs on the host only.

"Prose" leaves out headings, code blocks and `inline code` (a command
such as `tick periodic` is not a use of the word "periodic"), and a word
inside another link's text is not a use either.  A first use counts as
linked if it is the text of a link to the term's entry, or a link to that
entry comes earlier in the file."""
import glob
import os
import re

import pytest

from lullvm.qemu import ROOT

GLOSSARY = "docs/glossary.md"

# Where a word is a whole word: not part of a name, a path or a file name
# (`tick` in tick.c, dyntick in docs/dyntick.md, TSC in TSC-deadline).
_L = r"(?<![\w/.\-])"
_R = r"(?![\w\-]|[./]\w)"


def _term(name, anchor, pattern, code=False):
    """`code`: a use inside `inline code` counts too (names from the code)."""
    return name, anchor, re.compile(_L + "(?:" + pattern + ")" + _R), code


# The core terms: the README and every doc link each at its first use.
CORE = [
    _term("TCG", "tcg", r"TCG"),
    _term("KVM", "kvm", r"KVM"),
    _term("-icount", "-icount", r"-?icount"),
    _term("clocksource", "clocksource", r"clocksources?"),
    _term("clock event device", "clock-event-device",
          r"clock[\s-]+events?(?:[\s-]+devices?)?|clockevents?"),
    _term("tick", "tick", r"ticks?"),
    _term("HZ", "hz", r"HZ"),
    _term("jiffies", "jiffies", r"jiff(?:y|ies)"),
    _term("timer wheel", "timer-wheel", r"(?:timer[\s-]+)?wheels?"),
    _term("cascade", "cascade", r"cascad(?:e|es|ed|ing)"),
    _term("hrtimer", "hrtimer", r"hrtimers?|high[\s-]+res(?:olution)?\s+timers?"),
    _term("one-shot", "one-shot", r"one[\s-]+shot"),
    _term("periodic", "periodic", r"periodic"),
    _term("dynamic tick", "dynamic-tick", r"dynamic[\s-]+ticks?"),
    _term("dyntick", "dyntick", r"dyntick"),
    _term("tickless", "tickless", r"tickless"),
    _term("forceapic", "forceapic", r"forceapic"),
    _term("slack", "slack", r"slack"),
    _term("deferrable", "deferrable", r"deferrable"),
    _term("piggyback", "piggyback", r"piggyback(?:s|ed|ing)?"),
    _term("wakeup", "wakeup", r"wake-?ups?"),
    _term("halted %", "halted",
          r"halted(?=\s+(?:share|%|H%|P%|\d[\d.]*\s?%|>=|at\s+least))|%\s+halted"),
    _term("PIT", "pit", r"PITs?|8254"),
    _term("local APIC timer", "local-apic-timer",
          r"(?:local\s+)?APIC\s+timers?|LAPIC(?:\s+timers?)?"),
    _term("TSC", "tsc", r"TSC"),
    _term("TSC-deadline", "tsc-deadline", r"TSC[\s-]+deadline"),
    _term("HPET", "hpet", r"HPETs?"),
    _term("ACPI PM timer", "acpi-pm-timer",
          r"(?:ACPI\s+)?PM\s+timers?|power[\s-]+management\s+timer"),
    _term("IRQ", "irq", r"IRQs?\d*"),
    _term("EOI", "eoi", r"EOIs?"),
    _term("softirq", "softirq", r"softirqs?"),
    _term("DYN_TICK_MIN_SKIP", "dyn_tick_min_skip", r"DYN_TICK_MIN_SKIP", code=True),
    _term("TICK_DYNTICK_MIN_SKIP", "tick_dyntick_min_skip", r"TICK_DYNTICK_MIN_SKIP", code=True),
]

# A word that means something else in one file: (file, term) -> the sense.
OTHER_SENSE = {
    ("docs/hardware.md", "cascade"): "the two 8259 PICs are cascaded, one behind the other",
}

# The docs held to the first-use rule: every doc and lab handout.  The
# labs' index (docs/labs/README.md) does not link its words yet.
DOCS = sorted(os.path.relpath(p, ROOT) for p in
              glob.glob(os.path.join(ROOT, "docs", "*.md")) +
              glob.glob(os.path.join(ROOT, "docs", "labs", "*.md")))
NOT_YET = {}


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read()


def slug(heading):
    """The anchor GitHub gives a heading."""
    s = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return s.replace(" ", "-")


def entries(text=None):
    """[(term, anchor, body)] for each `### term` of the glossary."""
    text = read(GLOSSARY) if text is None else text
    found = []
    parts = re.split(r"^### (.+)$", text, flags=re.M)
    for term, body in zip(parts[1::2], parts[2::2]):
        found.append((term.strip(), slug(term), re.split(r"^#{1,2} ", body, flags=re.M)[0]))
    return found


def anchors(text=None):
    text = read(GLOSSARY) if text is None else text
    return {slug(h) for h in re.findall(r"^#{1,6} (.+)$", text, flags=re.M)}


def prose(text):
    """(plain, with_code, links) for a markdown text.  plain is the text
    with everything but prose blanked (headings, fenced and indented code,
    inline code, link targets, HTML tags, URLs, "quotations"), with_code
    the same but with inline code kept; both as long as text, so positions
    agree.  links: [(start, end, target)], start..end the link's text."""
    out = list(text)
    pos, in_fence, in_list, prev_blank, prev_code = 0, False, False, True, False
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        blank = False
        if re.match(r"\s*(```|~~~)", line):
            in_fence = not in_fence
            blank = True
        elif in_fence or line.startswith("#"):
            blank = True
        elif (stripped and re.match(r"( {4,}|\t)", line) and not in_list
              and (prev_blank or prev_code)):
            blank = prev_code = True          # an indented code block
        else:
            prev_code = False
            if stripped and not line[0].isspace():
                in_list = bool(re.match(r"([-*+]|\d+\.) ", line))
        if blank:
            out[pos:pos + len(line)] = [c if c == "\n" else " " for c in line]
        prev_blank = not stripped
        pos += len(line)
    lined = "".join(out)
    # Inline code, which may run over a line break but not a blank line.
    spans = [m.span() for m in
             re.finditer(r"(`+)(?!`)((?:(?!\n\s*\n).)+?)(?<!`)\1", lined, re.S)]
    hidden = list(lined)
    for a, b in spans:
        hidden[a:b] = "C" * (b - a)
    hidden = "".join(hidden)
    links, plain, with_code = [], list(lined), list(lined)
    for a, b in spans:
        plain[a:b] = " " * (b - a)
        for i in range(a, b):
            if lined[i] == "`":
                with_code[i] = " "
    link = r"!?\[((?:[^\[\]\n]|\n(?!\s*\n))*)\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)"
    for m in re.finditer(link, hidden):
        links.append((m.start(1), m.end(1), text[m.start(2):m.end(2)]))
        for a, b in ((m.start(), m.start(1)), (m.end(1), m.end())):
            plain[a:b] = with_code[a:b] = " " * (b - a)
    for m in re.finditer(r"<[^>\n]*>|https?://\S+", hidden):
        a, b = m.span()
        plain[a:b] = with_code[a:b] = " " * (b - a)
    # A quotation (a section's or an article's title, a message) mentions
    # its words rather than uses them.
    for m in re.finditer(r'"(?:[^"\\\n]|\\.|\n(?!\s*\n)){1,300}?"', hidden):
        a, b = m.span()
        plain[a:b] = with_code[a:b] = " " * (b - a)
    return "".join(plain), "".join(with_code), links


def glossary_target(doc, target):
    """The anchor a link from `doc` to `target` names in the glossary
    ("" for the glossary itself), or None if it points elsewhere."""
    path, _, frag = target.partition("#")
    if not path:
        return frag if doc == GLOSSARY else None
    if "://" in path:
        return None
    if os.path.normpath(os.path.join(os.path.dirname(doc), path)) == GLOSSARY:
        return frag
    return None


def broken_links(doc, text, known):
    wrong = []
    for start, _, target in prose(text)[2]:
        frag = glossary_target(doc, target)
        if frag and frag not in known:
            line = text.count("\n", 0, start) + 1
            wrong.append(f"{doc}:{line}: {target} names no entry of {GLOSSARY}")
    return wrong


def unlinked_first_uses(doc, text, terms=CORE):
    """Each term whose first use in doc's prose is neither a link to its
    entry nor preceded by one."""
    plain, with_code, links = prose(text)
    to_entry = [(s, glossary_target(doc, t)) for s, _, t in links]
    # Where a longer term is used, its words are not uses of a shorter one
    # ("tick" in "dynamic tick").
    longer = [(n, m.span()) for n, _, p, _ in CORE for m in p.finditer(plain)]
    wrong = []
    for name, anchor, pattern, code in terms:
        if (doc, name) in OTHER_SENSE:
            continue
        for m in pattern.finditer(with_code if code else plain):
            start, end = m.span()
            if any(other != name and s <= start and end <= e and e - s > end - start
                   for other, (s, e) in longer):
                continue
            inside = [glossary_target(doc, t) for s, e, t in links if s <= start < e]
            if anchor in inside:
                break                   # the use is the link
            if inside:
                continue                # another link's text: not a use
            if not any(s <= start and to == anchor for s, to in to_entry):
                line = text.count("\n", 0, start) + 1
                wrong.append((start, f"{doc}:{line}: first use of \"{m.group(0)}\" is not "
                                     f"a link to {GLOSSARY}#{anchor}"))
            break
    return [w for _, w in sorted(wrong)]


def test_every_entry_has_an_anchor_and_names_a_file():
    seen, wrong = {}, []
    for term, anchor, body in entries():
        if not anchor.strip("-_"):
            wrong.append(f"{term}: no anchor")
        if anchor in seen:
            wrong.append(f"{term}: anchor #{anchor} also belongs to {seen[anchor]}")
        seen[anchor] = term
        paths = re.findall(r"[\w.-]+/[\w./-]*\w|Makefile", body)
        if not any(os.path.exists(os.path.join(ROOT, p)) for p in paths):
            wrong.append(f"{term}: names no file of the tree")
    assert len(seen) >= len(CORE)
    assert not wrong, "\n".join(wrong)


def test_every_core_term_has_an_entry():
    missing = [f"{name} (#{anchor})" for name, anchor, _, _ in CORE if anchor not in anchors()]
    assert not missing, f"core terms with no entry in {GLOSSARY}: " + ", ".join(missing)


def test_every_link_into_the_glossary_lands_on_an_entry():
    known = anchors()
    wrong = []
    for doc in ["README.md", GLOSSARY] + DOCS:
        wrong += broken_links(doc, read(doc), known)
    assert not wrong, "links into the glossary that point nowhere:\n" + "\n".join(wrong)


def test_the_readme_links_each_core_term_at_its_first_use():
    wrong = unlinked_first_uses("README.md", read("README.md"))
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("doc", [d for d in DOCS if d != GLOSSARY])
def test_each_doc_links_each_core_term_at_its_first_use(doc):
    if doc in NOT_YET:
        pytest.xfail(NOT_YET[doc])
    wrong = unlinked_first_uses(doc, read(doc))
    assert not wrong, "\n".join(wrong)


def test_the_checks_see_what_they_check():
    """The rules above, on a made-up doc: a link to no entry and a first
    use that is not linked are found; code, headings and other links'
    text are not uses."""
    known = anchors()
    doc = "docs/EXAMPLE.md"
    text = ("# The PIT and HZ\n\n`tick periodic` and [docs/dyntick.md](dyntick.md).\n\n"
            "    HPET in an indented block\n\n"
            "The [PIT](glossary.md#pit) fires; the PIT again. Then HZ, and\n"
            "[HPET](glossary.md#no-such-entry), and the HPET.\n")
    assert broken_links(doc, text, known) == [
        "docs/EXAMPLE.md:8: glossary.md#no-such-entry names no entry of docs/glossary.md"]
    wrong = unlinked_first_uses(doc, text)
    assert [w.split(": ", 1)[1] for w in wrong] == [
        'first use of "HZ" is not a link to docs/glossary.md#hz',
        'first use of "HPET" is not a link to docs/glossary.md#hpet']
    assert "tick" not in " ".join(wrong) and "dyntick" not in " ".join(wrong)
    assert slug("TSC-deadline") == "tsc-deadline" and slug("-icount") == "-icount"
    assert slug("DYN_TICK_MIN_SKIP") == "dyn_tick_min_skip"
