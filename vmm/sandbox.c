// SPDX-License-Identifier: MIT
/*
 * Per-thread seccomp filters. After setup a vCPU thread only runs its own
 * vCPU (KVM_RUN and the few register ioctls the exit handlers use), writes
 * its console lines and messages, wakes and kicks the other threads, reads
 * the clocks and grows its malloc arena; the main thread only waits for a
 * signal or the watchdog, joins, reports and frees. The lists below are
 * what `strace -f` showed each thread kind doing after it entered its
 * filter, over every suite (scripts/sandbox-trace.sh repeats that
 * measurement), not a guess.
 *
 * A call outside the list traps: the SIGSYS handler writes one line (the
 * call's name and number, which thread kind) with write(2) and ends the
 * process with _exit(SANDBOX_EXIT_STATUS). Both are in every list, so the
 * handler itself never traps.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/futex.h>
#include <linux/kvm.h>
#include <linux/seccomp.h>
#include <malloc.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "vmm/errmsg.h"
#include "vmm/sandbox.h"
#include "vmm/vcpu.h"
#include "vmm/vcpu_req.h"
#include "vmm/vm.h"

#ifdef MVM_SANDBOX_SELFTEST
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#endif

/* Generated from <sys/syscall.h> at build time (Makefile): [nr] = "name". */
static const char *const syscall_names[] = {
#include "syscall-names.h"
};

const char *sandbox_syscall_name(long nr)
{
	if (nr < 0 || (unsigned long)nr >= sizeof(syscall_names) / sizeof(syscall_names[0]))
		return NULL;
	return syscall_names[nr];
}

/* Append s to buf[*at..len-1], always leaving room for the terminating NUL. */
static void put_str(char *buf, size_t len, size_t *at, const char *s)
{
	while (*s && *at + 1 < len)
		buf[(*at)++] = *s++;
	if (len)
		buf[*at < len ? *at : len - 1] = '\0';
}

