// SPDX-License-Identifier: MIT
/* The workloads' shared part (mvm_user.h): samples, records, submission. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <ucontext.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/io.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mvm_user.h"

#define PAGEMAP_PRESENT		(1ULL << 63)
#define PAGEMAP_PFN_MASK	((1ULL << 55) - 1)

int mvm_samples_init(struct mvm_samples *s, uint64_t cap)
{
	s->n = 0;
	s->cap = cap;
	s->v = calloc(cap ? cap : 1, sizeof(*s->v));
	return s->v ? 0 : -1;
}

/* Past `cap` the extra samples are dropped: the caller sized it for its loop. */
void mvm_samples_add(struct mvm_samples *s, uint64_t cycles)
{
	if (s->n < s->cap)
		s->v[s->n++] = cycles;
}

void mvm_samples_free(struct mvm_samples *s)
{
	free(s->v);
	s->v = NULL;
	s->n = s->cap = 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The sample at percentile pct (0..100) of a sorted array: nearest rank. */
static uint64_t pick(const struct mvm_samples *s, unsigned int pct)
{
	uint64_t rank = (s->n * pct + 99) / 100;

	return s->v[rank ? rank - 1 : 0];
}

uint64_t mvm_clock_overhead(void)
{
	struct mvm_samples s;
	uint64_t med;

	if (mvm_samples_init(&s, 1001))
		return 0;
	for (int i = 0; i < 1001; i++) {
		uint64_t t0 = mvm_rdtsc();

		mvm_samples_add(&s, mvm_rdtsc() - t0);
	}
	qsort(s.v, s.n, sizeof(*s.v), cmp_u64);
	med = pick(&s, 50);
	mvm_samples_free(&s);
	return med;
}

static void copy_name(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "");
}

int mvm_record_fill(struct mvm_result *r, struct mvm_samples *s, const char *suite,
		    const char *name, const char *variant, uint32_t targets, uint64_t overhead)
{
	unsigned __int128 sum = 0;

	if (!s->n)
		return -1;
	qsort(s->v, s->n, sizeof(*s->v), cmp_u64);
	for (uint64_t i = 0; i < s->n; i++)
		sum += s->v[i];
	memset(r, 0, sizeof(*r));
	r->abi_version = MVM_ABI_VERSION;
	r->size = sizeof(*r);
	copy_name(r->suite, sizeof(r->suite), suite);
	copy_name(r->name, sizeof(r->name), name);
	copy_name(r->variant, sizeof(r->variant), variant);
	r->cpl = 3;
	r->nr_vcpus = mvm_ncpus();
	r->targets = targets;
	r->unit = MVM_UNIT_CYCLES;
	r->iters = s->n;
	r->min = s->v[0];
	r->median = pick(s, 50);
	r->p90 = pick(s, 90);
	r->p99 = pick(s, 99);
	r->max = s->v[s->n - 1];
	r->mean = (uint64_t)(sum / s->n);
	r->overhead = overhead;
	return 0;
}

/* The guest-physical address of the page at `va` (mapped, locked); 0 if unknown. */
static uint64_t page_gpa(const void *va)
{
	uint64_t ent = 0, off = (uint64_t)(uintptr_t)va / 4096 * sizeof(ent);
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	ssize_t got;

	if (fd < 0)
		return 0;
	got = pread(fd, &ent, sizeof(ent), (off_t)off);
	close(fd);
	if (got != sizeof(ent) || !(ent & PAGEMAP_PRESENT) || !(ent & PAGEMAP_PFN_MASK))
		return 0;	/* without CAP_SYS_ADMIN the PFN reads as 0 */
	return (ent & PAGEMAP_PFN_MASK) * 4096;
}

/* One locked page for records, and its GPA, found once. */
static struct mvm_result *record_page(uint64_t *gpa)
{
	static struct mvm_result *page;
	static uint64_t page_at;

	if (!page) {
		void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE | MAP_LOCKED, -1, 0);

		if (p == MAP_FAILED)
			return NULL;
		memset(p, 0, 4096);
		page_at = page_gpa(p);
		if (!page_at || page_at + 4096 > (1ULL << 32) ||
		    ioperm(MVM_PORT_RESULTS, 4, 1)) {
			if (!errno)
				errno = EPERM;
			munmap(p, 4096);
			return NULL;
		}
		page = p;
	}
	*gpa = page_at;
	return page;
}

/* The line a human reads: the case, its numbers, and what became of the record. */
static void say_record(const struct mvm_result *r, const char *fate)
{
	bool rate = r->unit == MVM_UNIT_PER_SEC;

	MVM_SAY("%s: %s%s%s: %llu %s, median %llu%s (min %llu, p90 %llu, max %llu), "
		"targets %u: %s", r->suite, r->name, r->variant[0] ? " " : "", r->variant,
		(unsigned long long)r->iters, rate ? "samples" : "ops",
		(unsigned long long)r->median, rate ? "/s" : " cycles",
		(unsigned long long)r->min, (unsigned long long)r->p90,
		(unsigned long long)r->max, r->targets, fate);
}

