/* A client of the shim's control socket for the tests: sends one request
 * line and prints every line of the answer until the shim closes.
 *   shimctl PID REQUEST...            e.g. shimctl 4242 ping
 *   shimctl -f OUT PID REQUEST...     creates OUT (0600, O_EXCL) and passes it
 *                                     (for "dumpfd ...")
 *   shimctl -s SOCKET REQUEST...      a socket path instead of a PID
 * Exits 0 when the answer's last line starts with "ok" or "done", 1 for an
 * "error"/"busy" answer or no answer, 2 for bad usage. Stand-alone on
 * purpose: it is what another user's program would do. */
#define _GNU_SOURCE
#include <errno.h>
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
	if (sock)
		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock);
	else
		snprintf(sa.sun_path, sizeof(sa.sun_path), "/proc/%s/root/tmp/.oomscope-shim.%s", argv[optind], argv[optind]);
	for (int i = optind + (sock ? 0 : 1); i < argc; i++)
		snprintf(req + strlen(req), sizeof(req) - strlen(req), "%s%s", strlen(req) ? " " : "", argv[i]);
	strncat(req, "\n", sizeof(req) - strlen(req) - 1);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0 || connect(s, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		fprintf(stderr, "shimctl: connect %s: %s\n", sa.sun_path, strerror(errno));
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
