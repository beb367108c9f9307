// SPDX-License-Identifier: MIT
/*
 * The guest page-table walker (vmm/x86.c): x86_gva_to_gpa, x86_read_gva and
 * x86_read_linear read tables the guest controls. Tables built in a guest_mem
 * by hand; each case asserts the exact GPA, or that the walk fails.
 */
#include <check.h>
#include <linux/kvm.h>
#include <string.h>

#include "minivmm/abi.h"
#include "tests/unit/suites.h"
#include "vmm/x86.h"

#define RAM	(8ull << 20)
#define PML4	0x10000ull
#define PDPT	0x11000ull
#define PD	0x12000ull
#define PT	0x13000ull
#define P	0x001ull
#define RW	0x002ull
#define PS	0x080ull
#define NX	(1ull << 63)
#define OUTSIDE	0x40000000ull		/* 1 GiB: past RAM */

/* The GVA of PML4 slot a, PDPT slot b, PD slot c, PT slot d, offset o. */
#define GVA(a, b, c, d, o) \
	(((uint64_t)(a) << 39) | ((uint64_t)(b) << 30) | ((uint64_t)(c) << 21) | \
	 ((uint64_t)(d) << 12) | (o))

static struct guest_mem mem;

static void set_entry(uint64_t table, unsigned int idx, uint64_t e)
{
	ck_assert_int_eq(mem_write(&mem, table + idx * 8, &e, 8), 0);
}

/*
 * PML4[1] -> PDPT: [2] -> PD, [3] a 1 GiB page past RAM, [4] a 1 GiB page at
 * 0, [6] a table past RAM; PD: [3] -> PT, [5] a 2 MiB page at 4 MiB (PAT
 * bit 12 set), [7] a table past RAM; PT: [4] 2 MiB, [8] 3 MiB, [10] 5 MiB,
 * [11] 1 MiB (not contiguous with [10]), [12] past RAM, with NX.
 * PML4[7] points past RAM, PML4[8] has the reserved PS bit.
 */
static void setup(void)
{
	char err[128];

	ck_assert_int_eq(mem_init(&mem, RAM, err, sizeof(err)), 0);
	set_entry(PML4, 1, PDPT | P | RW);
	set_entry(PML4, 7, OUTSIDE | P);
	set_entry(PML4, 8, PDPT | P | PS);
	set_entry(PDPT, 2, PD | P);
	set_entry(PDPT, 3, OUTSIDE | P | PS);
	set_entry(PDPT, 4, 0 | P | PS);
	set_entry(PDPT, 6, OUTSIDE | P);
	set_entry(PD, 3, PT | P);
	set_entry(PD, 5, 0x401000ull | P | PS);
	set_entry(PD, 7, OUTSIDE | P);
	set_entry(PT, 4, 0x200000ull | P);
	set_entry(PT, 8, 0x300000ull | P);
	set_entry(PT, 10, 0x500000ull | P);
	set_entry(PT, 11, 0x100000ull | P);
	set_entry(PT, 12, (OUTSIDE + 0x1000) | P | NX);
}

static void teardown(void)
{
	mem_free(&mem);
}

static uint64_t walk(uint64_t cr3, uint64_t gva)
{
	uint64_t gpa = 0xdead;

	ck_assert_msg(x86_gva_to_gpa(&mem, cr3, gva, &gpa) == 0, "GVA 0x%llx not mapped",
		      (unsigned long long)gva);
	return gpa;
}

static void unmapped(uint64_t cr3, uint64_t gva)
{
	uint64_t gpa = 0xdead;

	ck_assert_msg(x86_gva_to_gpa(&mem, cr3, gva, &gpa) == -1, "GVA 0x%llx mapped to 0x%llx",
		      (unsigned long long)gva, (unsigned long long)gpa);
	ck_assert_uint_eq(gpa, 0xdead);		/* left alone on failure */
}

