/* SPDX-License-Identifier: MIT */
/*
 * ACPI 1.0 tables for Multiboot kernels: RSDP, RSDT, FADT (with the PM
 * timer block and the PM1a event and control blocks, vmm/dev/acpi_pm.c),
 * FACS, an empty DSDT and a MADT with one LAPIC per vCPU (a Processor
 * Local x2APIC entry, ACPI 4.0, for APIC IDs of 255 and up). Layouts and
 * offsets from the ACPI specification. Linux guests get more
 * (acpi_build_linux): a DSDT whose AML names \_S5, so Linux can power off.
 */
#ifndef VMM_ACPI_H
#define VMM_ACPI_H

#include <stddef.h>
#include <stdint.h>

#include "vmm/mem.h"

/* Where guests search for the RSDP: 16-byte boundaries in 0xe0000-0xfffff. */
#define ACPI_AREA_START		0xe0000ull
#define ACPI_AREA_END		0x100000ull
#define ACPI_RSDP_GPA		ACPI_AREA_START
#define ACPI_LAPIC_GPA		0xfee00000u
#define ACPI_IOAPIC_GPA		0xfec00000u

struct acpi_header {
	char signature[4];
	uint32_t length;
	uint8_t revision;
	uint8_t checksum;
	char oem_id[6];
	char oem_table_id[8];
	uint32_t oem_revision;
	char creator_id[4];
	uint32_t creator_revision;
} __attribute__((packed));

struct acpi_rsdp {
	char signature[8];		/* "RSD PTR " */
	uint8_t checksum;		/* over these 20 bytes */
	char oem_id[6];
	uint8_t revision;		/* 0: ACPI 1.0, RSDT only */
	uint32_t rsdt;
} __attribute__((packed));

/* FADT revision 1 (116 bytes): only the fields a guest may look at named. */
struct acpi_fadt {
	struct acpi_header h;
	uint32_t firmware_ctrl;		/* FACS */
	uint32_t dsdt;
	uint8_t int_model;
	uint8_t reserved1;
	uint16_t sci_int;
	uint32_t smi_cmd;
	uint8_t acpi_enable, acpi_disable, s4bios_req, reserved2;
	uint32_t pm1a_evt_blk, pm1b_evt_blk, pm1a_cnt_blk, pm1b_cnt_blk;
	uint32_t pm2_cnt_blk;
	uint32_t pm_tmr_blk;		/* offset 76 */
	uint32_t gpe0_blk, gpe1_blk;
	uint8_t pm1_evt_len, pm1_cnt_len, pm2_cnt_len, pm_tmr_len;
	uint8_t gpe0_blk_len, gpe1_blk_len, gpe1_base, reserved3;
	uint16_t p_lvl2_lat, p_lvl3_lat;
	uint16_t flush_size, flush_stride;
	uint8_t duty_offset, duty_width, day_alrm, mon_alrm, century;
	uint8_t reserved4[3];
	uint32_t flags;
} __attribute__((packed));

/*
 * Linux guests: the PM1a blocks where QEMU's ICH9/PIIX4 PM base 0x600 puts
 * them, next to the PM timer at 0x608. Event block: PM1_STS (2 bytes), then
 * PM1_EN (2 bytes); control block: PM1_CNT (2 bytes).
 */
#define ACPI_PM1A_EVT_PORT	0x600
#define ACPI_PM1_EVT_LEN	4
#define ACPI_PM1A_CNT_PORT	0x604
#define ACPI_PM1_CNT_LEN	2
#define ACPI_SLP_TYP_S5		5	/* what the DSDT's \_S5 package says to write for S5 */
#define ACPI_SLP_TYP_S3		1	/* QEMU's \_S3 value, which kvm-unit-tests' s3 writes */
#define ACPI_PM1_EN_RTC		0x0400	/* PM1_EN: the RTC alarm may wake the machine */
#define ACPI_FACS_WAKING_VECTOR	12	/* FACS offset: firmware_waking_vector (32 bits) */

/* The layout inside the area, each table on its own boundary. */
#define ACPI_RSDT_GPA		(ACPI_AREA_START + 0x040)
#define ACPI_FACS_GPA		(ACPI_AREA_START + 0x100)	/* 64-byte aligned */
#define ACPI_DSDT_GPA		(ACPI_AREA_START + 0x200)
#define ACPI_FADT_GPA		(ACPI_AREA_START + 0x300)
#define ACPI_MADT_GPA		(ACPI_AREA_START + 0x400)

/* The byte that makes `len` bytes sum to zero (mod 256), given it is 0 now. */
uint8_t acpi_checksum(const void *p, size_t len);
/* The MADT's length: LAPIC entries for APIC IDs 0..254, x2APIC entries from 255. */
size_t acpi_madt_size(unsigned int nr_cpus);
/* Write every table into guest RAM for `nr_cpus` vCPUs (APIC ID = index). */
int acpi_build(struct guest_mem *mem, unsigned int nr_cpus, uint16_t pm_timer_port,
	       char *err, size_t errlen);
/* The same plus the PM1a blocks in the FADT and \_S5 in the DSDT: for Linux guests. */
int acpi_build_linux(struct guest_mem *mem, unsigned int nr_cpus, uint16_t pm_timer_port,
		     char *err, size_t errlen);
/* The DSDT's AML body (after the 36-byte header) for Linux guests, and its length. */
const uint8_t *acpi_dsdt_linux_aml(size_t *len);

#endif
