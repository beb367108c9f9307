/* SPDX-License-Identifier: MIT */
/* Which payload a run without KERNEL boots: see minivmm(1), FILES. */
#ifndef VMM_PAYLOAD_H
#define VMM_PAYLOAD_H

#include <stddef.h>

#define PAYLOAD_NAME	"guest.elf"
#define PAYLOAD_ENV	"MINIVMM_PAYLOAD"

/* Where `make install` put the payload ($(PREFIX)/lib/minivmm/guest.elf). */
const char *payload_installed_path(void);

/*
 * The first of: `env` (if set and not empty), guest.elf in the directory
 * of `exe` (the build tree), `installed`, that is readable, into out.
 * `env` is taken as given; the other two must be readable files.
 * -1 with the places looked at in err when none is.
 */
int payload_find(const char *env, const char *exe, const char *installed,
		 char *out, size_t outlen, char *err, size_t errlen);

/* payload_find() for this process: $MINIVMM_PAYLOAD, /proc/self/exe, the installed path. */
int payload_default(char *out, size_t outlen, char *err, size_t errlen);

#endif
