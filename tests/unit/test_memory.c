/* Memory as the killers see it (issue 45): smaps' categories, meminfo and
 * PSI, memory.json through its writer and reader, the killers' orders,
 * why memory killed a target (end/killer.c), and the memory rules
 * (memory_ratio, memory_trend, memory_stall). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "collector/end/end_cause.h"
#include "collector/end/killer.h"
#include "collector/memory/ranking.h"
#include "detect/detect.h"
#include "proc/meminfo.h"
#include "proc/smaps.h"
#include "run/memory.h"
#include "run/timeline.h"
#include "util/json.h"
#include "tap.h"

/* A sentence on one TAP line: its newlines as " / ". */
static const char *flat(const char *s)
{
	static char buf[1024];
	size_t i;

	for (i = 0; s[i] && i < sizeof(buf) - 1; i++)
		buf[i] = s[i] == '\n' ? '/' : s[i];
	buf[i] = 0;
	return buf;
}

/* ---- smaps ---- */

static void test_mem_cat_of(void)
{
	static const struct {
		const char *name, *perms;
		enum proc_mem_cat want;
	} cases[] = {
		{"[heap]", "rw-p", MEMCAT_NATIVE_HEAP},
		{"[anon:libc_malloc]", "rw-p", MEMCAT_NATIVE_HEAP},
		{"[anon:scudo:primary]", "rw-p", MEMCAT_NATIVE_HEAP},
		{"[anon:dalvik-main space]", "rw-p", MEMCAT_JAVA_HEAP},
		{"/system/framework/boot.art", "rw-p", MEMCAT_JAVA_HEAP},
		{"[stack]", "rw-p", MEMCAT_STACK},
		{"[anon:stack_and_tls:123]", "rw-p", MEMCAT_STACK},
		{"/dev/kgsl-3d0", "rw-s", MEMCAT_GRAPHICS},
		{"/memfd:jit-cache (deleted)", "r-xs", MEMCAT_CODE},
		{"/memfd:foo", "rw-s", MEMCAT_SHARED},
		{"/dev/ashmem/x", "rw-s", MEMCAT_SHARED},
		{"/usr/lib/libc.so.6", "r-xp", MEMCAT_CODE},
		{"/usr/lib/libc.so.6", "r--p", MEMCAT_CODE},
		{"/data/app/base.apk", "r--p", MEMCAT_CODE},
		{"/var/data.bin", "rw-p", MEMCAT_FILE},
		{"", "rw-p", MEMCAT_ANON},
		{"[anon:dalvik-LinearAlloc]", "rw-p", MEMCAT_OTHER},
		{"[vvar]", "r--p", MEMCAT_OTHER},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		TAP_EQ_STR(proc_mem_cat_key(proc_mem_cat_of(cases[i].name, cases[i].perms)),
			   proc_mem_cat_key(cases[i].want), "'%s' %s is %s", cases[i].name, cases[i].perms,
			   proc_mem_cat_key(cases[i].want));
	TAP_EQ_STR(proc_mem_cat_key(MEMCAT_NATIVE_HEAP), "native_heap", "the native heap's key");
	TAP_EQ_STR(proc_mem_cat_words(MEMCAT_JAVA_HEAP), "Java heap", "the Java heap's words");
	TAP_EQ_STR(proc_mem_cat_key(MEMCAT_MAX), "other", "a category out of range is other, not a crash");
}

static void test_read_smaps(void)
{
	const size_t big = 64u << 20;
	char *p = malloc(big);
	struct proc_smaps s;
	int64_t rss = 0, pss = 0, w_prev;
	int sorted = 1;
	const struct proc_mem_map *blk = NULL;

	TAP_OK(p != NULL, "malloc(64 MiB)");
	if (!p)
		return;
	memset(p, 1, big);
	__asm__ volatile("" : : "r"(p) : "memory"); /* the stores stay: smaps must see the pages */
	TAP_EQ_INT(proc_read_smaps(getpid(), 5, &s), 0, "proc_read_smaps(getpid()) reads");
	TAP_OK(s.total.rss > 0 && s.nmaps > 0, "total RSS %lld kB over %zu mappings", (long long)s.total.rss, s.nmaps);
	for (int c = 0; c < MEMCAT_MAX; c++) {
		rss += s.cat[c].rss;
		pss += s.cat[c].pss;
	}
	TAP_EQ_INT(rss, s.total.rss, "the categories' RSS sum to the total");
	TAP_EQ_INT(pss, s.total.pss, "the categories' PSS sum to the total");
	TAP_OK(s.ntop <= 5 && s.ntop > 0, "ntop %zu: some, and no more than the 5 asked", s.ntop);
	w_prev = INT64_MAX;
	for (size_t i = 0; i < s.ntop; i++) {
		int64_t w = s.top[i].fig.rss + s.top[i].fig.swap;

		if (w > w_prev)
			sorted = 0;
		w_prev = w;
		if (s.top[i].start <= (uintptr_t)p && (uintptr_t)p < s.top[i].end)
			blk = &s.top[i];
	}
	TAP_OK(sorted, "the largest mappings sorted by RSS + swap, largest first");
	TAP_OK(blk != NULL, "the touched 64 MiB block is among the largest mappings");
	if (blk) {
		TAP_OK(blk->cat == MEMCAT_ANON || blk->cat == MEMCAT_NATIVE_HEAP, "in %s ('%s')",
		       proc_mem_cat_key(blk->cat), blk->name);
		TAP_OK(blk->fig.rss >= 60 * 1024, "with %lld kB RSS (>= 60 MiB)", (long long)blk->fig.rss);
		TAP_EQ_INT(blk->cat, proc_mem_cat_of(blk->name, blk->perms), "its category is its name's");
	}
	TAP_OK(s.cat[MEMCAT_ANON].rss + s.cat[MEMCAT_NATIVE_HEAP].rss >= 60 * 1024,
	       "anonymous + native heap RSS %lld kB holds the block",
	       (long long)(s.cat[MEMCAT_ANON].rss + s.cat[MEMCAT_NATIVE_HEAP].rss));
	TAP_EQ_INT(proc_read_smaps(getpid(), 100, &s), 0, "asked for 100 of the largest");
	TAP_OK(s.ntop <= PROC_SMAPS_TOP, "given at most PROC_SMAPS_TOP (%zu)", s.ntop);
	TAP_EQ_INT(proc_read_smaps(getpid(), 0, &s), 0, "asked for none of the largest");
	TAP_OK(s.ntop == 0 && s.total.rss > 0, "none kept, the totals still read");
	TAP_OK(proc_read_smaps(0x7ffffff0, 3, &s) < 0, "a PID that does not exist: an error");
	free(p);
}

/* ---- meminfo and PSI ---- */

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static void test_meminfo(void)
{
	struct proc_meminfo m;
	struct proc_psi psi;
	char path[] = "/tmp/oomscope-psi-XXXXXX";
	int fd;

	TAP_EQ_INT(proc_read_meminfo(&m), 0, "proc_read_meminfo reads");
	TAP_OK(m.total > 0, "MemTotal %lld kB", (long long)m.total);
	TAP_OK(m.available >= 0 && m.available <= m.total, "0 <= MemAvailable %lld <= MemTotal",
	       (long long)m.available);
	TAP_OK(m.free >= 0 && m.free <= m.total, "0 <= MemFree %lld <= MemTotal", (long long)m.free);

	if (access("/proc/pressure/memory", F_OK) == 0) {
		TAP_EQ_INT(proc_read_psi("/proc/pressure/memory", &psi), 0, "/proc/pressure/memory reads");
		TAP_OK(psi.some.avg10 >= 0 && psi.some.avg10 <= 100 && psi.some.avg60 >= 0 && psi.some.avg60 <= 100,
		       "some avg10 %.2f, avg60 %.2f in [0, 100]", psi.some.avg10, psi.some.avg60);
		TAP_OK(psi.full.avg10 >= 0 && psi.full.avg10 <= 100 && psi.some.total_us >= 0,
		       "full avg10 %.2f in [0, 100], some total %lld us", psi.full.avg10, (long long)psi.some.total_us);
	} else {
		printf("ok %d - # SKIP no /proc/pressure/memory: a kernel without PSI (CONFIG_PSI off or psi=0)\n",
		       ++tap_n);
	}

	fd = mkstemp(path);
	TAP_OK(fd >= 0, "a temp file for PSI");
	if (fd < 0)
		return;
	close(fd);
	write_file(path, "some avg10=1.50 avg60=2.00 avg300=3.00 total=12345\n"
			 "full avg10=0.50 avg60=0.60 avg300=0.70 total=999\n");
	TAP_EQ_INT(proc_read_psi(path, &psi), 0, "a PSI file reads");
	TAP_OK(psi.some.avg10 == 1.50 && psi.some.avg60 == 2.00 && psi.some.avg300 == 3.00,
	       "some avg10 %g avg60 %g avg300 %g", psi.some.avg10, psi.some.avg60, psi.some.avg300);
	TAP_EQ_INT(psi.some.total_us, 12345, "some total");
	TAP_OK(psi.full.avg10 == 0.50 && psi.full.avg60 == 0.60 && psi.full.avg300 == 0.70,
	       "full avg10 %g avg60 %g avg300 %g", psi.full.avg10, psi.full.avg60, psi.full.avg300);
	TAP_EQ_INT(psi.full.total_us, 999, "full total");

	write_file(path, "some avg10=4.25 avg60=0.00 avg300=0.00 total=7\n");
	TAP_EQ_INT(proc_read_psi(path, &psi), 0, "a file with only a some line (as /proc/pressure/cpu before 5.13) reads");
	TAP_OK(psi.some.avg10 == 4.25 && psi.full.avg10 == -1 && psi.full.total_us == -1,
	       "some 4.25, full unknown (-1)");

	write_file(path, "pressure is high\nfull avg10=1.00 avg60=1.00 avg300=1.00 total=1\n");
	TAP_EQ_INT(proc_read_psi(path, &psi), -EINVAL, "a file that does not start with a some line: -EINVAL");
	TAP_OK(psi.some.avg10 == -1 && psi.full.avg10 == -1, "and its figures unknown");
	write_file(path, "");
	TAP_EQ_INT(proc_read_psi(path, &psi), -EINVAL, "an empty file: -EINVAL");
	unlink(path);
	TAP_EQ_INT(proc_read_psi(path, &psi), -ENOENT, "no file: -ENOENT (no PSI)");
}

/* ---- memory.json ---- */

struct frames_ctx {
	const char *symbols[2];
	int calls;
};

static void write_frames(struct json *j, size_t group, void *ctx)
{
	struct frames_ctx *c = ctx;

	c->calls++;
	json_key(j, "frames");
	json_arr(j);
	json_obj(j);
	json_kstr(j, "symbol", group < 2 ? c->symbols[group] : "?");
	json_obj_end(j);
	json_arr_end(j);
}

static char *memory_text(const struct run_memory *m, struct frames_ctx *ctx)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct json j;

	if (!f)
		return NULL;
	json_init(&j, f, 0);
	run_memory_write(&j, m, write_frames, ctx);
	json_end_line(&j);
	fclose(f);
	return buf;
}

