// SPDX-License-Identifier: MIT
/*
 * The seccomp filters without KVM: a forked child enters a filter built
 * around ordinary fds (/dev/null stands in for the vCPU) and tries one
 * call; the parent checks it lived, or died with exit 159 and the line.
 */
#include <check.h>
#include <fcntl.h>
#include <poll.h>
#include <linux/audit.h>
#include <linux/kvm.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "tests/unit/suites.h"
#include "vmm/sandbox.h"

enum filter { VCPU_FILTER, MAIN_FILTER, INPUT_FILTER };

enum attempt {
	OWN_KVM_RUN,		/* ioctl(vcpu_fd, KVM_RUN): allowed (ENOTTY on /dev/null) */
	OTHER_FD_KVM_RUN,	/* ioctl(another fd, KVM_RUN) */
	OWN_CREATE_VCPU,	/* an ioctl minivmm never issues on a vCPU */
	VM_SIGNAL_MSI,		/* KVM_SIGNAL_MSI on the VM fd: allowed with hv only */
	OPENAT,
	SOCKET,
	WRITE_STDOUT,
	WRITE_OUT_FD,
	WRITE_OTHER_FD,
	MMAP_EXEC,
	MMAP_DATA,
	KILL_PARENT,
	MALLOC_GROWTH,		/* realloc up to megabytes, as the result store does */
	VM_IRQ_LINE,		/* KVM_IRQ_LINE on the VM fd: Linux's COM1 (irq_line) */
	READ_IN_FD,		/* the input thread's read of stdin */
	READ_OTHER_FD,
	POLL,			/* ppoll, as the input thread waits */
	TCSETS_STDIN,		/* the input thread puts the terminal back */
};

struct child_args {
	enum filter filter;
	enum attempt attempt;
	struct sandbox_fds fds;
	int other_fd;
	pid_t parent;		/* taken before the filter: getppid is not in it */
	struct termios tio;	/* stdin's, read before the filter (TCSETS writes it back) */
};

/*
 * The call under test: surviving it is what counts, plus for the writes and
 * the mmap that they worked (exit 94 if not). No ck_assert in here: Check
 * records passed assertions through a pipe the filter rightly refuses.
 */
static void attempt(const struct child_args *a)
{
	void *p;

	switch (a->attempt) {
	case OWN_KVM_RUN:
		ioctl(a->fds.vcpu_fd, KVM_RUN, 0);
		break;
	case OTHER_FD_KVM_RUN:
		ioctl(a->other_fd, KVM_RUN, 0);
		break;
	case OWN_CREATE_VCPU:
		ioctl(a->fds.vcpu_fd, KVM_CREATE_VCPU, 0);
		break;
	case VM_SIGNAL_MSI:
		ioctl(a->fds.vm_fd, KVM_SIGNAL_MSI, NULL);
		break;
	case OPENAT:
		syscall(SYS_openat, AT_FDCWD, "/etc/passwd", O_RDONLY);
		break;
	case SOCKET:
		syscall(SYS_socket, AF_INET, SOCK_STREAM, 0);
		break;
	case WRITE_STDOUT:
		if (write(STDOUT_FILENO, "", 0) != 0)
			_exit(94);
		break;
	case WRITE_OUT_FD:
		if (write(a->fds.out_fd, "x", 1) != 1)
			_exit(94);
		break;
	case WRITE_OTHER_FD:
		if (write(a->other_fd, "x", 1) != 1)
			_exit(94);
		break;
	case MMAP_EXEC:
		mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		break;
	case MMAP_DATA:
		p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			_exit(94);
		break;
	case MALLOC_GROWTH:
		p = NULL;
		for (size_t n = 1; n <= 100000; n *= 2) {
			void *q = realloc(p, n * 256);

			if (!q)
				_exit(94);
			memset(q, 1, n * 256);
			p = q;
		}
		free(p);
		break;
	case KILL_PARENT:
		syscall(SYS_tgkill, a->parent, a->parent, 0);
		break;
	case VM_IRQ_LINE:
		ioctl(a->fds.vm_fd, KVM_IRQ_LINE, NULL);
		break;
	case READ_IN_FD:
		if (read(a->fds.in_fd, &p, 1) != 0)	/* /dev/null: EOF */
			_exit(94);
		break;
	case READ_OTHER_FD:
		if (read(a->other_fd, &p, 1) < 0)
			_exit(94);
		break;
	case POLL: {
		struct pollfd pfd = { .fd = a->fds.in_fd, .events = POLLIN };
		struct timespec zero = { 0, 0 };

		if (ppoll(&pfd, 1, &zero, NULL) != 1)
			_exit(94);
		break;
	}
	case TCSETS_STDIN:
		/* Its own settings back (ENOTTY on /dev/null or a non-terminal): nothing changes. */
		ioctl(a->fds.in_fd >= 0 ? a->fds.in_fd : STDIN_FILENO, TCSETS, &a->tio);
		break;
	}
}

