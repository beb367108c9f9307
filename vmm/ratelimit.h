/* SPDX-License-Identifier: MIT */
/*
 * Messages a guest can provoke without crashing (a rejected record, an
 * unclaimed port, ...). The first RATELIMIT_BURST of each kind reach stderr,
 * later ones are only counted, and main() prints one summary line per kind
 * at exit: a guest in a loop must not fill the host's terminal or disk.
 * Host errors and fatal guest errors (register dumps) never come here.
 * Lock-free: vCPU threads call it concurrently.
 */
#ifndef VMM_RATELIMIT_H
#define VMM_RATELIMIT_H

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Enough to show what the guest did wrong and where (a few distinct
 * addresses or reasons); the rest is a count. Per kind, per run.
 */
#define RATELIMIT_BURST	5

enum guest_msg {
	GMSG_RECORD_REJECTED,	/* vmm/dev/results.c */
	GMSG_UNCLAIMED,		/* vmm/exits.c: a port or MMIO address nobody claims */
	GMSG_CTRL_OUTSIDE_RAM,	/* vmm/dev/ctrl.c */
	GMSG_EXIT_STATUS,	/* vmm/dev/exit.c: status above 255 (rep outsl repeats it) */
	GMSG_ACPI_SLEEP,	/* vmm/dev/acpi_pm.c: a sleep state other than S5 */
	GMSG_TESTDEV_FLUSH,	/* vmm/dev/pc_testdev.c: a page flush outside RAM */
	GMSG_KINDS
};

enum ratelimit_verdict {
	RATELIMIT_QUIET = 0,	/* over the limit: counted only */
	RATELIMIT_SAY,		/* print it */
	RATELIMIT_SAY_LAST,	/* print it and say the rest are counted */
};

struct ratelimit {
	atomic_ullong seen[GMSG_KINDS];	/* every occurrence, printed or not */
};

void ratelimit_init(struct ratelimit *rl);
/* Count one occurrence of `kind` and say whether to print it. */
enum ratelimit_verdict ratelimit_check(struct ratelimit *rl, enum guest_msg kind);
uint64_t ratelimit_seen(const struct ratelimit *rl, enum guest_msg kind);
uint64_t ratelimit_suppressed(const struct ratelimit *rl, enum guest_msg kind);
/* "result record rejected": how the summary names the kind. */
const char *ratelimit_kind_desc(enum guest_msg kind);
/* "record_rejected": the kind's key in --stats and --json. */
const char *ratelimit_kind_key(enum guest_msg kind);

/*
 * For a `say` from ratelimit_check(): nothing if QUIET, else the line (with
 * "minivmm: warning: " in front and a newline after) on stderr under `lock`, and after
 * the last one a note that the rest are counted. For callers whose message
 * costs something to build: check first, build, then print.
 */
void ratelimit_print(pthread_mutex_t *lock, enum guest_msg kind, enum ratelimit_verdict say,
		     const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* ratelimit_check(), then ratelimit_print(). */
void ratelimit_say(struct ratelimit *rl, pthread_mutex_t *lock, enum guest_msg kind,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void ratelimit_vsay(struct ratelimit *rl, pthread_mutex_t *lock, enum guest_msg kind,
		    const char *fmt, va_list ap);
/* One line per kind that had messages suppressed. */
void ratelimit_summary(const struct ratelimit *rl, FILE *f);

#endif