static int str_eq(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

static int memfig_eq(const struct ooms_memfig *a, const struct ooms_memfig *b)
{
	return a->anon_kb == b->anon_kb && a->file_kb == b->file_kb && a->shmem_kb == b->shmem_kb &&
	       a->swap_kb == b->swap_kb && a->sys_total_kb == b->sys_total_kb &&
	       a->sys_available_kb == b->sys_available_kb && a->sys_swap_total_kb == b->sys_swap_total_kb &&
	       a->sys_swap_free_kb == b->sys_swap_free_kb && a->psi_some10 == b->psi_some10 &&
	       a->psi_some60 == b->psi_some60 && a->psi_full10 == b->psi_full10 && a->psi_full60 == b->psi_full60 &&
	       a->oom_score_adj == b->oom_score_adj && a->oom_score == b->oom_score;
}

static void test_run_memory(void)
{
	struct run_memory_cat cats[2] = {
		{.category = "native_heap", .rss_kb = 81920, .pss_kb = 80000, .private_dirty_kb = 79000, .anon_kb = 81000,
		 .swap_kb = 12},
		{.category = "code", .rss_kb = 4096, .pss_kb = 1500, .private_dirty_kb = 20, .anon_kb = 0, .swap_kb = 0},
	};
	struct run_memory_map maps[2] = {
		{.start = 0x7f1234500000, .end = 0x7f1239500000, .perms = "rw-p", .name = "[anon:libc_malloc]",
		 .category = "native_heap", .rss_kb = 81000, .pss_kb = 79500, .anon_kb = 81000, .swap_kb = 12},
		{.start = 0x555555554000, .end = 0x555555600000, .perms = "r-xp", .name = "/opt/app/bin/leaky",
		 .category = "code", .rss_kb = 600, .pss_kb = 300, .anon_kb = 0, .swap_kb = 0},
	};
	struct run_memory_group groups[2] = {
		{.samples = 40, .anon = 38, .file = 1, .shared = 1, .bytes = 40 * 65536, .created_by = "leak_fn",
		 .thread = "worker-1"},
		{.samples = 3, .anon = 0, .file = 3, .shared = 0, .bytes = 3 * 65536, .created_by = "load_config",
		 .thread = "main"},
	};
	struct run_memory m = {
		.pid = 4242, .t = 12.5, .target_alive = 1, .memory_kb = 90000, .limit_kb = 131072,
		.limit_src = "memory.max", .rss_kb = 86016,
		.fig = {.anon_kb = 81000, .file_kb = 5000, .shmem_kb = 16, .swap_kb = 12, .sys_total_kb = 8000000,
			.sys_available_kb = 700000, .sys_swap_total_kb = 2000000, .sys_swap_free_kb = 1500000,
			.psi_some10 = 1.5, .psi_some60 = 2.25, .psi_full10 = 0.5, .psi_full60 = 0.75,
			.oom_score_adj = -17, .oom_score = 610},
		.cgroup = "/user.slice/app.scope", .cgroup_limit_kb = 131072, .cgroup_usage_kb = 100000,
		.has_categories = 1, .cats = cats, .ncats = 2, .pss_kb = 81500, .smaps_rss_kb = 86016,
		.smaps_swap_kb = 12, .maps = maps, .nmaps = 2, .period_bytes = 65536, .samples = 43, .lost = 2,
		.groups = groups, .ngroups = 2,
	};
	struct frames_ctx ctx = {{"leak_fn", "grow_fn"}, 0};
	struct run_memory b;
	struct json_object *doc, *fr = NULL, *f0 = NULL;
	char *text = memory_text(&m, &ctx), *again;
	int ok;

	TAP_OK(text != NULL, "memory.json written");
	if (!text)
		return;
	TAP_EQ_INT(ctx.calls, 2, "the frames callback called once a group");
	doc = json_tokener_parse(text);
	TAP_OK(doc != NULL, "it parses as JSON");
	TAP_EQ_INT(run_memory_read(doc, &b), 0, "run_memory_read reads it");
	TAP_OK(b.pid == 4242 && b.t == 12.5 && b.target_alive == 1, "pid, t, target_alive");
	TAP_OK(b.memory_kb == 90000 && b.limit_kb == 131072 && str_eq(b.limit_src, "memory.max") && b.rss_kb == 86016,
	       "the rule's figure, its limit and where the limit came from, RSS");
	TAP_OK(memfig_eq(&b.fig, &m.fig), "every memory figure (target's, system's, PSI, oom_score_adj -17, oom_score)");
	TAP_OK(str_eq(b.cgroup, "/user.slice/app.scope") && b.cgroup_limit_kb == 131072 && b.cgroup_usage_kb == 100000,
	       "the memory cgroup: path, limit, usage");
	TAP_OK(b.has_categories && b.pss_kb == 81500 && b.smaps_rss_kb == 86016 && b.smaps_swap_kb == 12,
	       "smaps' totals");
	TAP_EQ_INT(b.ncats, 2, "two categories");
	ok = b.ncats == 2;
	for (size_t i = 0; ok && i < 2; i++)
		ok = str_eq(b.cats[i].category, cats[i].category) && b.cats[i].rss_kb == cats[i].rss_kb &&
		     b.cats[i].pss_kb == cats[i].pss_kb && b.cats[i].private_dirty_kb == cats[i].private_dirty_kb &&
		     b.cats[i].anon_kb == cats[i].anon_kb && b.cats[i].swap_kb == cats[i].swap_kb;
	TAP_OK(ok, "every category's fields");
	TAP_EQ_INT(b.nmaps, 2, "two mappings");
	ok = b.nmaps == 2;
	for (size_t i = 0; ok && i < 2; i++)
		ok = b.maps[i].start == maps[i].start && b.maps[i].end == maps[i].end &&
		     str_eq(b.maps[i].perms, maps[i].perms) && str_eq(b.maps[i].name, maps[i].name) &&
		     str_eq(b.maps[i].category, maps[i].category) && b.maps[i].rss_kb == maps[i].rss_kb &&
		     b.maps[i].pss_kb == maps[i].pss_kb && b.maps[i].anon_kb == maps[i].anon_kb &&
		     b.maps[i].swap_kb == maps[i].swap_kb;
	TAP_OK(ok, "every mapping's fields (start and end as hex)");
	TAP_OK(b.period_bytes == 65536 && b.samples == 43 && b.lost == 2, "the faults' period, samples, lost");
	TAP_EQ_INT(b.ngroups, 2, "two groups");
	ok = b.ngroups == 2;
	for (size_t i = 0; ok && i < 2; i++)
		ok = b.groups[i].samples == groups[i].samples && b.groups[i].anon == groups[i].anon &&
		     b.groups[i].file == groups[i].file && b.groups[i].shared == groups[i].shared &&
		     b.groups[i].bytes == groups[i].bytes && str_eq(b.groups[i].created_by, groups[i].created_by) &&
		     str_eq(b.groups[i].thread, groups[i].thread) && b.groups[i].obj != NULL;
	TAP_OK(ok, "every group's fields, and its object");
	if (b.ngroups == 2) {
		TAP_OK(json_object_object_get_ex(b.groups[0].obj, "frames", &fr) &&
			       json_object_is_type(fr, json_type_array) && json_object_array_length(fr) == 1 &&
			       json_object_object_get_ex(json_object_array_get_idx(fr, 0), "symbol", &f0),
		       "group 0's object has its frames array");
		TAP_EQ_STR(f0 ? json_object_get_string(f0) : NULL, "leak_fn", "with the callback's frame");
		fr = f0 = NULL;
		json_object_object_get_ex(b.groups[1].obj, "frames", &fr);
		json_object_object_get_ex(json_object_array_get_idx(fr, 0), "symbol", &f0);
		TAP_EQ_STR(f0 ? json_object_get_string(f0) : NULL, "grow_fn", "group 1's frames written for group 1");
	}
	/* what was read writes back as it was first written */
	ctx.calls = 0;
	again = memory_text(&b, &ctx);
	TAP_EQ_STR(again, text, "what was read re-writes byte for byte");
	free(again);
	run_memory_free(&b);
	TAP_OK(!b.cats && !b.maps && !b.groups && !b.ncats && !b.nmaps && !b.ngroups, "run_memory_free empties it");
	json_object_put(doc);
	free(text);

	/* none of the optional parts: no cgroup, no smaps */
	m.cgroup = NULL;
	m.has_categories = 0;
	m.ngroups = 0;
	text = memory_text(&m, &ctx);
	doc = text ? json_tokener_parse(text) : NULL;
	TAP_EQ_INT(run_memory_read(doc, &b), 0, "a snapshot without cgroup, smaps or groups reads");
	TAP_OK(!b.cgroup && b.cgroup_limit_kb == RUN_NONE && b.cgroup_usage_kb == RUN_NONE && !b.has_categories &&
		       !b.ncats && !b.nmaps && !b.ngroups && b.samples == 43,
	       "no cgroup (limits RUN_NONE), no categories, no groups; the faults' counts still there");
	run_memory_free(&b);
	json_object_put(doc);
	free(text);

	doc = json_tokener_parse("{\"version\":1,\"pid\":1,\"memory_kb\":5,\"memory\":{}}");
	TAP_EQ_INT(run_memory_read(doc, &b), -EINVAL, "a document without \"faults\": -EINVAL");
	json_object_put(doc);
	doc = json_tokener_parse("{\"version\":1,\"pid\":1,\"faults\":{\"groups\":[]}}");
	TAP_EQ_INT(run_memory_read(doc, &b), -EINVAL, "a document without \"memory_kb\": -EINVAL");
	json_object_put(doc);
	doc = json_tokener_parse("[1,2]");
	TAP_EQ_INT(run_memory_read(doc, &b), -EINVAL, "an array: -EINVAL");
	json_object_put(doc);
	TAP_EQ_INT(run_memory_read(NULL, &b), -EINVAL, "no document: -EINVAL");
}

/* ---- the killers' orders ---- */

static void test_ranking_place(void)
{
	struct mem_proc procs[] = {
		{.pid = 10, .adj = 0, .score = 300, .rss_kb = 1000, .comm = "a"},
		{.pid = 11, .adj = 500, .score = 700, .rss_kb = 2000, .comm = "b"},
		{.pid = 12, .adj = 500, .score = 700, .rss_kb = 3000, .comm = "c"},
		{.pid = 13, .adj = -1000, .score = 999, .rss_kb = 9000, .comm = "immune"},
		{.pid = 14, .adj = 900, .score = 100, .rss_kb = 500, .comm = "e"},
	};
	struct mem_ranking r = {.t = 3, .procs = procs, .n = 5, .cap = 5};
	size_t of = 99;

	TAP_EQ_INT(mem_ranking_place(&r, 12, MEM_ORDER_SCORE, &of), 1, "by oom_score: c first (700, the heavier)");
	TAP_EQ_INT(of, 4, "of 4: the adj -1000 process is no killer's pick, not counted");
	TAP_EQ_INT(mem_ranking_place(&r, 11, MEM_ORDER_SCORE, &of), 2, "b second: a tie on oom_score broken by RSS");
	TAP_EQ_INT(mem_ranking_place(&r, 10, MEM_ORDER_SCORE, &of), 3,
		   "a third: the adj -1000 process's higher oom_score does not put it ahead");
	TAP_EQ_INT(mem_ranking_place(&r, 14, MEM_ORDER_SCORE, &of), 4, "e last by oom_score");
	TAP_EQ_INT(mem_ranking_place(&r, 14, MEM_ORDER_ADJ_RSS, &of), 1, "by oom_score_adj: e first (900)");
	TAP_EQ_INT(mem_ranking_place(&r, 12, MEM_ORDER_ADJ_RSS, &of), 2, "c second (500, the heavier)");
	TAP_EQ_INT(mem_ranking_place(&r, 11, MEM_ORDER_ADJ_RSS, &of), 3, "b third: a tie on adj broken by RSS");
	TAP_EQ_INT(mem_ranking_place(&r, 10, MEM_ORDER_ADJ_RSS, &of), 4, "a last (adj 0)");
	TAP_EQ_INT(of, 4, "still of 4");
	TAP_EQ_INT(mem_ranking_place(&r, 13, MEM_ORDER_SCORE, &of), 0,
		   "the adj -1000 process has no place in a killer's order");
	of = 99;
	TAP_EQ_INT(mem_ranking_place(&r, 77, MEM_ORDER_SCORE, &of), 0, "a PID not ranked: 0");
	TAP_EQ_INT(of, 4, "the count still said");
	TAP_OK(mem_ranking_find(&r, 13) == &procs[3] && mem_ranking_find(&r, 77) == NULL, "mem_ranking_find");
}

static void test_ranking_scan(void)
{
	struct mem_ranking r = {0};
	const struct mem_proc *me;
	char buf[32];
	int adj, fd, n, mine = 0;

	/* a process may raise its own oom_score_adj: a figure not the default 0 */
	fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, "321", 3) < 0)
			printf("# could not raise oom_score_adj (%s): its current one is compared\n", strerror(errno));
		close(fd);
	}
	fd = open("/proc/self/oom_score_adj", O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? (int)read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = 0;
	adj = atoi(buf);
	TAP_OK(n > 0, "read /proc/self/oom_score_adj: %d", adj);

	TAP_EQ_INT(mem_ranking_scan(&r, 7.5, NULL, 0), 0, "mem_ranking_scan reads /proc");
	TAP_OK(r.n > 0 && r.t == 7.5, "%zu processes, at t 7.5", r.n);
	me = mem_ranking_find(&r, getpid());
	TAP_OK(me != NULL, "this process is among them");
	if (me) {
		TAP_EQ_INT(me->adj, adj, "with its real oom_score_adj");
		TAP_OK(me->rss_kb > 0 && me->score >= 0, "RSS %lld kB, oom_score %d", (long long)me->rss_kb, me->score);
		TAP_EQ_STR(me->comm, "test_memory", "and its comm");
	}
	TAP_EQ_INT(mem_ranking_scan(&r, 8, NULL, getpid()), 0, "scanned again");
	for (size_t i = 0; i < r.n; i++)
		mine += r.procs[i].pid == getpid();
	TAP_EQ_INT(mine, 1, "the list replaced, not appended to");
	/* a target killed since: the ranking that had it is the killer's view, kept */
	pid_t child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	TAP_EQ_INT(mem_ranking_scan(&r, 9, NULL, child), 0, "a child scanned");
	TAP_OK(child > 0 && mem_ranking_find(&r, child) != NULL, "the child is in it");
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	TAP_EQ_INT(mem_ranking_scan(&r, 10, NULL, child), 1, "the child killed: the scan that had it is kept");
	TAP_OK(r.t == 9 && mem_ranking_find(&r, child) != NULL, "from t %.0f, with the child", r.t);
	TAP_EQ_INT(mem_ranking_scan(&r, 11, NULL, 0), 0, "no target: replaced");
	TAP_OK(r.t == 11 && !mem_ranking_find(&r, child), "at t 11, without the child");
	mem_ranking_free(&r);
	TAP_OK(!r.procs && !r.n, "mem_ranking_free");
}

