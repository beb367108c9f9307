// SPDX-License-Identifier: MIT
/* The results port: `outl` of a record's GPA; the VMM copies and checks it. */
#include <string.h>

#include "minivmm/abi.h"
#include "vmm/dev/devices.h"
#include "vmm/mem.h"
#include "vmm/results.h"
#include "vmm/vcpu_ops.h"

static void reject(struct vcpu *v, uint64_t gpa, const char *why)
{
	struct vm *vm = vcpu_vm(v);
	struct results *res = vm_results(vm);

	pthread_mutex_lock(&res->lock);
	res->rejected++;
	pthread_mutex_unlock(&res->lock);
	vm_say(vm, GMSG_RECORD_REJECTED, "vCPU %u: result record at GPA 0x%llx rejected: %s",
	       vcpu_index(v), (unsigned long long)gpa, why);
}

static void results_io(struct vcpu *v, uint64_t offset, bool write, void *data,
		       unsigned int size, void *state)
{
	uint32_t gpa = 0;
	char why[128];

	(void)offset;
	(void)write;	/* write-only: the bus answers reads */
	(void)state;
	if (size != 4) {
		reject(v, 0, "the GPA must be written with a 32-bit out");
		return;
	}
	memcpy(&gpa, data, 4);
	if (!results_take(vm_results(vcpu_vm(v)), vm_mem(vcpu_vm(v)), gpa, why, sizeof(why)))
		reject(v, gpa, why);
}

static const struct bus_desc results_desc = {
	.name = "results", .kind = STATS_PIO_OTHER, .flags = BUS_F_WRITE_ONLY, .io = results_io,
};

int results_dev_create(struct vm *vm, char *err, size_t errlen)
{
	return bus_claim(vm_bus(vm), BUS_PIO, MVM_PORT_RESULTS, 4, &results_desc, NULL,
			 err, errlen);
}
