// SPDX-License-Identifier: MIT
/*
 * The part of hv/ a Linux guest needs beyond flush and IPI (hv_config's
 * endbr_page, vp_assist, freq_msrs, tsc_invariant, crash_msrs), through a
 * fake host: each switch off leaves CPUID and the MSRs exactly as before
 * (#GP), each switch on gives exact CPUID bits and MSR values, and the
 * accesses Linux 6.1/6.12 make at boot (docs/hyperv.md, "Linux guests")
 * all succeed.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "hv/hv.h"
#include "tests/unit/hv_fake.h"
#include "tests/unit/suites.h"

#define LX_VCPUS	NR_SMALL	/* a small partition: the switches do not care */
#define TSC_HZ		2100000000ull	/* what KVM_GET_TSC_KHZ would give, in Hz */
#define APIC_HZ		1000000000ull	/* KVM's LAPIC timer: 1 ns a bus cycle */

/* 0x40000003 with every switch off: hypercall MSRs and VP_INDEX, no XMM. */
#define PRIV_BASE	(HV_MSR_HYPERCALL_AVAILABLE | HV_MSR_VP_INDEX_AVAILABLE)

/* Today's configuration for minivmm's payload, without XMM input. */
static struct hv_config cfg_base(void)
{
	return (struct hv_config){
		.nr_vcpus = LX_VCPUS,
		.flush_hint = true,
		.ipi_hint = true,
	};
}

/* Every Linux switch on. */
static struct hv_config cfg_linux(void)
{
	struct hv_config cfg = cfg_base();

	cfg.endbr_page = true;
	cfg.vp_assist = true;
	cfg.freq_msrs = true;
	cfg.tsc_hz = TSC_HZ;
	cfg.apic_hz = APIC_HZ;
	cfg.tsc_invariant = true;
	cfg.crash_msrs = true;
	return cfg;
}

static struct hv *new_hv(const struct hv_config *cfg, struct fake_host **hp)
{
	struct fake_host *h = fake_new();
	struct hv *hv;

	hv = hv_create(cfg, &fake_ops, h);
	ck_assert_ptr_nonnull(hv);
	*hp = h;
	return hv;
}

static void features_leaf(struct hv *hv, struct hv_cpuid_leaf *leaf)
{
	struct hv_cpuid_leaf l[6];

	ck_assert_uint_eq(hv_cpuid_leaves(hv, l, 6), 6);
	*leaf = l[HV_CPUID_FEATURES - HV_CPUID_VENDOR_AND_MAX];
	ck_assert_uint_eq(leaf->function, HV_CPUID_FEATURES);
}

static void assert_msr_gp(struct hv *hv, unsigned int vcpu, uint32_t msr)
{
	uint64_t val = 0x5a5a;

	ck_assert_msg(hv_msr_read(hv, vcpu, msr, &val) == HV_MSR_GP, "rdmsr 0x%x", msr);
	ck_assert_msg(hv_msr_write(hv, vcpu, msr, 0) == HV_MSR_GP, "wrmsr 0x%x, 0", msr);
	ck_assert_msg(hv_msr_write(hv, vcpu, msr, 1) == HV_MSR_GP, "wrmsr 0x%x, 1", msr);
}

static uint64_t msr_read_ok(struct hv *hv, unsigned int vcpu, uint32_t msr)
{
	uint64_t val = 0;

	ck_assert_msg(hv_msr_read(hv, vcpu, msr, &val) == HV_MSR_OK, "rdmsr 0x%x", msr);
	return val;
}

static void msr_write_ok(struct hv *hv, unsigned int vcpu, uint32_t msr, uint64_t val)
{
	ck_assert_msg(hv_msr_write(hv, vcpu, msr, val) == HV_MSR_OK, "wrmsr 0x%x", msr);
}

static const uint32_t linux_msrs[] = {
	HV_X64_MSR_TSC_FREQUENCY, HV_X64_MSR_APIC_FREQUENCY, HV_X64_MSR_VP_ASSIST_PAGE,
	HV_X64_MSR_CRASH_P0, HV_X64_MSR_CRASH_P0 + 1, HV_X64_MSR_CRASH_P0 + 2,
	HV_X64_MSR_CRASH_P0 + 3, HV_X64_MSR_CRASH_P4, HV_X64_MSR_CRASH_CTL,
	HV_X64_MSR_TSC_INVARIANT_CONTROL,
};