/* ---- why memory killed it ---- */

static struct ooms_sig_rec sigs[OOMS_NSIG];

#define SEC 1000000000ull
#define START_NS (1000 * SEC)
#define TARGET 100

/* The target's death at START_NS + at_s by sig from sender (pid, comm). */
static void died_by(int sig, uint32_t sender, const char *comm, double at_s, struct ooms_death_rec *r)
{
	struct ooms_death d = {.ts_ns = START_NS + (uint64_t)(at_s * SEC), .exit_code = sig, .last_tid = TARGET};

	memset(sigs, 0, sizeof(sigs));
	sigs[sig].count = 1;
	sigs[sig].sender_tgid = sender;
	snprintf(sigs[sig].sender_comm, sizeof(sigs[sig].sender_comm), "%s", comm);
	ooms_death_classify(&d, sigs, OOMS_NSIG, NULL, TARGET, NULL, NULL, -1, r);
}

static struct ooms_kill_rec kill_rec(double at_s, uint32_t sender, const char *scomm, uint32_t victim,
				     const char *vcomm, int sig)
{
	struct ooms_kill_rec k = {.ts_ns = START_NS + (uint64_t)(at_s * SEC), .sender_tgid = sender,
				  .victim_tgid = victim, .sig = sig};

	snprintf(k.sender_comm, sizeof(k.sender_comm), "%s", scomm);
	snprintf(k.victim_comm, sizeof(k.victim_comm), "%s", vcomm);
	return k;
}

