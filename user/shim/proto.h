/* The shim's control protocol, the one header both ends include: the shim
 * (user/shim/, its server) and oomscope's client (runtime/shim_client.c,
 * which the collector, the dumper and the test tool shimctl use). shim.h
 * describes each request and its answers; the words are spelled here only.
 * Framing: one request line ending in '\n', with one fd as SCM_RIGHTS for
 * dumpfd and armoom; answers are lines of words, the first word saying
 * what the line is, values as key=value (%XX-escaped where they have
 * spaces). */
#ifndef OOMSCOPE_SHIM_PROTO_H
#define OOMSCOPE_SHIM_PROTO_H

#define SHIM_PROTOCOL 2
#define SHIM_SOCKET_FMT "oomscope-shim.%d" /* abstract (a NUL first), pid as the target sees it */

/* requests */
#define SHIM_REQ_PING "ping"
#define SHIM_REQ_HEAP "heap"
#define SHIM_REQ_DUMP "dump"
#define SHIM_REQ_DUMPFD "dumpfd"
#define SHIM_REQ_ARMOOM "armoom"
#define SHIM_REQ_JAVASTACKS "javastacks"

/* the first word of an answer line */
#define SHIM_OK "ok"
#define SHIM_ERROR "error"
#define SHIM_BUSY "busy"           /* a dump is running */
#define SHIM_STARTED "started"     /* a dump's parent: forked */
#define SHIM_DONE "done"           /* a dump's child: everything written */
#define SHIM_ARMED "armed"         /* armoom taken */
#define SHIM_OOM "oom"             /* an OutOfMemoryError (armoom's connection) */
#define SHIM_JS "js"               /* a thread's Java stack (javastacks' connection) */
#define SHIM_JF "jf"               /* an fd opened from Java before the connection, its opener's Java stack (javastacks') */
#define SHIM_JT "jt"               /* a thread started before the connection, its starter's Java stack (javastacks') */
#define SHIM_POOLS "pools"         /* direct memory's figures (javastacks' connection) */

/* Does line say word (its first word, followed by a space or its end)? */
static inline int shim_line_is(const char *line, const char *word)
{
	while (*word)
		if (*line++ != *word++)
			return 0;
	return *line == ' ' || *line == '\n' || *line == 0;
}

/* What follows word and its space in a line that says it. */
static inline const char *shim_line_rest(const char *line, const char *word)
{
	while (*word && *line == *word)
		line++, word++;
	return *line == ' ' ? line + 1 : line;
}

#endif
