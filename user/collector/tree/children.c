/* Process trees (run by default, watch --children). The kernel side holds
 * each process the target forks at its first followed syscall (SIGSTOP,
 * EV_CHILD_HELD); here a collector of its own is started for it,
 * `oomscope watch --held -p CHILD -o DIR/children/CHILD-NAME` with the
 * run's options, which attaches and lets it go on: the child is a target of
 * its own (its limits, rules, snapshots, failures, end and report), its
 * terminal in that directory's terminal.txt. Its grandchildren likewise
 * (--children is passed on). At most max_children run at once; the rest
 * are let go unwatched and counted. */
#define _GNU_SOURCE
#include "collector/tree/children.h"
#include "collector/console/console.h"
#include "util/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dirent.h>
#include <json-c/json.h>
#include <sys/stat.h>
#include <spawn.h>
#include "run/files.h"
#include "run/timeline.h"
#include "util/text.h"
#include "util/vec.h"

extern char **environ;

static double since(const struct coll_tree *t)
{
	return t->start_ns ? (mono_ns() - t->start_ns) / 1e9 : 0.0;
}

static int live_kids(const struct coll_tree *t)
{
	int n = 0;

	for (size_t i = 0; i < t->nkids; i++)
		n += !t->kids[i].ended;
	return n;
}

/* A name safe in a path: the child's comm with anything but [A-Za-z0-9._-] made '_'. */
static void safe_name(char *dst, size_t len, const char *src)
{
	size_t i = 0;

	for (; src[i] && i + 1 < len; i++)
		dst[i] = (src[i] >= 'a' && src[i] <= 'z') || (src[i] >= 'A' && src[i] <= 'Z') ||
				 (src[i] >= '0' && src[i] <= '9') || src[i] == '.' || src[i] == '-'
			 ? src[i]
			 : '_';
	dst[i] = 0;
}

static pid_t spawn_collector(struct coll_tree *t, pid_t child, const char *dir)
{
	char pid_s[16], log[4500];
	const char *argv[96];
	size_t n = 0;
	posix_spawn_file_actions_t fa;
	pid_t pid = -1;

	char headlines[48];
	/* the child's headlines on the launcher's terminal: its stdout, or the
	 * fd a child collector was given for it, as fd 3 */
	int hl_src = t->o->json ? -1 : t->o->headline_fd >= 0 ? t->o->headline_fd : 1;

	snprintf(pid_s, sizeof(pid_s), "%d", (int)child);
	snprintf(log, sizeof(log), "%s" RUN_CHILD_TERMINAL, dir);
	snprintf(headlines, sizeof(headlines), "3:%lld",
		 (long long)(t->o->headline_fd >= 0 ? t->o->headline_t0_ns : (int64_t)t->start_ns));
	argv[n++] = "oomscope";
	argv[n++] = "watch";
	argv[n++] = "--held";
	argv[n++] = "--children";
	for (size_t i = 0; t->o->child_args && t->o->child_args[i] && n < 88; i++)
		argv[n++] = t->o->child_args[i];
	if (hl_src >= 0) {
		argv[n++] = "--headlines";
		argv[n++] = headlines;
	}
	argv[n++] = "-p";
	argv[n++] = pid_s;
	argv[n++] = "-o";
	argv[n++] = dir;
	argv[n] = NULL;
	if (posix_spawn_file_actions_init(&fa))
		return -1;
	if ((hl_src < 0 || !posix_spawn_file_actions_adddup2(&fa, hl_src, 3)) &&
	    !posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0) &&
	    !posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0644) &&
	    !posix_spawn_file_actions_adddup2(&fa, 1, 2) &&
	    posix_spawn(&pid, "/proc/self/exe", &fa, NULL, (char *const *)argv, environ) != 0)
		pid = -1;
	posix_spawn_file_actions_destroy(&fa);
	return pid;
}

static void held(struct coll_tree *t, const struct ooms_event *e)
{
	pid_t child = (pid_t)e->ret;
	char comm[64] = "", name[64], kids[4200], dir[4300];
	struct coll_kid *k;
	FILE *f;

	snprintf(kids, sizeof(kids), "%s/" RUN_CHILDREN, t->dir);
	snprintf(dir, sizeof(dir), "/proc/%d/comm", (int)child);
	if ((f = fopen(dir, "r"))) {
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = 0;
		comm[strcspn(comm, "\n")] = 0;
		fclose(f);
	}
	safe_name(name, sizeof(name), comm[0] ? comm : "process");
	if (!strcmp(comm, OOMS_DUMP_CHILD_COMM)) { /* the shim's fork-dump (held before it named itself) */
		kill(child, SIGCONT);
		return;
	}
	if (live_kids(t) >= t->o->max_children) {
		t->kids_skipped++;
		kill(child, SIGCONT);
		if (!t->o->json)
			coll_print("%8.1f child %d (%s) not watched: %d watched already (--max-children)\n", since(t),
			           (int)child, name, t->o->max_children);
		return;
	}
	snprintf(dir, sizeof(dir), "%s/%d-%s", kids, (int)child, name);
	if ((mkdir(kids, 0755) && errno != EEXIST) || !(k = VEC_PUSH(t->kids, t->nkids, t->kids_cap))) {
		kill(child, SIGCONT);
		return;
	}
	memset(k, 0, sizeof(*k));
	k->target = child;
	snprintf(k->name, sizeof(k->name), "%s", name);
	snprintf(k->dir, sizeof(k->dir), "%s", dir);
	k->collector = spawn_collector(t, child, dir);
	if (k->collector < 0) {
		coll_err("child %d: cannot start its collector: %s", (int)child, strerror(errno));
		k->ended = 1;
		kill(child, SIGCONT);
		return;
	}
	if (!t->o->json) {
		coll_print("%8.1f child %d (%s) watched -> %s\n", since(t), (int)child, name, dir);
	}
}

