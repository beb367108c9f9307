// SPDX-License-Identifier: MIT
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "minivmm/abi.h"
#include "vmm/errmsg.h"
#include "vmm/mem.h"

/*
 * Map `size` bytes starting on a MEM_HUGE_ALIGN boundary: map that much more,
 * then give back the unaligned head and the tail. NULL on failure (errno).
 */
static uint8_t *map_aligned(uint64_t size)
{
	uint64_t extra = MEM_HUGE_ALIGN;
	uint8_t *raw, *p;
	uint64_t head;

	if (size > UINT64_MAX - extra)
		return errno = ENOMEM, NULL;
	raw = mmap(NULL, size + extra, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (raw == MAP_FAILED)
		return NULL;
	p = (uint8_t *)mem_align_up((uintptr_t)raw, MEM_HUGE_ALIGN);
	head = (uint64_t)(p - raw);
	if (head)
		munmap(raw, head);
	if (extra - head)
		munmap(p + size, extra - head);
	return p;
}

int mem_init(struct guest_mem *mem, uint64_t size, char *err, size_t errlen)
{
	uint8_t *p;

	mem->host = NULL;
	mem->size = 0;
	p = map_aligned(size);
	if (!p)
		return errmsg(err, errlen, "cannot map %llu MiB of guest RAM: %s",
			      (unsigned long long)(size >> 20), strerror(errno));
	madvise(p, size, MADV_HUGEPAGE);
	mem->host = p;
	mem->size = size;
	return 0;
}

void mem_small_pages_from(struct guest_mem *mem, uint64_t gpa)
{
	uint64_t from = mem_align_up(gpa, MVM_PAGE_SIZE);

	if (mem->host && from < mem->size)
		madvise((uint8_t *)mem->host + from, mem->size - from, MADV_NOHUGEPAGE);
}

void mem_free(struct guest_mem *mem)
{
	if (mem->host)
		munmap(mem->host, mem->size);
	mem->host = NULL;
	mem->size = 0;
}

void *mem_gpa_to_host(const struct guest_mem *mem, uint64_t gpa, uint64_t len)
{
	/* Written so that no sum can wrap: gpa < size, then len <= size - gpa. */
	if (!mem->host || len == 0 || gpa >= mem->size || len > mem->size - gpa)
		return NULL;
	return mem->host + gpa;
}

int mem_read(const struct guest_mem *mem, uint64_t gpa, void *dst, uint64_t len)
{
	const void *src = mem_gpa_to_host(mem, gpa, len);

	if (!src)
		return -1;
	memcpy(dst, src, len);
	return 0;
}

int mem_write(const struct guest_mem *mem, uint64_t gpa, const void *src, uint64_t len)
{
	void *dst = mem_gpa_to_host(mem, gpa, len);

	if (!dst)
		return -1;
	memcpy(dst, src, len);
	return 0;
}