static void *enter_and_attempt(void *arg)
{
	const struct child_args *a = arg;
	char err[160];
	int r = a->filter == VCPU_FILTER  ? sandbox_enter_vcpu(&a->fds, err, sizeof(err)) :
		a->filter == INPUT_FILTER ? sandbox_enter_input(&a->fds, err, sizeof(err)) :
					    sandbox_enter_main(&a->fds, err, sizeof(err));

	if (r)
		_exit(90);
	attempt(a);
	/* Still here: the call was allowed. exit_group, as the handler's _exit. */
	_exit(0);
}

/*
 * Fork; the child enters the filter (in a second thread for the vCPU
 * filter, as minivmm does) and attempts the call. Returns the child's exit
 * status and its stderr in `msg`.
 */
static int run_child(struct child_args *a, char *msg, size_t msglen)
{
	int pipefd[2], status;
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	ck_assert_int_eq(pipe(pipefd), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char err[160];
		pthread_t t;

		dup2(pipefd[1], STDERR_FILENO);
		close(pipefd[0]);
		if (sandbox_prepare(err, sizeof(err)))
			_exit(91);
		if (a->filter == MAIN_FILTER)
			enter_and_attempt(a);
		if (pthread_create(&t, NULL, enter_and_attempt, a))
			_exit(92);
		pthread_join(t, NULL);
		_exit(93);
	}
	close(pipefd[1]);
	while (got + 1 < msglen && (n = read(pipefd[0], msg + got, msglen - 1 - got)) > 0)
		got += (size_t)n;
	msg[got] = '\0';
	close(pipefd[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status), "child killed by signal %d", WTERMSIG(status));
	return WEXITSTATUS(status);
}

/* Linux guests' additions: COM1's IRQ line, the input thread's fds, the main thread's. */
struct linux_opts {
	bool irq_line;
	bool term;		/* input thread: TCSETS on its stdin */
};

static struct child_args args_linux(enum filter f, enum attempt what, bool hv,
				    struct linux_opts lx)
{
	int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	int other_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	int vm_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	struct child_args a;

	ck_assert(null_fd >= 0 && other_fd >= 0 && vm_fd >= 0);
	a = (struct child_args){
		.filter = f,
		.attempt = what,
		.fds = {
			.vcpu_fd = f == VCPU_FILTER ? null_fd : -1,
			.vm_fd = f != MAIN_FILTER ? vm_fd : -1,
			.out_fd = f == MAIN_FILTER ? null_fd : -1,
			.hv = hv,
			.irq_line = lx.irq_line,
			.in_fd = f == INPUT_FILTER ? null_fd : -1,
			.term = lx.term,
		},
		.other_fd = other_fd,
		.parent = getpid(),
	};
	(void)tcgetattr(STDIN_FILENO, &a.tio);
	return a;
}


