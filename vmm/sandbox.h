/* SPDX-License-Identifier: MIT */
/*
 * Least privilege: once setup is over, each thread enters a seccomp filter
 * (libseccomp) that allows only what its kind still needs. A call outside
 * it traps (SIGSYS): one line on stderr naming the call, then exit
 * SANDBOX_EXIT_STATUS. docs/robustness.md has the threat model.
 */
#ifndef VMM_SANDBOX_H
#define VMM_SANDBOX_H

#include <linux/filter.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "vmm/exitstatus.h"

/* 128 + SIGSYS = 159, what a shell shows for a process the kernel killed with SIGSYS. */
#define SANDBOX_EXIT_STATUS	EXITSTATUS_SIGNAL(SIGSYS)

struct vm;
struct vcpu;

/* What a filter is built from: the fds its thread owns. -1 = none. */
struct sandbox_fds {
	int vcpu_fd;		/* vCPU thread: its own vCPU */
	int vm_fd;		/* vCPU thread: KVM_SIGNAL_MSI for Hyper-V IPIs, if hv */
	int out_fd;		/* main thread: the --json file */
	bool hv;		/* the Hyper-V layer is on: its ioctls are needed */
	bool hv_kvm;		/* KVM's Hyper-V serves: KVM_GET_MSRS for a crash report */
	/* Linux guests (a device with BUS_F_RAISES_IRQ; the console input thread). */
	bool irq_line;		/* vCPU and input threads: KVM_IRQ_LINE on vm_fd (COM1's IRQ 4) */
	int in_fd;		/* input thread: the fd it reads (stdin) */
	bool term;		/* input thread: puts in_fd's termios back (TCGETS, TCSETS) */
};

/*
 * The vCPU filter as BPF with the vCPU fd left open: libseccomp builds it
 * once in the main thread, each vCPU thread writes its own fd into the
 * slots and loads it. Building it in every thread cost each vCPU a deeper
 * stack and its share of a malloc arena (docs/results/scale.md). The placeholders
 * are fds no process here has; sandbox_build_vcpu() builds with both and
 * checks that only those JEQ constants differ.
 */
#define SANDBOX_FD_PLACEHOLDER_A	0x7ffffff0
#define SANDBOX_FD_PLACEHOLDER_B	0x7ffffff1
#define SANDBOX_FD_SLOTS_MAX		32

struct sandbox_vcpu_prog {
	struct sock_filter *insns;
	unsigned int len;
	unsigned int nr_slots;
	unsigned short slot[SANDBOX_FD_SLOTS_MAX];	/* instructions comparing the vCPU fd */
	pthread_mutex_t lock;				/* one patch-and-load at a time */
	bool ready;
};

/*
 * From the main thread before any vCPU thread exists: no_new_privs (the
 * threads inherit it) and the SIGSYS handler. 0, or -1 with err set.
 */
int sandbox_prepare(char *err, size_t errlen);
/* Build the vCPU filter for fds (vcpu_fd unused), load it for one vCPU fd, free it. */
int sandbox_build_vcpu(const struct sandbox_fds *fds, struct sandbox_vcpu_prog *p,
		       char *err, size_t errlen);
int sandbox_load_vcpu(struct sandbox_vcpu_prog *p, int vcpu_fd, char *err, size_t errlen);
void sandbox_free_vcpu(struct sandbox_vcpu_prog *p);
/* Enter the vCPU or main thread's filter. 0, or -1 with err set. */
int sandbox_enter_vcpu(const struct sandbox_fds *fds, char *err, size_t errlen);
int sandbox_enter_main(const struct sandbox_fds *fds, char *err, size_t errlen);
/* The console input thread's filter: read on in_fd, ppoll, KVM_IRQ_LINE on vm_fd, TCSETS. */
int sandbox_enter_input(const struct sandbox_fds *fds, char *err, size_t errlen);

/* The minivmm side: which fds a vCPU or the main thread owns, and the banner's words. */
int sandbox_prepare_vcpus(struct vm *vm, char *err, size_t errlen);	/* main thread */
int sandbox_vcpu(struct vcpu *v, char *err, size_t errlen);		/* its own thread */
int sandbox_main(struct vm *vm, char *err, size_t errlen);
/* The console input thread, reading in_fd (a raw terminal to restore if term). */
int sandbox_input(struct vm *vm, int in_fd, bool term, char *err, size_t errlen);
const char *sandbox_banner(const struct vm *vm);

/*
 * The line the SIGSYS handler writes, built without stdio or allocation
 * (async-signal-safe): "minivmm: sandbox: forbidden system call NAME (NR)
 * in the THREAD thread; exiting 159 ...". Returns its length.
 */
size_t sandbox_format_denial(char *buf, size_t len, long nr, unsigned int arch, bool main_thread);
/* The x86-64 name of a system call number, or NULL. */
const char *sandbox_syscall_name(long nr);

#endif
