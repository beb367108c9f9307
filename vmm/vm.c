// SPDX-License-Identifier: MIT
/* Build the VM from a config, run its vCPUs, tear it all down again. */
#include <errno.h>
#include <asm/kvm_para.h>
#include <linux/kvm.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "hv/hv.h"
#include "vmm/acpi.h"
#include "vmm/cpufeat.h"
#include "vmm/cpuid.h"
#include "vmm/dev/pmtimer.h"
#include "vmm/dev/devices.h"
#include "vmm/errmsg.h"
#include "vmm/exitstatus.h"
#include "vmm/firmware.h"
#include "vmm/hvhost.h"
#include "vmm/linux_vm.h"
#include "vmm/loader.h"
#include "vmm/msr.h"
#include "vmm/multiboot.h"
#include "vmm/preempt.h"
#include "vmm/sandbox.h"
#include "vmm/tsc.h"
#include "vmm/vcpu.h"
#include "vmm/vcpu_req.h"
#include "vmm/vm.h"
#include "vmm/x86.h"

#define VMX_TSS_GPA	0xfffbd000ULL	/* three pages KVM/VMX needs, above RAM */
#define STOP_GRACE_S	2

/* An ioctl that failed: its name and errno. */
static int fail(char *err, size_t errlen, const char *what)
{
	return errmsg(err, errlen, "%s: %s", what, strerror(errno));
}

/* A vmcall/vmmcall must #UD, not be "fixed up" into the other (and hang). */
static void disable_hypercall_quirk(struct vm *vm)
{
	struct kvm_enable_cap cap = { .cap = KVM_CAP_DISABLE_QUIRKS2 };
	int quirks = vm->kvm.quirks2 ? kvm_check(&vm->kvm, KVM_CAP_DISABLE_QUIRKS2) : 0;

	if (!(quirks & KVM_X86_QUIRK_FIX_HYPERCALL_INSN))
		return;
	cap.args[0] = KVM_X86_QUIRK_FIX_HYPERCALL_INSN;
	vm->hypercall_quirk_off = ioctl(vm->fd, KVM_ENABLE_CAP, &cap) == 0;
}

/*
 * 32-bit MSI destinations (address_hi bits 31:8 = destination bits 31:8), so
 * the VMM's MSIs reach APIC IDs above 255; and no "0xff means broadcast"
 * quirk, so an MSI to APIC ID 255 reaches vCPU 255 alone. Enabled whenever
 * KVM offers both, before any vCPU exists; kvm_check_vcpus() already refused
 * more than 255 vCPUs where it does not.
 */
static int enable_x2apic_api(struct vm *vm, char *err, size_t errlen)
{
	struct kvm_enable_cap cap = { .cap = KVM_CAP_X2APIC_API };

	if (!kvm_x2apic_api_usable(&vm->kvm))
		return 0;
	cap.args[0] = KVM_X2APIC_API_USE_32BIT_IDS | KVM_X2APIC_API_DISABLE_BROADCAST_QUIRK;
	if (ioctl(vm->fd, KVM_ENABLE_CAP, &cap))
		return fail(err, errlen, "KVM_ENABLE_CAP(KVM_CAP_X2APIC_API)");
	vm->x2apic_msi = true;
	return 0;
}

/*
 * Linux calibrates its TSC and LAPIC timer against the PIT when no
 * hypervisor tells it the rates (--pv none), and probes port 0x61: KVM's
 * in-kernel PIT (and its dummy speaker port) answer, as in other VMMs.
 */
