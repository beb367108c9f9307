/* SPDX-License-Identifier: MIT */
/* Command-line options: parsed into struct vm_config, validated up front. */
#ifndef VMM_OPTIONS_H
#define VMM_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "minivmm/abi.h"
#include "vmm/cpufeat.h"

/*
 * No vCPU limit of minivmm's own: KVM's (KVM_CAP_MAX_VCPUS, KVM_CAP_MAX_VCPU_ID)
 * is checked when the VM is created (vmm/kvm.c). This bound only keeps the
 * number parseable; no x86 KVM offers more than 4096.
 */
#define VMM_CPUS_PARSE_MAX	(1u << 20)
#define VMM_PIN_MAX		4096	/* entries in a --pin list */
#define VMM_DEFAULT_MEM		(64ULL << 20)
/* Above 64 vCPUs the default RAM grows by this much a vCPU (guest.elf's stacks). */
#define VMM_DEFAULT_MEM_PER_VCPU	(64ULL << 10)
#define VMM_MULTIBOOT_DEFAULT_MEM	(256ULL << 20)	/* like QEMU's default */
/* Debian's 6.1 kernel needs ~96 MiB to reach /init; room for an initrd and a shell. */
#define VMM_LINUX_DEFAULT_MEM		(256ULL << 20)

/*
 * Which hypervisor the guest is shown (CPUID 0x40000000 up, and the MSRs
 * behind it). Linux believes the highest base it finds, so a Linux guest
 * gets one personality: Hyper-V's leaves alone or KVM's alone.
 */
enum pv_personality {
	PV_DEFAULT = 0,		/* not given: the guest's kind decides (vm.c) */
	PV_HYPERV_KVM,		/* Hyper-V at 0x40000000, KVM at 0x40000100 (guest.elf) */
	PV_HYPERV,		/* Hyper-V's leaves only (Linux's default) */
	PV_KVM,			/* KVM's leaves at 0x40000000 only (Multiboot's default) */
	PV_NONE,		/* no hypervisor leaves at all */
};

/* Room for the joined kernel arguments; each guest kind checks its own limit. */
#define VMM_ARGS_MAX		4096

/*
 * The Hyper-V recommendations (CPUID 0x40000004 EAX) a guest may be shown
 * or denied, for control runs: Linux makes a flush or IPI hypercall only
 * when its hint is set, an Ex call only with VMM_HV_HINT_EX too. minivmm
 * serves every call whatever the hints say (a hint is advice, not a gate).
 */
#define VMM_HV_HINT_FLUSH	(1u << 0)	/* remote TLB flush recommended */
#define VMM_HV_HINT_IPI		(1u << 1)	/* cluster IPI recommended */
#define VMM_HV_HINT_EX		(1u << 2)	/* Ex processor masks recommended */
#define VMM_HV_HINTS_ALL	(VMM_HV_HINT_FLUSH | VMM_HV_HINT_IPI | VMM_HV_HINT_EX)

enum xmm_path {
	XMM_PATH_IOCTL = 0,	/* KVM_GET_FPU on every XMM-fast hypercall */
	XMM_PATH_SPILL = 1,	/* the hypercall page stores XMM0-5 below RSP */
	XMM_PATH_AUTO = 2,	/* default: measured at start (vmm/xmm_calib.c) */
};

/*
 * --preempt VCPUS:HOLD:EVERY[:hidden]: every EVERY, hold each vCPU of VCPUS
 * out of guest mode for HOLD (vmm/preempt.c), with "preempted" published
 * unless hidden (the control run: the same lost time, the guest not told).
 * nr 0: off.
 */
#define VMM_PREEMPT_VCPUS_MAX	4096
#define VMM_PREEMPT_HOLD_MAX_US	10000000u	/* as a control-port pause */
#define VMM_PREEMPT_EVERY_MAX_US 60000000u
struct preempt_spec {
	uint32_t hold_us, every_us;
	bool hidden;
	unsigned int nr;
	uint16_t vcpu[VMM_PREEMPT_VCPUS_MAX];
};

