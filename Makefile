# littlebig - top-level Makefile. Everything it builds goes under build/.
#   make          kernel Image, device trees, host tools
#   make run      boot the big.LITTLE QEMU machine with the console on this terminal
#                 (SPEED=exact: each CPU's own instructions at its speed, a QEMU plugin)
#                 (-icount: the numbers of make test; REALTIME=1: idle time at wall speed)
#   make test     make lint + host unit tests + fuzz smoke + self-tests in every QEMU configuration
#   make lint     clang-format, 100 columns, shellcheck, pyflakes, the arch fence (tools/lint.py)
#   make format   reformat every C file and header that make lint checks, in place
#   V=1           full commands (default: one "  CC  FILE" line per step)
#   make fuzz     each libFuzzer target for FUZZ_TIME=60 s
#   make debug    QEMU halted with a gdb stub
#   make trace E=1  experiment 1 traced, off/on halves side by side (build/trace/)
#   make readme-picture  the README's timeline, docs/img/trace-demo.png (make trace's demo)
#   make run LOG=FILE  the console also kept in FILE; make trace-log LOG=FILE draws
#                 each `trace dump` in it as FILE-N.png (and FILE-N.txt) beside FILE
#   make labs     boot each lab's session (docs/labs/) and rewrite its excerpts and
#                 pictures from it; make test fails when a committed excerpt or a
#                 picture's data (docs/labs/img/*.csv) differs from a fresh run
#   make bench B=pipe,n=20000 / make experiment E=1 / make experiments  (kernel/bench/;
#                 a bad B= or E= is refused, with what is valid, before anything boots)
#   make profile B=pipe,n=20000  the benchmark's instructions per kernel function (QEMU plugin)
#   make compare  Debian's Linux 6.1 and this kernel, same machine and workloads, side by side
#                 (LINUX=6.12: Debian's 6.12 beside this kernel's sched=eevdf)
#   make linux-source  the Linux source "Linux 6.1" means (Debian 12's linux-source-6.1,
#                 6.1.192-3, the kernel make compare boots), unpacked for reading under
#                 build/linux-source/ (docs/deviations.md, "The reference")
#   DEBUG=1       the debug build (lock assertions, lock order, run-queue invariant
#                 checks: include/lockdep.h) in build/debug/; `make test` builds both
#   make fresh-check  make test as a newcomer: a fresh clone of HEAD in a bare Debian 12
#                 root (debootstrap, build/fresh/), as root; after any change to the
#                 dependencies, these top targets or tools/deps.sh (tools/fresh_check.sh)
# Missing tools are installed by tools/deps.sh (Debian packages), which says so: once,
# before anything runs in parallel, one stamp (build/.deps-ok) whatever DEBUG is.

# DEBUG=1: the same kernel with -DCONFIG_DEBUG_SCHED, built apart in build/debug/
# (self-tests boot it; benchmarks and experiments measure the release build/Image).
ifeq ($(DEBUG),1)
BUILD   := build/debug
KDEBUG  := -DCONFIG_DEBUG_SCHED
else
BUILD   := build
endif
CROSS   ?= aarch64-linux-gnu-
CC      := $(CROSS)gcc
LD      := $(CROSS)ld
OBJCOPY := $(CROSS)objcopy
HOSTCC  ?= gcc
FUZZCC  ?= clang
PYTHON  ?= python3
QEMU    ?= qemu-system-aarch64
# One stamp for both builds: build/debug/ with a stamp of its own meant two deps.sh (two
# apt-get) at once under make test's -j. make test checks the tools first, then tells its
# parallel sub-makes (DEPS_CHECKED=1, passed on to theirs) that there is nothing to wait for.
ifeq ($(DEPS_CHECKED),1)
DEPS    :=
else
DEPS    := build/.deps-ok
endif

# Quiet by default, as Kbuild: one "  CC      kernel/sched/fair.c" line per step;
# V=1 prints the full commands instead.
ifeq ($(V),1)
Q :=
msg =
else
Q := @
msg = @printf '  %-7s %s\n' '$(1)' '$(2)';
endif

# ---- kernel -----------------------------------------------------------------
# ARMv8.0 (Cortex-A53 has no LSE atomics), no FP/SIMD in the kernel, no
# unaligned accesses (they fault with the MMU off), A53 errata 835769/843419.
KCFLAGS := -std=gnu11 -O2 -g -ffreestanding -fno-builtin -nostdlib -fpie \
	-march=armv8-a -mno-outline-atomics -mgeneral-regs-only -mstrict-align \
	-mfix-cortex-a53-835769 -fno-omit-frame-pointer -fstack-protector-strong \
	-fno-common -fno-tree-loop-distribute-patterns -Wall -Wextra -Werror -Wno-unused-parameter \
	-include include/compiler.h -Iinclude -I$(BUILD)/gen -MMD -MP $(KDEBUG)
