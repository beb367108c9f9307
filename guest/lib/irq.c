// SPDX-License-Identifier: MIT
/* The vector -> handler table. */
#include "lib/apic.h"
#include "lib/atomic.h"
#include "lib/irq.h"
#include "lib/layout.h"

static irq_handler_t handlers[256];

static bool vector_reserved(unsigned int vector)
{
	return vector == SMP_CALL_VECTOR || vector == BARRIER_TIMER_VECTOR ||
	       vector == SPURIOUS_VECTOR;
}

int irq_register(unsigned int vector, irq_handler_t handler)
{
	if (vector < NR_EXCEPTIONS || vector > 255 || vector_reserved(vector))
		return -1;
	WRITE_ONCE(handlers[vector], handler);
	return 0;
}

void irq_unregister(unsigned int vector)
{
	if (vector >= NR_EXCEPTIONS && vector <= 255 && !vector_reserved(vector))
		WRITE_ONCE(handlers[vector], NULL);
}

void irq_register_reserved(unsigned int vector, irq_handler_t handler)
{
	WRITE_ONCE(handlers[vector], handler);
}

/* False when no handler is registered: the caller treats that as fatal. */
bool irq_dispatch(struct trap_frame *tf)
{
	irq_handler_t h = READ_ONCE(handlers[tf->vector]);

	if (!h)
		return false;
	h(tf);
	/* The APIC does not set an ISR bit for its spurious vector. */
	if (tf->vector != SPURIOUS_VECTOR)
		apic_eoi();
	return true;
}
