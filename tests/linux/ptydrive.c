// SPDX-License-Identifier: MIT
/*
 * ptydrive - run a command on a new pseudo-terminal and type at it, as a
 * user at a real terminal would: the linux area's check that a Linux
 * guest's shell works through minivmm's console when stdin is a terminal,
 * and that minivmm puts the terminal back however it ends.
 *
 * Usage: ptydrive TIMEOUT_S SCRIPT -- COMMAND [ARGS...]
 * SCRIPT is a list of steps separated by '|': "?TEXT" waits until TEXT has
 * appeared in the output (after what earlier waits consumed), "!TEXT"
 * types TEXT with "\r" appended (a line, as Enter ends it), "=TEXT" types
 * TEXT alone, "^X" types Ctrl-X (one byte).
 * Everything COMMAND writes goes to ptydrive's stdout as it arrives. Exit:
 * COMMAND's status, or 124 on the timeout, 125 when a step cannot be
 * taken, 126 when the terminal's modes differ from before the run.
 */
#include <errno.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define OUT_MAX		(4u << 20)

struct drive {
	int master;
	pid_t child;
	char *out;		/* all the output so far, NUL-terminated */
	size_t len, seen;	/* seen: where the next wait starts looking */
	double deadline;
	int status;		/* the child's, once reaped; -1 before */
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Read what is there within `ms`, and reap the child once it has ended. */
static void pump(struct drive *d, int ms)
{
	struct pollfd p = { .fd = d->master, .events = POLLIN };
	char buf[4096];
	ssize_t n;

	if (poll(&p, 1, ms) > 0 && (n = read(d->master, buf, sizeof(buf))) > 0) {
		if (fwrite(buf, 1, (size_t)n, stdout) != (size_t)n)
			exit(125);
		fflush(stdout);
		if (d->len + (size_t)n < OUT_MAX) {
			memcpy(d->out + d->len, buf, (size_t)n);
			d->len += (size_t)n;
			d->out[d->len] = 0;
		}
	}
	/* ptydrive holds the slave open too, so the master never hangs up: ask. */
	if (d->status < 0 && waitpid(d->child, &d->status, WNOHANG) == 0)
		d->status = -1;
}

/* After the child ended: what it wrote last is still in the terminal. */
static void drain(struct drive *d)
{
	size_t len;

	do {
		len = d->len;
		pump(d, 100);
	} while (d->len != len);
}

static bool timed_out(const struct drive *d)
{
	return now() > d->deadline;
}

static int wait_for(struct drive *d, const char *text)
{
	char *hit;

	while (!(hit = memmem(d->out + d->seen, d->len - d->seen, text, strlen(text)))) {
		if (d->status >= 0)
			drain(d);
		if ((hit = memmem(d->out + d->seen, d->len - d->seen, text, strlen(text))))
			break;
		if (timed_out(d) || d->status >= 0) {
			fprintf(stderr, "\nptydrive: never saw '%s'%s\n", text,
				d->status >= 0 ? " (the command ended)" : " (timeout)");
			return -1;
		}
		pump(d, 200);
	}
	d->seen = (size_t)(hit - d->out) + strlen(text);
	return 0;
}

static int type(struct drive *d, const char *s, size_t n)
{
	if (write(d->master, s, n) != (ssize_t)n) {
		fprintf(stderr, "ptydrive: typing: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

static int step(struct drive *d, const char *s)
{
	char ctl;

	switch (s[0]) {
	case '?':
		return wait_for(d, s + 1);
	case '!':
		return type(d, s + 1, strlen(s + 1)) || type(d, "\r", 1) ? -1 : 0;
	case '=':
		return type(d, s + 1, strlen(s + 1));
	case '^':
		ctl = (char)(s[1] & 0x1f);
		return s[1] && !s[2] ? type(d, &ctl, 1) : -1;
	}
	fprintf(stderr, "ptydrive: step '%s' is none of ?TEXT, !TEXT, =TEXT, ^X\n", s);
	return -1;
}

static int run_script(struct drive *d, char *script)
{
	for (char *s = strtok(script, "|"); s; s = strtok(NULL, "|"))
		if (step(d, s))
			return -1;
	return 0;
}

static bool same_modes(const struct termios *a, const struct termios *b)
{
	return a->c_iflag == b->c_iflag && a->c_oflag == b->c_oflag &&
	       a->c_cflag == b->c_cflag && a->c_lflag == b->c_lflag &&
	       !memcmp(a->c_cc, b->c_cc, sizeof(a->c_cc));
}

static int finish(struct drive *d, int slave, const struct termios *before)
{
	struct termios after;

	while (d->status < 0 && !timed_out(d))
		pump(d, 200);
	drain(d);
	if (d->status < 0) {
		fprintf(stderr, "\nptydrive: the command still runs at the timeout: killed\n");
		kill(d->child, SIGKILL);
		waitpid(d->child, NULL, 0);
		return 124;
	}
	if (tcgetattr(slave, &after) || !same_modes(before, &after)) {
		fprintf(stderr, "\nptydrive: the terminal's modes differ from before the run\n");
		return 126;
	}
	return WIFEXITED(d->status) ? WEXITSTATUS(d->status) : 128 + WTERMSIG(d->status);
}

static pid_t spawn(int slave, char **argv)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	setsid();
	if (ioctl(slave, TIOCSCTTY, 0) < 0 || dup2(slave, 0) < 0 || dup2(slave, 1) < 0 ||
	    dup2(slave, 2) < 0)
		_exit(125);
	execvp(argv[0], argv);
	fprintf(stderr, "ptydrive: %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

int main(int argc, char **argv)
{
	struct drive d = { .status = -1 };
	struct termios before;
	int slave, ret;

	if (argc < 5 || strcmp(argv[3], "--")) {
		fprintf(stderr, "usage: ptydrive TIMEOUT_S SCRIPT -- COMMAND [ARGS...]\n");
		return 2;
	}
	d.out = calloc(1, OUT_MAX + 1);
	if (!d.out || openpty(&d.master, &slave, NULL, NULL, NULL) || tcgetattr(slave, &before)) {
		perror("ptydrive: openpty");
		return 125;
	}
	d.deadline = now() + atof(argv[1]);
	d.child = spawn(slave, argv + 4);
	if (d.child < 0) {
		perror("ptydrive: fork");
		return 125;
	}
	ret = run_script(&d, argv[2]) ? 125 : 0;
	if (ret) {
		kill(d.child, SIGKILL);
		waitpid(d.child, NULL, 0);
		return ret;
	}
	return finish(&d, slave, &before);
}
