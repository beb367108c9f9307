/* SPDX-License-Identifier: MIT */
/*
 * The Linux-facing layouts minivmm reads or writes, written from their
 * specifications (facts only): the x86 boot protocol's setup header
 * (Documentation/arch/x86/boot.rst), Xen's PVH start info
 * (xen/include/public/arch-x86/hvm/start_info.h) and the Xen ELF note
 * types (xen/include/public/elfnote.h). Every offset is asserted.
 */
#ifndef VMM_LINUX_ABI_H
#define VMM_LINUX_ABI_H

#include <stddef.h>
#include <stdint.h>

/* --- bzImage: the real-mode setup header, at file offset 0x1f1 --- */
#define LINUX_SETUP_HDR_OFF	0x1f1u
#define LINUX_BOOT_FLAG		0xaa55u		/* at 0x1fe */
#define LINUX_HDRS_MAGIC	0x53726448u	/* "HdrS" at 0x202, little-endian */
#define LINUX_SECTOR		512u
#define LINUX_SETUP_SECTS_DEF	4u		/* setup_sects == 0 means 4 */
#define LINUX_PROTO(maj, min)	(((maj) << 8) | (min))
#define LINUX_PROTO_PAYLOAD	LINUX_PROTO(2, 8)	/* payload_offset/length */
#define LINUX_LOADED_HIGH	(1u << 0)	/* loadflags: protected-mode code at 1 MiB */

struct linux_setup_header {
	uint8_t setup_sects;		/* 0x1f1 */
	uint16_t root_flags;		/* 0x1f2 */
	uint32_t syssize;		/* 0x1f4 */
	uint16_t ram_size;		/* 0x1f8 */
	uint16_t vid_mode;		/* 0x1fa */
	uint16_t root_dev;		/* 0x1fc */
	uint16_t boot_flag;		/* 0x1fe */
	uint16_t jump;			/* 0x200 */
	uint32_t header;		/* 0x202 */
	uint16_t version;		/* 0x206 */
	uint32_t realmode_swtch;	/* 0x208 */
	uint16_t start_sys_seg;		/* 0x20c */
	uint16_t kernel_version;	/* 0x20e */
	uint8_t type_of_loader;		/* 0x210 */
	uint8_t loadflags;		/* 0x211 */
	uint16_t setup_move_size;	/* 0x212 */
	uint32_t code32_start;		/* 0x214 */
	uint32_t ramdisk_image;		/* 0x218 */
	uint32_t ramdisk_size;		/* 0x21c */
	uint32_t bootsect_kludge;	/* 0x220 */
	uint16_t heap_end_ptr;		/* 0x224 */
	uint8_t ext_loader_ver;		/* 0x226 */
	uint8_t ext_loader_type;	/* 0x227 */
	uint32_t cmd_line_ptr;		/* 0x228 */
	uint32_t initrd_addr_max;	/* 0x22c */
	uint32_t kernel_alignment;	/* 0x230 */
	uint8_t relocatable_kernel;	/* 0x234 */
	uint8_t min_alignment;		/* 0x235 */
	uint16_t xloadflags;		/* 0x236 */
	uint32_t cmdline_size;		/* 0x238, protocol 2.06+ */
	uint32_t hardware_subarch;	/* 0x23c */
	uint64_t hardware_subarch_data;	/* 0x240 */
	uint32_t payload_offset;	/* 0x248, 2.08+: from the protected-mode code */
	uint32_t payload_length;	/* 0x24c */
	uint64_t setup_data;		/* 0x250 */
	uint64_t pref_address;		/* 0x258 */
	uint32_t init_size;		/* 0x260 */
	uint32_t handover_offset;	/* 0x264 */
	uint32_t kernel_info_offset;	/* 0x268, 2.15+ */
} __attribute__((packed));

