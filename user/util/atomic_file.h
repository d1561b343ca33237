/* Output files that appear whole or not at all: written to a temporary file
 * in the same directory, renamed over the final name when complete.
 *
 * A path that names a character device, a FIFO or a socket (/dev/null,
 * /dev/stdout, a named pipe) is written in place instead: renaming over it
 * would replace the device node with a regular file. */
#ifndef OOMSCOPE_ATOMIC_FILE_H
#define OOMSCOPE_ATOMIC_FILE_H

#include <stdbool.h>
#include <stdio.h>

struct atomic_file {
	FILE *f;
	bool direct; /* writing straight into a device, FIFO or socket */
	char path[4096];
	char tmp[4096];
};

/* True when path exists and is a character device, FIFO or socket
 * (symlinks followed: /dev/stdout is one). */
bool path_is_stream(const char *path);
/* True when path is a symbolic link that does not lead to a stream: an
 * output a user named is refused so (oomscope runs as root; a link planted
 * at the name would have it replace or write what the link names), while
 * /dev/stdout, a link to a stream, stays usable. */
bool path_is_refused_link(const char *path);
/* Opens a temp file beside path (mode 0644, O_EXCL|O_NOFOLLOW, close-on-exec),
 * or path itself when it is a stream. 0 or -errno. */
int atomic_open(struct atomic_file *af, const char *path);
/* The same with a file mode (0600 for heap dumps: they hold user data). */
int atomic_open_mode(struct atomic_file *af, const char *path, int mode);
/* Flushes, fsyncs and renames into place. 0 or -errno (the temp file is removed). */
int atomic_commit(struct atomic_file *af);
/* Drops the temp file. */
void atomic_abort(struct atomic_file *af);

#endif
