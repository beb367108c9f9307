/* SPDX-License-Identifier: MIT */
/* Command-line options: parsed into struct vm_config, validated up front. */
#ifndef VMM_OPTIONS_H
#define VMM_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "minivmm/abi.h"

#define VMM_MAX_VCPUS		256	/* APIC IDs stay 8-bit: MSIs reach them */
#define VMM_DEFAULT_MEM		(64ULL << 20)
#define VMM_MULTIBOOT_DEFAULT_MEM	(256ULL << 20)	/* like QEMU's default */

enum xmm_path {
	XMM_PATH_IOCTL = 0,	/* KVM_GET_FPU on every XMM-fast hypercall */
	XMM_PATH_SPILL = 1,	/* the hypercall page stores XMM0-5 below RSP */
	XMM_PATH_AUTO = 2,	/* default: measured at start (vmm/xmm_calib.c) */
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
	bool hyperv;
	bool hyperv_given;		/* --hyperv or --no-hyperv on the command line */
	bool hv_xmm;			/* advertise XMM-fast input */
	enum xmm_path xmm_path;
	const char *json_path;
	int pin[VMM_MAX_VCPUS];		/* host CPU per vCPU, -1 = unpinned */
	bool pinned;
	bool sandbox;			/* seccomp filters after setup (--no-sandbox: off) */
	char cmdline[MVM_CMDLINE_MAX];
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
void options_usage(FILE *f);

#endif
