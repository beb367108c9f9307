// SPDX-License-Identifier: MIT
#include <stdarg.h>

#include "vmm/ratelimit.h"

static const struct {
	const char *key, *desc;
} kinds[GMSG_KINDS] = {
	[GMSG_RECORD_REJECTED]	= { "record_rejected", "result record rejected" },
	[GMSG_UNCLAIMED]	= { "unclaimed_access", "unclaimed port/MMIO address" },
	[GMSG_CTRL_OUTSIDE_RAM]	= { "ctrl_outside_ram", "control request outside RAM" },
	[GMSG_EXIT_STATUS]	= { "exit_status_too_big", "guest exit status too big" },
	[GMSG_ACPI_SLEEP]	= { "acpi_sleep_ignored", "ACPI sleep state other than S5" },
	[GMSG_TESTDEV_FLUSH]	= { "testdev_flush_outside_ram", "pc-testdev flush outside RAM" },
};

void ratelimit_init(struct ratelimit *rl)
{
	for (unsigned int k = 0; k < GMSG_KINDS; k++)
		atomic_init(&rl->seen[k], 0);
}

enum ratelimit_verdict ratelimit_check(struct ratelimit *rl, enum guest_msg kind)
{
	/* The old count orders the callers: exactly BURST of them print. */
	uint64_t n = atomic_fetch_add_explicit(&rl->seen[kind], 1, memory_order_relaxed);

	if (n + 1 < RATELIMIT_BURST)
		return RATELIMIT_SAY;
	return n + 1 == RATELIMIT_BURST ? RATELIMIT_SAY_LAST : RATELIMIT_QUIET;
}

uint64_t ratelimit_seen(const struct ratelimit *rl, enum guest_msg kind)
{
	return atomic_load(&rl->seen[kind]);
}

uint64_t ratelimit_suppressed(const struct ratelimit *rl, enum guest_msg kind)
{
	uint64_t n = ratelimit_seen(rl, kind);

	return n > RATELIMIT_BURST ? n - RATELIMIT_BURST : 0;
}

const char *ratelimit_kind_desc(enum guest_msg kind)
{
	return kinds[kind].desc;
}

const char *ratelimit_kind_key(enum guest_msg kind)
{
	return kinds[kind].key;
}

static void print_line(pthread_mutex_t *lock, enum guest_msg kind, enum ratelimit_verdict say,
		       const char *fmt, va_list ap)
{
	char line[512];

	if (say == RATELIMIT_QUIET)
		return;
	vsnprintf(line, sizeof(line), fmt, ap);
	pthread_mutex_lock(lock);
	/* Formatted first: the lock is held for one short write. */
	fprintf(stderr, "minivmm: warning: %s\n", line);
	if (say == RATELIMIT_SAY_LAST)
		fprintf(stderr, "minivmm: warning: further '%s' messages are counted, not printed "
			"(total at exit)\n", kinds[kind].desc);
	pthread_mutex_unlock(lock);
}

void ratelimit_print(pthread_mutex_t *lock, enum guest_msg kind, enum ratelimit_verdict say,
		     const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	print_line(lock, kind, say, fmt, ap);
	va_end(ap);
}

void ratelimit_vsay(struct ratelimit *rl, pthread_mutex_t *lock, enum guest_msg kind,
		    const char *fmt, va_list ap)
{
	print_line(lock, kind, ratelimit_check(rl, kind), fmt, ap);
}

void ratelimit_say(struct ratelimit *rl, pthread_mutex_t *lock, enum guest_msg kind,
		   const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ratelimit_vsay(rl, lock, kind, fmt, ap);
	va_end(ap);
}

void ratelimit_summary(const struct ratelimit *rl, FILE *f)
{
	for (unsigned int k = 0; k < GMSG_KINDS; k++) {
		uint64_t n = ratelimit_suppressed(rl, k);

		if (n)
			fprintf(f, "minivmm: warning: %llu more '%s' message%s suppressed\n",
				(unsigned long long)n, kinds[k].desc, n == 1 ? "" : "s");
	}
}