/*
 * Who serves the Hyper-V interface: minivmm's own layer (hv/, in user
 * space) or KVM's in-kernel one (arch/x86/kvm/hyperv.c, vmm/kvm_hv.c), for
 * the differential table and the cost of a user-space exit (docs/hyperv.md).
 */
enum hv_impl {
	HV_IMPL_MINIVMM = 0,	/* default */
	HV_IMPL_KVM,
};

struct vm_config {
	const char *elf_path;		/* NULL: no KERNEL given, boot the default payload */
	const char *kvm_path;		/* --kvm, default /dev/kvm */
	unsigned int nr_vcpus;
	uint64_t mem_size;
	bool mem_given;			/* --mem on the command line */
	unsigned int timeout_s;		/* 0: no watchdog */
	unsigned int iters;		/* 0: each suite's default */
	bool stats;
	enum pv_personality pv;		/* --pv (--hyperv, --no-hyperv); PV_DEFAULT until vm.c decides */
	const char *initrd_path;	/* --initrd: Linux's initramfs, a Multiboot module */
	bool qemu_exit;			/* --qemu-exit: port 0xf4's code c exits (c << 1) | 1 */
	bool pc_testdev;		/* --pc-testdev: QEMU's test device (Multiboot only) */
	bool no_pit;			/* --no-pit: a Multiboot kernel gets no PIT */
	struct cpufeat_req cpu_features;	/* --cpu-features; nr 0: the template as KVM has it */
	bool cpu_features_lax;		/* --cpu-features-lax: a '+' KVM lacks is a warning */
	char cpu_vendor[CPUFEAT_VENDOR_LEN + 1];	/* --cpu-vendor; "": the host's */
	bool hv_xmm;			/* advertise XMM-fast input */
	unsigned int hv_hints;		/* VMM_HV_HINT_*: --hv-hints, default all */
	bool hv_hints_given;		/* --hv-hints on the command line */
	unsigned int hv_vp_base;	/* --hv-vp-base: VP index of vCPU 0 (a multiple of 64) */
	bool hv_vp_base_given;
	enum xmm_path xmm_path;
	enum hv_impl hv_impl;		/* --hv-impl */
	bool hv_impl_given;
	bool hv_synic;			/* --hv-synic: KVM's SynIC and synthetic timers too */
	const char *json_path;
	int pin[VMM_PIN_MAX];		/* --pin list: vCPU i takes pin[i % nr_pin] */
	unsigned int nr_pin;		/* 0: unpinned */
	bool sandbox;			/* seccomp filters after setup (--no-sandbox: off) */
	struct preempt_spec preempt;	/* --preempt */
	char cmdline[VMM_ARGS_MAX];	/* the arguments after "--", joined by blanks */
};

enum options_result {
	OPTIONS_OK = 0,
	OPTIONS_EXIT = 1,		/* --help/--version printed */
	OPTIONS_ERROR = 2,		/* `err` says what was wrong */
};

enum options_result options_parse(int argc, char **argv, struct vm_config *cfg,
				  char *err, size_t errlen);
int options_parse_size(const char *s, uint64_t *out);
int options_parse_cpulist(const char *s, int *cpus, unsigned int max, unsigned int *n);
/* The host CPU for vCPU `index`, or -1 when not pinned. */
int options_pin_cpu(const struct vm_config *cfg, unsigned int index);
/* RAM for a payload when --mem was not given: grows past 64 vCPUs. */
uint64_t options_default_mem(unsigned int nr_vcpus);
void options_usage(FILE *f);
/* minivmm's Hyper-V layer serves a guest shown this personality. */
static inline bool options_pv_has_hyperv(enum pv_personality pv)
{
	return pv == PV_HYPERV || pv == PV_HYPERV_KVM;
}
/* "flush,ipi,ex", "none", ...: the hints in --hv-hints' own words. */
void options_hints_name(unsigned int hints, char *out, size_t outlen);
/* "minivmm" or "kvm": --hv-impl's own words. */
const char *options_hv_impl_name(enum hv_impl impl);
/* "hyperv", "kvm", ... for the banner and errors. */
const char *options_pv_name(enum pv_personality pv);

#endif
