// SPDX-License-Identifier: MIT
/* The PM1a registers: pure logic, then the device that puts them on the bus. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "vmm/acpi.h"
#include "vmm/dev/acpi_pm.h"
#include "vmm/dev/devices.h"
#include "vmm/errmsg.h"
#include "vmm/exitstatus.h"
#include "vmm/mem.h"
#include "vmm/vcpu_ops.h"
#include "vmm/vcpu_req.h"

void acpi_pm_reset(struct acpi_pm *pm)
{
	pm->en = 0;
	pm->cnt = ACPI_PM1_CNT_SCI_EN;
}

uint8_t acpi_pm_read(const struct acpi_pm *pm, unsigned int off)
{
	switch (off) {
	case 2:
	case 3:
		return (uint8_t)(pm->en >> (8 * (off - 2)));
	case 4:
	case 5:
		return (uint8_t)((pm->cnt | ACPI_PM1_CNT_SCI_EN) >> (8 * (off - 4)));
	default:	/* PM1_STS: no wake, timer-carry or button event ever */
		return 0;
	}
}

enum acpi_pm_event acpi_pm_write(struct acpi_pm *pm, unsigned int off, uint8_t val)
{
	uint16_t cnt;

	switch (off) {
	case 2:
	case 3:
		pm->en = (uint16_t)((pm->en & ~(0xffu << (8 * (off - 2)))) | (val << (8 * (off - 2))));
		return ACPI_PM_NONE;
	case 4:
		pm->cnt = (uint16_t)((pm->cnt & 0xff00u) | val);
		return ACPI_PM_NONE;
	case 5:
		/* SLP_EN is in this byte: a 16-bit write has its low byte in by now. */
		cnt = (uint16_t)((pm->cnt & 0x00ffu) | (val << 8));
		pm->cnt = cnt & (uint16_t)~ACPI_PM1_CNT_SLP_EN;
		if (!(cnt & ACPI_PM1_CNT_SLP_EN))
			return ACPI_PM_NONE;
		switch (ACPI_PM1_CNT_SLP_TYP(cnt)) {
		case ACPI_SLP_TYP_S5: return ACPI_PM_POWEROFF;
		case ACPI_SLP_TYP_S3: return ACPI_PM_SUSPEND;
		default: return ACPI_PM_SLEEP;
		}
	default:	/* PM1_STS: write-1-to-clear, and nothing is ever set */
		return ACPI_PM_NONE;
	}
}

/*
 * S3 with a wake event armed: asleep and awake again at once, resuming in
 * real mode at the waking vector the guest wrote into the FACS.
 */
static void suspend_resume(struct vcpu *v)
{
	struct vm *vm = vcpu_vm(v);
	uint32_t vector = 0;

	if (mem_read(vm_mem(vm), ACPI_FACS_GPA + ACPI_FACS_WAKING_VECTOR, &vector, sizeof(vector))) {
		vcpu_fail(v, "ACPI S3: the FACS at 0x%llx is outside RAM",
			  (unsigned long long)ACPI_FACS_GPA);
	} else if (!vector) {
		/* No waking vector: firmware would boot afresh, a reset here. */
		vm_say(vm, GMSG_ACPI_SLEEP, "vCPU %u: ACPI S3 with no waking vector in the FACS: a reset",
		       vcpu_index(v));
		vm_request_stop(vm, EXITSTATUS_GUEST_RESET);
	} else if (vector > 0xfffff) {
		vcpu_fail(v, "ACPI S3: waking vector 0x%x lies above 1 MiB, out of real mode's reach",
			  vector);
	} else if (vcpu_resume_real_mode(v, vector)) {
		vcpu_fail(v, "ACPI S3: resuming at the waking vector 0x%x failed: %s", vector,
			  strerror(errno));
	}
}

struct acpi_pm_dev {
	pthread_mutex_t lock;
	struct acpi_pm pm;
};

static void acpi_pm_io(struct vcpu *v, uint64_t offset, bool write, void *data,
		       unsigned int size, void *state)
{
	struct acpi_pm_dev *d = state;
	uint8_t *bytes = data;
	enum acpi_pm_event ev = ACPI_PM_NONE;
	unsigned int typ = 0;
	bool wake;

	pthread_mutex_lock(&d->lock);
	for (unsigned int i = 0; i < size; i++) {
		unsigned int off = (unsigned int)offset + i;

		if (!write)
			bytes[i] = acpi_pm_read(&d->pm, off);
		else if ((ev = acpi_pm_write(&d->pm, off, bytes[i])) != ACPI_PM_NONE)
			typ = ACPI_PM1_CNT_SLP_TYP(d->pm.cnt);
	}
	wake = d->pm.en & ACPI_PM1_EN_RTC;
	pthread_mutex_unlock(&d->lock);
	if (ev == ACPI_PM_POWEROFF)
		vm_request_stop(vcpu_vm(v), EXITSTATUS_OK);
	else if (ev == ACPI_PM_SUSPEND && wake && vm_nr_vcpus(vcpu_vm(v)) == 1)
		suspend_resume(v);
	else if (ev != ACPI_PM_NONE)
		vm_say(vcpu_vm(v), GMSG_ACPI_SLEEP, "vCPU %u: ACPI sleep with SLP_TYP %u: only S5 "
		       "(SLP_TYP %u) and, with one vCPU and the RTC wake enabled, S3 (SLP_TYP %u) "
		       "are implemented; ignored", vcpu_index(v), typ, ACPI_SLP_TYP_S5,
		       ACPI_SLP_TYP_S3);
}

static void acpi_pm_destroy(void *state)
{
	struct acpi_pm_dev *d = state;

	pthread_mutex_destroy(&d->lock);
	free(d);
}

static const struct bus_desc acpi_pm_desc = {
	.name = "acpi-pm1a", .kind = STATS_PIO_OTHER, .io = acpi_pm_io, .destroy = acpi_pm_destroy,
};

int acpi_pm_dev_create(struct vm *vm, char *err, size_t errlen)
{
	struct acpi_pm_dev *d = calloc(1, sizeof(*d));

	if (!d)
		return errmsg(err, errlen, "out of memory for the ACPI PM1a registers");
	pthread_mutex_init(&d->lock, NULL);
	acpi_pm_reset(&d->pm);
	/* One range: the event block (0x600-0x603) and the control block (0x604-0x605). */
	if (bus_claim(vm_bus(vm), BUS_PIO, ACPI_PM1A_EVT_PORT, ACPI_PM_NR_REGS, &acpi_pm_desc, d,
		      err, errlen)) {
		acpi_pm_destroy(d);
		return -1;
	}
	return 0;
}