static void put_num(char *buf, size_t len, size_t *at, unsigned long v, unsigned int base)
{
	char digits[24];
	unsigned int n = 0;

	do {
		digits[n++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v && n < sizeof(digits) - 1);
	while (n && *at + 1 < len)
		buf[(*at)++] = digits[--n];
	if (len)
		buf[*at < len ? *at : len - 1] = '\0';
}

size_t sandbox_format_denial(char *buf, size_t len, long nr, unsigned int arch, bool main_thread)
{
	const char *name = arch == AUDIT_ARCH_X86_64 ? sandbox_syscall_name(nr) : NULL;
	size_t at = 0;

	put_str(buf, len, &at, "minivmm: sandbox: forbidden system call ");
	put_str(buf, len, &at, name ? name : "number");
	put_str(buf, len, &at, " (");
	put_num(buf, len, &at, (unsigned long)nr, 10);
	if (arch != AUDIT_ARCH_X86_64) {
		put_str(buf, len, &at, ", arch 0x");
		put_num(buf, len, &at, arch, 16);
	}
	put_str(buf, len, &at, main_thread ? ") in the main thread" : ") in a vCPU thread");
	_Static_assert(SANDBOX_EXIT_STATUS == 159, "the message names the status");
	put_str(buf, len, &at, "; exiting 159 (--no-sandbox turns the filters off)\n");
	return at;
}

/* Async-signal-safe: no stdio, no allocation, only calls every filter allows. */
static void on_sigsys(int sig, siginfo_t *si, void *uctx)
{
	char line[200];
	size_t n;

	(void)sig;
	(void)uctx;
	n = sandbox_format_denial(line, sizeof(line), si->si_syscall, si->si_arch,
				  syscall(SYS_gettid) == getpid());
	if (write(STDERR_FILENO, line, n) < 0)
		_exit(SANDBOX_EXIT_STATUS);
	_exit(SANDBOX_EXIT_STATUS);
}

int sandbox_prepare(char *err, size_t errlen)
{
	struct sigaction sa;
	long ncpu;

	/* libseccomp probes the kernel once and caches it: do that before there are threads. */
	if (seccomp_api_get() < 1)
		return errmsg(err, errlen, "sandbox: this kernel has no seccomp filters "
			      "(CONFIG_SECCOMP_FILTER); --no-sandbox runs without");
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigsys;
	sa.sa_flags = SA_SIGINFO;
	sigfillset(&sa.sa_mask);
	if (sigaction(SIGSYS, &sa, NULL))
		return errmsg(err, errlen, "sandbox: cannot install the SIGSYS handler: %s",
			      strerror(errno));
	/*
	 * glibc sizes its arena limit (8 a CPU) the first time a 9th arena is
	 * made, by opening /sys/devices/system/cpu/online, in whichever vCPU
	 * thread that is, by then inside its filter. The same limit, set now.
	 * The sanitizers' allocator ignores mallopt(); it has no such read.
	 */
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	(void)mallopt(M_ARENA_MAX, 8 * (int)(ncpu > 0 ? ncpu : 1));
	/* Inherited by every thread created from now on; it cannot be unset. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return errmsg(err, errlen, "sandbox: PR_SET_NO_NEW_PRIVS: %s", strerror(errno));
	return 0;
}

/* One rule: the call, and up to two argument comparisons that must all hold. */
struct rule {
	int nr;
	unsigned int nargs;
	struct scmp_arg_cmp arg[2];
};

#define ANY(name)		{ SCMP_SYS(name), 0, { { 0 } } }
#define ARG0(name, v)		{ SCMP_SYS(name), 1, { SCMP_A0(SCMP_CMP_EQ, (v)) } }
#define ARG1(name, v)		{ SCMP_SYS(name), 1, { SCMP_A1(SCMP_CMP_EQ, (v)) } }
/* mmap/mprotect: never executable memory. */
#define NOEXEC(name)		{ SCMP_SYS(name), 1, { SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0) } }

/*
 * Both thread kinds. Seen in the traces: the futex operations of glibc's
 * mutexes and our futex words (private) and of pthread_timedjoin_np()
 * (shared, CLOCK_REALTIME); clock_nanosleep (vCPU holds); the signal calls
 * of pthread_kill() and sigtimedwait(); getpid/gettid (pthread_kill, the
 * SIGSYS handler); exit, exit_group. Not seen here but allowed, with the
 * reason: clock_gettime (the vDSO serves it on this host; it falls back to
 * the system call where the clocksource has no vDSO mode); rt_sigreturn
 * (a handler that returns); restart_syscall (after SIGSTOP and SIGCONT,
 * e.g. ^Z and fg, the kernel resumes an interrupted clock_nanosleep with it:
 * it only continues a call the filter let in); malloc's own calls, since a vCPU thread grows
 * the result store to 100000 records (mmap, mremap, mprotect of a growing
 * arena: tests/unit/test_sandbox.c drives that under the filter).
 */
static const struct rule common_rules[] = {
	ARG1(futex, FUTEX_WAIT_PRIVATE),
	ARG1(futex, FUTEX_WAKE_PRIVATE),
	ARG1(futex, FUTEX_WAIT_BITSET | FUTEX_CLOCK_REALTIME),
	ANY(clock_gettime),
	ANY(clock_nanosleep),
	ANY(rt_sigtimedwait),
	ANY(rt_sigprocmask),
	ANY(rt_sigreturn),
	ANY(restart_syscall),	/* the kernel's own resume of a sleep a SIGSTOP/SIGCONT cut */
	ANY(getpid),
	ANY(gettid),
	NOEXEC(mmap),
	NOEXEC(mprotect),
	ANY(mremap),
	ANY(munmap),
	ANY(madvise),
	ANY(brk),
	ANY(exit),
	ANY(exit_group),
};

/* The ioctls the exit handlers issue on the thread's own vCPU. */
static const unsigned long vcpu_ioctls[] = {
	KVM_RUN,
	KVM_GET_REGS,
	KVM_GET_SREGS,
	KVM_SET_SREGS,		/* TLB flush by CR4.PGE toggle */
	KVM_GET_VCPU_EVENTS,	/* #UD injection */
	KVM_SET_VCPU_EVENTS,
	KVM_SET_MSRS,		/* steal-time MSR */
};

static int add_rule(scmp_filter_ctx ctx, const struct rule *r)
{
	return seccomp_rule_add_array(ctx, SCMP_ACT_ALLOW, r->nr, r->nargs, r->arg);
}

static int add_rules(scmp_filter_ctx ctx, const struct rule *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (add_rule(ctx, &r[i]))
			return -1;
	return 0;
}

static int allow_ioctl(scmp_filter_ctx ctx, int fd, unsigned long req)
{
	struct rule r = { SCMP_SYS(ioctl), 2,
			  { SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)fd), SCMP_A1(SCMP_CMP_EQ, req) } };

	return add_rule(ctx, &r);
}

