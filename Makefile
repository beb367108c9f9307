# minivmm — see README.md. `make run` and `make check` are the two entry points.

CC	?= gcc
GUEST_CC ?= gcc
Q	:= $(if $(V),,@)
B	:= build

# The bzImage payload decoders (vmm/linux_bzimage.c).
UNPACK_PC   := liblzma libzstd zlib
UNPACK_LIBS := $(shell pkg-config --libs $(UNPACK_PC) 2>/dev/null || echo -llzma -lzstd -lz)
HOST_CFLAGS := -std=gnu11 -Wall -Wextra -Werror -O2 -g -D_GNU_SOURCE \
	-Iinclude -I. -I$(B)/gen -MMD -MP \
	$(shell pkg-config --cflags jansson libseccomp $(UNPACK_PC) 2>/dev/null)
HOST_LDLIBS := -ljansson -lpthread $(shell pkg-config --libs libseccomp 2>/dev/null || echo -lseccomp) \
	$(UNPACK_LIBS)
CHECK_LIBS  := $(shell pkg-config --libs check 2>/dev/null || echo -lcheck)
SAN_FLAGS   := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

# Host code: everything in vmm/ and hv/; main.c only goes into the binary.
HOST_SRCS := $(sort $(wildcard vmm/*.c vmm/dev/*.c hv/*.c))
LIB_SRCS  := $(filter-out vmm/main.c,$(HOST_SRCS))
HOST_OBJS := $(HOST_SRCS:%.c=$(B)/host/%.o)
LIB_OBJS  := $(LIB_SRCS:%.c=$(B)/host/%.o)
ASAN_OBJS := $(LIB_SRCS:%.c=$(B)/asan/%.o)
# minivmm-qemu (vmm/qemu/): QEMU's command line, as kvm-unit-tests builds it, for minivmm.
QEMU_FRONT_LIB := vmm/qemu/qargv.c

UNIT_SRCS := $(sort $(wildcard tests/unit/*.c))
UNIT_OBJS := $(UNIT_SRCS:%.c=$(B)/host/%.o)
UNIT_ASAN_OBJS := $(UNIT_SRCS:%.c=$(B)/asan/%.o)

# The payload: freestanding, no SSE from the compiler (CPL0 SSE forms other
# than movdqu/movaps do not emulate on kvm_pvm), no red zone (interrupts at CPL0).
GUEST_CFLAGS := -std=gnu11 -Wall -Wextra -Werror -O2 -g -ffreestanding -fno-pic \
	-fno-pie -fno-stack-protector -fno-builtin -mno-red-zone -mgeneral-regs-only \
	-mcmodel=kernel -fno-asynchronous-unwind-tables -Iinclude -Iguest -MMD -MP
GUEST_LDFLAGS := -nostdlib -static -no-pie -Wl,--build-id=none -Wl,-T,guest/guest.lds \
	-Wl,-z,noexecstack -Wl,-z,max-page-size=4096
GUEST_SRCS := $(sort $(wildcard guest/*.S guest/*.c guest/lib/*.c guest/lib/*.S guest/tests/*.c))
GUEST_OBJS := $(patsubst %,$(B)/guest/%.o,$(basename $(GUEST_SRCS)))

GIT_REV := $(shell git describe --always --dirty 2>/dev/null || echo unknown)

.PHONY: FORCE all deps run check unit unit-asan unit-tsan host-tests integration bench bench-hv-impl bench-linux peer peer-linux fuzz fuzz-long clean
.PHONY: install uninstall slow-null compare-check deb deb-check
SHELL := /bin/bash
all: minivmm minivmm-qemu guest.elf

deps:
	$(Q)./scripts/deps.sh build

minivmm: $(HOST_OBJS)
	$(Q)$(CC) $(HOST_CFLAGS) -o $@ $^ $(HOST_LDLIBS)

# minivmm's option parser judges the translated line: linked from an archive,
# so that only what it needs comes along.
$(B)/libminivmm.a: $(LIB_OBJS)
	$(Q)rm -f $@ && ar rcs $@ $^
minivmm-qemu: $(B)/host/vmm/qemu/main.o $(QEMU_FRONT_LIB:%.c=$(B)/host/%.o) $(B)/libminivmm.a
	$(Q)$(CC) $(HOST_CFLAGS) -o $@ $^ $(HOST_LDLIBS)

# version.o is rebuilt whenever the git revision (or dirtiness) changes.
$(B)/git-rev: FORCE
	$(Q)mkdir -p $(@D)
	$(Q)echo '$(GIT_REV)' | cmp -s - $@ || echo '$(GIT_REV)' > $@
FORCE:
$(B)/host/vmm/version.o $(B)/asan/vmm/version.o: $(B)/git-rev
$(B)/host/vmm/version.o: HOST_CFLAGS += -DMVM_GIT_REV='"$(GIT_REV)"'
$(B)/host/%.o: %.c
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(HOST_CFLAGS) -c -o $@ $<

$(B)/asan/%.o: %.c
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(HOST_CFLAGS) $(SAN_FLAGS) -O1 -c -o $@ $<

# The sandbox's SIGSYS message names the call: [nr] = "name" from the system headers.
$(B)/gen/syscall-names.h:
	$(Q)mkdir -p $(@D)
	$(Q)echo '#include <sys/syscall.h>' | $(CC) -E -dM -x c - | \
		sed -nE 's/^#define __NR_([a-z0-9_]+) ([0-9]+)$$/[\2] = "\1",/p' >$@.tmp
	$(Q)test -s $@.tmp && mv $@.tmp $@
$(B)/host/vmm/sandbox.o $(B)/asan/vmm/sandbox.o $(B)/selftest/vmm/sandbox.o: | $(B)/gen/syscall-names.h

# Test-only build (never installed, no guest can reach it): the same minivmm
# whose threads try a forbidden call after entering their filters when
# MINIVMM_SANDBOX_SELFTEST says so (tests/integration/cases.d/sandbox.sh).
$(B)/selftest/vmm/sandbox.o: vmm/sandbox.c
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(HOST_CFLAGS) -DMVM_SANDBOX_SELFTEST -c -o $@ $<

$(B)/minivmm-sandbox-test: $(filter-out $(B)/host/vmm/sandbox.o,$(HOST_OBJS)) $(B)/selftest/vmm/sandbox.o
	$(Q)$(CC) $(HOST_CFLAGS) -o $@ $^ $(HOST_LDLIBS)

# Test-only build (never installed): Hyper-V flush hypercalls flush nothing,
# the negative control of the Linux shootdown check (cases.d/linux_work.inc).
$(B)/noflush/vmm/hvhost.o: vmm/hvhost.c
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(HOST_CFLAGS) -DMVM_FAULT_NO_FLUSH -c -o $@ $<

$(B)/minivmm-noflush: $(filter-out $(B)/host/vmm/hvhost.o,$(HOST_OBJS)) $(B)/noflush/vmm/hvhost.o
	$(Q)$(CC) $(HOST_CFLAGS) -o $@ $^ $(HOST_LDLIBS)

# Every kvm-unit-tests entry through its own runner, via minivmm-qemu and via
# QEMU where installed, on this machine's /dev/kvm: docs/results/kut-<backend>.md
# (scripts/kut-table.sh; KUT_TIMEOUT, KUT_ONLY, KUT_QEMU=none). Slow: minutes.
# Without /dev/kvm, or with KUT_NESTED=1, in the nested SVM VM, QEMU's side
# too: docs/results/kut-nested-svm.md (an hour and more under TCG). With
# KUT_NESTED=vmx in VMX under Bochs: docs/results/kut-nested-vmx.md (hours).
.PHONY: check-kut
check-kut: all
	$(Q)./scripts/kut-table.sh

# make bench: the vCPU filter's own cost per ioctl, host-measured (scripts/bench-sandbox.py).
$(B)/sandbox-cost: $(B)/host/tests/bench/sandbox_cost.o $(B)/host/vmm/sandbox.o $(B)/host/vmm/errmsg.o
	$(Q)$(CC) $(HOST_CFLAGS) -o $@ $^ $(HOST_LDLIBS)

guest.elf: $(GUEST_OBJS) guest/guest.lds
	$(Q)$(GUEST_CC) $(GUEST_CFLAGS) $(GUEST_LDFLAGS) -o $@ $(GUEST_OBJS)

$(B)/guest/%.o: %.c
	$(Q)mkdir -p $(@D)
	$(Q)$(GUEST_CC) $(GUEST_CFLAGS) -c -o $@ $<

$(B)/guest/%.o: %.S
	$(Q)mkdir -p $(@D)
	$(Q)$(GUEST_CC) $(GUEST_CFLAGS) -D__ASSEMBLY__ -c -o $@ $<

# minivmm itself under ASan+UBSan (LeakSanitizer included): the integration
# cases run it on every exit path to prove nothing leaks or overruns.
$(B)/minivmm-asan: $(ASAN_OBJS) $(B)/asan/vmm/main.o
	$(Q)$(CC) $(HOST_CFLAGS) $(SAN_FLAGS) -o $@ $^ $(HOST_LDLIBS)

$(B)/asan/vmm/version.o: HOST_CFLAGS += -DMVM_GIT_REV='"$(GIT_REV)"'

# Where a run without KERNEL finds the installed payload: compiled into
# payload.o, rebuilt when PREFIX changes (`make install PREFIX=/usr` after a
# plain `make` relinks minivmm with the right path).
PREFIX	?= /usr/local
BINDIR	:= $(PREFIX)/bin
LIBDIR	:= $(PREFIX)/lib/minivmm
MANDIR	:= $(PREFIX)/share/man/man1
DOCDIR	:= $(PREFIX)/share/doc/minivmm
$(B)/prefix: FORCE
	$(Q)mkdir -p $(@D)
	$(Q)echo '$(PREFIX)' | cmp -s - $@ || echo '$(PREFIX)' > $@
$(B)/host/vmm/payload.o $(B)/asan/vmm/payload.o: $(B)/prefix
$(B)/host/vmm/payload.o $(B)/asan/vmm/payload.o: HOST_CFLAGS += -DMVM_PAYLOAD_PATH='"$(LIBDIR)/guest.elf"'

$(B)/unit: $(UNIT_OBJS) $(LIB_OBJS) $(QEMU_FRONT_LIB:%.c=$(B)/host/%.o)
	$(Q)$(CC) $(HOST_CFLAGS) -o $@ $^ $(HOST_LDLIBS) $(CHECK_LIBS)

$(B)/unit-asan: $(UNIT_ASAN_OBJS) $(ASAN_OBJS) $(QEMU_FRONT_LIB:%.c=$(B)/asan/%.o)
	$(Q)$(CC) $(HOST_CFLAGS) $(SAN_FLAGS) -o $@ $^ $(HOST_LDLIBS) $(CHECK_LIBS)

unit: $(B)/unit
	$(Q)CK_FORK=yes ./$(B)/unit

unit-asan: $(B)/unit-asan
	$(Q)CK_FORK=yes ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ./$(B)/unit-asan

# The vCPU request layer under ThreadSanitizer: the vcpu_hold suite starts a real vCPU
# thread and kicks, which is where a data race would show (with fc50432's publication of
# the kick target it reports the race on it). That suite only: the sandbox's filters and
# TSan's runtime do not mix. Reports go to build/tsan.log.PID (the test silences stderr).
TSAN_OBJS := $(LIB_SRCS:%.c=$(B)/tsan/%.o)
$(B)/tsan/%.o: %.c
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(HOST_CFLAGS) -fsanitize=thread -O1 -c -o $@ $<
$(B)/tsan/vmm/version.o: HOST_CFLAGS += -DMVM_GIT_REV='"$(GIT_REV)"'
$(B)/tsan/vmm/version.o: $(B)/git-rev
$(B)/tsan/vmm/payload.o: $(B)/prefix
$(B)/tsan/vmm/payload.o: HOST_CFLAGS += -DMVM_PAYLOAD_PATH='"$(LIBDIR)/guest.elf"'
$(B)/tsan/vmm/sandbox.o: | $(B)/gen/syscall-names.h
$(B)/unit-tsan: $(UNIT_SRCS:%.c=$(B)/tsan/%.o) $(TSAN_OBJS) $(QEMU_FRONT_LIB:%.c=$(B)/tsan/%.o)
	$(Q)$(CC) $(HOST_CFLAGS) -fsanitize=thread -o $@ $^ $(HOST_LDLIBS) $(CHECK_LIBS)
unit-tsan: $(B)/unit-tsan
	$(Q)rm -f $(B)/tsan.log.*
	$(Q)CK_FORK=yes CK_RUN_SUITE=vcpu_hold TSAN_OPTIONS="halt_on_error=1 log_path=$(B)/tsan.log" \
		./$(B)/unit-tsan || { cat $(B)/tsan.log.* 2>/dev/null; exit 1; }

# Every ACPI table minivmm builds, written to files for iasl (tests/host/acpi-iasl.sh).
$(B)/acpi-dump: $(B)/host/tests/host/acpi_dump.o $(LIB_OBJS)
	$(Q)$(CC) $(HOST_CFLAGS) -o $@ $^ $(HOST_LDLIBS)

# Checks that need no KVM: the README against --help, the architecture map
# against the source files, /dev/kvm error paths, the ACPI tables under
# iasl, the Linux test initramfs and the Linux images minivmm must refuse.
host-tests: minivmm guest.elf $(B)/linux/initramfs.cpio $(B)/acpi-dump
	$(Q)./tests/docs/help.sh
	$(Q)./tests/docs/architecture.sh
	$(Q)./tests/docs/generated.sh
	$(Q)./tests/docs/man.sh
	$(Q)./tests/host/kvm-errors.sh
	$(Q)./tests/host/linux-initramfs.sh $(B)/linux/initramfs.cpio
	$(Q)./tests/host/linux-errors.sh
	$(Q)./tests/host/acpi-iasl.sh
	$(Q)./tests/host/install.sh
	$(Q)./tests/host/tally.sh
	$(Q)./tests/host/make-targets.sh
	$(Q)./tests/host/run-nested-options.sh
	$(Q)./tests/host/integration-retry.sh
	$(Q)./tests/host/hv-impl-report.sh
	$(Q)./tests/host/bench-linux-report.sh
	$(Q)./tests/compare/compare.sh

integration: all $(B)/minivmm-asan $(B)/minivmm-sandbox-test $(B)/minivmm-noflush $(B)/linux/initramfs.cpio \
		$(B)/ptydrive
	$(Q)./tests/integration/run.sh

# Linux guests (tests/linux/): the initramfs the linux area boots, and a
# one-command boot of Debian's kernel to a shell on ttyS0 (LINUX=6.1|6.12 or
# a linux-image-* package; LINUX_PV=hyperv|kvm|none; LINUX_ARGS: more of the
# kernel command line, e.g. "mvm.end=poweroff" to come straight back out).
LINUX      ?= 6.1
LINUX_CPUS ?= 2
LINUX_PV   ?=
LINUX_ARGS ?=
LINUX_INITRD_SRCS := tests/linux/mkinitramfs.sh tests/linux/init tests/linux/tx.awk
# The workloads /init runs (tests/linux/work/: static C, Linux user space,
# records to minivmm through include/minivmm/abi.h).
LINUX_WORK      := shootdown membarrier mmaplock
LINUX_WORK_BINS := $(addprefix $(B)/linux/work/,$(LINUX_WORK))
LINUX_WORK_CFLAGS := -std=gnu11 -Wall -Wextra -Werror -O2 -static -pthread \
	-I include -ffile-prefix-map=$(CURDIR)/=
$(B)/linux/work/%: tests/linux/work/%.c tests/linux/work/mvm_user.c tests/linux/work/mvm_user.h \
		include/minivmm/abi.h
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(LINUX_WORK_CFLAGS) -o $@ $< tests/linux/work/mvm_user.c
$(B)/linux/initramfs.cpio: $(LINUX_INITRD_SRCS) $(LINUX_WORK_BINS)
	$(Q)./tests/linux/mkinitramfs.sh $@ $(LINUX_WORK_BINS)
# The linux area types at a Linux shell through a pseudo-terminal with it.
$(B)/ptydrive: tests/linux/ptydrive.c
	$(Q)$(CC) $(HOST_CFLAGS) -o $@ $<
.PHONY: linux-initramfs linux-run
linux-initramfs: $(B)/linux/initramfs.cpio
linux-run:
	$(Q)./scripts/deps.sh linux
	$(Q)$(MAKE) --no-print-directory minivmm $(B)/linux/initramfs.cpio
	$(Q)k=$$(./scripts/linux-kernel.sh --vmlinuz $(LINUX)) && \
		./minivmm --cpus $(LINUX_CPUS) $(if $(LINUX_PV),--pv $(LINUX_PV)) \
		--initrd $(B)/linux/initramfs.cpio "$$k" -- $(LINUX_ARGS)

# The two commands the README promises.
run:
	$(Q)./scripts/deps.sh build
	$(Q)$(MAKE) --no-print-directory all
	$(Q)./scripts/run.sh

check:
	$(Q)./scripts/deps.sh check
	$(Q)$(MAKE) --no-print-directory all $(B)/unit $(B)/unit-asan $(B)/minivmm-asan $(B)/minivmm-sandbox-test
	$(Q)$(MAKE) --no-print-directory unit unit-asan unit-tsan host-tests integration
	$(Q)./tests/integration/bochs.sh vmx ci

# The linux area's whole matrix (13 boots; make check runs 8 of them) and every
# workload boot (at 1, 2, 4 and 8 vCPUs): on this host's /dev/kvm, or in the
# nested SVM VM where it has none or is kvm_pvm; a budget for all of them.
.PHONY: check-linux
check-linux:
	$(Q)./scripts/deps.sh check
	$(Q)$(MAKE) --no-print-directory all $(B)/minivmm-asan $(B)/minivmm-sandbox-test $(B)/minivmm-noflush $(B)/linux/initramfs.cpio \
		$(B)/ptydrive
	$(Q)MVM_LINUX_FULL=1 MVM_LINUX_BUDGET=$${MVM_LINUX_BUDGET:-2400} \
		MVM_LINUX_NESTED_TIMEOUT=$${MVM_LINUX_NESTED_TIMEOUT:-2700} MINIVMM_AREAS=linux ./tests/integration/run.sh

# What the Bochs groups' areas use, as `integration` builds it (the sandbox
# area's forbidden-call build, the linux area's initramfs and ptydrive).
BOCHS_AREA_DEPS = all $(B)/minivmm-asan $(B)/minivmm-sandbox-test $(B)/minivmm-noflush $(B)/linux/initramfs.cpio $(B)/ptydrive

# The integration areas on Intel VMX, in Bochs (tests/integration/bochs.sh; slow).
.PHONY: check-vmx
check-vmx:
	$(Q)./scripts/deps.sh vmx
	$(Q)$(MAKE) --no-print-directory $(BOCHS_AREA_DEPS)
	$(Q)./tests/integration/bochs.sh vmx full $(VMX_GROUPS)

# The same areas on AMD SVM in the same Bochs (a second SVM emulator beside
# QEMU's TCG), after the cases svm-intr-mask.patch fixed (group repro; slow).
.PHONY: check-svm-bochs
check-svm-bochs:
	$(Q)./scripts/deps.sh vmx
	$(Q)$(MAKE) --no-print-directory $(BOCHS_AREA_DEPS)
	$(Q)./tests/integration/bochs.sh svm full $(SVM_BOCHS_GROUPS)

bench:
	$(Q)./scripts/deps.sh bench
	$(Q)$(MAKE) --no-print-directory all $(B)/sandbox-cost $(B)/bench-vpset $(B)/bench-fanout
	$(Q)python3 scripts/bench-scale.py --vmm ./minivmm --elf guest.elf --decode $(B)/bench-vpset \
		--out $(B)/bench/scale --docs docs/results --max-cpus $(BENCH_SCALE_MAX) --tree-rev $(GIT_REV)
	$(Q)python3 scripts/bench-targets.py --vmm ./minivmm --elf guest.elf --out $(B)/bench/targets \
		--docs docs/results --cpus $(BENCH_TARGETS_CPUS) --iters $(BENCH_TARGETS_ITERS) --tree-rev $(GIT_REV) \
		--fanout $(B)/bench-fanout
	$(Q)./scripts/bench.sh

# minivmm's Hyper-V layer against KVM's own (--hv-impl kvm), the same suites
# on the same KVM: docs/results/hv-impl.md. On this host where its KVM has
# KVM_CAP_HYPERV, else in the nested VM (counts and correctness only there).
bench-hv-impl:
	$(Q)./scripts/deps.sh bench
	$(Q)$(MAKE) --no-print-directory all
	$(Q)./scripts/bench.sh --hv-impl

# Linux's own paravirtual code (tests/linux/work/) under each PV path:
# docs/results/linux.md. Where Linux boots on this host's KVM (not kvm_pvm),
# else in the nested VM (counts and correctness only there).
bench-linux:
	$(Q)./scripts/deps.sh bench
	$(Q)./scripts/deps.sh linux
	$(Q)$(MAKE) --no-print-directory all $(B)/linux/initramfs.cpio
	$(Q)./scripts/bench.sh --linux

# The scale part of make bench (docs/results/scale.md): up to this many vCPUs.
BENCH_SCALE_MAX ?= 1024
# Cost against target count past 64 vCPUs (docs/results/targets.md): ipi and flush at this many.
BENCH_TARGETS_CPUS ?= 1024
BENCH_TARGETS_ITERS ?= 16
# The VMM's part of a flush of k preempted targets, timed on the host (docs/results/targets.md).
$(B)/bench-fanout: tests/bench/flush_fanout.c tests/bench/timing.h $(LIB_OBJS)
	$(Q)$(CC) $(HOST_CFLAGS) -o $@ $(filter-out %.h,$^) $(HOST_LDLIBS)
# The Hyper-V layer's VP-set decode, timed on the host (docs/results/scale.md).
$(B)/bench-vpset: tests/bench/vpset_decode.c tests/bench/timing.h $(filter $(B)/host/hv/%,$(LIB_OBJS))
	$(Q)$(CC) $(HOST_CFLAGS) -o $@ $(filter-out %.h,$^) -lpthread

# kvm-unit-tests' vmexit.flat under QEMU and minivmm, alternated: docs/results/peer.md.
PEER_ROUNDS ?= 5
peer:
	$(Q)./scripts/deps.sh peer
	$(Q)$(MAKE) --no-print-directory all
	$(Q)./scripts/peer.py --rounds $(PEER_ROUNDS)

# Debian's 6.1 vmlinux + the test initramfs under QEMU and minivmm (--pv kvm),
# alternated: launch to the first kernel line, to /init, to the exit; RSS; the
# bzImage's host-side unpack. Needs a real /dev/kvm (exit 2 without): docs/results/peer-linux.md.
PEER_LINUX_ROUNDS ?= 3
peer-linux:
	$(Q)./scripts/deps.sh peer
	$(Q)./scripts/deps.sh linux
	$(Q)$(MAKE) --no-print-directory all $(B)/linux/initramfs.cpio
	$(Q)./scripts/peer-linux.py --rounds $(PEER_LINUX_ROUNDS)

# Fuzzing (libFuzzer, clang): `make fuzz` is bounded (FUZZ_SECONDS per harness),
# `make fuzz-long` runs FUZZ_RUNS executions each. Seeds live in tests/fuzz/corpus/;
# new inputs go to build/, so the committed corpora only change on purpose.
FUZZ_CC      ?= clang
FUZZ_FLAGS   := -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -Iinclude -I.
FUZZ_SECONDS ?= 20
FUZZ_RUNS    ?= 10000000
FUZZERS      := $(B)/fuzz_hv $(B)/fuzz_loader $(B)/fuzz_x86walk $(B)/fuzz_linux

$(B)/fuzz_hv: tests/fuzz/fuzz_hv.c $(wildcard hv/*.c hv/*.h include/hv/*.h)
	$(Q)mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ tests/fuzz/fuzz_hv.c $(wildcard hv/*.c)

# The loader table's Linux row is in: a Linux-looking input is unpacked (64 MiB at most
# here, as in fuzz_linux, so a short input cannot ask for the real 1 GiB).
LOADER_SRCS  := vmm/loader.c vmm/elf64.c vmm/multiboot.c vmm/elfimg.c vmm/elfview.c vmm/mem.c vmm/errmsg.c \
	vmm/linux.c vmm/linux_bzimage.c vmm/linux_pvh.c vmm/linux_boot.c
$(B)/fuzz_loader: tests/fuzz/fuzz_loader.c $(LOADER_SRCS)
	$(Q)mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) -DLINUX_UNPACK_MAX='(64ull << 20)' -o $@ tests/fuzz/fuzz_loader.c \
		$(LOADER_SRCS) $(UNPACK_LIBS)

$(B)/fuzz_x86walk: tests/fuzz/fuzz_x86walk.c vmm/x86.c vmm/x86.h vmm/mem.c vmm/errmsg.c
	$(Q)mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ tests/fuzz/fuzz_x86walk.c vmm/x86.c vmm/mem.c vmm/errmsg.c

LINUX_FUZZ_SRCS := vmm/linux.c vmm/linux_bzimage.c vmm/linux_pvh.c vmm/elfview.c vmm/linux_boot.c \
	vmm/mem.c vmm/errmsg.c
$(B)/fuzz_linux: tests/fuzz/fuzz_linux.c $(LINUX_FUZZ_SRCS) $(wildcard vmm/linux*.h)
	$(Q)mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) -DLINUX_UNPACK_MAX='(64ull << 20)' -o $@ tests/fuzz/fuzz_linux.c \
		$(LINUX_FUZZ_SRCS) $(UNPACK_LIBS)

fuzz fuzz-long: FUZZ_LIMIT = $(if $(filter fuzz-long,$@),-runs=$(FUZZ_RUNS),-max_total_time=$(FUZZ_SECONDS))
fuzz fuzz-long:
	$(Q)./scripts/deps.sh fuzz
	$(Q)$(MAKE) --no-print-directory $(FUZZERS) guest.elf
	$(Q)for f in hv loader x86walk linux; do \
		rm -rf $(B)/corpus-$$f && mkdir -p $(B)/corpus-$$f && \
		cp tests/fuzz/corpus/$$f/* $(B)/corpus-$$f/ 2>/dev/null; \
		[ $$f = loader ] && cp guest.elf $(B)/corpus-$$f/guest.elf; \
		echo "fuzz: $$f"; \
		./$(B)/fuzz_$$f $(FUZZ_LIMIT) -print_final_stats=1 $(B)/corpus-$$f 2>&1 | \
			grep -E 'stat::number_of_executed_units|ERROR|SUMMARY|Done' ; \
		test $${PIPESTATUS[0]} -eq 0 || exit 1; \
	done

# Test-only minivmm with a slower null port (tests/compare/slow_null.c), for
# checking minivmm-compare on real runs (docs/compare.md). Never installed.
SLOW_NULL_NS ?= 20000
$(B)/minivmm-slow-null: $(HOST_OBJS) tests/compare/slow_null.c
	$(Q)$(CC) $(HOST_CFLAGS) -DSLOW_NULL_NS=$(SLOW_NULL_NS) -Wl,--wrap=bus_dispatch -o $@ \
		$(HOST_OBJS) tests/compare/slow_null.c $(HOST_LDLIBS)
slow-null: $(B)/minivmm-slow-null

# minivmm-compare on fresh real runs (a few minutes): docs/compare.md.
compare-check: all $(B)/minivmm-slow-null
	$(Q)./scripts/deps.sh bench
	$(Q)./tests/compare/realdata.sh

# A Debian package (dpkg-deb), and the check that it lints, installs, runs and removes.
deb: all
	$(Q)./scripts/make-deb.sh
deb-check: all
	$(Q)./scripts/deps.sh deb
	$(Q)./tests/deb/check-deb.sh

# make install [PREFIX=/usr/local] [DESTDIR=staging]; make uninstall undoes it.
# The hand-written docs, and beside them in results/ what make bench and make
# peer wrote (docs/results/: generated, never edited by hand).
INSTALL_DOCS := README.md $(wildcard docs/*.md)
RESULT_DOCS  := $(wildcard docs/results/*.md docs/results/*.png)
install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(MANDIR) $(DESTDIR)$(DOCDIR)
	install -m 755 minivmm $(DESTDIR)$(BINDIR)/minivmm
	install -m 755 minivmm-qemu $(DESTDIR)$(BINDIR)/minivmm-qemu
	sed -e 's|@MINIVMM_LIBDIR@|$(LIBDIR)|' scripts/minivmm-compare > $(DESTDIR)$(BINDIR)/minivmm-compare
	chmod 755 $(DESTDIR)$(BINDIR)/minivmm-compare
	install -m 644 scripts/minivmm_json.py $(DESTDIR)$(LIBDIR)/minivmm_json.py
	install -m 644 guest.elf $(DESTDIR)$(LIBDIR)/guest.elf
	sed -e 's|/usr/local/lib/minivmm|$(LIBDIR)|g' -e 's|/usr/local/share/doc/minivmm|$(DOCDIR)|g' \
		minivmm.1 > $(DESTDIR)$(MANDIR)/minivmm.1
	chmod 644 $(DESTDIR)$(MANDIR)/minivmm.1
	install -m 644 minivmm-compare.1 $(DESTDIR)$(MANDIR)/minivmm-compare.1
	install -m 644 minivmm-qemu.1 $(DESTDIR)$(MANDIR)/minivmm-qemu.1
	install -m 644 $(INSTALL_DOCS) $(DESTDIR)$(DOCDIR)/
	install -d $(DESTDIR)$(DOCDIR)/results
	install -m 644 $(RESULT_DOCS) $(DESTDIR)$(DOCDIR)/results/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/minivmm $(DESTDIR)$(BINDIR)/minivmm-compare $(DESTDIR)$(BINDIR)/minivmm-qemu
	rm -f $(DESTDIR)$(LIBDIR)/guest.elf $(DESTDIR)$(LIBDIR)/minivmm_json.py $(DESTDIR)$(MANDIR)/minivmm.1
	rm -f $(DESTDIR)$(MANDIR)/minivmm-compare.1 $(DESTDIR)$(MANDIR)/minivmm-qemu.1
	rm -f $(addprefix $(DESTDIR)$(DOCDIR)/,$(notdir $(INSTALL_DOCS)))
	rm -f $(addprefix $(DESTDIR)$(DOCDIR)/results/,$(notdir $(RESULT_DOCS)))
	-rmdir $(DESTDIR)$(LIBDIR) $(DESTDIR)$(DOCDIR)/results $(DESTDIR)$(DOCDIR) 2>/dev/null

clean:
	rm -rf $(B) minivmm minivmm-qemu guest.elf

-include $(shell find $(B) -name '*.d' 2>/dev/null)
