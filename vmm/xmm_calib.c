// SPDX-License-Identifier: MIT
/*
 * --hv-xmm-path auto: pick how XMM0-5 of an XMM-fast hypercall reach the
 * VMM by timing both ways on this host before the payload starts.
 *
 * - spill: the hypercall page stores XMM0-5 below RSP (guest instructions;
 *   on kvm_pvm each is emulated) and the VMM walks the guest page tables to
 *   read them back.
 * - ioctl: the page only traps and the VMM calls KVM_GET_FPU (a cheap
 *   ioctl on VMX/SVM, ~12 us on kvm_pvm).
 *
 * vCPU 0 runs the page's own spill instructions between two RDTSCs, and an
 * empty block the same way, in alternation; the guest's TSC difference is
 * the spill's cost. The VMM times KVM_GET_FPU and its page walk on the same
 * vCPU. Then vCPU 0 and the scratch pages are put back as they were.
 */
#include <errno.h>
#include <linux/kvm.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include "hv/hv.h"
#include "vmm/errmsg.h"
#include "vmm/vcpu.h"
#include "vmm/vcpu_ops.h"
#include "vmm/vm.h"
#include "vmm/x86.h"
#include "vmm/xmm_calib.h"
#include "vmm/tsc.h"

/* Scratch code and stack in the VMM's first MiB, clear of the boot tables. */
#define CALIB_CODE_GPA		0x80000ULL
#define CALIB_STACK_TOP		(CALIB_CODE_GPA + 0x2000)
#define CALIB_EMPTY_OFF		0x800		/* the empty block's copy */
#define CALIB_PORT		MVM_PORT_NULL
#define CALIB_ROUNDS		15
#define CALIB_MAX_BODY		64
#define CALIB_SPILL_BYTES	96		/* XMM0-5, what the VMM reads */

_Static_assert(CALIB_CODE_GPA >= 0x10000 && CALIB_STACK_TOP <= MVM_RESERVED_END,
	       "calibration scratch must stay in the VMM's reserved first MiB");

/*
 * rdtsc; shl $32,%rdx; or %rdx,%rax; mov %rax,%rsi; <body>;
 * rdtsc; shl $32,%rdx; or %rdx,%rax; sub %rsi,%rax; out %al,$port
 * RAX at the exit holds the guest cycles of (body + 3 fixed instructions).
 */
static size_t emit_timed(uint8_t *p, const uint8_t *body, size_t len)
{
	static const uint8_t t0[] = { 0x0f, 0x31, 0x48, 0xc1, 0xe2, 0x20, 0x48, 0x09, 0xd0,
				      0x48, 0x89, 0xc6 };
	static const uint8_t t1[] = { 0x0f, 0x31, 0x48, 0xc1, 0xe2, 0x20, 0x48, 0x09, 0xd0,
				      0x48, 0x29, 0xf0, 0xe6, CALIB_PORT };
	size_t n = 0;

	memcpy(p, t0, sizeof(t0));
	n += sizeof(t0);
	memcpy(p + n, body, len);
	n += len;
	memcpy(p + n, t1, sizeof(t1));
	return n + sizeof(t1);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return v[n / 2];
}

/* One pass through a timed block: returns the guest's cycle count, or -1. */
static int64_t run_block(struct vcpu *v, uint64_t rip, char *err, size_t errlen)
{
	struct kvm_regs regs = { .rip = rip, .rsp = CALIB_STACK_TOP, .rflags = 0x2 };

	if (ioctl(v->fd, KVM_SET_REGS, &regs))
		return errmsg(err, errlen, "xmm calibration: KVM_SET_REGS: %s", strerror(errno));
	if (ioctl(v->fd, KVM_RUN, 0))
		return errmsg(err, errlen, "xmm calibration: KVM_RUN: %s", strerror(errno));
	if (v->run->exit_reason != KVM_EXIT_IO || v->run->io.port != CALIB_PORT)
		return errmsg(err, errlen, "xmm calibration: unexpected exit %u (want port 0x%x)",
			      v->run->exit_reason, CALIB_PORT);
	/* RAX is the OUT's source: final at the exit. Then let KVM finish the exit. */
	if (ioctl(v->fd, KVM_GET_REGS, &regs) || vcpu_complete_exit(v))
		return errmsg(err, errlen, "xmm calibration: reading the result: %s",
			      strerror(errno));
	return (int64_t)regs.rax;
}

