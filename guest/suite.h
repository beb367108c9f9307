/* SPDX-License-Identifier: MIT */
/*
 * Test suites: one file each in guest/tests/, each registering itself with
 * DEFINE_SUITE (no shared table to edit). vCPU 0
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

/*
 * Register `fn` as suite `name`. `order` (two digits) sorts the list and the
 * default set: the linker keeps .suites.NN sections in name order.
 */
#define DEFINE_SUITE(order, fn, name, in_default, arg_name, description)	\
	static const struct suite suite_entry_##fn				\
	__attribute__((used, aligned(8), section(".suites." #order))) =		\
		{ name, fn, in_default, arg_name, description }

extern const struct suite __suites_start[], __suites_end[];

#endif /* GUEST_SUITE_H */
