// SPDX-License-Identifier: MIT
/*
 * shootdown: Linux's remote TLB flush, driven from user space and checked.
 *
 * One reader thread per other CPU (pinned) reads a one-page window W in a
 * loop. The main thread, pinned to CPU 0, replaces W's page over and over
 * with mmap(MAP_FIXED) from a memfd of SLOTS pages: before mapping slot
 * g % SLOTS it writes g into that page, and after mmap returns it publishes
 * g. Unmapping the old page makes Linux flush W from every CPU running
 * this mm (flush_tlb_mm_range -> flush_tlb_multi: Hyper-V's flush
 * hypercall, KVM's PV flush or IPIs). A reader that loads `published` = p
 * and then reads a value below p from W read a page that was unmapped
 * before p was published: a stale TLB entry, i.e. a flush that did not
 * happen. Old pages stay in the memfd, so a stale read sees their old
 * generation, never junk.
 *
 * Timed: each remap (mmap MAP_FIXED over W), and each mprotect of a second
 * page every reader also reads (read-write -> read-only -> read-write: the
 * downgrade needs a remote flush too). Records go to minivmm (mvm_user.h).
 *
 * Usage: shootdown [-n OPS] [-v VARIANT] [-N]   (-N: print, do not submit
 * records; exit 0 passed, 1 stale reads, a failed call or a record not
 * taken, 2 bad usage)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mvm_user.h"

#define SLOTS		8
#define PAGE		4096
#define OPS_DEFAULT	2000
#define OPS_MAX		1000000

struct shared {
	volatile uint64_t *window;	/* W: one page of the memfd, remapped */
	volatile uint64_t *prot_page;	/* the mprotect case's page */
	_Atomic uint64_t published;	/* the generation W holds at least */
	atomic_bool stop;
	atomic_uint ready;
	_Atomic uint64_t stale;		/* reads below the published generation */
	_Atomic uint64_t first_seen, first_published;
	_Atomic uint64_t reads;
};

struct reader {
	pthread_t tid;
	unsigned int cpu;
	struct shared *sh;
};

static void note_stale(struct shared *sh, uint64_t seen, uint64_t pub)
{
	uint64_t zero = 0;

	if (atomic_fetch_add(&sh->stale, 1) == 0) {
		atomic_compare_exchange_strong(&sh->first_seen, &zero, seen + 1);
		atomic_store(&sh->first_published, pub);
	}
}

static void *reader_main(void *arg)
{
	struct reader *rd = arg;
	struct shared *sh = rd->sh;
	uint64_t reads = 0;

	if (mvm_pin(rd->cpu))
		MVM_SAY("shootdown: reader could not pin to CPU %u: %s", rd->cpu, strerror(errno));
	atomic_fetch_add(&sh->ready, 1);
	while (!atomic_load_explicit(&sh->stop, memory_order_relaxed)) {
		uint64_t pub = atomic_load_explicit(&sh->published, memory_order_acquire);
		uint64_t seen = *sh->window;

		(void)*sh->prot_page;	/* keeps that page's translation cached too */
		if (seen < pub)
			note_stale(sh, seen, pub);
		reads++;
	}
	atomic_fetch_add(&sh->reads, reads);
	return NULL;
}

/* Map slot `g % SLOTS` of the memfd over W, read-only, shared. */
static int remap(struct shared *sh, int fd, uint64_t g)
{
	void *p = mmap((void *)sh->window, PAGE, PROT_READ, MAP_SHARED | MAP_FIXED, fd,
		       (off_t)(g % SLOTS) * PAGE);

	return p == MAP_FAILED ? -1 : 0;
}

static int run_remaps(struct shared *sh, int fd, volatile uint64_t *slots, uint64_t ops,
		      struct mvm_samples *s)
{
	for (uint64_t g = 2; g < ops + 2; g++) {
		uint64_t t0;

		slots[(g % SLOTS) * (PAGE / 8)] = g;
		t0 = mvm_rdtsc();
		if (remap(sh, fd, g)) {
			MVM_FAIL("shootdown: mmap(MAP_FIXED) of generation %llu: %s",
				 (unsigned long long)g, strerror(errno));
			return -1;
		}
		mvm_samples_add(s, mvm_rdtsc() - t0);
		atomic_store_explicit(&sh->published, g, memory_order_release);
	}
	return 0;
}

static int run_mprotects(struct shared *sh, uint64_t ops, struct mvm_samples *s)
{
	void *p = (void *)sh->prot_page;

	for (uint64_t i = 0; i < ops; i++) {
		uint64_t t0 = mvm_rdtsc();

		if (mprotect(p, PAGE, PROT_READ)) {
			MVM_FAIL("shootdown: mprotect read-only: %s", strerror(errno));
			return -1;
		}
		mvm_samples_add(s, mvm_rdtsc() - t0);
		if (mprotect(p, PAGE, PROT_READ | PROT_WRITE)) {
			MVM_FAIL("shootdown: mprotect read-write: %s", strerror(errno));
			return -1;
		}
	}
	return 0;
}

