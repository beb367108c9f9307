/* SPDX-License-Identifier: MIT */
/*
 * minivmm's own exit statuses (README.md "Exit status", minivmm.1 EXIT
 * STATUS). Any other value is the guest's, written to its exit port.
 */
#ifndef VMM_EXITSTATUS_H
#define VMM_EXITSTATUS_H

#define EXITSTATUS_OK			0	/* the guest reported success */
#define EXITSTATUS_GUEST_FAILED		1	/* the guest reported failure, or a record was rejected */
#define EXITSTATUS_HOST_ERROR		2	/* bad option or kernel file, a host problem */
#define EXITSTATUS_GUEST_CRASH		3	/* triple fault, entry failure, unhandled exit, timeout */
#define EXITSTATUS_GUEST_RESET		4	/* reserved: the guest reset itself (a reboot) */
/* Stopped by signal `sig` (SIGINT, SIGTERM; SIGSYS from the sandbox), as a shell reports it. */
#define EXITSTATUS_SIGNAL(sig)		(128 + (sig))

#endif