void coll_children_event(struct coll_tree *t, const struct ooms_event *e)
{
	if (e->version != OOMS_EVENT_VERSION)
		return;
	if (e->type == EV_CHILD)
		t->kids_forked++;
	else if (e->type == EV_CHILD_HELD)
		held(t, e);
}

/* The last `end` record of the timeline in dir: one line about how its
 * process's run went. Returns 1 when it is worth saying about a grandchild
 * (it did not exit with code 0, or crossed a rule, or had failing calls). */
static int dir_story(const char *dir, char *buf, size_t len)
{
	char path[4500];
	struct json_object *o = NULL;
	struct run_record r;
	int notable = 1;

	snprintf(buf, len, "no end recorded (see its %s)", RUN_CHILD_TERMINAL + 1);
	snprintf(path, sizeof(path), "%s/" RUN_TIMELINE, dir);
	if (run_timeline_last(path, REC_END, 0, &o, &r) == 0) {
		const char *how = r.u.end.how ? r.u.end.how : r.u.end.reason ? r.u.end.reason : "?";

		snprintf(buf, len, "%s; %" PRId64 " crossing(s), %" PRIu64 " failing call(s)", how, r.u.end.crossings,
			 r.u.end.call_fails);
		notable = strcmp(how, "exited with code 0") || r.u.end.crossings || r.u.end.call_fails;
	}
	json_object_put(o);
	return notable;
}

#define DESCENDANTS_SAID 3

/* The processes under dir's (its children/PID-NAME, theirs, ...) whose run
 * is worth saying, appended to buf as "; under it: PID (NAME) STORY"; at
 * most DESCENDANTS_SAID, then how many more. *said counts them. */
