// SPDX-License-Identifier: MIT
/*
 * Tables are assembled in a host buffer, checksummed there and copied in
 * with mem_write(), so a table never half-exists in guest RAM.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "vmm/acpi.h"
#include "vmm/errmsg.h"

_Static_assert(sizeof(struct acpi_header) == 36, "ACPI table header is 36 bytes");
_Static_assert(sizeof(struct acpi_rsdp) == 20, "ACPI 1.0 RSDP is 20 bytes");
_Static_assert(sizeof(struct acpi_fadt) == 116, "FADT revision 1 is 116 bytes");
_Static_assert(offsetof(struct acpi_fadt, pm_tmr_blk) == 76, "PM_TMR_BLK at offset 76");
_Static_assert(offsetof(struct acpi_fadt, flags) == 112, "FADT flags at offset 112");

#define FADT_WBINVD		(1u << 0)
#define FADT_PROC_C1		(1u << 2)
#define MADT_PCAT_COMPAT	(1u << 0)	/* 8259 PICs present (KVM's in-kernel ones) */
#define MADT_LAPIC		0
#define MADT_IOAPIC		1
#define MADT_X2APIC		9	/* ACPI 4.0+: 32-bit APIC ID and processor UID */
#define MADT_XAPIC_MAX_ID	254	/* 0xff is xAPIC broadcast: from there x2APIC entries */
#define MADT_REVISION_X2APIC	3	/* the MADT revision of ACPI 4.0 */
#define MADT_LAPIC_ENABLED	(1u << 0)
#define SCI_IRQ			9

struct madt_lapic {
	uint8_t type, length, processor_id, apic_id;
	uint32_t flags;
} __attribute__((packed));

struct madt_x2apic {
	uint8_t type, length;
	uint16_t reserved;
	uint32_t x2apic_id, flags, processor_uid;
} __attribute__((packed));

struct madt_ioapic {
	uint8_t type, length, id, reserved;
	uint32_t address, gsi_base;
} __attribute__((packed));

uint8_t acpi_checksum(const void *p, size_t len)
{
	const uint8_t *b = p;
	uint8_t sum = 0;

	for (size_t i = 0; i < len; i++)
		sum += b[i];
	return (uint8_t)-sum;
}

static void fill_header(struct acpi_header *h, const char *sig, uint32_t len, uint8_t rev)
{
	memcpy(h->signature, sig, 4);
	h->length = len;
	h->revision = rev;
	memcpy(h->oem_id, "MINVMM", 6);
	memcpy(h->oem_table_id, "MINIVMM ", 8);
	h->oem_revision = 1;
	memcpy(h->creator_id, "MVMM", 4);
	h->creator_revision = 1;
	h->checksum = 0;
	h->checksum = acpi_checksum(h, len);
}

static int put(struct guest_mem *mem, uint64_t gpa, const void *p, size_t len)
{
	return mem_write(mem, gpa, p, len);
}

static int build_rsdp_rsdt(struct guest_mem *mem)
{
	struct acpi_rsdp rsdp = { .revision = 0, .rsdt = ACPI_RSDT_GPA };
	struct {
		struct acpi_header h;
		uint32_t entries[2];
	} __attribute__((packed)) rsdt = { .entries = { ACPI_FADT_GPA, ACPI_MADT_GPA } };

	memcpy(rsdp.signature, "RSD PTR ", 8);
	memcpy(rsdp.oem_id, "MINVMM", 6);
	rsdp.checksum = acpi_checksum(&rsdp, sizeof(rsdp));
	fill_header(&rsdt.h, "RSDT", sizeof(rsdt), 1);
	return put(mem, ACPI_RSDP_GPA, &rsdp, sizeof(rsdp)) ||
	       put(mem, ACPI_RSDT_GPA, &rsdt, sizeof(rsdt));
}

/* FACS: no checksum; an ACPI 1.0 FADT must point at one. */
static int build_facs(struct guest_mem *mem)
{
	uint8_t facs[64] = { 'F', 'A', 'C', 'S', sizeof(facs) };

	return put(mem, ACPI_FACS_GPA, facs, sizeof(facs));
}

/*
 * Name (\_S5, Package (0x04) { 5, 5, 0, 0 }) in AML (ACPI 6.4, 20.2):
 *   08            NameOp
 *   5c            RootChar '\'
 *   5f 53 35 5f   NameSeg "_S5_" (the trailing '_' pads it to 4 characters)
 *   12            PackageOp
 *   08            PkgLength: 8 bytes from here to the package's end (one-byte form, < 64)
 *   04            NumElements
 *   0a 05         BytePrefix 5: SLP_TYP for PM1a_CNT
 *   0a 05         BytePrefix 5: SLP_TYP for PM1b_CNT (there is none; Linux reads it anyway)
 *   00 00         ZeroOp, ZeroOp: reserved
 * tests/host/acpi-iasl.sh disassembles it with iasl.
 */
static const uint8_t dsdt_s5_aml[] = {
	0x08, 0x5c, '_', 'S', '5', '_',
	0x12, 0x08, 0x04, 0x0a, ACPI_SLP_TYP_S5, 0x0a, ACPI_SLP_TYP_S5, 0x00, 0x00,
};

const uint8_t *acpi_dsdt_linux_aml(size_t *len)
{
	*len = sizeof(dsdt_s5_aml);
	return dsdt_s5_aml;
}

