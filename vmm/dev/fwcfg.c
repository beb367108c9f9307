// SPDX-License-Identifier: MIT
#include <string.h>

#include "vmm/dev/devices.h"
#include "vmm/dev/fwcfg.h"
#include "vmm/vm.h"

void fwcfg_init(struct fwcfg *f, unsigned int nb_cpus, uint64_t ram_size)
{
	memset(f, 0, sizeof(*f));
	f->nb_cpus = (uint16_t)nb_cpus;
	f->ram_size = ram_size;
}

void fwcfg_select(struct fwcfg *f, uint16_t key)
{
	f->key = key;
	f->offset = 0;
}

/* The selected item's bytes; 0 for items minivmm does not have. */
static size_t item(const struct fwcfg *f, uint8_t out[8])
{
	uint64_t v;
	size_t len;

	switch (f->key) {
	case FWCFG_SIGNATURE:
		memcpy(out, "QEMU", 4);
		return 4;
	case FWCFG_ID:		v = 1; len = 4; break;
	case FWCFG_RAM_SIZE:
	case FWCFG_MAX_RAM:	v = f->ram_size; len = 8; break;
	case FWCFG_NB_CPUS:
	case FWCFG_MAX_CPUS:	v = f->nb_cpus; len = 2; break;
	default:		return 0;
	}
	for (size_t i = 0; i < len; i++)
		out[i] = (uint8_t)(v >> (8 * i));
	return len;
}

uint8_t fwcfg_read_byte(struct fwcfg *f)
{
	uint8_t bytes[8];
	size_t len = item(f, bytes);
	uint8_t b = f->offset < len ? bytes[f->offset] : 0;

	if (f->offset < UINT32_MAX)
		f->offset++;
	return b;
}

static void fwcfg_io(struct vcpu *v, uint64_t port, bool write, void *data,
		     unsigned int size, void *opaque)
{
	struct fwcfg *f = opaque;
	uint8_t *bytes = data;
	uint16_t key = 0;

	pthread_mutex_lock(&v->vm->dev_lock);
	if (port == FWCFG_PORT_SEL && write) {
		memcpy(&key, data, size < 2 ? size : 2);
		fwcfg_select(f, key);
	} else if (port == FWCFG_PORT_SEL) {
		memset(data, 0, size);
	} else if (!write) {
		for (unsigned int i = 0; i < size; i++)
			bytes[i] = fwcfg_read_byte(f);
	}
	pthread_mutex_unlock(&v->vm->dev_lock);
}

int fwcfg_dev_register(struct vm *vm)
{
	fwcfg_init(&vm->fwcfg, vm->cfg.nr_vcpus, vm->mem.size);
	/* One range: the selector is written with a 16-bit `out` that spans both ports. */
	return bus_register(&vm->bus, BUS_PIO, FWCFG_PORT_SEL, 2, fwcfg_io, &vm->fwcfg, "fw_cfg");
}
