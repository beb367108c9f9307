// SPDX-License-Identifier: MIT
/* --hv-impl kvm's CPUID (vmm/kvm_hv.c): minivmm's leaves, masked by what KVM supports. */
#include <check.h>
#include <string.h>

#include "hv/hv.h"
#include "tests/unit/suites.h"
#include "vmm/kvm_hv.h"

/* What KVM 6.1's kvm_get_hv_cpuid() reports for features and hints (arch/x86/kvm/hyperv.c). */
#define KVM61_FEATURES_EAX	0x2affu	/* no AccessTscInvariantControls (bit 15) */
#define KVM61_FEATURES_EBX	0x830u
#define KVM61_FEATURES_EDX	0x80d12u
#define KVM61_HINTS_EAX		0xe2cu

static const struct hv_cpuid_leaf kvm61[] = {
	{ .function = 0x40000000, .eax = 0x40000082 },
	{ .function = 0x40000004, .eax = KVM61_HINTS_EAX, .ebx = 0xfff },
	{ .function = 0x40000003, .eax = KVM61_FEATURES_EAX, .ebx = KVM61_FEATURES_EBX,
	  .edx = KVM61_FEATURES_EDX },
	{ .function = 0x40000005, .eax = 1024, .ebx = 64 },
};

static size_t leaves_for(const struct hv_config *cfg, struct hv_cpuid_leaf *l)
{
	return hv_config_cpuid_leaves(cfg, l, KVM_HV_LEAVES);
}

/* Everything a Linux guest is offered that KVM 6.1 also has survives; the rest is named. */
START_TEST(test_mask_linux)
{
	struct hv_config cfg = {
		.nr_vcpus = 4, .xmm_input = false, .flush_hint = true, .ipi_hint = true,
		.ex_hint = true, .freq_msrs = true, .crash_msrs = true, .tsc_invariant = true,
		.ref_time = true,
	};
	struct hv_cpuid_leaf want[KVM_HV_LEAVES];
	struct kvm_hv h;
	char lacks[128];

	memset(&h, 0xff, sizeof(h));
	ck_assert_uint_eq(leaves_for(&cfg, want), KVM_HV_LEAVES);
	kvm_hv_mask_leaves(&h, want, KVM_HV_LEAVES, kvm61, sizeof(kvm61) / sizeof(kvm61[0]));
	/* Vendor, interface, limits: minivmm's own, whatever KVM says. */
	ck_assert_uint_eq(h.leaves[0].eax, 0x40000005);
	ck_assert_uint_eq(h.leaves[0].ebx, want[0].ebx);
	ck_assert_uint_eq(h.leaves[1].eax, 0x31237648);
	ck_assert_uint_eq(h.leaves[5].eax, 4);
	ck_assert_uint_eq(h.leaves[4].ebx, want[4].ebx);
	/* Every feature but AccessTscInvariantControls (0x8000). */
	ck_assert_uint_eq(h.leaves[3].eax, want[3].eax & ~0x8000u);
	ck_assert_uint_eq(h.lacks_features_eax, 0x8000u);
	ck_assert_uint_eq(h.leaves[3].edx, want[3].edx);
	ck_assert_uint_eq(h.lacks_features_edx, 0);
	ck_assert_uint_eq(h.leaves[4].eax, want[4].eax);
	ck_assert_uint_eq(h.lacks_hints_eax, 0);
	kvm_hv_describe_lacks(&h, lacks, sizeof(lacks));
	ck_assert_str_eq(lacks, "0x40000003.EAX 0x8000");
}
END_TEST

/* A KVM with no hints and no XMM input: both named, none shown. */
START_TEST(test_mask_poor_kvm)
{
	static const struct hv_cpuid_leaf poor[] = {
		{ .function = 0x40000003, .eax = 0x60 },	/* hypercall MSRs, VP_INDEX */
	};
	struct hv_config cfg = { .nr_vcpus = 2, .xmm_input = true, .flush_hint = true,
				 .ipi_hint = true, .ex_hint = true };
	struct hv_cpuid_leaf want[KVM_HV_LEAVES];
	struct kvm_hv h;
	char lacks[128];

	leaves_for(&cfg, want);
	kvm_hv_mask_leaves(&h, want, KVM_HV_LEAVES, poor, 1);
	ck_assert_uint_eq(h.leaves[3].eax, 0x60);
	ck_assert_uint_eq(h.leaves[3].edx, 0);
	ck_assert_uint_eq(h.leaves[4].eax, 0);
	ck_assert_uint_eq(h.lacks_features_edx, 1u << 4);
	ck_assert_uint_eq(h.lacks_hints_eax, (1u << 2) | (1u << 10) | (1u << 11));
	kvm_hv_describe_lacks(&h, lacks, sizeof(lacks));
	ck_assert_str_eq(lacks, "0x40000003.EDX 0x10, 0x40000004.EAX 0xc04");
	/* No leaf from KVM at all: nothing of features or hints survives. */
	kvm_hv_mask_leaves(&h, want, KVM_HV_LEAVES, NULL, 0);
	ck_assert_uint_eq(h.leaves[3].eax, 0);
	ck_assert_uint_eq(h.lacks_features_eax, want[3].eax);
	/* A short buffer: the text is cut, never overrun. */
	kvm_hv_describe_lacks(&h, lacks, 8);
	ck_assert_uint_eq(strlen(lacks), 7);
}
END_TEST

