/* The error convention below cli/ (util/err.h): a code and one line, set
 * together, through a pointer that may be NULL. */
#include <errno.h>
#include <string.h>
#include "util/err.h"
#include "tap.h"

int main(void)
{
	struct ooms_err err = {0};
	char longer[700];

	TAP_EQ_INT(ooms_err_set(&err, -ENOENT, "no %s", "dump.hprof"), -ENOENT, "set returns the code");
	TAP_EQ_INT(err.code, -ENOENT, "and keeps it");
	TAP_EQ_STR(err.msg, "no dump.hprof", "with the words formatted");
	TAP_OK(ooms_err_said(&err), "said");
	TAP_EQ_INT(ooms_err_recode(&err, -1), -1, "recode returns the new code");
	TAP_OK(err.code == -1 && !strcmp(err.msg, "no dump.hprof"), "and keeps the words");
	ooms_err_clear(&err);
	TAP_OK(err.code == 0 && !err.msg[0] && !ooms_err_said(&err), "cleared: nothing said");
	/* no struct: only the code is wanted */
	TAP_EQ_INT(ooms_err_set(NULL, -EINVAL, "ignored %d", 1), -EINVAL, "NULL: the code still returned");
	TAP_EQ_INT(ooms_err_recode(NULL, -EIO), -EIO, "NULL: recode too");
	ooms_err_clear(NULL);
	TAP_OK(!ooms_err_said(NULL), "NULL: nothing said");
	/* a message longer than the buffer is cut, terminated */
	memset(longer, 'x', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = 0;
	ooms_err_set(&err, -E2BIG, "%s", longer);
	TAP_EQ_INT(strlen(err.msg), sizeof(err.msg) - 1, "a long message cut to the buffer");
	return tap_done();
}