static void expect_allowed_lx(enum filter f, enum attempt what, bool hv, struct linux_opts lx)
{
	struct child_args a = args_linux(f, what, hv, lx);
	char msg[512];

	int status = run_child(&a, msg, sizeof(msg));

	ck_assert_str_eq(msg, "");
	ck_assert_int_eq(status, 0);
}

static void expect_denied_lx(enum filter f, enum attempt what, bool hv, struct linux_opts lx,
			     const char *line)
{
	struct child_args a = args_linux(f, what, hv, lx);
	char msg[512];

	ck_assert_int_eq(run_child(&a, msg, sizeof(msg)), SANDBOX_EXIT_STATUS);
	ck_assert_str_eq(msg, line);
}

static void expect_allowed(enum filter f, enum attempt what, bool hv)
{
	expect_allowed_lx(f, what, hv, (struct linux_opts){ 0 });
}

static void expect_denied(enum filter f, enum attempt what, bool hv, const char *line)
{
	expect_denied_lx(f, what, hv, (struct linux_opts){ 0 }, line);
}

#define DENIED(call, nr, thread) \
	"minivmm: sandbox: forbidden system call " call " (" nr ") in " thread \
	"; exiting 159 (--no-sandbox turns the filters off)\n"

START_TEST(test_syscall_names)
{
	ck_assert_str_eq(sandbox_syscall_name(SYS_openat), "openat");
	ck_assert_str_eq(sandbox_syscall_name(SYS_socket), "socket");
	ck_assert_str_eq(sandbox_syscall_name(SYS_ioctl), "ioctl");
	ck_assert_str_eq(sandbox_syscall_name(0), "read");
	ck_assert_ptr_null(sandbox_syscall_name(-1));
	ck_assert_ptr_null(sandbox_syscall_name(100000));
}
END_TEST

START_TEST(test_format_denial)
{
	char buf[200], tiny[12];

	ck_assert_uint_eq(sandbox_format_denial(buf, sizeof(buf), SYS_socket, AUDIT_ARCH_X86_64, false),
			  strlen(buf));
	ck_assert_str_eq(buf, DENIED("socket", "41", "a vCPU thread"));
	sandbox_format_denial(buf, sizeof(buf), SYS_openat, AUDIT_ARCH_X86_64, true);
	ck_assert_str_eq(buf, DENIED("openat", "257", "the main thread"));
	/* A 32-bit call: the number is not an x86-64 one, so no name. */
	sandbox_format_denial(buf, sizeof(buf), 5, AUDIT_ARCH_I386, false);
	ck_assert_str_eq(buf, "minivmm: sandbox: forbidden system call number (5, arch 0x40000003) "
			 "in a vCPU thread; exiting 159 (--no-sandbox turns the filters off)\n");
	sandbox_format_denial(buf, sizeof(buf), 99999, AUDIT_ARCH_X86_64, true);
	ck_assert_str_eq(buf, DENIED("number", "99999", "the main thread"));
	/* Cut, never overrun, always terminated. */
	ck_assert_uint_eq(sandbox_format_denial(tiny, sizeof(tiny), SYS_socket, AUDIT_ARCH_X86_64,
						false), sizeof(tiny) - 1);
	ck_assert_str_eq(tiny, "minivmm: sa");
}
END_TEST

START_TEST(test_vcpu_filter_allows)
{
	expect_allowed(VCPU_FILTER, OWN_KVM_RUN, false);
	expect_allowed(VCPU_FILTER, WRITE_STDOUT, false);
	expect_allowed(VCPU_FILTER, MMAP_DATA, false);
	expect_allowed(VCPU_FILTER, MALLOC_GROWTH, false);
	expect_allowed(VCPU_FILTER, VM_SIGNAL_MSI, true);
}
END_TEST

