// SPDX-License-Identifier: MIT
#include <string.h>

#include "vmm/bus.h"
#include "vmm/errmsg.h"

void bus_init(struct bus *bus)
{
	memset(bus, 0, sizeof(*bus));
	pthread_mutex_init(&bus->lock, NULL);
}

/* Was (destroy, state) of range `n` in `space` already run by an earlier range? */
static bool destroyed_before(const struct bus *bus, unsigned int space, unsigned int n)
{
	const struct bus_range *r = &bus->ranges[space][n];

	for (unsigned int s = 0; s <= space; s++)
		for (unsigned int i = 0; i < (s == space ? n : bus->nr[s]); i++) {
			const struct bus_range *o = &bus->ranges[s][i];

			if (o->desc.destroy == r->desc.destroy && o->state == r->state)
				return true;
		}
	return false;
}

void bus_destroy(struct bus *bus)
{
	for (unsigned int s = 0; s < 2; s++)
		for (unsigned int i = 0; i < bus->nr[s]; i++)
			if (bus->ranges[s][i].desc.destroy && !destroyed_before(bus, s, i))
				bus->ranges[s][i].desc.destroy(bus->ranges[s][i].state);
	memset(bus->nr, 0, sizeof(bus->nr));
	pthread_mutex_destroy(&bus->lock);
}

static bool overlaps(const struct bus_key *k, uint64_t base, uint64_t len)
{
	return base < k->base + k->len && k->base < base + len;
}

/* A range without a handler: reads return all ones, writes are dropped. */
static void ones_io(struct vcpu *vcpu, uint64_t offset, bool write, void *data,
		    unsigned int size, void *state)
{
	(void)vcpu;
	(void)offset;
	(void)state;
	if (!write)
		memset(data, 0xff, size);
}

int bus_register(struct bus *bus, enum bus_space space, uint64_t base, uint64_t len,
		 const struct bus_desc *desc, void *state)
{
	struct bus_range *r;

	if (!len || base + len < base || bus->nr[space] >= BUS_MAX_RANGES)
		return -1;
	if (space == BUS_PIO && base + len > 0x10000)
		return -1;
	for (unsigned int i = 0; i < bus->nr[space]; i++)
		if (overlaps(&bus->keys[space][i], base, len))
			return -1;
	bus->keys[space][bus->nr[space]] = (struct bus_key){ base, len };
	r = &bus->ranges[space][bus->nr[space]++];
	*r = (struct bus_range){ .base = base, .len = len, .desc = *desc, .state = state };
	if (!r->desc.io)
		r->desc.io = ones_io;	/* decided here, not on every access */
	return 0;
}

int bus_claim(struct bus *bus, enum bus_space space, uint64_t base, uint64_t len,
	      const struct bus_desc *desc, void *state, char *err, size_t errlen)
{
	if (bus_register(bus, space, base, len, desc, state))
		return errmsg(err, errlen, "device ranges overlap (a bug in minivmm)");
	return 0;
}

const struct bus_range *bus_find(const struct bus *bus, enum bus_space space,
				 uint64_t addr, unsigned int size)
{
	for (unsigned int i = 0; i < bus->nr[space]; i++) {
		const struct bus_key *k = &bus->keys[space][i];

		/* The whole access must fall inside one device's range. */
		if (addr >= k->base && addr - k->base < k->len && size <= k->len - (addr - k->base))
			return &bus->ranges[space][i];
	}
	return NULL;
}

/* What the flags answer without the handler; false to let the access through. */
static bool filtered(const struct bus_range *r, bool write, void *data, unsigned int size)
{
	if (!write && (r->desc.flags & BUS_F_WRITE_ONLY)) {
		memset(data, 0xff, size);
		return true;
	}
	return write && (r->desc.flags & BUS_F_READ_ONLY);
}

/* The hot path (the null port is the benchmark floor): no lock, no allocation. */
const struct bus_range *bus_dispatch(struct bus *bus, struct vcpu *vcpu, enum bus_space space,
				     uint64_t addr, bool write, void *data, unsigned int size)
{
	const struct bus_range *r = bus_find(bus, space, addr, size);

	if (!r)
		return NULL;
	if (__builtin_expect(r->desc.flags != 0, 0) && filtered(r, write, data, size))
		return r;
	r->desc.io(vcpu, addr - r->base, write, data, size, r->state);
	return r;
}

enum stats_kind bus_unclaimed_kind(const struct bus *bus, enum bus_space space, uint64_t addr)
{
	const struct bus_range *r = bus_find(bus, space, addr, 1);

	if (r)
		return r->desc.kind;
	return space == BUS_PIO ? STATS_PIO_OTHER : STATS_MMIO_OTHER;
}

void bus_vcpu_stopped(struct bus *bus, unsigned int vcpu)
{
	for (unsigned int s = 0; s < 2; s++)
		for (unsigned int i = 0; i < bus->nr[s]; i++)
			if (bus->ranges[s][i].desc.vcpu_stopped)
				bus->ranges[s][i].desc.vcpu_stopped(bus->ranges[s][i].state, vcpu);
}

int bus_devices_start(struct bus *bus, char *err, size_t errlen)
{
	for (unsigned int s = 0; s < 2; s++)
		for (unsigned int i = 0; i < bus->nr[s]; i++)
			if (bus->ranges[s][i].desc.start &&
			    bus->ranges[s][i].desc.start(bus->ranges[s][i].state, err, errlen))
				return -1;
	return 0;
}

void bus_devices_stop(struct bus *bus)
{
	for (unsigned int s = 0; s < 2; s++)
		for (unsigned int i = 0; i < bus->nr[s]; i++)
			if (bus->ranges[s][i].desc.stop)
				bus->ranges[s][i].desc.stop(bus->ranges[s][i].state);
}

bool bus_any_flag(const struct bus *bus, unsigned int flag)
{
	for (unsigned int s = 0; s < 2; s++)
		for (unsigned int i = 0; i < bus->nr[s]; i++)
			if (bus->ranges[s][i].desc.flags & flag)
				return true;
	return false;
}

bool bus_unclaimed(struct bus *bus, enum bus_space space, uint64_t addr,
		   bool write, void *data, unsigned int size)
{
	uint64_t key = ((uint64_t)space << 63) | addr;
	bool fresh = true;

	if (!write)
		memset(data, 0xff, size);
	atomic_fetch_add_explicit(&bus->unclaimed, 1, memory_order_relaxed);
	pthread_mutex_lock(&bus->lock);
	for (unsigned int i = 0; i < bus->nr_reported; i++)
		if (bus->reported[i] == key)
			fresh = false;
	if (fresh && bus->nr_reported < BUS_MAX_REPORTED)
		bus->reported[bus->nr_reported++] = key;
	else if (fresh && bus->overflow_reported)
		fresh = false;	/* past the table: said once, then counted only */
	else if (fresh)
		bus->overflow_reported = true;
	pthread_mutex_unlock(&bus->lock);
	return fresh;
}
