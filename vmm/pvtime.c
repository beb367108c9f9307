// SPDX-License-Identifier: MIT
#include <asm/kvm_para.h>
#include <stddef.h>

#include "vmm/pvtime.h"
#include "vmm/tsc.h"
#include "vmm/vcpu.h"
#include "vmm/vcpu_ops.h"
#include "vmm/vm.h"

#define ST_PREEMPTED_OFF	offsetof(struct kvm_steal_time, preempted)

static uint8_t *preempted_byte(const struct vcpu *v)
{
	uint64_t gpa = v->pv.msr & KVM_STEAL_VALID_BITS;

	if (!(v->pv.msr & KVM_MSR_ENABLED))
		return NULL;
	return mem_gpa_to_host(&v->vm->mem, gpa + ST_PREEMPTED_OFF, 1);
}

bool pvtime_wrmsr(struct vcpu *v, uint64_t val)
{
	/* KVM validates alignment and reserved bits. */
	if (vcpu_set_msr(v, MSR_KVM_STEAL_TIME, val))
		return false;
	if (v->pv.holding)
		pvtime_hold_end(v);
	v->pv.msr = val;
	return true;
}

void pvtime_hold_begin(struct vcpu *v)
{
	uint8_t *p = preempted_byte(v);

	if (!p || v->pv.holding)
		return;
	/* OR, not store: the guest may have set KVM_VCPU_FLUSH_TLB in the same byte. */
	__atomic_fetch_or(p, KVM_VCPU_PREEMPTED, __ATOMIC_SEQ_CST);
	v->pv.holding = true;
	v->pv.episodes++;
	v->pv.hold_start = host_rdtsc();
}

void pvtime_hold_end(struct vcpu *v)
{
	uint8_t *p = preempted_byte(v);

	if (!v->pv.holding)
		return;
	v->pv.holding = false;
	v->pv.held_cycles += host_rdtsc() - v->pv.hold_start;
	/*
	 * Leave KVM_VCPU_FLUSH_TLB for KVM to act on at entry; count it: the
	 * guest's PV flush (kvm_flush_tlb_multi) chose it over an IPI.
	 */
	if (p && (__atomic_fetch_and(p, (uint8_t)~KVM_VCPU_PREEMPTED, __ATOMIC_SEQ_CST) &
		  KVM_VCPU_FLUSH_TLB))
		v->pv.flush_deferred++;
}

int64_t pvtime_steal_ns(const struct vcpu *v)
{
	uint64_t steal;

	if (!(v->pv.msr & KVM_MSR_ENABLED) ||
	    mem_read(&v->vm->mem, v->pv.msr & KVM_STEAL_VALID_BITS, &steal, sizeof(steal)))
		return -1;
	return (int64_t)steal;
}
