// SPDX-License-Identifier: MIT
#include "lib/boot.h"
#include "lib/pvlock_contend.h"
#include "lib/smp.h"
#include "lib/string.h"
#include "lib/timing.h"
#include "lib/user.h"

static struct pvlock lock;
static u64 counter;
static u64 episode_pool[PVLOCK_EPISODES_MAX];

static u64 barrier_user(void *arg)
{
	(void)arg;
	smp_barrier();
	return 0;
}

/* On every vCPU: line up, then run this vCPU's worker. */
static void contend_on_cpu(void *arg)
{
	struct pvlock_contend *c = arg;

	run_user(barrier_user, NULL, RUN_USER_IRQS_OFF);
	pvlock_run(&c->w[smp_id()]);
}

static void setup_workers(struct pvlock_contend *c)
{
	u32 slice = PVLOCK_EPISODES_MAX / c->nr_cpus;

	for (u32 cpu = 0; cpu < c->nr_cpus; cpu++) {
		struct pvlock_worker *w = &c->w[cpu];

		*w = (struct pvlock_worker){
			.lock = &lock,
			.wait = c->wait,
			.counter = &counter,
			.cs_work = c->cs_work,
			.quota = c->quota,
			.window = us_to_cycles(c->window_us),
		};
		if (c->keep_episodes) {
			w->episodes = episode_pool + (u64)cpu * slice;
			w->max_episodes = slice;
		}
	}
}

/* CPL3 (a memmove of up to 64k samples is slow where CPL0 is emulated). */
static u64 gather_user(void *arg)
{
	struct pvlock_contend *c = arg;
	u64 first = ~0ull, last = 0;

	c->min_share = ~0ull;
	c->episodes = episode_pool;
	for (u32 cpu = 0; cpu < c->nr_cpus; cpu++) {
		const struct pvlock_worker *w = &c->w[cpu];

		c->total += w->acquired;
		c->min_share = MIN(c->min_share, w->acquired);
		c->max_share = MAX(c->max_share, w->acquired);
		c->contended += w->contended;
		c->rounds += w->rounds;
		c->preempted_seen += w->preempted_seen;
		c->halts += w->halts;
		c->kicks += w->kicks_sent;
		first = MIN(first, w->start);
		last = MAX(last, w->end);
		if (w->nr_episodes)
			memmove(episode_pool + c->nr_episodes, w->episodes,
				w->nr_episodes * sizeof(u64));
		c->nr_episodes += w->nr_episodes;
	}
	c->elapsed = last > first ? last - first : 0;
	return 0;
}

void pvlock_contend_run(struct pvlock_contend *c)
{
	c->nr_cpus = smp_online_count();
	c->total = c->contended = c->rounds = c->preempted_seen = 0;
	c->halts = c->kicks = c->max_share = 0;
	c->nr_episodes = 0;
	pvlock_init(&lock);
	WRITE_ONCE(counter, 0);
	setup_workers(c);
	smp_call_all(contend_on_cpu, c);
	c->counter = READ_ONCE(counter);
	run_user(gather_user, c, RUN_USER_IRQS_OFF);
}

static u64 rate(u64 events, u64 cycles)
{
	u64 ns = cycles_to_ns(cycles);

	return ns ? events * 1000000000ull / ns : 0;
}

u64 pvlock_contend_rate(const struct pvlock_contend *c)
{
	return rate(c->total, c->elapsed);
}

u64 pvlock_contend_cpu_rate(const struct pvlock_contend *c, u32 cpu)
{
	const struct pvlock_worker *w = &c->w[cpu];

	return rate(w->acquired, w->end - w->start);
}
