"""The test harness itself: an emulator that dies or goes quiet must fail a
test with its exit status and its own last words, never an empty message
(a Bochs that aborted at start-up once failed with `'' not found`)."""
import pytest

from lullvm.qemu import EmulatorFailure


def test_qemu_that_exits_at_once_is_reported_with_status_and_its_words(boot):
    with pytest.raises(EmulatorFailure) as e:
        boot(extra=["-no-such-option"], timeout=10)
    msg = str(e.value)
    assert "QEMU stopped (exit status 1) before 'lull> ' appeared" in msg, msg
    assert "-no-such-option" in msg, msg       # QEMU's own complaint, from its stderr


def test_qemu_that_goes_quiet_is_reported_as_still_running(boot):
    vm = boot()
    vm.type("version\r")
    with pytest.raises(EmulatorFailure) as e:
        vm.expect("text lull never prints", timeout=1)
    msg = str(e.value)
    assert "QEMU went quiet (still running after 1 s)" in msg, msg
    assert "lull " in msg, msg                  # the tail of the serial log


def test_wait_exit_names_a_guest_that_does_not_exit(boot):
    vm = boot()
    with pytest.raises(EmulatorFailure) as e:
        vm.wait_exit(timeout=1)
    assert "QEMU did not exit (still running after 1 s)" in str(e.value)
