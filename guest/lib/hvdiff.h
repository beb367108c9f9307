/* SPDX-License-Identifier: MIT */
/*
 * One guest, two Hyper-V implementations: minivmm's layer and KVM's own
 * (minivmm --hv-impl kvm). A case that KVM answers differently names both
 * answers and which one the TLFS supports, and checks KVM's exactly: no
 * case passes under one implementation by checking less. The verdicts and
 * where each difference is in KVM's source: docs/hyperv.md, "minivmm
 * against KVM".
 */
#ifndef GUEST_LIB_HVDIFF_H
#define GUEST_LIB_HVDIFF_H

#include "lib/types.h"

/*
 * KVM's own hypercall ABI (Documentation/virt/kvm/x86/hypercalls.rst): RAX
 * of a KVM hypercall whose number KVM does not know, -KVM_ENOSYS. What
 * the Hyper-V trap instruction gives under KVM with the page disabled.
 */
#define HVD_KVM_ENOSYS		((u64)-1000)

enum hvd_verdict {
	HVD_SAME = 0,		/* KVM gives minivmm's answer */
	HVD_KVM_DEVIATES,	/* minivmm follows the TLFS text, KVM does not */
	HVD_TLFS_SILENT,	/* the TLFS names no answer: each chose one */
	HVD_MINIVMM_STRICTER,	/* minivmm refuses what the TLFS lets pass; KVM does not */
	HVD_VERDICTS
};

/*
 * RAX must be `want` under minivmm's layer, `kvm_want` under KVM's; where
 * they differ the case name says so with `v`. Returns the check's result.
 */
bool hvd_expect(u64 rax, u64 want, u64 kvm_want, enum hvd_verdict v, const char *name_fmt, ...)
	__printf(5, 6);

/*
 * A check of another kind: `ok` is already the right test for whoever
 * serves; `kvm_does` says what KVM does instead, for the name.
 */
bool hvd_report(bool ok, enum hvd_verdict v, const char *kvm_does, const char *why,
		const char *name_fmt, ...) __printf(5, 6);

/* " [KVM: ...]": what hvd_* append to a case name under KVM; "" otherwise. */
const char *hvd_verdict_text(enum hvd_verdict v);

/* One line: how many cases differed since the last summary, by verdict (under KVM only). */
void hvd_summary(const char *suite);

#endif
