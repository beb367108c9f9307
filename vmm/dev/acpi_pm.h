/* SPDX-License-Identifier: MIT */
/*
 * The ACPI PM1a event and control blocks the FADT names (vmm/acpi.h:
 * ACPI_PM1A_EVT_PORT, ACPI_PM1A_CNT_PORT), as six byte registers: PM1_STS
 * (no event ever happens: reads 0, writes clear nothing), PM1_EN (kept),
 * PM1_CNT (SCI_EN reads 1: always in ACPI mode). Writing SLP_EN with
 * SLP_TYP 5, the DSDT's \_S5, is a poweroff. SLP_TYP 1 (QEMU's S3) with
 * the RTC wake enabled in PM1_EN, on a one-vCPU machine, is a suspend that
 * wakes at once: the vCPU resumes in real mode at the FACS waking vector,
 * RAM as it was (no time passes asleep).
 */
#ifndef VMM_DEV_ACPI_PM_H
#define VMM_DEV_ACPI_PM_H

#include <stdint.h>

#define ACPI_PM_NR_REGS		6	/* bytes: STS 0-1, EN 2-3, CNT 4-5 */
#define ACPI_PM1_CNT_SCI_EN	0x0001
#define ACPI_PM1_CNT_SLP_TYP(v)	(((v) >> 10) & 7)
#define ACPI_PM1_CNT_SLP_EN	0x2000

struct acpi_pm {
	uint16_t en;		/* PM1_EN as written */
	uint16_t cnt;		/* PM1_CNT as written, SLP_EN (write-only) left out */
};

enum acpi_pm_event {
	ACPI_PM_NONE,
	ACPI_PM_POWEROFF,	/* SLP_EN with SLP_TYP 5 */
	ACPI_PM_SUSPEND,	/* SLP_EN with SLP_TYP 1 (S3) */
	ACPI_PM_SLEEP,		/* SLP_EN with another SLP_TYP: no such state here */
};

void acpi_pm_reset(struct acpi_pm *pm);
/* One byte at `off` (0..5) from the event block's start. */
uint8_t acpi_pm_read(const struct acpi_pm *pm, unsigned int off);
enum acpi_pm_event acpi_pm_write(struct acpi_pm *pm, unsigned int off, uint8_t val);

#endif
