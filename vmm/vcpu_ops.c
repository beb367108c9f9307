// SPDX-License-Identifier: MIT
/* The small functions devices and handlers reach the vCPU and the VM through. */
#include "vmm/vcpu_ops.h"
#include "vmm/vm.h"

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
