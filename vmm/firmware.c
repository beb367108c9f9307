// SPDX-License-Identifier: MIT
/* The firmware's leftovers for a Multiboot kernel: see vmm/firmware.h. */
#include <errno.h>
#include <linux/kvm.h>
#include <string.h>
#include <sys/ioctl.h>

#include "vmm/errmsg.h"
#include "vmm/firmware.h"

/* iret; push ax, mov al,0x20, out 0x20,al, pop ax, iret; the same with out 0xa0 first. */
static const uint8_t stub_iret[] = { 0xcf };
static const uint8_t stub_eoi_master[] = { 0x50, 0xb0, 0x20, 0xe6, 0x20, 0x58, 0xcf };
static const uint8_t stub_eoi_both[] = { 0x50, 0xb0, 0x20, 0xe6, 0xa0, 0xe6, 0x20, 0x58, 0xcf };
#define STUB_IRET_OFF		0x00
#define STUB_MASTER_OFF		0x10
#define STUB_BOTH_OFF		0x20

static uint32_t far_ptr(unsigned int off)
{
	/* segment FW_STUBS_GPA >> 4, offset off */
	return (uint32_t)(FW_STUBS_GPA >> 4) << 16 | off;
}

int firmware_write_ivt(struct guest_mem *mem)
{
	uint32_t ivt[FW_IVT_ENTRIES];

	for (unsigned int v = 0; v < FW_IVT_ENTRIES; v++) {
		unsigned int off = STUB_IRET_OFF;

		if (v >= FW_PIC_MASTER_BASE && v < FW_PIC_MASTER_BASE + 8)
			off = STUB_MASTER_OFF;
		else if (v >= FW_PIC_SLAVE_BASE && v < FW_PIC_SLAVE_BASE + 8)
			off = STUB_BOTH_OFF;
		ivt[v] = far_ptr(off);
	}
	return mem_write(mem, FW_STUBS_GPA + STUB_IRET_OFF, stub_iret, sizeof(stub_iret)) ||
	       mem_write(mem, FW_STUBS_GPA + STUB_MASTER_OFF, stub_eoi_master,
			 sizeof(stub_eoi_master)) ||
	       mem_write(mem, FW_STUBS_GPA + STUB_BOTH_OFF, stub_eoi_both, sizeof(stub_eoi_both)) ||
	       mem_write(mem, FW_IVT_GPA, ivt, sizeof(ivt)) ? -1 : 0;
}

/* One 8259 as initialised: ICW1-4 done, vector base, mask, edge, no auto-EOI. */
static int set_pic(int vm_fd, unsigned int chip, uint8_t base, uint8_t imr)
{
	struct kvm_irqchip c = { .chip_id = chip };

	if (ioctl(vm_fd, KVM_GET_IRQCHIP, &c))
		return -1;
	c.chip.pic.irq_base = base;
	c.chip.pic.imr = imr;
	c.chip.pic.init_state = 0;
	c.chip.pic.init4 = 1;
	c.chip.pic.auto_eoi = 0;
	return ioctl(vm_fd, KVM_SET_IRQCHIP, &c);
}

/* Channel 0 counting FW_PIT_COUNT in FW_PIT_MODE, lobyte/hibyte, gate high. */
static int set_pit(int vm_fd)
{
	struct kvm_pit_state2 s;

	if (ioctl(vm_fd, KVM_GET_PIT2, &s))
		return -1;
	s.channels[0].count = FW_PIT_COUNT;
	s.channels[0].mode = FW_PIT_MODE;
	s.channels[0].rw_mode = 3;
	s.channels[0].read_state = 3;
	s.channels[0].write_state = 3;
	s.channels[0].gate = 1;
	s.channels[0].bcd = 0;
	return ioctl(vm_fd, KVM_SET_PIT2, &s);
}

int firmware_setup(int vm_fd, struct guest_mem *mem, bool pit, char *err, size_t errlen)
{
	if (firmware_write_ivt(mem))
		return errmsg(err, errlen, "guest RAM too small for the real-mode IVT");
	if (set_pic(vm_fd, KVM_IRQCHIP_PIC_MASTER, FW_PIC_MASTER_BASE, FW_PIC_MASTER_IMR) ||
	    set_pic(vm_fd, KVM_IRQCHIP_PIC_SLAVE, FW_PIC_SLAVE_BASE, FW_PIC_SLAVE_IMR))
		return errmsg(err, errlen, "KVM_SET_IRQCHIP (the 8259s as firmware leaves them): %s",
			      strerror(errno));
	if (pit && set_pit(vm_fd))
		return errmsg(err, errlen, "KVM_SET_PIT2 (channel 0 at 18.2 Hz): %s", strerror(errno));
	return 0;
}
