/* SPDX-License-Identifier: MIT */
/*
 * COM1 for Linux guests (vmm/dev/linux_console.c) and the stdin reader that
 * feeds it (vmm/dev/console_input.c): their shared state, private to them.
 * Calls go one way (the console calls the reader), so the link graph stays a DAG.
 */
#ifndef VMM_DEV_LINUX_CONSOLE_H
#define VMM_DEV_LINUX_CONSOLE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmm/dev/console_escape.h"
#include "vmm/dev/serial16550.h"

struct vm;
struct term_state;	/* console_input.c: <termios.h>'s CR0..CR3 macros stay out of headers */

#define LINUX_COM1_IRQ		4
#define LINUX_CONSOLE_LINE_MAX	1024
#define CONSOLE_INPUT_PENDING	4096	/* typed ahead while the guest's FIFO is full */

struct console_input {
	bool on;			/* this console reads stdin */
	int fd;				/* STDIN_FILENO */
	bool tty;			/* a terminal: raw mode and escape keys */
	/*
	 * A terminal in raw mode: what restores it. Kept for on_exit(), which
	 * may run after the console is freed, so never freed itself.
	 */
	struct term_state *term;
	pthread_t thread;
	bool started;			/* running, or not joined yet */
	atomic_bool stop;
	struct console_escape esc;
	uint8_t pending[CONSOLE_INPUT_PENDING];
	size_t pending_len;
	uint64_t dropped;		/* typed while even `pending` was full */
};

struct linux_console {
	pthread_mutex_t lock;		/* the UART and the line; taken before *out_lock */
	struct uart16550 uart;
	struct vm *vm;			/* for vmm/vcpu_ops.h and vmm/vcpu_req.h only */
	pthread_mutex_t *out_lock;
	bool keep_cr;			/* stdout is a terminal: CRs reach it */
	char line[LINUX_CONSOLE_LINE_MAX];
	unsigned int line_len;
	atomic_uint rx_seq;		/* a futex word: bumped when the guest makes room */
	atomic_bool rx_waiting;		/* the input thread sleeps on rx_seq */
	struct console_input in;
};

/* console_input.c: from the console's create, start, stop and destroy. */
void console_input_setup(struct linux_console *c);
int console_input_start(struct linux_console *c, char *err, size_t errlen);
void console_input_stop(struct linux_console *c);
/* The terminal as it was; safe to call again, and when it never was raw. */
void console_input_restore(struct console_input *in);
/* Is the terminal in raw mode now? */
bool console_input_raw(const struct console_input *in);

#endif
