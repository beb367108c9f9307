// SPDX-License-Identifier: MIT
/*
 * Test-only: a minivmm whose null port (MVM_PORT_NULL) costs SLOW_NULL_NS
 * more per access, for checking that minivmm-compare flags exactly the rows
 * that go through it. Linked with -Wl,--wrap=bus_dispatch into
 * build/minivmm-slow-null (make slow-null); vmm/ itself is unchanged and
 * nothing installs this binary. Every other port, MMIO (the null MMIO page
 * shares the handler) and the bare null port (no dispatch) keep their cost.
 */
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "minivmm/abi.h"
#include "vmm/bus.h"

#ifndef SLOW_NULL_NS
#define SLOW_NULL_NS	20000
#endif

const struct bus_range *__real_bus_dispatch(struct bus *bus, struct vcpu *vcpu,
					    enum bus_space space, uint64_t addr, bool write,
					    void *data, unsigned int size);
const struct bus_range *__wrap_bus_dispatch(struct bus *bus, struct vcpu *vcpu,
					    enum bus_space space, uint64_t addr, bool write,
					    void *data, unsigned int size);

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

const struct bus_range *__wrap_bus_dispatch(struct bus *bus, struct vcpu *vcpu,
					    enum bus_space space, uint64_t addr, bool write,
					    void *data, unsigned int size)
{
	if (space == BUS_PIO && addr == MVM_PORT_NULL) {
		uint64_t end = now_ns() + SLOW_NULL_NS;

		while (now_ns() < end)
			;
	}
	return __real_bus_dispatch(bus, vcpu, space, addr, write, data, size);
}