int mvm_report(struct mvm_result *r, bool submit)
{
	_Static_assert(sizeof(*r) <= 4096, "a record fits its page");
	char fate[48];
	uint64_t gpa;
	struct mvm_result *page;

	if (!submit) {
		say_record(r, "not submitted (-N)");
		return 0;
	}
	page = record_page(&gpa);
	if (!page) {
		say_record(r, "NOT submitted");
		MVM_FAIL("%s: %s: cannot reach minivmm's results port: %s", r->suite, r->name,
			 strerror(errno));
		return -1;
	}
	memcpy(page, r, sizeof(*r));
	__asm__ volatile("outl %0, %w1" :: "a"((uint32_t)gpa), "Nd"(MVM_PORT_RESULTS) : "memory");
	r->id = ((volatile struct mvm_result *)page)->id;
	snprintf(fate, sizeof(fate), r->id ? "record %u" : "REJECTED by minivmm", r->id);
	say_record(r, fate);
	if (!r->id)
		MVM_FAIL("%s: %s: minivmm rejected the record (its stderr says why)", r->suite, r->name);
	return r->id ? (int)r->id : -1;
}

static const char *crash_prog = "?";

/* Async-signal-safe: append `v` in hex to buf at *at. */
static void put_hex(char *buf, size_t len, size_t *at, uint64_t v)
{
	char tmp[16];
	int n = 0;

	do {
		tmp[n++] = "0123456789abcdef"[v & 0xf];
		v >>= 4;
	} while (v && n < 16);
	if (*at + 2 + (size_t)n >= len)
		return;
	buf[(*at)++] = '0';
	buf[(*at)++] = 'x';
	while (n)
		buf[(*at)++] = tmp[--n];
}

static void put_str(char *buf, size_t len, size_t *at, const char *s)
{
	while (*s && *at + 1 < len)
		buf[(*at)++] = *s++;
}

static void on_crash(int sig, siginfo_t *si, void *uc_v)
{
	const ucontext_t *uc = uc_v;
	char buf[256];
	size_t at = 0;
	unsigned int cpu = 0;

	/* The raw system call is async-signal-safe, and needs no RDTSCP in the guest's CPUID. */
	(void)syscall(SYS_getcpu, &cpu, NULL, NULL);
	put_str(buf, sizeof(buf), &at, "mvm-work: FAIL: ");
	put_str(buf, sizeof(buf), &at, crash_prog);
	put_str(buf, sizeof(buf), &at, ": crashed: signal ");
	put_hex(buf, sizeof(buf), &at, (uint64_t)sig);
	put_str(buf, sizeof(buf), &at, " code ");
	put_hex(buf, sizeof(buf), &at, (uint64_t)si->si_code);
	put_str(buf, sizeof(buf), &at, " at ");
	put_hex(buf, sizeof(buf), &at, (uint64_t)(uintptr_t)si->si_addr);
	put_str(buf, sizeof(buf), &at, " rip ");
	put_hex(buf, sizeof(buf), &at, (uint64_t)uc->uc_mcontext.gregs[REG_RIP]);
	put_str(buf, sizeof(buf), &at, " rsp ");
	put_hex(buf, sizeof(buf), &at, (uint64_t)uc->uc_mcontext.gregs[REG_RSP]);
	put_str(buf, sizeof(buf), &at, " err ");
	put_hex(buf, sizeof(buf), &at, (uint64_t)uc->uc_mcontext.gregs[REG_ERR]);
	put_str(buf, sizeof(buf), &at, " cpu ");
	put_hex(buf, sizeof(buf), &at, cpu);
	put_str(buf, sizeof(buf), &at, "\n");
	(void)!write(1, buf, at);
	_exit(1);
}

void mvm_catch_crashes(const char *prog)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE };
	struct sigaction sa;

	crash_prog = prog;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_crash;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	for (unsigned int i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

/* A whole number in 1..max into *out; -1 otherwise. */
static int parse_count(const char *s, uint64_t max, uint64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 10);
	return errno || *end || !*out || *out > max || *s == '-' ? -1 : 0;
}

static int usage(const struct mvm_args *a)
{
	fprintf(stderr, "usage: %s [-n %s]%s [-v VARIANT] [-N]\n", a->prog, a->n_what,
		a->t_max ? " [-t THREADS]" : "");
	return -1;
}

int mvm_parse_args(int argc, char **argv, struct mvm_args *a)
{
	int c;

	while ((c = getopt(argc, argv, a->t_max ? "n:t:v:N" : "n:v:N")) != -1) {
		switch (c) {
		case 'n':
			if (parse_count(optarg, a->n_max, &a->n)) {
				fprintf(stderr, "%s: -n '%s': need 1..%llu %s\n", a->prog, optarg,
					(unsigned long long)a->n_max, a->n_what);
				return -1;
			}
			break;
		case 't':
			if (parse_count(optarg, a->t_max, &a->t)) {
				fprintf(stderr, "%s: -t '%s': need 1..%llu threads\n", a->prog, optarg,
					(unsigned long long)a->t_max);
				return -1;
			}
			break;
		case 'v': a->variant = optarg; break;
		case 'N': a->submit = false; break;
		default: return usage(a);
		}
	}
	return optind == argc ? 0 : usage(a);
}

int mvm_start(int argc, char **argv, struct mvm_args *a)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	mvm_catch_crashes(a->prog);
	return mvm_parse_args(argc, argv, a);
}

int mvm_pin(unsigned int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

unsigned int mvm_ncpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (unsigned int)n : 1;
}
