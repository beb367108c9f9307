// SPDX-License-Identifier: MIT
/*
 * Write every ACPI table minivmm builds to DIR/<kind>-<cpus>-<sig>.dat, for
 * tests/host/acpi-iasl.sh to disassemble: the Multiboot set and the Linux
 * set, for 1, 2 and 256 vCPUs (256 has x2APIC entries).
 * Usage: acpi-dump DIR
 */
#include <stdio.h>
#include <string.h>

#include "vmm/acpi.h"
#include "vmm/dev/pmtimer.h"
#include "vmm/mem.h"

static int dump(const char *dir, const char *kind, unsigned int cpus, const char *name,
		const void *p, size_t len)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s-%u-%s.dat", dir, kind, cpus, name);
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, len, f) != len || fclose(f)) {
		fprintf(stderr, "acpi-dump: cannot write %s\n", path);
		return -1;
	}
	return 0;
}

/* Follow the pointers a guest follows: RSDP -> RSDT -> FADT -> FACS, DSDT; RSDT -> MADT. */
static int dump_set(struct guest_mem *mem, const char *dir, const char *kind, unsigned int cpus)
{
	const struct acpi_rsdp *rsdp = mem_gpa_to_host(mem, ACPI_RSDP_GPA, sizeof(*rsdp));
	const struct acpi_header *rsdt = mem_gpa_to_host(mem, rsdp->rsdt, sizeof(*rsdt));
	const uint32_t *entry = (const uint32_t *)(rsdt + 1);
	unsigned int n = (rsdt->length - sizeof(*rsdt)) / 4;

	if (dump(dir, kind, cpus, "rsdp", rsdp, sizeof(*rsdp)) ||
	    dump(dir, kind, cpus, "rsdt", rsdt, rsdt->length))
		return -1;
	for (unsigned int i = 0; i < n; i++) {
		const struct acpi_header *h = mem_gpa_to_host(mem, entry[i], sizeof(*h));
		const void *body = mem_gpa_to_host(mem, entry[i], h->length);
		char sig[5] = { 0 };

		memcpy(sig, h->signature, 4);
		if (dump(dir, kind, cpus, sig, body, h->length))
			return -1;
		if (!strcmp(sig, "FACP")) {
			const struct acpi_fadt *f = (const void *)h;
			const struct acpi_header *d = mem_gpa_to_host(mem, f->dsdt, sizeof(*d));
			const void *facs = mem_gpa_to_host(mem, f->firmware_ctrl, 64);
			const void *dsdt = mem_gpa_to_host(mem, f->dsdt, d->length);

			if (dump(dir, kind, cpus, "FACS", facs, 64) ||
			    dump(dir, kind, cpus, "DSDT", dsdt, d->length))
				return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const unsigned int cpus[] = { 1, 2, 256 };
	struct guest_mem mem;
	char err[256];

	if (argc != 2) {
		fprintf(stderr, "usage: acpi-dump DIR\n");
		return 2;
	}
	if (mem_init(&mem, 2ull << 20, err, sizeof(err))) {
		fprintf(stderr, "acpi-dump: %s\n", err);
		return 1;
	}
	for (unsigned int i = 0; i < sizeof(cpus) / sizeof(cpus[0]); i++) {
		memset(mem_gpa_to_host(&mem, 0, 1ull << 20), 0, 1ull << 20);
		if (acpi_build(&mem, cpus[i], PMTIMER_PORT, err, sizeof(err)) ||
		    dump_set(&mem, argv[1], "multiboot", cpus[i]))
			return 1;
		memset(mem_gpa_to_host(&mem, 0, 1ull << 20), 0, 1ull << 20);
		if (acpi_build_linux(&mem, cpus[i], PMTIMER_PORT, err, sizeof(err)) ||
		    dump_set(&mem, argv[1], "linux", cpus[i]))
			return 1;
	}
	mem_free(&mem);
	return 0;
}
