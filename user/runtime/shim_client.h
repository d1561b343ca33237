/* oomscope's side of the shim's control socket (user/shim/shim.h has the
 * protocol): the abstract socket "oomscope-shim.<pid in the target's
 * namespace>" of the target's network namespace. */
#ifndef OOMSCOPE_SHIM_CLIENT_H
#define OOMSCOPE_SHIM_CLIENT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "util/err.h"

/* One request, one line back ("ok ...", "error ..."), within timeout_ms.
 * 0 (answer in line), -ENOENT (no shim socket), -ESRCH (a socket at its name
 * served by another process than pid), or -errno. */
int shim_client_ask(pid_t pid, const char *request, char *line, size_t len, int timeout_ms);
/* A request whose connection stays open (javastacks): its first line
 * ("ok ...") in line, the connection in *conn. 0, or -errno (the shim's
 * words in line). */
int shim_client_subscribe(pid_t pid, const char *request, int *conn, char *line, size_t len, int timeout_ms);
/* The heap figures through the shim. 0 or -errno. */
int shim_client_heap(pid_t pid, int64_t *used, int64_t *committed, int64_t *max, int timeout_ms);
/* Starts a dump into out_fd (passed over the socket: the shim writes plain
 * hprof into it), mode "app" or "koom", char and byte arrays up to
 * text_bytes kept whole. On 0, *conn is the connection: "started ..." has
 * been read into line; read "done ..." from *conn with shim_client_line.
 * (When the target died at the fork, line holds the child's "done ..." or
 * "error ..." at once.)
 * -errno otherwise, the shim's words in line. */
int shim_client_dumpfd(pid_t pid, int out_fd, const char *mode, int text_bytes, int *conn, char *line, size_t len,
		       int timeout_ms);
/* Arms the last-chance dump into out_fd (armoom): on 0, *conn is the
 * connection, "armed" read; "oom ..." lines and then "started"/"done"
 * come on it when the Java heap runs out. -errno otherwise. */
int shim_client_armfd(pid_t pid, int out_fd, const char *mode, int text_bytes, int *conn, char *line, size_t len,
		      int timeout_ms);
/* The test tool's and another program's way in (protocol: shim/proto.h):
 * a connection to the socket called name ("@NAME": abstract, else a path),
 * in this process's network namespace, its peer not checked; one request
 * line sent on conn with fd as SCM_RIGHTS (fd < 0: none). -errno on
 * failure. */
int shim_client_connect_named(const char *name);
int shim_client_send(int conn, const char *req, int fd);
/* The next line from conn, within timeout_ms (-1: no limit). 0, -ETIMEDOUT,
 * or -EPIPE when the other side closed without one. */
int shim_client_line(int conn, char *line, size_t len, int timeout_ms);
/* Value of key=NUMBER in a shim line, or dflt. */
double shim_line_num(const char *line, const char *key, double dflt);
/* Value of key=WORD in a shim line into out (n bytes), or "" . */
void shim_line_word(const char *line, const char *key, char *out, size_t n);
/* The words a dump request ends with for how the child walks the heap:
 * " walk=jvmti" when OOMSCOPE_SHIM_WALK=jvmti is in oomscope's environment
 * (the JVMTI walk even where HotSpot's own dumper can run in the child:
 * slower; for comparing the two, or a JVM where the faster one misbehaves). */
const char *shim_client_walk_words(void);

/* Loads the shim into running HotSpot JVM pid through the attach protocol
 * (its `load` command), copying it into the target's /tmp when the target's
 * mount namespace cannot see shim_path. Waits for the socket. A JVM frozen
 * by a cgroup freezer is thawed for the load (*thawed 1) and frozen again
 * after. 0, or -errno with one line in err. */
int shim_client_load_hotspot(pid_t pid, const char *shim_path, int *thawed, struct ooms_err *err);
/* After the load: does the process whose /proc/PID/maps text is maps map
 * the file named base (the last element of its path) only from the inode
 * dev:ino that oomscope wrote or checked? 1 yes; 0 no (a mapping of that
 * name from another file, or none), why said in one line in why (code -EPERM: the load is refused). */
int shim_client_maps_match(const char *maps, const char *base, dev_t dev, ino_t ino, struct ooms_err *why);
/* Where the shim library is: beside the oomscope binary (build/), or
 * $OOMSCOPE_SHIM. NULL when not found. */
const char *shim_client_library(void);

#endif
