// SPDX-License-Identifier: MIT
/*
 * COM1 for Linux guests. Linux's 8250 driver sends what user space writes
 * from its THRE interrupt, on whichever CPU takes IRQ 4, so output is one
 * line for the whole device (not one per vCPU, which would reorder a line
 * sent from two CPUs), written out at a newline, when full, and when the
 * guest turns THRI off (its transmit queue is empty: a shell prompt shows).
 * Each rise of the UART's interrupt output is an edge on IRQ 4
 * (vm_irq_edge(): KVM_IRQ_LINE on the VM fd), from the vCPU thread that
 * caused it or from the input thread (vmm/dev/console_input.c).
 */
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "minivmm/abi.h"
#include "vmm/dev/devices.h"
#include "vmm/dev/linux_console.h"
#include "vmm/errmsg.h"
#include "vmm/fdio.h"
#include "vmm/linux_cmdline.h"
#include "vmm/vcpu_ops.h"
#include "vmm/vcpu_req.h"

/* Under c->lock. */
static void line_flush(struct linux_console *c)
{
	if (!c->line_len)
		return;
	pthread_mutex_lock(c->out_lock);
	fflush(stdout);
	(void)fdio_write_all(STDOUT_FILENO, c->line, c->line_len);
	pthread_mutex_unlock(c->out_lock);
	if (linux_console_classify(c->line, c->line_len) == LINUX_CONSOLE_PANIC)
		vm_guest_panicked(c->vm, c->line, c->line_len);
	c->line_len = 0;
}

static void line_putc(struct linux_console *c, uint8_t b)
{
	/* Into a file or pipe, stdout is a stream of lines: CR goes (as console.c does). */
	if (b == '\r' && !c->keep_cr)
		return;
	c->line[c->line_len++] = (char)b;
	if (b == '\n' || c->line_len == sizeof(c->line))
		line_flush(c);
}

/* One register access under the lock; true if the IRQ line rose. */
static bool con_access(struct linux_console *c, unsigned int reg, bool write, uint8_t *b,
		       bool *took)
{
	if (write) {
		if (uart_write(&c->uart, reg, *b))
			line_putc(c, *b);
		/* THRI off: Linux has nothing more to send for now. */
		if (reg == UART_IER && !(c->uart.lcr & UART_LCR_DLAB) &&
		    !(c->uart.ier & UART_IER_THRI))
			line_flush(c);
	} else {
		unsigned int before = c->uart.rx_count;

		*b = uart_read(&c->uart, reg);
		*took = *took || c->uart.rx_count < before;
	}
	return uart_irq_edge(&c->uart);
}

static void futex_wake_all(atomic_uint *word)
{
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL, NULL, 0);
}

static void con_io(struct vcpu *v, uint64_t offset, bool write, void *data, unsigned int size,
		   void *state)
{
	struct linux_console *c = state;
	uint8_t *bytes = data;
	bool edge = false, took = false;

	(void)v;
	pthread_mutex_lock(&c->lock);
	/* A wide access touches consecutive registers, one byte each. */
	for (unsigned int i = 0; i < size; i++)
		edge |= con_access(c, (unsigned int)offset + i, write, &bytes[i], &took);
	pthread_mutex_unlock(&c->lock);
	if (edge)
		vm_irq_edge(c->vm, LINUX_COM1_IRQ);
	if (took && atomic_load(&c->rx_waiting)) {
		atomic_fetch_add(&c->rx_seq, 1);
		futex_wake_all(&c->rx_seq);
	}
}

static int con_start(void *state, char *err, size_t errlen)
{
	return console_input_start(state, err, errlen);
}

/* The vCPUs are joined: the input thread ends, the terminal is itself, the last line goes out. */
static void con_stop(void *state)
{
	struct linux_console *c = state;

	console_input_stop(c);
	pthread_mutex_lock(&c->lock);
	line_flush(c);
	pthread_mutex_unlock(&c->lock);
}

static void con_destroy(void *state)
{
	struct linux_console *c = state;

	if (!c->in.started)
		console_input_restore(&c->in);	/* else its thread does, under its filter */
	/* A thread that missed the grace period still uses it: leave it to exit(). */
	if (c->in.started)
		return;
	pthread_mutex_destroy(&c->lock);
	free(c);
}

static const struct bus_desc linux_console_desc = {
	.name = "com1", .kind = STATS_PIO_OTHER, .flags = BUS_F_RAISES_IRQ, .io = con_io,
	.destroy = con_destroy, .start = con_start, .stop = con_stop,
};

static int create(struct vm *vm, bool input, char *err, size_t errlen)
{
	struct linux_console *c = calloc(1, sizeof(*c));

	if (!c)
		return errmsg(err, errlen, "out of memory for COM1");
	pthread_mutex_init(&c->lock, NULL);
	uart_reset(&c->uart);
	/* A modem that is there: carrier, data set ready, clear to send. */
	c->uart.msr_lines = UART_MSR_DCD | UART_MSR_DSR | UART_MSR_CTS;
	c->vm = vm;
	c->out_lock = vm_out_lock(vm);
	c->keep_cr = isatty(STDOUT_FILENO);
	c->in.on = input;
	if (bus_claim(vm_bus(vm), BUS_PIO, MVM_PORT_COM1, UART_NR_REGS, &linux_console_desc, c,
		      err, errlen)) {
		con_destroy(c);
		return -1;
	}
	/* Raw mode from here: the bus owns c, and its destroy hook puts the terminal back. */
	console_input_setup(c);
	return 0;
}

int linux_console_dev_create(struct vm *vm, char *err, size_t errlen)
{
	return create(vm, true, err, errlen);
}

int linux_console_output_dev_create(struct vm *vm, char *err, size_t errlen)
{
	return create(vm, false, err, errlen);
}
