// SPDX-License-Identifier: MIT
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/suites.h"
#include "vmm/kvm.h"
#include "vmm/options.h"
#include "vmm/payload.h"

static struct vm_config cfg;
static char err[512];

/* Parse a NULL-terminated argument list (argv[0] supplied). */
static enum options_result parse(const char *first, ...)
{
	char *argv[32] = { "minivmm" };
	int argc = 1;
	va_list ap;

	va_start(ap, first);
	for (const char *a = first; a && argc < 31; a = va_arg(ap, const char *))
		argv[argc++] = (char *)a;
	va_end(ap);
	return options_parse(argc, argv, &cfg, err, sizeof(err));
}

START_TEST(test_defaults)
{
	ck_assert_int_eq(parse("guest.elf", NULL), OPTIONS_OK);
	ck_assert_str_eq(cfg.elf_path, "guest.elf");
	ck_assert_uint_eq(cfg.nr_vcpus, 1);
	ck_assert_uint_eq(cfg.mem_size, 64ULL << 20);
	ck_assert_int_eq(cfg.pv, PV_DEFAULT);	/* the kernel's kind decides (vm.c) */
	ck_assert_ptr_null(cfg.initrd_path);
	ck_assert(cfg.hv_xmm);
	ck_assert_uint_eq(cfg.hv_hints, VMM_HV_HINTS_ALL);
	ck_assert(!cfg.hv_hints_given);
	ck_assert_uint_eq(cfg.timeout_s, 0);
	ck_assert_str_eq(cfg.cmdline, "");
	ck_assert_str_eq(cfg.kvm_path, "/dev/kvm");
	ck_assert_int_eq(cfg.xmm_path, XMM_PATH_AUTO);
}
END_TEST

START_TEST(test_full)
{
	ck_assert_int_eq(parse("--cpus", "4", "--mem", "128M", "--timeout", "5", "--stats",
			       "--no-hyperv", "--json", "out.json", "--iters", "1000",
			       "--hv-xmm-path", "ioctl", "guest.elf", "--", "hv", "ipi", NULL),
			 OPTIONS_OK);
	ck_assert_uint_eq(cfg.nr_vcpus, 4);
	ck_assert_uint_eq(cfg.mem_size, 128ULL << 20);
	ck_assert_uint_eq(cfg.timeout_s, 5);
	ck_assert(cfg.stats);
	ck_assert_int_eq(cfg.pv, PV_KVM);
	ck_assert_str_eq(cfg.json_path, "out.json");
	ck_assert_uint_eq(cfg.iters, 1000);
	ck_assert_int_eq(cfg.xmm_path, XMM_PATH_IOCTL);
	ck_assert_str_eq(cfg.cmdline, "hv ipi");
}
END_TEST

START_TEST(test_bad_cpus)
{
	ck_assert_int_eq(parse("--cpus", "0", "g.elf", NULL), OPTIONS_ERROR);
	ck_assert_str_eq(err, "--cpus '0': need a whole number from 1 to 1048576");
	ck_assert_int_eq(parse("--cpus", "4x", "g.elf", NULL), OPTIONS_ERROR);
	ck_assert_int_eq(parse("--cpus", "-1", "g.elf", NULL), OPTIONS_ERROR);
	/* No limit of minivmm's own: KVM's is checked when the VM is created. */
	ck_assert_int_eq(parse("--cpus", "4096", "g.elf", NULL), OPTIONS_OK);
	ck_assert_uint_eq(cfg.nr_vcpus, 4096);
	ck_assert_int_eq(parse("--cpus", "1048577", "g.elf", NULL), OPTIONS_ERROR);
	ck_assert_int_eq(parse("--cpus", "99999999999999999999", "g.elf", NULL), OPTIONS_ERROR);
}
END_TEST

