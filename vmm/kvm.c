// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "vmm/errmsg.h"
#include "vmm/kvm.h"

int kvm_check(const struct kvm_host *kvm, long cap)
{
	int r = ioctl(kvm->fd, KVM_CHECK_EXTENSION, cap);

	return r < 0 ? 0 : r;
}

const char *kvm_backend_name(enum mvm_backend b)
{
	switch (b) {
	case MVM_BACKEND_VMX: return "vmx";
	case MVM_BACKEND_SVM: return "svm";
	case MVM_BACKEND_PVM: return "pvm";
	default: return "unknown";
	}
}

static bool module_loaded(const char *name)
{
	char path[96];
	struct stat st;

	snprintf(path, sizeof(path), "/sys/module/%s", name);
	return stat(path, &st) == 0;
}

/* Which module serves /dev/kvm: a loaded vendor module wins over kvm_pvm. */
static enum mvm_backend detect_backend(void)
{
	if (module_loaded("kvm_intel"))
		return MVM_BACKEND_VMX;
	if (module_loaded("kvm_amd"))
		return MVM_BACKEND_SVM;
	if (module_loaded("kvm_pvm"))
		return MVM_BACKEND_PVM;
	return MVM_BACKEND_UNKNOWN;
}

static void read_cpu_model(char *out, size_t len)
{
	char line[256];
	FILE *f = fopen("/proc/cpuinfo", "r");

	snprintf(out, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "model name", 10) || !colon)
			continue;
		colon += 2;
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(out, len, "%s", colon);
		break;
	}
	fclose(f);
}

/* sysfs' one line, without its newline; "unknown" if it cannot be read. */
static void read_clocksource(char *out, size_t len)
{
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");

	snprintf(out, len, "unknown");
	if (!f)
		return;
	if (fgets(out, (int)len, f))
		out[strcspn(out, "\n")] = '\0';
	else
		snprintf(out, len, "unknown");
	fclose(f);
}

bool kvm_clocksource_is_tsc(const char *name)
{
	return !strcmp(name, "tsc") || !strcmp(name, "tsc-early") ||
	       !strcmp(name, "hyperv_clocksource_tsc_page");
}

static int open_dev(const char *path, char *err, size_t errlen)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);

	if (fd >= 0)
		return fd;
	if (errno == ENOENT)
		errmsg(err, errlen, "%s does not exist: this host offers no KVM (load kvm_intel, kvm_amd or kvm_pvm, or run on a host with virtualisation)", path);
	else if (errno == EACCES || errno == EPERM)
		errmsg(err, errlen, "%s: permission denied: minivmm needs read-write access, not root "
		       "(join group 'kvm', or have root run: setfacl -m u:$USER:rw %s)", path, path);
	else if (errno == ENODEV || errno == ENXIO)
		errmsg(err, errlen, "%s: no KVM driver behind the device node (%s)", path, strerror(errno));
	else
		errmsg(err, errlen, "%s: %s", path, strerror(errno));
	return -1;
}

const struct kvm_cap_need *kvm_first_missing(const struct kvm_host *kvm,
					     const struct kvm_cap_need *need, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!kvm_check(kvm, need[i].cap))
			return &need[i];
	return NULL;
}

static const struct kvm_cap_need required_caps[] = {
	{ KVM_CAP_IRQCHIP, "KVM_CAP_IRQCHIP", "every vCPU needs an in-kernel LAPIC" },
	{ KVM_CAP_USER_MEMORY, "KVM_CAP_USER_MEMORY", "guest RAM is a user memory slot" },
	{ KVM_CAP_EXT_CPUID, "KVM_CAP_EXT_CPUID", "the CPUID table is set per vCPU" },
	{ KVM_CAP_SIGNAL_MSI, "KVM_CAP_SIGNAL_MSI", "IPIs from the VMM are MSIs" },
	{ KVM_CAP_IMMEDIATE_EXIT, "KVM_CAP_IMMEDIATE_EXIT", "stopping vCPUs without races" },
	{ KVM_CAP_GET_TSC_KHZ, "KVM_CAP_GET_TSC_KHZ", "results are converted with the guest TSC rate" },
};

