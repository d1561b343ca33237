#include "util/tmpdir.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static int is_dir(const char *p)
{
	struct stat st;

	return p && *p && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *ooms_tmpdir(void)
{
	const char *env = getenv("TMPDIR");

	if (is_dir(env))
		return env;
	if (is_dir("/tmp"))
		return "/tmp";
	return "/data/local/tmp";
}

const char *ooms_default_out_dir(void)
{
	static char dir[4096 + 2];

	if (access(".", W_OK) == 0)
		return "";
	snprintf(dir, sizeof(dir), "%s/", ooms_tmpdir());
	return dir;
}