START_TEST(test_x86_walk_page_sizes)
{
	ck_assert_uint_eq(walk(PML4, GVA(1, 2, 3, 4, 0x123)), 0x200123);
	ck_assert_uint_eq(walk(PML4, GVA(1, 2, 3, 4, 0xfff)), 0x200fff);
	ck_assert_uint_eq(walk(PML4, GVA(1, 2, 5, 0, 0)), 0x400000);		/* 2 MiB */
	ck_assert_uint_eq(walk(PML4, GVA(1, 2, 5, 0x12, 0x345)), 0x412345);	/* PAT bit dropped */
	ck_assert_uint_eq(walk(PML4, GVA(1, 2, 5, 511, 0xfff)), 0x5fffff);
	ck_assert_uint_eq(walk(PML4, GVA(1, 4, 0, 5, 0)), 0x5000);		/* 1 GiB at 0 */
	ck_assert_uint_eq(walk(PML4, GVA(1, 4, 0x1ff, 0x1ff, 0xfff)), 0x3fffffff);
	/* A leaf past RAM still translates; reading it is what fails. */
	ck_assert_uint_eq(walk(PML4, GVA(1, 3, 1, 2, 3)), OUTSIDE + 0x202003);
	ck_assert_uint_eq(walk(PML4, GVA(1, 2, 3, 12, 0x10)), OUTSIDE + 0x1010);	/* NX dropped */
	/* CR3's low bits (PCD, PWT, a PCID) are not part of the table's address. */
	ck_assert_uint_eq(walk(PML4 | 0x18, GVA(1, 2, 3, 4, 0)), 0x200000);
	ck_assert_uint_eq(walk(PML4 | 0xfff, GVA(1, 2, 3, 4, 0)), 0x200000);
}
END_TEST

START_TEST(test_x86_walk_not_present)
{
	unmapped(PML4, GVA(0, 2, 3, 4, 0));	/* PML4E */
	unmapped(PML4, GVA(1, 5, 3, 4, 0));	/* PDPTE */
	unmapped(PML4, GVA(1, 2, 6, 4, 0));	/* PDE */
	unmapped(PML4, GVA(1, 2, 3, 5, 0));	/* PTE */
	set_entry(PT, 5, 0x200000ull | RW);	/* everything but P */
	unmapped(PML4, GVA(1, 2, 3, 5, 0));
}
END_TEST

START_TEST(test_x86_walk_tables_outside_ram)
{
	unmapped(OUTSIDE, GVA(1, 2, 3, 4, 0));	/* CR3 */
	unmapped(~0ull, GVA(1, 2, 3, 4, 0));
	unmapped(PML4, GVA(7, 0, 0, 0, 0));	/* PML4E -> PDPT past RAM */
	unmapped(PML4, GVA(1, 6, 0, 0, 0));	/* PDPTE -> PD past RAM */
	unmapped(PML4, GVA(1, 2, 7, 0, 0));	/* PDE -> PT past RAM */
	unmapped(PML4, GVA(8, 2, 3, 4, 0));	/* PS in a PML4E is reserved */
}
END_TEST

START_TEST(test_x86_walk_canonical)
{
	uint64_t hi = 0xffff800000000000ull;

	set_entry(PML4, 256, PDPT | P);		/* the first slot of the upper half */
	ck_assert_uint_eq(walk(PML4, hi | GVA(0, 2, 3, 4, 0x42)), 0x200042);
	unmapped(PML4, (1ull << 47) | GVA(0, 2, 3, 4, 0));	/* bit 47 not sign-extended */
	unmapped(PML4, (1ull << 48) | GVA(1, 2, 3, 4, 0));
	unmapped(PML4, (1ull << 63) | GVA(1, 2, 3, 4, 0));
}
END_TEST