static int create_pit(struct vm *vm, char *err, size_t errlen)
{
	struct kvm_pit_config pit = { .flags = KVM_PIT_SPEAKER_DUMMY };
	struct kvm_reinject_control no_reinject = { .pit_reinject = 0 };

	if (ioctl(vm->fd, KVM_CREATE_PIT2, &pit))
		return fail(err, errlen, "KVM_CREATE_PIT2");
	/*
	 * A Multiboot kernel's ticks are not re-injected when it misses them:
	 * what kvm-unit-tests' runner asks of QEMU (kvm-pit.lost_tick_policy=discard).
	 */
	if (vm->image.kind == IMAGE_MULTIBOOT && ioctl(vm->fd, KVM_REINJECT_CONTROL, &no_reinject))
		return fail(err, errlen, "KVM_REINJECT_CONTROL (PIT ticks not re-injected)");
	return 0;
}

/* Linux calibrates against it; a Multiboot kernel finds it as firmware left it (--no-pit: none). */
static bool wants_pit(const struct vm *vm)
{
	return vm->image.kind == IMAGE_LINUX || (vm->image.kind == IMAGE_MULTIBOOT && !vm->cfg.no_pit);
}

static int setup_kvm_vm(struct vm *vm, char *err, size_t errlen)
{
	struct kvm_userspace_memory_region slot;
	int sync = KVM_SYNC_X86_REGS | KVM_SYNC_X86_SREGS;

	if (kvm_check_vcpus(&vm->kvm, vm->cfg.nr_vcpus, err, errlen) ||
	    kvm_check_fd_limit(vm->cfg.nr_vcpus, err, errlen))
		return -1;
	if ((vm->kvm.sync_regs & sync) != sync) {
		snprintf(err, errlen, "KVM lacks KVM_CAP_SYNC_REGS for registers and sregs (Linux 4.16+)");
		return -1;
	}
	vm->sync_regs = sync;
	vm->fd = ioctl(vm->kvm.fd, KVM_CREATE_VM, 0);
	if (vm->fd < 0)
		return fail(err, errlen, "KVM_CREATE_VM");
	if (ioctl(vm->fd, KVM_SET_TSS_ADDR, VMX_TSS_GPA) && vm->kvm.backend == MVM_BACKEND_VMX)
		return fail(err, errlen, "KVM_SET_TSS_ADDR");
	if (ioctl(vm->fd, KVM_CREATE_IRQCHIP, 0))
		return fail(err, errlen, "KVM_CREATE_IRQCHIP");
	if (wants_pit(vm) && create_pit(vm, err, errlen))
		return -1;
	if (enable_x2apic_api(vm, err, errlen))
		return -1;
	disable_hypercall_quirk(vm);
	slot = (struct kvm_userspace_memory_region){
		.slot = 0,
		.guest_phys_addr = 0,
		.memory_size = vm->mem.size,
		.userspace_addr = (uintptr_t)vm->mem.host,
	};
	if (ioctl(vm->fd, KVM_SET_USER_MEMORY_REGION, &slot))
		return fail(err, errlen, "KVM_SET_USER_MEMORY_REGION");
	return 0;
}

static void fill_bootinfo(struct vm *vm, uint64_t image_end)
{
	struct mvm_bootinfo *bi = mem_gpa_to_host(&vm->mem, MVM_BOOTINFO_GPA, sizeof(*bi));

	memset(bi, 0, sizeof(*bi));
	bi->magic = MVM_BOOTINFO_MAGIC;
	bi->abi_version = MVM_ABI_VERSION;
	bi->size = sizeof(*bi);
	bi->nr_vcpus = vm->cfg.nr_vcpus;
	bi->backend = vm->kvm.backend;
	bi->ram_size = vm->mem.size;
	bi->tsc_khz = vm->tsc_khz;
	bi->free_gpa = mem_align_up(image_end, MVM_PAGE_SIZE);
	bi->host_cpus = vm->kvm.host_cpus;
	bi->iters = vm->cfg.iters;
	if (vm->hv) {
		bi->features |= MVM_F_HYPERV;
		if (vm->cfg.hv_xmm)
			bi->features |= MVM_F_HV_XMM_INPUT;
		if (vm->cfg.xmm_path == XMM_PATH_SPILL)
			bi->features |= MVM_F_HV_XMM_SPILL;
	} else if (vm->kvm_hv.on) {
		bi->features |= MVM_F_HYPERV | MVM_F_HV_KVM;
		if (vm->kvm_hv.leaves[HV_CPUID_FEATURES - HV_CPUID_VENDOR_AND_MAX].edx &
		    HV_X64_HYPERCALL_XMM_INPUT_AVAILABLE)
			bi->features |= MVM_F_HV_XMM_INPUT;
	}
	if (vm->cfg.nr_vcpus > vm->kvm.host_cpus)
		bi->features |= MVM_F_OVERCOMMIT;
	if (cpuid_kvm_features(vm->cpuid, vm->cfg.pv) & (1u << KVM_FEATURE_STEAL_TIME) &&
	    vm->kvm.user_msr)
		bi->features |= MVM_F_PVTIME;
	bi->cmdline_len = strlen(vm->cfg.cmdline);
	memcpy(bi->cmdline, vm->cfg.cmdline, bi->cmdline_len + 1);
}

