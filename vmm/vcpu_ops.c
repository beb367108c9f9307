// SPDX-License-Identifier: MIT
/*
 * The vCPU operations handlers and devices use, and the small functions
 * they reach the VM through. Below exits.c and every device; above only
 * vcpu_req.c, pvtime.c and KVM.
 */
#include <errno.h>
#include <linux/kvm.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include "vmm/exitstatus.h"
#include "vmm/resetstate.h"
#include "vmm/vcpu.h"
#include "vmm/vcpu_ops.h"
#include "vmm/vcpu_req.h"
#include "vmm/vm.h"
#include "vmm/x86.h"

unsigned int vcpu_index(const struct vcpu *v)
{
	return v->index;
}

struct vm *vcpu_vm(const struct vcpu *v)
{
	return v->vm;
}

struct bus *vm_bus(struct vm *vm)
{
	return &vm->bus;
}

struct guest_mem *vm_mem(struct vm *vm)
{
	return &vm->mem;
}

unsigned int vm_nr_vcpus(const struct vm *vm)
{
	return vm->cfg.nr_vcpus;
}

bool vm_qemu_exit(const struct vm *vm)
{
	return vm->cfg.qemu_exit;
}

struct results *vm_results(struct vm *vm)
{
	return &vm->results;
}

pthread_mutex_t *vm_out_lock(struct vm *vm)
{
	return &vm->out_lock;
}

void vm_say(struct vm *vm, enum guest_msg kind, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ratelimit_vsay(&vm->guest_msgs, &vm->out_lock, kind, fmt, ap);
	va_end(ap);
}

void vm_irq_edge(struct vm *vm, unsigned int irq)
{
	struct kvm_irq_level l = { .irq = irq, .level = 1 };

	/* Only a bad irq number fails: a minivmm bug, nothing the guest did. */
	(void)ioctl(vm->fd, KVM_IRQ_LINE, &l);
	l.level = 0;
	(void)ioctl(vm->fd, KVM_IRQ_LINE, &l);
}

void vm_irq_level(struct vm *vm, unsigned int irq, bool high)
{
	struct kvm_irq_level l = { .irq = irq, .level = high };

	(void)ioctl(vm->fd, KVM_IRQ_LINE, &l);
}

int vcpu_complete_exit(struct vcpu *v)
{
	int r, err;

	v->run->immediate_exit = 1;
	r = ioctl(v->fd, KVM_RUN, 0);
	err = errno;
	v->run->immediate_exit = 0;
	if (r == 0 || err != EINTR) {
		errno = r == 0 ? EPROTO : err;
		return -1;
	}
	return 0;
}

int vcpu_resume_real_mode(struct vcpu *v, uint32_t vector)
{
	struct kvm_regs *r = &v->run->s.regs.regs;

	if (vcpu_complete_exit(v) || x86_real_mode_sregs(v->fd, vector))
		return -1;
	/* The synced segment copy is stale now; the registers go in through the sync. */
	v->run->kvm_dirty_regs &= ~(uint64_t)KVM_SYNC_X86_SREGS;
	*r = (struct kvm_regs){ .rip = vector & 0xf, .rflags = 0x2 };
	v->run->kvm_dirty_regs |= KVM_SYNC_X86_REGS;
	return 0;
}

int vcpu_inject_exception(struct vcpu *v, unsigned int vector)
{
	struct kvm_vcpu_events ev;

	if (ioctl(v->fd, KVM_GET_VCPU_EVENTS, &ev))
		return -1;
	ev.exception.injected = 1;
	ev.exception.nr = vector;
	ev.exception.has_error_code = 0;
	ev.exception.error_code = 0;
	ev.flags = 0;
	return ioctl(v->fd, KVM_SET_VCPU_EVENTS, &ev);
}

/* One MSR through KVM_GET_MSRS or KVM_SET_MSRS, which return how many they did. */
static int vcpu_msr_ioctl(struct vcpu *v, unsigned long req, uint32_t index, uint64_t *val)
{
	struct {
		struct kvm_msrs hdr;
		struct kvm_msr_entry e;
	} m = { .hdr.nmsrs = 1, .e = { .index = index, .data = *val } };

	if (ioctl(v->fd, req, &m) != 1)
		return -1;
	*val = m.e.data;
	return 0;
}

int vcpu_get_msr(struct vcpu *v, uint32_t index, uint64_t *val)
{
	*val = 0;
	return vcpu_msr_ioctl(v, KVM_GET_MSRS, index, val);
}

int vcpu_set_msr(struct vcpu *v, uint32_t index, uint64_t val)
{
	return vcpu_msr_ioctl(v, KVM_SET_MSRS, index, &val);
}

/* Toggle CR4.PGE: KVM flushes the guest TLB when PGE changes (SDM 4.10.4.1). */
static int flush_guest_tlb(struct vcpu *v)
{
	struct kvm_sregs sr;

	if (ioctl(v->fd, KVM_GET_SREGS, &sr))
		return -1;
	/* Only CR4.PGE may change: not TR's type (x86.h says why). */
	x86_sregs_keep_svm_tr(&sr, v->vm->kvm.backend == MVM_BACKEND_SVM);
	sr.cr4 ^= X86_CR4_PGE;
	if (ioctl(v->fd, KVM_SET_SREGS, &sr))
		return -1;
	sr.cr4 ^= X86_CR4_PGE;
	if (ioctl(v->fd, KVM_SET_SREGS, &sr))
		return -1;
	/* The synced copy is stale now; never write it back this round. */
	v->run->kvm_dirty_regs &= ~KVM_SYNC_X86_SREGS;
	return 0;
}

