/* SPDX-License-Identifier: MIT */
#ifndef TESTS_UNIT_SUITES_H
#define TESTS_UNIT_SUITES_H

#include <check.h>

Suite *mem_suite(void);
Suite *loader_suite(void);
Suite *options_suite(void);
Suite *bus_suite(void);
Suite *stats_suite(void);
Suite *results_suite(void);
Suite *hv_suite(void);
Suite *hv_page_suite(void);
Suite *hv_linux_suite(void);
Suite *ratelimit_suite(void);
Suite *insn_out_suite(void);
Suite *multiboot_suite(void);
Suite *acpi_suite(void);
Suite *devices_suite(void);
Suite *sandbox_suite(void);
Suite *vpset_suite(void);
Suite *xmm_calib_suite(void);
Suite *vcpu_hold_suite(void);
Suite *resetstate_suite(void);
Suite *cpuid_suite(void);
Suite *linux_cmdline_suite(void);
Suite *linux_bzimage_suite(void);
Suite *linux_pvh_suite(void);
Suite *linux_boot_suite(void);

#endif
