// SPDX-License-Identifier: MIT
/* The CMOS clock: pure register logic, then the device on the bus. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vmm/dev/cmos_rtc.h"
#include "vmm/dev/devices.h"
#include "vmm/errmsg.h"
#include "vmm/vcpu_ops.h"

void cmos_rtc_reset(struct cmos_rtc *c)
{
	memset(c, 0, sizeof(*c));
	c->ram[CMOS_REG_A] = CMOS_A_DIVIDER;
	c->ram[CMOS_REG_B] = CMOS_B_24H | CMOS_B_BINARY;
}

struct civil {
	unsigned int year, month, day, hour, min, sec, wday;	/* month 1-12, wday 0 = Sunday */
};

/*
 * UTC from seconds since 1970 by arithmetic alone: gmtime_r() would read
 * the time zone files on its first call, which the vCPU filter forbids.
 * Days are counted in 400-year eras starting on a 1 March.
 */
static struct civil to_civil(time_t now)
{
	int64_t days = (int64_t)now / 86400, secs = (int64_t)now % 86400;
	int64_t z, era, doe, yoe, doy, mp;
	struct civil c;

	if (secs < 0) {
		secs += 86400;
		days--;
	}
	c.hour = (unsigned int)(secs / 3600);
	c.min = (unsigned int)(secs / 60 % 60);
	c.sec = (unsigned int)(secs % 60);
	c.wday = (unsigned int)(((days % 7) + 11) % 7);	/* 1970-01-01 was a Thursday */
	z = days + 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	c.day = (unsigned int)(doy - (153 * mp + 2) / 5 + 1);
	c.month = (unsigned int)(mp < 10 ? mp + 3 : mp - 9);
	c.year = (unsigned int)(yoe + era * 400 + (c.month <= 2));
	return c;
}

/* A clock register from `now`, in binary (register B's DM bit is fixed on). */
static uint8_t clock_reg(unsigned int reg, time_t now)
{
	struct civil c = to_civil(now);

	switch (reg) {
	case CMOS_SECONDS: return (uint8_t)c.sec;
	case CMOS_MINUTES: return (uint8_t)c.min;
	case CMOS_HOURS: return (uint8_t)c.hour;
	case CMOS_WEEKDAY: return (uint8_t)(c.wday + 1);	/* 1 = Sunday */
	case CMOS_DAY: return (uint8_t)c.day;
	case CMOS_MONTH: return (uint8_t)c.month;
	case CMOS_YEAR: return (uint8_t)(c.year % 100);
	default: return (uint8_t)(c.year / 100);	/* CMOS_CENTURY */
	}
}

static bool is_clock(unsigned int reg)
{
	return reg <= CMOS_YEAR ? !(reg & 1) || reg == CMOS_WEEKDAY || reg == CMOS_DAY ||
				  reg == CMOS_YEAR : reg == CMOS_CENTURY;
}

uint8_t cmos_rtc_read(struct cmos_rtc *c, uint16_t port, time_t now, long nsec)
{
	unsigned int reg = c->index;

	if (port == CMOS_INDEX_PORT)
		return 0xff;		/* write-only on a PC */
	if (is_clock(reg))
		return clock_reg(reg, now);
	if (reg == CMOS_REG_C)
		return 0;
	if (reg == CMOS_REG_D)
		return CMOS_D_VRT;
	/* UIP: set before and through each update, as on the part (CMOS_UIP_FROM_NS). */
	if (reg == CMOS_REG_A && nsec >= CMOS_UIP_FROM_NS)
		return (uint8_t)(c->ram[reg] | CMOS_A_UIP);
	return c->ram[reg];
}

void cmos_rtc_write(struct cmos_rtc *c, uint16_t port, uint8_t val)
{
	if (port == CMOS_INDEX_PORT) {
		c->index = val & 0x7f;
		return;
	}
	/* The clock follows the host; the status bits are fixed: keep the rest. */
	if (is_clock(c->index) || c->index == CMOS_REG_C || c->index == CMOS_REG_D)
		return;
	if (c->index == CMOS_REG_A)
		val &= 0x7f;
	if (c->index == CMOS_REG_B)
		val = (uint8_t)(val | CMOS_B_24H | CMOS_B_BINARY);
	c->ram[c->index] = val;
}

struct cmos_dev {
	pthread_mutex_t lock;		/* index and data are one sequence */
	struct cmos_rtc rtc;
};

/* clock_gettime, which the vCPU filter allows (time(2) is not). */
static struct timespec host_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts;
}

static void cmos_io(struct vcpu *v, uint64_t offset, bool write, void *data, unsigned int size,
		    void *state)
{
	struct cmos_dev *d = state;
	uint8_t *bytes = data;

	(void)v;
	pthread_mutex_lock(&d->lock);
	for (unsigned int i = 0; i < size; i++) {
		uint16_t port = (uint16_t)(CMOS_INDEX_PORT + ((offset + i) & 1));

		struct timespec now = host_now();

		if (write)
			cmos_rtc_write(&d->rtc, port, bytes[i]);
		else
			bytes[i] = cmos_rtc_read(&d->rtc, port, now.tv_sec, now.tv_nsec);
	}
	pthread_mutex_unlock(&d->lock);
}

static void cmos_destroy(void *state)
{
	struct cmos_dev *d = state;

	pthread_mutex_destroy(&d->lock);
	free(d);
}

static const struct bus_desc cmos_desc = {
	.name = "cmos-rtc", .kind = STATS_PIO_OTHER, .io = cmos_io, .destroy = cmos_destroy,
};

int cmos_rtc_dev_create(struct vm *vm, char *err, size_t errlen)
{
	struct cmos_dev *d = calloc(1, sizeof(*d));

	if (!d)
		return errmsg(err, errlen, "out of memory for the CMOS clock");
	pthread_mutex_init(&d->lock, NULL);
	cmos_rtc_reset(&d->rtc);
	if (bus_claim(vm_bus(vm), BUS_PIO, CMOS_INDEX_PORT, 2, &cmos_desc, d, err, errlen)) {
		cmos_destroy(d);
		return -1;
	}
	return 0;
}