static struct ooms_sample last_sample(void)
{
	struct ooms_sample s;

	memset(&s, 0, sizeof(s));
	s.t = 99.5;
	s.mem = (struct ooms_memfig){.anon_kb = 1500 * 1024, .file_kb = 100 * 1024, .shmem_kb = 0, .swap_kb = 200 * 1024,
				     .sys_total_kb = 4 * 1024 * 1024, .sys_available_kb = 300 * 1024,
				     .sys_swap_total_kb = 1024 * 1024, .sys_swap_free_kb = 512 * 1024,
				     .psi_some10 = 30, .psi_some60 = 12, .psi_full10 = 3, .psi_full60 = 1,
				     .oom_score_adj = 300, .oom_score = 900};
	return s;
}

static struct mem_moment moment(double t, int64_t avail, double some10, double full10)
{
	return (struct mem_moment){.t = t, .available_kb = avail, .total_kb = 4 * 1024 * 1024, .swap_free_kb = 0,
				   .swap_total_kb = 0, .some10 = some10, .full10 = full10, .some60 = 0, .full60 = 0};
}

static void test_memory_short(void)
{
	struct mem_moment h[4];

	TAP_EQ_INT(ooms_memory_short(NULL, 0), 0, "no moments: not short");
	h[0] = moment(1, 300 * 1024, 0, 0); /* 7 % available */
	TAP_EQ_INT(ooms_memory_short(h, 1), 1, "MemAvailable under 10 %% of MemTotal: short");
	h[0].total_kb = 1000000;
	h[0].available_kb = 100000;
	TAP_EQ_INT(ooms_memory_short(h, 1), 0, "exactly 10 %%: not short");
	h[0].available_kb = 99999;
	TAP_EQ_INT(ooms_memory_short(h, 1), 1, "just under 10 %%: short");
	h[0].available_kb = -1;
	TAP_EQ_INT(ooms_memory_short(h, 1), 0, "MemAvailable unknown: not short");
	h[0] = moment(1, 0, 0, 0);
	h[0].total_kb = 0;
	TAP_EQ_INT(ooms_memory_short(h, 1), 0, "MemTotal unknown (0): not short");
	h[0] = moment(1, 2 * 1024 * 1024, 10, 0);
	TAP_EQ_INT(ooms_memory_short(h, 1), 1, "tasks stalled 10 %% of the last 10 s: short");
	h[0].some10 = 9.99;
	TAP_EQ_INT(ooms_memory_short(h, 1), 0, "9.99 %%: not short");
	h[0].some10 = -1;
	TAP_EQ_INT(ooms_memory_short(h, 1), 0, "PSI unknown (-1), memory plentiful: not short");
	h[0] = moment(1, 100 * 1024, 50, 10); /* short, but old */
	h[1] = moment(2, 2 * 1024 * 1024, 1, 0);
	h[2] = moment(3, 2 * 1024 * 1024, 1, 0);
	TAP_EQ_INT(ooms_memory_short(h, 3), 0, "only the last two moments count: an older shortage does not");
	h[3] = moment(4, 100 * 1024, 0, 0);
	TAP_EQ_INT(ooms_memory_short(h, 4), 1, "the last moment short: short");
	h[3] = h[2];
	h[2] = moment(3, 100 * 1024, 0, 0);
	TAP_EQ_INT(ooms_memory_short(h, 4), 1, "the one before the last short: short");
}

