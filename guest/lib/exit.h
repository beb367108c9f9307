/* SPDX-License-Identifier: MIT */
/* Ending the run: the exit port, and panic() for "cannot continue". */
#ifndef GUEST_LIB_EXIT_H
#define GUEST_LIB_EXIT_H

#include "lib/types.h"

#define EXIT_PASS	0
#define EXIT_FAIL	1
#define EXIT_USAGE	2	/* bad boot info, unknown suite, too many vCPUs */

/* Write `status` to MVM_PORT_EXIT; minivmm exits with it. Any CPL. */
__noreturn void guest_exit(u32 status);

/* Print "FAIL: panic on cpu N: ...", the summary line, and exit 1. */
__noreturn void panic(const char *fmt, ...) __printf(1, 2);

#endif /* GUEST_LIB_EXIT_H */
