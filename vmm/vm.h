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
#include "vmm/dev/fwcfg.h"
#include "vmm/dev/serial16550.h"
#include "vmm/kvm.h"
#include "vmm/linux.h"
#include "vmm/loader.h"
#include "vmm/mem.h"
#include "vmm/options.h"
#include "vmm/pvtime.h"
#include "vmm/ratelimit.h"
#include "vmm/results.h"
#include "vmm/sandbox.h"
#include "vmm/stats.h"
#include "vmm/xmm_calib.h"

struct hv;
struct flush_wait;
struct kvm_run;
struct kvm_cpuid2;

/* Per-vCPU requests, handled by the vCPU's own thread before re-entry. */
#define VCPU_REQ_STOP	(1u << 0)
#define VCPU_REQ_FLUSH	(1u << 1)
#define VCPU_REQ_DUMP	(1u << 2)
#define VCPU_REQ_PAUSE	(1u << 3)

#define CONSOLE_LINE_MAX 1024

struct vcpu {
	struct vcpu_stats stats;	/* first: its hot end meets the fields below (stats.h) */
	struct vm *vm;
	unsigned int index;
	int fd;
	struct kvm_run *run;
	pthread_t thread;
	bool started;
	atomic_uint requests;
	atomic_bool in_run;		/* between the request check and KVM_RUN's return */
	atomic_uint flush_seq;		/* flushes asked of this vCPU */
	atomic_uint flush_done;		/* flushes it has done (a futex word) */
	atomic_uint pause_us;		/* how long the next pause holds it out */
	atomic_uint pause_ack;		/* bumped when a pause begins (a futex word) */
	struct flush_wait *flush_waits;	/* hvhost.c: this caller's pending targets */
	unsigned int flush_waits_cap;
	struct pvtime pv;
	char line[CONSOLE_LINE_MAX];	/* console: this vCPU's unfinished line */
	unsigned int line_len;
};

struct vm {
	struct vm_config cfg;
	struct kvm_host kvm;
	int fd;
	int sync_regs;			/* KVM_SYNC_X86_* fields every exit carries */
	bool hypercall_quirk_off;	/* vmcall/vmmcall raise #UD instead of hanging */
	bool x2apic_msi;		/* KVM_CAP_X2APIC_API on: 32-bit MSI destinations */
	bool stuck;			/* a vCPU thread never came back from KVM */
	struct guest_mem mem;
	uint64_t entry;
	uint64_t boot_ebx;		/* 32-bit entries: Multiboot info or PVH start info */
	enum image_kind kind;		/* ELF64 payload, Multiboot or Linux kernel */
	struct linux_image linux_img;	/* what was loaded, for the banner */
	uint64_t tsc_khz;
	struct kvm_cpuid2 *cpuid;	/* template; per-vCPU APIC IDs patched in */
	struct bus bus;
	pthread_mutex_t dev_lock;	/* device registers several vCPUs may touch */
	struct uart16550 com1;
	struct fwcfg fwcfg;		/* Multiboot kernels only */
	uint64_t pmtimer_start_ns;	/* CLOCK_MONOTONIC when the PM timer read 0 */
	struct hv *hv;
	struct vcpu *vcpus;
	pthread_t main_thread;
	atomic_bool stopping;
	atomic_int exit_status;		/* meaningful once stopping */
	pthread_mutex_t out_lock;	/* one writer at a time on stdout/stderr */
	struct ratelimit guest_msgs;	/* what the guest made us say, counted */
	struct results results;
	struct vm_stats stats;
	struct xmm_calib xmm_calib;	/* how --hv-xmm-path auto chose */
	int json_fd;			/* --json FILE, opened before the sandbox; -1 = none */
	struct sandbox_vcpu_prog vcpu_filter;	/* built once, loaded by every vCPU thread */
};

int vm_create(struct vm *vm, const struct vm_config *cfg, char *err, size_t errlen);
/* Run every vCPU until the guest exits, crashes, times out or a signal arrives. */
int vm_run(struct vm *vm);
void vm_destroy(struct vm *vm);

/* Ask every vCPU to stop; the first status given wins. Safe from any thread. */
void vm_request_stop(struct vm *vm, int status);

#endif
