/* Fuzzing the shim's control requests (shim/request.c) on arbitrary bytes:
 * the first line (as the control thread reads it: up to a newline, at most
 * 4399 bytes) is read with and without an fd passed. An answer is a known
 * command with known settings and, for dump, a path that is one word of the
 * line; a refusal is an "error ..." line; the fd changes nothing but
 * dumpfd's and armoom's need of one (without it the usage is the answer). With OOMS_FUZZ_PRINT set (the replays
 * in tests/bats/fuzz.bats) each input's reading is printed. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hprof/io.h"
#include "hprof/transform.h"
#include "shim/request.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define LINE 4400 /* control.c's line buffer */

static const char *names[] = {"ping", "heap", "dump", "dumpfd", "armoom", "javastacks"};

static int parse(const char *line, size_t len, int has_fd, struct shim_request *r, char *reply, size_t reply_len,
		 char *copy)
{
	int e;

	memcpy(copy, line, len);
	copy[len] = 0;
	memset(reply, 0x5a, reply_len);
	e = shim_request_parse(copy, has_fd, r, reply, reply_len);
	if (e == 0) {
		if ((unsigned)r->cmd > SHIM_CMD_JAVASTACKS || (r->op != HPROF_OP_STRIP_APP && r->op != HPROF_OP_STRIP_KOOM) ||
		    r->text_bytes < 0 || r->text_bytes > (1 << 20))
			abort();
		if (r->cmd == SHIM_CMD_DUMP) {
			/* one word of the line: inside it, not empty, no separator */
			if (!r->path || r->path < copy || r->path >= copy + len || !r->path[0] ||
			    strpbrk(r->path, " \t\r"))
				abort();
		} else if (r->path) {
			abort();
		}
		if ((r->cmd == SHIM_CMD_DUMPFD || r->cmd == SHIM_CMD_ARMOOM) && !has_fd)
			abort();
		if (r->no_stacks && r->cmd != SHIM_CMD_JAVASTACKS)
			abort();
	} else if (e != -1 || !memchr(reply, 0, reply_len) || strncmp(reply, "error ", 6)) {
		abort();
	}
	return e;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char copy0[LINE], copy1[LINE];
	const uint8_t *nl = memchr(data, '\n', size);
	size_t len = nl ? (size_t)(nl - data) : size;
	struct shim_request r0, r1;
	char reply0[512], reply1[512];
	char *line;
	int e0, e1;

	if (len > LINE - 1)
		len = LINE - 1;
	if (!(line = malloc(len ? len : 1))) /* exactly len bytes */
		abort();
	memcpy(line, data, len);
	e0 = parse(line, len, 0, &r0, reply0, sizeof(reply0), copy0);
	e1 = parse(line, len, 1, &r1, reply1, sizeof(reply1), copy1);
	if (e1 == 0 && e0 == 0 && (r0.cmd != r1.cmd || r0.op != r1.op || r0.text_bytes != r1.text_bytes ||
				   (r0.path && strcmp(r0.path, r1.path))))
		abort(); /* the fd changed the reading */
	if (e1 && !e0)
		abort(); /* refused with an fd, but not without */
	if (e0 && !e1 && r1.cmd != SHIM_CMD_DUMPFD && r1.cmd != SHIM_CMD_ARMOOM)
		abort(); /* only dumpfd and armoom need the fd */
	if (getenv("OOMS_FUZZ_PRINT")) {
		if (e1)
			printf("%s\n", reply1);
		else
			printf("cmd=%s path=%s op=%d strings=%d without_fd=%s%s\n", names[r1.cmd],
			       r1.path ? r1.path : "-", r1.op, r1.text_bytes, e0 ? "refused" : "same",
			       r1.no_stacks ? " nostacks" : "");
	}
	free(line);
	return 0;
}
