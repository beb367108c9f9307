// SPDX-License-Identifier: MIT
/*
 * The vCPU filter's own cost on the call every exit makes: ioctl(vcpu_fd,
 * KVM_RUN), here on /dev/null (the kernel answers ENOTTY at once, so the
 * system call around the filter is as short as it gets). Host-measured,
 * not by a guest: children alternate, one with the vCPU filter and one
 * without, ROUNDS pairs, the order flipped every round; each prints its ns
 * per call. Used by scripts/bench-sandbox.py; built only for make bench.
 * Usage: sandbox-cost [ROUNDS [CALLS]]
 */
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vmm/sandbox.h"

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* In the child: enter the filter if asked, time the calls, print ns per call. */
static void child(int fd, int sandboxed, long calls)
{
	struct sandbox_fds fds = { .vcpu_fd = fd, .vm_fd = -1, .out_fd = -1, .hv = true };
	char err[160], line[64];
	double t0;
	int n;

	if (sandboxed && (sandbox_prepare(err, sizeof(err)) ||
			  sandbox_enter_vcpu(&fds, err, sizeof(err)))) {
		fprintf(stderr, "sandbox-cost: %s\n", err);
		_exit(2);
	}
	t0 = now_ns();
	for (long i = 0; i < calls; i++)
		if (ioctl(fd, KVM_RUN, 0) != -1)
			_exit(3);
	n = snprintf(line, sizeof(line), "%d %.2f\n", sandboxed, (now_ns() - t0) / (double)calls);
	if (write(STDOUT_FILENO, line, (size_t)n) != n)
		_exit(4);
	_exit(0);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 20;
	long calls = argc > 2 ? atol(argv[2]) : 200000;
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (fd < 0 || rounds < 1 || calls < 1) {
		fprintf(stderr, "usage: sandbox-cost [ROUNDS [CALLS]] (needs /dev/null)\n");
		return 2;
	}
	fflush(stdout);
	for (int r = 0; r < rounds; r++) {
		for (int k = 0; k < 2; k++) {
			int sandboxed = (r + k) % 2, status;
			pid_t pid = fork();

			if (pid < 0)
				return 2;
			if (pid == 0)
				child(fd, sandboxed, calls);
			if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
			    WEXITSTATUS(status)) {
				fprintf(stderr, "sandbox-cost: child failed\n");
				return 1;
			}
		}
	}
	return 0;
}