START_TEST(test_x86_read_gva)
{
	uint8_t *ram = mem_gpa_to_host(&mem, 0, RAM);
	uint8_t buf[16];

	memcpy(ram + 0x500ff8, "ABCDEFGH", 8);
	memcpy(ram + 0x100000, "ijklmnop", 8);
	ck_assert_int_eq(x86_read_gva(&mem, PML4, GVA(1, 2, 3, 10, 0xff8), buf, 16), 0);
	ck_assert_int_eq(memcmp(buf, "ABCDEFGHijklmnop", 16), 0);	/* two pages, two GPAs */
	ck_assert_int_eq(x86_read_gva(&mem, PML4, GVA(1, 2, 3, 11, 0), buf, 0), 0);
	/* Into the unmapped page after PT[8], and into the past-RAM leaf PT[12]. */
	ck_assert_int_eq(x86_read_gva(&mem, PML4, GVA(1, 2, 3, 8, 0xff8), buf, 8), 0);
	ck_assert_int_eq(x86_read_gva(&mem, PML4, GVA(1, 2, 3, 8, 0xff8), buf, 9), -1);
	ck_assert_int_eq(x86_read_gva(&mem, PML4, GVA(1, 2, 3, 11, 0xfff), buf, 2), -1);
	/* A 1 GiB page whose GPA runs out of RAM mid-read. */
	ck_assert_int_eq(x86_read_gva(&mem, PML4, GVA(1, 4, 3, 511, 0xff8), buf, 8), 0);
	ck_assert_int_eq(x86_read_gva(&mem, PML4, GVA(1, 4, 3, 511, 0xff8), buf, 9), -1);
}
END_TEST

START_TEST(test_x86_read_linear)
{
	struct kvm_sregs s;
	uint8_t *ram = mem_gpa_to_host(&mem, 0, RAM);
	uint8_t buf[8];

	memcpy(ram + 0x200010, "linear!", 8);
	memset(&s, 0, sizeof(s));
	s.cr0 = X86_CR0_PE;			/* 32-bit, paging off: linear == GPA */
	ck_assert_int_eq(x86_read_linear(&mem, &s, 0x200010, buf, 8), 0);
	ck_assert_str_eq((char *)buf, "linear!");
	ck_assert_int_eq(x86_read_linear(&mem, &s, RAM - 4, buf, 8), -1);
	ck_assert_int_eq(x86_read_linear(&mem, &s, RAM - 8, buf, 8), 0);
	s.cr0 = X86_CR0_PE | X86_CR0_PG;	/* 32-bit paging: not walked */
	s.cr3 = PML4;
	ck_assert_int_eq(x86_read_linear(&mem, &s, 0x200010, buf, 8), -1);
	s.cr4 = 0x20;				/* PAE without long mode: neither */
	ck_assert_int_eq(x86_read_linear(&mem, &s, 0x200010, buf, 8), -1);
	s.efer = X86_EFER_LMA;
	memset(buf, 0, sizeof(buf));
	ck_assert_int_eq(x86_read_linear(&mem, &s, GVA(1, 2, 3, 4, 0x10), buf, 8), 0);
	ck_assert_str_eq((char *)buf, "linear!");
	ck_assert_int_eq(x86_read_linear(&mem, &s, 0x200010, buf, 8), -1);	/* not mapped */
	s.cr4 |= X86_CR4_LA57;			/* 5-level tables: not walked */
	ck_assert_int_eq(x86_read_linear(&mem, &s, GVA(1, 2, 3, 4, 0x10), buf, 8), -1);
}
END_TEST

/*
 * The crash report's stack words: as many as can be read, in 64-bit code at
 * RSP through the tables, elsewhere at SS.base + ESP.
 */
