/* SPDX-License-Identifier: MIT */
/*
 * What a device or an exit handler may ask of the vCPU whose exit it
 * handles and of that vCPU's VM, through small functions: a device compiles
 * against this header and vmm/bus.h, never against struct vm or struct vcpu.
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
/* The result records the guest submitted (vmm/results.h). */
struct results *vm_results(struct vm *vm);
/* Held for one write at a time on stdout/stderr, by everyone. */
pthread_mutex_t *vm_out_lock(struct vm *vm);
/* A message the guest provoked: rate-limited per kind (vmm/ratelimit.h). */
void vm_say(struct vm *vm, enum guest_msg kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Ask every vCPU to stop; the first status given wins. Safe from any thread. */
void vm_request_stop(struct vm *vm, int status);

#endif
