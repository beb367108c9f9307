// SPDX-License-Identifier: MIT
/* The one switch on exit reasons. Devices are reached through the bus only. */
#include <linux/kvm.h>
#include <stdio.h>
#include <string.h>

#include "vmm/exits.h"
#include "vmm/msr.h"
#include "vmm/vcpu.h"

static void report_unclaimed(struct vcpu *v, enum bus_space space, uint64_t addr,
			     bool write, unsigned int size)
{
	struct vm *vm = v->vm;
	enum ratelimit_verdict say = ratelimit_check(&vm->guest_msgs, GMSG_UNCLAIMED);

	if (say == RATELIMIT_QUIET)
		return;
	pthread_mutex_lock(&vm->out_lock);
	fprintf(stderr, "minivmm: vCPU %u: %s of unclaimed %s 0x%llx (%u bytes) at RIP 0x%llx%s\n",
		v->index, write ? "write" : "read", space == BUS_PIO ? "port" : "MMIO address",
		(unsigned long long)addr, size, (unsigned long long)v->run->s.regs.regs.rip,
		write ? ", dropped" : ", reads all ones");
	if (say == RATELIMIT_SAY_LAST)
		ratelimit_note_last(stderr, GMSG_UNCLAIMED);
	pthread_mutex_unlock(&vm->out_lock);
}

static void access(struct vcpu *v, enum bus_space space, uint64_t addr, bool write,
		   void *data, unsigned int size)
{
	struct bus *bus = &v->vm->bus;

	if (bus_dispatch(bus, v, space, addr, write, data, size))
		return;
	if (bus_unclaimed(bus, space, addr, write, data, size))
		report_unclaimed(v, space, addr, write, size);
}

static enum stats_kind handle_io(struct vcpu *v)
{
	struct kvm_run *run = v->run;
	uint8_t *data = (uint8_t *)run + run->io.data_offset;
	bool write = run->io.direction == KVM_EXIT_IO_OUT;

	/* String I/O (rep outs/ins) comes as `count` accesses of `size` bytes. */
	for (uint32_t i = 0; i < run->io.count; i++)
		access(v, BUS_PIO, run->io.port, write, data + i * run->io.size, run->io.size);
	if (run->io.port == MVM_PORT_NULL)
		return STATS_PIO_NULL;
	return run->io.port == MVM_PORT_HCALL ? STATS_HCALL : STATS_PIO_OTHER;
}

static enum stats_kind handle_mmio(struct vcpu *v)
{
	struct kvm_run *run = v->run;
	uint64_t addr = run->mmio.phys_addr;

	if (run->mmio.len > sizeof(run->mmio.data) || !run->mmio.len) {
		vcpu_fail(v, "MMIO access of %u bytes at 0x%llx", run->mmio.len,
			  (unsigned long long)addr);
		return STATS_MMIO_OTHER;
	}
	access(v, BUS_MMIO, addr, run->mmio.is_write, run->mmio.data, run->mmio.len);
	if (addr >= MVM_MMIO_NULL && addr < MVM_MMIO_NULL + MVM_PAGE_SIZE)
		return STATS_MMIO_NULL;
	return STATS_MMIO_OTHER;
}

static void fail_internal(struct vcpu *v)
{
	struct kvm_run *run = v->run;
	char extra[160] = "";
	size_t used = 0;

	for (uint32_t i = 0; i < run->internal.ndata && i < 4 && used < sizeof(extra); i++)
		used += snprintf(extra + used, sizeof(extra) - used, " data[%u]=0x%llx", i,
				 (unsigned long long)run->internal.data[i]);
	vcpu_fail(v, "KVM internal error, suberror %u%s%s", run->internal.suberror,
		  run->internal.suberror == KVM_INTERNAL_ERROR_EMULATION ?
		  " (instruction emulation failed)" : "", extra);
}

static bool handle_fatal(struct vcpu *v, uint32_t reason)
{
	struct kvm_run *run = v->run;

	switch (reason) {
	case KVM_EXIT_SHUTDOWN:
		vcpu_fail(v, "guest shut down (triple fault)");
		break;
	case KVM_EXIT_FAIL_ENTRY:
		vcpu_fail(v, "VM entry failed, hardware reason 0x%llx",
			  (unsigned long long)run->fail_entry.hardware_entry_failure_reason);
		break;
	case KVM_EXIT_INTERNAL_ERROR:
		fail_internal(v);
		break;
	case KVM_EXIT_SYSTEM_EVENT:
		vcpu_fail(v, "guest system event %u (reset or shutdown request)",
			  run->system_event.type);
		break;
	default:
		vcpu_fail(v, "unhandled exit reason %u (%s)", reason, stats_exit_name(reason));
		break;
	}
	return true;
}

bool exits_handle(struct vcpu *v, uint64_t t0)
{
	uint32_t reason = v->run->exit_reason;
	enum stats_kind kind;

	if (reason < STATS_EXIT_REASONS)
		v->stats.exits[reason]++;
	else
		v->stats.exits_other++;
	switch (reason) {
	case KVM_EXIT_IO:
		kind = handle_io(v);
		break;
	case KVM_EXIT_MMIO:
		kind = handle_mmio(v);
		break;
	case KVM_EXIT_X86_RDMSR:
	case KVM_EXIT_X86_WRMSR:
		msr_handle(v);
		kind = STATS_MSR;
		break;
	case KVM_EXIT_INTR:
		return false;
	default:
		return handle_fatal(v, reason);
	}
	lat_record(&v->stats.kind[kind], vcpu_rdtsc() - t0);
	return atomic_load(&v->vm->stopping);
}