START_TEST(test_bad_mem)
{
	ck_assert_int_eq(parse("--mem", "lots", "g.elf", NULL), OPTIONS_ERROR);
	ck_assert_ptr_nonnull(strstr(err, "not a size"));
	ck_assert_int_eq(parse("--mem", "1M", "g.elf", NULL), OPTIONS_ERROR);
	ck_assert_ptr_nonnull(strstr(err, "below the minimum of 4 MiB"));
	ck_assert_int_eq(parse("--mem", "4G", "g.elf", NULL), OPTIONS_ERROR);
	ck_assert_ptr_nonnull(strstr(err, "above the maximum of 3072 MiB"));
	ck_assert_int_eq(parse("--mem", "5000001", "g.elf", NULL), OPTIONS_ERROR);
	ck_assert_ptr_nonnull(strstr(err, "multiple of 4 KiB"));
	ck_assert_int_eq(parse("--mem", "99999999999G", "g.elf", NULL), OPTIONS_ERROR);
	ck_assert_int_eq(parse("--mem", "0", "g.elf", NULL), OPTIONS_ERROR);
}
END_TEST

START_TEST(test_sizes)
{
	uint64_t v;

	ck_assert_int_eq(options_parse_size("4096", &v), 0);
	ck_assert_uint_eq(v, 4096);
	ck_assert_int_eq(options_parse_size("64M", &v), 0);
	ck_assert_uint_eq(v, 64ULL << 20);
	ck_assert_int_eq(options_parse_size("2GiB", &v), 0);
	ck_assert_uint_eq(v, 2ULL << 30);
	ck_assert_int_eq(options_parse_size("16k", &v), 0);
	ck_assert_uint_eq(v, 16384);
	ck_assert_int_eq(options_parse_size("1T", &v), -1);
	ck_assert_int_eq(options_parse_size("", &v), -1);
	ck_assert_int_eq(options_parse_size("M", &v), -1);
}
END_TEST

START_TEST(test_missing_payload)
{
	ck_assert_int_eq(parse("--cpus", "2", NULL), OPTIONS_OK);
	ck_assert_ptr_null(cfg.elf_path);
	ck_assert_str_eq(cfg.cmdline, "");
	ck_assert_int_eq(parse("--cpus", NULL), OPTIONS_ERROR);
	ck_assert_str_eq(err, "option '--cpus' needs a value");
}
END_TEST

/* `minivmm -- ipi`: getopt eats the "--"; what follows is ARGS, not a KERNEL. */
START_TEST(test_default_payload_args)
{
	ck_assert_int_eq(parse(NULL), OPTIONS_OK);
	ck_assert_ptr_null(cfg.elf_path);
	ck_assert_int_eq(parse("--", "ipi", NULL), OPTIONS_OK);
	ck_assert_ptr_null(cfg.elf_path);
	ck_assert_str_eq(cfg.cmdline, "ipi");
	ck_assert_int_eq(parse("--cpus", "2", "--", "hv", "ipi", NULL), OPTIONS_OK);
	ck_assert_ptr_null(cfg.elf_path);
	ck_assert_uint_eq(cfg.nr_vcpus, 2);
	ck_assert_str_eq(cfg.cmdline, "hv ipi");
	ck_assert_int_eq(parse("-c2", "--", "guest.elf", NULL), OPTIONS_OK);
	ck_assert_ptr_null(cfg.elf_path);
	ck_assert_str_eq(cfg.cmdline, "guest.elf");
	ck_assert_int_eq(parse("-c2", "k.elf", "--", "--", NULL), OPTIONS_OK);
	ck_assert_str_eq(cfg.elf_path, "k.elf");
	ck_assert_str_eq(cfg.cmdline, "--");
}
END_TEST

/* A scratch directory with an executable-to-be's path and, optionally, guest.elf. */
static char tmpdir[64];

