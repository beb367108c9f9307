// SPDX-License-Identifier: MIT
#include <stdarg.h>

#include "lib/hv.h"
#include "lib/hvdiff.h"
#include "lib/printf.h"
#include "lib/report.h"

#define HVD_NAME_MAX	224

static u32 differed[HVD_VERDICTS];

const char *hvd_verdict_text(enum hvd_verdict v)
{
	static const char *const text[HVD_VERDICTS] = {
		[HVD_SAME] = "",
		[HVD_KVM_DEVIATES] = "KVM deviates from the TLFS",
		[HVD_TLFS_SILENT] = "the TLFS names no answer",
		[HVD_MINIVMM_STRICTER] = "minivmm is stricter than the TLFS",
	};

	return v < HVD_VERDICTS ? text[v] : "?";
}

/* The name, with the difference appended under KVM. */
static void hvd_name(char *name, enum hvd_verdict v, const char *detail, const char *fmt,
		     va_list ap)
{
	u32 n = (u32)vsnprintf(name, HVD_NAME_MAX, fmt, ap);

	if (!hv_kvm_serves() || v == HVD_SAME || n >= HVD_NAME_MAX)
		return;
	snprintf(name + n, HVD_NAME_MAX - n, " [differs under KVM%s%s: %s]",
		 detail[0] ? ": " : "", detail, hvd_verdict_text(v));
	differed[v < HVD_VERDICTS ? v : HVD_SAME]++;
}

bool hvd_expect(u64 rax, u64 want, u64 kvm_want, enum hvd_verdict v, const char *name_fmt, ...)
{
	char name[HVD_NAME_MAX], detail[64] = "", why[64];
	u64 expected = hv_kvm_serves() ? kvm_want : want;
	va_list ap;

	if (kvm_want == want)
		v = HVD_SAME;
	snprintf(detail, sizeof(detail), "KVM 0x%lx, minivmm 0x%lx", kvm_want, want);
	va_start(ap, name_fmt);
	hvd_name(name, v, detail, name_fmt, ap);
	va_end(ap);
	snprintf(why, sizeof(why), "result 0x%lx, expected 0x%lx", rax, expected);
	return report_why(rax == expected, name, "%s", why);
}

bool hvd_report(bool ok, enum hvd_verdict v, const char *kvm_does, const char *why,
		const char *name_fmt, ...)
{
	char name[HVD_NAME_MAX];
	va_list ap;

	va_start(ap, name_fmt);
	hvd_name(name, v, kvm_does, name_fmt, ap);
	va_end(ap);
	return report_why(ok, name, "%s", why);
}

void hvd_summary(const char *suite)
{
	if (!hv_kvm_serves())
		return;
	printf("%s: under KVM's Hyper-V, %u cases differ from minivmm's: %u KVM deviations, "
	       "%u where the TLFS names no answer, %u where minivmm is stricter\n", suite,
	       differed[HVD_KVM_DEVIATES] + differed[HVD_TLFS_SILENT] +
	       differed[HVD_MINIVMM_STRICTER], differed[HVD_KVM_DEVIATES],
	       differed[HVD_TLFS_SILENT], differed[HVD_MINIVMM_STRICTER]);
	for (u32 i = 0; i < HVD_VERDICTS; i++)
		differed[i] = 0;
}