START_TEST(test_vcpu_filter_denies)
{
	expect_denied(VCPU_FILTER, OPENAT, false, DENIED("openat", "257", "a vCPU thread"));
	expect_denied(VCPU_FILTER, SOCKET, false, DENIED("socket", "41", "a vCPU thread"));
	/* Only its own vCPU, only the requests minivmm issues. */
	expect_denied(VCPU_FILTER, OTHER_FD_KVM_RUN, false, DENIED("ioctl", "16", "a vCPU thread"));
	expect_denied(VCPU_FILTER, OWN_CREATE_VCPU, false, DENIED("ioctl", "16", "a vCPU thread"));
	/* MSIs on the VM fd only serve Hyper-V IPIs. */
	expect_denied(VCPU_FILTER, VM_SIGNAL_MSI, false, DENIED("ioctl", "16", "a vCPU thread"));
	expect_denied(VCPU_FILTER, WRITE_OTHER_FD, false, DENIED("write", "1", "a vCPU thread"));
	expect_denied(VCPU_FILTER, MMAP_EXEC, false, DENIED("mmap", "9", "a vCPU thread"));
	expect_denied(VCPU_FILTER, KILL_PARENT, false, DENIED("tgkill", "234", "a vCPU thread"));
}
END_TEST

/* The vCPU filter is built once and patched per thread: only fd constants are open. */
START_TEST(test_vcpu_filter_template)
{
	struct sandbox_fds fds = { .vcpu_fd = -1, .vm_fd = 5, .out_fd = -1 };
	struct sandbox_vcpu_prog p;
	char err[160];

	for (int hv = 0; hv <= 1; hv++) {
		fds.hv = hv;
		ck_assert_int_eq(sandbox_build_vcpu(&fds, &p, err, sizeof(err)), 0);
		ck_assert(p.ready);
		/* One per vCPU ioctl rule at most, and at least one. */
		ck_assert_uint_ge(p.nr_slots, 1);
		ck_assert_uint_le(p.nr_slots, hv ? 8 : 7);
		for (unsigned int i = 0; i < p.nr_slots; i++) {
			ck_assert_uint_lt(p.slot[i], p.len);
			ck_assert_uint_eq(p.insns[p.slot[i]].code, BPF_JMP | BPF_JEQ | BPF_K);
			ck_assert_uint_eq(p.insns[p.slot[i]].k, SANDBOX_FD_PLACEHOLDER_A);
		}
		/* No fd to write in: refused before anything is loaded. */
		ck_assert_int_eq(sandbox_load_vcpu(&p, -1, err, sizeof(err)), -1);
		ck_assert_str_eq(err, "sandbox: no vCPU filter to load");
		sandbox_free_vcpu(&p);
		ck_assert(!p.ready && !p.insns);
	}
}
END_TEST

START_TEST(test_main_filter)
{
	expect_allowed(MAIN_FILTER, WRITE_OUT_FD, false);
	expect_allowed(MAIN_FILTER, WRITE_STDOUT, false);
	expect_allowed(MAIN_FILTER, MALLOC_GROWTH, false);
	expect_denied(MAIN_FILTER, WRITE_OTHER_FD, false, DENIED("write", "1", "the main thread"));
	expect_denied(MAIN_FILTER, SOCKET, false, DENIED("socket", "41", "the main thread"));
	/* The main thread has no business with KVM any more. */
	expect_denied(MAIN_FILTER, OTHER_FD_KVM_RUN, false, DENIED("ioctl", "16", "the main thread"));
	expect_denied(MAIN_FILTER, MMAP_EXEC, false, DENIED("mmap", "9", "the main thread"));
	/* Also in the sanitizer build, whose LeakSanitizer tracer may use open(2), not openat. */
	expect_denied(MAIN_FILTER, OPENAT, false, DENIED("openat", "257", "the main thread"));
}
END_TEST

#define LX_IRQ	((struct linux_opts){ .irq_line = true })