/* ---- everything off: exactly the behaviour before these switches -------- */

START_TEST(test_off_cpuid_and_msrs_as_before)
{
	struct hv_config cfg = cfg_base();
	struct fake_host *h;
	struct hv *hv = new_hv(&cfg, &h);
	struct hv_cpuid_leaf f;

	features_leaf(hv, &f);
	ck_assert_uint_eq(f.eax, PRIV_BASE);
	ck_assert_uint_eq(f.ebx, 0);
	ck_assert_uint_eq(f.ecx, 0);
	ck_assert_uint_eq(f.edx, 0);
	for (unsigned int vcpu = 0; vcpu < LX_VCPUS; vcpu++)
		for (size_t i = 0; i < sizeof(linux_msrs) / sizeof(linux_msrs[0]); i++)
			assert_msr_gp(hv, vcpu, linux_msrs[i]);
	ck_assert_uint_eq(h->crashes, 0);
	ck_assert_uint_eq(h->writes, 0);
	hv_destroy(hv);
	fake_free(h);
}
END_TEST

/* The crash op is optional while crash_msrs is off. */
START_TEST(test_off_needs_no_crash_op)
{
	struct hv_host_ops ops = fake_ops;
	struct hv_config cfg = cfg_base();
	struct hv *hv;

	ops.guest_crash = NULL;
	hv = hv_create(&cfg, &ops, NULL);
	ck_assert_ptr_nonnull(hv);
	hv_destroy(hv);
}
END_TEST

/* Each switch alone sets exactly its CPUID bits. */
START_TEST(test_cpuid_bits_per_switch)
{
	static const struct {
		const char *name;
		uint32_t eax, edx;
	} want[] = {
		{ "freq_msrs", HV_ACCESS_FREQUENCY_MSRS, HV_FEATURE_FREQUENCY_MSRS_AVAILABLE },
		{ "tsc_invariant", HV_ACCESS_TSC_INVARIANT, 0 },
		{ "crash_msrs", 0, HV_FEATURE_GUEST_CRASH_MSR_AVAILABLE },
		{ "vp_assist", 0, 0 },
		{ "endbr_page", 0, 0 },
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct hv_config cfg = cfg_base();
		struct hv_cpuid_leaf f;
		struct fake_host *h;
		struct hv *hv;

		cfg.freq_msrs = i == 0;
		cfg.tsc_hz = cfg.apic_hz = i == 0;
		cfg.tsc_invariant = i == 1;
		cfg.crash_msrs = i == 2;
		cfg.vp_assist = i == 3;
		cfg.endbr_page = i == 4;
		hv = new_hv(&cfg, &h);
		features_leaf(hv, &f);
		ck_assert_msg(f.eax == (PRIV_BASE | want[i].eax), "%s: EAX 0x%x", want[i].name,
			      f.eax);
		ck_assert_msg(f.edx == want[i].edx, "%s: EDX 0x%x", want[i].name, f.edx);
		ck_assert_uint_eq(f.ebx, 0);
		hv_destroy(hv);
		fake_free(h);
	}
}
END_TEST

START_TEST(test_cpuid_all_on)
{
	struct hv_config cfg = cfg_linux();
	struct fake_host *h;
	struct hv *hv;
	struct hv_cpuid_leaf f;

	cfg.xmm_input = true;
	hv = new_hv(&cfg, &h);
	features_leaf(hv, &f);
	/* 0x8860 and 0x510: bits 5, 6, 11, 15 and 4, 8, 10 */
	ck_assert_uint_eq(f.eax, 0x8860);
	ck_assert_uint_eq(f.edx, 0x510);
	ck_assert_uint_eq(f.ebx, 0);
	ck_assert_uint_eq(f.ecx, 0);
	hv_destroy(hv);
	fake_free(h);
}
END_TEST

START_TEST(test_create_refuses_bad_linux_config)
{
	struct hv_host_ops no_crash = fake_ops;
	struct hv_config cfg = cfg_linux();
	struct hv *hv;

	cfg.apic_hz = 0;
	ck_assert_ptr_null(hv_create(&cfg, &fake_ops, NULL));
	no_crash.guest_crash = NULL;
	cfg = cfg_linux();
	ck_assert_ptr_null(hv_create(&cfg, &no_crash, NULL));
	/* Frequencies without freq_msrs are simply unused. */
	cfg = cfg_base();
	cfg.tsc_hz = 0;
	cfg.apic_hz = 0;
	hv = hv_create(&cfg, &no_crash, NULL);
	ck_assert_ptr_nonnull(hv);
	hv_destroy(hv);
}
END_TEST