static int register_devices(struct vm *vm, char *err, size_t errlen)
{
	if (devices_create(vm, vm->image.kind, err, errlen))
		return -1;
	if (vm->cfg.pc_testdev && pc_testdev_dev_create(vm, err, errlen))
		return -1;
	if (options_pv_has_hyperv(vm->cfg.pv) &&
	    (vm->cfg.hv_impl == HV_IMPL_KVM ? kvm_hv_open(vm, err, errlen) :
					      hvhost_create(vm, err, errlen)))
		return -1;
	/* Always filter the Hyper-V MSRs where KVM can, so --no-hyperv really #GPs. */
	return msr_setup(vm, err, errlen);
}

/* The CPUID template, with the Hyper-V leaves of whichever implementation serves. */
static struct kvm_cpuid2 *hyperv_cpuid_build(struct vm *vm, char *err, size_t errlen)
{
	struct hv_cpuid_leaf hl[KVM_HV_LEAVES];
	size_t n = 0;

	if (vm->hv) {
		n = hv_cpuid_leaves(vm->hv, hl, KVM_HV_LEAVES);
	} else if (vm->kvm_hv.on) {
		memcpy(hl, vm->kvm_hv.leaves, sizeof(hl));
		n = KVM_HV_LEAVES;
	}
	return cpuid_build(vm->kvm.fd, vm->cfg.pv, hl, n, err, errlen);
}

static int create_vcpus(struct vm *vm, char *err, size_t errlen)
{
	int khz;

	vm->vcpus = calloc(vm->cfg.nr_vcpus, sizeof(*vm->vcpus));
	if (!vm->vcpus) {
		snprintf(err, errlen, "out of memory for %u vCPUs", vm->cfg.nr_vcpus);
		return -1;
	}
	for (unsigned int i = 0; i < vm->cfg.nr_vcpus; i++)
		vm->vcpus[i].fd = -1;
	vm->cpuid = hyperv_cpuid_build(vm, err, errlen);
	if (!vm->cpuid)
		return -1;
	switch (cpufeat_apply(vm->cpuid, &vm->cfg.cpu_features, vm->cfg.cpu_features_lax,
			      err, errlen)) {
	case -1:
		return -1;
	case 1:
		fprintf(stderr, "minivmm: warning: %s; the guest runs without it\n", err);
		err[0] = '\0';
		break;
	}
	if (vm->cfg.cpu_vendor[0])
		cpufeat_set_vendor(vm->cpuid, vm->cfg.cpu_vendor);
	for (unsigned int i = 0; i < vm->cfg.nr_vcpus; i++)
		if (vcpu_create(vm, &vm->vcpus[i], i, err, errlen))
			return -1;
	khz = ioctl(vm->vcpus[0].fd, KVM_GET_TSC_KHZ, 0);
	if (khz <= 0)
		return fail(err, errlen, "KVM_GET_TSC_KHZ");
	vm->tsc_khz = (uint64_t)khz;
	hvhost_set_tsc_khz(vm, vm->tsc_khz);
	return 0;
}

