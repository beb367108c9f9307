// SPDX-License-Identifier: MIT
#include <string.h>
#include <time.h>

#include "vmm/dev/devices.h"
#include "vmm/dev/pmtimer.h"
#include "vmm/vm.h"

uint32_t pmtimer_ticks(uint64_t ns)
{
	/* 128-bit product: ns * 3579545 passes 2^64 after about 85 minutes. */
	unsigned __int128 t = (unsigned __int128)ns * PMTIMER_HZ / 1000000000u;

	return (uint32_t)t & PMTIMER_MASK;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void pmtimer_io(struct vcpu *v, uint64_t port, bool write, void *data,
		       unsigned int size, void *opaque)
{
	uint32_t val;

	(void)port;
	(void)opaque;
	if (write)
		return;
	val = pmtimer_ticks(now_ns() - v->vm->pmtimer_start_ns);
	memcpy(data, &val, size);	/* size <= 4: the bus keeps it in range */
}

int pmtimer_dev_register(struct vm *vm)
{
	vm->pmtimer_start_ns = now_ns();
	return bus_register(&vm->bus, BUS_PIO, PMTIMER_PORT, 4, pmtimer_io, NULL, "pmtimer");
}
