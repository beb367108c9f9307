# minivmm — see README.md. `make run` and `make check` are the two entry points.

CC	?= gcc
GUEST_CC ?= gcc
Q	:= $(if $(V),,@)
B	:= build

HOST_CFLAGS := -std=gnu11 -Wall -Wextra -Werror -O2 -g -D_GNU_SOURCE \
	-Iinclude -I. -MMD -MP $(shell pkg-config --cflags libelf jansson 2>/dev/null)
HOST_LDLIBS := -lelf -ljansson -lpthread
CHECK_LIBS  := $(shell pkg-config --libs check 2>/dev/null || echo -lcheck)
SAN_FLAGS   := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

# Host code: everything in vmm/ and hv/; main.c only goes into the binary.
HOST_SRCS := $(sort $(wildcard vmm/*.c vmm/dev/*.c hv/*.c))
LIB_SRCS  := $(filter-out vmm/main.c,$(HOST_SRCS))
HOST_OBJS := $(HOST_SRCS:%.c=$(B)/host/%.o)
LIB_OBJS  := $(LIB_SRCS:%.c=$(B)/host/%.o)
ASAN_OBJS := $(LIB_SRCS:%.c=$(B)/asan/%.o)

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

.PHONY: FORCE all deps run check unit unit-asan host-tests integration bench peer fuzz fuzz-long clean
SHELL := /bin/bash
all: minivmm guest.elf

deps:
	$(Q)./scripts/deps.sh build

minivmm: $(HOST_OBJS)
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

$(B)/unit: $(UNIT_OBJS) $(LIB_OBJS)
	$(Q)$(CC) $(HOST_CFLAGS) -o $@ $^ $(HOST_LDLIBS) $(CHECK_LIBS)

$(B)/unit-asan: $(UNIT_ASAN_OBJS) $(ASAN_OBJS)
	$(Q)$(CC) $(HOST_CFLAGS) $(SAN_FLAGS) -o $@ $^ $(HOST_LDLIBS) $(CHECK_LIBS)

unit: $(B)/unit
	$(Q)CK_FORK=yes ./$(B)/unit

unit-asan: $(B)/unit-asan
	$(Q)CK_FORK=yes ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ./$(B)/unit-asan

# Checks that need no KVM: the README against --help, /dev/kvm error paths.
host-tests: minivmm guest.elf
	$(Q)./tests/docs/help.sh
	$(Q)./tests/host/kvm-errors.sh

integration: all $(B)/minivmm-asan
	$(Q)./tests/integration/run.sh

# The two commands the README promises.
run:
	$(Q)./scripts/deps.sh build
	$(Q)$(MAKE) --no-print-directory all
	$(Q)./scripts/run.sh

check:
	$(Q)./scripts/deps.sh check
	$(Q)$(MAKE) --no-print-directory all $(B)/unit $(B)/unit-asan $(B)/minivmm-asan
	$(Q)$(MAKE) --no-print-directory unit unit-asan host-tests integration
	$(Q)./tests/integration/vmx.sh ci

# The integration areas on Intel VMX, in Bochs (tests/integration/vmx.sh; slow).
.PHONY: check-vmx
check-vmx:
	$(Q)./scripts/deps.sh vmx
	$(Q)$(MAKE) --no-print-directory all $(B)/minivmm-asan
	$(Q)./tests/integration/vmx.sh full $(VMX_GROUPS)

bench:
	$(Q)./scripts/deps.sh bench
	$(Q)$(MAKE) --no-print-directory all
	$(Q)./scripts/bench.sh

# kvm-unit-tests' vmexit.flat under QEMU and minivmm, alternated: docs/peer.md.
PEER_ROUNDS ?= 5
peer:
	$(Q)./scripts/deps.sh peer
	$(Q)$(MAKE) --no-print-directory all
	$(Q)./scripts/peer.py --rounds $(PEER_ROUNDS)

# Fuzzing (libFuzzer, clang): `make fuzz` is bounded (FUZZ_SECONDS per harness),
# `make fuzz-long` runs FUZZ_RUNS executions each. Seeds live in tests/fuzz/corpus/;
# new inputs go to build/, so the committed corpora only change on purpose.
FUZZ_CC      ?= clang
FUZZ_FLAGS   := -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -Iinclude -I.
FUZZ_SECONDS ?= 20
FUZZ_RUNS    ?= 10000000
FUZZERS      := $(B)/fuzz_hv $(B)/fuzz_loader

$(B)/fuzz_hv: tests/fuzz/fuzz_hv.c $(wildcard hv/*.c hv/*.h include/hv/*.h)
	$(Q)mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ tests/fuzz/fuzz_hv.c $(wildcard hv/*.c)

$(B)/fuzz_loader: tests/fuzz/fuzz_loader.c vmm/loader.c vmm/multiboot.c vmm/mem.c vmm/errmsg.c
	$(Q)mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ tests/fuzz/fuzz_loader.c vmm/loader.c vmm/multiboot.c vmm/mem.c \
		vmm/errmsg.c -lelf

fuzz fuzz-long: FUZZ_LIMIT = $(if $(filter fuzz-long,$@),-runs=$(FUZZ_RUNS),-max_total_time=$(FUZZ_SECONDS))
fuzz fuzz-long:
	$(Q)./scripts/deps.sh fuzz
	$(Q)$(MAKE) --no-print-directory $(FUZZERS) guest.elf
	$(Q)for f in hv loader; do \
		rm -rf $(B)/corpus-$$f && mkdir -p $(B)/corpus-$$f && \
		cp tests/fuzz/corpus/$$f/* $(B)/corpus-$$f/ 2>/dev/null; \
		[ $$f = loader ] && cp guest.elf $(B)/corpus-$$f/guest.elf; \
		echo "fuzz: $$f"; \
		./$(B)/fuzz_$$f $(FUZZ_LIMIT) -print_final_stats=1 $(B)/corpus-$$f 2>&1 | \
			grep -E 'stat::number_of_executed_units|ERROR|SUMMARY|Done' ; \
		test $${PIPESTATUS[0]} -eq 0 || exit 1; \
	done

clean:
	rm -rf $(B) minivmm guest.elf

-include $(shell find $(B) -name '*.d' 2>/dev/null)
