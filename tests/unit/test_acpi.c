// SPDX-License-Identifier: MIT
/* ACPI tables as a guest finds them: RSDP scan, checksums, FADT and MADT. */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "tests/unit/suites.h"
#include "vmm/acpi.h"

#define RAM	(2ULL << 20)

static struct guest_mem mem;
static char err[256];

static void setup(void)
{
	ck_assert_int_eq(mem_init(&mem, RAM, err, sizeof(err)), 0);
}

static void teardown(void)
{
	mem_free(&mem);
}

static uint8_t sum(uint64_t gpa, size_t len)
{
	const uint8_t *p = mem_gpa_to_host(&mem, gpa, len);
	uint8_t s = 0;

	ck_assert_ptr_nonnull(p);
	for (size_t i = 0; i < len; i++)
		s += p[i];
	return s;
}

/* Scan like a guest does: 16-byte steps through the BIOS area. */
static uint64_t find_rsdp(void)
{
	for (uint64_t a = ACPI_AREA_START; a < ACPI_AREA_END; a += 16)
		if (!memcmp(mem_gpa_to_host(&mem, a, 8), "RSD PTR ", 8))
			return a;
	return 0;
}

static const struct acpi_header *table(uint32_t gpa, const char *sig)
{
	const struct acpi_header *h = mem_gpa_to_host(&mem, gpa, sizeof(*h));

	ck_assert_ptr_nonnull(h);
	ck_assert_msg(!memcmp(h->signature, sig, 4), "table at 0x%x is not %s", gpa, sig);
	ck_assert_uint_eq(sum(gpa, h->length), 0);
	return h;
}

START_TEST(test_checksum_helper)
{
	uint8_t b[5] = { 1, 2, 3, 250, 0 };

	b[4] = acpi_checksum(b, sizeof(b));
	ck_assert_uint_eq(b[4], 0);	/* 1+2+3+250 = 256: already zero */
	b[0] = 2;
	b[4] = 0;
	b[4] = acpi_checksum(b, sizeof(b));
	ck_assert_uint_eq(b[4], 255);
}
END_TEST

START_TEST(test_tables)
{
	const struct acpi_rsdp *rsdp;
	const uint32_t *entries;
	const struct acpi_fadt *fadt;
	uint64_t at;

	ck_assert_int_eq(acpi_build(&mem, 4, 0x608, err, sizeof(err)), 0);
	at = find_rsdp();
	ck_assert_uint_ne(at, 0);
	ck_assert_uint_eq(sum(at, sizeof(*rsdp)), 0);
	rsdp = mem_gpa_to_host(&mem, at, sizeof(*rsdp));
	ck_assert_uint_eq(rsdp->revision, 0);
	table(rsdp->rsdt, "RSDT");
	ck_assert_uint_eq(table(rsdp->rsdt, "RSDT")->length, 36 + 2 * 4);
	entries = mem_gpa_to_host(&mem, rsdp->rsdt + 36, 8);
	fadt = (const struct acpi_fadt *)table(entries[0], "FACP");
	ck_assert_uint_eq(fadt->h.length, 116);
	ck_assert_uint_eq(*(const uint32_t *)((const uint8_t *)fadt + 76), 0x608);
	ck_assert_uint_eq(fadt->pm_tmr_len, 4);
	ck_assert_uint_eq(fadt->flags & (1u << 8), 0);	/* TMR_VAL_EXT: 24 bits */
	table(fadt->dsdt, "DSDT");
	ck_assert(!memcmp(mem_gpa_to_host(&mem, fadt->firmware_ctrl, 4), "FACS", 4));
	ck_assert_uint_eq(fadt->firmware_ctrl % 64, 0);
	table(entries[1], "APIC");
}
END_TEST

/* Linux's set: PM1a blocks, SCI 9, SMI_CMD 0, a DSDT with \_S5; the rest as Multiboot's. */
START_TEST(test_linux_tables)
{
	const struct acpi_fadt *fadt;
	const struct acpi_header *dsdt;
	const uint8_t *aml;
	size_t len;

	ck_assert_int_eq(acpi_build_linux(&mem, 2, 0x608, err, sizeof(err)), 0);
	fadt = (const struct acpi_fadt *)table(ACPI_FADT_GPA, "FACP");
	ck_assert_uint_eq(fadt->pm1a_evt_blk, 0x600);
	ck_assert_uint_eq(fadt->pm1_evt_len, 4);
	ck_assert_uint_eq(fadt->pm1a_cnt_blk, 0x604);
	ck_assert_uint_eq(fadt->pm1_cnt_len, 2);
	ck_assert_uint_eq(fadt->pm1b_evt_blk | fadt->pm1b_cnt_blk, 0);
	ck_assert_uint_eq(fadt->sci_int, 9);
	ck_assert_uint_eq(fadt->smi_cmd, 0);
	ck_assert_uint_eq(fadt->pm_tmr_blk, 0x608);
	dsdt = table(fadt->dsdt, "DSDT");
	aml = acpi_dsdt_linux_aml(&len);
	ck_assert_uint_eq(dsdt->length, 36 + len);
	ck_assert(!memcmp((const uint8_t *)dsdt + 36, aml, len));
	/* NameOp, \_S5_, PackageOp whose length runs exactly to the table's end. */
	ck_assert(!memcmp(aml, "\x08\\_S5_\x12", 7));
	ck_assert_uint_eq(7 + aml[7], len);
	ck_assert_uint_eq(aml[8], 4);			/* NumElements */
	ck_assert_uint_eq(aml[9], 0x0a);		/* BytePrefix */
	ck_assert_uint_eq(aml[10], ACPI_SLP_TYP_S5);
	table(ACPI_MADT_GPA, "APIC");
	/* Multiboot's: the same PM1 blocks (kvm-unit-tests' s3 sleeps through them), an empty DSDT. */
	ck_assert_int_eq(acpi_build(&mem, 2, 0x608, err, sizeof(err)), 0);
	fadt = (const struct acpi_fadt *)table(ACPI_FADT_GPA, "FACP");
	ck_assert_uint_eq(fadt->pm1a_evt_blk, ACPI_PM1A_EVT_PORT);
	ck_assert_uint_eq(fadt->pm1a_cnt_blk, ACPI_PM1A_CNT_PORT);
	ck_assert_uint_eq(table(fadt->dsdt, "DSDT")->length, 36);
}
END_TEST