static int setup(struct shared *sh, int *fd, volatile uint64_t **slots)
{
	void *w, *all, *pp;

	*fd = memfd_create("mvm-shootdown", MFD_CLOEXEC);
	if (*fd < 0 || ftruncate(*fd, SLOTS * PAGE))
		return -1;
	all = mmap(NULL, SLOTS * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
	w = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, *fd, PAGE);
	pp = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
		  -1, 0);
	if (all == MAP_FAILED || w == MAP_FAILED || pp == MAP_FAILED)
		return -1;
	*slots = all;
	(*slots)[1 * (PAGE / 8)] = 1;	/* W starts as slot 1, generation 1 */
	sh->window = w;
	sh->prot_page = pp;
	atomic_store(&sh->published, 1);
	return 0;
}

static int start_readers(struct shared *sh, struct reader *rd, unsigned int n)
{
	unsigned int ncpu = mvm_ncpus();

	for (unsigned int i = 0; i < n; i++) {
		rd[i].cpu = ncpu > 1 ? i + 1 : 0;
		rd[i].sh = sh;
		if (pthread_create(&rd[i].tid, NULL, reader_main, &rd[i]))
			return -1;
	}
	while (atomic_load(&sh->ready) < n)
		sched_yield();
	return 0;
}

struct run {
	const char *variant;
	bool submit;
	unsigned int nread;
	uint64_t overhead;
};

/* One case's record; 0, or -1 if it had no samples or was not taken. */
static int record(const struct run *run, struct mvm_samples *s, const char *name)
{
	struct mvm_result r;

	if (mvm_record_fill(&r, s, "linux-tlb", name, run->variant, run->nread, run->overhead))
		return -1;
	return mvm_report(&r, run->submit) < 0 ? -1 : 0;
}

static int report(struct shared *sh, struct mvm_samples *remaps, struct mvm_samples *prots,
		  const struct run *run)
{
	uint64_t stale = atomic_load(&sh->stale);
	unsigned int nread = run->nread;
	int bad = record(run, remaps, "remap 1 page");

	bad |= record(run, prots, "mprotect 1 page");
	if (stale) {
		MVM_FAIL("shootdown: %llu stale reads in %llu: the first saw generation %llu after %llu was published",
			 (unsigned long long)stale, (unsigned long long)atomic_load(&sh->reads),
			 (unsigned long long)(atomic_load(&sh->first_seen) - 1),
			 (unsigned long long)atomic_load(&sh->first_published));
		return 1;
	}
	MVM_SAY("shootdown: passed: %u reader%s, %llu reads, no stale read after %llu remaps",
		nread, nread == 1 ? "" : "s", (unsigned long long)atomic_load(&sh->reads),
		(unsigned long long)remaps->n);
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	static struct shared sh;
	static struct reader rd[1024];
	unsigned int ncpu = mvm_ncpus();
	struct mvm_args a = { .prog = "shootdown", .n_what = "operations", .n = OPS_DEFAULT,
			      .n_max = OPS_MAX, .variant = "", .submit = true };
	struct run run = { .nread = ncpu > 1 ? ncpu - 1 : 1 };
	uint64_t ops;
	struct mvm_samples remaps, prots;
	volatile uint64_t *slots;
	int fd, bad;

	if (mvm_start(argc, argv, &a))
		return 2;
	ops = a.n;
	run.variant = a.variant;
	run.submit = a.submit;
	if (run.nread > sizeof(rd) / sizeof(rd[0]))
		run.nread = sizeof(rd) / sizeof(rd[0]);
	if (mvm_pin(0) || setup(&sh, &fd, &slots) || mvm_samples_init(&remaps, ops) ||
	    mvm_samples_init(&prots, ops)) {
		MVM_FAIL("shootdown: setup: %s", strerror(errno));
		return 1;
	}
	run.overhead = mvm_clock_overhead();
	if (start_readers(&sh, rd, run.nread)) {
		MVM_FAIL("shootdown: starting readers: %s", strerror(errno));
		return 1;
	}
	bad = run_remaps(&sh, fd, slots, ops, &remaps) || run_mprotects(&sh, ops, &prots);
	atomic_store(&sh.stop, true);
	for (unsigned int i = 0; i < run.nread; i++)
		pthread_join(rd[i].tid, NULL);
	return report(&sh, &remaps, &prots, &run) || bad;
}
