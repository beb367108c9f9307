// SPDX-License-Identifier: MIT
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "vmm/dev/devices.h"
#include "vmm/dev/fwcfg.h"
#include "vmm/errmsg.h"
#include "vmm/mem.h"
#include "vmm/vcpu_ops.h"

/* The register model and the lock that serialises vCPUs on it. */
struct fwcfg_dev {
	pthread_mutex_t lock;
	struct fwcfg f;
};

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

static void fwcfg_io(struct vcpu *v, uint64_t offset, bool write, void *data,
		     unsigned int size, void *state)
{
	struct fwcfg_dev *dev = state;
	uint8_t *bytes = data;
	uint16_t key = 0;

	(void)v;
	pthread_mutex_lock(&dev->lock);
	if (offset == 0 && write) {
		memcpy(&key, data, size < 2 ? size : 2);
		fwcfg_select(&dev->f, key);
	} else if (offset == 0) {
		memset(data, 0, size);
	} else if (!write) {
		for (unsigned int i = 0; i < size; i++)
			bytes[i] = fwcfg_read_byte(&dev->f);
	}
	pthread_mutex_unlock(&dev->lock);
}

static void fwcfg_destroy(void *state)
{
	struct fwcfg_dev *dev = state;

	pthread_mutex_destroy(&dev->lock);
	free(dev);
}

static const struct bus_desc fwcfg_desc = {
	.name = "fw_cfg", .kind = STATS_PIO_OTHER, .io = fwcfg_io, .destroy = fwcfg_destroy,
};

int fwcfg_dev_create(struct vm *vm, char *err, size_t errlen)
{
	struct fwcfg_dev *dev = malloc(sizeof(*dev));

	if (!dev)
		return errmsg(err, errlen, "out of memory for fw_cfg");
	pthread_mutex_init(&dev->lock, NULL);
	fwcfg_init(&dev->f, vm_nr_vcpus(vm), vm_mem(vm)->size);
	/* One range: the selector is written with a 16-bit `out` that spans both ports. */
	if (bus_claim(vm_bus(vm), BUS_PIO, FWCFG_PORT_SEL, 2, &fwcfg_desc, dev, err, errlen)) {
		fwcfg_destroy(dev);
		return -1;
	}
	return 0;
}
