/* SPDX-License-Identifier: MIT */
/*
 * Port-I/O and MMIO registry, shaped after Firecracker's BusDevice: a
 * device registers a range with a descriptor (its name, the statistics kind
 * its exits count as, and flags the bus itself honours) and its state; its
 * handler sees the offset inside the range, never the absolute address.
 * The exit loop never names a port: it asks the bus. Unclaimed accesses
 * read all ones, drop writes, and are reported once per address.
 */
#ifndef VMM_BUS_H
#define VMM_BUS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmm/stats.h"

struct vcpu;

/*
 * offset: from the range's base (the whole access lies inside the range);
 * data: `size` bytes to write, or to fill on a read; state: what the
 * device registered with the range.
 */
typedef void (*bus_io_fn)(struct vcpu *vcpu, uint64_t offset, bool write, void *data,
			  unsigned int size, void *state);

/* Reads return all ones and never reach the handler: it sees writes only. */
#define BUS_F_WRITE_ONLY	(1u << 0)
/* Writes are dropped before the handler: it sees reads only. */
#define BUS_F_READ_ONLY		(1u << 1)
/*
 * The device raises IRQ lines (vm_irq_edge(), vmm/vcpu_ops.h) from the
 * vCPU threads that access it: their seccomp filter must allow KVM_IRQ_LINE.
 */
#define BUS_F_RAISES_IRQ	(1u << 2)

/* What a device is, for the bus: usually a static const, one per range. */
struct bus_desc {
	const char *name;		/* "com1": for messages and tests */
	enum stats_kind kind;		/* what its exits count as (stats.h) */
	unsigned int flags;		/* BUS_F_* */
	bus_io_fn io;			/* NULL: reads return all ones, writes are dropped */
	/*
	 * Frees `state` at bus_destroy(), once per distinct (destroy, state)
	 * pair however many ranges share them; NULL for static or no state.
	 */
	void (*destroy)(void *state);
	/*
	 * vCPU `vcpu`'s thread has ended (joined): let go of what the device
	 * keeps for it (the console writes out its unfinished line). Called
	 * once per range that sets it; NULL for most devices.
	 */
	void (*vcpu_stopped)(void *state, unsigned int vcpu);
	/*
	 * Main thread, once the vCPU threads run and before it enters its own
	 * seccomp filter: start what the device runs beside them (a thread
	 * of its own). 0, or -1 with `err` filled. NULL for most devices.
	 */
	int (*start)(void *state, char *err, size_t errlen);
	/* Main thread, once every vCPU is joined: end what start() began. */
	void (*stop)(void *state);
};

/* The descriptor is copied in: dispatch reads one struct, no pointer chase. */
struct bus_range {
	uint64_t base, len;
	struct bus_desc desc;
	void *state;
};

#define BUS_MAX_RANGES		16
#define BUS_MAX_REPORTED	64

enum bus_space { BUS_PIO = 0, BUS_MMIO = 1 };

/* What a lookup compares: packed apart, so a scan reads four ranges per cache line. */
struct bus_key {
	uint64_t base, len;
};

struct bus {
	struct bus_key keys[2][BUS_MAX_RANGES];		/* keys[s][i] is ranges[s][i]'s */
	struct bus_range ranges[2][BUS_MAX_RANGES];
	unsigned int nr[2];
	pthread_mutex_t lock;		/* guards the reported-address set */
	uint64_t reported[BUS_MAX_REPORTED];	/* (space << 63) | addr */
	unsigned int nr_reported;
	bool overflow_reported;
	atomic_ullong unclaimed;	/* every unclaimed access, counted */
};

void bus_init(struct bus *bus);
/* Runs every range's destroy hook (see struct bus_desc), then frees the bus. */
void bus_destroy(struct bus *bus);
/*
 * Claim [base, base + len) in `space` for `desc` (copied) and `state`.
 * -1 if the range is empty, wraps, passes port 0xffff, overlaps another
 * range or the table is full; the caller then still owns `state`.
 */
int bus_register(struct bus *bus, enum bus_space space, uint64_t base, uint64_t len,
		 const struct bus_desc *desc, void *state);
/*
 * bus_register() for a device's create: on a refusal, -1 with `err` saying
 * so (a bug in minivmm: the devices' ranges are fixed). The caller then
 * still owns `state`.
 */
int bus_claim(struct bus *bus, enum bus_space space, uint64_t base, uint64_t len,
	      const struct bus_desc *desc, void *state, char *err, size_t errlen);
const struct bus_range *bus_find(const struct bus *bus, enum bus_space space,
				 uint64_t addr, unsigned int size);
/*
 * Dispatch one access; returns the range that claimed it, or NULL if nobody
 * does (the caller then reports it via bus_unclaimed(), which also fills
 * reads with ones).
 */
const struct bus_range *bus_dispatch(struct bus *bus, struct vcpu *vcpu, enum bus_space space,
				     uint64_t addr, bool write, void *data, unsigned int size);
/*
 * The statistics kind of an exit at `addr` that no range claimed: that of a
 * range holding its first byte (a too-wide access to a device), else the
 * space's "other" kind.
 */
enum stats_kind bus_unclaimed_kind(const struct bus *bus, enum bus_space space, uint64_t addr);
/* Tell every range that wants to know (bus_desc.vcpu_stopped) that a vCPU ended. */
void bus_vcpu_stopped(struct bus *bus, unsigned int vcpu);
/* Every range's start hook, in registration order; the first failure ends it (-1, `err`). */
int bus_devices_start(struct bus *bus, char *err, size_t errlen);
/* Every range's stop hook. */
void bus_devices_stop(struct bus *bus);
/* Does any range's descriptor carry `flag` (BUS_F_*)? */
bool bus_any_flag(const struct bus *bus, unsigned int flag);
/* Count it; true if this address was not reported before (report it now). */
bool bus_unclaimed(struct bus *bus, enum bus_space space, uint64_t addr,
		   bool write, void *data, unsigned int size);

#endif