static int allow_fd(scmp_filter_ctx ctx, int nr, int fd)
{
	struct rule r = { nr, 1, { SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)fd) } };

	return fd < 0 ? 0 : add_rule(ctx, &r);
}

/* tgkill only to this process's own threads, and only the kick and wake signals. */
static int allow_kicks(scmp_filter_ctx ctx)
{
	static const int sigs[] = { VCPU_KICK_SIGNAL, VM_WAKE_SIGNAL };

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct rule r = { SCMP_SYS(tgkill), 2,
				  { SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)getpid()),
				    SCMP_A2(SCMP_CMP_EQ, (scmp_datum_t)sigs[i]) } };

		if (add_rule(ctx, &r))
			return -1;
	}
	return 0;
}

#ifdef __SANITIZE_ADDRESS__
/*
 * The ASan+UBSan+LSan build only (build/minivmm-asan, never installed):
 * what the sanitizer runtime itself does once a thread is in its filter,
 * measured with SCMP_ACT_LOG and the kernel's audit lines (its tracer is
 * cloned CLONE_UNTRACED, so strace cannot see it). Every thread: ASan drops
 * its alternate signal stack at thread exit, and its internal spin locks
 * yield when contended (a vCPU thread yielded once on nested SVM, in the
 * leak case's triple-fault report while the process exited, and was
 * killed with 159). Main thread, at process exit:
 * LeakSanitizer clones a tracer task, which inherits the main filter,
 * ptrace-attaches every thread, lists /proc/self/task and reads
 * /proc/self/maps, while the main thread yields and waits for it. This
 * weakens the sanitizer build's main filter (open, ptrace), not minivmm's.
 */
static const struct rule sanitizer_rules[] = {
	ANY(sigaltstack),
	ANY(sched_yield),
};

static const struct rule sanitizer_main_rules[] = {
	ARG0(clone, CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_UNTRACED),
	ARG0(prctl, PR_GET_DUMPABLE),
	ARG0(prctl, PR_SET_DUMPABLE),
	ARG0(prctl, PR_SET_PTRACER),
	ARG0(prctl, PR_SET_PDEATHSIG),
	ANY(wait4),
	ANY(getppid),
	ANY(rt_sigaction),
	ANY(ptrace),
	ANY(open),
	ANY(read),
	ANY(lseek),
	ANY(getdents),
};

#define SANITIZER_RULES(kind) add_rules(ctx, kind, sizeof(kind) / sizeof(kind[0]))
#else
#define SANITIZER_RULES(kind) 0
#endif

static scmp_filter_ctx new_filter(void)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_TRAP);

	if (!ctx)
		return NULL;
	/* A 32-bit (int $0x80) or x32 call traps the same way; ioctl is tested first. */
	if (seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_TRAP) ||
	    seccomp_syscall_priority(ctx, SCMP_SYS(ioctl), 255) ||
	    add_rules(ctx, common_rules, sizeof(common_rules) / sizeof(common_rules[0])) ||
	    allow_kicks(ctx) || allow_fd(ctx, SCMP_SYS(write), STDOUT_FILENO) ||
	    allow_fd(ctx, SCMP_SYS(write), STDERR_FILENO) || SANITIZER_RULES(sanitizer_rules)) {
		seccomp_release(ctx);
		return NULL;
	}
	return ctx;
}