/* ---- each switch on ---------------------------------------------------- */

START_TEST(test_freq_msrs_values)
{
	struct hv_config cfg = cfg_base();
	struct fake_host *h;
	struct hv *hv;

	cfg.freq_msrs = true;
	cfg.tsc_hz = TSC_HZ;
	cfg.apic_hz = APIC_HZ;
	hv = new_hv(&cfg, &h);
	for (unsigned int vcpu = 0; vcpu < LX_VCPUS; vcpu++) {
		ck_assert_uint_eq(msr_read_ok(hv, vcpu, HV_X64_MSR_TSC_FREQUENCY), TSC_HZ);
		ck_assert_uint_eq(msr_read_ok(hv, vcpu, HV_X64_MSR_APIC_FREQUENCY), APIC_HZ);
		/* Read-only: a write faults and changes nothing. */
		ck_assert(hv_msr_write(hv, vcpu, HV_X64_MSR_TSC_FREQUENCY, 1) == HV_MSR_GP);
		ck_assert(hv_msr_write(hv, vcpu, HV_X64_MSR_APIC_FREQUENCY, 1) == HV_MSR_GP);
	}
	ck_assert_uint_eq(msr_read_ok(hv, 0, HV_X64_MSR_TSC_FREQUENCY), TSC_HZ);
	/* The others stay absent. */
	assert_msr_gp(hv, 0, HV_X64_MSR_TSC_INVARIANT_CONTROL);
	assert_msr_gp(hv, 0, HV_X64_MSR_VP_ASSIST_PAGE);
	assert_msr_gp(hv, 0, HV_X64_MSR_CRASH_CTL);
	hv_destroy(hv);
	fake_free(h);
}
END_TEST

/* The VMM learns the TSC rate after the leaves are built: no rate, no value. */
START_TEST(test_tsc_hz_set_later)
{
	struct hv_config cfg = cfg_base();
	struct fake_host *h;
	struct hv *hv;

	cfg.freq_msrs = true;
	cfg.tsc_hz = 0;
	cfg.apic_hz = APIC_HZ;
	hv = new_hv(&cfg, &h);
	assert_msr_gp(hv, 0, HV_X64_MSR_TSC_FREQUENCY);
	ck_assert_uint_eq(msr_read_ok(hv, 0, HV_X64_MSR_APIC_FREQUENCY), APIC_HZ);
	hv_set_tsc_hz(hv, TSC_HZ);
	ck_assert_uint_eq(msr_read_ok(hv, 1, HV_X64_MSR_TSC_FREQUENCY), TSC_HZ);
	hv_destroy(hv);
	fake_free(h);
}
END_TEST

START_TEST(test_tsc_invariant_control)
{
	struct hv_config cfg = cfg_base();
	struct fake_host *h;
	struct hv *hv;

	cfg.tsc_invariant = true;
	hv = new_hv(&cfg, &h);
	ck_assert_uint_eq(msr_read_ok(hv, 0, HV_X64_MSR_TSC_INVARIANT_CONTROL), 0);
	/* Reserved bits fault, with or without bit 0. */
	ck_assert(hv_msr_write(hv, 0, HV_X64_MSR_TSC_INVARIANT_CONTROL, 2) == HV_MSR_GP);
	ck_assert(hv_msr_write(hv, 0, HV_X64_MSR_TSC_INVARIANT_CONTROL, 1ull << 63 | 1) ==
		  HV_MSR_GP);
	ck_assert_uint_eq(msr_read_ok(hv, 0, HV_X64_MSR_TSC_INVARIANT_CONTROL), 0);
	/* Writing 0 while clear is harmless; bit 0 is kept, partition-wide. */
	msr_write_ok(hv, 1, HV_X64_MSR_TSC_INVARIANT_CONTROL, 0);
	msr_write_ok(hv, 0, HV_X64_MSR_TSC_INVARIANT_CONTROL, HV_EXPOSE_INVARIANT_TSC);
	for (unsigned int vcpu = 0; vcpu < LX_VCPUS; vcpu++)
		ck_assert_uint_eq(msr_read_ok(hv, vcpu, HV_X64_MSR_TSC_INVARIANT_CONTROL), 1);
	/* Once set it cannot be cleared; setting it again is fine. */
	ck_assert(hv_msr_write(hv, 2, HV_X64_MSR_TSC_INVARIANT_CONTROL, 0) == HV_MSR_GP);
	msr_write_ok(hv, 3, HV_X64_MSR_TSC_INVARIANT_CONTROL, 1);
	ck_assert_uint_eq(msr_read_ok(hv, 2, HV_X64_MSR_TSC_INVARIANT_CONTROL), 1);
	assert_msr_gp(hv, 0, HV_X64_MSR_TSC_FREQUENCY);
	hv_destroy(hv);
	fake_free(h);
}
END_TEST