/* Linux guests: COM1's IRQ 4 from the vCPU threads, and only with irq_line. */
START_TEST(test_vcpu_filter_irq_line)
{
	expect_allowed_lx(VCPU_FILTER, VM_IRQ_LINE, false, LX_IRQ);
	expect_allowed_lx(VCPU_FILTER, VM_IRQ_LINE, true, LX_IRQ);
	expect_denied(VCPU_FILTER, VM_IRQ_LINE, false, DENIED("ioctl", "16", "a vCPU thread"));
	expect_denied(VCPU_FILTER, VM_IRQ_LINE, true, DENIED("ioctl", "16", "a vCPU thread"));
	/* irq_line does not open the VM fd to anything else. */
	expect_denied_lx(VCPU_FILTER, VM_SIGNAL_MSI, false, LX_IRQ,
			 DENIED("ioctl", "16", "a vCPU thread"));
}
END_TEST

/* The console input thread: stdin, poll, IRQ 4, its stderr lines; nothing more. */
START_TEST(test_input_filter)
{
	expect_allowed_lx(INPUT_FILTER, READ_IN_FD, false, LX_IRQ);
	expect_allowed_lx(INPUT_FILTER, POLL, false, LX_IRQ);
	expect_allowed_lx(INPUT_FILTER, VM_IRQ_LINE, false, LX_IRQ);
	expect_allowed_lx(INPUT_FILTER, WRITE_STDOUT, false, LX_IRQ);
	expect_allowed_lx(INPUT_FILTER, MALLOC_GROWTH, false, LX_IRQ);
	/* Named "a vCPU thread": the handler tells only the main thread apart. */
	expect_denied_lx(INPUT_FILTER, READ_OTHER_FD, false, LX_IRQ,
			 DENIED("read", "0", "a vCPU thread"));
	expect_denied_lx(INPUT_FILTER, WRITE_OTHER_FD, false, LX_IRQ,
			 DENIED("write", "1", "a vCPU thread"));
	expect_denied_lx(INPUT_FILTER, VM_SIGNAL_MSI, false, LX_IRQ,
			 DENIED("ioctl", "16", "a vCPU thread"));
	expect_denied_lx(INPUT_FILTER, TCSETS_STDIN, false, LX_IRQ,
			 DENIED("ioctl", "16", "a vCPU thread"));
	/* A raw terminal: it puts it back itself as it ends. */
	expect_allowed_lx(INPUT_FILTER, TCSETS_STDIN, false,
			  (struct linux_opts){ .irq_line = true, .term = true });
	expect_denied_lx(INPUT_FILTER, OPENAT, false, LX_IRQ,
			 DENIED("openat", "257", "a vCPU thread"));
	expect_denied_lx(INPUT_FILTER, KILL_PARENT, false, LX_IRQ,
			 DENIED("tgkill", "234", "a vCPU thread"));
}
END_TEST

/* The main thread needs nothing new for Linux guests: the input thread restores the terminal. */
START_TEST(test_main_filter_linux)
{
	expect_denied(MAIN_FILTER, TCSETS_STDIN, false, DENIED("ioctl", "16", "the main thread"));
	expect_denied(MAIN_FILTER, VM_IRQ_LINE, false, DENIED("ioctl", "16", "the main thread"));
}
END_TEST

static Suite *sandbox_suite(void)
{
	Suite *s = suite_create("sandbox");
	TCase *tc = tcase_create("filters");

	tcase_add_test(tc, test_syscall_names);
	tcase_add_test(tc, test_format_denial);
	tcase_add_test(tc, test_vcpu_filter_allows);
	tcase_add_test(tc, test_vcpu_filter_denies);
	tcase_add_test(tc, test_vcpu_filter_template);
	tcase_add_test(tc, test_main_filter);
	tcase_add_test(tc, test_vcpu_filter_irq_line);
	tcase_add_test(tc, test_input_filter);
	tcase_add_test(tc, test_main_filter_linux);
	suite_add_tcase(s, tc);
	return s;
}
UNIT_SUITE(sandbox_suite);