static int load(scmp_filter_ctx ctx, const char *who, char *err, size_t errlen)
{
	int r = seccomp_load(ctx);

	seccomp_release(ctx);
	if (r)
		return errmsg(err, errlen, "sandbox: cannot load the %s filter: %s", who,
			      strerror(-r));
	return 0;
}

static int build_vcpu(scmp_filter_ctx ctx, const struct sandbox_fds *fds)
{
	for (size_t i = 0; i < sizeof(vcpu_ioctls) / sizeof(vcpu_ioctls[0]); i++)
		if (allow_ioctl(ctx, fds->vcpu_fd, vcpu_ioctls[i]))
			return -1;
	/* A Linux guest's COM1 raises IRQ 4 from the vCPU that wrote THR or IER. */
	if (fds->irq_line && fds->vm_fd >= 0 && allow_ioctl(ctx, fds->vm_fd, KVM_IRQ_LINE))
		return -1;
	if (fds->hv_kvm && allow_ioctl(ctx, fds->vcpu_fd, KVM_GET_MSRS))
		return -1;
	if (!fds->hv)
		return 0;
	/*
	 * XMM-fast input by KVM_GET_FPU; reference time from the TSC by
	 * KVM_GET_MSRS and whether it may be by KVM_GET_CLOCK; Hyper-V IPIs
	 * as MSIs on the VM.
	 */
	return allow_ioctl(ctx, fds->vcpu_fd, KVM_GET_FPU) ||
	       allow_ioctl(ctx, fds->vcpu_fd, KVM_GET_MSRS) ||
	       (fds->vm_fd >= 0 && (allow_ioctl(ctx, fds->vm_fd, KVM_SIGNAL_MSI) ||
				    allow_ioctl(ctx, fds->vm_fd, KVM_GET_CLOCK)));
}

#ifdef MVM_SANDBOX_SELFTEST
/*
 * Test build only (build/minivmm-sandbox-test): after entering its filter
 * the main thread or vCPU 0 tries the call MINIVMM_SANDBOX_SELFTEST names. With the
 * sandbox on it must never come back; with --no-sandbox it says what the
 * call returned, so the test can tell the filter is what stopped it.
 */