int kvm_open(struct kvm_host *kvm, const char *path, char *err, size_t errlen)
{
	const struct kvm_cap_need *missing;
	struct utsname u;
	int v;

	memset(kvm, 0, sizeof(*kvm));
	kvm->fd = open_dev(path, err, errlen);
	if (kvm->fd < 0)
		return -1;
	v = ioctl(kvm->fd, KVM_GET_API_VERSION, 0);
	if (v != KVM_API_VERSION) {
		errmsg(err, errlen, "%s: KVM API version %d, minivmm needs %d", path, v, KVM_API_VERSION);
		goto fail_close;
	}
	missing = kvm_first_missing(kvm, required_caps,
				    sizeof(required_caps) / sizeof(required_caps[0]));
	if (missing) {
		errmsg(err, errlen, "%s: missing capability %s (%s)", path, missing->name,
		       missing->why);
		goto fail_close;
	}
	kvm->vcpu_mmap_size = ioctl(kvm->fd, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (kvm->vcpu_mmap_size < (int)sizeof(struct kvm_run)) {
		errmsg(err, errlen, "%s: KVM_GET_VCPU_MMAP_SIZE: %s", path, strerror(errno));
		goto fail_close;
	}
	kvm->max_vcpus = kvm_check(kvm, KVM_CAP_MAX_VCPUS);
	if (!kvm->max_vcpus)
		kvm->max_vcpus = kvm_check(kvm, KVM_CAP_NR_VCPUS);
	if (!kvm->max_vcpus)
		kvm->max_vcpus = 4;	/* what the API documents when neither is reported */
	/* Before Linux 4.8 there is no KVM_CAP_MAX_VCPU_ID: ids stay below MAX_VCPUS. */
	kvm->max_vcpu_id = kvm_check(kvm, KVM_CAP_MAX_VCPU_ID);
	if (!kvm->max_vcpu_id)
		kvm->max_vcpu_id = kvm->max_vcpus;
	kvm->x2apic_api = kvm_check(kvm, KVM_CAP_X2APIC_API);
	kvm->user_msr = kvm_check(kvm, KVM_CAP_X86_USER_SPACE_MSR) &&
			kvm_check(kvm, KVM_CAP_X86_MSR_FILTER);
	kvm->quirks2 = kvm_check(kvm, KVM_CAP_DISABLE_QUIRKS2) != 0;
	kvm->sync_regs = kvm_check(kvm, KVM_CAP_SYNC_REGS);
	kvm->backend = detect_backend();
	kvm->host_cpus = (unsigned int)sysconf(_SC_NPROCESSORS_ONLN);
	snprintf(kvm->kernel, sizeof(kvm->kernel), "%s", uname(&u) ? "unknown" : u.release);
	read_cpu_model(kvm->cpu_model, sizeof(kvm->cpu_model));
	read_clocksource(kvm->clocksource, sizeof(kvm->clocksource));
	return 0;
fail_close:
	close(kvm->fd);
	kvm->fd = -1;
	return -1;
}

bool kvm_x2apic_api_usable(const struct kvm_host *kvm)
{
	int need = KVM_X2APIC_API_USE_32BIT_IDS | KVM_X2APIC_API_DISABLE_BROADCAST_QUIRK;

	return (kvm->x2apic_api & need) == need;
}

/* The most vCPUs whose APIC IDs the VMM's MSIs can reach without KVM_CAP_X2APIC_API. */
#define XAPIC_MSI_VCPUS		255

int kvm_check_vcpus(const struct kvm_host *kvm, unsigned int n, char *err, size_t errlen)
{
	if (n > kvm->max_vcpus)
		return errmsg(err, errlen, "--cpus %u: KVM on this host allows at most %u vCPUs per VM (KVM_CAP_MAX_VCPUS)",
			      n, kvm->max_vcpus);
	if (n > kvm->max_vcpu_id)
		return errmsg(err, errlen, "--cpus %u: vCPU ids (= APIC IDs) run to %u, but KVM on this host takes ids below %u only (KVM_CAP_MAX_VCPU_ID)",
			      n, n - 1, kvm->max_vcpu_id);
	if (n > XAPIC_MSI_VCPUS && !kvm_x2apic_api_usable(kvm))
		return errmsg(err, errlen, "--cpus %u: APIC IDs from 255 up need KVM_CAP_X2APIC_API with 32-bit MSI destinations and no broadcast quirk, which KVM on this host lacks: at most %u vCPUs",
			      n, XAPIC_MSI_VCPUS);
	return 0;
}

/* Descriptors besides the vCPUs': /dev/kvm, the VM, stdio, --json, the stdin thread. */
#define FDS_BESIDES_VCPUS	32

int kvm_check_fd_limit(unsigned int n, char *err, size_t errlen)
{
	struct rlimit rl;
	rlim_t need = (rlim_t)n + FDS_BESIDES_VCPUS;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return 0;	/* no limit to read: let KVM_CREATE_VCPU say what fails */
	if (rl.rlim_cur >= need)
		return 0;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need)
		return errmsg(err, errlen, "--cpus %u: needs %llu open files (a descriptor a vCPU), but RLIMIT_NOFILE allows %llu (raise it: ulimit -n)",
			      n, (unsigned long long)need, (unsigned long long)rl.rlim_max);
	rl.rlim_cur = need;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		return errmsg(err, errlen, "--cpus %u: cannot raise RLIMIT_NOFILE to %llu: %s", n,
			      (unsigned long long)need, strerror(errno));
	return 0;
}

void kvm_close(struct kvm_host *kvm)
{
	if (kvm->fd >= 0)
		close(kvm->fd);
	kvm->fd = -1;
}