static int build_dsdt(struct guest_mem *mem, bool linux_pm)
{
	struct {
		struct acpi_header h;
		uint8_t aml[sizeof(dsdt_s5_aml)];
	} __attribute__((packed)) dsdt;
	size_t len = sizeof(dsdt.h);

	memset(&dsdt, 0, sizeof(dsdt));
	if (linux_pm) {
		memcpy(dsdt.aml, dsdt_s5_aml, sizeof(dsdt_s5_aml));
		len += sizeof(dsdt_s5_aml);
	}
	fill_header(&dsdt.h, "DSDT", (uint32_t)len, 1);
	return put(mem, ACPI_DSDT_GPA, &dsdt, len);
}

/*
 * The PM1a blocks (Multiboot and Linux kernels alike: kvm-unit-tests' s3
 * sleeps through them), SCI on IRQ 9 and SMI_CMD 0, which says the machine
 * is always in ACPI mode (PM1a_CNT reads SCI_EN = 1). With linux_pm the
 * DSDT names \_S5 as well.
 */
static int build_dsdt_fadt(struct guest_mem *mem, uint16_t pm_port, bool linux_pm)
{
	struct acpi_fadt f = {
		.firmware_ctrl = ACPI_FACS_GPA,
		.dsdt = ACPI_DSDT_GPA,
		.sci_int = SCI_IRQ,
		.pm1a_evt_blk = ACPI_PM1A_EVT_PORT,
		.pm1a_cnt_blk = ACPI_PM1A_CNT_PORT,
		.pm_tmr_blk = pm_port,
		.pm1_evt_len = ACPI_PM1_EVT_LEN,
		.pm1_cnt_len = ACPI_PM1_CNT_LEN,
		.pm_tmr_len = 4,
		.p_lvl2_lat = 101,	/* > 100: no C2 */
		.p_lvl3_lat = 1001,	/* > 1000: no C3 */
		.flags = FADT_WBINVD | FADT_PROC_C1,
	};

	fill_header(&f.h, "FACP", sizeof(f), 1);
	return build_dsdt(mem, linux_pm) || put(mem, ACPI_FADT_GPA, &f, sizeof(f));
}

static size_t madt_cpu_entry_size(unsigned int apic_id)
{
	return apic_id <= MADT_XAPIC_MAX_ID ? sizeof(struct madt_lapic) : sizeof(struct madt_x2apic);
}

size_t acpi_madt_size(unsigned int nr_cpus)
{
	size_t len = sizeof(struct acpi_header) + 8 + sizeof(struct madt_ioapic);

	for (unsigned int i = 0; i < nr_cpus; i++)
		len += madt_cpu_entry_size(i);
	return len;
}

/* One entry for the vCPU with APIC ID = processor UID = i; returns its size. */
static size_t put_cpu_entry(uint8_t *p, unsigned int i)
{
	struct madt_lapic l = { MADT_LAPIC, sizeof(l), (uint8_t)i, (uint8_t)i, MADT_LAPIC_ENABLED };
	struct madt_x2apic x = { MADT_X2APIC, sizeof(x), 0, i, MADT_LAPIC_ENABLED, i };

	if (i <= MADT_XAPIC_MAX_ID) {
		memcpy(p, &l, sizeof(l));
		return sizeof(l);
	}
	memcpy(p, &x, sizeof(x));
	return sizeof(x);
}

static int build_madt(struct guest_mem *mem, unsigned int nr_cpus)
{
	size_t len = acpi_madt_size(nr_cpus);
	uint8_t *buf = calloc(1, len);
	struct madt_ioapic io = { MADT_IOAPIC, sizeof(io), 0, 0, ACPI_IOAPIC_GPA, 0 };
	uint32_t lapic_flags[2] = { ACPI_LAPIC_GPA, MADT_PCAT_COMPAT };
	size_t off = sizeof(struct acpi_header);
	int r;

	if (!buf)
		return -1;
	memcpy(buf + off, lapic_flags, sizeof(lapic_flags));
	off += sizeof(lapic_flags);
	for (unsigned int i = 0; i < nr_cpus; i++)
		off += put_cpu_entry(buf + off, i);
	memcpy(buf + off, &io, sizeof(io));
	fill_header((struct acpi_header *)buf, "APIC", (uint32_t)len,
		    nr_cpus > MADT_XAPIC_MAX_ID + 1 ? MADT_REVISION_X2APIC : 1);
	r = ACPI_MADT_GPA + len > ACPI_AREA_END ? -1 : put(mem, ACPI_MADT_GPA, buf, len);
	free(buf);
	return r;
}

static int build_all(struct guest_mem *mem, unsigned int nr_cpus, uint16_t pm_timer_port,
		     bool linux_pm, char *err, size_t errlen)
{
	if (!nr_cpus)
		return errmsg(err, errlen, "ACPI: %u vCPUs: a MADT needs at least one", nr_cpus);
	if (ACPI_MADT_GPA + acpi_madt_size(nr_cpus) > ACPI_AREA_END)
		return errmsg(err, errlen, "ACPI: a MADT for %u vCPUs (%zu bytes) does not fit below 1 MiB",
			      nr_cpus, acpi_madt_size(nr_cpus));
	if (build_rsdp_rsdt(mem) || build_facs(mem) || build_dsdt_fadt(mem, pm_timer_port, linux_pm) ||
	    build_madt(mem, nr_cpus))
		return errmsg(err, errlen, "ACPI tables do not fit guest RAM below 1 MiB");
	return 0;
}

int acpi_build(struct guest_mem *mem, unsigned int nr_cpus, uint16_t pm_timer_port,
	       char *err, size_t errlen)
{
	return build_all(mem, nr_cpus, pm_timer_port, false, err, errlen);
}

int acpi_build_linux(struct guest_mem *mem, unsigned int nr_cpus, uint16_t pm_timer_port,
		     char *err, size_t errlen)
{
	return build_all(mem, nr_cpus, pm_timer_port, true, err, errlen);
}
