/* Output files that appear whole or not at all: written to a temporary file
 * in the same directory, renamed over the final name when complete. */
#ifndef OOMSCOPE_ATOMIC_FILE_H
#define OOMSCOPE_ATOMIC_FILE_H

#include <stdio.h>

struct atomic_file {
	FILE *f;
	char path[4096];
	char tmp[4096];
};

/* Opens a temp file beside path (mode 0644, O_EXCL|O_NOFOLLOW, close-on-exec).
 * 0 or -errno. */
int atomic_open(struct atomic_file *af, const char *path);
/* The same with a file mode (0600 for heap dumps: they hold user data). */
int atomic_open_mode(struct atomic_file *af, const char *path, int mode);
/* Flushes, fsyncs and renames into place. 0 or -errno (the temp file is removed). */
int atomic_commit(struct atomic_file *af);
/* Drops the temp file. */
void atomic_abort(struct atomic_file *af);

#endif
