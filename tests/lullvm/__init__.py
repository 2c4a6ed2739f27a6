"""lullvm: the one library that starts and drives lull's virtual machines.

Everything that boots lull (or the patched Linux) and reads what it says
goes through here: the system tests (tests/system), the lab graders
(tests/labs, tools/grade.py), the benchmarks (bench/) and the soak
(tools/soak.py).  It knows

    qemu.py    every QEMU command line (machine shapes, -smp, -icount with
               -rtc clock=vm, run=, UEFI firmware), the serial console of one
               running guest (class Lull: boot, type, wait for the prompt),
               and boots driven by run= that power off by themselves
               (run_script: each command's output, cut from the log)
    linux.py   the patched Linux of linux/: its command line (tools/linux-boot;
               icount on one CPU), init's console (class LinuxGuest), and
               boots driven by init's arguments that power off (run_linux)
    bochs.py   lull in Bochs, on a pty of its own
    screen.py  the VGA text screen, read from a QEMU screenshot
    parse.py   the shell's outputs as numbers: idle, wakeups, latency,
               timerload, trace, dyntick, uptime, cpus, and the line a
               switch says (tests/meta/test_lullvm_parse.py checks them on
               recorded outputs)
    shell_table.py  the shell's command table, read from its source

Import it with tests/ on the path: pytest does that by pytest.ini's
`pythonpath`; a script outside tests/ (bench/, tools/) puts tests/ first on
sys.path itself.
"""
