/* SPDX-License-Identifier: MIT */
/* struct vm: everything one run owns. No mutable state lives outside it. */
#ifndef VMM_VM_H
#define VMM_VM_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "minivmm/abi.h"
#include "vmm/bus.h"
#include "vmm/kvm.h"
#include "vmm/kvm_hv.h"
#include "vmm/image.h"
#include "vmm/mem.h"
#include "vmm/options.h"
#include "vmm/ratelimit.h"
#include "vmm/results.h"
#include "vmm/sandbox.h"
#include "vmm/stats.h"
#include "vmm/xmm_calib.h"

struct hv;
struct kvm_cpuid2;
struct vcpu;

struct vm {
	struct vm_config cfg;
	struct kvm_host kvm;
	int fd;
	int sync_regs;			/* KVM_SYNC_X86_* fields every exit carries */
	bool hypercall_quirk_off;	/* vmcall/vmmcall raise #UD instead of hanging */
	bool x2apic_msi;		/* KVM_CAP_X2APIC_API on: 32-bit MSI destinations */
	bool stuck;			/* a vCPU thread never came back from KVM */
	struct guest_mem mem;
	/* What the loader made of the kernel: its kind, how the vCPUs start, the banner's facts. */
	struct load_info image;
	uint64_t tsc_khz;
	struct kvm_cpuid2 *cpuid;	/* template; per-vCPU APIC IDs patched in */
	struct bus bus;			/* the devices, which own their state (vmm/dev/devices.h) */
	struct hv *hv;			/* minivmm's Hyper-V layer, or NULL */
	struct kvm_hv kvm_hv;		/* --hv-impl kvm: KVM's serves instead */
	struct vcpu *vcpus;
	pthread_t main_thread;
	atomic_bool stop_claimed;	/* the first vm_request_stop() sets it, then the status */
	atomic_bool stopping;		/* set last: whoever sees it sees exit_status */
	atomic_int exit_status;		/* meaningful once stopping */
	atomic_bool guest_panicked;	/* its console showed a panic: a reset now is a crash */
	pthread_mutex_t out_lock;	/* one writer at a time on stdout/stderr */
	struct ratelimit guest_msgs;	/* what the guest made us say, counted */
	struct results results;
	struct vm_stats stats;
	struct xmm_calib xmm_calib;	/* how --hv-xmm-path auto chose */
	int json_fd;			/* --json FILE, opened before the sandbox; -1 = none */
	struct sandbox_vcpu_prog vcpu_filter;	/* built once, loaded by every vCPU thread */
	uint64_t preempt_due;		/* --preempt: CLOCK_MONOTONIC ns of the next round, 0 = none yet */
	uint64_t preempt_rounds;	/* rounds started (main thread only) */
	uint64_t hv_epoch_ns;		/* CLOCK_MONOTONIC ns of Hyper-V reference time 0 */
	atomic_int ref_tsc_page;	/* enum vm_ref_tsc_page: what the guest was given */
};

/* The reference TSC page as offered and last enabled (--pv hyperv). */
enum vm_ref_tsc_page {
	VM_REF_TSC_UNUSED = 0,		/* never enabled */
	VM_REF_TSC_VALID,		/* KVM's TSC stable: time read from the TSC */
	VM_REF_TSC_INVALID,		/* KVM's TSC not stable: sequence 0, the MSR instead */
	VM_REF_TSC_NOT_OFFERED,		/* Linux on a host whose clocksource is not the TSC */
};

/* The guest is shown Hyper-V, whichever implementation serves it. */
static inline bool vm_hyperv_shown(const struct vm *vm)
{
	return vm->hv || vm->kvm_hv.on;
}

int vm_create(struct vm *vm, const struct vm_config *cfg, char *err, size_t errlen);
/* Run every vCPU until the guest exits, crashes, times out or a signal arrives. */
int vm_run(struct vm *vm);
void vm_destroy(struct vm *vm);

/* vm_request_stop(): vmm/vcpu_req.h */

#endif