static void test_killer_names(void)
{
	TAP_EQ_STR(ooms_memory_killer_name("earlyoom"), "earlyoom", "earlyoom by name");
	TAP_EQ_STR(ooms_memory_killer_name("systemd-oomd"), "systemd-oomd", "systemd-oomd by name");
	TAP_EQ_STR(ooms_memory_killer_name("oomd"), "oomd", "oomd by name");
	TAP_EQ_STR(ooms_memory_killer_name("lmkd"), "lmkd", "lmkd by name");
	TAP_EQ_STR(ooms_memory_killer_name("lmkd_reaper1"), "lmkd", "lmkd's reaper thread is lmkd");
	TAP_EQ_STR(ooms_memory_killer_name("lmkd_watchdog"), "lmkd", "lmkd's watchdog thread is lmkd");
	TAP_OK(ooms_memory_killer_name("bash") == NULL, "bash is no memory killer");
	TAP_OK(ooms_memory_killer_name("earlyoomx") == NULL, "a name that only starts like earlyoom's is not");
}

/* The earlyoom scenario's ranking: the target first by oom_score among
 * the 5 a killer may pick, an adj -1000 process beside them. */
static struct mem_proc rank_procs[] = {
	{.pid = 201, .adj = 200, .score = 600, .rss_kb = 700000, .comm = "victim1"},
	{.pid = TARGET, .adj = 300, .score = 900, .rss_kb = 1600 * 1024, .comm = "target"},
	{.pid = 202, .adj = 0, .score = 400, .rss_kb = 500000, .comm = "victim2"},
	{.pid = 1, .adj = -1000, .score = 0, .rss_kb = 10000, .comm = "init"},
	{.pid = 203, .adj = 0, .score = 100, .rss_kb = 90000, .comm = "old"},
	{.pid = 204, .adj = 0, .score = 50, .rss_kb = 40000, .comm = "other"},
};

