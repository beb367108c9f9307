/* SPDX-License-Identifier: MIT */
#ifndef GUEST_TESTS_VMEXIT_H
#define GUEST_TESTS_VMEXIT_H

#include "lib/bench.h"

/* Print each CPL0 hypercall row's single-stepped path length and the CPL0 cost per instruction. */
void vmexit_report_paths(const struct bench_case *rows, u32 n);

#endif