/* KVM_GET_FPU right after an exit, where a hypercall would call it. */
static int64_t time_get_fpu(struct vcpu *v, char *err, size_t errlen)
{
	struct kvm_fpu fpu;
	uint64_t t0 = host_monotonic_ns();

	if (ioctl(v->fd, KVM_GET_FPU, &fpu))
		return errmsg(err, errlen, "xmm calibration: KVM_GET_FPU: %s", strerror(errno));
	return (int64_t)(host_monotonic_ns() - t0);
}

/*
 * Alternate the spill block and the empty one; time KVM_GET_FPU after
 * each. Spill cost: guest ns of the spill block minus the empty one.
 */
static int time_paths(struct vm *vm, struct vcpu *v, struct xmm_calib *c, char *err,
		      size_t errlen)
{
	uint64_t spill[CALIB_ROUNDS], empty[CALIB_ROUNDS], fpu[2 * CALIB_ROUNDS], s, e;

	for (unsigned int i = 0; i < CALIB_ROUNDS; i++) {
		int64_t a = run_block(v, CALIB_CODE_GPA, err, errlen);
		int64_t fa = a < 0 ? -1 : time_get_fpu(v, err, errlen);
		int64_t b = fa < 0 ? -1 : run_block(v, CALIB_CODE_GPA + CALIB_EMPTY_OFF, err, errlen);
		int64_t fb = b < 0 ? -1 : time_get_fpu(v, err, errlen);

		if (fb < 0)
			return -1;
		spill[i] = (uint64_t)a;
		empty[i] = (uint64_t)b;
		fpu[2 * i] = (uint64_t)fa;
		fpu[2 * i + 1] = (uint64_t)fb;
	}
	s = median(spill, CALIB_ROUNDS);
	e = median(empty, CALIB_ROUNDS);
	xmm_calib_set_spill(c, s, e, vm->tsc_khz);
	c->get_fpu_ns = median(fpu, 2 * CALIB_ROUNDS);
	return 0;
}

/* The spill path's VMM side: translate and copy 96 bytes below RSP. */
static void time_walk(struct vm *vm, uint64_t *ns)
{
	uint64_t t[CALIB_ROUNDS];
	uint8_t buf[CALIB_SPILL_BYTES];

	for (unsigned int i = 0; i < CALIB_ROUNDS; i++) {
		uint64_t t0 = host_monotonic_ns();

		/* The very call the spill path makes (vmm/hvhost.c). */
		x86_read_gva(&vm->mem, MVM_PML4_GPA, CALIB_STACK_TOP - 0x80, buf, sizeof(buf));
		t[i] = host_monotonic_ns() - t0;
	}
	*ns = median(t, CALIB_ROUNDS);
}

/* vCPU 0 back to its boot state and FPU reset; the scratch pages zeroed. */
static int restore(struct vm *vm, struct vcpu *v, char *err, size_t errlen)
{
	struct kvm_fpu fpu = { .fcw = 0x37f, .mxcsr = 0x1f80 };
	uint8_t *scratch = mem_gpa_to_host(&vm->mem, CALIB_CODE_GPA,
					   CALIB_STACK_TOP - CALIB_CODE_GPA);

	if (scratch)	/* RAM is at least MVM_RAM_MIN, so it always is */
		memset(scratch, 0, CALIB_STACK_TOP - CALIB_CODE_GPA);
	if (ioctl(v->fd, KVM_SET_FPU, &fpu))
		return errmsg(err, errlen, "xmm calibration: KVM_SET_FPU: %s", strerror(errno));
	return x86_init_vcpu(v->fd, &vm->image.entry, 0, err, errlen);
}