static void selftest(const char *kind)
{
	const char *want = getenv("MINIVMM_SANDBOX_SELFTEST");
	char what[64];
	long r;

	if (!want || strncmp(want, kind, strlen(kind)) || want[strlen(kind)] != '-')
		return;
	want += strlen(kind) + 1;
	if (!strcmp(want, "openat"))
		r = syscall(SYS_openat, AT_FDCWD, "/etc/passwd", O_RDONLY | O_CLOEXEC);
	else if (!strcmp(want, "socket"))
		r = syscall(SYS_socket, AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	else
		return;
	snprintf(what, sizeof(what), "sandbox selftest: %s thread: %s returned %s\n", kind,
		 want, r >= 0 ? "a descriptor" : "an error");
	if (write(STDERR_FILENO, what, strlen(what)) < 0)
		return;
	if (r >= 0)
		close((int)r);
}
#else
static void selftest(const char *kind)
{
	(void)kind;
}
#endif

/* The filter's BPF, as libseccomp would load it, into a malloc'd array. */
static int export_bpf(scmp_filter_ctx ctx, int memfd, struct sock_filter **insns,
		      unsigned int *len)
{
	off_t size;

	if (ftruncate(memfd, 0) || lseek(memfd, 0, SEEK_SET) || seccomp_export_bpf(ctx, memfd))
		return -1;
	size = lseek(memfd, 0, SEEK_CUR);
	if (size <= 0 || size % sizeof(**insns) || size / sizeof(**insns) > BPF_MAXINSNS)
		return -1;
	*insns = malloc(size);
	if (!*insns)
		return -1;
	if (pread(memfd, *insns, size, 0) != size) {
		free(*insns);
		*insns = NULL;
		return -1;
	}
	*len = size / sizeof(**insns);
	return 0;
}

static int build_vcpu_bpf(const struct sandbox_fds *fds, int vcpu_fd, int memfd,
			  struct sock_filter **insns, unsigned int *len)
{
	struct sandbox_fds one = *fds;
	scmp_filter_ctx ctx = new_filter();
	int r;

	one.vcpu_fd = vcpu_fd;
	if (!ctx || build_vcpu(ctx, &one)) {
		if (ctx)
			seccomp_release(ctx);
		return -1;
	}
	r = export_bpf(ctx, memfd, insns, len);
	seccomp_release(ctx);
	return r;
}

/*
 * Two builds that differ only in the vCPU fd must give the same program
 * except for JEQ constants equal to that fd: those are the slots a thread
 * fills with its own fd. Anything else means the fd shaped the program, and
 * patching a constant would not be the same filter: refuse.
 */
static int find_fd_slots(struct sandbox_vcpu_prog *p, const struct sock_filter *other)
{
	p->nr_slots = 0;
	for (unsigned int i = 0; i < p->len; i++) {
		const struct sock_filter *a = &p->insns[i], *b = &other[i];

		if (a->code == b->code && a->jt == b->jt && a->jf == b->jf && a->k == b->k)
			continue;
		if (a->code != b->code || a->jt != b->jt || a->jf != b->jf ||
		    a->code != (BPF_JMP | BPF_JEQ | BPF_K) || a->k != SANDBOX_FD_PLACEHOLDER_A ||
		    b->k != SANDBOX_FD_PLACEHOLDER_B || p->nr_slots == SANDBOX_FD_SLOTS_MAX)
			return -1;
		p->slot[p->nr_slots++] = (unsigned short)i;
	}
	return p->nr_slots ? 0 : -1;
}

int sandbox_build_vcpu(const struct sandbox_fds *fds, struct sandbox_vcpu_prog *p,
		       char *err, size_t errlen)
{
	struct sock_filter *other = NULL;
	unsigned int other_len = 0;
	int memfd = memfd_create("minivmm-seccomp", MFD_CLOEXEC);
	int r = -1;

	memset(p, 0, sizeof(*p));
	if (memfd >= 0 &&
	    !build_vcpu_bpf(fds, SANDBOX_FD_PLACEHOLDER_A, memfd, &p->insns, &p->len) &&
	    !build_vcpu_bpf(fds, SANDBOX_FD_PLACEHOLDER_B, memfd, &other, &other_len) &&
	    other_len == p->len)
		r = find_fd_slots(p, other);
	if (memfd >= 0)
		close(memfd);
	free(other);
	if (r) {
		sandbox_free_vcpu(p);
		return errmsg(err, errlen, "sandbox: cannot build the vCPU filter");
	}
	pthread_mutex_init(&p->lock, NULL);
	p->ready = true;
	return 0;
}

/*
 * In the vCPU thread: no libseccomp and no malloc here, so the thread gets
 * no malloc arena and no deep stack (docs/results/scale.md). The kernel copies the
 * program, so the template is patched and loaded under a lock.
 */
int sandbox_load_vcpu(struct sandbox_vcpu_prog *p, int vcpu_fd, char *err, size_t errlen)
{
	struct sock_fprog prog = { .len = (unsigned short)p->len, .filter = p->insns };
	long r;
	int e;

	if (!p->ready || vcpu_fd < 0)
		return errmsg(err, errlen, "sandbox: no vCPU filter to load");
	pthread_mutex_lock(&p->lock);
	for (unsigned int i = 0; i < p->nr_slots; i++)
		p->insns[p->slot[i]].k = (uint32_t)vcpu_fd;
	r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
	e = errno;
	pthread_mutex_unlock(&p->lock);
	if (r)
		return errmsg(err, errlen, "sandbox: cannot load the %s filter: %s", "vCPU",
			      strerror(e));
	return 0;
}

void sandbox_free_vcpu(struct sandbox_vcpu_prog *p)
{
	if (p->ready)
		pthread_mutex_destroy(&p->lock);
	free(p->insns);
	memset(p, 0, sizeof(*p));
}

int sandbox_enter_vcpu(const struct sandbox_fds *fds, char *err, size_t errlen)
{
	struct sandbox_vcpu_prog p;
	int r;

	if (sandbox_build_vcpu(fds, &p, err, errlen))
		return -1;
	r = sandbox_load_vcpu(&p, fds->vcpu_fd, err, errlen);
	sandbox_free_vcpu(&p);
	return r;
}

int sandbox_enter_main(const struct sandbox_fds *fds, char *err, size_t errlen)
{
	scmp_filter_ctx ctx = new_filter();

	/* Teardown closes the KVM, VM and vCPU fds; the report goes to out_fd. */
	if (!ctx || allow_fd(ctx, SCMP_SYS(write), fds->out_fd) ||
	    add_rule(ctx, &(struct rule)ANY(close)) || SANITIZER_RULES(sanitizer_main_rules)) {
		if (ctx)
			seccomp_release(ctx);
		return errmsg(err, errlen, "sandbox: cannot build the main filter");
	}
	return load(ctx, "main", err, errlen);
}

/*
 * The console input thread (vmm/dev/console_input.c): ppoll(2) on stdin
 * (its fds are in memory: the filter cannot see them, and waiting is
 * harmless), read(2) on stdin only, IRQ 4 edges on the VM, and TCSETS on
 * stdin to put a raw terminal back as it ends (with the TCGETS glibc's
 * tcsetattr() issues before and after it). The common rules give it
 * the futex it sleeps on, the signal mask calls, stderr for its lines and
 * the kicks of vm_request_stop() (Ctrl-A x).
 */
int sandbox_enter_input(const struct sandbox_fds *fds, char *err, size_t errlen)
{
	scmp_filter_ctx ctx = new_filter();

	if (!ctx || fds->in_fd < 0 || add_rule(ctx, &(struct rule)ANY(ppoll)) ||
	    allow_fd(ctx, SCMP_SYS(read), fds->in_fd) ||
	    (fds->term && (allow_ioctl(ctx, fds->in_fd, TCSETS) ||
			   allow_ioctl(ctx, fds->in_fd, TCGETS))) ||
	    (fds->irq_line && fds->vm_fd >= 0 && allow_ioctl(ctx, fds->vm_fd, KVM_IRQ_LINE))) {
		if (ctx)
			seccomp_release(ctx);
		return errmsg(err, errlen, "sandbox: cannot build the console input filter");
	}
	return load(ctx, "console input", err, errlen);
}

int sandbox_vcpu(struct vcpu *v, char *err, size_t errlen)
{
	if (v->vm->cfg.sandbox && sandbox_load_vcpu(&v->vm->vcpu_filter, v->fd, err, errlen))
		return -1;
	if (v->index == 0)
		selftest("vcpu");
	return 0;
}

int sandbox_prepare_vcpus(struct vm *vm, char *err, size_t errlen)
{
	struct sandbox_fds fds = {
		.vcpu_fd = -1,
		.vm_fd = vm->fd,
		.out_fd = -1,
		.hv = vm->hv != NULL,
		.hv_kvm = vm->kvm_hv.on,
		.irq_line = bus_any_flag(&vm->bus, BUS_F_RAISES_IRQ),
		.in_fd = -1,
	};

	return vm->cfg.sandbox ? sandbox_build_vcpu(&fds, &vm->vcpu_filter, err, errlen) : 0;
}

int sandbox_main(struct vm *vm, char *err, size_t errlen)
{
	struct sandbox_fds fds = { .vcpu_fd = -1, .vm_fd = -1, .out_fd = vm->json_fd, .in_fd = -1 };

	if (vm->cfg.sandbox && sandbox_enter_main(&fds, err, errlen))
		return -1;
	selftest("main");
	return 0;
}

int sandbox_input(struct vm *vm, int in_fd, bool term, char *err, size_t errlen)
{
	struct sandbox_fds fds = {
		.vcpu_fd = -1,
		.vm_fd = vm->fd,
		.out_fd = -1,
		.irq_line = true,
		.in_fd = in_fd,
		.term = term,
	};

	return vm->cfg.sandbox ? sandbox_enter_input(&fds, err, errlen) : 0;
}

const char *sandbox_banner(const struct vm *vm)
{
	return vm->cfg.sandbox ? "on (seccomp filter per thread, no_new_privs)" :
				 "OFF (--no-sandbox: no seccomp filter, no_new_privs not set)";
}