static void test_explain_earlyoom(void)
{
	struct ooms_death_rec d;
	struct ooms_sample last = last_sample();
	struct mem_moment hist[] = {
		moment(20, 1024, 90, 80),          /* more than 60 s before the end: not counted */
		moment(50, 800000, 5, 1),
		moment(70, 400000, 20, 2),
		moment(90, 300000, 35.5, 8),
		moment(99.5, 350000, 30, 3),
	};
	struct mem_ranking rank = {.t = 98, .procs = rank_procs, .n = 6, .cap = 6};
	struct ooms_kill_rec kills[] = {
		kill_rec(95, 777, "earlyoom", 201, "victim1", SIGTERM),  /* 5 s before: the round */
		kill_rec(60, 777, "earlyoom", 203, "old", SIGKILL),      /* 40 s before: not */
		kill_rec(100, 777, "earlyoom", TARGET, "target", SIGTERM), /* the target's own */
		kill_rec(100.5, 888, "killall", 204, "other", SIGKILL),  /* another sender */
		kill_rec(110, 777, "earlyoom", 202, "victim2", SIGKILL), /* 10 s after: the round */
	};
	struct killer_input in = {.pid = TARGET, .sender_root = 1, .last = &last, .hist = hist, .nhist = 5,
				  .rank = &rank, .kills = kills, .nkills = 5, .start_ns = START_NS, .death_t = 100};
	struct memory_kill k;

	died_by(SIGTERM, 777, "earlyoom", 100, &d);
	TAP_EQ_STR(ooms_death_cause_name(d.cause), "memory-killer", "earlyoom's SIGTERM: a memory killer's");
	in.death = &d;
	TAP_EQ_INT(ooms_memory_kill_explain(&in, &k), 1, "explained");
	TAP_EQ_STR(k.killer, "earlyoom", "killer earlyoom");
	TAP_EQ_STR(k.known_by, "name", "known by its name");
	TAP_EQ_STR(k.order, "oom_score", "earlyoom's order: oom_score");
	TAP_EQ_INT(k.rank, 1, "the target first in it");
	TAP_EQ_INT(k.ranked, 5, "of 5 (the adj -1000 process not counted)");
	TAP_OK(k.rank_t == 98, "ranked at t 98");
	TAP_OK(memfig_eq(&k.at, &last.mem) && k.at_t == 99.5, "the last sample's figures, at its t");
	TAP_EQ_INT(k.moments, 4, "4 moments in the minute before");
	TAP_EQ_INT(k.min_available_kb, 300000, "the minute's least MemAvailable (an older, lower one left out)");
	TAP_OK(k.max_some10 == 35.5, "the minute's worst PSI some avg10: %.1f", k.max_some10);
	TAP_OK(k.max_full10 == 8, "the minute's worst PSI full avg10: %.1f", k.max_full10);
	TAP_EQ_INT(k.nround, 2, "a round of 2 others: same sender, within 30 s, not the target");
	if (k.nround == 2) {
		TAP_OK(k.round[0].pid == 201 && k.round[1].pid == 202, "PIDs 201 and 202");
		TAP_OK(k.round[0].rss_kb == 700000 && k.round[1].rss_kb == 500000, "their RSS from the ranking");
		TAP_OK(k.round[0].adj == 200 && k.round[1].adj == 0, "their oom_score_adj from the ranking");
		TAP_OK(!strcmp(k.round[0].comm, "victim1") && !strcmp(k.round[1].comm, "victim2"), "their comms");
		TAP_OK(k.round[0].t == 95 && k.round[1].t == 110, "their times since the start (95, 110 s)");
	}
	TAP_OK(strstr(k.sentence, "MemAvailable 300 MB of 4.0 GB (7 %)") != NULL, "the sentence has MemAvailable: %s",
	       flat(k.sentence));
	TAP_OK(strstr(k.sentence, "oom_score_adj 300, oom_score 900") != NULL, "... the target's oom_score_adj");
	TAP_OK(strstr(k.sentence, "the 1st of 5 processes by oom_score (earlyoom's order)") != NULL,
	       "... its place: 1st of 5");
	TAP_OK(strstr(k.sentence, "2 other process(es) killed by it within 30 s") != NULL, "... and the round");

	/* a target at oom_score_adj -1000 (killed anyway): no place claimed */
	rank_procs[1].adj = -1000;
	TAP_EQ_INT(ooms_memory_kill_explain(&in, &k), 1, "a target at adj -1000: explained");
	TAP_OK(k.rank == 0 && k.ranked == 4 && !strstr(k.sentence, "1st of"),
	       "no place in the killer's order claimed (%zu of %zu)", k.rank, k.ranked);
	rank_procs[1].adj = 300;

	/* the same with no ranking and no ring: no place, no round, no crash */
	in.rank = NULL;
	in.kills = NULL;
	in.nkills = 0;
	TAP_EQ_INT(ooms_memory_kill_explain(&in, &k), 1, "explained without a ranking or kills");
	TAP_OK(k.rank == 0 && k.nround == 0 && !strstr(k.sentence, " of 5 processes"), "no place, no round said");

	/* systemd-oomd picks a cgroup (reclaim under pressure, swap), not a process: no place by oom_score */
	in.rank = &rank;
	died_by(SIGKILL, 999, "systemd-oomd", 100, &d);
	in.death = &d;
	TAP_EQ_INT(ooms_memory_kill_explain(&in, &k), 1, "systemd-oomd's kill explained");
	TAP_OK(!strcmp(k.killer, "systemd-oomd") && strstr(k.order, "a cgroup's") && k.rank == 0 &&
	       !strstr(k.sentence, "1st of"), "by its own order (%s), no process ranked by oom_score", k.order);
}

static void test_explain_behaviour(void)
{
	struct ooms_death_rec d;
	struct ooms_sample last = last_sample();
	struct mem_moment shortm[] = {moment(95, 2000000, 1, 0), moment(99, 200000, 2, 0)}; /* 4.8 % available */
	struct mem_moment plenty[] = {moment(95, 2000000, 1, 0), moment(99, 1900000, 2, 0)};
	struct mem_ranking rank = {.t = 98, .procs = rank_procs, .n = 6, .cap = 6};
	struct killer_input in = {.pid = TARGET, .sender_root = 1, .last = &last, .hist = shortm, .nhist = 2,
				  .rank = &rank, .start_ns = START_NS, .death_t = 100};
	struct memory_kill k;

	/* (b) root, memory short */
	died_by(SIGKILL, 555, "mykiller", 100, &d);
	TAP_EQ_STR(ooms_death_cause_name(d.cause), "signal", "mykiller's SIGKILL: another process's signal");
	in.death = &d;
	TAP_EQ_INT(ooms_memory_kill_explain(&in, &k), 1, "a root process's SIGKILL while memory was short: explained");
	TAP_EQ_STR(ooms_death_cause_name(d.cause), "memory-killer", "the cause becomes a memory killer's");
	TAP_EQ_STR(k.known_by, "behaviour", "known by its behaviour");
	TAP_EQ_STR(k.killer, "mykiller", "named by its comm (its PID in the sentence: runs grouped by killer share it)");
	TAP_OK(strstr(d.sentence, "a root process") && strstr(d.sentence, "a memory killer, by its behaviour"),
	       "the death's sentence says why: %s", d.sentence);
	TAP_EQ_INT(k.rank, 1, "ranked by oom_score (the kernel's and earlyoom's order)");

	/* sender's uid unknown (it exited): still by behaviour, not called root */
	died_by(SIGTERM, 555, "mykiller", 100, &d);
	in.sender_root = -1;
	TAP_EQ_INT(ooms_memory_kill_explain(&in, &k), 1, "a SIGTERM from a sender of unknown uid, memory short: explained");
	TAP_OK(d.cause == DEATH_MEM_KILLER && !strstr(d.sentence, "root"), "without calling it root: %s", d.sentence);

	/* (c) root, memory not short */
	died_by(SIGKILL, 555, "mykiller", 100, &d);
	in.sender_root = 1;
	in.hist = plenty;
	TAP_EQ_INT(ooms_memory_kill_explain(&in, &k), 0, "memory not short: not memory's");
	TAP_EQ_STR(ooms_death_cause_name(d.cause), "signal", "the cause stays signal");
	TAP_EQ_STR(d.sentence, "killed by SIGKILL sent by PID 555 (mykiller)", "and its sentence as it was");

	/* (d) not root, memory short */
	died_by(SIGKILL, 555, "mykiller", 100, &d);
	in.sender_root = 0;
	in.hist = shortm;
	TAP_EQ_INT(ooms_memory_kill_explain(&in, &k), 0, "a non-root sender: not memory's");
	TAP_EQ_STR(ooms_death_cause_name(d.cause), "signal", "the cause stays signal");

	/* another signal than SIGKILL or SIGTERM */
	died_by(SIGHUP, 555, "mykiller", 100, &d);
	in.sender_root = 1;
	TAP_EQ_INT(ooms_memory_kill_explain(&in, &k), 0, "a SIGHUP, even from root while short: not memory's");
}

