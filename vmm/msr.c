// SPDX-License-Identifier: MIT
#include <errno.h>
#include <asm/kvm_para.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include "hv/hv.h"
#include "vmm/msr.h"
#include "vmm/vcpu.h"
#include "vmm/vcpu_ops.h"
#include "vmm/vm.h"

_Static_assert((HV_X64_MSR_CLAIM_LAST - HV_X64_MSR_CLAIM_FIRST + 1) / 8 <=
	       KVM_MSR_FILTER_MAX_BITMAP_SIZE, "the claimed MSR range exceeds KVM's filter bitmap");
_Static_assert((HV_X64_MSR_CLAIM_LAST - HV_X64_MSR_CLAIM_FIRST + 1) % 64 == 0,
	       "KVM copies the bitmap in longs: keep the range a multiple of 64 MSRs");

/*
 * The whole Hyper-V range minivmm claims is denied to KVM, so every access
 * exits here: KVM's own Hyper-V emulation (where it has one) never sees
 * the guest, every MSR hv/ does not offer is a #GP, and with --no-hyperv
 * each access is a #GP, like on a host without it. The range (512 MSRs, a
 * 64-byte bitmap) is far below KVM_MSR_FILTER_MAX_BITMAP_SIZE (0x600 bytes).
 * With --hv-impl kvm the range is KVM's: it serves the MSRs itself.
 */
int msr_setup(struct vm *vm, char *err, size_t errlen)
{
	static const uint8_t deny[(HV_X64_MSR_CLAIM_LAST - HV_X64_MSR_CLAIM_FIRST + 1) / 8];
	struct kvm_msr_filter filter = {
		.flags = KVM_MSR_FILTER_DEFAULT_ALLOW,
		.ranges[0] = {
			.flags = KVM_MSR_FILTER_READ | KVM_MSR_FILTER_WRITE,
			.nmsrs = HV_X64_MSR_CLAIM_LAST - HV_X64_MSR_CLAIM_FIRST + 1,
			.base = HV_X64_MSR_CLAIM_FIRST,
			.bitmap = (uint8_t *)deny,
		},
		/* Writes only: minivmm must know where the steal-time record is. */
		.ranges[1] = {
			.flags = KVM_MSR_FILTER_WRITE,
			.nmsrs = 1,
			.base = MSR_KVM_STEAL_TIME,
			.bitmap = (uint8_t *)deny,
		},
	};
	struct kvm_enable_cap cap = {
		.cap = KVM_CAP_X86_USER_SPACE_MSR,
		.args[0] = KVM_MSR_EXIT_REASON_FILTER,
	};

	/* KVM's own Hyper-V (--hv-impl kvm) must see the range: steal time alone is filtered. */
	if (vm->kvm_hv.on) {
		filter.ranges[0] = filter.ranges[1];
		memset(&filter.ranges[1], 0, sizeof(filter.ranges[1]));
	}
	if (!vm->kvm.user_msr && vm->hv) {
		snprintf(err, errlen, "KVM lacks KVM_CAP_X86_USER_SPACE_MSR or KVM_CAP_X86_MSR_FILTER (Linux 5.10+), needed to emulate the Hyper-V MSRs; run with --no-hyperv");
		return -1;
	}
	if (!vm->kvm.user_msr)
		return 0;	/* steal time then works, but "preempted" is not published */
	if (ioctl(vm->fd, KVM_ENABLE_CAP, &cap)) {
		snprintf(err, errlen, "enabling KVM_CAP_X86_USER_SPACE_MSR: %s", strerror(errno));
		return -1;
	}
	if (ioctl(vm->fd, KVM_X86_SET_MSR_FILTER, &filter)) {
		snprintf(err, errlen, "KVM_X86_SET_MSR_FILTER: %s", strerror(errno));
		return -1;
	}
	return 0;
}

void msr_handle(struct vcpu *v)
{
	struct kvm_run *run = v->run;
	struct hv *hv = v->vm->hv;
	enum hv_msr_result r = HV_MSR_GP;

	if (run->exit_reason == KVM_EXIT_X86_WRMSR && run->msr.index == MSR_KVM_STEAL_TIME) {
		run->msr.error = !pvtime_wrmsr(v, run->msr.data);
		return;
	}
	if (run->exit_reason == KVM_EXIT_X86_RDMSR) {
		uint64_t val = 0;

		if (hv)
			r = hv_msr_read(hv, v->index, run->msr.index, &val);
		run->msr.data = val;
	} else if (hv) {
		r = hv_msr_write(hv, v->index, run->msr.index, run->msr.data);
	}
	run->msr.error = r == HV_MSR_GP;	/* KVM injects the #GP */
}
