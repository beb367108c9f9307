// SPDX-License-Identifier: MIT
/* Telling KVM's reset of a shut-down vCPU (SVM) from a real faulting state. */
#include <check.h>
#include <linux/kvm.h>
#include <string.h>

#include "tests/unit/suites.h"
#include "vmm/resetstate.h"
#include "vmm/x86.h"

/* What KVM_GET_REGS/SREGS return after KVM on SVM handled a SHUTDOWN intercept. */
static void kvm_init_state(struct kvm_regs *r, struct kvm_sregs *s)
{
	memset(r, 0, sizeof(*r));
	memset(s, 0, sizeof(*s));
	r->rip = 0xfff0;
	r->rflags = 0x2;
	r->rdx = 0x00a00f11;		/* CPUID.1:EAX, as KVM puts it in RDX */
	s->cs.selector = 0xf000;
	s->cs.base = 0xffff0000;
	s->cs.limit = 0xffff;
	s->cr0 = 0x60000010;		/* CD | NW | ET */
}

/* Where our 64-bit payload was when it triple-faulted on kvm_pvm. */
static void long_mode_fault(struct kvm_regs *r, struct kvm_sregs *s)
{
	memset(r, 0, sizeof(*r));
	memset(s, 0, sizeof(*s));
	r->rip = 0x115368;
	r->rsp = 0x417f70;
	r->rflags = 0x10002;
	s->cs.selector = 0x08;
	s->cs.l = 1;
	s->cr0 = X86_CR0_BOOT;
	s->cr4 = X86_CR4_BOOT;
	s->efer = X86_EFER_BOOT;
}

START_TEST(test_reset_state_after_svm_shutdown)
{
	struct kvm_regs r;
	struct kvm_sregs s;

	kvm_init_state(&r, &s);
	ck_assert(x86_is_reset_state(&r, &s));
}
END_TEST

START_TEST(test_long_mode_fault_is_not_reset)
{
	struct kvm_regs r;
	struct kvm_sregs s;

	long_mode_fault(&r, &s);
	ck_assert(!x86_is_reset_state(&r, &s));
	/* A 64-bit guest that happened to fault at RIP fff0 is still its own state. */
	r.rip = 0xfff0;
	r.rflags = 0x2;
	ck_assert(!x86_is_reset_state(&r, &s));
}
END_TEST

/* Each field on its own keeps the reset verdict from a state that only looks like it. */
START_TEST(test_one_field_off_is_not_reset)
{
	struct kvm_regs r;
	struct kvm_sregs s;

	kvm_init_state(&r, &s);
	r.rip = 0xfff1;
	ck_assert(!x86_is_reset_state(&r, &s));

	kvm_init_state(&r, &s);
	r.rflags = 0x202;		/* IF set: the guest ran after the reset */
	ck_assert(!x86_is_reset_state(&r, &s));

	kvm_init_state(&r, &s);
	s.cs.base = 0xf0000;		/* real-mode code at f000:fff0 with a reloaded CS */
	ck_assert(!x86_is_reset_state(&r, &s));

	kvm_init_state(&r, &s);
	s.cs.selector = 0;
	ck_assert(!x86_is_reset_state(&r, &s));

	kvm_init_state(&r, &s);
	s.cr0 |= X86_CR0_PE;		/* a Multiboot kernel runs in protected mode */
	ck_assert(!x86_is_reset_state(&r, &s));

	kvm_init_state(&r, &s);
	s.efer = X86_EFER_LMA;
	ck_assert(!x86_is_reset_state(&r, &s));
}
END_TEST

/* General registers other than RIP/RFLAGS do not matter: KVM sets RDX, VMMs differ. */
START_TEST(test_gprs_do_not_decide)
{
	struct kvm_regs r;
	struct kvm_sregs s;

	kvm_init_state(&r, &s);
	r.rdx = 0x600;
	r.rsp = 0;
	r.rax = 0x1234;
	ck_assert(x86_is_reset_state(&r, &s));
}
END_TEST

static Suite *resetstate_suite(void)
{
	Suite *s = suite_create("resetstate");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_reset_state_after_svm_shutdown);
	tcase_add_test(tc, test_long_mode_fault_is_not_reset);
	tcase_add_test(tc, test_one_field_off_is_not_reset);
	tcase_add_test(tc, test_gprs_do_not_decide);
	suite_add_tcase(s, tc);
	return s;
}
UNIT_SUITE(resetstate_suite);
