/* SPDX-License-Identifier: MIT */
/*
 * The MC146818 CMOS clock at ports 0x70 (index) and 0x71 (data), for Linux
 * and Multiboot guests: the host's UTC time in binary, 24-hour mode,
 * "update in progress" in the last 2228 us of each host second (as the part
 * sets it 244 us before each update and through it: kvm-unit-tests' s3
 * waits for its edge),
 * battery good, no alarm or periodic interrupts (IRQ 8 never fires). Without it Linux's rtc_cmos probe reads all ones from an
 * unclaimed port, waits out its update-in-progress retries and gives up
 * ("broken or not accessible"), and the boot has no wall-clock time.
 * The other 114 bytes are plain CMOS RAM, zero at start.
 */
#ifndef VMM_DEV_CMOS_RTC_H
#define VMM_DEV_CMOS_RTC_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#define CMOS_INDEX_PORT		0x70	/* bit 7: NMI disable, ignored */
#define CMOS_DATA_PORT		0x71
#define CMOS_NR_REGS		128

#define CMOS_SECONDS		0x00
#define CMOS_MINUTES		0x02
#define CMOS_HOURS		0x04
#define CMOS_WEEKDAY		0x06
#define CMOS_DAY		0x07
#define CMOS_MONTH		0x08
#define CMOS_YEAR		0x09
#define CMOS_REG_A		0x0a	/* bit 7 UIP: before each update */
#define CMOS_REG_B		0x0b
#define CMOS_REG_C		0x0c	/* interrupt flags: none, ever */
#define CMOS_REG_D		0x0d	/* bit 7 VRT: the battery is good */
#define CMOS_CENTURY		0x32

#define CMOS_A_DIVIDER		0x26	/* 32.768 kHz time base, 1024 Hz rate: what firmware sets */
#define CMOS_B_24H		0x02
#define CMOS_B_BINARY		0x04
#define CMOS_D_VRT		0x80
#define CMOS_A_UIP		0x80
/*
 * UIP from here to the second's end: the part raises it 244 us before an
 * update, which then takes 1984 us with the 32.768 kHz base (MC146818A data
 * sheet); here the update is at the second's end, so both come before it.
 */
#define CMOS_UIP_FROM_NS	(1000000000L - 244000L - 1984000L)

struct cmos_rtc {
	uint8_t index;
	uint8_t ram[CMOS_NR_REGS];	/* what was written; the clock registers are computed */
};

void cmos_rtc_reset(struct cmos_rtc *c);
/* A read of `port`; `now` (UTC) and `nsec` into that second are the host's time. */
uint8_t cmos_rtc_read(struct cmos_rtc *c, uint16_t port, time_t now, long nsec);
void cmos_rtc_write(struct cmos_rtc *c, uint16_t port, uint8_t val);

#endif
