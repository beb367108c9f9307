// SPDX-License-Identifier: MIT
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vmm/dev/devices.h"
#include "vmm/dev/pmtimer.h"
#include "vmm/errmsg.h"
#include "vmm/vcpu_ops.h"
#include "vmm/tsc.h"

struct pmtimer {
	uint64_t start_ns;	/* CLOCK_MONOTONIC when the counter read 0 */
};

uint32_t pmtimer_ticks(uint64_t ns)
{
	/* 128-bit product: ns * 3579545 passes 2^64 after about 85 minutes. */
	unsigned __int128 t = (unsigned __int128)ns * PMTIMER_HZ / 1000000000u;

	return (uint32_t)t & PMTIMER_MASK;
}

static void pmtimer_io(struct vcpu *v, uint64_t offset, bool write, void *data,
		       unsigned int size, void *state)
{
	const struct pmtimer *pm = state;
	uint32_t val;

	(void)v;
	(void)offset;
	(void)write;	/* read-only: the bus drops writes */
	val = pmtimer_ticks(host_monotonic_ns() - pm->start_ns);
	memcpy(data, &val, size);	/* size <= 4: the bus keeps it in range */
}

static const struct bus_desc pmtimer_desc = {
	.name = "pmtimer", .kind = STATS_PIO_OTHER, .flags = BUS_F_READ_ONLY,
	.io = pmtimer_io, .destroy = free,
};

int pmtimer_dev_create(struct vm *vm, char *err, size_t errlen)
{
	struct pmtimer *pm = malloc(sizeof(*pm));

	if (!pm)
		return errmsg(err, errlen, "out of memory for the PM timer");
	pm->start_ns = host_monotonic_ns();
	if (bus_claim(vm_bus(vm), BUS_PIO, PMTIMER_PORT, 4, &pmtimer_desc, pm, err, errlen)) {
		free(pm);
		return -1;
	}
	return 0;
}
