// SPDX-License-Identifier: MIT
/* QEMU's pc-testdev for kvm-unit-tests: see vmm/dev/pc_testdev.h. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "vmm/dev/devices.h"
#include "vmm/dev/pc_testdev.h"
#include "vmm/errmsg.h"
#include "vmm/mem.h"
#include "vmm/vcpu_ops.h"

#define PAGE	4096u

struct testdev_dev {
	pthread_mutex_t lock;	/* vCPUs share the register and the buffer */
	struct pc_testdev d;
};

void pc_testdev_ports(struct pc_testdev *d, unsigned int offset, bool write, uint8_t *data,
		      unsigned int size)
{
	for (unsigned int i = 0; i < size; i++) {
		unsigned int port = offset + i, shift = (port & 3) * 8;

		if (port / 4 == TESTDEV_FLUSH_OFFSET / 4) {
			if (!write)
				data[i] = 0xff;
			continue;
		}
		if (write)
			d->scratch = (d->scratch & ~(0xffu << shift)) | (uint32_t)data[i] << shift;
		else
			data[i] = (uint8_t)(d->scratch >> shift);
	}
}

uint64_t pc_testdev_flush_page(uint32_t value)
{
	return value & ~(uint64_t)(PAGE - 1);
}

/*
 * Take the page away from the guest and give it back: KVM's MMU notifier
 * zaps its mapping, so the guest's next access to it exits into KVM.
 */
static void flush_page(struct vcpu *v, uint32_t value)
{
	uint64_t gpa = pc_testdev_flush_page(value);
	void *host = mem_gpa_to_host(vm_mem(vcpu_vm(v)), gpa, PAGE);

	if (!host) {
		vm_say(vcpu_vm(v), GMSG_TESTDEV_FLUSH,
		       "vCPU %u: pc-testdev flush of GPA 0x%llx, which is not RAM: ignored",
		       vcpu_index(v), (unsigned long long)gpa);
		return;
	}
	(void)mprotect(host, PAGE, PROT_NONE);
	(void)mprotect(host, PAGE, PROT_READ | PROT_WRITE);
}

static void ports_io(struct vcpu *v, uint64_t offset, bool write, void *data,
		     unsigned int size, void *state)
{
	struct testdev_dev *dev = state;
	uint32_t value = 0;

	if (write && offset == TESTDEV_FLUSH_OFFSET && size == 4) {
		memcpy(&value, data, 4);
		flush_page(v, value);
		return;
	}
	pthread_mutex_lock(&dev->lock);
	pc_testdev_ports(&dev->d, (unsigned int)offset, write, data, size);
	pthread_mutex_unlock(&dev->lock);
}

/* QEMU takes 1-byte writes only here; wider ones are dropped, as there. */
static void irq_io(struct vcpu *v, uint64_t offset, bool write, void *data,
		   unsigned int size, void *state)
{
	(void)state;
	if (write && size == 1)
		vm_irq_level(vcpu_vm(v), (unsigned int)offset, *(uint8_t *)data != 0);
}

static void iomem_io(struct vcpu *v, uint64_t offset, bool write, void *data,
		     unsigned int size, void *state)
{
	struct testdev_dev *dev = state;

	(void)v;
	pthread_mutex_lock(&dev->lock);
	if (write)
		memcpy(dev->d.iomem + offset, data, size);
	else
		memcpy(data, dev->d.iomem + offset, size);
	pthread_mutex_unlock(&dev->lock);
}

static void testdev_destroy(void *state)
{
	struct testdev_dev *dev = state;

	pthread_mutex_destroy(&dev->lock);
	free(dev);
}

static const struct bus_desc ports_desc = {
	.name = "pc-testdev", .kind = STATS_PIO_OTHER, .io = ports_io, .destroy = testdev_destroy,
};
static const struct bus_desc irq_desc = {
	.name = "pc-testdev-irq", .kind = STATS_PIO_OTHER,
	.flags = BUS_F_WRITE_ONLY | BUS_F_RAISES_IRQ, .io = irq_io,
};
static const struct bus_desc iomem_desc = {
	.name = "pc-testdev-iomem", .kind = STATS_MMIO_OTHER, .io = iomem_io,
};

int pc_testdev_dev_create(struct vm *vm, char *err, size_t errlen)
{
	struct testdev_dev *dev = calloc(1, sizeof(*dev));
	struct bus *bus = vm_bus(vm);

	if (!dev)
		return errmsg(err, errlen, "out of memory for pc-testdev");
	pthread_mutex_init(&dev->lock, NULL);
	if (bus_claim(bus, BUS_PIO, TESTDEV_PORT_BASE, TESTDEV_PORT_LEN, &ports_desc, dev,
		      err, errlen)) {
		testdev_destroy(dev);
		return -1;
	}
	/* From here the bus owns dev: the first range's destroy frees it. */
	return bus_claim(bus, BUS_PIO, TESTDEV_IRQ_PORT, TESTDEV_IRQ_LINES, &irq_desc, NULL,
			 err, errlen) ||
	       bus_claim(bus, BUS_MMIO, TESTDEV_IOMEM_GPA, TESTDEV_IOMEM_LEN, &iomem_desc, dev,
			 err, errlen) ? -1 : 0;
}
