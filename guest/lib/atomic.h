/* SPDX-License-Identifier: MIT */
/*
 * Memory ordering and atomics for cross-vCPU flags and counters.
 * x86 is TSO: plain loads/stores are acquire/release at the CPU level, so
 * these mostly stop the compiler from reordering or caching.
 */
#ifndef GUEST_LIB_ATOMIC_H
#define GUEST_LIB_ATOMIC_H

#include "lib/types.h"

#define barrier()		asm volatile("" ::: "memory")
#define READ_ONCE(x)		(*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v)	(*(volatile __typeof__(x) *)&(x) = (v))

#define load_acquire(p)		__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define store_release(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)

/* All return the new value. */
#define atomic_add_return(p, v)	__atomic_add_fetch((p), (v), __ATOMIC_SEQ_CST)
#define atomic_inc_return(p)	atomic_add_return((p), 1)
#define atomic_inc(p)		((void)atomic_inc_return(p))
#define atomic_xchg(p, v)	__atomic_exchange_n((p), (v), __ATOMIC_SEQ_CST)

static inline void cpu_relax(void)
{
	asm volatile("pause" ::: "memory");
}

struct spinlock {
	u32 locked;
};

static inline void spin_lock(struct spinlock *l)
{
	while (atomic_xchg(&l->locked, 1))
		while (READ_ONCE(l->locked))
			cpu_relax();
}

static inline void spin_unlock(struct spinlock *l)
{
	store_release(&l->locked, 0);
}

#endif /* GUEST_LIB_ATOMIC_H */
