/* One error convention below cli/: a function that can fail returns a
 * negative errno (or -1) and, given a struct ooms_err, says in it what the
 * user should read; the caller prints msg as it is. err may be NULL where
 * only the code is wanted. */
#ifndef OOMSCOPE_UTIL_ERR_H
#define OOMSCOPE_UTIL_ERR_H

#include <stdarg.h>

/* An error below cli/: its code (a negative errno, or -1) and what to tell the user. */
struct ooms_err {
	int code;
	char msg[512]; /* one line, no "oomscope: ": the caller adds its own */
};

/* Sets both and returns code (so `return ooms_err_set(err, -ENOENT, "no %s", x);`); err may be NULL.
 * The arguments must not point into err->msg itself. */
int ooms_err_set(struct ooms_err *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The same from a va_list, for a function that takes a format of its own. */
int ooms_err_vset(struct ooms_err *err, int code, const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));
/* The same words under the code the caller returns (its own convention:
 * -1, or -EIO for a step that failed); returns code. */
int ooms_err_recode(struct ooms_err *err, int code);
/* Nothing said, code 0 (before a call whose message, if any, decides). */
void ooms_err_clear(struct ooms_err *err);

/* Whether a deeper call said what failed already: then its words are kept
 * rather than a general "out of memory". */
static inline int ooms_err_said(const struct ooms_err *err)
{
	return err && err->msg[0];
}

#endif
