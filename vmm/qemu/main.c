// SPDX-License-Identifier: MIT
/*
 * minivmm-qemu: QEMU's command line, as kvm-unit-tests' runner builds it,
 * for minivmm. Translates (qargv.c), lets minivmm's own option parser judge
 * the result, checks the kernel opens, then becomes minivmm (execv): the
 * exit status is minivmm's, with the guest's code as (code << 1) | 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vmm/exitstatus.h"
#include "vmm/kvm.h"
#include "vmm/kvm_hv.h"
#include "vmm/options.h"
#include "vmm/qemu/qargv.h"
#include "vmm/version.h"

static void usage(void)
{
	/* Line 1 is what kvm-unit-tests parses: words 4-6 are a QEMU version, 0.0.0 here. */
	printf("QEMU emulator version 0.0.0 (minivmm-qemu %s: QEMU's command line for minivmm; not QEMU)\n"
	       "usage: minivmm-qemu [QEMU options] -kernel FILE\n"
	       "\n"
	       "Runs FILE (a Multiboot kernel such as kvm-unit-tests' x86/*.flat) under minivmm,\n"
	       "with the part of QEMU's command line that kvm-unit-tests' runner builds:\n"
	       "  -kernel FILE, -initrd FILE (Multiboot module), -append ARGS, -smp N, -m SIZE,\n"
	       "  -cpu host|max|MODEL[,+flag,-flag,hv_*...], -device pc-testdev,\n"
	       "  -device isa-debug-exit,iobase=0xf4,iosize=0x4, -machine [pc,]accel=kvm[,pit=on|off],\n"
	       "  -accel kvm, -enable-kvm, -nodefaults, -no-reboot, -serial stdio, -display none,\n"
	       "  -nographic, -global kvm-pit.lost_tick_policy=discard, -device help, -h, -version.\n"
	       "Anything else is refused by name (exit 2). A CPU model other than host or max\n"
	       "is a warning: minivmm shows the host's CPUID, with +flag and -flag applied.\n"
	       "hv_* flags give minivmm's own Hyper-V layer (--hyperv); hv_passthrough and the\n"
	       "SynIC flags (hv_synic, hv_stimer, hv_stimer_direct) give KVM's own, with its\n"
	       "SynIC and timers (--hv-impl kvm --hv-synic), where /dev/kvm has them.\n"
	       "\n"
	       "Exit status: the guest's isa-debug-exit code C as (C << 1) | 1 (so 1 = passed,\n"
	       "3 = failed, 77 = skipped for kvm-unit-tests); otherwise minivmm's: 2 = bad\n"
	       "option or file, 3 = the guest crashed or timed out, 4 = it reset itself.\n"
	       "minivmm is $MINIVMM if set, else the minivmm next to this program.\n"
	       "See minivmm-qemu(1) and docs/kut.md.\n", vmm_version());
}

/* $MINIVMM, else the minivmm beside this executable (the build tree, or BINDIR). */
static int find_minivmm(char *path, size_t len)
{
	const char *env = getenv("MINIVMM");
	char self[PATH_MAX];
	ssize_t n;
	char *slash;

	if (env && *env)
		return snprintf(path, len, "%s", env) < (int)len ? 0 : -1;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		return -1;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	return snprintf(path, len, "%s/minivmm", self) < (int)len ? 0 : -1;
}

/* minivmm's own parser on the translated line: its refusal is the reason, now. */
static int check_with_minivmm(struct qargv_run *run)
{
	struct vm_config *cfg = malloc(sizeof(*cfg));
	char err[512];
	enum options_result r;

	if (!cfg) {
		fprintf(stderr, "minivmm-qemu: out of memory\n");
		return -1;
	}
	r = options_parse(run->argc, run->argv, cfg, err, sizeof(err));
	free(cfg);
	if (r == OPTIONS_OK)
		return 0;
	fprintf(stderr, "minivmm-qemu: minivmm refuses: %s\n", r == OPTIONS_ERROR ? err : "?");
	return -1;
}

/* Whether /dev/kvm can serve minivmm's --hv-impl kvm --hv-synic (hv_passthrough, hv_stimer ...). */
static bool kvm_has_synic(void)
{
	struct kvm_host kvm = { .fd = open("/dev/kvm", O_RDWR | O_CLOEXEC) };
	bool yes;

	if (kvm.fd < 0)
		return false;
	yes = kvm_hv_synic_usable(&kvm);
	close(kvm.fd);
	return yes;
}

int main(int argc, char **argv)
{
	static struct qargv_run run;
	char err[512], minivmm[PATH_MAX];
	struct qargv_host host = { .kvm_synic = kvm_has_synic() };
	int fd;

	switch (qargv_translate(argc, argv, &host, &run, err, sizeof(err))) {
	case QARGV_HELP:
		usage();
		return EXITSTATUS_OK;
	case QARGV_VERSION:
		printf("QEMU emulator version 0.0.0 (minivmm-qemu %s; not QEMU)\n", vmm_version());
		return EXITSTATUS_OK;
	case QARGV_DEVICES:
		fputs(qargv_device_list(), stdout);
		return EXITSTATUS_OK;
	case QARGV_ERROR:
		fprintf(stderr, "minivmm-qemu: %s\n", err);
		return EXITSTATUS_HOST_ERROR;
	case QARGV_RUN:
		break;
	}
	if (check_with_minivmm(&run))
		return EXITSTATUS_HOST_ERROR;
	/* QEMU's words, which kvm-unit-tests' probe for a missing kernel looks for. */
	fd = open(run.kernel, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "minivmm-qemu: could not load kernel '%s': %s\n", run.kernel,
			strerror(errno));
		return EXITSTATUS_HOST_ERROR;
	}
	close(fd);
	for (unsigned int i = 0; i < run.nr_warn; i++)
		fprintf(stderr, "minivmm-qemu: warning: %s\n", run.warn[i]);
	if (find_minivmm(minivmm, sizeof(minivmm))) {
		fprintf(stderr, "minivmm-qemu: cannot find minivmm next to this program; set MINIVMM\n");
		return EXITSTATUS_HOST_ERROR;
	}
	fflush(stderr);
	run.argv[0] = minivmm;
	execv(minivmm, run.argv);
	fprintf(stderr, "minivmm-qemu: cannot run %s: %s\n", minivmm, strerror(errno));
	return EXITSTATUS_HOST_ERROR;
}