static void test_explain_lmkd_exit_oom(void)
{
	struct ooms_death_rec d;
	struct ooms_sample last = last_sample();
	struct mem_moment hist[] = {moment(99, 200000, 40, 10)};
	/* by oom_score the target is 3rd; by adj, then RSS, 2nd */
	struct mem_proc procs[] = {
		{.pid = TARGET, .adj = 900, .score = 100, .rss_kb = 1000, .comm = "target"},
		{.pid = 301, .adj = 900, .score = 50, .rss_kb = 5000, .comm = "heavier"},
		{.pid = 302, .adj = 0, .score = 999, .rss_kb = 100, .comm = "system"},
		{.pid = 303, .adj = 0, .score = 800, .rss_kb = 200, .comm = "phone"},
	};
	struct mem_ranking rank = {.t = 99, .procs = procs, .n = 4, .cap = 4};
	struct ooms_kill_rec kills[] = {kill_rec(99.8, 321, "lmkd", 301, "heavier", SIGKILL)};
	struct killer_input in = {.pid = TARGET, .sender_root = 1, .last = &last, .hist = hist, .nhist = 1,
				  .rank = &rank, .kills = kills, .nkills = 1, .start_ns = START_NS, .death_t = 100};
	struct memory_kill k;
	struct ooms_death dx = {.ts_ns = START_NS + 100 * SEC, .exit_code = 1 << 8, .last_tid = TARGET};
	struct ooms_oom_victim oom = {.ts_ns = START_NS + 100 * SEC, .anon_rss_kb = 1000, .killer_tgid = 321};

	/* lmkd's watchdog thread (its kill when lmkd's main loop hangs) */
	died_by(SIGKILL, 321, "lmkd_watchdog", 100, &d);
	TAP_EQ_STR(ooms_death_cause_name(d.cause), "lmkd", "lmkd_watchdog's SIGKILL: lmkd's");
	/* (e) lmkd's reaper thread */
	died_by(SIGKILL, 321, "lmkd_reaper0", 100, &d);
	TAP_EQ_STR(ooms_death_cause_name(d.cause), "lmkd", "lmkd_reaper0's SIGKILL: lmkd's");
	in.death = &d;
	TAP_EQ_INT(ooms_memory_kill_explain(&in, &k), 1, "explained");
	TAP_EQ_STR(k.killer, "lmkd", "killer lmkd");
	TAP_EQ_STR(k.order, "oom_score_adj, then RSS", "lmkd's order: oom_score_adj, then RSS");
	TAP_EQ_INT(k.rank, 2, "2nd in it (the heavier one at the same adj ahead), not 3rd as by oom_score");
	TAP_EQ_INT(k.ranked, 4, "of 4");
	TAP_OK(strstr(k.sentence, "the 2nd of 4 processes by oom_score_adj, then RSS (lmkd's order)") != NULL,
	       "said: %s", flat(k.sentence));
	TAP_OK(k.nround == 1 && k.round[0].pid == 301 && k.round[0].rss_kb == 5000, "its round: PID 301, 5000 kB");

	/* (f) an exit */
	ooms_death_classify(&dx, sigs, OOMS_NSIG, NULL, TARGET, NULL, NULL, -1, &d);
	TAP_EQ_STR(ooms_death_cause_name(d.cause), "exit", "an exit");
	TAP_EQ_INT(ooms_memory_kill_explain(&in, &k), 0, "an exit is not memory's kill");

	/* the kernel's OOM killer: no sender's round */
	memset(sigs, 0, sizeof(sigs));
	sigs[SIGKILL].count = 1;
	sigs[SIGKILL].sender_tgid = 321;
	snprintf(sigs[SIGKILL].sender_comm, sizeof(sigs[SIGKILL].sender_comm), "lmkd");
	dx.exit_code = SIGKILL;
	ooms_death_classify(&dx, sigs, OOMS_NSIG, &oom, TARGET, NULL, NULL, -1, &d);
	TAP_EQ_STR(ooms_death_cause_name(d.cause), "oom-killer", "the kernel's OOM killer");
	TAP_EQ_INT(ooms_memory_kill_explain(&in, &k), 1, "explained");
	TAP_OK(!strcmp(k.known_by, "kernel") && !strcmp(k.killer, "the kernel's OOM killer") && !strcmp(k.order, "oom_score"),
	       "known by the kernel's record, ordered by oom_score");
	TAP_EQ_INT(k.nround, 0, "no round: the kernel is no sender of the ring's kills");
}

/* ---- the memory rules ---- */

/* A sample where only the memory figures are known. */
static struct ooms_sample mem_sample(double t, int64_t mem, int64_t mem_limit, int64_t stall)
{
	struct ooms_sample s;

	memset(&s, 0, sizeof(s));
	for (int r = 0; r < RES_MAX; r++)
		s.res[r].value = -1;
	s.t = t;
	s.res[RES_MEMORY].value = mem;
	s.res[RES_MEMORY].limit = mem_limit;
	s.res[RES_MEMORY].limit_src = "memory.max";
	s.res[RES_MEMSTALL].value = stall;
	s.res[RES_MEMSTALL].limit = 1000;
	return s;
}

/* Feeds s; the crossing of rule, if it fired (else NULL). */
static const struct ooms_crossing *fired(struct ooms_detector *d, const struct ooms_sample *s, enum ooms_rule rule,
					 size_t *n_out)
{
	static struct ooms_crossing x[RULE_MAX];
	size_t n = ooms_detect_feed(d, s, x, RULE_MAX);

	if (n_out)
		*n_out = n;
	for (size_t i = 0; i < n; i++)
		if (x[i].rule == rule)
			return &x[i];
	return NULL;
}