static void make_tmpdir(bool with_payload)
{
	char path[128];
	FILE *f;

	strcpy(tmpdir, "/tmp/mvm-payload-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	if (!with_payload)
		return;
	snprintf(path, sizeof(path), "%s/guest.elf", tmpdir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
}

static void remove_tmpdir(void)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/guest.elf", tmpdir);
	unlink(path);
	rmdir(tmpdir);
}

START_TEST(test_payload_find)
{
	char exe[128], want[128], out[256];

	make_tmpdir(true);
	snprintf(exe, sizeof(exe), "%s/minivmm", tmpdir);
	snprintf(want, sizeof(want), "%s/guest.elf", tmpdir);
	/* build tree: guest.elf next to the executable wins over the installed one */
	ck_assert_int_eq(payload_find(NULL, exe, want, out, sizeof(out), err, sizeof(err)), 0);
	ck_assert_str_eq(out, want);
	ck_assert_int_eq(payload_find("", exe, "/nonexistent", out, sizeof(out), err, sizeof(err)), 0);
	ck_assert_str_eq(out, want);
	/* the environment wins over both, taken as given */
	ck_assert_int_eq(payload_find("/x/y.elf", exe, want, out, sizeof(out), err, sizeof(err)), 0);
	ck_assert_str_eq(out, "/x/y.elf");
	/* installed: nothing next to the executable */
	ck_assert_int_eq(payload_find(NULL, "/nonexistent/bin/minivmm", want, out, sizeof(out),
				      err, sizeof(err)), 0);
	ck_assert_str_eq(out, want);
	/* too long for the buffer: refused, not cut */
	ck_assert_int_eq(payload_find(NULL, exe, want, out, 8, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "longer than 7 bytes"));
	remove_tmpdir();
}
END_TEST

START_TEST(test_payload_missing)
{
	char exe[128], out[256];

	make_tmpdir(false);
	snprintf(exe, sizeof(exe), "%s/minivmm", tmpdir);
	ck_assert_int_eq(payload_find(NULL, exe, "/nonexistent/guest.elf", out, sizeof(out),
				      err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "no KERNEL given and no payload found"));
	ck_assert_ptr_nonnull(strstr(err, "/guest.elf (next to minivmm)"));
	ck_assert_ptr_nonnull(strstr(err, "/nonexistent/guest.elf (installed)"));
	/* a directory named guest.elf is not a payload */
	ck_assert_int_eq(payload_find(NULL, exe, tmpdir, out, sizeof(out), err, sizeof(err)), -1);
	remove_tmpdir();
	ck_assert_ptr_nonnull(strstr(payload_installed_path(), "/lib/minivmm/guest.elf"));
}
END_TEST

/* What minivmm-qemu passes: QEMU's exit convention, the test device, CPUID features. */
START_TEST(test_qemu_front_options)
{
	ck_assert_int_eq(parse("k.flat", NULL), OPTIONS_OK);
	ck_assert(!cfg.qemu_exit && !cfg.pc_testdev && !cfg.cpu_features_lax);
	ck_assert_uint_eq(cfg.cpu_features.nr, 0);
	ck_assert_int_eq(parse("--qemu-exit", "--pc-testdev", "--cpu-features", "+x2apic,-pcid",
			       "--cpu-features-lax", "k.flat", NULL), OPTIONS_OK);
	ck_assert(cfg.qemu_exit && cfg.pc_testdev && cfg.cpu_features_lax);
	ck_assert_uint_eq(cfg.cpu_features.nr, 2);
	ck_assert_int_eq(parse("--no-pit", "k.flat", NULL), OPTIONS_OK);
	ck_assert(cfg.no_pit);
	ck_assert_int_eq(parse("--cpu-features", "+warp-drive", "k.flat", NULL), OPTIONS_ERROR);
	ck_assert_ptr_nonnull(strstr(err, "unknown feature 'warp-drive'"));
	ck_assert_int_eq(parse("k.flat", NULL), OPTIONS_OK);
	ck_assert_str_eq(cfg.cpu_vendor, "");
	ck_assert_int_eq(parse("--cpu-vendor", "GenuineIntel", "k.flat", NULL), OPTIONS_OK);
	ck_assert_str_eq(cfg.cpu_vendor, "GenuineIntel");
	ck_assert_int_eq(parse("--cpu-vendor", "AMD", "k.flat", NULL), OPTIONS_ERROR);
	ck_assert_ptr_nonnull(strstr(err, "--cpu-vendor 'AMD': need exactly 12 characters"));
}
END_TEST

START_TEST(test_unknown_and_stray)
{
	ck_assert_int_eq(parse("--frobnicate", "g.elf", NULL), OPTIONS_ERROR);
	ck_assert_str_eq(err, "unknown option '--frobnicate' (see --help)");
	ck_assert_int_eq(parse("g.elf", "smoke", NULL), OPTIONS_ERROR);
	ck_assert_ptr_nonnull(strstr(err, "put payload args after '--'"));
}
END_TEST

START_TEST(test_bad_timeout_iters_path)
{
	ck_assert_int_eq(parse("--timeout", "0", "g.elf", NULL), OPTIONS_ERROR);
	ck_assert_int_eq(parse("--timeout", "1.5", "g.elf", NULL), OPTIONS_ERROR);
	ck_assert_int_eq(parse("--iters", "0", "g.elf", NULL), OPTIONS_ERROR);
	ck_assert_int_eq(parse("--hv-xmm-path", "magic", "g.elf", NULL), OPTIONS_ERROR);
	ck_assert_str_eq(err, "--hv-xmm-path 'magic': need 'auto', 'spill' or 'ioctl'");
	ck_assert_int_eq(parse("--hv-xmm-path", "spill", "--hv-xmm-path", "auto", "g.elf", NULL),
			 OPTIONS_OK);
	ck_assert_int_eq(cfg.xmm_path, XMM_PATH_AUTO);
}
END_TEST

START_TEST(test_cmdline_too_long)
{
	static char big[VMM_ARGS_MAX + 8];

	memset(big, 'a', sizeof(big) - 1);
	ck_assert_int_eq(parse("g.elf", "--", big, NULL), OPTIONS_ERROR);
	ck_assert_str_eq(err, "kernel arguments exceed 4095 bytes");
	/* Longer than the payload's 1023 is for vm.c to refuse, per kind. */
	big[MVM_CMDLINE_MAX + 4] = '\0';
	ck_assert_int_eq(parse("g.elf", "--", big, NULL), OPTIONS_OK);
}
END_TEST

START_TEST(test_pin)
{
	int cpus[8];
	unsigned int n;

	ck_assert_int_eq(options_parse_cpulist("0-2,5", cpus, 8, &n), 0);
	ck_assert_uint_eq(n, 4);
	ck_assert_int_eq(cpus[2], 2);
	ck_assert_int_eq(cpus[3], 5);
	ck_assert_int_eq(options_parse_cpulist("3-1", cpus, 8, &n), -1);
	ck_assert_int_eq(options_parse_cpulist("a", cpus, 8, &n), -1);
	ck_assert_int_eq(options_parse_cpulist("", cpus, 8, &n), -1);
	ck_assert_int_eq(parse("--pin", "0,1", "--cpus", "3", "g.elf", NULL), OPTIONS_OK);
	ck_assert_uint_eq(cfg.nr_pin, 2);
	ck_assert_int_eq(options_pin_cpu(&cfg, 2), 0);
	ck_assert_int_eq(options_pin_cpu(&cfg, 1023), 1);
	ck_assert_int_eq(parse("--pin", "x", "g.elf", NULL), OPTIONS_ERROR);
	ck_assert_int_eq(options_pin_cpu(&cfg, 0), -1);
	ck_assert_int_eq(parse("g.elf", NULL), OPTIONS_OK);
	ck_assert_int_eq(options_pin_cpu(&cfg, 5), -1);
}
END_TEST

START_TEST(test_more_vcpus_than_kvm_allows)
{
	struct kvm_host kvm = { .fd = -1, .max_vcpus = 4, .max_vcpu_id = 4 };

	ck_assert_int_eq(kvm_check_vcpus(&kvm, 4, err, sizeof(err)), 0);
	ck_assert_int_eq(kvm_check_vcpus(&kvm, 5, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "--cpus 5: KVM on this host allows at most 4 vCPUs per VM (KVM_CAP_MAX_VCPUS)");
}
END_TEST

/* Each of the three limits, named when it is the one that refuses. */
START_TEST(test_vcpu_limits_named)
{
	struct kvm_host kvm = { .fd = -1, .max_vcpus = 1024, .max_vcpu_id = 512,
				.x2apic_api = 3 };

	ck_assert_int_eq(kvm_check_vcpus(&kvm, 512, err, sizeof(err)), 0);
	ck_assert_int_eq(kvm_check_vcpus(&kvm, 513, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "--cpus 513: vCPU ids (= APIC IDs) run to 512, but KVM on this host "
			      "takes ids below 512 only (KVM_CAP_MAX_VCPU_ID)");
	ck_assert_int_eq(kvm_check_vcpus(&kvm, 1025, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "(KVM_CAP_MAX_VCPUS)"));
	/* 32-bit IDs without the broadcast-quirk switch: APIC ID 255 is unreachable. */
	kvm.x2apic_api = 1;
	ck_assert_int_eq(kvm_check_vcpus(&kvm, 255, err, sizeof(err)), 0);
	ck_assert_int_eq(kvm_check_vcpus(&kvm, 256, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "KVM_CAP_X2APIC_API"));
	ck_assert_ptr_nonnull(strstr(err, "at most 255 vCPUs"));
	ck_assert(!kvm_x2apic_api_usable(&kvm));
	kvm.x2apic_api = 3;
	ck_assert(kvm_x2apic_api_usable(&kvm));
	ck_assert_int_eq(kvm_check_vcpus(&kvm, 256, err, sizeof(err)), 0);
}
END_TEST

START_TEST(test_pv)
{
	static const struct { const char *arg; enum pv_personality pv; } ok[] = {
		{ "hyperv", PV_HYPERV }, { "kvm", PV_KVM }, { "hyperv+kvm", PV_HYPERV_KVM },
		{ "none", PV_NONE },
	};

	for (unsigned int i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		ck_assert_int_eq(parse("--pv", ok[i].arg, "k", NULL), OPTIONS_OK);
		ck_assert_int_eq(cfg.pv, ok[i].pv);
		ck_assert_str_eq(options_pv_name(cfg.pv), ok[i].arg);
	}
	ck_assert_int_eq(parse("--hyperv", "k", NULL), OPTIONS_OK);
	ck_assert_int_eq(cfg.pv, PV_HYPERV_KVM);
	/* The same choice twice is fine; two different ones are refused. */
	ck_assert_int_eq(parse("--no-hyperv", "--pv", "kvm", "k", NULL), OPTIONS_OK);
	ck_assert_int_eq(parse("--pv", "hyperv", "--hyperv", "k", NULL), OPTIONS_ERROR);
	ck_assert_str_eq(err, "--hyperv asks for personality 'hyperv+kvm', but 'hyperv' was already given");
	ck_assert_int_eq(parse("--pv", "xen", "k", NULL), OPTIONS_ERROR);
	ck_assert_str_eq(err, "--pv 'xen': need 'hyperv', 'kvm', 'hyperv+kvm' or 'none'");
	ck_assert_int_eq(parse("--initrd", "/tmp/i.cpio", "bzImage", NULL), OPTIONS_OK);
	ck_assert_str_eq(cfg.initrd_path, "/tmp/i.cpio");
}
END_TEST

START_TEST(test_default_mem_grows)
{
	ck_assert_uint_eq(options_default_mem(1), 64ULL << 20);
	ck_assert_uint_eq(options_default_mem(64), 64ULL << 20);
	ck_assert_uint_eq(options_default_mem(65), (64ULL << 20) + (64ULL << 10));
	ck_assert_uint_eq(options_default_mem(1024), (64ULL << 20) + 960 * (64ULL << 10));
	ck_assert_uint_le(options_default_mem(4096), MVM_RAM_MAX);
	ck_assert_uint_eq(options_default_mem(VMM_CPUS_PARSE_MAX), MVM_RAM_MAX);
}
END_TEST

/* An option value refused: OPTIONS_ERROR and, where given, exactly this message. */
struct refusal {
	const char *opt, *arg, *err;
};

static void check_refusals(const struct refusal *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		ck_assert_msg(parse(r[i].opt, r[i].arg, "g.elf", NULL) == OPTIONS_ERROR,
			      "%s '%s' was taken", r[i].opt, r[i].arg);
		if (r[i].err)
			ck_assert_str_eq(err, r[i].err);
	}
}

/* --hv-hints: a list of known names, each once, or "none" alone; the name comes back the same. */
START_TEST(test_hv_hints)
{
	static const struct refusal bad[] = {
		{ "--hv-hints", "flush,tlb", "--hv-hints 'flush,tlb': unknown hint 'tlb' (flush, ipi, ex, or 'none' alone)" },
		{ "--hv-hints", "ipi,ipi", "--hv-hints 'ipi,ipi': 'ipi' named twice" },
		{ "--hv-hints", "none,ipi", "--hv-hints 'none,ipi': unknown hint 'none' (flush, ipi, ex, or 'none' alone)" },
		{ "--hv-hints", "flush,", "--hv-hints 'flush,': an empty name in the list" },
		{ "--hv-hints", ",ipi", NULL },
		{ "--hv-hints", "flush,,ipi", NULL },
		{ "--hv-hints", "", "--hv-hints '': need a comma list of flush, ipi, ex, or 'none'" },
		{ "--hv-hints", ",", NULL },
	};
	char name[32];

	ck_assert_int_eq(parse("--hv-hints", "ipi,flush", "g.elf", NULL), OPTIONS_OK);
	ck_assert_uint_eq(cfg.hv_hints, VMM_HV_HINT_FLUSH | VMM_HV_HINT_IPI);
	ck_assert(cfg.hv_hints_given);
	options_hints_name(cfg.hv_hints, name, sizeof(name));
	ck_assert_str_eq(name, "flush,ipi");
	ck_assert_int_eq(parse("--hv-hints", "ex", "g.elf", NULL), OPTIONS_OK);
	ck_assert_uint_eq(cfg.hv_hints, VMM_HV_HINT_EX);
	ck_assert_int_eq(parse("--hv-hints", "none", "g.elf", NULL), OPTIONS_OK);
	ck_assert_uint_eq(cfg.hv_hints, 0);
	ck_assert(cfg.hv_hints_given);
	options_hints_name(0, name, sizeof(name));
	ck_assert_str_eq(name, "none");
	options_hints_name(VMM_HV_HINTS_ALL, name, sizeof(name));
	ck_assert_str_eq(name, "flush,ipi,ex");
	check_refusals(bad, sizeof(bad) / sizeof(bad[0]));
}
END_TEST

/* --hv-vp-base: a multiple of 64 that leaves room for one more bank; 0 by default. */
START_TEST(test_hv_vp_base)
{
	static const struct refusal bad[] = {
		{ "--hv-vp-base", "63", "--hv-vp-base '63': need a multiple of 64 from 0 to 4032" },
		{ "--hv-vp-base", "4096", "--hv-vp-base '4096': need a multiple of 64 from 0 to 4032" },
		{ "--hv-vp-base", "-64", NULL },
		{ "--hv-vp-base", "64k", NULL },
		{ "--hv-vp-base", "", NULL },
	};

	ck_assert_int_eq(parse("--cpus", "1", "g.elf", NULL), OPTIONS_OK);
	ck_assert_uint_eq(cfg.hv_vp_base, 0);
	ck_assert(!cfg.hv_vp_base_given);
	ck_assert_int_eq(parse("--hv-vp-base", "64", "g.elf", NULL), OPTIONS_OK);
	ck_assert_uint_eq(cfg.hv_vp_base, 64);
	ck_assert(cfg.hv_vp_base_given);
	ck_assert_int_eq(parse("--hv-vp-base", "4032", "g.elf", NULL), OPTIONS_OK);
	ck_assert_uint_eq(cfg.hv_vp_base, 4032);
	ck_assert_int_eq(parse("--hv-vp-base", "0", "g.elf", NULL), OPTIONS_OK);
	ck_assert(cfg.hv_vp_base_given);
	check_refusals(bad, sizeof(bad) / sizeof(bad[0]));
}
END_TEST

/* --hv-impl: minivmm (the default) or kvm, by name only. */
START_TEST(test_hv_impl)
{
	static const struct refusal bad[] = {
		{ "--hv-impl", "qemu", "--hv-impl 'qemu': need 'minivmm' or 'kvm'" },
		{ "--hv-impl", "KVM", "--hv-impl 'KVM': need 'minivmm' or 'kvm'" },
		{ "--hv-impl", "", "--hv-impl '': need 'minivmm' or 'kvm'" },
	};

	ck_assert_int_eq(parse("--cpus", "1", "g.elf", NULL), OPTIONS_OK);
	ck_assert_int_eq(cfg.hv_impl, HV_IMPL_MINIVMM);
	ck_assert(!cfg.hv_impl_given);
	ck_assert_int_eq(parse("--hv-impl", "kvm", "g.elf", NULL), OPTIONS_OK);
	ck_assert_int_eq(cfg.hv_impl, HV_IMPL_KVM);
	ck_assert(cfg.hv_impl_given);
	ck_assert_str_eq(options_hv_impl_name(cfg.hv_impl), "kvm");
	ck_assert_int_eq(parse("--hv-impl", "minivmm", "g.elf", NULL), OPTIONS_OK);
	ck_assert_int_eq(cfg.hv_impl, HV_IMPL_MINIVMM);
	ck_assert_str_eq(options_hv_impl_name(cfg.hv_impl), "minivmm");
	check_refusals(bad, sizeof(bad) / sizeof(bad[0]));
}
END_TEST

/* --preempt VCPUS:HOLD:EVERY[:hidden]: durations with units, the period above the hold, each vCPU once. */
START_TEST(test_preempt)
{
	static const struct refusal bad[] = {
		{ "--preempt", "1-3:500us", "--preempt '1-3:500us': need VCPUS:HOLD:EVERY[:hidden], e.g. 1-3:500us:5ms (durations in us, ms or s)" },
		{ "--preempt", "1:1ms:5ms:quiet", NULL },
		{ "--preempt", "1:1ms:5ms:hidden:x", NULL },
		{ "--preempt", "x:1ms:5ms", "--preempt 'x:1ms:5ms': 'x' is not a vCPU list (e.g. 1-3 or 1,3)" },
		{ "--preempt", "1:500:5ms", "--preempt '1:500:5ms': hold '500': need 1us..10s" },
		{ "--preempt", "1:0us:5ms", NULL },
		{ "--preempt", "1:11s:20s", NULL },
		{ "--preempt", "1:1ms:61s", "--preempt '1:1ms:61s': period '61s': need 1us..60s" },
		{ "--preempt", "1:5ms:5ms", "--preempt '1:5ms:5ms': the period must be longer than the hold" },
		{ "--preempt", "1,1:1ms:5ms", "--preempt '1,1:1ms:5ms': vCPU 1 named twice" },
		{ "--preempt", "1:99999999999999999999s:5ms", NULL },
	};

	ck_assert_int_eq(parse("g.elf", NULL), OPTIONS_OK);
	ck_assert_uint_eq(cfg.preempt.nr, 0);
	ck_assert_int_eq(parse("--preempt", "1-3:500us:5ms", "g.elf", NULL), OPTIONS_OK);
	ck_assert_uint_eq(cfg.preempt.nr, 3);
	ck_assert_uint_eq(cfg.preempt.vcpu[0], 1);
	ck_assert_uint_eq(cfg.preempt.vcpu[2], 3);
	ck_assert_uint_eq(cfg.preempt.hold_us, 500);
	ck_assert_uint_eq(cfg.preempt.every_us, 5000);
	ck_assert(!cfg.preempt.hidden);
	ck_assert_int_eq(parse("--preempt", "0,2:2ms:1s", "g.elf", NULL), OPTIONS_OK);
	ck_assert_uint_eq(cfg.preempt.nr, 2);
	ck_assert_uint_eq(cfg.preempt.hold_us, 2000);
	ck_assert_uint_eq(cfg.preempt.every_us, 1000000);
	ck_assert_int_eq(parse("--preempt", "1:1ms:5ms:hidden", "g.elf", NULL), OPTIONS_OK);
	ck_assert(cfg.preempt.hidden);
	ck_assert_uint_eq(cfg.preempt.every_us, 5000);
	check_refusals(bad, sizeof(bad) / sizeof(bad[0]));
}
END_TEST

static Suite *options_suite(void)
{
	Suite *s = suite_create("options");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_full);
	tcase_add_test(tc, test_bad_cpus);
	tcase_add_test(tc, test_bad_mem);
	tcase_add_test(tc, test_sizes);
	tcase_add_test(tc, test_missing_payload);
	tcase_add_test(tc, test_default_payload_args);
	tcase_add_test(tc, test_payload_find);
	tcase_add_test(tc, test_payload_missing);
	tcase_add_test(tc, test_qemu_front_options);
	tcase_add_test(tc, test_unknown_and_stray);
	tcase_add_test(tc, test_bad_timeout_iters_path);
	tcase_add_test(tc, test_cmdline_too_long);
	tcase_add_test(tc, test_pin);
	tcase_add_test(tc, test_more_vcpus_than_kvm_allows);
	tcase_add_test(tc, test_vcpu_limits_named);
	tcase_add_test(tc, test_default_mem_grows);
	tcase_add_test(tc, test_pv);
	tcase_add_test(tc, test_hv_hints);
	tcase_add_test(tc, test_hv_vp_base);
	tcase_add_test(tc, test_hv_impl);
	tcase_add_test(tc, test_preempt);
	suite_add_tcase(s, tc);
	return s;
}
UNIT_SUITE(options_suite);
