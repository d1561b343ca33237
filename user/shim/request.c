/* The shim's control requests, read from their line (request.h). */
#define _GNU_SOURCE
#include "shim/request.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hprof/io.h"
#include "hprof/transform.h"

#define MAX_WORDS 8

static int parse_mode(const char *w, int *op)
{
	if (!w || !strcmp(w, "app"))
		*op = HPROF_OP_STRIP_APP;
	else if (!strcmp(w, "koom"))
		*op = HPROF_OP_STRIP_KOOM;
	else
		return -1;
	return 0;
}

static int parse_codec(const char *w, int *codec, int *level)
{
	if (!w || !strcmp(w, "gzip")) {
		*codec = HPROF_GZIP;
		*level = 1; /* fast: the child holds a copy of the heap while it writes */
	} else if (!strcmp(w, "xz")) {
		*codec = HPROF_XZ;
		*level = 0;
	} else if (!strcmp(w, "none")) {
		*codec = HPROF_PLAIN;
		*level = 0;
	} else {
		return -1;
	}
	return 0;
}

/* dump PATH [...] / dumpfd [...] / armoom [...]: the output and settings. */
static int parse_dump(char **w, int nw, int has_fd, struct shim_request *r, char *reply, size_t reply_len)
{
	int fdmode = r->cmd != SHIM_CMD_DUMP, a = fdmode ? 1 : 2;

	if ((!fdmode && nw < 2) || (fdmode && !has_fd)) {
		snprintf(reply, reply_len,
			 "error usage: dump PATH [app|koom [gzip|xz|none [LEVEL]]], or dumpfd/armoom [...] with an fd");
		return -1;
	}
	if (parse_mode(nw > a ? w[a] : NULL, &r->op) ||
	    parse_codec(nw > a + 1 ? w[a + 1] : NULL, &r->codec, &r->level)) {
		snprintf(reply, reply_len, "error unknown mode or codec (modes: app, koom; codecs: gzip, xz, none)");
		return -1;
	}
	if (nw > a + 2)
		r->level = atoi(w[a + 2]);
	r->path = fdmode ? NULL : w[1];
	return 0;
}

int shim_request_parse(char *line, int has_fd, struct shim_request *r, char *reply, size_t reply_len)
{
	char *w[MAX_WORDS], *save = NULL;
	int nw = 0;

	memset(r, 0, sizeof(*r));
	for (char *tok = strtok_r(line, " \t\r", &save); tok && nw < MAX_WORDS; tok = strtok_r(NULL, " \t\r", &save))
		w[nw++] = tok;
	if (!nw) {
		snprintf(reply, reply_len, "error empty request");
		return -1;
	}
	if (!strcmp(w[0], "ping")) {
		r->cmd = SHIM_CMD_PING;
	} else if (!strcmp(w[0], "heap")) {
		r->cmd = SHIM_CMD_HEAP;
	} else if (!strcmp(w[0], "dump") || !strcmp(w[0], "dumpfd") || !strcmp(w[0], "armoom")) {
		r->cmd = !strcmp(w[0], "dump") ? SHIM_CMD_DUMP : !strcmp(w[0], "dumpfd") ? SHIM_CMD_DUMPFD : SHIM_CMD_ARMOOM;
		return parse_dump(w, nw, has_fd, r, reply, reply_len);
	} else {
		snprintf(reply, reply_len, "error unknown command '%s' (ping, heap, dump, dumpfd, armoom)", w[0]);
		return -1;
	}
	return 0;
}
