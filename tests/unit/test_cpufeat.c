// SPDX-License-Identifier: MIT
/* --cpu-features: names to CPUID bits, required or removed. */
#include <check.h>
#include <linux/kvm.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/suites.h"
#include "vmm/cpufeat.h"

static char err[512];

/* Leaf 1 with x2apic and pcid, leaf 7.0 with invpcid; no leaf 0x80000001. */
static struct kvm_cpuid2 *template(void)
{
	struct kvm_cpuid2 *c = calloc(1, sizeof(*c) + 2 * sizeof(c->entries[0]));

	ck_assert_ptr_nonnull(c);
	c->nent = 2;
	c->entries[0] = (struct kvm_cpuid_entry2){ .function = 1,
						   .ecx = (1u << 21) | (1u << 17) | 1u };
	c->entries[1] = (struct kvm_cpuid_entry2){ .function = 7, .index = 0,
						   .flags = KVM_CPUID_FLAG_SIGNIFCANT_INDEX,
						   .ebx = 1u << 10 };
	return c;
}

START_TEST(test_parse)
{
	struct cpufeat_req r;

	ck_assert_int_eq(cpufeat_parse("+x2apic,-pcid,-invpcid", &r, err, sizeof(err)), 0);
	ck_assert_uint_eq(r.nr, 3);
	ck_assert(r.add[0] && !r.add[1] && !r.add[2]);
	ck_assert_int_eq(cpufeat_parse("x2apic", &r, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "needs + (required) or - (removed)"));
	ck_assert_int_eq(cpufeat_parse("+x2apic,-frobnicate", &r, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "unknown feature 'frobnicate' (known: vmx pcid x2apic"));
	ck_assert_int_eq(cpufeat_parse("+x2apic,", &r, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "a comma with nothing after it"));
	ck_assert_int_eq(cpufeat_parse("", &r, err, sizeof(err)), -1);
	ck_assert_int_eq(cpufeat_parse("+x2apic,,-pcid", &r, err, sizeof(err)), -1);
}
END_TEST

START_TEST(test_apply)
{
	struct kvm_cpuid2 *c = template();
	struct cpufeat_req r;

	ck_assert_int_eq(cpufeat_parse("+x2apic,-pcid,-invpcid", &r, err, sizeof(err)), 0);
	ck_assert_int_eq(cpufeat_apply(c, &r, false, err, sizeof(err)), 0);
	ck_assert_uint_eq(c->entries[0].ecx, (1u << 21) | 1u);	/* pcid gone, the rest kept */
	ck_assert_uint_eq(c->entries[1].ebx, 0);
	/* +svm where leaf 0x80000001 is missing: refused, or with lax a warning, '-' still done. */
	free(c);
	c = template();
	ck_assert_int_eq(cpufeat_parse("+svm,-x2apic", &r, err, sizeof(err)), 0);
	ck_assert_int_eq(cpufeat_apply(c, &r, false, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "+svm: KVM on this host does not offer svm (CPUID 0x80000001.0 ECX bit 2)"));
	ck_assert_int_eq(cpufeat_apply(c, &r, true, err, sizeof(err)), 1);
	ck_assert_uint_eq(c->entries[0].ecx & (1u << 21), 0);
	free(c);
}
END_TEST

START_TEST(test_vendor)
{
	struct kvm_cpuid2 *c = calloc(1, sizeof(*c) + 3 * sizeof(c->entries[0]));
	char v[CPUFEAT_VENDOR_LEN + 1];

	ck_assert_int_eq(cpufeat_parse_vendor("GenuineIntel", v, err, sizeof(err)), 0);
	ck_assert_str_eq(v, "GenuineIntel");
	ck_assert_int_eq(cpufeat_parse_vendor("Intel", v, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "--cpu-vendor 'Intel': need exactly 12 characters"));
	ck_assert_int_eq(cpufeat_parse_vendor("GenuineIntel!", v, err, sizeof(err)), -1);
	ck_assert_int_eq(cpufeat_parse_vendor("Genuine\tIntel", v, err, sizeof(err)), -1);
	ck_assert_int_eq(cpufeat_parse_vendor("Genuine\nntel", v, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "character 8 is not printable ASCII"));

	/* AuthenticAMD's template: leaf 0 (max leaf 0x10), leaf 1, leaf 0x80000000. */
	ck_assert_ptr_nonnull(c);
	c->nent = 3;
	c->entries[0] = (struct kvm_cpuid_entry2){ .function = 0, .eax = 0x10, .ebx = 0x68747541,
						   .edx = 0x69746e65, .ecx = 0x444d4163 };
	c->entries[1] = (struct kvm_cpuid_entry2){ .function = 1, .ebx = 0x1234 };
	c->entries[2] = (struct kvm_cpuid_entry2){ .function = 0x80000000, .eax = 0x80000021,
						   .ebx = 0x68747541, .edx = 0x69746e65,
						   .ecx = 0x444d4163 };
	cpufeat_set_vendor(c, "GenuineIntel");
	/* "Genu" "ineI" "ntel", little-endian, in EBX, EDX, ECX; EAX and other leaves untouched. */
	ck_assert_uint_eq(c->entries[0].eax, 0x10);
	ck_assert_uint_eq(c->entries[0].ebx, 0x756e6547);
	ck_assert_uint_eq(c->entries[0].edx, 0x49656e69);
	ck_assert_uint_eq(c->entries[0].ecx, 0x6c65746e);
	ck_assert_uint_eq(c->entries[1].ebx, 0x1234);
	ck_assert_uint_eq(c->entries[2].eax, 0x80000021);
	ck_assert_uint_eq(c->entries[2].ebx, 0x756e6547);
	ck_assert_uint_eq(c->entries[2].ecx, 0x6c65746e);
	free(c);
}
END_TEST

static Suite *cpufeat_suite(void)
{
	Suite *s = suite_create("cpufeat");
	TCase *tc = tcase_create("features");

	tcase_add_test(tc, test_parse);
	tcase_add_test(tc, test_apply);
	tcase_add_test(tc, test_vendor);
	suite_add_tcase(s, tc);
	return s;
}
UNIT_SUITE(cpufeat_suite);
