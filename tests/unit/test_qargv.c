// SPDX-License-Identifier: MIT
/* minivmm-qemu's translation of kvm-unit-tests' QEMU command lines. */
#include <check.h>
#include <string.h>

#include "tests/unit/suites.h"
#include "vmm/qemu/qargv.h"

static struct qargv_run run;
static char err[256];
static struct qargv_host host;	/* a KVM without SynIC, unless a test says */

/* Translate a NULL-terminated list; argv[0] is the program's name. */
static enum qargv_result tr(const char *const *args)
{
	char *argv[64];
	int argc = 0;

	argv[argc++] = (char *)"minivmm-qemu";
	for (; *args; args++)
		argv[argc++] = (char *)*args;
	argv[argc] = NULL;
	return qargv_translate(argc, argv, &host, &run, err, sizeof(err));
}

/* minivmm's argv joined by blanks, from argv[1]. */
static const char *joined(void)
{
	static char buf[1024];

	buf[0] = '\0';
	for (int i = 1; i < run.argc; i++) {
		strcat(buf, i > 1 ? " " : "");
		strcat(buf, run.argv[i]);
	}
	return buf;
}

/* x86/run's fixed part, then the entry's own: what ioapic's entry builds. */
START_TEST(test_kut_ioapic_line)
{
	static const char *const a[] = {
		"--no-reboot", "-nodefaults", "-global", "kvm-pit.lost_tick_policy=discard",
		"-device", "pc-testdev", "-device", "isa-debug-exit,iobase=0xf4,iosize=0x4",
		"-display", "none", "-serial", "stdio", "-machine", "accel=kvm",
		"-kernel", "/tmp/k", "-smp", "4", "-cpu", "qemu64,+x2apic", "-initrd", "/tmp/env",
		NULL,
	};

	ck_assert_int_eq(tr(a), QARGV_RUN);
	ck_assert_str_eq(run.argv[0], "minivmm");
	ck_assert_str_eq(joined(), "--qemu-exit --cpus 4 --initrd /tmp/env --pc-testdev "
				   "--cpu-features +x2apic --cpu-features-lax /tmp/k");
	ck_assert_str_eq(run.kernel, "/tmp/k");
	ck_assert_ptr_null(run.argv[run.argc]);
	ck_assert_uint_eq(run.nr_warn, 1);
	ck_assert_ptr_nonnull(strstr(run.warn[0], "-cpu qemu64: minivmm shows the host's CPUID"));
}
END_TEST

/* -append is one argument after "--"; -m is MiB bare, any suffix otherwise. */
START_TEST(test_append_mem_flags)
{
	static const char *const a[] = {
		"-kernel", "k.flat", "-append", "cpuid ipi", "-m", "2048", "--cpu",
		"max,host-phys-bits,-pcid,invpcid=off,hv_passthrough", NULL,
	};
	static const char *const g[] = { "-kernel", "k", "-m", "4g", "-smp", "cpus=2,maxcpus=2",
					 "-machine", "pit=off", NULL };

	ck_assert_int_eq(tr(a), QARGV_RUN);
	ck_assert_str_eq(joined(), "--qemu-exit --mem 2147483648 --hyperv --cpu-features "
				   "-pcid,-invpcid --cpu-features-lax k.flat -- cpuid ipi");
	ck_assert_uint_eq(run.nr_warn, 1);	/* hv_*: minivmm's own layer */
	ck_assert_ptr_nonnull(strstr(run.warn[0], "minivmm's own Hyper-V layer"));
	ck_assert_int_eq(tr(g), QARGV_RUN);
	ck_assert_str_eq(joined(), "--qemu-exit --cpus 2 --mem 4294967296 --no-pit k");
	static const char *const sz[] = { "-kernel", "k", "-m", "size=512M", NULL };
	static const char *const vd[] = { "-kernel", "k", "-cpu", "Opteron_G1,vendor=AuthenticAMD", NULL };
	static const char *const v2[] = { "-kernel", "k", "-cpu", "max,vendor=AuthenticAMD", "-cpu", "host", NULL };
	ck_assert_int_eq(tr(vd), QARGV_RUN);
	ck_assert_str_eq(joined(), "--qemu-exit --cpu-vendor AuthenticAMD k");
	ck_assert_int_eq(tr(v2), QARGV_RUN);	/* the last -cpu counts */
	ck_assert_str_eq(joined(), "--qemu-exit k");
	ck_assert_int_eq(tr(sz), QARGV_RUN);
	ck_assert_str_eq(joined(), "--qemu-exit --mem 536870912 k");
}
END_TEST

