/* SPDX-License-Identifier: MIT */
/* Each device registers its ranges on the VM's bus; one device per file. */
#ifndef VMM_DEV_DEVICES_H
#define VMM_DEV_DEVICES_H

struct vm;
struct vcpu;

int console_register(struct vm *vm);
/* Write out whatever a vCPU left without a newline (at exit). */
void console_flush(struct vcpu *v);
int exit_dev_register(struct vm *vm);
int results_dev_register(struct vm *vm);
int null_dev_register(struct vm *vm);
int ctrl_dev_register(struct vm *vm);
/* Multiboot kernels only: PCI config space with nothing behind it. */
int pciconf_dev_register(struct vm *vm);

#endif
