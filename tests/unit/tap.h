/* Minimal TAP producer for the C unit tests: `ok N - name` lines and a plan,
 * read by scripts/run-tests.sh together with BATS's TAP output. */
#ifndef OOMSCOPE_TAP_H
#define OOMSCOPE_TAP_H

#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

/* The MiniDebugInfo files make builds (tests/unit/make_minidebuginfo.sh into
 * $(BUILD)/minidebug), from the repository's top, where the unit tests run;
 * build-arm64/ is the arm64 VM's build/. */
#define MINIDEBUG_DIR "build/minidebug"

#define TAP_OK(cond, ...)                                                      \
	do {                                                                   \
		int tap_c_ = !!(cond);                                         \
		tap_n++;                                                       \
		if (!tap_c_)                                                   \
			tap_failed++;                                          \
		printf("%sok %d - ", tap_c_ ? "" : "not ", tap_n);             \
		printf(__VA_ARGS__);                                           \
		printf("\n");                                                  \
		if (!tap_c_)                                                   \
			printf("#   failed at %s:%d: %s\n", __FILE__, __LINE__,   \
			       #cond);                                         \
	} while (0)

#define TAP_EQ_INT(got, want, ...)                                             \
	do {                                                                   \
		long long tap_g_ = (long long)(got), tap_w_ = (long long)(want); \
		TAP_OK(tap_g_ == tap_w_, __VA_ARGS__);                         \
		if (tap_g_ != tap_w_)                                          \
			printf("#   got %lld, want %lld\n", tap_g_, tap_w_);       \
	} while (0)

#define TAP_EQ_STR(got, want, ...)                                             \
	do {                                                                   \
		const char *tap_g_ = (got), *tap_w_ = (want);                  \
		int tap_e_ = tap_g_ && tap_w_ && strcmp(tap_g_, tap_w_) == 0;  \
		TAP_OK(tap_e_, __VA_ARGS__);                                   \
		if (!tap_e_)                                                   \
			printf("#   got '%s', want '%s'\n", tap_g_ ? tap_g_ : "(null)", \
			       tap_w_ ? tap_w_ : "(null)");                    \
	} while (0)

/* Print the plan last (TAP allows a trailing plan) and return the exit code. */
static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