/*
 * --pv not given: the format's own (the payload sees both hypervisors, a
 * Multiboot kernel KVM's alone, Linux minivmm's Hyper-V alone). Linux
 * never uses XMM-fast input (docs/linux.md), so it is not offered it, and
 * nothing is calibrated.
 */
static void choose_pv(struct vm_config *cfg, const struct image_format *fmt)
{
	if (cfg->pv == PV_DEFAULT)
		cfg->pv = fmt->default_pv;
	if (fmt->kind == IMAGE_LINUX)
		cfg->hv_xmm = false;
}

/* --hv-vp-base: for a guest shown Hyper-V that reads its VP indexes (a kernel). */
static int check_vp_base(const struct vm *vm, char *err, size_t errlen)
{
	const struct vm_config *c = &vm->cfg;

	if (!c->hv_vp_base_given)
		return 0;
	if (!options_pv_has_hyperv(c->pv))
		return errmsg(err, errlen, "--hv-vp-base: the guest is shown no Hyper-V (--pv %s); it needs --pv hyperv or hyperv+kvm",
			      options_pv_name(c->pv));
	if (c->hv_vp_base && vm->image.kind == IMAGE_ELF64)
		return errmsg(err, errlen, "--hv-vp-base %u: %s is minivmm's payload, whose Hyper-V suites name VP i as vCPU i; VP indexes can move only for kernels",
			      c->hv_vp_base, c->elf_path);
	if (c->hv_vp_base > HV_MAX_VP_INDEX - c->nr_vcpus)
		return errmsg(err, errlen, "--hv-vp-base %u with %u vCPUs: the last VP index would be %u, past %u (the highest an HV_VP_SET names)",
			      c->hv_vp_base, c->nr_vcpus, c->hv_vp_base + c->nr_vcpus - 1,
			      HV_MAX_VP_INDEX - 1);
	return 0;
}

/* --hv-impl kvm: for a guest shown Hyper-V, with nothing of minivmm's page asked for. */
static int check_hv_impl(const struct vm_config *c, char *err, size_t errlen)
{
	if (c->hv_synic && c->hv_impl != HV_IMPL_KVM)
		return errmsg(err, errlen, "--hv-synic: minivmm's own Hyper-V layer has no SynIC or synthetic timers; they are KVM's (add --hv-impl kvm)");
	if (c->hv_impl != HV_IMPL_KVM)
		return 0;
	if (!options_pv_has_hyperv(c->pv))
		return errmsg(err, errlen, "--hv-impl kvm: the guest is shown no Hyper-V (--pv %s); it needs --pv hyperv or hyperv+kvm",
			      options_pv_name(c->pv));
	if (c->xmm_path != XMM_PATH_AUTO)
		return errmsg(err, errlen, "--hv-xmm-path %s: with --hv-impl kvm, KVM writes the hypercall page and reads XMM input itself; the path is minivmm's page only",
			      c->xmm_path == XMM_PATH_SPILL ? "spill" : "ioctl");
	return 0;
}

