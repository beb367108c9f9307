// SPDX-License-Identifier: MIT
/* The CPUID template per personality (vmm/cpuid.c), on a made-up KVM table. */
#include <asm/kvm_para.h>
#include <check.h>
#include <linux/kvm.h>
#include <stdlib.h>

#include "hv/hv.h"
#include "tests/unit/suites.h"
#include "vmm/cpuid.h"

#define CAP 16

/* Leaf 1 without the hypervisor bit, KVM's two leaves, one extended leaf. */
static struct kvm_cpuid2 *fake_supported(void)
{
	struct kvm_cpuid2 *c = calloc(1, sizeof(*c) + CAP * sizeof(c->entries[0]));

	c->nent = 4;
	c->entries[0] = (struct kvm_cpuid_entry2){ .function = 1, .ecx = 0x1 };
	c->entries[1] = (struct kvm_cpuid_entry2){ .function = KVM_CPUID_SIGNATURE, .eax = 0x40000001,
						   .ebx = 0x4b4d564b };
	/* Everything KVM has, PV_UNHALT and PV_SEND_IPI among it. */
	c->entries[2] = (struct kvm_cpuid_entry2){ .function = KVM_CPUID_FEATURES, .eax = 0xffffffff };
	c->entries[3] = (struct kvm_cpuid_entry2){ .function = 0x80000007, .edx = 1u << 8 };
	return c;
}

static const struct hv_cpuid_leaf hv_leaves[2] = {
	{ .function = 0x40000000, .eax = 0x40000005, .ebx = 0x7263694d },
	{ .function = 0x40000001, .eax = 0x31237648 },
};

static const struct kvm_cpuid_entry2 *leaf(const struct kvm_cpuid2 *c, uint32_t fn)
{
	return cpuid_find(c, fn);
}

START_TEST(test_hyperv_and_kvm)
{
	struct kvm_cpuid2 *c = fake_supported();

	ck_assert_int_eq(cpuid_shape(c, CAP, PV_HYPERV_KVM, hv_leaves, 2), 0);
	ck_assert_uint_eq(leaf(c, 1)->ecx, 0x80000001u);
	ck_assert_uint_eq(leaf(c, 0x40000000)->ebx, 0x7263694d);	/* Hyper-V's at the base */
	ck_assert_uint_eq(leaf(c, 0x40000100)->eax, 0x40000101);	/* KVM's behind */
	ck_assert_uint_eq(leaf(c, 0x40000100)->ebx, 0x4b4d564b);
	ck_assert(!(cpuid_kvm_features(c, PV_HYPERV_KVM) & (1u << KVM_FEATURE_PV_UNHALT)));
	ck_assert(!(cpuid_kvm_features(c, PV_HYPERV_KVM) & (1u << KVM_FEATURE_PV_SEND_IPI)));
	ck_assert(cpuid_kvm_features(c, PV_HYPERV_KVM) & (1u << KVM_FEATURE_STEAL_TIME));
	ck_assert(cpuid_tsc_invariant(c));
	free(c);
}
END_TEST

/* Linux takes the highest base: a Hyper-V guest must see no KVM leaves at all. */
START_TEST(test_hyperv_only)
{
	struct kvm_cpuid2 *c = fake_supported();

	ck_assert_int_eq(cpuid_shape(c, CAP, PV_HYPERV, hv_leaves, 2), 0);
	ck_assert_uint_eq(c->nent, 4);
	ck_assert_ptr_null(leaf(c, 0x40000100));
	ck_assert_ptr_null(leaf(c, 0x40000101));
	ck_assert_uint_eq(leaf(c, 0x40000001)->eax, 0x31237648);	/* "Hv#1", not KVM's features */
	ck_assert_uint_eq(cpuid_kvm_features(c, PV_HYPERV), 0);
	free(c);
}
END_TEST

START_TEST(test_kvm_only_and_none)
{
	struct kvm_cpuid2 *c = fake_supported();

	ck_assert_int_eq(cpuid_shape(c, CAP, PV_KVM, NULL, 0), 0);
	ck_assert_uint_eq(leaf(c, 0x40000000)->eax, 0x40000001);
	ck_assert(cpuid_kvm_features(c, PV_KVM) & (1u << KVM_FEATURE_CLOCKSOURCE2));
	ck_assert(!(cpuid_kvm_features(c, PV_KVM) & (1u << KVM_FEATURE_PV_SCHED_YIELD)));
	ck_assert(cpuid_kvm_features(c, PV_KVM) & (1u << KVM_FEATURE_ASYNC_PF));
	ck_assert(cpuid_kvm_features(c, PV_KVM) & (1u << KVM_FEATURE_ASYNC_PF_INT));
	ck_assert(!(cpuid_kvm_features(c, PV_KVM) & (1u << KVM_FEATURE_ASYNC_PF_VMEXIT)));
	free(c);
	c = fake_supported();
	ck_assert_int_eq(cpuid_shape(c, CAP, PV_NONE, NULL, 0), 0);
	ck_assert_uint_eq(c->nent, 2);
	ck_assert_ptr_null(leaf(c, 0x40000000));
	ck_assert_ptr_null(leaf(c, 0x40000001));
	ck_assert_uint_eq(leaf(c, 1)->ecx, 0x80000001u);	/* still says "a hypervisor" */
	free(c);
}
END_TEST