#define LINUX_HDR_AT(field, off) \
	_Static_assert(LINUX_SETUP_HDR_OFF + offsetof(struct linux_setup_header, field) == (off), \
		       "setup header: " #field " is not at " #off)
LINUX_HDR_AT(setup_sects, 0x1f1);
LINUX_HDR_AT(boot_flag, 0x1fe);
LINUX_HDR_AT(header, 0x202);
LINUX_HDR_AT(version, 0x206);
LINUX_HDR_AT(loadflags, 0x211);
LINUX_HDR_AT(code32_start, 0x214);
LINUX_HDR_AT(cmd_line_ptr, 0x228);
LINUX_HDR_AT(initrd_addr_max, 0x22c);
LINUX_HDR_AT(xloadflags, 0x236);
LINUX_HDR_AT(cmdline_size, 0x238);
LINUX_HDR_AT(payload_offset, 0x248);
LINUX_HDR_AT(payload_length, 0x24c);
LINUX_HDR_AT(pref_address, 0x258);
LINUX_HDR_AT(init_size, 0x260);
LINUX_HDR_AT(kernel_info_offset, 0x268);
#undef LINUX_HDR_AT
_Static_assert(sizeof(struct linux_setup_header) == 0x26c - 0x1f1, "setup header size");
#define LINUX_SETUP_HDR_END	(LINUX_SETUP_HDR_OFF + sizeof(struct linux_setup_header))

/* --- PVH: the Xen ELF notes a vmlinux carries (name "Xen") --- */
#define XEN_ELFNOTE_NAME	"Xen"
#define XEN_ELFNOTE_PHYS32_ENTRY 18u	/* desc: 32-bit physical entry (4 or 8 bytes) */
#define XEN_ELFNOTE_PHYS32_RELOC 19u	/* desc: u32 align, min, max (6.12+) */

/* --- PVH: what EBX points to at the 32-bit entry --- */
#define HVM_START_MAGIC		0x336ec578u
#define HVM_START_VERSION	1u	/* memmap fields; Linux BUG()s on < 1 */

struct hvm_start_info {
	uint32_t magic;
	uint32_t version;
	uint32_t flags;
	uint32_t nr_modules;
	uint64_t modlist_paddr;
	uint64_t cmdline_paddr;
	uint64_t rsdp_paddr;
	uint64_t memmap_paddr;		/* version 1+ */
	uint32_t memmap_entries;	/* version 1+ */
	uint32_t reserved;
};
_Static_assert(offsetof(struct hvm_start_info, nr_modules) == 12, "hvm_start_info.nr_modules");
_Static_assert(offsetof(struct hvm_start_info, modlist_paddr) == 16, "hvm_start_info.modlist");
_Static_assert(offsetof(struct hvm_start_info, cmdline_paddr) == 24, "hvm_start_info.cmdline");
_Static_assert(offsetof(struct hvm_start_info, rsdp_paddr) == 32, "hvm_start_info.rsdp");
_Static_assert(offsetof(struct hvm_start_info, memmap_paddr) == 40, "hvm_start_info.memmap");
_Static_assert(offsetof(struct hvm_start_info, memmap_entries) == 48, "hvm_start_info.entries");
_Static_assert(sizeof(struct hvm_start_info) == 56, "hvm_start_info size");

struct hvm_modlist_entry {
	uint64_t paddr;
	uint64_t size;
	uint64_t cmdline_paddr;		/* 0: none */
	uint64_t reserved;
};
_Static_assert(offsetof(struct hvm_modlist_entry, cmdline_paddr) == 16, "hvm_modlist_entry");
_Static_assert(sizeof(struct hvm_modlist_entry) == 32, "hvm_modlist_entry size");

/* E820 types, as Xen's XEN_HVM_MEMMAP_TYPE_* number them. */
enum hvm_memmap_type {
	HVM_MEMMAP_RAM = 1,
	HVM_MEMMAP_RESERVED = 2,
	HVM_MEMMAP_ACPI = 3,
	HVM_MEMMAP_NVS = 4,
	HVM_MEMMAP_UNUSABLE = 5,
	HVM_MEMMAP_DISABLED = 6,
	HVM_MEMMAP_PMEM = 7,
};

struct hvm_memmap_table_entry {
	uint64_t addr;
	uint64_t size;
	uint32_t type;			/* enum hvm_memmap_type */
	uint32_t reserved;
};
_Static_assert(offsetof(struct hvm_memmap_table_entry, type) == 16, "hvm_memmap_table_entry");
_Static_assert(sizeof(struct hvm_memmap_table_entry) == 24, "hvm_memmap_table_entry size");

#endif
