// SPDX-License-Identifier: MIT
/* Pure PM1a register logic; vmm/dev/linux_devices.c puts it on the bus. */
#include "vmm/dev/acpi_pm.h"

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
		return ACPI_PM1_CNT_SLP_TYP(cnt) == 5 ? ACPI_PM_POWEROFF : ACPI_PM_SLEEP;
	default:	/* PM1_STS: write-1-to-clear, and nothing is ever set */
		return ACPI_PM_NONE;
	}
}
