/* SPDX-License-Identifier: MIT */
/*
 * Port-I/O and MMIO registry. Devices register a range and a handler; the
 * exit loop never names a port. Unclaimed accesses read all ones, drop
 * writes, and are reported once per address.
 */
#ifndef VMM_BUS_H
#define VMM_BUS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct vcpu;

/* data: `size` bytes to write, or to fill on a read. */
typedef void (*bus_handler_fn)(struct vcpu *vcpu, uint64_t addr, bool write,
			       void *data, unsigned int size, void *opaque);

struct bus_range {
	uint64_t base, len;
	bus_handler_fn fn;
	void *opaque;
	const char *name;
};

#define BUS_MAX_RANGES		16
#define BUS_MAX_REPORTED	64

enum bus_space { BUS_PIO = 0, BUS_MMIO = 1 };

struct bus {
	struct bus_range ranges[2][BUS_MAX_RANGES];
	unsigned int nr[2];
	pthread_mutex_t lock;		/* guards the reported-address set */
	uint64_t reported[BUS_MAX_REPORTED];	/* (space << 63) | addr */
	unsigned int nr_reported;
	bool overflow_reported;
	atomic_ullong unclaimed;	/* every unclaimed access, counted */
};

void bus_init(struct bus *bus);
void bus_destroy(struct bus *bus);
int bus_register(struct bus *bus, enum bus_space space, uint64_t base, uint64_t len,
		 bus_handler_fn fn, void *opaque, const char *name);
const struct bus_range *bus_find(const struct bus *bus, enum bus_space space,
				 uint64_t addr, unsigned int size);
/*
 * Dispatch one access; returns false if nobody claims it (the caller then
 * reports it via bus_unclaimed(), which also fills reads with ones).
 */
bool bus_dispatch(struct bus *bus, struct vcpu *vcpu, enum bus_space space,
		  uint64_t addr, bool write, void *data, unsigned int size);
/* Count it; true if this address was not reported before (report it now). */
bool bus_unclaimed(struct bus *bus, enum bus_space space, uint64_t addr,
		   bool write, void *data, unsigned int size);

#endif
