/* SPDX-License-Identifier: MIT */
#ifndef VMM_REPORT_H
#define VMM_REPORT_H

#include <stdio.h>

#include "vmm/vm.h"

/* Before the sandbox: what the reports would otherwise open at the end. */
void report_prepare(void);
void report_banner(const struct vm *vm, FILE *f);
void report_results(const struct vm *vm, FILE *f);
void report_stats(const struct vm *vm, FILE *f);
int report_json(const struct vm *vm, const char *path, int exit_status);

#endif
