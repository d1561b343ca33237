#define _GNU_SOURCE
#include "util/atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool path_is_stream(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}

bool path_is_refused_link(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && !path_is_stream(path);
}

int atomic_open(struct atomic_file *af, const char *path)
{
	return atomic_open_mode(af, path, 0644);
}

int atomic_open_mode(struct atomic_file *af, const char *path, int mode)
{
	int fd, n;

	af->f = NULL;
	af->direct = false;
	if (strlen(path) >= sizeof(af->path))
		return -ENAMETOOLONG;
	strcpy(af->path, path);
	af->tmp[0] = '\0';
	if (path_is_stream(path)) {
		af->direct = true;
		fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
		if (fd < 0)
			return -errno;
		goto opened;
	}
	for (int attempt = 0; attempt < 100; attempt++) {
		n = snprintf(af->tmp, sizeof(af->tmp), "%s.tmp.%d.%d", path, (int)getpid(), attempt);
		if (n < 0 || (size_t)n >= sizeof(af->tmp))
			return -ENAMETOOLONG;
		fd = open(af->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd >= 0)
			break;
		if (errno != EEXIST)
			return -errno;
	}
	if (fd < 0)
		return -EEXIST;
opened:
	af->f = fdopen(fd, "w");
	if (!af->f) {
		int err = -errno;

		close(fd);
		if (!af->direct)
			unlink(af->tmp);
		return err;
	}
	return 0;
}

int atomic_commit(struct atomic_file *af)
{
	int err = 0;

	if (!af->f)
		return -EBADF;
	if (fflush(af->f) != 0 || ferror(af->f))
		err = errno ? -errno : -EIO;
	else if (!af->direct && fsync(fileno(af->f)) != 0)
		err = -errno;
	if (fclose(af->f) != 0 && !err)
		err = -errno;
	af->f = NULL;
	if (af->direct)
		return err;
	if (!err && rename(af->tmp, af->path) != 0)
		err = -errno;
	if (err)
		unlink(af->tmp);
	return err;
}

void atomic_abort(struct atomic_file *af)
{
	if (af->f) {
		fclose(af->f);
		af->f = NULL;
		if (!af->direct)
			unlink(af->tmp);
	}
}
