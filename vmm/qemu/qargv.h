/* SPDX-License-Identifier: MIT */
/*
 * minivmm-qemu: the part of QEMU's command line that kvm-unit-tests'
 * runner builds (x86/run, docs/kut.md), translated into minivmm's. What
 * has a meaning in minivmm maps onto its option; what has none and changes
 * nothing is accepted; everything else is refused by name, so that the
 * runner's probe turns it into a SKIP with the reason. No I/O here: main.c
 * prints and execs.
 */
#ifndef VMM_QEMU_QARGV_H
#define VMM_QEMU_QARGV_H

#include <stdbool.h>
#include <stddef.h>

#include "vmm/cpufeat.h"

#define QARGV_MAX_ARGS	32
#define QARGV_MAX_WARN	4

enum qargv_result {
	QARGV_RUN = 0,		/* run->argv is minivmm's command line */
	QARGV_HELP,		/* -h, -help, --help */
	QARGV_VERSION,		/* -version */
	QARGV_DEVICES,		/* -device help (or '?'): list the devices */
	QARGV_ERROR,		/* `err` says which option and why */
};

struct qargv_run {
	/* argv[0] is "minivmm"; main.c puts the executable's path there. */
	char *argv[QARGV_MAX_ARGS + 1];
	int argc;
	const char *kernel;		/* -kernel */
	/* Accepted with a difference the user should know of: printed as warnings. */
	char warn[QARGV_MAX_WARN][160];
	unsigned int nr_warn;
	/* Room for the values built here (--cpus N, --mem BYTES, --cpu-features LIST). */
	char cpus[16], mem[24], features[256], vendor[CPUFEAT_VENDOR_LEN + 1];
};

/* What main.c found out about this host's KVM, for the flags that depend on it. */
struct qargv_host {
	bool kvm_synic;		/* KVM_CAP_HYPERV and KVM_CAP_HYPERV_SYNIC2 */
};

enum qargv_result qargv_translate(int argc, char **argv, const struct qargv_host *host,
				  struct qargv_run *run, char *err, size_t errlen);
/* `-device help`'s lines, in QEMU's format: kvm-unit-tests greps them. */
const char *qargv_device_list(void);

#endif