/* What the arguments after "--" may be for this kind; 0, or -1 with `err`. */
static int check_args(const struct vm *vm, char *err, size_t errlen)
{
	if (vm->cfg.initrd_path && vm->image.kind == IMAGE_ELF64)
		return errmsg(err, errlen, "--initrd %s: %s is minivmm's payload, which takes no initrd (Linux and Multiboot kernels do)",
			      vm->cfg.initrd_path, vm->cfg.elf_path);
	if (vm->cfg.no_pit && vm->image.kind != IMAGE_MULTIBOOT)
		return errmsg(err, errlen, "--no-pit: %s is not a Multiboot kernel (a Linux guest always gets KVM's PIT, the payload never)",
			      vm->cfg.elf_path);
	if (vm->cfg.pc_testdev && vm->image.kind != IMAGE_MULTIBOOT)
		return errmsg(err, errlen, "--pc-testdev: %s is not a Multiboot kernel (the test device is for kvm-unit-tests and its kin)",
			      vm->cfg.elf_path);
	if (preempt_check(&vm->cfg.preempt, vm->cfg.nr_vcpus, err, errlen))
		return -1;
	if (vm->cfg.hv_hints_given && !options_pv_has_hyperv(vm->cfg.pv))
		return errmsg(err, errlen, "--hv-hints: the guest is shown no Hyper-V (--pv %s); hints need --pv hyperv or hyperv+kvm",
			      options_pv_name(vm->cfg.pv));
	if (check_vp_base(vm, err, errlen) || check_hv_impl(&vm->cfg, err, errlen))
		return -1;
	if (vm->image.kind == IMAGE_ELF64 && strlen(vm->cfg.cmdline) >= MVM_CMDLINE_MAX)
		return errmsg(err, errlen, "payload arguments exceed %d bytes (struct mvm_bootinfo's room)",
			      MVM_CMDLINE_MAX - 1);
	return 0;
}

/*
 * Read the kernel, size RAM for its kind, load it. A Multiboot kernel gets
 * 256 MiB unless --mem says otherwise (QEMU's default; kvm-unit-tests'
 * vmexit needs about 17 MiB), and so does a Linux kernel.
 */
static int load_kernel(struct vm *vm, char *err, size_t errlen)
{
	const char *path = vm->cfg.elf_path;
	char why[256];
	size_t len;
	void *buf = loader_read_file(path, &len, err, errlen);
	uint64_t mem_size = vm->cfg.mem_given ? vm->cfg.mem_size :
			    options_default_mem(vm->cfg.nr_vcpus);
	const struct image_format *fmt;
	int ret = -1;

	if (!buf)
		return -1;
	fmt = loader_format(buf, len);
	vm->image.kind = fmt->kind;	/* check_args() asks; the loader says it again */
	if (fmt->default_mem && !vm->cfg.mem_given)
		mem_size = fmt->default_mem;
	choose_pv(&vm->cfg, fmt);
	if (check_args(vm, err, errlen) || mem_init(&vm->mem, mem_size, err, errlen))
		goto out;
	if (loader_load_image(buf, len, &vm->mem, &vm->image, why, sizeof(why))) {
		snprintf(err, errlen, "%s: %s", path, why);
		goto out;
	}
	ret = vm->image.kind == IMAGE_LINUX ? linux_boot_setup(vm, &vm->image, err, errlen) : 0;
out:
	free(buf);
	return ret;
}

/* Multiboot info (command line = kernel path, then the args; --initrd the module) and ACPI tables. */
static int setup_multiboot(struct vm *vm, char *err, size_t errlen)
{
	struct mb_module_file mod = { 0 };
	char cmdline[MB_CMDLINE_MAX];
	void *data = NULL;
	int n = snprintf(cmdline, sizeof(cmdline), "%s%s%s", vm->cfg.elf_path,
			 vm->cfg.cmdline[0] ? " " : "", vm->cfg.cmdline);

	if (n < 0 || (size_t)n >= sizeof(cmdline)) {
		snprintf(err, errlen, "kernel path and arguments exceed %zu bytes", sizeof(cmdline) - 1);
		return -1;
	}
	if (vm->cfg.initrd_path) {
		mod.name = vm->cfg.initrd_path;
		mod.data = data = loader_read_file(mod.name, &mod.len, err, errlen);
		if (!data)
			return -1;
	}
	n = multiboot_write_info(&vm->mem, vm->image.entry.rbx, cmdline, vm->image.image_end, &mod,
				 err, errlen);
	free(data);
	if (n || firmware_setup(vm->fd, &vm->mem, wants_pit(vm), err, errlen))
		return -1;
	return acpi_build(&vm->mem, vm->cfg.nr_vcpus, PMTIMER_PORT, err, errlen);
}

