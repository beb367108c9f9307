// SPDX-License-Identifier: MIT
/*
 * The suite table and the command line: space-separated suite names, each
 * optionally followed by its argument ("exit 7"). All names are checked
 * before anything runs, so a typo costs nothing.
 */
#include "lib/exit.h"
#include "lib/printf.h"
#include "lib/report.h"
#include "lib/string.h"
#include "suite.h"

static const struct suite suites[] = {
	{ "smoke", suite_smoke, true, NULL,
	  "vCPUs online, IPIs, exceptions, CPL3 round trip, results record" },
	{ "unclaimed", suite_unclaimed, false, NULL,
	  "unclaimed port, MMIO and MSR accesses read all ones / #GP" },
	{ "hv", suite_hv, false, NULL,
	  "Hyper-V leaves, hypercall page, unknown code in all three encodings" },
	{ "vmcall", suite_vmcall, false, NULL,
	  "VMCALL/VMMCALL raise #UD (hangs where the VMM cannot disable the quirk)" },
	{ "exit", suite_exit, false, "STATUS",
	  "exit at once with STATUS (default 0) through the exit port" },
	{ "triple-fault", suite_triple_fault, false, NULL,
	  "empty IDT + #UD: the VMM must report a triple fault (exit 3)" },
	{ "spin", suite_spin, false, NULL,
	  "spin forever at CPL0 with interrupts off: the VMM's --timeout must end it" },
};

#define MAX_WORDS	64
#define WORD_MAX	64

struct word {
	char text[WORD_MAX];
};

static const struct suite *find_suite(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(suites); i++)
		if (!strcmp(suites[i].name, name))
			return &suites[i];
	return NULL;
}

/*
 * Split on spaces; words longer than WORD_MAX-1 are cut (and then unknown).
 * Returns max + 1 when there are more than max words.
 */
static size_t split(const char *s, struct word *w, size_t max)
{
	size_t n = 0;

	for (;;) {
		size_t len = 0;

		while (*s == ' ')
			s++;
		if (!*s)
			break;
		if (n == max)
			return max + 1;
		while (s[len] && s[len] != ' ')
			len++;
		memcpy(w[n].text, s, MIN(len, (size_t)WORD_MAX - 1));
		w[n].text[MIN(len, (size_t)WORD_MAX - 1)] = '\0';
		n++;
		s += len;
	}
	return n;
}

static __noreturn void unknown_suite(const char *name)
{
	report_fail("command line", "unknown suite '%s'", name);
	printf("known suites (* = default set):\n");
	for (size_t i = 0; i < ARRAY_SIZE(suites); i++)
		printf("  %c %-13s %-7s %s\n", suites[i].in_default_set ? '*' : ' ',
		       suites[i].name, suites[i].arg_name ? suites[i].arg_name : "",
		       suites[i].description);
	guest_exit(EXIT_USAGE);
}

/* The argument word after suite word i, if the suite takes one and it is there. */
static const char *suite_arg(const struct suite *s, const struct word *w, size_t i,
			     size_t n)
{
	if (!s->arg_name || i + 1 >= n || find_suite(w[i + 1].text))
		return NULL;
	return w[i + 1].text;
}

static void run_one(const struct suite *s, const char *arg)
{
	printf("suite %s%s%s\n", s->name, arg ? " " : "", arg ? arg : "");
	report_set_suite(s->name);
	s->run(arg);
	report_set_suite(NULL);
}

static void run_defaults(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(suites); i++)
		if (suites[i].in_default_set)
			run_one(&suites[i], NULL);
}

void suites_run(const char *cmdline)
{
	static struct word words[MAX_WORDS];
	size_t n = split(cmdline, words, MAX_WORDS);

	if (n > MAX_WORDS) {
		report_fail("command line", "more than %u words", MAX_WORDS);
		guest_exit(EXIT_USAGE);
	}
	for (size_t i = 0; i < n; i++) {
		const struct suite *s = find_suite(words[i].text);

		if (!s)
			unknown_suite(words[i].text);
		if (suite_arg(s, words, i, n))
			i++;
	}
	if (!n) {
		run_defaults();
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const struct suite *s = find_suite(words[i].text);
		const char *arg = suite_arg(s, words, i, n);

		run_one(s, arg);
		if (arg)
			i++;
	}
}
