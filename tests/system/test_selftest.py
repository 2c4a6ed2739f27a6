"""The in-kernel self-test: KTAP on the console, verdict as QEMU's exit code."""
import re

import pytest

from conftest import EXIT_SELFTEST_PASS, MACHINE_SHAPES

SHAPES = MACHINE_SHAPES


def parse_ktap(log):
    text = log.replace("\r", "")
    assert "KTAP version 1" in text
    plan = int(re.search(r"^1\.\.(\d+)$", text, re.M).group(1))
    results = re.findall(r"^(ok|not ok) (\d+) (.*)$", text, re.M)
    return plan, results


@pytest.mark.timing
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_selftest_passes(boot, shape):
    vm = boot(append="selftest", wait_prompt=False, **SHAPES[shape])
    code = vm.wait_exit(timeout=60)
    plan, results = parse_ktap(vm.log_text())
    failed = [r for r in results if r[0] != "ok"]
    assert not failed, failed
    assert len(results) == plan
    assert [int(r[1]) for r in results] == list(range(1, plan + 1))
    assert code == EXIT_SELFTEST_PASS


def test_selftest_covers_the_hardware(boot):
    vm = boot(append="selftest", wait_prompt=False)
    vm.wait_exit(timeout=60)
    _, results = parse_ktap(vm.log_text())
    names = " | ".join(r[2] for r in results)
    for expect in ("tsc agrees with PIT channel 2", "acpi_pm agrees with hpet",
                   "clockevent lapic one-shot", "clockevent hpet periodic",
                   "clockevent pit one-shot", "clocksource tsc counts forward"):
        assert expect in names, (expect, names)


@pytest.mark.timing
def test_selftest_from_the_grub_menu(boot):
    """The ISO's second menu entry boots the self-test."""
    vm = boot(iso=True, wait_prompt=False, timeout=60)
    vm.expect_exact("lull (default", timeout=30)
    vm.send("\x1b[B")               # down to the self-test entry
    vm.send("\r")
    assert vm.wait_exit(timeout=90) == EXIT_SELFTEST_PASS
    assert "KTAP version 1" in vm.log_text()
