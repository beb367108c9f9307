// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness for the image loaders (vmm/loader.c and the formats of
 * its table): any byte string is a candidate kernel.
 * The loader must either load it inside guest RAM or refuse it with a
 * message. The VMM's reserved area is mapped read-only, so a write there
 * crashes at once; ASan catches any access outside the buffers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "minivmm/abi.h"
#include "vmm/loader.h"

#define RAM_SIZE	(4u << 20)

static struct guest_mem mem;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct load_info info;
	char err[512];

	if (!mem.host) {
		if (mem_init(&mem, RAM_SIZE, err, sizeof(err)) ||
		    mprotect(mem.host, MVM_LOAD_MIN, PROT_READ))
			abort();
	}
	err[0] = '\0';
	if (loader_load_image(data, size, &mem, &info, err, sizeof(err))) {
		if (!err[0])
			abort();	/* every refusal names its reason */
		return 0;
	}
	if (info.entry.rip < MVM_LOAD_MIN || info.entry.rip >= info.image_end ||
	    info.image_end > RAM_SIZE || !info.segments)
		abort();
	return 0;
}