/* What the runner asks before it runs anything. */
/*
 * hv_passthrough and the SynIC flags: KVM's Hyper-V with its SynIC where
 * KVM has one; else hv_passthrough is minivmm's layer and a SynIC flag
 * is refused by name.
 */
START_TEST(test_hv_synic_flags)
{
	static const char *const pass[] = { "-kernel", "k", "-cpu", "host,hv_passthrough", NULL };
	static const char *const stim[] = { "-kernel", "k", "-cpu", "host,hv_time,hv-stimer=on", NULL };
	static const char *const off[] = { "-kernel", "k", "-cpu", "host,hv_synic=off", NULL };
	static const char *const other[] = { "-kernel", "k", "-cpu", "host,hv_stimer_directx", NULL };

	host.kvm_synic = true;
	ck_assert_int_eq(tr(pass), QARGV_RUN);
	ck_assert_str_eq(joined(), "--qemu-exit --hyperv --hv-impl kvm --hv-synic k");
	ck_assert_uint_eq(run.nr_warn, 1);
	ck_assert_ptr_nonnull(strstr(run.warn[0], "KVM's own Hyper-V with its SynIC"));
	ck_assert_int_eq(tr(stim), QARGV_RUN);
	ck_assert_str_eq(joined(), "--qemu-exit --hyperv --hv-impl kvm --hv-synic k");
	ck_assert_uint_eq(run.nr_warn, 1);	/* one warning, naming the flag that took KVM's */
	ck_assert_ptr_nonnull(strstr(run.warn[0], "-cpu ...,hv-stimer=on: the guest gets KVM's own"));
	ck_assert_int_eq(tr(off), QARGV_RUN);	/* =off asks for nothing of KVM's */
	ck_assert_str_eq(joined(), "--qemu-exit --hyperv k");
	ck_assert_int_eq(tr(other), QARGV_RUN);	/* not a SynIC flag: minivmm's layer */
	ck_assert_str_eq(joined(), "--qemu-exit --hyperv k");

	host.kvm_synic = false;
	ck_assert_int_eq(tr(pass), QARGV_RUN);
	ck_assert_str_eq(joined(), "--qemu-exit --hyperv k");
	ck_assert_ptr_nonnull(strstr(run.warn[0], "minivmm's own Hyper-V layer"));
	ck_assert_int_eq(tr(stim), QARGV_ERROR);
	ck_assert_str_eq(err, "-cpu ...,hv-stimer=on: minivmm's own Hyper-V layer has no SynIC "
			      "or synthetic timers, and this KVM has no in-kernel SynIC "
			      "(KVM_CAP_HYPERV and KVM_CAP_HYPERV_SYNIC2)");
}
END_TEST

START_TEST(test_help_version_devices)
{
	static const char *const h[] = { "-h", NULL }, *const hh[] = { "--help", NULL },
			  *const v[] = { "-version", NULL }, *const d[] = { "-device", "?", NULL };

	ck_assert_int_eq(tr(h), QARGV_HELP);
	ck_assert_int_eq(tr(hh), QARGV_HELP);
	ck_assert_int_eq(tr(v), QARGV_VERSION);
	ck_assert_int_eq(tr(d), QARGV_DEVICES);
	ck_assert_ptr_nonnull(strstr(qargv_device_list(), "name \"pc-testdev\""));
	ck_assert_ptr_null(strstr(qargv_device_list(), "pci-testdev"));
}
END_TEST