int vm_create(struct vm *vm, const struct vm_config *cfg, char *err, size_t errlen)
{
	memset(vm, 0, sizeof(*vm));
	vm->cfg = *cfg;
	vm->fd = -1;
	vm->kvm.fd = -1;
	vm->json_fd = -1;
	vm->main_thread = pthread_self();
	pthread_mutex_init(&vm->out_lock, NULL);
	ratelimit_init(&vm->guest_msgs);
	bus_init(&vm->bus);
	results_init(&vm->results);
	/* The payload first: a bad file is reported even on a host without KVM. */
	if (load_kernel(vm, err, errlen))
		return -1;
	if (kvm_open(&vm->kvm, cfg->kvm_path, err, errlen))
		return -1;
	if (setup_kvm_vm(vm, err, errlen))
		return -1;
	if (vm->image.entry.mode == IMAGE_ENTRY_LONG64 && x86_setup_memory(&vm->mem)) {
		snprintf(err, errlen, "guest RAM too small for the boot tables");
		return -1;
	}
	if (register_devices(vm, err, errlen) || create_vcpus(vm, err, errlen) ||
	    xmm_calibrate(vm, err, errlen))
		return -1;
	if (vm->image.kind == IMAGE_MULTIBOOT)
		return setup_multiboot(vm, err, errlen);
	if (vm->image.kind == IMAGE_LINUX)
		return acpi_build_linux(&vm->mem, vm->cfg.nr_vcpus, PMTIMER_PORT, err, errlen);
	fill_bootinfo(vm, vm->image.image_end);
	/* guest.elf puts its per-vCPU stacks and data there (docs/abi.md). */
	mem_small_pages_from(&vm->mem, vm->image.image_end);
	return 0;
}

static void block_signals(sigset_t *waitset)
{
	sigset_t all;

	sigemptyset(waitset);
	sigaddset(waitset, SIGINT);
	sigaddset(waitset, SIGTERM);
	sigaddset(waitset, VM_WAKE_SIGNAL);
	/* vCPU threads inherit this: only KVM_RUN lets the kick through. */
	sigfillset(&all);
	sigdelset(&all, SIGSEGV);
	sigdelset(&all, SIGBUS);
	sigdelset(&all, SIGFPE);
	sigdelset(&all, SIGILL);
	sigdelset(&all, SIGABRT);
	/* A blocked SIGSYS would kill without the sandbox's message. */
	sigdelset(&all, SIGSYS);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
}

static void say(struct vm *vm, const char *fmt, const char *arg, unsigned int n)
{
	pthread_mutex_lock(&vm->out_lock);
	fprintf(stderr, fmt, arg, n);
	fflush(stderr);
	pthread_mutex_unlock(&vm->out_lock);
}

/*
 * Wait for a stop, a signal or the watchdog; returns once stopping is set.
 * With --preempt the wait also ends when its next round is due.
 */
static void wait_for_stop(struct vm *vm, const sigset_t *waitset)
{
	uint64_t deadline = host_monotonic_ns() + (uint64_t)vm->cfg.timeout_s * 1000000000ull;
	bool watchdog = vm->cfg.timeout_s > 0;

	while (!atomic_load(&vm->stopping)) {
		uint64_t now = host_monotonic_ns(), until = preempt_tick(vm, now);
		struct timespec left;
		int sig;

		if (watchdog && now >= deadline) {
			say(vm, "minivmm: %s: no exit after %u s; stopping, RIPs follow\n",
			    "timeout", vm->cfg.timeout_s);
			for (unsigned int i = 0; i < vm->cfg.nr_vcpus; i++)
				vcpu_request(&vm->vcpus[i], VCPU_REQ_DUMP);
			vm_request_stop(vm, EXITSTATUS_GUEST_CRASH);
			break;
		}
		if (watchdog && deadline < until)
			until = deadline;
		now = host_monotonic_ns();
		until = until > now ? until - now : 0;
		left.tv_sec = (time_t)(until / 1000000000ull);
		left.tv_nsec = (long)(until % 1000000000ull);
		sig = until != UINT64_MAX ? sigtimedwait(waitset, NULL, &left) : sigwaitinfo(waitset, NULL);
		if (sig == SIGINT || sig == SIGTERM) {
			say(vm, "minivmm: %s (signal %u): stopping all vCPUs\n",
			    sig == SIGINT ? "interrupted" : "terminated", (unsigned int)sig);
			vm_request_stop(vm, EXITSTATUS_SIGNAL(sig));
		}
	}
}

