// SPDX-License-Identifier: MIT
/* Complete a PIO OUT exit and locate its instruction (see pio_out.h). */
#include <linux/kvm.h>

#include "minivmm/abi.h"
#include "vmm/insn_out.h"
#include "vmm/pio_out.h"
#include "vmm/vcpu.h"
#include "vmm/vcpu_ops.h"
#include "vmm/x86.h"

#define CODE_WINDOW	INSN_OUT_MAX_LEN	/* bytes read on each side of RIP */

/* Bytes of [la, la + want) readable, trying the whole run, then la's page alone. */
static unsigned int read_after(const struct guest_mem *mem, const struct kvm_sregs *s,
			       uint64_t la, uint8_t *dst, unsigned int want)
{
	uint64_t in_page = MVM_PAGE_SIZE - (la & (MVM_PAGE_SIZE - 1));

	if (!x86_read_linear(mem, s, la, dst, want))
		return want;
	if (in_page < want && !x86_read_linear(mem, s, la, dst, in_page))
		return in_page;
	return 0;
}

/* Bytes of [la - want, la) readable, the same way; dst receives them right-aligned. */
static unsigned int read_before(const struct guest_mem *mem, const struct kvm_sregs *s,
				uint64_t la, uint8_t *dst, unsigned int want)
{
	uint64_t in_page = la & (MVM_PAGE_SIZE - 1);

	if (want > la)
		want = la;
	if (want && !x86_read_linear(mem, s, la - want, dst + CODE_WINDOW - want, want))
		return want;
	if (in_page && in_page < want &&
	    !x86_read_linear(mem, s, la - in_page, dst + CODE_WINDOW - in_page, in_page))
		return in_page;
	return 0;
}

enum pio_out_site pio_out_complete(struct vcpu *v, struct kvm_regs *at_exit,
				   uint64_t *insn_rip)
{
	struct kvm_run *run = v->run;
	const struct kvm_regs regs = run->s.regs.regs;
	const struct kvm_sregs sregs = run->s.regs.sregs;
	bool mode64 = (sregs.efer & X86_EFER_LMA) && sregs.cs.l;
	/* Taken before the KVM_RUN, which may reuse the exit fields. */
	struct insn_out_exit e = {
		.rip = regs.rip,
		.port = run->io.port,
		.size = run->io.size,
		.dx = regs.rdx & 0xffff,
		.mode64 = mode64,
		.opsize16 = !mode64 && !sregs.cs.db,
	};
	uint8_t code[2 * CODE_WINDOW];
	uint64_t la;

	if (at_exit)
		*at_exit = regs;
	if (vcpu_complete_exit(v))
		return PIO_OUT_FAILED;
	e.rip_moved = run->s.regs.regs.rip != regs.rip;
	if (!e.rip_moved) {
		/* Outside 64-bit mode CS may have a base, and addresses wrap at 4 GiB. */
		la = mode64 ? regs.rip : (sregs.cs.base + regs.rip) & 0xffffffffull;
		e.nr_before = read_before(vm_mem(v->vm), &sregs, la, code, CODE_WINDOW);
		e.nr_after = read_after(vm_mem(v->vm), &sregs, la, code + CODE_WINDOW, CODE_WINDOW);
		e.code = code + CODE_WINDOW - e.nr_before;
	}
	return insn_out_locate(&e, insn_rip) ? PIO_OUT_UNKNOWN : PIO_OUT_FOUND;
}