static void refused(const char *const *a, const char *why)
{
	ck_assert_int_eq(tr(a), QARGV_ERROR);
	ck_assert_msg(strstr(err, why), "'%s' does not say '%s'", err, why);
}

/* Every refusal names the option: the runner's probe shows it as the SKIP reason. */
START_TEST(test_refusals)
{
	static const char *const a1[] = { "-kernel", "k", "-device", "intel-iommu,intremap=on", NULL };
	static const char *const a2[] = { "-kernel", "k", "-machine", "vmport=on", NULL };
	static const char *const a3[] = { "-kernel", "k", "-M", "q35,kernel-irqchip=split", NULL };
	static const char *const a4[] = { "-kernel", "k", "-machine", "accel=tcg", NULL };
	static const char *const a5[] = { "-kernel", "k", "-cpu", "qemu64,vendor=Intel", NULL };
	static const char *const a6[] = { "-kernel", "k", "-smp", "2,sockets=2", NULL };
	static const char *const a7[] = { "-kernel", "k", "-overcommit", "cpu-pm=on", NULL };
	static const char *const a8[] = { "-kernel", "k", "-m", "lots", NULL };
	static const char *const a9[] = { "-kernel", "k", "-S", NULL };
	static const char *const a10[] = { "-append", "x", NULL };
	static const char *const a11[] = { "-kernel", NULL };
	static const char *const a12[] = { "-kernel", "k", "disk.img", NULL };
	static const char *const a13[] = { "-kernel", "k", "-serial", "file:out", NULL };
	static const char *const a14[] = { "-kernel", "k", "-device", "isa-debug-exit,iobase=0x501", NULL };
	static const char *const a15[] = { "-kernel", "k", "-m", "0", NULL };
	static const char *const a16[] = { "-kernel", "k", "-m", "18446744073709551615", NULL };
	static const char *const a17[] = { "-kernel", "k", "-cpu", "host,+", NULL };

	refused(a1, "-device 'intel-iommu,intremap=on': minivmm has no such device");
	refused(a2, "-machine 'vmport=on'");
	refused(a3, "-machine 'q35'");
	refused(a4, "accel=tcg: minivmm runs on KVM only");
	refused(a5, "-cpu ...,vendor=Intel: a vendor is 12 printable characters");
	refused(a6, "-smp '2,sockets=2': minivmm has no CPU topology");
	refused(a7, "-overcommit cpu-pm=on: not something minivmm can do");
	refused(a8, "-m 'lots'");
	refused(a9, "-S: not a QEMU option minivmm-qemu takes");
	refused(a10, "no -kernel");
	refused(a11, "-kernel needs a value");
	refused(a12, "'disk.img': minivmm-qemu takes no disk images");
	refused(a13, "-serial 'file:out': minivmm-qemu takes only -serial stdio");
	refused(a14, "-device 'isa-debug-exit,iobase=0x501'");
	refused(a15, "-m '0'");
	refused(a16, "-m '18446744073709551615'");	/* MiB past 2^64 bytes */
	refused(a17, "-cpu property '+'");
}
END_TEST

static Suite *qargv_suite(void)
{
	Suite *s = suite_create("qargv");
	TCase *tc = tcase_create("translate");

	tcase_add_test(tc, test_kut_ioapic_line);
	tcase_add_test(tc, test_append_mem_flags);
	tcase_add_test(tc, test_hv_synic_flags);
	tcase_add_test(tc, test_help_version_devices);
	tcase_add_test(tc, test_refusals);
	suite_add_tcase(s, tc);
	return s;
}
UNIT_SUITE(qargv_suite);