START_TEST(test_vp_assist_per_vcpu)
{
	struct hv_config cfg = cfg_base();
	struct fake_host *h;
	struct hv *hv;

	cfg.vp_assist = true;
	hv = new_hv(&cfg, &h);
	for (unsigned int vcpu = 0; vcpu < LX_VCPUS; vcpu++)
		ck_assert_uint_eq(msr_read_ok(hv, vcpu, HV_X64_MSR_VP_ASSIST_PAGE), 0);
	/* Linux: enable | pfn << 12; RsvdP bits 11:1 come back as written too. */
	for (unsigned int vcpu = 0; vcpu < LX_VCPUS; vcpu++)
		msr_write_ok(hv, vcpu, HV_X64_MSR_VP_ASSIST_PAGE,
			     ((0x100ull + vcpu) << 12) | (vcpu << 1) | 1);
	for (unsigned int vcpu = 0; vcpu < LX_VCPUS; vcpu++)
		ck_assert_uint_eq(msr_read_ok(hv, vcpu, HV_X64_MSR_VP_ASSIST_PAGE),
				  ((0x100ull + vcpu) << 12) | (vcpu << 1) | 1);
	/* Disabling (hv_cpu_die writes 0) is kept as well. */
	msr_write_ok(hv, 2, HV_X64_MSR_VP_ASSIST_PAGE, 0);
	ck_assert_uint_eq(msr_read_ok(hv, 2, HV_X64_MSR_VP_ASSIST_PAGE), 0);
	ck_assert_uint_eq(msr_read_ok(hv, 3, HV_X64_MSR_VP_ASSIST_PAGE), (0x103ull << 12) | 7);
	/* No effect: guest memory is never touched, even for a page outside RAM. */
	msr_write_ok(hv, 1, HV_X64_MSR_VP_ASSIST_PAGE, ~0ull);
	ck_assert_uint_eq(h->writes, 0);
	/* A VP that does not exist has no such register. */
	assert_msr_gp(hv, LX_VCPUS, HV_X64_MSR_VP_ASSIST_PAGE);
	assert_msr_gp(hv, 0, HV_X64_MSR_CRASH_P0);
	hv_destroy(hv);
	fake_free(h);
}
END_TEST

