/* One request line of the shim's control socket, read into its command and
 * settings (shim.h lists the protocol). Pure: no socket, no file, so the
 * control thread and the fuzzer (tests/fuzz/fuzz_shim_control.c) share it. */
#ifndef OOMSCOPE_SHIM_REQUEST_H
#define OOMSCOPE_SHIM_REQUEST_H

#include <stddef.h>

enum shim_cmd { SHIM_CMD_PING, SHIM_CMD_HEAP, SHIM_CMD_DUMP, SHIM_CMD_DUMPFD, SHIM_CMD_ARMOOM, SHIM_CMD_JAVASTACKS };

struct shim_request {
	enum shim_cmd cmd;
	const char *path;    /* dump: the output path (points into the line) */
	int op;              /* enum hprof_op: HPROF_OP_STRIP_APP / _KOOM */
	int text_bytes;      /* char and byte arrays up to this size kept whole */
	int no_stacks;       /* javastacks nostacks: the pools' figures only, no signal */
	int jvmti_walk;      /* walk=jvmti: HotSpot's fork-dump child walks with JVMTI */
	int whole;           /* whole: the reader strips; the runtime's dump may come whole */
};

/* Reads line (one request, its newline gone; cut into words in place).
 * has_fd: the request came with an fd (dumpfd and armoom need one). 0, or
 * -1 with the whole answer to send back in reply ("error ..."). */
int shim_request_parse(char *line, int has_fd, struct shim_request *r, char *reply, size_t reply_len);

#endif
