# lull — build, run, debug and test.  See README.md.
#
#   make              build/lull.elf (+ build/lull.asm, build/lull.sym)
#   make iso          build/lull.iso (GRUB, menu in boot/grub.cfg)
#   make run          boot the ISO in QEMU, serial console on this terminal
#   make debug        QEMU halted at the first instruction, waiting for gdb
#   make test         unit tests (host) + a short fuzz run + system tests (QEMU), each phase timed
#   make fuzz         each libFuzzer harness in tests/fuzz/ for FUZZ_SECONDS (docs/robustness.md)
#   make bench        tick modes vs. each other and an idle Linux guest (docs/benchmarks.md)
#   make soak         24 guest hours in each tick mode under icount, checked (tools/soak.py)
#   make linux        Linux 6.1 for i386 with the dynamic-tick series (linux/README.md)
#   make lab LAB=NAME DIR=PATH   a student copy of the tree for one lab (docs/labs/README.md)
#   make grade        score this tree's lab (a student copy), or every lab here
#   make clean
#
# Knobs: HZ=100|250|1000 (build-time tick rate, default 250 as in Linux 2.6.13)
#        ACCEL=tcg|kvm   (kvm only where hardware virtualization is real)
#        GUI=1           (show the VGA window in make run)
#        UEFI=1          (make run: boot the ISO on UEFI firmware, OVMF, in qemu-system-x86_64 -machine q35)
#        UEFI=32         (make run: on 32-bit UEFI firmware, OVMF32, in qemu-system-i386 -machine q35)
#        QUICK=1         (make bench: a smoke run, under 3 minutes)
#        SOAK_ARGS=...   (make soak: e.g. "--hours 1 --modes periodic"; tools/soak.py --help)
#        GDBPORT=N       (make debug: gdb on TCP port N instead of build/gdb.sock)
#        NO_DEPS=1       (install nothing; stop with one line if a tool is missing)
#        FUZZ_SECONDS=N  (make fuzz: seconds per harness, default 60)
#        JOBS=N          (make linux: parallel jobs, default the CPU count)
#        GIT=1           (make lab: `git init` the copy, with one commit)

HZ     ?= 250
ACCEL  ?= tcg
CROSS  ?= i686-linux-gnu-
BUILD  ?= build

CC      := $(CROSS)gcc
LD      := $(CROSS)ld
OBJDUMP := $(CROSS)objdump
NM      := $(CROSS)nm
NASM    := nasm
QEMU    := qemu-system-i386
PYTHON  := /usr/bin/python3
HOSTCC  ?= gcc

ifeq ($(filter $(HZ),100 250 1000),)
$(error HZ must be 100, 250 or 1000, not '$(HZ)')
endif

# -march=i486: the kernel must run on `-machine isapc -cpu 486` (no cmov).
# -mgeneral-regs-only: no x87/SSE state to save in interrupts.
CFLAGS := -std=gnu11 -m32 -march=i486 -mgeneral-regs-only \
          -ffreestanding -nostdlib -fno-pic -fno-pie -fno-stack-protector \
          -fno-omit-frame-pointer -fno-strict-aliasing \
          -O2 -g -Wall -Wextra -Werror -Iinclude -MD -MP \
          -DCONFIG_HZ=$(HZ)
LDFLAGS := -m elf_i386 -T linker.ld -nostdlib -z noexecstack
NASMFLAGS := -f elf32 -g -F dwarf

