"""The two timer wheels: boot on the level wheel, switch at runtime both ways
with timers pending, and the timers still fire (kernel/time/timer_level.c)."""
import re

WHEEL = re.compile(r"wheel: (cascade|level), (\d+) timers pending")
TIMERON_WHEEL = re.compile(r"wheel timer: ran on CPU (\d+) at jiffy (\d+) \(due at (\d+)\)")


def test_boot_on_the_level_wheel_and_switch_both_ways(boot):
    # Under icount: stress judges lateness, and a loaded host must not.
    vm = boot(append="wheel=level", extra=["-smp", "2"], icount=4)
    assert WHEEL.search(vm.cmd("wheel")).group(1) == "level"
    assert "wheel: level" in vm.cmd("timers")
    # 100 ms is level 0 at any HZ: on its jiffy.  CPU 1 is idle, its wheel
    # stale: the arm forwards it first (level_forward), or the timer would
    # land in a coarse level and run late.
    for cpu in (0, 1):
        m = TIMERON_WHEEL.search(vm.cmd(f"timeron {cpu} 100"))
        assert m and m.group(1) == str(cpu) and m.group(2) == m.group(3)
    assert "stress: ok" in vm.cmd("stress 3", timeout=30)

    vm.cmd("every 50")                  # a periodic timer, pending across switches
    m = WHEEL.search(vm.cmd("wheel cascade"))
    assert m.group(1) == "cascade" and int(m.group(2)) >= 1
    assert "stress: ok" in vm.cmd("stress 3", timeout=30)
    m = WHEEL.search(vm.cmd("wheel level"))
    assert m.group(1) == "level" and int(m.group(2)) >= 1
    assert "stress: ok" in vm.cmd("stress 3", timeout=30)
    vm.cmd("every off")


def test_bad_input(boot):
    vm = boot(append="wheel=spiral")
    assert "bad value 'spiral' for option 'wheel'" in vm.log_text()
    assert WHEEL.search(vm.cmd("wheel")).group(1) == "cascade"      # the default
    for bad in ("wheel x", "wheel level level", "wheel LEVEL", "wheel cascade1"):
        assert vm.cmd(bad).strip() == "usage: wheel [cascade|level]", bad
    assert WHEEL.search(vm.cmd("wheel")).group(1) == "cascade"
    assert vm.cmd("version").startswith("lull")
