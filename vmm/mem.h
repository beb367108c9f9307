/* SPDX-License-Identifier: MIT */
/*
 * Guest RAM: one anonymous mapping at GPA 0. mem_gpa_to_host() is the only
 * way from a guest-physical address to a host pointer.
 */
#ifndef VMM_MEM_H
#define VMM_MEM_H

#include <stddef.h>
#include <stdint.h>

struct guest_mem {
	uint8_t *host;
	uint64_t size;
};

/*
 * KVM maps guest RAM with a 2 MiB page (EPT/NPT) only where the host
 * address and the GPA agree modulo 2 MiB, so RAM starts on this boundary
 * (QEMU aligns its RAM the same way); a plain mmap is only page-aligned on
 * kernels before 6.7 or so, and every guest page would then cost a 4 KiB
 * mapping and its own fault.
 */
#define MEM_HUGE_ALIGN	(2ULL << 20)

int mem_init(struct guest_mem *mem, uint64_t size, char *err, size_t errlen);
void mem_free(struct guest_mem *mem);
/*
 * Back [gpa, end) with 4 KiB host pages, not transparent huge pages: RAM a
 * guest touches a few bytes at a time in many places (one stack block per
 * vCPU) would otherwise be resident 2 MiB at a time.
 */
void mem_small_pages_from(struct guest_mem *mem, uint64_t gpa);

/* Host pointer for [gpa, gpa+len), or NULL unless all of it is RAM and len > 0. */
void *mem_gpa_to_host(const struct guest_mem *mem, uint64_t gpa, uint64_t len);

/* x rounded up to a multiple of align, a power of two (a GPA or a size). */
static inline uint64_t mem_align_up(uint64_t x, uint64_t align)
{
	return (x + align - 1) & ~(align - 1);
}

/* Bounds-checked copies; 0 on success, -1 if the range is not all RAM. */
int mem_read(const struct guest_mem *mem, uint64_t gpa, void *dst, uint64_t len);
int mem_write(const struct guest_mem *mem, uint64_t gpa, const void *src, uint64_t len);

#endif