void vcpu_flush_pending(struct vcpu *v)
{
	unsigned int want = atomic_load(&v->flush_seq);

	if (want == atomic_load(&v->flush_done))
		return;
	if (flush_guest_tlb(v))
		vcpu_fail(v, "TLB flush by CR4.PGE toggle failed: %s", strerror(errno));
	v->stats.flushes_done++;
	vcpu_req_flush_done(v, want);
}

/*
 * A request returns only once its target's hold has begun, and a vCPU blocked
 * in a request cannot begin one: two vCPUs pausing each other (or a longer
 * cycle) would wait for ever. Each caller says it waits before it looks at
 * its target (sequentially consistent), so in any cycle at least one caller
 * sees its target waiting and is refused.
 */
int vcpu_pause_sibling(struct vcpu *caller, unsigned int target, unsigned int us)
{
	struct vm *vm = caller->vm;
	struct vcpu *t;

	if (target >= vm->cfg.nr_vcpus || target == caller->index)
		return -1;
	t = &vm->vcpus[target];
	atomic_store(&caller->pv.awaiting_hold, true);
	if (atomic_load(&t->pv.awaiting_hold)) {
		atomic_store(&caller->pv.awaiting_hold, false);
		return -1;
	}
	/* A flush asked of us while we ran may be what holds up our target. */
	vcpu_flush_pending(caller);
	/* The caller waits outside guest mode: say so to its siblings too. */
	pvtime_hold_begin(caller);
	vcpu_pause(t, us, false);
	pvtime_hold_end(caller);
	atomic_store(&caller->pv.awaiting_hold, false);
	return 0;
}

static void dump_seg(FILE *f, const char *name, const struct kvm_segment *s)
{
	fprintf(f, "  %s=%04x dpl=%u base=%llx limit=%x type=%u l=%u\n", name, s->selector,
		s->dpl, (unsigned long long)s->base, s->limit, s->type, s->l);
}

/* The words at the top of the stack, as far as they can be read. */
static void dump_stack(FILE *f, const struct vcpu *v, const struct kvm_sregs *s, uint64_t rsp)
{
	uint64_t w[VCPU_DUMP_STACK_WORDS];
	unsigned int n = x86_read_stack(&v->vm->mem, s, rsp, w, VCPU_DUMP_STACK_WORDS);

	if (!n) {
		fprintf(f, "  stack: not readable at RSP (not mapped, or paging the dump does not walk)\n");
		return;
	}
	for (unsigned int i = 0; i < n; i++) {
		if (i % 4 == 0)
			fprintf(f, "  RSP+%03x:", i * 8);
		fprintf(f, " %016llx", (unsigned long long)w[i]);
		if (i % 4 == 3 || i == n - 1)
			fputc('\n', f);
	}
}

void vcpu_dump(struct vcpu *v, bool full)
{
	struct kvm_regs r;
	struct kvm_sregs s;
	FILE *f = stderr;

	pthread_mutex_lock(&v->vm->out_lock);
	if (ioctl(v->fd, KVM_GET_REGS, &r) || ioctl(v->fd, KVM_GET_SREGS, &s)) {
		fprintf(f, "vCPU %u: registers unavailable: %s\n", v->index, strerror(errno));
		goto out;
	}
	fprintf(f, "vCPU %u: RIP=%016llx RSP=%016llx RFLAGS=%08llx CPL=%u\n", v->index,
		(unsigned long long)r.rip, (unsigned long long)r.rsp,
		(unsigned long long)r.rflags, s.ss.dpl);
	if (!full)
		goto out;
	fprintf(f, "  RAX=%016llx RBX=%016llx RCX=%016llx RDX=%016llx\n"
		"  RSI=%016llx RDI=%016llx RBP=%016llx R8 =%016llx\n"
		"  R9 =%016llx R10=%016llx R11=%016llx R12=%016llx\n"
		"  R13=%016llx R14=%016llx R15=%016llx\n",
		r.rax, r.rbx, r.rcx, r.rdx, r.rsi, r.rdi, r.rbp, r.r8,
		r.r9, r.r10, r.r11, r.r12, r.r13, r.r14, r.r15);
	fprintf(f, "  CR0=%llx CR2=%llx CR3=%llx CR4=%llx EFER=%llx\n",
		s.cr0, s.cr2, s.cr3, s.cr4, s.efer);
	dump_seg(f, "CS", &s.cs);
	dump_seg(f, "SS", &s.ss);
	fprintf(f, "  GDT=%llx/%x IDT=%llx/%x\n", (unsigned long long)s.gdt.base, s.gdt.limit,
		(unsigned long long)s.idt.base, s.idt.limit);
	if (x86_is_reset_state(&r, &s))
		fprintf(f, "  stack: not shown (reset state: RSP is not a stack the guest set up)\n");
	else
		dump_stack(f, v, &s, r.rsp);
out:
	fflush(f);
	pthread_mutex_unlock(&v->vm->out_lock);
}

void vcpu_fail(struct vcpu *v, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&v->vm->out_lock);
	fprintf(stderr, "minivmm: vCPU %u: ", v->index);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	pthread_mutex_unlock(&v->vm->out_lock);
	vcpu_dump(v, true);
	vm_request_stop(v->vm, EXITSTATUS_GUEST_CRASH);
}