/* Join every vCPU thread, but never wait for ever on one stuck in KVM. */
static bool join_vcpus(struct vm *vm)
{
	struct timespec limit;
	bool all = true;

	clock_gettime(CLOCK_REALTIME, &limit);
	limit.tv_sec += STOP_GRACE_S;
	for (unsigned int i = 0; i < vm->cfg.nr_vcpus; i++) {
		struct vcpu *v = &vm->vcpus[i];

		if (!v->joinable)
			continue;
		if (pthread_timedjoin_np(v->join_id, NULL, &limit)) {
			say(vm, "minivmm: %s %u did not stop within the grace period\n", "vCPU", i);
			all = false;
			continue;
		}
		v->joinable = false;
		bus_vcpu_stopped(&vm->bus, i);
	}
	return all;
}

int vm_run(struct vm *vm)
{
	sigset_t waitset;
	char err[256];

	vm->main_thread = pthread_self();
	block_signals(&waitset);
	if (vm->cfg.sandbox && (sandbox_prepare(err, sizeof(err)) ||
				sandbox_prepare_vcpus(vm, err, sizeof(err)))) {
		fprintf(stderr, "minivmm: %s\n", err);
		return EXITSTATUS_HOST_ERROR;
	}
	vm->stats.start_tsc = host_rdtsc();
	for (unsigned int i = 0; i < vm->cfg.nr_vcpus; i++) {
		if (vcpu_start(&vm->vcpus[i], err, sizeof(err))) {
			fprintf(stderr, "minivmm: %s\n", err);
			vm_request_stop(vm, EXITSTATUS_HOST_ERROR);
			break;
		}
	}
	/* Devices' own threads (Linux's stdin reader), while clone(2) is still allowed. */
	if (bus_devices_start(&vm->bus, err, sizeof(err))) {
		say(vm, "minivmm: %s; stopping (exit %u)\n", err, EXITSTATUS_HOST_ERROR);
		vm_request_stop(vm, EXITSTATUS_HOST_ERROR);
	}
	/* Every thread exists and every file is open: from here on, only waiting and reporting. */
	if (sandbox_main(vm, err, sizeof(err))) {
		say(vm, "minivmm: %s; stopping (exit %u)\n", err, EXITSTATUS_HOST_ERROR);
		vm_request_stop(vm, EXITSTATUS_HOST_ERROR);
	}
	wait_for_stop(vm, &waitset);
	vm->stuck = !join_vcpus(vm);
	/* The stdin reader ends, the terminal is itself again, COM1's last line goes out. */
	bus_devices_stop(&vm->bus);
	return atomic_load(&vm->exit_status);
}

void vm_destroy(struct vm *vm)
{
	/* A thread still inside KVM_RUN owns its vCPU: leave it to exit(). */
	if (vm->stuck)
		return;
	for (unsigned int i = 0; vm->vcpus && i < vm->cfg.nr_vcpus; i++)
		vcpu_destroy(&vm->vcpus[i]);
	free(vm->vcpus);
	sandbox_free_vcpu(&vm->vcpu_filter);
	free(vm->cpuid);
	if (vm->hv)
		hv_destroy(vm->hv);
	if (vm->fd >= 0)
		close(vm->fd);
	mem_free(&vm->mem);
	kvm_close(&vm->kvm);
	results_free(&vm->results);
	bus_destroy(&vm->bus);
	pthread_mutex_destroy(&vm->out_lock);
}
