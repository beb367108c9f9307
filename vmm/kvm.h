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
	unsigned int max_vcpus;		/* KVM_CAP_MAX_VCPUS */
	unsigned int max_vcpu_id;	/* KVM_CAP_MAX_VCPU_ID: ids below this */
	int x2apic_api;			/* KVM_CAP_X2APIC_API: the features offered */
	enum mvm_backend backend;
	bool user_msr;		/* KVM_CAP_X86_USER_SPACE_MSR + MSR filter */
	bool quirks2;		/* KVM_CAP_DISABLE_QUIRKS2 */
	int sync_regs;		/* KVM_CAP_SYNC_REGS: the valid fields */
	char kernel[80];	/* uname -r */
	char cpu_model[80];
	char clocksource[32];	/* the host's current clocksource, "unknown" if unreadable */
	unsigned int host_cpus;
};

int kvm_open(struct kvm_host *kvm, const char *path, char *err, size_t errlen);
void kvm_close(struct kvm_host *kvm);
int kvm_check(const struct kvm_host *kvm, long cap);

/* A capability some feature needs: its number, its name, why it is needed. */
struct kvm_cap_need {
	long cap;
	const char *name;
	const char *why;
};

/* The first of the `n` capabilities `need` that KVM does not report, or NULL. */
const struct kvm_cap_need *kvm_first_missing(const struct kvm_host *kvm,
					     const struct kvm_cap_need *need, size_t n);
/*
 * Refuse a vCPU count this KVM cannot run, naming the limit: KVM_CAP_MAX_VCPUS,
 * KVM_CAP_MAX_VCPU_ID (vCPU i has id i = its APIC ID), or, past 255 vCPUs,
 * KVM_CAP_X2APIC_API (MSIs to APIC IDs above 255, and 255 itself in x2APIC mode).
 */
int kvm_check_vcpus(const struct kvm_host *kvm, unsigned int n, char *err, size_t errlen);
/* KVM_CAP_X2APIC_API offers 32-bit MSI destinations and no 0xff broadcast quirk. */
bool kvm_x2apic_api_usable(const struct kvm_host *kvm);
/* Raise RLIMIT_NOFILE's soft limit for n vCPU fds; say so when the hard one is too low. */
int kvm_check_fd_limit(unsigned int n, char *err, size_t errlen);
const char *kvm_backend_name(enum mvm_backend b);
/*
 * Whether a host clocksource of this name lets KVM run its master clock,
 * which KVM_CLOCK_TSC_STABLE reports: the TSC (tsc, tsc-early), or Hyper-V's
 * reference TSC page when the host is a Hyper-V guest (KVM's
 * gtod_is_based_on_tsc). Any other (hpet, acpi_pm, kvm-clock) leaves each
 * vCPU's TSC offset reset whenever its thread moves.
 */
bool kvm_clocksource_is_tsc(const char *name);

#endif