START_TEST(test_madt)
{
	const struct acpi_header *h;
	const uint8_t *p, *end;
	unsigned int lapics = 0, ioapics = 0;

	ck_assert_int_eq(acpi_build(&mem, 3, 0x608, err, sizeof(err)), 0);
	h = table(ACPI_MADT_GPA, "APIC");
	p = (const uint8_t *)h + 36;
	ck_assert_uint_eq(*(const uint32_t *)p, 0xfee00000u);
	end = (const uint8_t *)h + h->length;
	for (p += 8; p < end; p += p[1]) {
		ck_assert_uint_ge(p[1], 2);
		if (p[0] == 0) {
			ck_assert_uint_eq(p[1], 8);
			ck_assert_uint_eq(p[2], lapics);	/* processor ID */
			ck_assert_uint_eq(p[3], lapics);	/* APIC ID = vCPU index */
			ck_assert_uint_eq(p[4] & 1, 1);		/* enabled */
			lapics++;
		} else if (p[0] == 1) {
			ck_assert_uint_eq(*(const uint32_t *)(p + 4), 0xfec00000u);
			ioapics++;
		}
	}
	ck_assert_ptr_eq(p, end);
	ck_assert_uint_eq(lapics, 3);
	ck_assert_uint_eq(ioapics, 1);
}
END_TEST

/* APIC IDs 0..254 in LAPIC entries, 255 and up in x2APIC ones (type 9). */
START_TEST(test_madt_x2apic)
{
	const struct acpi_header *h;
	const uint8_t *p, *end;
	unsigned int lapics = 0, x2apics = 0;

	ck_assert_int_eq(acpi_build(&mem, 300, 0x608, err, sizeof(err)), 0);
	h = table(ACPI_MADT_GPA, "APIC");
	ck_assert_uint_eq(h->revision, 3);
	ck_assert_uint_eq(h->length, acpi_madt_size(300));
	ck_assert_uint_eq(h->length, 36 + 8 + 12 + 255 * 8 + 45 * 16);
	end = (const uint8_t *)h + h->length;
	for (p = (const uint8_t *)h + 36 + 8; p < end; p += p[1]) {
		if (p[0] == 0) {
			ck_assert_uint_eq(p[3], lapics);
			ck_assert_uint_eq(x2apics, 0);	/* all LAPIC entries come first */
			lapics++;
		} else if (p[0] == 9) {
			uint32_t id, flags, uid;

			ck_assert_uint_eq(p[1], 16);
			memcpy(&id, p + 4, 4);
			memcpy(&flags, p + 8, 4);
			memcpy(&uid, p + 12, 4);
			ck_assert_uint_eq(id, 255 + x2apics);
			ck_assert_uint_eq(uid, id);
			ck_assert_uint_eq(flags & 1, 1);
			x2apics++;
		}
	}
	ck_assert_ptr_eq(p, end);
	ck_assert_uint_eq(lapics, 255);
	ck_assert_uint_eq(x2apics, 45);
	/* 255 vCPUs still need no x2APIC entry: an ACPI 1.0 table. */
	ck_assert_int_eq(acpi_build(&mem, 255, 0x608, err, sizeof(err)), 0);
	ck_assert_uint_eq(table(ACPI_MADT_GPA, "APIC")->revision, 1);
}
END_TEST

START_TEST(test_errors)
{
	struct guest_mem small;

	ck_assert_int_eq(acpi_build(&mem, 0, 0x608, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "0 vCPUs"));
	/* 4096 (the most vCPU ids any x86 KVM takes) fits the area; 10^5 does not. */
	ck_assert_int_eq(acpi_build(&mem, 4096, 0x608, err, sizeof(err)), 0);
	ck_assert_int_eq(acpi_build(&mem, 100000, 0x608, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "a MADT for 100000 vCPUs"));
	ck_assert_int_eq(mem_init(&small, 512 << 10, err, sizeof(err)), 0);
	ck_assert_int_eq(acpi_build(&small, 1, 0x608, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "do not fit guest RAM"));
	mem_free(&small);
}
END_TEST

static Suite *acpi_suite(void)
{
	Suite *s = suite_create("acpi");
	TCase *tc = tcase_create("tables");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_checksum_helper);
	tcase_add_test(tc, test_tables);
	tcase_add_test(tc, test_linux_tables);
	tcase_add_test(tc, test_madt);
	tcase_add_test(tc, test_madt_x2apic);
	tcase_add_test(tc, test_errors);
	suite_add_tcase(s, tc);
	return s;
}
UNIT_SUITE(acpi_suite);
