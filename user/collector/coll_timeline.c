/* The timeline (timeline.jsonl): each record written whole, in one write,
 * and to stdout with --json. */
#define _GNU_SOURCE
#include "collector/coll.h"
#include <unistd.h>

/* One record to the timeline in one write: a full disk never leaves half
 * a line (what was written of it is cut off again). A record that cannot be
 * written is counted (the end record's timeline_lost); the first such is
 * said once on stderr, and the watch goes on. */
static void timeline_write(struct coll *c, void (*body)(struct json *j, void *arg), void *arg)
{
	char *buf = NULL;
	size_t len = 0, done = 0;
	FILE *m = open_memstream(&buf, &len);
	int fd = fileno(c->timeline), err = 0;
	off_t at;
	struct json j;

	if (!m) {
		err = errno;
		goto lost;
	}
	json_init(&j, m, 0);
	body(&j, arg);
	json_end_line(&j);
	if (fclose(m) || !buf) {
		err = ENOMEM;
		goto lost;
	}
	at = lseek(fd, 0, SEEK_END);
	while (done < len) {
		ssize_t n = write(fd, buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? errno : ENOSPC;
			if (at >= 0 && ftruncate(fd, at) == 0)
				lseek(fd, at, SEEK_SET);
			goto lost;
		}
		done += (size_t)n;
	}
	free(buf);
	return;
lost:
	free(buf);
	if (!c->timeline_lost++)
		coll_err("timeline: %s: records from %.1f s on are not written (the watch goes on; its live output "
			 "and the snapshot files still are)", strerror(err), coll_since(c));
}

/* One JSON object per line to the timeline, and to stdout with --json. */
void coll_emit(struct coll *c, void (*body)(struct json *j, void *arg), void *arg)
{
	struct json j;

	if (c->timeline)
		timeline_write(c, body, arg);
	if (c->o->json) {
		json_init(&j, stdout, 0);
		body(&j, arg);
		json_end_line(&j);
		fflush(stdout);
	}
}
