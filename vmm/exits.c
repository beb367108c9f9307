// SPDX-License-Identifier: MIT
/* The one switch on exit reasons. Devices are reached through the bus only. */
#include <linux/kvm.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include "vmm/emufail.h"
#include "vmm/exits.h"
#include "vmm/msr.h"
#include "vmm/pio_out.h"
#include "vmm/resetstate.h"
#include "vmm/tsc.h"
#include "vmm/vcpu.h"
#include "vmm/vcpu_ops.h"
#include "vmm/vm.h"

/*
 * Where the accessing instruction is, for the report. IN and MMIO reads
 * leave RIP on it everywhere. An OUT may have RIP on it or past it (the
 * backend decides), so finish the exit and find it. An MMIO write was
 * emulated, RIP is past it, and an arbitrary instruction cannot be decoded
 * backwards reliably: say so rather than name the wrong address.
 */
static void describe_site(struct vcpu *v, enum bus_space space, bool write,
			  char *buf, size_t len)
{
	uint64_t rip = v->run->s.regs.regs.rip;

	if (write && space == BUS_MMIO) {
		snprintf(buf, len, "by the instruction ending at RIP 0x%llx",
			 (unsigned long long)rip);
		return;
	}
	if (write && pio_out_complete(v, NULL, &rip) != PIO_OUT_FOUND) {
		snprintf(buf, len, "by the instruction at or ending at RIP 0x%llx",
			 (unsigned long long)rip);
		return;
	}
	snprintf(buf, len, "at RIP 0x%llx", (unsigned long long)rip);
}

/* Once per exit at most, after its accesses: describe_site() may finish the exit. */
static void report_unclaimed(struct vcpu *v, enum bus_space space, uint64_t addr,
			     bool write, unsigned int size)
{
	struct vm *vm = v->vm;
	enum ratelimit_verdict say = ratelimit_check(&vm->guest_msgs, GMSG_UNCLAIMED);
	char site[80];

	if (say == RATELIMIT_QUIET)
		return;		/* and the exit is not completed just to name a site */
	describe_site(v, space, write, site, sizeof(site));
	ratelimit_print(&vm->out_lock, GMSG_UNCLAIMED, say,
			"vCPU %u: %s of unclaimed %s 0x%llx (%u bytes) %s%s", v->index,
			write ? "write" : "read", space == BUS_PIO ? "port" : "MMIO address",
			(unsigned long long)addr, size, site, write ? ", dropped" : ", reads all ones");
}

/*
 * Dispatch one access; true if it is unclaimed and new (to be reported).
 * *kind: what the exit counts as, from the range the bus found.
 */
static bool dispatch(struct vcpu *v, enum bus_space space, uint64_t addr, bool write,
		     void *data, unsigned int size, enum stats_kind *kind)
{
	struct bus *bus = &v->vm->bus;
	const struct bus_range *r = bus_dispatch(bus, v, space, addr, write, data, size);

	if (r) {
		*kind = r->desc.kind;
		return false;
	}
	*kind = bus_unclaimed_kind(bus, space, addr);
	return bus_unclaimed(bus, space, addr, write, data, size);
}

static enum stats_kind handle_io(struct vcpu *v)
{
	struct kvm_run *run = v->run;
	uint8_t *data = (uint8_t *)run + run->io.data_offset;
	bool write = run->io.direction == KVM_EXIT_IO_OUT;
	/* Copies: a handler may finish the exit, after which KVM owns kvm_run. */
	uint16_t port = run->io.port;
	unsigned int size = run->io.size;
	uint32_t count = run->io.count;
	enum stats_kind kind = STATS_PIO_OTHER;
	bool report = false;

	/* String I/O (rep outs/ins) comes as `count` accesses of `size` bytes. */
	for (uint32_t i = 0; i < count; i++)
		report |= dispatch(v, BUS_PIO, port, write, data + i * size, size, &kind);
	if (report)
		report_unclaimed(v, BUS_PIO, port, write, size);
	return kind;
}

static enum stats_kind handle_mmio(struct vcpu *v)
{
	struct kvm_run *run = v->run;
	uint64_t addr = run->mmio.phys_addr;
	enum stats_kind kind;

	if (run->mmio.len > sizeof(run->mmio.data) || !run->mmio.len) {
		vcpu_fail(v, "MMIO access of %u bytes at 0x%llx", run->mmio.len,
			  (unsigned long long)addr);
		return STATS_MMIO_OTHER;
	}
	if (dispatch(v, BUS_MMIO, addr, run->mmio.is_write, run->mmio.data, run->mmio.len,
		     &kind))
		report_unclaimed(v, BUS_MMIO, addr, run->mmio.is_write, run->mmio.len);
	return kind;
}

static void fail_internal(struct vcpu *v)
{
	struct kvm_run *run = v->run;
	char extra[160] = "";
	char insn[320];
	size_t used = 0;

	for (uint32_t i = 0; i < run->internal.ndata && i < 4 && used < sizeof(extra); i++)
		used += snprintf(extra + used, sizeof(extra) - used, " data[%u]=0x%llx", i,
				 (unsigned long long)run->internal.data[i]);
	emufail_describe(run, v->vm->kvm.backend, insn, sizeof(insn));
	vcpu_fail(v, "KVM internal error, suberror %u%s%s%s", run->internal.suberror,
		  run->internal.suberror == KVM_INTERNAL_ERROR_EMULATION ?
		  " (instruction emulation failed)" : "", extra, insn);
}

/*
 * On SVM, KVM resets a vCPU that shut down before returning (its VMCB is
 * undefined after the intercept): a dump of that would pass the reset
 * vector off as the faulting RIP. Say so when that is what KVM hands back.
 */
static void fail_shutdown(struct vcpu *v)
{
	struct kvm_regs r;
	struct kvm_sregs s;

	if (!ioctl(v->fd, KVM_GET_REGS, &r) && !ioctl(v->fd, KVM_GET_SREGS, &s) &&
	    x86_is_reset_state(&r, &s)) {
		vcpu_fail(v, "guest shut down (triple fault); the registers below are the x86 "
			  "reset state, not the faulting state: this KVM reset the vCPU at the "
			  "shutdown (KVM on AMD SVM does), so the state that faulted is lost");
		return;
	}
	vcpu_fail(v, "guest shut down (triple fault)");
}

static bool handle_fatal(struct vcpu *v, uint32_t reason)
{
	struct kvm_run *run = v->run;

	switch (reason) {
	case KVM_EXIT_SHUTDOWN:
		fail_shutdown(v);
		break;
	case KVM_EXIT_FAIL_ENTRY:
		vcpu_fail(v, "VM entry failed, hardware reason 0x%llx",
			  (unsigned long long)run->fail_entry.hardware_entry_failure_reason);
		break;
	case KVM_EXIT_INTERNAL_ERROR:
		fail_internal(v);
		break;
	case KVM_EXIT_SYSTEM_EVENT:
		if (run->system_event.type == KVM_SYSTEM_EVENT_CRASH && v->vm->kvm_hv.on) {
			kvm_hv_crash(v);	/* KVM's Hyper-V took the guest's CRASH_CTL write */
			break;
		}
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
	case KVM_EXIT_HYPERV:
		kvm_hv_exit(v);
		kind = STATS_HCALL;
		break;
	case KVM_EXIT_INTR:
		return false;
	default:
		return handle_fatal(v, reason);
	}
	lat_record(&v->stats.kind[kind], host_rdtsc() - t0);
	return atomic_load(&v->vm->stopping);
}