START_TEST(test_x86_read_stack)
{
	struct kvm_sregs s;
	uint8_t *ram = mem_gpa_to_host(&mem, 0, RAM);
	uint64_t w[4] = { 0 }, a = 0x1111, b = 0x2222;

	memcpy(ram + 0x300ff0, &a, 8);
	memcpy(ram + 0x300ff8, &b, 8);
	memset(&s, 0, sizeof(s));
	s.cr0 = X86_CR0_PE | X86_CR0_PG;
	s.cr3 = PML4;
	s.cr4 = 0x20;
	s.efer = X86_EFER_LMA;
	s.cs.l = 1;
	/* PT[8] maps 3 MiB; the page after it is not mapped: two words, then a stop. */
	ck_assert_uint_eq(x86_read_stack(&mem, &s, GVA(1, 2, 3, 8, 0xff0), w, 4), 2);
	ck_assert_uint_eq(w[0], 0x1111);
	ck_assert_uint_eq(w[1], 0x2222);
	ck_assert_uint_eq(x86_read_stack(&mem, &s, GVA(1, 2, 3, 8, 0xff0), w, 1), 1);
	ck_assert_uint_eq(x86_read_stack(&mem, &s, 0x300ff0, w, 4), 0);	/* not mapped */
	/* 32-bit code without paging: SS.base + ESP, the upper half of RSP ignored. */
	s.cr0 = X86_CR0_PE;
	s.efer = 0;
	s.cs.l = 0;
	s.ss.base = 0x300000;
	memset(w, 0, sizeof(w));
	ck_assert_uint_eq(x86_read_stack(&mem, &s, 0xabcd00000ff0ull, w, 4), 4);
	ck_assert_uint_eq(w[0], 0x1111);
	ck_assert_uint_eq(w[1], 0x2222);
	ck_assert_uint_eq(x86_read_stack(&mem, &s, RAM - 0x300010, w, 4), 2);	/* RAM ends */
	ck_assert_uint_eq(x86_read_stack(&mem, &s, RAM, w, 4), 0);		/* past RAM */
}
END_TEST

/* The VMM's own boot tables: the identity map with page 0 left out. */
START_TEST(test_x86_boot_tables)
{
	ck_assert_int_eq(x86_setup_memory(&mem), 0);
	unmapped(MVM_PML4_GPA, 0);
	unmapped(MVM_PML4_GPA, 0xfff);
	ck_assert_uint_eq(walk(MVM_PML4_GPA, 0x1000), 0x1000);
	ck_assert_uint_eq(walk(MVM_PML4_GPA, 0x1fffff), 0x1fffff);
	ck_assert_uint_eq(walk(MVM_PML4_GPA, 0x200000), 0x200000);
	ck_assert_uint_eq(walk(MVM_PML4_GPA, MVM_IDMAP_END - 1), MVM_IDMAP_END - 1);
	unmapped(MVM_PML4_GPA, MVM_IDMAP_END);
}
END_TEST

/* A flush's KVM_SET_SREGS on SVM gives TR back the available type; nothing else moves, and never on VMX. */
START_TEST(test_x86_keep_svm_tr)
{
	struct kvm_sregs sr, before;

	memset(&sr, 0, sizeof(sr));
	sr.tr.type = X86_TSS_BUSY;
	sr.tr.base = 0xfffffe0000003000ULL;
	sr.tr.limit = 0x4087;
	sr.cr4 = 0x310ef0;
	before = sr;
	x86_sregs_keep_svm_tr(&sr, false);
	ck_assert_mem_eq(&sr, &before, sizeof(sr));
	x86_sregs_keep_svm_tr(&sr, true);
	ck_assert_uint_eq(sr.tr.type, X86_TSS_AVAILABLE);
	sr.tr.type = X86_TSS_BUSY;
	ck_assert_mem_eq(&sr, &before, sizeof(sr));
	/* Any other type (a guest that never loaded TR: 3, a 16-bit busy TSS) stays. */
	sr.tr.type = 3;
	x86_sregs_keep_svm_tr(&sr, true);
	ck_assert_uint_eq(sr.tr.type, 3);
	sr.tr.type = X86_TSS_AVAILABLE;
	x86_sregs_keep_svm_tr(&sr, true);
	ck_assert_uint_eq(sr.tr.type, X86_TSS_AVAILABLE);
}
END_TEST

static Suite *x86_suite(void)
{
	Suite *s = suite_create("x86");
	TCase *tc = tcase_create("page walk");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_x86_walk_page_sizes);
	tcase_add_test(tc, test_x86_walk_not_present);
	tcase_add_test(tc, test_x86_walk_tables_outside_ram);
	tcase_add_test(tc, test_x86_walk_canonical);
	tcase_add_test(tc, test_x86_read_gva);
	tcase_add_test(tc, test_x86_read_linear);
	tcase_add_test(tc, test_x86_read_stack);
	tcase_add_test(tc, test_x86_boot_tables);
	tcase_add_test(tc, test_x86_keep_svm_tr);
	suite_add_tcase(s, tc);
	return s;
}
UNIT_SUITE(x86_suite);
