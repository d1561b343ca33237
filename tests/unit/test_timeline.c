/* The timeline's records through their writer and back through their
 * reader: every field survives, a record re-written from what was read is
 * byte for byte the one first written, and absent or wrongly typed fields
 * read as absent. */
#define _GNU_SOURCE
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "run/run_id.h"
#include "run/timeline.h"
#include "util/json.h"
#include "util/jsonread.h"
#include "tap.h"

/* r as one line of JSON (caller frees). */
static char *written(const struct run_record *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct json j;

	json_init(&j, f, 0);
	run_record_write(&j, r);
	json_end_line(&j);
	fclose(f);
	return buf;
}

/* Writes r, reads it back into *back (o keeps its strings) and checks that
 * writing *back gives the same line. */
static struct json_object *round_trip(const struct run_record *r, struct run_record *back, const char *what)
{
	char *line = written(r), *again;
	struct json_object *o = json_tokener_parse(line);

	TAP_OK(o != NULL, "%s: written as JSON", what);
	TAP_EQ_INT(run_record_read(o, back), r->type, "%s: read back as its type", what);
	again = written(back);
	TAP_EQ_STR(again, line, "%s: re-written byte for byte", what);
	free(line);
	free(again);
	return o;
}

static void test_start(void)
{
	struct run_record r = {.type = REC_START, .u.start = {
		.t = 0, .run_id = "0123456789abcdef0123456789abcdef", .host = "lab-7", .nlabels = 2,
		.label_key = {"build", "device"}, .label_value = {"4312", "Pixel 7"}, .pid = 4242, .command = "demo --leak", .mode = "watch", .kernel = "6.1.0", .arch = "x86_64",
		.target_32bit = 1, .interval_s = 0.5, .duration_s = 30, .libc = "/lib/libc.so.6", .page_size = 4096,
		.ringbuf_bytes = 1 << 22, .wall_time = "2026-11-23T15:00:00Z",
		.settings = {.res = {[RES_THREADS] = {.count_limit = 450, .count_gap = 50, .count_polls = 3, .ratio = 0.8},
				     [RES_FDS] = {.count_limit = 800, .count_gap = 50, .count_polls = 3, .ratio = 0.9, .trend_s = 60},
				     [RES_VMSIZE] = {.count_limit = 3800000, .trend_s = 30},
				     [RES_MEMFD] = {.ratio = 0.5, .trend_s = 45}},
			     .vmsize_64bit = 0, .big_alloc_bytes = 40 << 20, .big_alloc_mode = "uprobe",
			     .heap_rule = "koom", .heap_ratio = 0.8, .heap_polls = 3, .heap_interval_s = 5,
			     .max_dumps = 2, .shim = 1}}};
	struct run_record b;
	struct json_object *o = round_trip(&r, &b, "start");

	TAP_EQ_INT(b.u.start.pid, 4242, "start: pid");
	TAP_EQ_STR(b.u.start.run_id, "0123456789abcdef0123456789abcdef", "start: run_id");
	TAP_EQ_STR(b.u.start.host, "lab-7", "start: host");
	TAP_OK(b.u.start.nlabels == 2 && !strcmp(b.u.start.label_key[1], "device") &&
	       !strcmp(b.u.start.label_value[1], "Pixel 7"), "start: the labels, in order");
	TAP_EQ_STR(b.u.start.command, "demo --leak", "start: command");
	TAP_EQ_INT(b.u.start.target_32bit, 1, "start: target_32bit");
	TAP_EQ_INT(b.u.start.settings.res[RES_FDS].count_limit, 800, "start: settings: fds' count rule");
	TAP_OK(b.u.start.settings.res[RES_FDS].ratio == 0.9, "start: settings: fds' ratio");
	TAP_OK(b.u.start.settings.res[RES_VMSIZE].trend_s == 30, "start: settings: VmSize's trend, by the resource's name");
	TAP_OK(b.u.start.settings.res[RES_MEMFD].ratio == 0.5 && b.u.start.settings.res[RES_MEMFD].trend_s == 45,
	       "start: settings: memfd's ratio and trend");
	TAP_OK(jr_int64(jr_get(o, "settings"), "fd_count", 0) == 800 && jr_num(jr_get(o, "settings"), "thread_ratio", 0) == 0.8,
	       "start: the first resources' rules also under the keys runs had before the table");
	TAP_EQ_STR(b.u.start.settings.big_alloc_mode, "uprobe", "start: settings.big_alloc_mode");
	TAP_EQ_INT(b.u.start.settings.shim, 1, "start: settings.shim");
	json_object_put(o);
}

/* A run's id: fresh ones differ and are 32 hex digits; one derived from a
 * start record's text is the same for the same text. */