START_TEST(test_no_room)
{
	struct kvm_cpuid2 *c = fake_supported();

	ck_assert_int_eq(cpuid_shape(c, 4, PV_HYPERV_KVM, hv_leaves, 2), -1);
	free(c);
}
END_TEST

/*
 * Leaf 0x80000005 from the host where KVM zeroed it or left it out, within
 * KVM's extended range; never over KVM's own values, never past the range.
 */
static const uint32_t host_l1[4] = { 0xff40ff18, 0xff40ff30, 0x10040140, 0x40020140 };

START_TEST(test_host_l1_cache)
{
	struct kvm_cpuid2 *c = fake_supported();
	const struct kvm_cpuid_entry2 *e;
	static const uint32_t none[4];

	/* No 0x80000000 entry: the range is unknown, nothing added. */
	ck_assert_int_eq(cpuid_host_l1_cache(c, CAP, host_l1), 0);
	ck_assert_ptr_null(leaf(c, CPUID_L1_CACHE_LEAF));
	/* A range that ends before it: nothing added either. */
	c->entries[c->nent++] = (struct kvm_cpuid_entry2){ .function = 0x80000000, .eax = 0x80000004 };
	ck_assert_int_eq(cpuid_host_l1_cache(c, CAP, host_l1), 0);
	ck_assert_ptr_null(leaf(c, CPUID_L1_CACHE_LEAF));
	/* In range and missing: added with the host's four registers. */
	c->entries[c->nent - 1].eax = 0x8000001e;
	ck_assert_int_eq(cpuid_host_l1_cache(c, CAP, host_l1), 1);
	e = leaf(c, CPUID_L1_CACHE_LEAF);
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(e->eax, 0xff40ff18);
	ck_assert_uint_eq(e->edx, 0x40020140);
	ck_assert_uint_eq(e->index, 0);
	ck_assert_uint_eq(c->nent, 6);
	/* KVM's own values stay: a second call changes nothing. */
	ck_assert_int_eq(cpuid_host_l1_cache(c, CAP, (const uint32_t[4]){ 1, 2, 3, 4 }), 0);
	ck_assert_uint_eq(leaf(c, CPUID_L1_CACHE_LEAF)->edx, 0x40020140);
	/* Zeros from KVM are filled in place, no entry added. */
	((struct kvm_cpuid_entry2 *)leaf(c, CPUID_L1_CACHE_LEAF))->eax = 0;
	((struct kvm_cpuid_entry2 *)leaf(c, CPUID_L1_CACHE_LEAF))->ebx = 0;
	((struct kvm_cpuid_entry2 *)leaf(c, CPUID_L1_CACHE_LEAF))->ecx = 0;
	((struct kvm_cpuid_entry2 *)leaf(c, CPUID_L1_CACHE_LEAF))->edx = 0;
	ck_assert_int_eq(cpuid_host_l1_cache(c, CAP, host_l1), 1);
	ck_assert_uint_eq(leaf(c, CPUID_L1_CACHE_LEAF)->ecx, 0x10040140);
	ck_assert_uint_eq(c->nent, 6);
	free(c);

	/* A host without the leaf (zeros) adds nothing; no room is -1. */
	c = fake_supported();
	c->entries[c->nent++] = (struct kvm_cpuid_entry2){ .function = 0x80000000, .eax = 0x80000008 };
	ck_assert_int_eq(cpuid_host_l1_cache(c, CAP, none), 0);
	ck_assert_ptr_null(leaf(c, CPUID_L1_CACHE_LEAF));
	ck_assert_int_eq(cpuid_host_l1_cache(c, c->nent, host_l1), -1);
	ck_assert_ptr_null(leaf(c, CPUID_L1_CACHE_LEAF));
	free(c);
}
END_TEST

/* The TSC-deadline bit goes into leaf 1 subleaf 0, once, nowhere else. */
START_TEST(test_tsc_deadline)
{
	struct kvm_cpuid2 *c = fake_supported();

	ck_assert(cpuid_tsc_deadline(c));
	ck_assert_uint_eq(leaf(c, 1)->ecx, 0x1u | (1u << 24));
	ck_assert(!cpuid_tsc_deadline(c));
	ck_assert_uint_eq(leaf(c, 1)->ecx, 0x1u | (1u << 24));
	ck_assert_uint_eq(leaf(c, 0x80000007)->ecx, 0);
	ck_assert_uint_eq(c->nent, 4);
	free(c);
	/* A table without leaf 1 is left alone. */
	c = fake_supported();
	c->entries[0].function = 0x80000001;
	ck_assert(!cpuid_tsc_deadline(c));
	ck_assert_uint_eq(c->entries[0].ecx, 0x1u);
	free(c);
}
END_TEST

static Suite *cpuid_suite(void)
{
	Suite *s = suite_create("cpuid");
	TCase *tc = tcase_create("shape");

	tcase_add_test(tc, test_hyperv_and_kvm);
	tcase_add_test(tc, test_hyperv_only);
	tcase_add_test(tc, test_tsc_deadline);
	tcase_add_test(tc, test_kvm_only_and_none);
	tcase_add_test(tc, test_no_room);
	tcase_add_test(tc, test_host_l1_cache);
	suite_add_tcase(s, tc);
	return s;
}
UNIT_SUITE(cpuid_suite);
