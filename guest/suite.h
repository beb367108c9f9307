/* SPDX-License-Identifier: MIT */
/*
 * Test suites: one file each in guest/tests/, listed in suites.c. vCPU 0
 * runs them in command-line order; the other vCPUs are in
 * smp_service_loop() and can be driven with smp_call().
 */
#ifndef GUEST_SUITE_H
#define GUEST_SUITE_H

#include "lib/types.h"

struct suite {
	const char *name;
	/* `arg` is the next command-line word when arg_name is set, else NULL. */
	void (*run)(const char *arg);
	bool in_default_set;
	const char *arg_name;	/* NULL: takes no argument */
	const char *description;
};

/* Run the suites named in `cmdline` (or the default set); returns only if
 * every name was known. Unknown names: a FAIL line, the list, exit 2. */
void suites_run(const char *cmdline);

void suite_smoke(const char *arg);
void suite_triple_fault(const char *arg);
void suite_spin(const char *arg);
void suite_vmcall(const char *arg);
void suite_exit(const char *arg);
void suite_unclaimed(const char *arg);
void suite_hv(const char *arg);

#endif /* GUEST_SUITE_H */
