// SPDX-License-Identifier: MIT
/* CPUID feature bits by QEMU's names: see vmm/cpufeat.h. Bits from the SDM and APM. */
#include <linux/kvm.h>
#include <stdio.h>
#include <string.h>

#include "vmm/cpufeat.h"
#include "vmm/errmsg.h"

enum reg { EAX, EBX, ECX, EDX };

static const struct feature {
	const char *name;
	uint32_t function, index;
	enum reg reg;
	unsigned int bit;
} features[] = {
	{ "vmx", 1, 0, ECX, 5 },
	{ "pcid", 1, 0, ECX, 17 },
	{ "x2apic", 1, 0, ECX, 21 },
	{ "tsc-deadline", 1, 0, ECX, 24 },
	{ "xsave", 1, 0, ECX, 26 },
	{ "avx", 1, 0, ECX, 28 },
	{ "fsgsbase", 7, 0, EBX, 0 },
	{ "smep", 7, 0, EBX, 7 },
	{ "invpcid", 7, 0, EBX, 10 },
	{ "smap", 7, 0, EBX, 20 },
	{ "umip", 7, 0, ECX, 2 },
	{ "pku", 7, 0, ECX, 3 },
	{ "la57", 7, 0, ECX, 16 },
	{ "rdpid", 7, 0, ECX, 22 },
	{ "svm", 0x80000001, 0, ECX, 2 },
	{ "skinit", 0x80000001, 0, ECX, 12 },
	{ "pdpe1gb", 0x80000001, 0, EDX, 26 },
	{ "rdtscp", 0x80000001, 0, EDX, 27 },
	{ "npt", 0x8000000a, 0, EDX, 0 },
};
#define NR_FEATURES (sizeof(features) / sizeof(features[0]))
_Static_assert(NR_FEATURES <= 256, "feature indexes are a byte");

void cpufeat_names(char *out, size_t len)
{
	size_t used = 0;

	out[0] = '\0';
	for (unsigned int i = 0; i < NR_FEATURES && used < len; i++)
		used += (size_t)snprintf(out + used, len - used, "%s%s", i ? " " : "",
					 features[i].name);
}

static int lookup(const char *name, size_t len)
{
	for (unsigned int i = 0; i < NR_FEATURES; i++)
		if (strlen(features[i].name) == len && !strncmp(features[i].name, name, len))
			return (int)i;
	return -1;
}

int cpufeat_parse(const char *list, struct cpufeat_req *req, char *err, size_t errlen)
{
	const char *p = list;

	memset(req, 0, sizeof(*req));
	while (*p) {
		size_t len = strcspn(p + 1, ",");
		int f;

		if (*p != '+' && *p != '-')
			return errmsg(err, errlen, "--cpu-features '%s': each name needs + (required) or - (removed) in front", list);
		f = lookup(p + 1, len);
		if (f < 0) {
			char known[256];

			cpufeat_names(known, sizeof(known));
			return errmsg(err, errlen, "--cpu-features '%s': unknown feature '%.*s' (known: %s)",
				      list, (int)len, p + 1, known);
		}
		if (req->nr == CPUFEAT_MAX)
			return errmsg(err, errlen, "--cpu-features: more than %d names", CPUFEAT_MAX);
		req->feature[req->nr] = (uint8_t)f;
		req->add[req->nr++] = *p == '+';
		p += 1 + len;
		if (*p == ',' && !*++p)
			return errmsg(err, errlen, "--cpu-features '%s': a comma with nothing after it", list);
	}
	if (!req->nr)
		return errmsg(err, errlen, "--cpu-features: an empty list");
	return 0;
}

int cpufeat_parse_vendor(const char *s, char out[CPUFEAT_VENDOR_LEN + 1], char *err, size_t errlen)
{
	size_t len = strlen(s);

	if (len != CPUFEAT_VENDOR_LEN)
		return errmsg(err, errlen, "--cpu-vendor '%s': need exactly %d characters (e.g. GenuineIntel, AuthenticAMD)",
			      s, CPUFEAT_VENDOR_LEN);
	for (size_t i = 0; i < len; i++)
		if (s[i] < 0x20 || s[i] > 0x7e)
			return errmsg(err, errlen, "--cpu-vendor: character %zu is not printable ASCII", i + 1);
	memcpy(out, s, len + 1);
	return 0;
}

static uint32_t vendor_word(const char *v, unsigned int word)
{
	uint32_t w;

	memcpy(&w, v + 4 * word, 4);	/* the string's bytes in register order: x86 is little-endian */
	return w;
}

void cpufeat_set_vendor(struct kvm_cpuid2 *c, const char *vendor)
{
	for (uint32_t i = 0; i < c->nent; i++) {
		struct kvm_cpuid_entry2 *e = &c->entries[i];

		if (e->function != 0 && e->function != 0x80000000)
			continue;
		e->ebx = vendor_word(vendor, 0);
		e->edx = vendor_word(vendor, 1);
		e->ecx = vendor_word(vendor, 2);
	}
}

static uint32_t *reg_of(struct kvm_cpuid2 *c, const struct feature *f)
{
	for (uint32_t i = 0; i < c->nent; i++) {
		struct kvm_cpuid_entry2 *e = &c->entries[i];

		if (e->function != f->function ||
		    ((e->flags & KVM_CPUID_FLAG_SIGNIFCANT_INDEX) && e->index != f->index))
			continue;
		switch (f->reg) {
		case EAX: return &e->eax;
		case EBX: return &e->ebx;
		case ECX: return &e->ecx;
		case EDX: return &e->edx;
		}
	}
	return NULL;
}

int cpufeat_apply(struct kvm_cpuid2 *c, const struct cpufeat_req *req, bool lax,
		  char *msg, size_t msglen)
{
	int missing = 0;

	for (unsigned int i = 0; i < req->nr; i++) {
		const struct feature *f = &features[req->feature[i]];
		uint32_t *r = reg_of(c, f);
		uint32_t bit = 1u << f->bit;

		if (!req->add[i]) {
			if (r)
				*r &= ~bit;
			continue;
		}
		if (r && (*r & bit))
			continue;
		if (!missing++)
			errmsg(msg, msglen, "--cpu-features +%s: KVM on this host does not offer %s (CPUID 0x%x.%u %s bit %u)",
			       f->name, f->name, f->function, f->index,
			       (const char *[]){ "EAX", "EBX", "ECX", "EDX" }[f->reg], f->bit);
		if (!lax)
			return -1;
	}
	return missing ? 1 : 0;
}
