/* SPDX-License-Identifier: MIT */
/*
 * --cpu-features +name,-name: CPUID feature bits, by QEMU's names, required
 * (+: KVM must offer it, else the run is refused) or removed (-) from the
 * template before any vCPU gets it. kvm-unit-tests' `-cpu qemu64,-pcid`
 * lines reach minivmm this way (minivmm-qemu). Parsing is pure; applying
 * works on a struct kvm_cpuid2.
 */
#ifndef VMM_CPUFEAT_H
#define VMM_CPUFEAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kvm_cpuid2;

#define CPUFEAT_MAX	32	/* names in one list */

struct cpufeat_req {
	unsigned int nr;
	uint8_t feature[CPUFEAT_MAX];	/* index into the name table */
	bool add[CPUFEAT_MAX];		/* '+' (required) or '-' (removed) */
};

/* "+x2apic,-pcid": 0, or -1 with the bad name or form in `err`. */
int cpufeat_parse(const char *list, struct cpufeat_req *req, char *err, size_t errlen);
/*
 * Clear every '-' bit and check every '+' bit is set: 0; -1 with `msg`
 * naming the first '+' KVM lacks; with `lax` (QEMU's -cpu, which warns and
 * goes on) every '-' is still applied and a lacking '+' gives 1 and `msg`.
 */
int cpufeat_apply(struct kvm_cpuid2 *c, const struct cpufeat_req *req, bool lax,
		  char *msg, size_t msglen);
/*
 * --cpu-vendor: 12 printable ASCII characters (GenuineIntel, AuthenticAMD):
 * 0, or -1 with why in `err`. `out` gets them NUL-terminated.
 */
#define CPUFEAT_VENDOR_LEN	12
int cpufeat_parse_vendor(const char *s, char out[CPUFEAT_VENDOR_LEN + 1], char *err, size_t errlen);
/*
 * The vendor string in leaf 0's EBX, EDX, ECX and, as QEMU does, in leaf
 * 0x80000000's where the template has that leaf. KVM reads leaf 0 to
 * decide which vendor's behaviour it emulates (SYSENTER MSR widths,
 * SYSCALL in compatibility mode); the CPU underneath stays the host's.
 */
void cpufeat_set_vendor(struct kvm_cpuid2 *c, const char *vendor);
/* The names known, blank-separated, into `out` (for messages). */
void cpufeat_names(char *out, size_t len);

#endif
