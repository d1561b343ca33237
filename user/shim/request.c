/* The shim's control requests, read from their line (request.h). */
#define _GNU_SOURCE
#include "shim/request.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hprof/transform.h"
#include "shim/shim.h"

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

/* The words after the mode: "strings=N" (char and byte arrays up to N bytes
 * kept whole; 0: none), and "none", the only codec (protocol 1's word). */
static int parse_extra(char *const *w, int n, struct shim_request *r, char *reply, size_t reply_len)
{
	for (int i = 0; i < n; i++) {
		char *end;

		if (!strcmp(w[i], "none"))
			continue;
		if (!strcmp(w[i], "whole")) {
			r->whole = 1;
			continue;
		}
		if (!strcmp(w[i], "walk=jvmti") || !strcmp(w[i], "walk=hotspot")) {
			r->jvmti_walk = !strcmp(w[i], "walk=jvmti");
			continue;
		}
		if (!strncmp(w[i], "strings=", 8)) {
			long v = strtol(w[i] + 8, &end, 10);

			if (*end || end == w[i] + 8 || v < 0 || v > (1 << 20)) {
				snprintf(reply, reply_len, SHIM_ERROR " strings=N wants bytes from 0 to 1048576");
				return -1;
			}
			r->text_bytes = (int)v;
			continue;
		}
		if (!strcmp(w[i], "gzip") || !strcmp(w[i], "xz"))
			snprintf(reply, reply_len,
				 SHIM_ERROR " the shim writes plain hprof (protocol %d): the reader compresses it", SHIM_PROTOCOL);
		else
			snprintf(reply, reply_len,
				 SHIM_ERROR " unknown word '%.40s' (modes: app, koom; then strings=N, walk=hotspot|jvmti, whole)", w[i]);
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
			 SHIM_ERROR " usage: dump PATH [app|koom [strings=N]], or dumpfd/armoom [...] with an fd");
		return -1;
	}
	r->text_bytes = HPROF_TEXT_BYTES;
	if (parse_mode(nw > a ? w[a] : NULL, &r->op)) {
		snprintf(reply, reply_len, SHIM_ERROR " unknown mode '%.40s' (app, koom)", w[a]);
		return -1;
	}
	if (nw > a + 1 && parse_extra(w + a + 1, nw - a - 1, r, reply, reply_len))
		return -1;
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
		snprintf(reply, reply_len, SHIM_ERROR " empty request");
		return -1;
	}
	if (!strcmp(w[0], SHIM_REQ_PING)) {
		r->cmd = SHIM_CMD_PING;
	} else if (!strcmp(w[0], SHIM_REQ_HEAP)) {
		r->cmd = SHIM_CMD_HEAP;
	} else if (!strcmp(w[0], SHIM_REQ_JAVASTACKS)) {
		r->cmd = SHIM_CMD_JAVASTACKS;
		if (nw > 1 && strcmp(w[1], "nostacks")) {
			snprintf(reply, reply_len, SHIM_ERROR " unknown word '%.40s' (javastacks [nostacks])", w[1]);
			return -1;
		}
		r->no_stacks = nw > 1;
	} else if (!strcmp(w[0], SHIM_REQ_DUMP) || !strcmp(w[0], SHIM_REQ_DUMPFD) || !strcmp(w[0], SHIM_REQ_ARMOOM)) {
		r->cmd = !strcmp(w[0], SHIM_REQ_DUMP) ? SHIM_CMD_DUMP : !strcmp(w[0], SHIM_REQ_DUMPFD) ? SHIM_CMD_DUMPFD : SHIM_CMD_ARMOOM;
		return parse_dump(w, nw, has_fd, r, reply, reply_len);
	} else {
		snprintf(reply, reply_len, SHIM_ERROR " unknown command '%s' (ping, heap, dump, dumpfd, armoom, javastacks)", w[0]);
		return -1;
	}
	return 0;
}