static void test_run_id(void)
{
	char a[RUN_ID_LEN + 1], b[RUN_ID_LEN + 1], c[RUN_ID_LEN + 1];
	const char *text = "{\"type\":\"start\",\"t\":0,\"pid\":1}";

	run_id_new(a);
	run_id_new(b);
	TAP_OK(run_id_valid(a) && run_id_valid(b) && strcmp(a, b), "two fresh ids, valid and different: %s %s", a, b);
	run_id_derived(text, strlen(text), b);
	run_id_derived(text, strlen(text), c);
	TAP_OK(run_id_valid(b) && !strcmp(b, c), "derived from the same text: the same id");
	run_id_derived(text, strlen(text) - 1, c);
	TAP_OK(strcmp(b, c), "from other text: another");
	TAP_OK(!run_id_valid("0123") && !run_id_valid("0123456789ABCDEF0123456789abcdef") && !run_id_valid(NULL),
	       "short, upper-case, none: not ids");
}

static void test_sample(void)
{
	struct run_record r = {.type = REC_SAMPLE, .u.sample = {
		.t = 1.5, .rss_kb = 1000, .vmpeak_kb = 2100, .vmsize_bpf_kb = 1999,
		.threads_bpf = 7, .fds_bpf = 11,
		.res = {[RES_THREADS] = {7, 1000, "RLIMIT_NPROC"}, [RES_FDS] = {12, 1024, NULL}, [RES_VMSIZE] = {2000, 4000000, NULL},
			[RES_MEMFD] = {3, 1024, NULL}},
		.ringbuf_drops = 3, .set_full_drops = 4, .events = 99, .heap_src = "hsperfdata",
		.heap_used = 5 << 20, .heap_committed = 8 << 20, .heap_max = 64 << 20, .heap_limit = 51 << 20,
		.has_gc = 1, .gcs = 6, .gc_pause_ms = 12.5,
		.syscalls = {1, 2, 3, 4, 5, 6, 7, 8}}};
	struct run_record b;
	struct json_object *o = round_trip(&r, &b, "sample");

	TAP_OK(b.u.sample.t == 1.5, "sample: t");
	TAP_EQ_INT(b.u.sample.fds_bpf, 11, "sample: fds_bpf");
	TAP_OK(b.u.sample.res[RES_THREADS].value == 7 && b.u.sample.res[RES_THREADS].limit == 1000 &&
	       !strcmp(b.u.sample.res[RES_THREADS].limit_src, "RLIMIT_NPROC"), "sample: threads, their limit and its source");
	TAP_OK(b.u.sample.res[RES_VMSIZE].value == 2000 && b.u.sample.res[RES_VMSIZE].limit == 4000000, "sample: VmSize and RLIMIT_AS");
	TAP_OK(b.u.sample.res[RES_MEMFD].value == 3 && b.u.sample.res[RES_MEMFD].limit == 1024, "sample: memfd and its limit");
	TAP_OK(jr_int64(o, "fds", 0) == 12 && jr_int64(o, "fd_limit", 0) == 1024 && jr_int64(o, "vmsize_kb", 0) == 2000 &&
	       jr_int64(o, "rlimit_as_kb", 0) == 4000000 && jr_int64(o, "memfd", 0) == 3, "sample: each figure under its resource's key");
	TAP_EQ_INT(b.u.sample.heap_limit, 51 << 20, "sample: heap_limit");
	TAP_EQ_INT(b.u.sample.syscalls.brks, 8, "sample: syscalls.brks");
	json_object_put(o);

	/* a native target: no heap, no GC figures */
	r.u.sample.heap_src = NULL;
	r.u.sample.has_gc = 0;
	o = round_trip(&r, &b, "sample without a heap");
	TAP_OK(!b.u.sample.heap_src && b.u.sample.heap_used == RUN_NONE && b.u.sample.heap_limit == RUN_NONE,
	       "sample without a heap: heap figures absent");
	TAP_EQ_INT(b.u.sample.has_gc, 0, "sample without a heap: no GC figures");
	json_object_put(o);
}

