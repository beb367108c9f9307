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

static Suite *cpuid_suite(void)
{
	Suite *s = suite_create("cpuid");
	TCase *tc = tcase_create("shape");

	tcase_add_test(tc, test_hyperv_and_kvm);
	tcase_add_test(tc, test_hyperv_only);
	tcase_add_test(tc, test_kvm_only_and_none);
	tcase_add_test(tc, test_no_room);
	suite_add_tcase(s, tc);
	return s;
}
UNIT_SUITE(cpuid_suite);
