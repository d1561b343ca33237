#include "util/err.h"

#include <stdio.h>

int ooms_err_vset(struct ooms_err *err, int code, const char *fmt, va_list ap)
{
	if (err) {
		err->code = code;
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	}
	return code;
}

int ooms_err_set(struct ooms_err *err, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ooms_err_vset(err, code, fmt, ap);
	va_end(ap);
	return code;
}

int ooms_err_recode(struct ooms_err *err, int code)
{
	if (err)
		err->code = code;
	return code;
}

void ooms_err_clear(struct ooms_err *err)
{
	if (err) {
		err->code = 0;
		err->msg[0] = 0;
	}
}
