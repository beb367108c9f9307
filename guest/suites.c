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

#define NR_SUITES	((size_t)(__suites_end - __suites_start))
#define suites		__suites_start

#define MAX_WORDS	64
#define WORD_MAX	64

struct word {
	char text[WORD_MAX];
};

static const struct suite *find_suite(const char *name)
{
	for (size_t i = 0; i < NR_SUITES; i++)
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
	for (size_t i = 0; i < NR_SUITES; i++)
		printf("  %c %-15s %-8s %s\n", suites[i].in_default_set ? '*' : ' ',
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
	for (size_t i = 0; i < NR_SUITES; i++)
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