C_SRCS   := $(wildcard kernel/*.c kernel/arch/*.c kernel/shell/*.c kernel/lib/*.c kernel/time/*.c \
                      kernel/user/*.c drivers/timer/*.c drivers/platform/*.c)
ASM_SRCS := $(wildcard boot/*.asm)
OBJS     := $(patsubst %.c,$(BUILD)/%.o,$(C_SRCS)) $(patsubst %.asm,$(BUILD)/%.o,$(ASM_SRCS))

# The built-in programs run in ring 3 and may call nothing of the kernel's:
# no memset/memcpy the compiler would make of a loop.
$(BUILD)/kernel/user/%.o: CFLAGS += -fno-tree-loop-distribute-patterns -fno-builtin

# Rebuild everything when HZ changes: it is baked into the objects.
HZ_STAMP := $(BUILD)/.hz-$(HZ)

.PHONY: all iso run debug test test-smp unit system meta fuzz fuzz-short clean deps bench bench-timers soak linux lab grade FORCE
all: $(BUILD)/lull.elf $(BUILD)/lull.asm $(BUILD)/lull.sym

# Tools.  On Debian/Ubuntu the first step of a build installs the missing
# packages (tools/install-deps, through the order-only prerequisite `deps`).
# Without apt, or with NO_DEPS=1, nothing is installed: tools/check-deps
# looks for what the goals need while this Makefile is read, so a missing
# tool stops even `make -n` with one line naming it and its package.
deps_all          := build
deps_iso          := build iso
deps_run          := build iso run
deps_debug        := build iso run debug
deps_unit         := unit
deps_system       := build iso system linux
deps_meta         := system
deps_test-smp     := build iso system
deps_test         := build iso unit fuzz system linux
deps_fuzz         := fuzz
deps_fuzz-short   := fuzz
deps_bench        := build iso run bench
deps_soak         := build system
deps_bench-timers := unit bench
deps_linux        := linux
deps_lab          :=
deps_grade        := build unit system
deps_clean        :=
deps_deps         := build iso run debug unit fuzz system linux
# A goal not listed (a file such as build/lull.elf) needs the build tools.
DEP_GROUPS := $(sort $(foreach g,$(or $(MAKECMDGOALS),all),\
                $(if $(filter undefined,$(origin deps_$(g))),build,$(deps_$(g)))))

ifeq ($(shell NO_DEPS='$(NO_DEPS)' tools/check-deps --can-install && echo yes),yes)
# Every make considers `deps`, so what it runs must cost nothing when
# nothing changed: the script (0.1 s of CPU, its dpkg-query) runs again
# only when it or dpkg's package database is newer than its last success.
deps: $(BUILD)/.deps-ok
$(BUILD)/.deps-ok: tools/install-deps $(wildcard /var/lib/dpkg/status)
	@tools/install-deps
	@mkdir -p $(@D) && touch $@
else
DEPS_MISSING := $(if $(DEP_GROUPS),$(shell CROSS='$(CROSS)' HOSTCC='$(HOSTCC)' PYTHON='$(PYTHON)' FUZZCC='$(FUZZCC)' \
                  tools/check-deps $(DEP_GROUPS) 2>&1))
ifneq ($(DEPS_MISSING),)
$(error $(DEPS_MISSING))
endif
deps: ;
endif

$(HZ_STAMP):
	@mkdir -p $(BUILD)
	@rm -f $(BUILD)/.hz-*
	@touch $@

$(BUILD)/%.o: %.c $(HZ_STAMP) | deps
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/%.o: %.asm | deps
	@mkdir -p $(dir $@)
	@echo "  NASM    $<"
	@$(NASM) $(NASMFLAGS) -MD $(BUILD)/$*.d $< -o $@

# kernel/version.c records the commit it was built from; rebuilt when that changes.
GIT_REV := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
$(BUILD)/.git-rev: FORCE
	@mkdir -p $(BUILD)
	@echo '$(GIT_REV)' | cmp -s - $@ || echo '$(GIT_REV)' > $@
$(BUILD)/kernel/version.o: $(BUILD)/.git-rev
$(BUILD)/kernel/version.o: CFLAGS += -DLULL_GIT='"$(GIT_REV)"'
FORCE:

$(BUILD)/lull.elf: $(OBJS) linker.ld
	$(LD) $(LDFLAGS) -o $@ $(OBJS)

# For students: the whole kernel disassembled with its source, and the symbol table.
$(BUILD)/lull.asm: $(BUILD)/lull.elf
	$(OBJDUMP) -S $< > $@
$(BUILD)/lull.sym: $(BUILD)/lull.elf
	$(NM) -n $< > $@

iso: $(BUILD)/lull.iso
$(BUILD)/lull.iso: $(BUILD)/lull.elf boot/grub.cfg
	@rm -rf $(BUILD)/isodir
	@mkdir -p $(BUILD)/isodir/boot/grub
	cp $(BUILD)/lull.elf $(BUILD)/isodir/boot/lull.elf
	cp boot/grub.cfg $(BUILD)/isodir/boot/grub/grub.cfg
	grub-mkrescue -o $@ $(BUILD)/isodir 2> $(BUILD)/grub-mkrescue.log || \
	  { cat $(BUILD)/grub-mkrescue.log; exit 1; }

# QEMU command line shared by run and debug.  -no-reboot turns a triple
# fault into an exit instead of a silent reboot loop.  -rtc clock=vm: the
# CMOS clock counts on QEMU's virtual clock, as every other emulated timer
# does (it still starts at the host's date); by default it follows the
# host's wall clock, which a time daemon may slew (seen: 5000 ppm), and the
# self-test entry would report the RTC disagreeing with every counter.
QEMU_ACCEL := $(if $(filter kvm,$(ACCEL)),-accel kvm,-accel tcg)
QEMU_DISPLAY := $(if $(GUI),,-display none)
QEMU_COMMON := $(QEMU_ACCEL) -m 128 -no-reboot $(QEMU_DISPLAY) -rtc clock=vm \
               -device isa-debug-exit,iobase=0xf4,iosize=0x04 $(QEMU_EXTRA)

# The serial console on this terminal, multiplexed with QEMU's monitor
# (Ctrl-A C switches, Ctrl-A X quits); signal=off so Ctrl-C reaches lull.
QEMU_CONSOLE := -chardev stdio,id=console,mux=on,signal=off -serial chardev:console \
                -mon chardev=console

# UEFI=1: the same ISO on UEFI firmware (OVMF), in the 64-bit PC QEMU has
# it for: GRUB's x86_64-efi image boots the 32-bit kernel by Multiboot2.
# UEFI=32: on 32-bit UEFI firmware, as on tablets and the first Intel Macs:
# GRUB's i386-efi image.  Debian builds that OVMF only with Secure Boot,
# which needs SMM and its flash in two parts, the code read-only and a
# copy of the empty variable store (no keys enrolled: nothing is enforced).
OVMF_CODE   := /usr/share/OVMF/OVMF_CODE.fd
OVMF32_CODE := /usr/share/OVMF/OVMF32_CODE_4M.secboot.fd
OVMF32_VARS := /usr/share/OVMF/OVMF32_VARS_4M.fd
QEMU_UEFI32 := qemu-system-i386 -machine q35,smm=on -global driver=cfi.pflash01,property=secure,value=on \
               -drive if=pflash,format=raw,unit=0,readonly=on,file=$(OVMF32_CODE) \
               -drive if=pflash,format=raw,unit=1,file=$(BUILD)/ovmf32-vars.fd
QEMU_RUN := $(if $(filter 32,$(UEFI)),$(QEMU_UEFI32),\
            $(if $(UEFI),qemu-system-x86_64 -machine q35 -bios $(OVMF_CODE),$(QEMU)))

run: $(BUILD)/lull.iso
	@echo "lull: serial console on this terminal; Ctrl-A X quits QEMU, Ctrl-A C its monitor"
	$(if $(filter 32,$(UEFI)),@cp $(OVMF32_VARS) $(BUILD)/ovmf32-vars.fd)
	-$(QEMU_RUN) $(QEMU_COMMON) -cdrom $< $(QEMU_CONSOLE)

# gdb talks to QEMU over a Unix socket in the build directory: no TCP port
# to collide with another program or another user's QEMU.  GDBPORT=1234
# (any number) listens on that TCP port instead, for tools that want one.
comma      := ,
GDB_SOCK   := $(BUILD)/gdb.sock
GDB_TARGET := $(if $(GDBPORT),localhost:$(GDBPORT),$(GDB_SOCK))
GDB_QEMU   := $(if $(GDBPORT),-gdb tcp:127.0.0.1:$(GDBPORT),\
              -chardev socket$(comma)id=gdb$(comma)path=$(GDB_SOCK)$(comma)server=on$(comma)wait=off -gdb chardev:gdb)

debug: $(BUILD)/lull.elf $(BUILD)/lull.iso
	@printf 'file %s\ntarget remote %s\n' $(abspath $(BUILD)/lull.elf) $(GDB_TARGET) > .gdbinit
	@echo "lull: QEMU waits for gdb at $(GDB_TARGET). In another terminal, run:  gdb -x .gdbinit"
	@echo "      (or: gdb $(BUILD)/lull.elf -ex 'target remote $(GDB_TARGET)'); then 'break kmain', 'continue'"
	@rm -f $(GDB_SOCK)
	-$(QEMU) $(QEMU_COMMON) -cdrom $(BUILD)/lull.iso $(QEMU_CONSOLE) $(GDB_QEMU) -S

# ---------------------------------------------------------------- tests
UNIT_DIR := $(BUILD)/unit
UNIT_CFLAGS := -std=gnu11 -O1 -g -Wall -Wextra -Werror -Iinclude -DLULL_HOST \
               -DCONFIG_HZ=$(HZ) -fsanitize=address,undefined -fno-sanitize-recover=all -pthread
UNIT_TESTS := $(patsubst tests/unit/test_%.c,$(UNIT_DIR)/test_%,$(wildcard tests/unit/test_*.c))

# Each host test lists the portable sources it links in a line
#   // SOURCES: kernel/lib/format.c ...
# Every source is compiled once per sanitizer into an object under
# $(UNIT_DIR)/obj/ (its headers in the .d beside it, from -MMD), and each
# test links the objects it names: a source that twenty tests share is
# compiled once, and a change to one source (a lab's stub filled in)
# rebuilds one object and relinks.  (Only objects are linked: a tree built
# before this rule has .d files that name sources as prerequisites.)
# Every test links two more: a lab's stub may sit in any source
# (kernel/lib/lab.c), and any error message may name its code
# (kernel/lib/errno.c).
# Read once for every host test and fuzz harness (one process, not one per
# test: make runs dozens of times in make test), as words TEST:SOURCE.
UNIT_SOURCE_PAIRS := $(shell awk '/^\/\/ SOURCES:/ { for (i = 3; i <= NF; i++) \
                       printf "%s:%s ", FILENAME, $$i }' $(wildcard tests/unit/test_*.c tests/fuzz/fuzz_*.c))
unit_sources = $(patsubst $(1):%,%,$(filter $(1):%,$(UNIT_SOURCE_PAIRS)))
unit_objs = $(patsubst %.c,$(2)/%.o,$(1) $(call unit_sources,$(1)) kernel/lib/lab.c kernel/lib/errno.c)
UNIT_OBJ := $(UNIT_DIR)/obj
# Kept, not deleted as intermediates once the tests are linked (.PRECIOUS
# takes patterns, .SECONDARY does not): the next build relinks from them.
.PRECIOUS: $(UNIT_OBJ)/%.o $(UNIT_DIR)/tsan/obj/%.o
$(UNIT_OBJ)/%.o: %.c $(HZ_STAMP) | deps
	@mkdir -p $(@D)
	@$(HOSTCC) $(UNIT_CFLAGS) -MMD -MP -c -o $@ $<
.SECONDEXPANSION:
$(UNIT_TESTS): $(UNIT_DIR)/test_%: $$(call unit_objs,tests/unit/test_$$*.c,$(UNIT_OBJ)) | deps
	@echo "  HOSTCC  $@"
	@$(HOSTCC) $(UNIT_CFLAGS) -o $@ $(filter %.o,$^) -lcmocka -lm

# Host tests that run CPUs as POSIX threads say so in a line
#   // THREADS: ...
# and are built a second time under ThreadSanitizer (ASan and TSan cannot
# share a binary), from objects of their own, into $(UNIT_DIR)/tsan/;
# `make unit` runs both.  Any report fails the run (halt_on_error).
# (-Wno-tsan: TSan does not model a standalone __atomic_thread_fence, and
# gcc says so at each one; the handshakes built on them are checked by the
# tests' own outcomes, the locks and atomics by TSan.)
TSAN_CFLAGS := $(filter-out -fsanitize=address%,$(UNIT_CFLAGS)) -fsanitize=thread -Wno-tsan
TSAN_OBJ := $(UNIT_DIR)/tsan/obj
TSAN_TESTS := $(patsubst tests/unit/test_%.c,$(UNIT_DIR)/tsan/test_%,\
                $(shell grep -l '^// THREADS:' tests/unit/test_*.c))
$(TSAN_OBJ)/%.o: %.c $(HZ_STAMP) | deps
	@mkdir -p $(@D)
	@$(HOSTCC) $(TSAN_CFLAGS) -MMD -MP -c -o $@ $<
$(TSAN_TESTS): $(UNIT_DIR)/tsan/test_%: $$(call unit_objs,tests/unit/test_$$*.c,$(TSAN_OBJ)) | deps
	@echo "  TSAN    $@"
	@$(HOSTCC) $(TSAN_CFLAGS) -o $@ $(filter %.o,$^) -lcmocka -lm

# The bench's timer-core program is built (not run) with the unit tests, so
# a change to the timer core's interface cannot leave it unbuildable.
unit: $(UNIT_TESTS) $(TSAN_TESTS) $(BUILD)/timer_bench
	@set -e; for t in $(UNIT_TESTS); do echo "== $$t"; $$t; done
	@set -e; for t in $(TSAN_TESTS); do echo "== $$t (ThreadSanitizer)"; \
	  TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 $$t; done

# The system tests (tests/system, on the VM library tests/lullvm) run on
# every core (pytest-xdist: TEST_JOBS workers).  The Linux series' tests
# (marked linux, tests/system/test_linux.py) need `make linux` first, which
# runs only when PYTEST_ARGS leaves one of them selected.  One test:
#   make system PYTEST_ARGS="-k test_dyntick_skip_limit_and_counts"
TEST_JOBS ?= $(shell nproc)
PYTEST := $(PYTHON) -m pytest -q -p no:cacheprovider
system: $(BUILD)/lull.elf $(BUILD)/lull.iso
	@if $(PYTEST) --collect-only -m linux tests/system $(PYTEST_ARGS) 2>/dev/null | grep -q '::'; then \
	  $(MAKE) --no-print-directory linux; fi
	$(PYTEST) -n $(TEST_JOBS) tests/system $(PYTEST_ARGS)

# The tests that boot nothing: the VM library's parsers, the tree's layout,
# the install lists.
meta:
	$(PYTEST) tests/meta $(PYTEST_ARGS)

# Every part of the suite, phase by phase, with each phase's time at the end
# (tools/run-tests; tests/README.md): the Linux series builds beside the
# host tests, the short fuzz run, the tests that boot nothing (tests/meta),
# the system tests and their SMP repeats; then the series' boot tests.
# (The kernel and the ISO are its first phase, so that the Linux build can
# start before them.)
test: | deps
	@BUILD=$(BUILD) PYTHON=$(PYTHON) TEST_JOBS=$(TEST_JOBS) tools/run-tests

# ---------------------------------------------------------------- fuzz
# One libFuzzer harness per parser that reads what lull does not control:
# tests/fuzz/fuzz_<target>.c, with the portable sources it links in a
# `// SOURCES:` line as the unit tests have.  Each runs for FUZZ_SECONDS
# on a copy of its committed seeds (tests/fuzz/corpus/<target>/, copied to
# $(BUILD)/fuzz/corpus/<target>/, where what it finds accumulates from run
# to run without touching the tree), after replaying every input that once
# crashed it (tests/fuzz/regress/<target>/).  A crash stops make with the
# log's tail; the input is saved as $(BUILD)/fuzz/crash-<target>-*.
FUZZCC       ?= clang-14
FUZZ_SECONDS ?= 60
FUZZ_SHORT_SECONDS := 3
FUZZ_DIR     := $(BUILD)/fuzz
FUZZ_CFLAGS  := -std=gnu11 -O1 -g -Wall -Wextra -Werror -Iinclude -Itests/fuzz -DLULL_HOST \
                -DCONFIG_HZ=$(HZ) -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_TARGETS := $(patsubst tests/fuzz/fuzz_%.c,%,$(filter-out tests/fuzz/fuzz_host.c,$(wildcard tests/fuzz/fuzz_*.c)))

$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_host.c tests/fuzz/fuzz_host.h \
                    $$(call unit_sources,tests/fuzz/fuzz_$$*.c) $(HZ_STAMP) | deps
	@mkdir -p $(FUZZ_DIR)
	@echo "  FUZZCC  $@"
	@$(FUZZCC) $(FUZZ_CFLAGS) -o $@ $< tests/fuzz/fuzz_host.c $$(sed -n 's,^// SOURCES: *,,p' $<)

fuzz: $(patsubst %,$(FUZZ_DIR)/fuzz_%,$(FUZZ_TARGETS))
	@set -e; for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(FUZZ_DIR)/corpus/$$t; cp tests/fuzz/corpus/$$t/* $(FUZZ_DIR)/corpus/$$t/; \
	  regress=; if [ -d tests/fuzz/regress/$$t ]; then regress=tests/fuzz/regress/$$t; fi; \
	  echo "== fuzz $$t: $(FUZZ_SECONDS) s$${regress:+, after replaying $$regress}"; \
	  $(FUZZ_DIR)/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -print_final_stats=0 \
	    -artifact_prefix=$(FUZZ_DIR)/crash-$$t- $(FUZZ_DIR)/corpus/$$t $$regress \
	    > $(FUZZ_DIR)/$$t.log 2>&1 || \
	    { tail -40 $(FUZZ_DIR)/$$t.log; echo "fuzz $$t: failed; log $(FUZZ_DIR)/$$t.log"; exit 1; }; \
	  grep -h '^#[0-9]*.*DONE' $(FUZZ_DIR)/$$t.log | tail -1; \
	done

# The run `make test` does: every harness for $(FUZZ_SHORT_SECONDS) s.
fuzz-short:
	@$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=$(FUZZ_SHORT_SECONDS)

# The system tests whose subject is the tick and the timers (marked
# smp_again) again on 4 CPUs: every boot that names no CPU count
# gets -smp N (LULL_SMP, tests/lullvm/qemu.py).  `make test` runs it; the
# SMP tests themselves run on 1, 2, 4 and 8 CPUs in any case (docs/smp.md).
test-smp: all iso
	LULL_SMP=4 $(PYTEST) -n $(TEST_JOBS) -m smp_again tests/system $(PYTEST_ARGS)

# ---------------------------------------------------------------- bench
# Results in $(BUILD)/bench/: results.md, results.csv, *.png, logs/; the
# Linux reference kernels are fetched into $(BUILD)/bench/linux/.
# The bench's packages first (valgrind for bench-timers' instruction counts).
bench: $(BUILD)/lull.elf $(BUILD)/lull.iso
	@tools/install-deps bench
	$(MAKE) --no-print-directory bench-timers
	BUILD=$(BUILD) ACCEL=$(ACCEL) $(PYTHON) bench/bench.py $(if $(QUICK),--quick)

# The timer core on the host against a binary-heap baseline (bench/timer_bench.c):
# wall-clock ns/op, then instructions, simulated L1 misses and branch
# mispredicts per op of the same phases under callgrind --cache-sim=yes
# --branch-sim=yes (skipped with a message without valgrind), and what the
# timeout workload did, counted (heap swaps, timers pending, cancels and
# re-arms).  Also writes $(BUILD)/bench/timer-core.csv and one callgrind dump
# per phase ($(BUILD)/bench/timer-core.callgrind.N, for callgrind_annotate).
# (Rebuilt when any header or HZ changes: `make test` builds it so it cannot rot.)
TIMER_BENCH_SRCS := bench/timer_bench.c kernel/time/timer.c kernel/time/timer_bucket.c \
                    kernel/time/timer_cascade.c kernel/time/timer_expiry.c kernel/time/timer_base.c \
                    kernel/time/timer_level.c kernel/time/slack.c kernel/time/jiffies.c kernel/time/percpu.c tests/unit/host_arch.c
$(BUILD)/timer_bench: $(TIMER_BENCH_SRCS) $(wildcard kernel/time/*.h) \
                      $(shell find include -name '*.h') $(HZ_STAMP) | deps
	@mkdir -p $(BUILD)
	$(HOSTCC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -Iinclude -DLULL_HOST -DCONFIG_HZ=$(HZ) \
	  -o $@ $(TIMER_BENCH_SRCS)
bench-timers: $(BUILD)/timer_bench
	@mkdir -p $(BUILD)/bench
	$(BUILD)/timer_bench -o $(BUILD)/bench $(if $(QUICK),10) | tee $(BUILD)/bench/timer-core.txt

# ---------------------------------------------------------------- soak
# A day of guest time in each tick mode under -icount sleep=off, with timers
# always armed and stress bursts, checked as it goes (tools/soak.py; about
# 17 minutes of host time, 13.5 of them the periodic mode's 21.6 million
# ticks; docs/robustness.md).  Not part of `make test`, which runs a one-hour version
# (tests/system/test_soak.py).  Summary and logs in $(BUILD)/soak/.
soak: $(BUILD)/lull.elf
	BUILD=$(BUILD) $(PYTHON) tools/soak.py $(SOAK_ARGS)

# ---------------------------------------------------------------- linux
# Debian's Linux 6.1 source with the series in linux/ applied, tinyconfig
# plus linux/config-fragment, built for i386 into $(BUILD)/linux/bzImage
# (tools/linux-build; a second run rebuilds only what changed).  Boot it
# with tools/linux-boot.  `make system` (so `make test`) runs it first and
# boots the result (tests/system/test_linux.py).
linux: | deps
	BUILD=$(BUILD) $(if $(JOBS),JOBS=$(JOBS)) tools/linux-build

# ---------------------------------------------------------------- labs
# A lab is this tree with one lab's marked regions taken out (tools/lab.py,
# docs/labs/README.md); `make grade` scores it (tools/grade.py, the tests in
# tests/labs/).  `make test` checks both ways (tests/system/test_labs.py).
lab:
	@if [ -z "$(LAB)" ] || [ -z "$(DIR)" ]; then \
	  echo "usage: make lab LAB=NAME DIR=PATH [GIT=1]   (labs: $$($(PYTHON) tools/lab.py names))"; exit 2; fi
	@$(PYTHON) tools/lab.py make $(LAB) $(DIR) $(if $(GIT),--git)

grade: all
	@$(PYTHON) tools/grade.py $(LAB)

clean:
	rm -rf $(BUILD) .gdbinit

# (Not under $(BUILD)/linux: the Linux tree has files and directories named *.d.)
-include $(shell find $(BUILD) -path $(BUILD)/linux -prune -o -name '*.d' -print 2>/dev/null)
