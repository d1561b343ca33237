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
 * "error"/"busy" answer or no answer, 2 for bad usage. It speaks through
 * oomscope's client (runtime/shim_client.h), as another program would,
 * with no peer check (a test points it at sockets that are not the shim's). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/shim_client.h"
#include "shim/proto.h"

int main(int argc, char **argv)
{
	char req[1024] = "", last[1024] = "", name[128];
	const char *out = NULL, *sock = NULL;
	int c, s, e, fd = -1, n = 0;
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
	if (!sock) {
		snprintf(name, sizeof(name), "@" SHIM_SOCKET_FMT, atoi(argv[optind]));
		sock = name;
	}
	for (int i = optind + (sock == name ? 1 : 0); i < argc; i++)
		snprintf(req + strlen(req), sizeof(req) - strlen(req), "%s%s", strlen(req) ? " " : "", argv[i]);
	strncat(req, "\n", sizeof(req) - strlen(req) - 1);
	if ((s = shim_client_connect_named(sock)) < 0) {
		fprintf(stderr, "shimctl: connect %s: %s\n", sock, strerror(-s));
		return 1;
	}
	if (out && (fd = open(out, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0) {
		fprintf(stderr, "shimctl: %s: %s\n", out, strerror(errno));
		return 1;
	}
	/* a refused client gets its answer and a closed socket before it sends:
	 * read the answer whatever the send says */
	if ((e = shim_client_send(s, req, fd)) && e != -EPIPE && e != -ECONNRESET) {
		fprintf(stderr, "shimctl: send: %s\n", strerror(-e));
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
	return shim_line_is(last, SHIM_OK) || shim_line_is(last, SHIM_DONE) ? 0 : 1;
}
