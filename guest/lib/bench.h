/* SPDX-License-Identifier: MIT */
/*
 * The one timing harness behind the measurement suites (vmexit, ipi, flush),
 * in the spirit of kvm-unit-tests' x86/vmexit.c: a suite describes its cases
 * in a table and bench_run_table() times each with the same loop.
 *
 * Per case: setup (may skip it), a warm-up per arm that also sizes the run,
 * then BENCH_ROUNDS rounds of blocks: one block of the row, one of the empty
 * loop at the same CPL, and one of the baseline row if it has one, in
 * alternating order. Samples are per iteration, loop included. From the
 * per-block medians: the row's cost above the loop (or "in noise") and its
 * ratio to the baseline with the interquartile range over rounds. One
 * struct mvm_result per row goes to the VMM. Nothing is printed per
 * iteration; each table ends with one PASS line (or a FAIL per broken case).
 * The method is described in docs/measuring.md.
 */
#ifndef GUEST_LIB_BENCH_H
#define GUEST_LIB_BENCH_H

#include "lib/types.h"

#define BENCH_BUDGET_US		200000		/* default: ~0.2 s a case, all arms */
#define BENCH_ROUNDS		32		/* block rounds per case (fewer with --iters < 32) */
#define BENCH_MIN_ITERS		16		/* so 16 rounds of one iteration when slow */
#define BENCH_MAX_ITERS		(1u << 16)	/* per arm; 3 arms: 1.5 MiB of .bss */
#define BENCH_WARMUP_ITERS	64
#define BENCH_WARMUP_US		10000		/* warm-up stops early after 10 ms */

/* bench_case.flags */
#define BENCH_IRQS_ON		(1u << 0)	/* RFLAGS.IF=1 while the loop runs */

/* Row number in the same table: .baseline = BENCH_ROW(i) compares with row i. */
#define BENCH_ROW(i)		((i) + 1)

/*
 * One row of a table. body() runs once per iteration inside the timed
 * window; it returns NULL, or why the iteration went wrong (the case then
 * stops and FAILs). setup() runs once at CPL0 before the case; it returns
 * NULL, or why the case cannot run here (SKIP). The baseline's blocks run
 * after the row's setup(), so a row and its baseline must agree on what
 * setup() prepares. prep() runs before every iteration outside the timed
 * window, at the case's CPL. A baseline must be an earlier row at the same
 * CPL; its body is run again, interleaved with the row's.
 */
struct bench_case {
	const char *name;
	const char *variant;		/* encoding, send path, or where it is handled */
	const char *(*body)(void *arg);
	const char *(*setup)(void *arg);
	void (*prep)(void *arg);
	void *arg;
	u32 cpl;			/* 0, or 3 through run_user() */
	u32 flags;			/* BENCH_* */
	u32 targets;			/* other vCPUs involved, for the record */
	u32 vmm_kind;			/* enum mvm_vmm_kind: the VMM-side statistic */
	u32 vmm_code;			/* hypercall code for MVM_VMM_HCALL */
	u32 baseline;			/* BENCH_ROW(i) of the row to compare with, 0 = none */
	const char *state;		/* the targets' state ("halted"), or NULL */
};

struct bench {
	const char *suite;
	u32 budget_us;		/* per case, all arms; bench_init sets BENCH_BUDGET_US */
};

void bench_init(struct bench *b, const char *suite);

/*
 * Measure every row in order and submit a record for each row measured.
 * `what` names the table in the summary line. Returns the number of rows
 * that failed (skipped rows do not count).
 */
u32 bench_run_table(struct bench *b, const struct bench_case *cases, u32 n, const char *what);

/*
 * For bodies that wait for other vCPUs: spin until *counter - start >= want
 * (u32 arithmetic, so it may wrap); false after BENCH_ACK_TIMEOUT_US. The
 * TSC is read only once the first check fails, so an answer that is already
 * there costs one load.
 */
#define BENCH_ACK_TIMEOUT_US	5000000
bool bench_wait_acks(const u32 *counter, u32 start, u32 want);

#endif /* GUEST_LIB_BENCH_H */