static void test_events(void)
{
	struct run_pool pools[2] = {{"G1 Eden Space", 1, 2, 3}, {"G1 Old Gen", 4, 5, 6}};
	struct run_record rs[] = {
		{.type = REC_CROSSING, .u.crossing = {2, "fd_count", "fds 900 over 800", 900, 800, "event", "fds-1.json",
						      "allocs-1.json"}},
		{.type = REC_CROSSING, .u.crossing = {.t = 3, .rule = "heap_koom", .reason = "heap at 85%", .value = 5,
						      .limit = 4}},
		{.type = REC_DRIFT, .u.drift = {4, "fds", 10, 12}},
		{.type = REC_RUNTIME, .u.runtime = {5, "hotspot", "/usr/lib/jvm/libjvm.so", "koom", 4, 2, 30, 5}},
		{.type = REC_GC, .u.gc = {.t = 6, .full = 1, .pause_ms = 3.25, .used_after = RUN_NONE}},
		{.type = REC_OOM, .u.oom = {.t = 7, .source = "probe", .message = "Java heap space", .bytes = 1 << 20,
					    .tid = 77, .thread = "main", .kind = "heap", .hint = "use --shim"}},
		{.type = REC_DUMP_START, .u.dump_start = {8, 1, "heap at 85%"}},
		{.type = REC_DUMP, .u.dump = {.t = 9, .seq = 1, .attempts = 1, .ok = 1, .method = "shim",
					      .file = "dump-1.hprof", .pause_ms = 40, .dump_ms = 200, .bytes_in = 10,
					      .bytes_out = 5, .objects = 3, .has_analysis = 1,
					      .analysis = "dump-1.analysis.json", .analyze_ms = 50, .leak_groups = 1,
					      .leak_objects = 200, .top_leak = "Session"}},
		{.type = REC_DUMP, .u.dump = {.t = 9, .seq = 2, .ok = 0, .method = "jvm", .error = "target exited",
					      .target_exited = 1}},
		{.type = REC_END, .u.end = {.t = 10, .reason = "target exited", .target_exit_code = 3,
					    .target_signal = RUN_NONE, .ringbuf_drops = 1, .events_sent = 50,
					    .events_received = 49, .skipped_runs = 7, .fds_without_event = 11, .crossings = 2, .call_fails = 5, .probe_misses = 3, .death = "oom_killer",
					    .how = "killed by the OOM killer", .runtime = "hotspot", .dumps = 1,
					    .java_asked = 303, .java_sampled_out = 3718, .java_reported = 301, .java_unmatched = 2,
					    .collector_cpu_s = 1.5, .collector_peak_rss_kb = 20480}},
	};
	const size_t rs_n = sizeof(rs) / sizeof(rs[0]);
	struct run_record b;

	for (size_t i = 0; i < rs_n; i++) {
		char what[64];
		struct json_object *o;

		snprintf(what, sizeof(what), "%s #%zu", run_rec_name(rs[i].type), i);
		o = round_trip(&rs[i], &b, what);
		json_object_put(o);
	}
	/* the gc record's pools and the oom record's stack are written only */
	rs[4].u.gc.pools = pools;
	rs[4].u.gc.npools = 2;
	rs[4].u.gc.used_after = 5;
	{
		char *line = written(&rs[4]);

		TAP_OK(strstr(line, "\"G1 Old Gen\":{\"used\":4,\"committed\":5,\"max\":6}") != NULL, "gc: pools written");
		free(line);
	}
	{
		char *line = written(&rs[rs_n - 1]);

		TAP_OK(strstr(line, "\"skipped_runs\":7") != NULL, "end: the runs the kernel skipped written");
		TAP_OK(strstr(line, "\"fds_without_event\":11") != NULL, "end: the fds that came with no event written");
		TAP_OK(strstr(line, "\"java_stacks\":{\"asked\":303,\"sampled_out\":3718,\"reported\":301,\"unmatched\":2}") != NULL,
		       "end: the Java stacks' cost written");
		free(line);
	}
	rs[5].u.oom.stack = "A.f:1;B.g:2";
	{
		char *line = written(&rs[5]);

		TAP_OK(strstr(line, "\"java_stack\":[\"A.f:1\",\"B.g:2\"]") != NULL, "oom: stack written as frames");
		free(line);
	}
}

static void test_damaged(void)
{
	struct run_record r;
	struct json_object *o = json_tokener_parse("{\"type\":\"sample\",\"t\":\"soon\",\"rss_kb\":\"big\",\"fds\":1e300,"
						   "\"threads\":2.0,\"heap_src\":5,\"syscalls\":[1]}");

	TAP_EQ_INT(run_record_read(o, &r), REC_SAMPLE, "damaged sample: still a sample");
	TAP_OK(r.u.sample.t == 0, "damaged sample: a t that is not a number reads as 0");
	TAP_EQ_INT(r.u.sample.rss_kb, RUN_NONE, "damaged sample: a string figure reads as absent");
	TAP_EQ_INT(r.u.sample.res[RES_FDS].value, RUN_NONE, "damaged sample: an out-of-range figure reads as absent");
	TAP_EQ_INT(r.u.sample.res[RES_THREADS].value, 2, "damaged sample: 2.0 reads as 2");
	TAP_OK(r.u.sample.heap_src == NULL, "damaged sample: a number where a string belongs reads as absent");
	TAP_EQ_INT(r.u.sample.syscalls.fd_opens, 0, "damaged sample: syscalls of the wrong shape read as zero");
	json_object_put(o);

	o = json_tokener_parse("[1,2]");
	TAP_EQ_INT(run_record_read(o, &r), REC_UNKNOWN, "an array is no record");
	json_object_put(o);
	TAP_EQ_INT(run_record_read(NULL, &r), REC_UNKNOWN, "nothing is no record");
	o = json_tokener_parse("{\"type\":\"later_kind\",\"t\":1}");
	TAP_EQ_INT(run_record_read(o, &r), REC_UNKNOWN, "an unknown type reads as unknown");
	json_object_put(o);
	o = json_tokener_parse("{\"type\":\"alloc_freed\",\"t\":1}");
	TAP_EQ_INT(run_record_read(o, &r), REC_BIG_ALLOC, "alloc_freed is a big_alloc record");
	json_object_put(o);
}

int main(void)
{
	test_start();
	test_run_id();
	test_sample();
	test_events();
	test_damaged();
	return tap_done();
}