START_TEST(test_crash_msrs_report_once)
{
	static const uint64_t p[HV_CRASH_PARAMS] = {
		0, OS_ID, 0xffffffff81000123ull, 0xdead, 0xffffc90000013f58ull,
	};
	struct hv_config cfg = cfg_base();
	struct fake_host *h;
	struct hv *hv;

	cfg.crash_msrs = true;
	hv = new_hv(&cfg, &h);
	/* CRASH_NOTIFY is the supported action; no message page (NOTIFY_MSG). */
	ck_assert_uint_eq(msr_read_ok(hv, 1, HV_X64_MSR_CRASH_CTL), HV_CRASH_CTL_CRASH_NOTIFY);
	for (unsigned int i = 0; i < HV_CRASH_PARAMS; i++) {
		ck_assert_uint_eq(msr_read_ok(hv, 0, HV_X64_MSR_CRASH_P0 + i), 0);
		msr_write_ok(hv, 2, HV_X64_MSR_CRASH_P0 + i, p[i]);
	}
	/* Partition-wide: another vCPU reads the same values. */
	for (unsigned int i = 0; i < HV_CRASH_PARAMS; i++)
		ck_assert_uint_eq(msr_read_ok(hv, 3, HV_X64_MSR_CRASH_P0 + i), p[i]);
	/* Without CRASH_NOTIFY a CTL write does nothing. */
	msr_write_ok(hv, 2, HV_X64_MSR_CRASH_CTL, 0);
	msr_write_ok(hv, 2, HV_X64_MSR_CRASH_CTL, HV_CRASH_CTL_CRASH_NOTIFY_MSG);
	ck_assert_uint_eq(h->crashes, 0);
	msr_write_ok(hv, 2, HV_X64_MSR_CRASH_CTL, HV_CRASH_CTL_CRASH_NOTIFY);
	ck_assert_uint_eq(h->crashes, 1);
	ck_assert_uint_eq(h->crash_vcpu, 2);
	ck_assert_mem_eq(h->crash_p, p, sizeof(p));
	/* Later notifications, from any vCPU, are accepted and not passed on. */
	msr_write_ok(hv, 0, HV_X64_MSR_CRASH_P0, 7);
	msr_write_ok(hv, 0, HV_X64_MSR_CRASH_CTL, HV_CRASH_CTL_CRASH_NOTIFY);
	ck_assert_uint_eq(h->crashes, 1);
	ck_assert_uint_eq(h->crash_p[0], 0);
	ck_assert_uint_eq(msr_read_ok(hv, 0, HV_X64_MSR_CRASH_P0), 7);
	ck_assert_uint_eq(msr_read_ok(hv, 0, HV_X64_MSR_CRASH_CTL), HV_CRASH_CTL_CRASH_NOTIFY);
	assert_msr_gp(hv, 0, HV_X64_MSR_TSC_FREQUENCY);
	hv_destroy(hv);
	fake_free(h);
}
END_TEST

/*
 * With every switch on, exactly the offered MSRs of the claimed range
 * answer; every other one (0x40000106..0x40000117 and the rest) still
 * raises #GP on read and write.
 */
START_TEST(test_claimed_range_sweep_all_on)
{
	static const uint32_t offered[] = {
		HV_X64_MSR_GUEST_OS_ID, HV_X64_MSR_HYPERCALL, HV_X64_MSR_VP_INDEX,
		HV_X64_MSR_TSC_FREQUENCY, HV_X64_MSR_APIC_FREQUENCY, HV_X64_MSR_VP_ASSIST_PAGE,
		0x40000100, 0x40000101, 0x40000102, 0x40000103, 0x40000104, 0x40000105,
		HV_X64_MSR_TSC_INVARIANT_CONTROL,
	};
	struct hv_config cfg = cfg_linux();
	struct fake_host *h;
	struct hv *hv = new_hv(&cfg, &h);
	unsigned int readable = 0;

	ck_assert_uint_eq(HV_X64_MSR_CLAIM_FIRST, 0x40000000);
	ck_assert_uint_eq(HV_X64_MSR_CLAIM_LAST, 0x400001ff);
	for (uint32_t msr = HV_X64_MSR_CLAIM_FIRST; msr <= HV_X64_MSR_CLAIM_LAST; msr++) {
		bool want = false;
		uint64_t val;

		for (size_t i = 0; i < sizeof(offered) / sizeof(offered[0]); i++)
			want |= offered[i] == msr;
		if (!want) {
			assert_msr_gp(hv, 1, msr);
			continue;
		}
		ck_assert_msg(hv_msr_read(hv, 1, msr, &val) == HV_MSR_OK, "rdmsr 0x%x", msr);
		readable++;
	}
	ck_assert_uint_eq(readable, sizeof(offered) / sizeof(offered[0]));
	ck_assert_uint_eq(h->crashes, 0);
	hv_destroy(hv);
	fake_free(h);
}
END_TEST

/*
 * The MSR accesses Linux 6.1/6.12 make while booting with this CPUID, in
 * their order (docs/hyperv.md): every one succeeds with the value Linux
 * expects, and a panic report reaches the host.
 */
