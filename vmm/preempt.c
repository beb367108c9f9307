// SPDX-License-Identifier: MIT
/* --preempt's schedule: rounds of holds, started by the main thread (preempt.h). */
#include <stdio.h>

#include "vmm/errmsg.h"
#include "vmm/preempt.h"
#include "vmm/vcpu.h"
#include "vmm/vcpu_req.h"
#include "vmm/vm.h"

uint64_t preempt_next_due(uint64_t due, uint64_t now, uint64_t every_ns)
{
	if (!every_ns)
		return UINT64_MAX;
	if (due > now)
		return due;
	return due + ((now - due) / every_ns + 1) * every_ns;
}

void preempt_describe(const struct preempt_spec *p, char *out, size_t len)
{
	size_t used = (size_t)snprintf(out, len, "vCPU%s ", p->nr == 1 ? "" : "s");

	for (unsigned int i = 0; i < p->nr && used < len; i++)
		used += (size_t)snprintf(out + used, len - used, "%s%u", i ? "," : "", p->vcpu[i]);
	if (used < len)
		snprintf(out + used, len - used, " held %u us every %u us%s", p->hold_us, p->every_us,
			 p->hidden ? ", preempted NOT published" : "");
}

int preempt_check(const struct preempt_spec *p, unsigned int nr_vcpus, char *err, size_t errlen)
{
	for (unsigned int i = 0; i < p->nr; i++)
		if (p->vcpu[i] >= nr_vcpus)
			return errmsg(err, errlen, "--preempt: vCPU %u does not exist (--cpus %u: vCPUs 0..%u)",
				      p->vcpu[i], nr_vcpus, nr_vcpus - 1);
	return 0;
}

uint64_t preempt_tick(struct vm *vm, uint64_t now_ns)
{
	const struct preempt_spec *p = &vm->cfg.preempt;
	uint64_t every_ns = (uint64_t)p->every_us * 1000;

	if (!p->nr)
		return UINT64_MAX;
	if (!vm->preempt_due)
		vm->preempt_due = now_ns + every_ns;	/* the first round one period in */
	if (now_ns < vm->preempt_due)
		return vm->preempt_due;
	for (unsigned int i = 0; i < p->nr && !atomic_load(&vm->stopping); i++)
		vcpu_pause(&vm->vcpus[p->vcpu[i]], p->hold_us, p->hidden);
	vm->preempt_rounds++;
	vm->preempt_due = preempt_next_due(vm->preempt_due, now_ns, every_ns);
	return vm->preempt_due;
}
