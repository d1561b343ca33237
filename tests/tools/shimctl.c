/* A client of the shim's control socket for the tests: sends one request
 * line and prints every line of the answer until the shim closes.
 *   shimctl PID REQUEST...            e.g. shimctl 4242 ping
 *   shimctl -f OUT PID REQUEST...     creates OUT (0600, O_EXCL) and passes it
 *                                     (for "dumpfd ...")
 *   shimctl -s SOCKET REQUEST...      a socket instead of a PID's ("@name":
 *                                     abstract)
 * A PID's socket is the abstract "oomscope-shim.PID" (the shim's protocol 2),
 * in shimctl's own network namespace.
 * Exits 0 when the answer's last line starts with "ok" or "done", 1 for an
 * "error"/"busy" answer or no answer, 2 for bad usage. Stand-alone on
 * purpose: it is what another user's program would do. */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	char req[1024] = "", last[1024] = "", cbuf[CMSG_SPACE(sizeof(int))];
	const char *out = NULL, *sock = NULL;
	struct iovec iov;
	struct msghdr m;
	int c, s, fd = -1, n = 0;
	char ch;

	while ((c = getopt(argc, argv, "+f:s:")) != -1) {
		if (c == 'f')
			out = optarg;
		else if (c == 's')
			sock = optarg;
		else
			return 2;
	}
	if (optind + (sock ? 1 : 2) > argc) {
		fprintf(stderr, "usage: shimctl [-f OUT] PID|-s SOCKET REQUEST...\n");
		return 2;
	}
	if (sock && sock[0] != '@')
		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock);
	else if (sock)
		snprintf(sa.sun_path + 1, sizeof(sa.sun_path) - 1, "%s", sock + 1);
	else
		snprintf(sa.sun_path + 1, sizeof(sa.sun_path) - 1, "oomscope-shim.%s", argv[optind]);
	/* an abstract name's address is as long as the name, no NUL after */
	socklen_t salen = sa.sun_path[0] ? sizeof(sa)
					 : (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(sa.sun_path + 1));
	for (int i = optind + (sock ? 0 : 1); i < argc; i++)
		snprintf(req + strlen(req), sizeof(req) - strlen(req), "%s%s", strlen(req) ? " " : "", argv[i]);
	strncat(req, "\n", sizeof(req) - strlen(req) - 1);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0 || connect(s, (struct sockaddr *)&sa, salen) != 0) {
		fprintf(stderr, "shimctl: connect %s%s: %s\n", sa.sun_path[0] ? "" : "@", sa.sun_path[0] ? sa.sun_path : sa.sun_path + 1,
			strerror(errno));
		return 1;
	}
	memset(&m, 0, sizeof(m));
	iov.iov_base = req;
	iov.iov_len = strlen(req);
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	if (out) {
		struct cmsghdr *h;

		fd = open(out, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0) {
			fprintf(stderr, "shimctl: %s: %s\n", out, strerror(errno));
			return 1;
		}
		m.msg_control = cbuf;
		m.msg_controllen = sizeof(cbuf);
		h = CMSG_FIRSTHDR(&m);
		h->cmsg_level = SOL_SOCKET;
		h->cmsg_type = SCM_RIGHTS;
		h->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(h), &fd, sizeof(int));
	}
	/* a refused client gets its answer and a closed socket before it sends:
	 * read the answer whatever the send says */
	if (sendmsg(s, &m, MSG_NOSIGNAL) < 0 && errno != EPIPE && errno != ECONNRESET) {
		fprintf(stderr, "shimctl: send: %s\n", strerror(errno));
		return 1;
	}
	if (fd >= 0)
		close(fd);
	while (read(s, &ch, 1) == 1) {
		putchar(ch);
		if (ch == '\n') {
			last[n] = 0;
			n = 0;
			fflush(stdout);
		} else if (n < (int)sizeof(last) - 1) {
			last[n++] = ch;
		}
	}
	return !strncmp(last, "ok", 2) || !strncmp(last, "done", 4) ? 0 : 1;
}
