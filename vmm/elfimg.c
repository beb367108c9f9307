// SPDX-License-Identifier: MIT
/*
 * The segment loading the payload and Multiboot formats share, on
 * vmm/elfview.c's reading of the file. It trusts nothing in the file:
 * every header field that decides where bytes come from or go to is
 * range-checked before a byte moves.
 */
#include <elf.h>
#include <stdbool.h>

#include "minivmm/abi.h"
#include "vmm/elfimg.h"
#include "vmm/errmsg.h"

static const struct elf_load_rules payload_rules = {
	.seg = "segment", .min_gpa = MVM_LOAD_MIN, .below_why = "minivmm's reserved area",
};

/*
 * Validate every PT_LOAD segment, then copy them all: nothing is written
 * unless the whole image is good.
 */
int elfimg_load_segments(const struct elf_view *v, struct guest_mem *mem, struct load_info *info,
			 char *err, size_t errlen)
{
	return elfimg_load_segments_by(v, mem, &payload_rules, info, err, errlen);
}

int elfimg_load_segments_by(const struct elf_view *v, struct guest_mem *mem,
			    const struct elf_load_rules *rules, struct load_info *info,
			    char *err, size_t errlen)
{
	struct elf_loads loads;

	if (elfview_check_loads(v, mem, rules, v->entry, &loads, err, errlen))
		return -1;
	if (!loads.segments)
		return errmsg(err, errlen, "no PT_LOAD segment: nothing to load");
	if (!loads.entry_in)
		return errmsg(err, errlen, "entry point 0x%llx is outside every loaded segment",
			      (unsigned long long)v->entry);
	elfview_copy_loads(v, mem);
	info->segments = loads.segments;
	info->image_start = loads.start;
	info->image_end = loads.end;
	info->entry.rip = v->entry;
	return 0;
}
