// SPDX-License-Identifier: MIT
/*
 * Host input for a Linux guest's COM1: its own thread, under its own
 * seccomp filter (vmm/sandbox.c: read on stdin, ppoll, KVM_IRQ_LINE on the
 * VM fd, TCSETS on stdin), so the main thread's wait for signals stays as
 * it is and a blocked read() never holds up anything else. A stop reaches
 * it as VM_WAKE_SIGNAL (a no-op handler), which only its ppoll() lets in.
 *
 * A pipe or file is fed until EOF, never faster than the guest empties its
 * receive FIFO (nothing is lost; the thread sleeps on the console's futex
 * word meanwhile). A terminal is put in raw mode (output processing kept:
 * the guest's lines still end in CR LF on screen) and read all the time, so
 * Ctrl-A x quits even when the guest reads nothing; what the guest has no
 * room for waits in `pending` (4 KiB), past that it is dropped and counted.
 * Once started, the thread itself puts the terminal back as it ends (the
 * stop hook, Ctrl-A x); before that, the console's destroy hook and
 * on_exit() do, so every return from main() undoes raw mode.
 */
#include <errno.h>
#include <linux/futex.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "vmm/dev/linux_console.h"
#include "vmm/exitstatus.h"
#include "vmm/sandbox.h"
#include "vmm/vcpu_ops.h"
#include "vmm/vcpu_req.h"

#define STOP_GRACE_S	2
/* Blocked everywhere; main sigwaits it, this thread's ppoll lets it in (vmm/vcpu_req.h). */
#define STOP_SIGNAL	VM_WAKE_SIGNAL
#define TTY_RETRY_MS	20	/* a terminal's typed-ahead bytes, offered again */

static void input_say(struct linux_console *c, const char *what)
{
	pthread_mutex_lock(c->out_lock);
	fprintf(stderr, "minivmm: %s\n", what);
	fflush(stderr);
	pthread_mutex_unlock(c->out_lock);
}

struct term_state {
	int fd;
	bool raw;		/* changed: `saved` puts it back */
	bool handed_over;	/* the input thread restores it now (its filter allows it) */
	struct termios saved;
};

static void term_restore(struct term_state *t)
{
	if (!t || !t->raw)
		return;
	(void)tcsetattr(t->fd, TCSANOW, &t->saved);
	t->raw = false;
}

void console_input_restore(struct console_input *in)
{
	term_restore(in->term);
}

bool console_input_raw(const struct console_input *in)
{
	return in->term && in->term->raw;
}

/* Before the thread has it: from then on its filter, not main's, allows TCSETS. */
static void restore_at_exit(int status, void *arg)
{
	struct term_state *t = arg;

	(void)status;
	if (!t->handed_over)
		term_restore(t);
}

/* Raw input, as cfmakeraw() minus OPOST: the guest's "\r\n" stays one newline on screen. */
static int make_raw(struct console_input *in)
{
	struct term_state *ts = calloc(1, sizeof(*ts));
	struct termios t;

	if (!ts || tcgetattr(in->fd, &ts->saved)) {
		free(ts);
		return -1;
	}
	ts->fd = in->fd;
	t = ts->saved;
	t.c_iflag &= ~(tcflag_t)(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR | ICRNL | IXON);
	t.c_lflag &= ~(tcflag_t)(ECHO | ECHONL | ICANON | ISIG | IEXTEN);
	t.c_cflag &= ~(tcflag_t)(CSIZE | PARENB);
	t.c_cflag |= CS8;
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	if (on_exit(restore_at_exit, ts)) {
		free(ts);
		return -1;
	}
	/* From here `ts` belongs to the exit handlers' list: never freed. */
	in->term = ts;
	ts->raw = !tcsetattr(in->fd, TCSANOW, &t);
	return ts->raw ? 0 : -1;
}

void console_input_setup(struct linux_console *c)
{
	struct console_input *in = &c->in;

	in->fd = STDIN_FILENO;
	if (!in->on)
		return;
	in->tty = isatty(in->fd);
	/* A terminal that refuses raw mode still feeds the guest, a line at a time. */
	if (in->tty)
		(void)make_raw(in);
}

/* Hand received bytes to COM1 (as many as fit, in order); returns how many it took. */
static size_t console_receive(struct linux_console *c, const uint8_t *buf, size_t len)
{
	size_t n = 0;
	bool edge;

	pthread_mutex_lock(&c->lock);
	while (n < len && uart_rx_room(&c->uart))
		uart_receive(&c->uart, buf[n++]);
	edge = uart_irq_edge(&c->uart);
	pthread_mutex_unlock(&c->lock);
	if (edge)
		vm_irq_edge(c->vm, LINUX_COM1_IRQ);
	return n;
}

/* Wait (bounded) until COM1's receiver has room or a stop; returns the room seen. */
static unsigned int wait_room(struct linux_console *c)
{
	struct timespec ts = { 0, 100 * 1000 * 1000 };	/* bounded: a stop is seen anyway */
	unsigned int seq, room;

	atomic_store(&c->rx_waiting, true);
	seq = atomic_load(&c->rx_seq);
	pthread_mutex_lock(&c->lock);
	room = uart_rx_room(&c->uart);
	pthread_mutex_unlock(&c->lock);
	if (!room && !atomic_load(&c->in.stop))
		syscall(SYS_futex, &c->rx_seq, FUTEX_WAIT_PRIVATE, seq, &ts, NULL, 0);
	atomic_store(&c->rx_waiting, false);
	return room;
}

