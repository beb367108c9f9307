/* SPDX-License-Identifier: MIT */
/*
 * What the Linux workloads (tests/linux/work/) share: a cycle clock, a
 * summary of per-operation samples, CPU pinning, and the one documented
 * way for a Linux user program to hand minivmm a result record
 * (docs/linux-work.md): the record of include/minivmm/abi.h in a locked
 * page, that page's guest-physical address from /proc/self/pagemap, and an
 * `outl` of it to MVM_PORT_RESULTS. Needs root (pagemap PFNs, ioperm).
 */
#ifndef MVM_USER_H
#define MVM_USER_H

#include <stdbool.h>
#include <stdint.h>

#include "minivmm/abi.h"

/* Printed by every workload; /init and the tests look for these prefixes. */
#define MVM_SAY(fmt, ...)	printf("mvm-work: " fmt "\n", ##__VA_ARGS__)
#define MVM_FAIL(fmt, ...)	printf("mvm-work: FAIL: " fmt "\n", ##__VA_ARGS__)

static inline uint64_t mvm_rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("lfence; rdtsc; lfence" : "=a"(lo), "=d"(hi) :: "memory");
	return ((uint64_t)hi << 32) | lo;
}

/* Samples of one case, in TSC cycles; summarised into a record. */
struct mvm_samples {
	uint64_t *v;
	uint64_t n, cap;
};

int mvm_samples_init(struct mvm_samples *s, uint64_t cap);
void mvm_samples_add(struct mvm_samples *s, uint64_t cycles);
void mvm_samples_free(struct mvm_samples *s);
/* The median cost of an empty timed region (two back-to-back clock reads). */
uint64_t mvm_clock_overhead(void);

/*
 * Fill `r` from the samples (sorted in place): min, median, p90, p99, max,
 * mean, iters; CPL 3, unit cycles, this many online CPUs. Names are cut to
 * their fields. -1 without samples.
 */
int mvm_record_fill(struct mvm_result *r, struct mvm_samples *s, const char *suite,
		    const char *name, const char *variant, uint32_t targets, uint64_t overhead);
/*
 * Print the record's line and, with `submit`, hand it to minivmm: its id
 * (1, 2, ...), or -1 (with a FAIL line) if this program could not reach
 * the port (not root, no minivmm) or minivmm rejected the record (its
 * stderr says why). 0 without `submit`. The page and its GPA are found once
 * per process: a child of fork() must not submit through its parent's copy.
 */
int mvm_report(struct mvm_result *r, bool submit);

/*
 * On SIGSEGV, SIGBUS, SIGILL or SIGFPE: one FAIL line with the signal, the
 * faulting address, RIP, RSP and the CPU, then exit status 1 (a crash in a
 * workload is the guest's or the VMM's bug, and the line is the evidence).
 */
void mvm_catch_crashes(const char *prog);
/*
 * The options every workload takes: -n N (operations, or seconds: n_what
 * says), -t N (threads, where t_max is not 0), -v VARIANT, -N (print, do not
 * submit). Defaults come in `a`; -1 after a usage line on stderr.
 */
struct mvm_args {
	const char *prog, *n_what;
	uint64_t n, n_max;
	uint64_t t, t_max;
	const char *variant;
	bool submit;
};
int mvm_parse_args(int argc, char **argv, struct mvm_args *a);
/*
 * What every workload's main() does first: line-buffered stdout,
 * mvm_catch_crashes(a->prog), then mvm_parse_args(); -1 on bad usage.
 */
int mvm_start(int argc, char **argv, struct mvm_args *a);
/* Pin the calling thread to CPU `cpu`; -1 with errno. */
int mvm_pin(unsigned int cpu);
/* Online CPUs (sysconf), at least 1. */
unsigned int mvm_ncpus(void);

#endif