START_TEST(test_linux_boot_sequence)
{
	struct hv_config cfg = cfg_linux();
	struct fake_host *h;
	struct hv *hv = new_hv(&cfg, &h);
	uint64_t hc;

	/* ms_hyperv_init_platform: LAPIC period, TSC invariance, tsc_khz */
	ck_assert_uint_eq(msr_read_ok(hv, 0, HV_X64_MSR_APIC_FREQUENCY) / 250, 4000000);
	msr_write_ok(hv, 0, HV_X64_MSR_TSC_INVARIANT_CONTROL, HV_EXPOSE_INVARIANT_TSC);
	ck_assert_uint_eq(msr_read_ok(hv, 0, HV_X64_MSR_TSC_FREQUENCY) / 1000, 2100000);
	/* hyperv_init: hv_common_init (6.12: CRASH_CTL), hv_cpu_init on CPU 0 */
	ck_assert_uint_eq(msr_read_ok(hv, 0, HV_X64_MSR_CRASH_CTL) &
			  HV_CRASH_CTL_CRASH_NOTIFY_MSG, 0);
	ck_assert_uint_eq(msr_read_ok(hv, 0, HV_X64_MSR_VP_INDEX), 0);
	msr_write_ok(hv, 0, HV_X64_MSR_VP_ASSIST_PAGE, (0x12345ull << 12) | 1);
	msr_write_ok(hv, 0, HV_X64_MSR_GUEST_OS_ID, OS_ID);
	hc = msr_read_ok(hv, 0, HV_X64_MSR_HYPERCALL);
	msr_write_ok(hv, 0, HV_X64_MSR_HYPERCALL, hc | PAGE_GPA | HV_HYPERCALL_ENABLE);
	/* The IBT check: the page starts with ENDBR64. */
	ck_assert_mem_eq(h->ram + PAGE_GPA, "\xf3\x0f\x1e\xfa", 4);
	/* Each AP: hv_cpu_init */
	for (unsigned int cpu = 1; cpu < LX_VCPUS; cpu++) {
		ck_assert_uint_eq(msr_read_ok(hv, cpu, HV_X64_MSR_VP_INDEX), cpu);
		msr_write_ok(hv, cpu, HV_X64_MSR_VP_ASSIST_PAGE, ((0x2000ull + cpu) << 12) | 1);
	}
	/* hyperv_report_panic on CPU 3 */
	ck_assert_uint_eq(msr_read_ok(hv, 3, HV_X64_MSR_GUEST_OS_ID), OS_ID);
	msr_write_ok(hv, 3, HV_X64_MSR_CRASH_P0, 0);
	msr_write_ok(hv, 3, HV_X64_MSR_CRASH_P0 + 1, OS_ID);
	msr_write_ok(hv, 3, HV_X64_MSR_CRASH_P0 + 2, 0xffffffff81234567ull);
	msr_write_ok(hv, 3, HV_X64_MSR_CRASH_P0 + 3, 0x2a);
	msr_write_ok(hv, 3, HV_X64_MSR_CRASH_P4, 0xffffc90000017e80ull);
	msr_write_ok(hv, 3, HV_X64_MSR_CRASH_CTL, HV_CRASH_CTL_CRASH_NOTIFY);
	ck_assert_uint_eq(h->crashes, 1);
	ck_assert_uint_eq(h->crash_vcpu, 3);
	ck_assert_uint_eq(h->crash_p[1], OS_ID);
	ck_assert_uint_eq(h->crash_p[2], 0xffffffff81234567ull);
	ck_assert_uint_eq(h->crash_p[3], 0x2a);
	ck_assert_uint_eq(h->crash_p[4], 0xffffc90000017e80ull);
	hv_destroy(hv);
	fake_free(h);
}
END_TEST

static Suite *hv_linux_suite(void)
{
	Suite *s = suite_create("hv_linux");
	TCase *tc = tcase_create("off");

	tcase_add_test(tc, test_off_cpuid_and_msrs_as_before);
	tcase_add_test(tc, test_off_needs_no_crash_op);
	tcase_add_test(tc, test_create_refuses_bad_linux_config);
	suite_add_tcase(s, tc);
	tc = tcase_create("cpuid");
	tcase_add_test(tc, test_cpuid_bits_per_switch);
	tcase_add_test(tc, test_cpuid_all_on);
	suite_add_tcase(s, tc);
	tc = tcase_create("msrs");
	tcase_add_test(tc, test_freq_msrs_values);
	tcase_add_test(tc, test_tsc_hz_set_later);
	tcase_add_test(tc, test_tsc_invariant_control);
	tcase_add_test(tc, test_vp_assist_per_vcpu);
	tcase_add_test(tc, test_crash_msrs_report_once);
	tcase_add_test(tc, test_claimed_range_sweep_all_on);
	tcase_add_test(tc, test_linux_boot_sequence);
	suite_add_tcase(s, tc);
	return s;
}
UNIT_SUITE(hv_linux_suite);