static void descendants(const char *dir, char *buf, size_t len, int *said, int depth)
{
	char kids[4300], sub[4600], story[1024];
	struct dirent **names = NULL;
	int n;

	snprintf(kids, sizeof(kids), "%s/" RUN_CHILDREN, dir);
	if (depth > 8 || (n = scandir(kids, &names, NULL, alphasort)) < 0)
		return;
	for (int i = 0; i < n; i++) {
		const char *d = names[i]->d_name;
		struct stat st;
		size_t off = strlen(buf);

		snprintf(sub, sizeof(sub), "%s/%s", kids, d);
		if (d[0] < '0' || d[0] > '9' || stat(sub, &st) || !S_ISDIR(st.st_mode))
			continue;
		if (dir_story(sub, story, sizeof(story))) {
			if (*said < DESCENDANTS_SAID && off < len)
				snprintf(buf + off, len - off, "; under it: %.*s (%s) %s", (int)strcspn(d, "-"), d,
					 d + strcspn(d, "-") + (d[strcspn(d, "-")] != 0), story);
			++*said;
		}
		descendants(sub, buf, len, said, depth + 1);
	}
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static void kid_story(const struct coll_kid *k, char *buf, size_t len)
{
	int said = 0;

	dir_story(k->dir, buf, len);
	descendants(k->dir, buf, len, &said, 0);
	if (said > DESCENDANTS_SAID) {
		size_t off = strlen(buf);

		if (off < len)
			snprintf(buf + off, len - off, "; and %d more under it", said - DESCENDANTS_SAID);
	}
}

static void reaped(struct coll_tree *t, struct coll_kid *k)
{
	char story[4096], safe[4200];

	k->ended = 1;
	if (t->o->json)
		return;
	kid_story(k, story, sizeof(story));
	coll_print("%8.1f child %d (%s): %s -> %s\n", since(t), (int)k->target, k->name,
	           text_term_safe(safe, sizeof(safe), story), k->dir);
}

void coll_children_reap(struct coll_tree *t)
{
	for (size_t i = 0; i < t->nkids; i++)
		if (!t->kids[i].ended && waitpid(t->kids[i].collector, NULL, WNOHANG) == t->kids[i].collector)
			reaped(t, &t->kids[i]);
}

void coll_children_finish(struct coll_tree *t, int target_ended)
{
	sigset_t mask;
	struct timespec tick = {0, 200 * 1000 * 1000};
	uint64_t deadline = t->o->duration_s > 0 ? t->start_ns + (uint64_t)(t->o->duration_s * 1e9) : 0;
	int stopping = !target_ended;

	if (!t->nkids)
		return;
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	if (!stopping && live_kids(t) && !t->o->json)
		coll_err("the target ended; %d child process(es) still watched (Ctrl-C to stop)",
			live_kids(t));
	for (uint64_t sent_ns = 0; live_kids(t);) {
		coll_children_reap(t);
		if (!live_kids(t))
			break;
		if (!stopping && (sigtimedwait(&mask, NULL, &tick) > 0 || (deadline && mono_ns() >= deadline)))
			stopping = 1;
		if (stopping && !sent_ns) { /* each ends as a watch does on Ctrl-C: files and report written */
			for (size_t i = 0; i < t->nkids; i++)
				if (!t->kids[i].ended)
					kill(t->kids[i].collector, SIGINT);
			sent_ns = mono_ns();
		} else if (sent_ns && mono_ns() - sent_ns > 60 * 1000000000ull) { /* one that hangs */
			for (size_t i = 0; i < t->nkids; i++)
				if (!t->kids[i].ended && kill(t->kids[i].collector, SIGKILL) == 0 &&
				    waitpid(t->kids[i].collector, NULL, 0) == t->kids[i].collector)
					reaped(t, &t->kids[i]);
		}
		if (stopping)
			nanosleep(&tick, NULL);
	}
	if (t->kids_skipped && !t->o->json)
		coll_err("%" PRIu64 " child process(es) not watched (--max-children %d)", t->kids_skipped,
			t->o->max_children);
}

#define CHILD_ROWS 5

struct kid_row {
	const struct coll_kid *k;
	struct run_sample s;
	int have;
};

/* Its timeline's last sample (the file's last few KB: a sample a line). */
static int last_sample(const struct coll_kid *k, struct run_sample *out)
{
	char path[4500];
	struct json_object *o;
	struct run_record r;

	snprintf(path, sizeof(path), "%s/" RUN_TIMELINE, k->dir);
	if (run_timeline_last(path, REC_SAMPLE, 16384, &o, &r))
		return 0;
	*out = r.u.sample;
	out->heap_src = NULL; /* these point into o */
	for (int i = 0; i < RES_MAX; i++)
		out->res[i].limit_src = NULL;
	json_object_put(o);
	return 1;
}

static int by_fds(const void *x, const void *y)
{
	const struct kid_row *a = x, *b = y;

	int64_t fa = a->s.res[RES_FDS].value, fb = b->s.res[RES_FDS].value;

	return fa < fb ? 1 : fa > fb ? -1 : 0;
}

void coll_children_rows(struct coll_tree *t)
{
	struct kid_row *rows;
	size_t n = 0;

	if (t->o->json || !t->nkids || !(rows = calloc(t->nkids, sizeof(*rows))))
		return;
	for (size_t i = 0; i < t->nkids; i++)
		if (!t->kids[i].ended) {
			rows[n].k = &t->kids[i];
			rows[n].have = last_sample(&t->kids[i], &rows[n].s);
			n++;
		}
	qsort(rows, n, sizeof(*rows), by_fds);
	for (size_t i = 0; i < n && i < CHILD_ROWS; i++) {
		char who[32], th[32], fd[32], path[64], comm[64] = "", safe[160];
		const struct run_sample *s = &rows[i].s;
		FILE *f;

		/* its name now (the one it had when held may be its launcher's, before an exec) */
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)rows[i].k->target);
		if ((f = fopen(path, "r"))) {
			if (!fgets(comm, sizeof(comm), f))
				comm[0] = 0;
			comm[strcspn(comm, "\n")] = 0;
			fclose(f);
		}
		text_term_safe(safe, sizeof(safe), comm[0] ? comm : rows[i].k->name);
		snprintf(who, sizeof(who), "+%d", (int)rows[i].k->target);
		if (!rows[i].have) {
			coll_print("%8s %s: attaching\n", who, safe);
			continue;
		}
		snprintf(th, sizeof(th), "%" PRId64 "/%" PRId64, s->res[RES_THREADS].value, s->res[RES_THREADS].limit);
		snprintf(fd, sizeof(fd), "%" PRId64 "/%" PRId64, s->res[RES_FDS].value, s->res[RES_FDS].limit);
		coll_print("%8s %9.1f %10.1f %15s %15s %7" PRIu64 " %15s\n", who, s->rss_kb / 1024.0,
			   s->res[RES_VMSIZE].value / 1024.0, th,
		           fd, s->ringbuf_drops + s->set_full_drops, safe);
	}
	if (n > CHILD_ROWS)
		coll_print("%8s %zu more child process(es) watched\n", "+", n - CHILD_ROWS);
	free(rows);
}

void coll_children_free(struct coll_tree *t)
{
	free(t->kids);
	t->kids = NULL;
	t->nkids = t->kids_cap = 0;
}
