/* SPDX-License-Identifier: MIT */
/*
 * What an exit handler or a device may do to the vCPU whose exit it
 * handles (finish the exit, inject, flush, fail with a register dump), and
 * ask of that vCPU's VM, through small functions: a device compiles against
 * this header and vmm/bus.h, never against struct vm or struct vcpu. Calls
 * down only (vmm/vcpu_req.h, pvtime, KVM), never into vcpu.c or exits.c.
 */
#ifndef VMM_VCPU_OPS_H
#define VMM_VCPU_OPS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmm/ratelimit.h"

struct bus;
struct guest_mem;
struct results;
struct vcpu;
struct vm;

unsigned int vcpu_index(const struct vcpu *v);
struct vm *vcpu_vm(const struct vcpu *v);

/* The VM's port-I/O/MMIO bus: where a device registers its ranges. */
struct bus *vm_bus(struct vm *vm);
/* Guest RAM: access it with mem_read()/mem_write()/mem_gpa_to_host() (vmm/mem.h). */
struct guest_mem *vm_mem(struct vm *vm);
unsigned int vm_nr_vcpus(const struct vm *vm);
/* --qemu-exit: the exit port's code C ends the run as (C << 1) | 1. */
bool vm_qemu_exit(const struct vm *vm);
/* The result records the guest submitted (vmm/results.h). */
struct results *vm_results(struct vm *vm);
/* Held for one write at a time on stdout/stderr, by everyone. */
pthread_mutex_t *vm_out_lock(struct vm *vm);
/* A message the guest provoked: rate-limited per kind (vmm/ratelimit.h). */
void vm_say(struct vm *vm, enum guest_msg kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* vm_request_stop(vm, status): vmm/vcpu_req.h. */
/*
 * An edge on `irq` of the in-kernel irqchip: KVM_IRQ_LINE level 1, then 0,
 * on the VM fd. Any thread; its filter must allow it (BUS_F_RAISES_IRQ).
 */
void vm_irq_edge(struct vm *vm, unsigned int irq);
/* Hold `irq` of the in-kernel irqchip high or low (KVM_IRQ_LINE); the same rules. */
void vm_irq_level(struct vm *vm, unsigned int irq, bool high);

/*
 * Finish the pending exit (an OUT's skip, an IN's or MMIO read's data) with
 * one KVM_RUN under immediate_exit: KVM returns before running guest code.
 * The KVM API promises consistent registers only after this. 0, or -1 with
 * errno.
 */
int vcpu_complete_exit(struct vcpu *v);
/*
 * From v's own thread: one MSR as KVM holds it (for IA32_TSC, the guest's
 * TSC at this instant), or set through KVM, which validates the value.
 * 0, or -1.
 */
int vcpu_get_msr(struct vcpu *v, uint32_t index, uint64_t *val);
int vcpu_set_msr(struct vcpu *v, uint32_t index, uint64_t val);
/*
 * From v's own thread, in an exit: finish the exit, then restart v in real
 * mode at `vector` (an ACPI S3 resume). 0, or -1 with errno.
 */
int vcpu_resume_real_mode(struct vcpu *v, uint32_t vector);
/* Inject exception `vector`, without an error code, before the next entry. 0, or -1 with errno. */
int vcpu_inject_exception(struct vcpu *v, unsigned int vector);
/*
 * From v's own thread: do a TLB flush asked of v and not yet done (the run
 * loop does it before each entry; a handler about to block on another vCPU
 * does it first, since its requester may be what it waits for).
 */
void vcpu_flush_pending(struct vcpu *v);
/*
 * From `caller`'s thread: hold vCPU `target` out of guest mode for `us`
 * microseconds, returning once the hold began. -1 (nothing done) if the
 * target is the caller, does not exist, or is itself waiting to hold
 * another: two vCPUs pausing each other would wait for ever.
 */
int vcpu_pause_sibling(struct vcpu *caller, unsigned int target, unsigned int us);

/* Print a crash report for this vCPU (from its own thread) and stop the VM with 3. */
void vcpu_fail(struct vcpu *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * One-line or full register dump to stderr; the full one ends with the
 * first VCPU_DUMP_STACK_WORDS words of the stack. A timeout dumps each vCPU
 * in full when the VM has at most VCPU_DUMP_FULL_MAX of them (one line each
 * otherwise: a 1024-vCPU hang stays readable).
 */
#define VCPU_DUMP_STACK_WORDS	32
#define VCPU_DUMP_FULL_MAX	4
void vcpu_dump(struct vcpu *v, bool full);

#endif
