/* SPDX-License-Identifier: MIT */
/* The /dev/kvm handle: the only place that opens it and checks capabilities. */
#ifndef VMM_KVM_H
#define VMM_KVM_H

#include <stdbool.h>
#include <stddef.h>

#include "minivmm/abi.h"

struct kvm_host {
	int fd;
	int vcpu_mmap_size;
	unsigned int max_vcpus;
	enum mvm_backend backend;
	bool user_msr;		/* KVM_CAP_X86_USER_SPACE_MSR + MSR filter */
	bool quirks2;		/* KVM_CAP_DISABLE_QUIRKS2 */
	int sync_regs;		/* KVM_CAP_SYNC_REGS: the valid fields */
	char kernel[80];	/* uname -r */
	char cpu_model[80];
	unsigned int host_cpus;
};

int kvm_open(struct kvm_host *kvm, const char *path, char *err, size_t errlen);
void kvm_close(struct kvm_host *kvm);
int kvm_check(const struct kvm_host *kvm, long cap);
/* Refuse more vCPUs than KVM_CAP_MAX_VCPUS, with the limit in the message. */
int kvm_check_vcpus(const struct kvm_host *kvm, unsigned int n, char *err, size_t errlen);
const char *kvm_backend_name(enum mvm_backend b);

#endif