/* minivmm's own config with nothing KVM lacks: nothing to report. */
START_TEST(test_mask_nothing_lacking)
{
	struct hv_config cfg = { .nr_vcpus = 1, .flush_hint = true };
	struct hv_cpuid_leaf want[KVM_HV_LEAVES];
	struct kvm_hv h;
	char lacks[16] = "x";

	leaves_for(&cfg, want);
	kvm_hv_mask_leaves(&h, want, KVM_HV_LEAVES, kvm61, sizeof(kvm61) / sizeof(kvm61[0]));
	ck_assert_mem_eq(h.leaves, want, sizeof(want));
	kvm_hv_describe_lacks(&h, lacks, sizeof(lacks));
	ck_assert_str_eq(lacks, "");
}
END_TEST

/* --hv-synic: SynIC, timers, direct mode and the reference counter, kept where KVM has them. */
START_TEST(test_synic_bits)
{
	static const struct hv_cpuid_leaf no_synic[] = {
		{ .function = 0x40000003, .eax = 0x62 },	/* reference counter, hypercall, VP_INDEX */
	};
	struct hv_config cfg = { .nr_vcpus = 2, .flush_hint = true };
	struct hv_cpuid_leaf want[KVM_HV_LEAVES], plain[KVM_HV_LEAVES];
	struct kvm_hv h;
	char lacks[128];

	leaves_for(&cfg, want);
	memcpy(plain, want, sizeof(want));
	kvm_hv_add_synic(want, KVM_HV_LEAVES);
	ck_assert_uint_eq(want[3].eax, plain[3].eax | 0xe);
	ck_assert_uint_eq(want[3].edx, plain[3].edx | (1u << 19));
	ck_assert_mem_eq(&want[4], &plain[4], sizeof(want[4]));	/* hints untouched */
	kvm_hv_mask_leaves(&h, want, KVM_HV_LEAVES, kvm61, sizeof(kvm61) / sizeof(kvm61[0]));
	ck_assert_uint_eq(h.leaves[3].eax & 0xe, 0xe);
	ck_assert_uint_eq(h.leaves[3].edx & (1u << 19), 1u << 19);
	kvm_hv_describe_lacks(&h, lacks, sizeof(lacks));
	ck_assert_str_eq(lacks, "");
	/* A KVM without them: named, not shown. */
	kvm_hv_mask_leaves(&h, want, KVM_HV_LEAVES, no_synic, 1);
	ck_assert_uint_eq(h.leaves[3].eax & 0xc, 0);
	ck_assert_uint_eq(h.lacks_features_eax & 0xc, 0xc);
	ck_assert_uint_eq(h.lacks_features_edx, 1u << 19);
}
END_TEST

/* What a hypercall KVM leaves to user space gets: no connections, else no such call. */
START_TEST(test_user_hcall_status)
{
	ck_assert_uint_eq(kvm_hv_user_hcall_status(true, HVCALL_POST_MESSAGE),
			  HV_STATUS_INVALID_CONNECTION_ID);
	ck_assert_uint_eq(kvm_hv_user_hcall_status(true, HVCALL_SIGNAL_EVENT),
			  HV_STATUS_INVALID_CONNECTION_ID);
	ck_assert_uint_eq(kvm_hv_user_hcall_status(false, HVCALL_POST_MESSAGE),
			  HV_STATUS_INVALID_HYPERCALL_CODE);
	ck_assert_uint_eq(kvm_hv_user_hcall_status(true, 0x0100),	/* a SynDBG call */
			  HV_STATUS_INVALID_HYPERCALL_CODE);
}
END_TEST

static Suite *kvm_hv_suite(void)
{
	Suite *s = suite_create("kvm_hv");
	TCase *tc = tcase_create("leaves");

	tcase_add_test(tc, test_mask_linux);
	tcase_add_test(tc, test_mask_poor_kvm);
	tcase_add_test(tc, test_mask_nothing_lacking);
	tcase_add_test(tc, test_synic_bits);
	tcase_add_test(tc, test_user_hcall_status);
	suite_add_tcase(s, tc);
	return s;
}
UNIT_SUITE(kvm_hv_suite);