static void push_pending(struct linux_console *c, struct console_input *in)
{
	size_t n;

	if (!in->pending_len)
		return;
	n = console_receive(c, in->pending, in->pending_len);
	memmove(in->pending, in->pending + n, in->pending_len - n);
	in->pending_len -= n;
}

static void append(struct console_input *in, const uint8_t *b, size_t n)
{
	size_t space = sizeof(in->pending) - in->pending_len;
	size_t take = n < space ? n : space;

	memcpy(in->pending + in->pending_len, b, take);
	in->pending_len += take;
	in->dropped += n - take;
}

/* The escape keys; true when the user quit. */
static bool filter_tty(struct linux_console *c, struct console_input *in, const uint8_t *buf,
		       size_t n)
{
	uint8_t out[512];
	size_t olen;
	enum escape_action act = escape_filter(&in->esc, buf, n, out, &olen);

	append(in, out, olen);
	if (act == ESCAPE_HELP_ASKED)
		input_say(c, ESCAPE_HELP);
	if (act != ESCAPE_QUIT)
		return false;
	input_say(c, "Ctrl-A x: quitting (exit 130)");
	vm_request_stop(c->vm, EXITSTATUS_SIGNAL(SIGINT));
	return true;
}

enum read_result { READ_MORE, READ_EOF, READ_QUIT };

/* One read from stdin: EOF (or an error) ends the feeding, Ctrl-A x the run. */
static enum read_result read_some(struct linux_console *c, struct console_input *in)
{
	uint8_t buf[512];
	ssize_t n = read(in->fd, buf, sizeof(buf));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return READ_MORE;
	if (n <= 0)
		return READ_EOF;
	if (in->tty)
		return filter_tty(c, in, buf, (size_t)n) ? READ_QUIT : READ_MORE;
	append(in, buf, (size_t)n);	/* pending was empty: 512 always fit */
	return READ_MORE;
}

/* Wait for stdin (unless `eof`) or the stop signal; true if stdin is readable. */
static bool wait_input(struct console_input *in, bool eof, int timeout_ms)
{
	struct pollfd p = { .fd = eof ? -1 : in->fd, .events = POLLIN };
	struct timespec ts = { timeout_ms / 1000, (timeout_ms % 1000) * 1000000L };
	sigset_t mask;

	pthread_sigmask(SIG_BLOCK, NULL, &mask);
	sigdelset(&mask, STOP_SIGNAL);
	if (ppoll(&p, 1, timeout_ms < 0 ? NULL : &ts, &mask) <= 0)
		return false;
	return p.revents & (POLLIN | POLLHUP | POLLERR);
}

static void input_loop(struct linux_console *c, struct console_input *in)
{
	bool eof = false;

	while (!atomic_load(&in->stop)) {
		push_pending(c, in);
		if (eof && !in->pending_len)
			return;		/* all of a pipe or file delivered */
		if (!in->tty && in->pending_len) {
			wait_room(c);	/* the guest reads, or a stop */
			continue;
		}
		if (eof && in->tty) {
			wait_input(in, true, TTY_RETRY_MS);
			continue;
		}
		if (!wait_input(in, eof, in->pending_len ? TTY_RETRY_MS : -1))
			continue;
		switch (read_some(c, in)) {
		case READ_QUIT:
			push_pending(c, in);	/* what came before Ctrl-A x still arrives */
			return;
		case READ_EOF:
			eof = true;
			break;
		case READ_MORE:
			break;
		}
	}
}

static void *input_main(void *arg)
{
	struct linux_console *c = arg;
	char err[200];

	if (sandbox_input(c->vm, c->in.fd, console_input_raw(&c->in), err, sizeof(err))) {
		input_say(c, err);
		vm_request_stop(c->vm, EXITSTATUS_HOST_ERROR);
	} else {
		input_loop(c, &c->in);
	}
	console_input_restore(&c->in);	/* its filter allows TCSETS while raw */
	return NULL;
}

static void on_stop_signal(int sig)
{
	(void)sig;	/* only to end ppoll(): the stop flag says the rest */
}

int console_input_start(struct linux_console *c, char *err, size_t errlen)
{
	struct console_input *in = &c->in;
	struct sigaction sa;
	int r;

	if (!in->on)
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	sigfillset(&sa.sa_mask);
	/* Main takes STOP_SIGNAL with sigwaitinfo() and the vCPUs block it: a handler changes neither. */
	if (sigaction(STOP_SIGNAL, &sa, NULL))
		r = errno;
	else
		r = pthread_create(&in->thread, NULL, input_main, c);
	if (r) {
		console_input_restore(in);	/* still unfiltered here */
		snprintf(err, errlen, "cannot start the console input thread: %s", strerror(r));
		return -1;
	}
	in->started = true;
	if (in->term)
		in->term->handed_over = true;
	return 0;
}

void console_input_stop(struct linux_console *c)
{
	struct console_input *in = &c->in;
	struct timespec limit;
	char msg[160];

	atomic_store(&in->stop, true);
	if (in->started) {
		pthread_kill(in->thread, STOP_SIGNAL);
		atomic_fetch_add(&c->rx_seq, 1);
		syscall(SYS_futex, &c->rx_seq, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL, NULL, 0);
		clock_gettime(CLOCK_REALTIME, &limit);
		limit.tv_sec += STOP_GRACE_S;
		if (pthread_timedjoin_np(in->thread, NULL, &limit))
			input_say(c, "console input thread did not stop within the grace period");
		else
			in->started = false;
	}
	if (in->dropped) {
		snprintf(msg, sizeof(msg), "console input: %llu typed byte(s) dropped while the "
			 "guest read nothing", (unsigned long long)in->dropped);
		input_say(c, msg);
		in->dropped = 0;
	}
}