KLDFLAGS := -T linker.ld -pie -z norelro -z noexecstack --no-dynamic-linker \
	--fix-cortex-a53-843419 --no-warn-rwx-segments -Map=$(BUILD)/kernel.map --hash-style=sysv

KSRC := $(wildcard arch/arm64/*.S arch/arm64/*.c drivers/*.c kernel/*.c kernel/sched/*.c \
	kernel/shell/*.c kernel/mm/*.c \
	kernel/bench/*.c lib/*.c tests/kernel/*.c)
KOBJ := $(patsubst %,$(BUILD)/k/%.o,$(KSRC))
# The rt-app workload files built into the image (kernel/bench/workloads/*.json).
WORKLOADS := $(wildcard kernel/bench/workloads/*.json)
KOBJ += $(BUILD)/k/gen/workloads.o
GENHDR := $(BUILD)/gen/pelt_table.h

all: $(BUILD)/Image dtbs host

build/.deps-ok: tools/deps.sh
	@bash tools/deps.sh
	@mkdir -p $(@D) && touch $@

# Only arch/ and drivers/ see the arm64 headers (the portable core sees include/).
$(BUILD)/k/arch/%: KCFLAGS += -Iarch/arm64/include
$(BUILD)/k/drivers/%: KCFLAGS += -Iarch/arm64/include
$(BUILD)/k/tests/kernel/%: KCFLAGS += -Iarch/arm64/include	# tests of the arch itself

# Objects depend on the Makefile too: a change of flags (KCFLAGS) rebuilds them.
$(BUILD)/k/%.c.o: %.c $(GENHDR) Makefile | $(DEPS)
	@mkdir -p $(@D)
	$(call msg,CC,$<)$(CC) $(KCFLAGS) -c $< -o $@
$(BUILD)/k/%.S.o: %.S Makefile | $(DEPS)
	@mkdir -p $(@D)
	$(call msg,AS,$<)$(CC) $(KCFLAGS) -D__ASSEMBLY__ -c $< -o $@

# rt-app's JSON tokenizer is Debian's header-only jsmn (libjsmn-dev): the kernel
# build sees that one header only, through a directory of its own.
$(BUILD)/k/kernel/bench/rtapp_parse.c.o: KCFLAGS += -isystem $(BUILD)/jsmn
$(BUILD)/k/kernel/bench/rtapp_parse.c.o: $(BUILD)/jsmn/jsmn.h
$(BUILD)/jsmn/jsmn.h: | $(DEPS)
	@mkdir -p $(@D)
	$(Q)ln -sf /usr/include/jsmn.h $@

# Two links for a symbol table (kernel/ksyms.c): the first, with an empty
# table, gives the addresses; tools/gen_ksyms.py turns its text symbols into
# .rodata for the second. Data only, so text cannot move: checked after the link.
$(BUILD)/kernel.pass1.elf: $(KOBJ) $(BUILD)/k/gen/ksyms-empty.o linker.ld
	$(call msg,LD,$@)$(LD) $(KLDFLAGS) $(KOBJ) $(BUILD)/k/gen/ksyms-empty.o -o $@
$(BUILD)/gen/ksyms.S: $(BUILD)/kernel.pass1.elf tools/gen_ksyms.py
	$(call msg,GEN,$@)$(CROSS)nm -n $< | $(PYTHON) tools/gen_ksyms.py > $@
$(BUILD)/gen/ksyms-empty.S: tools/gen_ksyms.py | $(DEPS)
	@mkdir -p $(@D)
	$(call msg,GEN,$@)$(PYTHON) tools/gen_ksyms.py < /dev/null > $@
$(BUILD)/gen/workloads.S: tools/gen_workloads.py $(WORKLOADS) | $(DEPS)
	@mkdir -p $(@D)
	$(call msg,GEN,$@)$(PYTHON) tools/gen_workloads.py $(WORKLOADS) > $@
$(BUILD)/k/gen/workloads.o: $(WORKLOADS)	# .incbin: the JSON is an input too
$(BUILD)/k/gen/%.o: $(BUILD)/gen/%.S
	@mkdir -p $(@D)
	$(call msg,AS,$<)$(CC) $(KCFLAGS) -D__ASSEMBLY__ -c $< -o $@
$(BUILD)/kernel.elf: $(KOBJ) $(BUILD)/k/gen/ksyms.o linker.ld
	$(call msg,LD,$@)$(LD) $(KLDFLAGS) $(KOBJ) $(BUILD)/k/gen/ksyms.o -o $@
	$(Q)$(CROSS)nm -n $@ | $(PYTHON) tools/gen_ksyms.py | cmp -s - $(BUILD)/gen/ksyms.S || \
		{ echo "ksyms: text moved between the two links"; rm -f $@; false; }
$(BUILD)/Image: $(BUILD)/kernel.elf
	$(call msg,OBJCOPY,$@)$(OBJCOPY) -O binary $< $@

# Generated tables say which tool made them (docs/style.md habit 5).
$(BUILD)/gen/pelt_table.h: tools/gen_pelt_table.py | $(DEPS)
	@mkdir -p $(@D)
	$(call msg,GEN,$@)$(PYTHON) $< > $@

# ---- device trees -------------------------------------------------------------
# dts/*.dts go through cpp (for the macros that generate repeated cpu nodes).
DTS  := $(wildcard dts/*.dts)
DTBS := $(patsubst dts/%.dts,$(BUILD)/dts/%.dtb,$(DTS))
dtbs: $(DTBS)
$(BUILD)/dts/%.dtb: dts/%.dts $(wildcard dts/*.dtsi dts/*.h) | $(DEPS)
	@mkdir -p $(@D)
	$(call msg,DTC,$<)cpp -nostdinc -Idts -undef -D__DTS__ -x assembler-with-cpp -P $< | \
		dtc -q -I dts -O dtb -o $@ -
# Small broken or unusual trees, inputs of tests/host/test_topology.c.
TEST_DTBS := $(patsubst tests/dts/%.dts,$(BUILD)/tests/dts/%.dtb,$(wildcard tests/dts/*.dts))
dtbs: $(TEST_DTBS)
$(BUILD)/tests/dts/%.dtb: tests/dts/%.dts $(wildcard tests/dts/*.h dts/*.h) | $(DEPS)
	@mkdir -p $(@D)
	$(call msg,DTC,$<)cpp -nostdinc -Idts -undef -D__DTS__ -x assembler-with-cpp -P $< | \
		dtc -q -I dts -O dtb -o $@ -

# ---- firmware boots and the HiKey960 boot image ------------------------------
# U-Boot's environment for the make test boots (tests/fw/uboot/NAME.env, one
# VAR=value a line) as QEMU virt's second flash bank, where Debian's
# qemu_arm64 U-Boot reads it: a 256 KiB environment at the start of 64 MiB.
UBOOT_ENVS := $(patsubst tests/fw/uboot/%.env,$(BUILD)/fw/uboot-%.flash,\
	$(wildcard tests/fw/uboot/*.env))
firmware: $(UBOOT_ENVS)
$(BUILD)/fw/uboot-%.flash: tests/fw/uboot/%.env | $(DEPS)
	@mkdir -p $(@D)
	$(call msg,MKENV,$@)mkenvimage -s 0x40000 -o $@ $<
	$(Q)truncate -s 64M $@

# Pre-boot shims (tests/fw/bootshim/shim.S): QEMU boots one as its -kernel and it
# enters build/Image with EL2 registers in a junk state; spin-table.bin also
# parks the other CPUs in a spin-table holding pen.
SHIMS := $(addprefix $(BUILD)/fw/bootshim-,el2-junk.bin spin-table.bin)
firmware: $(SHIMS)
$(BUILD)/fw/bootshim-spin-table.elf: SHIM_DEFS := -DSPIN_TABLE
$(BUILD)/fw/bootshim-%.elf: tests/fw/bootshim/shim.S | $(DEPS)
	@mkdir -p $(@D)
	$(call msg,AS,$<)$(CC) -nostdlib -static -no-pie -Wl,-Ttext=0 -Wl,--build-id=none \
		$(SHIM_DEFS) $< -o $@
$(BUILD)/fw/bootshim-%.bin: $(BUILD)/fw/bootshim-%.elf
	$(call msg,OBJCOPY,$@)$(OBJCOPY) -O binary $< $@
# Kept (gdb wants them), and so that make does not print "rm ..." after the
# test summary: `make test`'s last line must be "N passed, N failed".
.SECONDARY: $(SHIMS:.bin=.elf)

# make hikey960: what a HiKey960 owner flashes (docs/hikey960.md). An Android
# boot image, header v0: the Image as the kernel (an EFI application: the
# stock UEFI starts it with LoadImage), the HiKey960 tree as the "second"
# stage (used when the firmware installs no tree of its own), the command
# line. Base and offsets are the board's usual ones (sources in the doc).
HIKEY960_CMDLINE ?= selftest
HIKEY960_BOOTIMG_ARGS := --base 0x0 --kernel_offset 0x00080000 --ramdisk_offset 0x07c00000 \
	--tags_offset 0x07a00000 --second_offset 0x00f00000 --pagesize 2048 --header_version 0
HIKEY960 := $(BUILD)/hikey960
hikey960: $(HIKEY960)/boot.img $(HIKEY960)/hi3660-hikey960.dtb $(HIKEY960)/Image
$(HIKEY960)/boot.img: $(BUILD)/Image $(BUILD)/dts/hi3660-hikey960.dtb | $(DEPS)
	@mkdir -p $(@D)
	$(call msg,MKBOOT,$@)mkbootimg --kernel $(BUILD)/Image \
		--second $(BUILD)/dts/hi3660-hikey960.dtb \
		$(HIKEY960_BOOTIMG_ARGS) --cmdline "$(HIKEY960_CMDLINE)" -o $@
$(HIKEY960)/%: $(BUILD)/dts/%
	@mkdir -p $(@D)
	$(call msg,CP,$@)cp $< $@
$(HIKEY960)/Image: $(BUILD)/Image
	@mkdir -p $(@D)
	$(call msg,CP,$@)cp $< $@

# ---- host: unit tests, tools, fuzzers -----------------------------------------
# The portable code that host tests link: pure files only (no arch, no drivers).
HOST_PORTABLE := $(wildcard lib/cpumask.c lib/dtb.c lib/printf.c lib/rbtree.c lib/strlcpy.c \
	kernel/ktest.c \
	kernel/sched/pelt.c kernel/sched/cpufreq_math.c kernel/sched/topology.c \
	kernel/sched/topology_print.c \
	kernel/sched/cacheinfo.c kernel/sched/cache.c kernel/shell/shell_parse.c \
	kernel/bench/rtapp_parse.c kernel/bench/eas_model.c kernel/bench/bench_spec.c \
	kernel/initrd.c)
HOSTCFLAGS := -std=gnu11 -O1 -g -Wall -Wextra -Werror -Wno-unused-parameter \
	-Iinclude -I$(BUILD)/gen -DHOST_BUILD -fno-omit-frame-pointer
SANITIZE := -fsanitize=address,undefined -fno-sanitize-recover=all
HOST_TESTS := $(wildcard tests/host/*.c)
# The scheduler itself and the portable kernel files it calls, on tests/host/fake_arch.c
# (test_sched.c); only unittests links them: they need an arch. Built with the debug
# checks (include/lockdep.h): a report fails the case (fake_arch.c).
HOST_SCHED := $(addprefix kernel/sched/,core.c syscalls.c cpu_work.c fair.c fair_select.c \
	fair_energy.c fair_pelt.c fair_group.c balance.c nohz.c rt.c idle.c deadline.c features.c \
	stats.c cpuidle.c energy.c speed.c uclamp.c group.c why.c native.c cpupri.c cpudl.c \
	deadline_push.c push_pull.c fair_eevdf.c) \
	kernel/arch_topology.c kernel/smp.c kernel/timer.c kernel/wait.c kernel/mutex.c \
	kernel/bootargs.c kernel/lockdep.c
# Drivers whose protocol half is pure (its MMIO through accessors): host-tested on a model.
HOST_DRIVERS := drivers/hi3660_stub_clk.c

host: $(BUILD)/host/unittests $(BUILD)/host/topology $(BUILD)/host/vcpu_insns.so \
	$(BUILD)/host/benchspec

$(BUILD)/host/unittests: $(HOST_PORTABLE) $(HOST_SCHED) $(HOST_DRIVERS) $(HOST_TESTS) $(GENHDR) \
		$(wildcard include/*.h kernel/sched/*.h tests/host/*.h drivers/*.h) | $(DEPS)
	@mkdir -p $(@D)
	$(call msg,HOSTCC,$@)$(HOSTCC) $(HOSTCFLAGS) -DCONFIG_DEBUG_SCHED $(SANITIZE) \
		$(HOST_PORTABLE) $(HOST_SCHED) $(HOST_DRIVERS) \
		$(HOST_TESTS) -lfdt -o $@

$(BUILD)/host/topology: tools/host_topology.c $(HOST_PORTABLE) $(GENHDR) $(wildcard include/*.h) \
		| $(DEPS)
	@mkdir -p $(@D)
	$(call msg,HOSTCC,$@)$(HOSTCC) $(HOSTCFLAGS) tools/host_topology.c \
		$(filter-out kernel/ktest.c,$(HOST_PORTABLE)) \
		tests/host/fake_printk.c -o $@

# The kernel's check of a benchmark or experiment spec, for make bench/profile/experiment.
$(BUILD)/host/benchspec: tools/host_benchspec.c kernel/bench/bench_spec.c tests/host/fake_printk.c \
		$(wildcard include/*.h) | $(DEPS)
	@mkdir -p $(@D)
	$(call msg,HOSTCC,$@)$(HOSTCC) $(HOSTCFLAGS) tools/host_benchspec.c \
		kernel/bench/bench_spec.c tests/host/fake_printk.c -o $@

FUZZERS := $(patsubst tests/fuzz/%.c,$(BUILD)/host/%,$(wildcard tests/fuzz/fuzz_*.c))
fuzzers: $(FUZZERS)
$(BUILD)/host/fuzz_%: tests/fuzz/fuzz_%.c $(HOST_PORTABLE) $(GENHDR) $(wildcard include/*.h) \
		| $(DEPS)
	@mkdir -p $(@D)
	$(call msg,FUZZCC,$@)$(FUZZCC) $(HOSTCFLAGS) -fsanitize=fuzzer,address,undefined $< \
		$(filter-out kernel/ktest.c,$(HOST_PORTABLE)) tests/host/fake_printk.c -o $@

# ---- running ----------------------------------------------------------------
MACHINE ?= qemu-bl44
QEMU_BASE := -M virt -cpu cortex-a53 -smp 8 -m 512M -nographic -no-reboot
# make run: emulated time from the instruction count (-icount shift=0,sleep=off, as
# make test), so a host busy with other work slows the machine down but changes no
# number (without -icount a vCPU the host paused counted the pause as its time).
# Idle stretches are skipped, so `sleep` and `top -d` run faster than the wall
# clock. REALTIME=1: sleep=on, emulated time follows the host clock while every vCPU
# idles - but work and stalls are wfi to a deadline here, so throughput then
# depends on the host (E1 short ops/sec 150-175 / 1422-4108 on a loaded host, 262 /
# 312 with sleep=off every time).
QEMU_RUN := $(QEMU_BASE) -icount shift=0,sleep=$(if $(REALTIME),on,off)
# LOG=FILE: the console is also written to FILE (tee), for make trace-log.
# Targets that run tools also want the stamp, as their Image may be there already.
# SPEED=exact: each CPU's own instructions at its speed (speed=exact, the QEMU plugin
# tools/qemu/vcpu_insns.c), the clock 4 times slower than QEMU's (speed_dilate=4) so that
# R is 4 times larger (docs/design.md, the emulated machine).
RUN_EXACT := $(if $(filter exact,$(SPEED)),-plugin $(BUILD)/host/vcpu_insns.so \
	-append "speed=exact speed_dilate=4")
run: $(BUILD)/Image $(BUILD)/dts/$(MACHINE).dtb $(if $(RUN_EXACT),$(BUILD)/host/vcpu_insns.so) \
		| $(DEPS)
	@echo "Booting $(MACHINE) (Ctrl-A X quits QEMU)$(if $(LOG),; console kept in $(LOG))"
	$(QEMU) $(QEMU_RUN) -kernel $(BUILD)/Image -dtb $(BUILD)/dts/$(MACHINE).dtb $(RUN_EXACT) \
		$(QEMU_EXTRA) $(if $(LOG),| tee $(LOG))

# make trace-log LOG=FILE: each `trace dump` in a console log (make run LOG=FILE)
# -> FILE's base name -N.txt (ftrace text) and -N.png (the timeline), beside FILE.
trace-log: | $(DEPS)
	@test -n "$(LOG)" || { echo "usage: make trace-log LOG=FILE (from make run LOG=FILE)"; \
		false; }
	/usr/bin/python3 tools/trace.py log $(LOG)

# make readme-picture: the README's picture is make trace's demo (MISFIT on), redrawn from
# a fresh run and copied into docs/img/ (commit it when it changed).
readme-picture: | $(DEPS)
	@$(MAKE) --no-print-directory trace E=
	cp $(BUILD)/trace/demo-on.png docs/img/trace-demo.png

debug: $(BUILD)/Image $(BUILD)/dts/$(MACHINE).dtb | $(DEPS)
	@echo "In another terminal (QEMU -kernel puts the Image at RAM + 2 MiB = 0x40200000," \
		"and the"
	@echo "kernel, linked at 0, runs where it is loaded):"
	@echo "  gdb-multiarch -ex 'add-symbol-file $(BUILD)/kernel.elf -o 0x40200000'" \
		"-ex 'target remote :1234'"
	$(QEMU) $(QEMU_BASE) -kernel $(BUILD)/Image -dtb $(BUILD)/dts/$(MACHINE).dtb -S -s

# make trace E=N: experiment N, shortened, on its first machine under -icount
# with each off/on half traced (experiment=N,short,trace; TRACE_ARGS=,n=2000
# adds to the spec): build/trace/eN-MACHINE.log (serial), one .txt per half
# (ftrace text), eN-MACHINE.png (the halves side by side, one time scale).
# make trace: the built-in demo typed into the shell, MISFIT on and off,
# build/trace/demo-{on,off}.{log,txt,png}. tools/trace.py; matplotlib is
# Debian's, hence /usr/bin/python3.
TRACE_MACHINE = $(firstword $(EXPERIMENT_MACHINES_$(E)))
trace: $(BUILD)/Image dtbs | $(DEPS)
ifeq ($(E),)
	/usr/bin/python3 tools/trace.py record $(BUILD)/trace --build $(BUILD) --qemu "$(QEMU)"
else
	@test -n "$(TRACE_MACHINE)" || \
		{ echo "trace: no experiment E$(E) (EXPERIMENTS: $(EXPERIMENTS))"; false; }
	@mkdir -p $(BUILD)/trace
	$(QEMU) $(QEMU_ICOUNT) -kernel $(BUILD)/Image -dtb $(BUILD)/dts/$(TRACE_MACHINE).dtb \
		-append "experiment=$(E),short,trace$(TRACE_ARGS)" < /dev/null \
		> $(BUILD)/trace/e$(E)-$(TRACE_MACHINE).log
	/usr/bin/python3 tools/trace.py halves $(E) $(BUILD)/trace/e$(E)-$(TRACE_MACHINE).log \
		$(BUILD)/trace --name e$(E)-$(TRACE_MACHINE) --machine $(TRACE_MACHINE)
endif

# make bench B=pipe,n=20000 [MACHINE=...]: one benchmark (include/bench.h), then power off.
# make experiment E=1: experiment E on each of its machines (kernel/bench/experiments.c),
# under -icount for repeatable emulated time. make experiments: all that exist.
B ?= pipe
EXPERIMENT_MACHINES_1 := qemu-bl44 qemu-sym8
# E2 and E3 were measured on symmetric desktops (one LLC): qemu-sym8. E4: the
# Pixel 3 shape (4+4 in one MC domain) and the two-cluster 4+4 with a DIE level.
# E5: the post's board is a symmetric 8x A53 with one frequency domain; qemu-sym8 is that
# shape with HiKey960's A53 OPPs (qemu-bl44's CPU5 would be a big core of a 4-CPU domain).
EXPERIMENT_MACHINES_2 := qemu-sym8
EXPERIMENT_MACHINES_3 := qemu-sym8
EXPERIMENT_MACHINES_4 := qemu-bl44-1c qemu-bl44
EXPERIMENT_MACHINES_5 := qemu-sym8
# E6: EAS on the HiKey960's shape (two clusters, its EM).
EXPERIMENT_MACHINES_6 := qemu-bl44
EXPERIMENTS := 1 2 3 4 5 6
QEMU_ICOUNT := $(QEMU_BASE) -icount shift=0,sleep=off
# A bad B= or E= is refused, with what is valid, before anything is built or booted: the
# kernel's own check (kernel/bench/bench_spec.c) on the host; E= must also have machines.
BENCHSPEC := $(BUILD)/host/benchspec
check-bench-spec: $(BENCHSPEC)
	@$(BENCHSPEC) bench "$(B)"
check-experiment-spec: $(BENCHSPEC)
	@test -n "$(EXPERIMENT_MACHINES_$(EN))" || { echo "make experiment: no experiment" \
		"E=$(E) (E is one of: $(EXPERIMENTS); flags after a comma, as E=1,short;" \
		"docs/experiments.md); nothing booted"; false; }
	@$(BENCHSPEC) experiment "$(or $(E),1)"
bench: check-bench-spec $(BUILD)/Image $(BUILD)/dts/$(MACHINE).dtb | $(DEPS)
	$(QEMU) $(QEMU_ICOUNT) -kernel $(BUILD)/Image -dtb $(BUILD)/dts/$(MACHINE).dtb \
		-append "bench=$(B)"
# make profile B=pipe,n=20000 [MACHINE=...] [APPEND=speed=work]: the benchmark under -icount
# with the TCG plugin tools/profile/tbcount.c; prints its instructions per kernel function,
# in all and per operation (tools/insn_profile.py; docs/performance.md). Emulated time is
# make bench's.
$(BUILD)/host/tbcount.so: tools/profile/tbcount.c | $(DEPS)
	@mkdir -p $(@D)
	$(call msg,HOSTCC,$@)$(HOSTCC) -O2 -Wall -Wextra -Werror -shared -fPIC -pthread \
		-fvisibility=hidden $< -o $@
# speed=exact's QEMU plugin (tools/qemu/vcpu_insns.c): each vCPU's own instruction count
# in a page of guest memory; make run SPEED=exact and the speed_shared runs load it.
$(BUILD)/host/vcpu_insns.so: tools/qemu/vcpu_insns.c | $(DEPS)
	@mkdir -p $(@D)
	$(call msg,HOSTCC,$@)$(HOSTCC) -O2 -Wall -Wextra -Werror -shared -fPIC \
		-fvisibility=hidden $< -o $@
# Issue 26's lead 2 (a prototype, docs/experiments.md "lead 2"): a plugin for QEMU >= 9
# (tools/qemu/timectl.c) that paces each vCPU at its own rate under MTTCG. Not in `host`:
# Debian 12's QEMU 7.2 cannot load it (tools/qemu/fetch-qemu10.sh gets QEMU 10 privately).
$(BUILD)/host/timectl.so: tools/qemu/timectl.c | $(DEPS)
	@mkdir -p $(@D)
	$(call msg,HOSTCC,$@)$(HOSTCC) -O2 -Wall -Wextra -Werror -shared -fPIC \
		-fvisibility=hidden $< -o $@
profile: check-bench-spec $(BUILD)/Image $(BUILD)/dts/$(MACHINE).dtb $(BUILD)/host/tbcount.so \
		| $(DEPS)
	$(PYTHON) tools/insn_profile.py --build $(BUILD) --machine $(MACHINE) \
		$(if $(APPEND),--append "$(APPEND)") "$(B)"
# E=1,idle passes flags to the experiment (E1 keeps its idle states on);
# EXPERIMENT_ARGS=... adds boot options (speed=work, cpuidle=off). Each half's
# energy total (RESULT energy ... total) comes before the table.
comma := ,
EN = $(firstword $(subst $(comma), ,$(or $(E),1)))
experiment: check-experiment-spec $(BUILD)/Image dtbs | $(DEPS)
	@for m in $(EXPERIMENT_MACHINES_$(EN)); do \
		echo "== experiment $(or $(E),1) on $$m $(EXPERIMENT_ARGS)"; \
		$(QEMU) $(QEMU_ICOUNT) -kernel $(BUILD)/Image -dtb $(BUILD)/dts/$$m.dtb \
			-append "experiment=$(or $(E),1) $(EXPERIMENT_ARGS)" | \
			awk '/^E$(EN):/ { on = 1 } on || / total joules=/' || exit 1; done
experiments: $(BUILD)/Image dtbs | $(DEPS)
	@for e in $(EXPERIMENTS); do $(MAKE) --no-print-directory experiment E=$$e || exit 1; done

# make fuzz [FUZZ_TIME=S]: every fuzzer for S seconds (60) with no run limit,
# its corpus kept in build/fuzz-corpus/NAME/ between runs; a crash names its
# input (once fixed, it goes into tests/fuzz/corpus/NAME/). make test runs them
# bounded (tools/runtests.py, kind "fuzz").
FUZZ_TIME ?= 60
fuzz: fuzzers | $(DEPS)
	$(PYTHON) tools/runtests.py --build $(BUILD) -k fuzz_ --fuzz-time $(FUZZ_TIME)

# make compare: Debian's arm64 Linux 6.1 beside this kernel (sched=cfs) on the same QEMU
# line, the same workloads, their RESULT lines and ratios side by side (docs/compare.md);
# LINUX=6.12: Debian's 6.12 beside sched=eevdf. Not part of make test.
# tools/compare/fetch.sh downloads Linux and busybox-static (apt-get download, unpacked under
# build/compare/, nothing installed) with apt's arm64 lists kept private under
# build/compare/apt/: the system's apt (architectures, sources) is not changed. The workloads
# are static arm64 programs (tools/compare/linux_*.c; glibc's libc.a from libc6-dev-arm64-cross).
LINUX ?= 6.1
COMPARE_DIR := $(BUILD)/compare
COMPARE_PROGS := $(addprefix $(COMPARE_DIR)/bin/,pipe hackbench spin)
$(COMPARE_DIR)/.deps-ok: tools/deps.sh | $(DEPS)
	@bash tools/deps.sh --compare
	@mkdir -p $(@D) && touch $@
# bin/NAME from tools/compare/linux_NAME.c (the Linux side of a workload).
$(COMPARE_DIR)/bin/%: tools/compare/linux_%.c tools/compare/work.h | $(COMPARE_DIR)/.deps-ok
	@mkdir -p $(@D)
	$(call msg,CC,$@)$(CC) -static -O2 -Wall -Wextra -Werror -pthread $< -o $@
$(COMPARE_DIR)/.fetched-%: tools/compare/fetch.sh | $(COMPARE_DIR)/.deps-ok
	bash tools/compare/fetch.sh $(COMPARE_DIR) $*
	@touch $@
compare: $(BUILD)/Image dtbs $(COMPARE_PROGS) $(COMPARE_DIR)/.fetched-$(LINUX) | $(DEPS)
	$(PYTHON) tools/compare/compare.py --build $(BUILD) --linux $(LINUX)

# make linux-source: the reference every "Linux 6.1" comment means - Debian 12's
# linux-source-6.1 (6.1.192-3, the source of the kernel make compare boots), `apt-get
# download` (unprivileged, nothing installed) and its scheduler paths unpacked under
# build/linux-source/linux-source-6.1/ for reading: never committed, never copied from.
# The EEVDF work's 6.12: LINUX_SOURCE_PKG=linux-source-6.12
# LINUX_SOURCE_VERSION=6.12.117-1~deb12u1 (bookworm-backports). Not part of make test.
LINUX_SOURCE_PKG ?= linux-source-6.1
LINUX_SOURCE_VERSION ?= 6.1.192-3
linux-source:
	bash tools/linux_source.sh $(BUILD)/linux-source $(LINUX_SOURCE_PKG) $(LINUX_SOURCE_VERSION)

# make lint: the tree's habits, one KTAP case per check (tools/lint.py says which files
# each covers); make test runs the same as its first run ("lint" in tests/runs.py), so
# a finding is a failed case there. make format: clang-format -i on what the check covers.
lint: | $(DEPS)
	@$(PYTHON) tools/lint.py
format: | $(DEPS)
	$(PYTHON) tools/lint.py --format

# The debug Image, for the self-test boots (tools/runtests.py).
debug-image:
	$(Q)$(MAKE) --no-print-directory DEBUG=1 build/debug/Image

# make test builds on every core of the machine (a -jN of your own is overridden),
# then runs the table (tests/runs.py).
NPROC := $(shell nproc 2>/dev/null || echo 2)
# The tools first, alone (tools/deps.sh may run apt-get), then the parallel build.
test: | $(DEPS)
	@$(MAKE) --no-print-directory -j$(NPROC) DEPS_CHECKED=1 all fuzzers firmware hikey960 \
		debug-image
	@$(PYTHON) tools/runtests.py

# make labs: each lab run of tests/runs.py (its steps read by the kernel from the
# initrd, so the session is the same every time under -icount) rewrites the excerpt
# blocks of its docs/labs/NN-*.md and its pictures' data and PNGs, docs/labs/img/ (the
# run's `trace dump`s; drawn by Debian's /usr/bin/python3, matplotlib) (tools/labs.py).
# K=lab2: that lab only.
labs: $(BUILD)/Image dtbs | $(DEPS)
	@$(PYTHON) tools/labs.py $(if $(K),-k $(K))

# make fresh-check: make test as a newcomer runs it, as root in a chroot: a minimal Debian
# 12 root (debootstrap, kept as build/fresh/base.tar) copied afresh each time, a fresh
# clone of the committed HEAD in it. Long (apt installs, then the whole make test); not
# part of make test. docs/design.md, "Tests".
fresh-check:
	@bash tools/fresh_check.sh

clean:
	rm -rf $(BUILD)

.PHONY: all dtbs host fuzzers fuzz firmware hikey960 run debug debug-image trace trace-log labs \
	readme-picture \
	bench profile experiment experiments check-bench-spec check-experiment-spec compare \
	linux-source test lint format fresh-check clean
-include $(shell find $(BUILD)/k -name '*.d' 2>/dev/null)
