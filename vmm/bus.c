// SPDX-License-Identifier: MIT
#include <string.h>

#include "vmm/bus.h"

void bus_init(struct bus *bus)
{
	memset(bus, 0, sizeof(*bus));
	pthread_mutex_init(&bus->lock, NULL);
}

void bus_destroy(struct bus *bus)
{
	pthread_mutex_destroy(&bus->lock);
}

static bool overlaps(const struct bus_range *r, uint64_t base, uint64_t len)
{
	return base < r->base + r->len && r->base < base + len;
}

int bus_register(struct bus *bus, enum bus_space space, uint64_t base, uint64_t len,
		 bus_handler_fn fn, void *opaque, const char *name)
{
	struct bus_range *r;

	if (!len || base + len < base || bus->nr[space] >= BUS_MAX_RANGES)
		return -1;
	if (space == BUS_PIO && base + len > 0x10000)
		return -1;
	for (unsigned int i = 0; i < bus->nr[space]; i++)
		if (overlaps(&bus->ranges[space][i], base, len))
			return -1;
	r = &bus->ranges[space][bus->nr[space]++];
	*r = (struct bus_range){ base, len, fn, opaque, name };
	return 0;
}

const struct bus_range *bus_find(const struct bus *bus, enum bus_space space,
				 uint64_t addr, unsigned int size)
{
	for (unsigned int i = 0; i < bus->nr[space]; i++) {
		const struct bus_range *r = &bus->ranges[space][i];

		/* The whole access must fall inside one device's range. */
		if (addr >= r->base && addr - r->base < r->len && size <= r->len - (addr - r->base))
			return r;
	}
	return NULL;
}

bool bus_dispatch(struct bus *bus, struct vcpu *vcpu, enum bus_space space,
		  uint64_t addr, bool write, void *data, unsigned int size)
{
	const struct bus_range *r = bus_find(bus, space, addr, size);

	if (!r)
		return false;
	r->fn(vcpu, addr, write, data, size, r->opaque);
	return true;
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
