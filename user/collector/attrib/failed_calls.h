/* Calls that failed for want of a resource (EV_CALL_FAIL): an fd syscall
 * with EMFILE/ENFILE, clone with EAGAIN/ENOMEM, mmap/mremap/mprotect/brk
 * with ENOMEM. The kernel sends the first few of each (stack, call, errno)
 * with a stack and counts the rest in its fail_counts map; this module keeps
 * one group per key and stack as unwound here, with the exact count once
 * the map is read. */
#ifndef OOMSCOPE_COLLECTOR_FAILURES_H
#define OOMSCOPE_COLLECTOR_FAILURES_H

#include <stddef.h>
#include <stdint.h>
#include "collector/kernel/collect.h"
#include "collector/attrib/attrib.h"
#include "detect/resource.h" /* enum ooms_fail_kind: what ran out, by the call that failed */
#include "run/failures.h"

struct ooms_fail_group {
	struct ooms_fail_key key;
	enum ooms_fail_kind kind;
	uint64_t count;        /* failures: those sent, then with the ones the kernel only counted */
	uint64_t sent;         /* of those, received with a stack */
	uint64_t first_ns, last_ns;
	uint64_t bytes;        /* the largest asked for (memory), or clone flags */
	int64_t live;          /* fds or threads open at the first failure */
	uint32_t tid;          /* thread of the first failure */
	uint32_t stack;        /* interned stack of the first failure */
	char comm[OOMS_COMM_LEN];
	/* the terminal's view (the collector's): its failures counted into
	 * its call site's (ooms_failures_say); pending: failed since the
	 * pending list was last taken */
	uint64_t accounted;
	uint8_t pending;
	uint8_t estimated;     /* count shared out from its kernel key's (several groups, one key) */
};

struct ooms_failures;

struct ooms_failures *ooms_failures_new(struct ooms_attrib *a, enum ooms_arch arch);
void ooms_failures_free(struct ooms_failures *f);
/* One EV_CALL_FAIL of size bytes: its group (new or updated), or NULL.
 * *is_first is set when it is the first failure of its kind in the run. */
const struct ooms_fail_group *ooms_failures_event(struct ooms_failures *f, const struct ooms_event *e,
						  size_t size, int *is_first);
/* The kernel's exact count for a key (from the fail_counts map). */
void ooms_failures_set_count(struct ooms_failures *f, const struct ooms_fail_key *k, uint64_t count);
/* The groups that failed since the last call, each once, oldest first:
 * their indices (at most max; the rest stay pending). */
size_t ooms_failures_take_pending(struct ooms_failures *f, size_t *idx, size_t max);
/* Group i (an index from take_pending); NULL past the end. The pointer
 * holds until the next event. */
struct ooms_fail_group *ooms_failures_group(struct ooms_failures *f, size_t i);
/* Whether to say group i's call site on the terminal at now_ns (count:
 * group i's failures as known now). A call site is the call, its errno and
 * who called as the line names it: groups differ by their stacks' deeper
 * frames (a program built without frame pointers unwinds into noise past
 * its caller: 28 kernel keys for one call in stress-ng), the terminal
 * says the site. Said at its first failure, then once every every_ns while
 * any of its groups goes on failing: *since its failures since it was last
 * said, *prev_ns when that was (0: never). Marks it said. */
int ooms_failures_say(struct ooms_failures *f, size_t i, uint64_t now_ns, uint64_t every_ns, uint64_t count,
		      uint64_t *since, uint64_t *prev_ns);
/* The call sites said so far. */
size_t ooms_failures_sites(const struct ooms_failures *f);
/* Group i's count from its key's count in the kernel (every failure, sent
 * or not): its share by what it sent (exact when the key has one group). */
uint64_t ooms_failures_estimate(const struct ooms_failures *f, size_t i, uint64_t key_count);
/* Whether group i shares its kernel key with another group (its counts
 * are then estimates). */
int ooms_failures_shared(const struct ooms_failures *f, size_t i);
/* The newest failure of the run, or NULL. */
const struct ooms_fail_group *ooms_failures_last(const struct ooms_failures *f);
uint64_t ooms_failures_total(const struct ooms_failures *f);
/* Failures whose errno this code does not name (said as "errno N"), and
 * the first such errno. */
uint64_t ooms_failures_unknown(const struct ooms_failures *f, int *first);

const char *ooms_fail_kind_name(enum ooms_fail_kind k); /* "fds", "threads", "memory" */
/* "openat failed with EMFILE (1024 fds open) in fd-burst (tid 12) <- leak_fds (death_target)" */
void ooms_failures_line(struct ooms_failures *f, const struct ooms_fail_group *g, char *buf, size_t len);
/* The group's timeline record (times in seconds since start_ns; wrote:
 * the file its first failure of a kind wrote, NULL none). */
struct json;
void ooms_failures_record(struct json *j, struct ooms_failures *f, const struct ooms_fail_group *g,
			  uint64_t start_ns, const char *wrote);
/* The group as the run directory's record (run/failures.h), filled in
 * place: r's culprit and stacks point into rec. */
struct ooms_fail_rec {
	struct run_fail_group r;
	struct ooms_attrib *a;
	uint32_t stack, js;
	int jstate;
	char who[300];
};
void ooms_failures_rec(struct ooms_failures *f, const struct ooms_fail_group *g, uint64_t start_ns,
		       struct ooms_fail_rec *rec);
/* failures.json: every group, most failures first. 0 or -errno. */
int ooms_failures_write(struct ooms_failures *f, const char *path, uint64_t start_ns);

#endif