static int measure(struct vm *vm, struct xmm_calib *c, char *err, size_t errlen)
{
	struct vcpu *v = &vm->vcpus[0];
	uint8_t body[CALIB_MAX_BODY];
	size_t len = hv_page_spill_insns(body, sizeof(body));
	uint8_t *code = mem_gpa_to_host(&vm->mem, CALIB_CODE_GPA, 0x1000);

	if (!len || !code)
		return errmsg(err, errlen, "xmm calibration: no room for the timed blocks (a bug)");
	emit_timed(code, body, len);
	emit_timed(code + CALIB_EMPTY_OFF, body, 0);
	if (time_paths(vm, v, c, err, errlen))
		return -1;
	time_walk(vm, &c->walk_ns);
	return 0;
}

int xmm_calibrate(struct vm *vm, char *err, size_t errlen)
{
	struct xmm_calib *c = &vm->xmm_calib;
	int ret;

	if (!vm->hv || vm->cfg.xmm_path != XMM_PATH_AUTO)
		return 0;
	c->done = true;
	if (!vm->cfg.hv_xmm)
		c->untimed = "no XMM input offered, plain page";
	else if (vm->image.kind != IMAGE_ELF64)
		/* Its vCPU 0 boots in 32-bit mode and there are no 64-bit tables to time in. */
		c->untimed = "Multiboot kernel, not timed: plain page and KVM_GET_FPU";
	if (c->untimed) {
		/* Both paths are correct; the plain page is the shorter one. */
		vm->cfg.xmm_path = XMM_PATH_IOCTL;
		hv_set_xmm_spill(vm->hv, false);
		return 0;
	}
	ret = measure(vm, c, err, errlen);
	if (restore(vm, &vm->vcpus[0], err, errlen) || ret)
		return -1;
	vm->cfg.xmm_path = xmm_calib_prefers_spill(c) ? XMM_PATH_SPILL : XMM_PATH_IOCTL;
	hv_set_xmm_spill(vm->hv, vm->cfg.xmm_path == XMM_PATH_SPILL);
	return 0;
}

void xmm_calib_set_spill(struct xmm_calib *c, uint64_t spill_cycles, uint64_t empty_cycles,
			 uint64_t tsc_khz)
{
	c->spill_resolved = spill_cycles > empty_cycles && tsc_khz;
	c->spill_ns = c->spill_resolved ? (spill_cycles - empty_cycles) * 1000000ull / tsc_khz : 0;
}

bool xmm_calib_prefers_spill(const struct xmm_calib *c)
{
	return c->spill_ns + c->walk_ns <= c->get_fpu_ns;
}

void xmm_calib_format(const struct xmm_calib *c, bool spill, char *buf, size_t len)
{
	char guest[48];

	if (!c->spill_resolved)
		snprintf(guest, sizeof(guest), "guest spill not resolved by the TSC");
	else if (c->spill_ns < 10)	/* what %.2f would show as 0.00 */
		snprintf(guest, sizeof(guest), "guest spill under 0.01 us");
	else
		snprintf(guest, sizeof(guest), "guest spill %.2f us", c->spill_ns / 1e3);
	snprintf(buf, len, "auto: %s + VMM walk %.2f us %s KVM_GET_FPU %.2f us "
		 "(medians of %u alternated runs on vCPU 0)",
		 guest, c->walk_ns / 1e3, spill ? "<=" : ">", c->get_fpu_ns / 1e3, CALIB_ROUNDS);
}

void xmm_calib_describe(const struct vm *vm, char *buf, size_t len)
{
	const struct xmm_calib *c = &vm->xmm_calib;

	if (!c->done)
		snprintf(buf, len, "set by --hv-xmm-path");
	else if (c->untimed)
		snprintf(buf, len, "auto: %s", c->untimed);
	else
		xmm_calib_format(c, vm->cfg.xmm_path == XMM_PATH_SPILL, buf, len);
}