static void test_memory_rules(void)
{
	const int ratio = OOMS_RULE(RES_MEMORY, RK_RATIO), trend = OOMS_RULE(RES_MEMORY, RK_TREND),
		  count = OOMS_RULE(RES_MEMORY, RK_COUNT), stall = OOMS_RULE(RES_MEMSTALL, RK_COUNT);
	struct ooms_detect_config c;
	struct ooms_detector d;
	const struct ooms_crossing *x;
	struct ooms_sample s;
	size_t n;
	int pattern_ok, only_vmsize = 1;

	TAP_EQ_INT(ooms_resource_find("memory_kb"), RES_MEMORY, "the memory_kb row");
	TAP_EQ_INT(ooms_resource_find("memory_stall_ms"), RES_MEMSTALL, "the memory_stall_ms row");
	TAP_EQ_INT(ooms_rule_find("memory"), count, "rule memory");
	TAP_EQ_INT(ooms_rule_find("memory_ratio"), ratio, "rule memory_ratio");
	TAP_EQ_INT(ooms_rule_find("memory_trend"), trend, "rule memory_trend");
	TAP_EQ_INT(ooms_rule_find("memory_stall"), stall, "rule memory_stall");
	ooms_detect_defaults(&c);
	TAP_OK(c.res[RES_MEMORY].ratio == 0.85 && c.res[RES_MEMORY].trend_s == 60 && c.res[RES_MEMORY].count_limit == 0,
	       "memory's defaults: ratio 0.85, trend 60 s, no count rule");
	TAP_OK(c.res[RES_MEMSTALL].count_limit == 100 && c.res[RES_MEMSTALL].ratio == 0 &&
		       c.res[RES_MEMSTALL].trend_s == 0,
	       "memory_stall's defaults: 100 ms a second, no ratio, no trend");

	/* memory_ratio: 85 % of the limit */
	ooms_detect_init(&d, &c);
	s = mem_sample(1, 849999, 1000000, 0);
	TAP_OK(!fired(&d, &s, ratio, &n) && n == 0, "memory at 84.9999 %% of its limit: nothing fires");
	s = mem_sample(2, 850000, 1000000, 0);
	x = fired(&d, &s, ratio, NULL);
	TAP_OK(x != NULL, "memory at 85 %%: memory_ratio fires");
	if (x) {
		TAP_OK(x->value == 850000 && x->limit == 850000, "at 850000 against 850000");
		TAP_EQ_STR(x->reason, "830.1 MB of memory (anonymous, shared, swapped) >= 85% of the memory cgroup's limit "
				      "(memory.max) of 976.6 MB", "reason: in MB, the limit named for what it is");
	}
	ooms_detect_init(&d, &c);
	s = mem_sample(1, 5000000, 1000000, 0);
	TAP_OK(!fired(&d, &s, count, NULL), "the memory count rule is off by default, even over the limit");

	/* memory_trend: a steady rise of 50 MB/s from past a quarter of the limit */
	ooms_detect_init(&d, &c);
	pattern_ok = 1;
	for (int i = 0; i < 3; i++) {
		s = mem_sample(1 + i, 500000 + 50000 * i, 1000000, 0);
		if (fired(&d, &s, trend, NULL))
			pattern_ok = 0;
	}
	TAP_OK(pattern_ok, "three rising samples: too few for a trend");
	s = mem_sample(4, 650000, 1000000, 0);
	x = fired(&d, &s, trend, NULL);
	TAP_OK(x != NULL, "the fourth: memory_trend fires (the limit 7 s away)");
	if (x) {
		TAP_OK(x->value == 650000 && x->limit == 1000000, "at 650000, heading for 1000000");
		TAP_EQ_STR(x->reason, "634.8 MB of memory (anonymous, shared, swapped), rising 48.8 MB/s: the memory cgroup's "
				      "limit (memory.max) of 976.6 MB exhausted in 7 s (under 60 s)",
			   "reason: in MB and MB/s");
	}
	s = mem_sample(5, 700000, 1000000, 0);
	TAP_OK(!fired(&d, &s, trend, NULL), "a trend is one warning: not again at the next sample");

	/* a slow rise: the limit further than 60 s away */
	ooms_detect_init(&d, &c);
	pattern_ok = 1;
	for (int i = 0; i < 6; i++) {
		s = mem_sample(1 + i, 600000 + 1000 * i, 1000000, 0);
		if (fired(&d, &s, trend, NULL))
			pattern_ok = 0;
	}
	TAP_OK(pattern_ok, "1 MB/s at 60 %% of the limit (some 400 s left): no trend");
	/* a fast rise under a quarter of the limit (memory's trend looks from
	 * there on: trend_from_pct) */
	ooms_detect_init(&d, &c);
	pattern_ok = 1;
	for (int i = 0; i < 6; i++) {
		s = mem_sample(1 + i, 20000 + 40000 * i, 1000000, 0);
		if (fired(&d, &s, trend, NULL))
			pattern_ok = 0;
	}
	TAP_OK(pattern_ok, "a fast rise still under a quarter of the limit (220000 of 1000000): no trend yet");
	s = mem_sample(7, 300000, 1000000, 0);
	TAP_OK(fired(&d, &s, trend, NULL) != NULL, "past a quarter of the limit, still rising: the trend fires");
	/* a step, then flat */
	ooms_detect_init(&d, &c);
	pattern_ok = 1;
	for (int i = 0; i < 6; i++) {
		s = mem_sample(1 + i, i < 3 ? 500000 : 800000, 1000000, 0);
		if (fired(&d, &s, trend, NULL))
			pattern_ok = 0;
	}
	TAP_OK(pattern_ok, "a step then flat is no trend");

	/* memory_stall: 100 ms a second, on a 64-bit target */
	ooms_detect_init(&d, &c);
	s = mem_sample(1, -1, -1, 99);
	TAP_OK(s.is_32bit == 0 && !fired(&d, &s, stall, &n) && n == 0, "99 ms a second stalled: nothing fires");
	s = mem_sample(2, -1, -1, 100);
	x = fired(&d, &s, stall, NULL);
	TAP_OK(x != NULL, "100 ms a second on a 64-bit target: memory_stall fires");
	if (x)
		TAP_OK(x->value == 100 && x->limit == 100 &&
			       strstr(x->reason, "100 ms a second stalled on memory (PSI some) >= 100") != NULL,
		       "reason: %s", x->reason);
	ooms_detect_init(&d, &c);
	pattern_ok = 1;
	for (int i = 0; i < 6; i++) {
		s = mem_sample(1 + i, -1, -1, 950 + 10 * i);
		x = fired(&d, &s, OOMS_RULE(RES_MEMSTALL, RK_RATIO), NULL);
		if (x || fired(&d, &s, OOMS_RULE(RES_MEMSTALL, RK_TREND), NULL))
			pattern_ok = 0;
	}
	TAP_OK(pattern_ok, "memory_stall_ratio and memory_stall_trend are off by default");
	TAP_EQ_INT(ooms_detect_set(&c, "memory_stall=200"), 0, "memory_stall=200 set");
	ooms_detect_init(&d, &c);
	s = mem_sample(1, -1, -1, 150);
	TAP_OK(!fired(&d, &s, stall, NULL), "then 150 ms a second does not fire");
	s = mem_sample(2, -1, -1, 200);
	TAP_OK(fired(&d, &s, stall, NULL) != NULL, "and 200 does");

	/* regression: the VmSize count rule stays 32-bit only */
	for (int r = 0; r < RES_MAX; r++)
		if (ooms_resources[r].count_32bit_only != (r == RES_VMSIZE))
			only_vmsize = 0;
	TAP_OK(only_vmsize, "VmSize is the only count_32bit_only row");
	ooms_detect_defaults(&c);
	ooms_detect_init(&d, &c);
	s = mem_sample(1, -1, -1, -1);
	s.res[RES_VMSIZE].value = 4000000;
	TAP_OK(!fired(&d, &s, RULE_VMSIZE, &n) && n == 0, "VmSize 4,000,000 kB on a 64-bit target: no crossing");
	s.t = 2;
	s.is_32bit = 1;
	TAP_OK(fired(&d, &s, RULE_VMSIZE, NULL) != NULL, "the same on a 32-bit target: vmsize fires");
}

int main(void)
{
	test_mem_cat_of();
	test_read_smaps();
	test_meminfo();
	test_run_memory();
	test_ranking_place();
	test_ranking_scan();
	test_memory_short();
	test_killer_names();
	test_explain_earlyoom();
	test_explain_behaviour();
	test_explain_lmkd_exit_oom();
	test_memory_rules();
	return tap_done();
}
