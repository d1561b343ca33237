/* The run directory's files beside the timeline (run/frames, allocs,
 * failures, death) through their writer and back through their reader:
 * every field survives, what was read re-writes byte for byte as it was
 * first written, and a damaged document reads as absent, not as a crash. */
#define _GNU_SOURCE
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "run/allocs.h"
#include "run/analysis.h"
#include "run/death.h"
#include "run/failures.h"
#include "run/fields.h"
#include "run/frames.h"
#include "run/timeline.h"
#include "run/snapshot.h"
#include "util/json.h"
#include "tap.h"

static const struct run_frame frames[] = {
	{.addr = 0x7f0012345678, .module = "/usr/lib/libc.so.6", .base = 0x7f0012300000, .offset = 0x45678,
	 .symbol = "malloc", .sym_offset = 0x18, .build_id = "abcdef01", .text = "#malloc+0x18 (libc.so.6+0x45678)"},
	{.addr = 0x5555aaaa0000, .module = "/opt/app", .base = 0x555500000000, .offset = 0xaaaa0000,
	 .symbol = "_ZN3Foo3barEv", .demangled = "Foo::bar()", .sym_offset = 4, .text = "Foo::bar()+0x4 (app+0xaaaa0000)"},
	{.addr = 0x7f00dead0000, .symbol = "Lcom/App;->run", .jit = 1, .sym_offset = -1, .text = "Lcom/App;->run (jit)"},
	{.addr = 0x1000, .sym_offset = -1, .text = "0x1000"},
};
#define NFRAMES (sizeof(frames) / sizeof(frames[0]))

static void write_native(struct json *j, void *ctx)
{
	(void)ctx;
	run_frames_open(j);
	for (size_t i = 0; i < NFRAMES; i++)
		run_frame_write(j, &frames[i]);
	json_arr_end(j);
}

static void write_frames(struct json *j, void *ctx)
{
	write_native(j, ctx);
	run_java_frames_write(j, "App.leak(App.java:12);App.main(App.java:3)");
}

static char *text_of(void (*fn)(struct json *j, const void *arg), const void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct json j;

	json_init(&j, f, 0);
	fn(&j, arg);
	json_end_line(&j);
	fclose(f);
	return buf;
}

static int same_frame(const struct run_frame *a, const struct run_frame *b)
{
	return a->addr == b->addr && !strcmp(a->text, b->text) && a->jit == b->jit && a->sym_offset == b->sym_offset &&
	       (a->module ? b->module && !strcmp(a->module, b->module) && a->base == b->base && a->offset == b->offset
			  : !b->module) &&
	       (a->symbol ? b->symbol && !strcmp(a->symbol, b->symbol) : !b->symbol) &&
	       (a->demangled ? b->demangled && !strcmp(a->demangled, b->demangled) : !b->demangled) &&
	       (a->build_id ? b->build_id && !strcmp(a->build_id, b->build_id) : !b->build_id);
}

/* ---- allocs ---- */

static const struct run_alloc allocs_list[] = {
	{.t = 1.25, .bytes = 40 << 20, .tid = 77, .stack_id = 3, .function = "malloc", .thread = "worker",
	 .state = "live", .allocated_by = "leak (app)", .address = 0x7f0000000000},
	{.t = 2.5, .bytes = 8 << 20, .tid = 78, .stack_id = 4, .function = "mmap", .thread = "io", .state = "freed"},
};

static void allocs_doc(struct json *j, const void *arg)
{
	const struct run_allocs *a = arg;

	run_allocs_begin(j, &a->head);
	for (size_t i = 0; i < a->ngroups; i++)
		run_alloc_group_write(j, &a->groups[i]);
	run_allocs_between(j);
	for (size_t i = 0; i < a->nallocations; i++)
		run_alloc_write(j, &a->allocations[i]);
	run_allocs_end(j);
}

static void test_allocs(void)
{
	struct run_alloc_group g = {.stack_id = 3, .count = 5, .total_bytes = 200 << 20, .largest_bytes = 40 << 20,
				    .live_bytes = 80 << 20, .has_live = 1, .functions = {"malloc", "mmap"}, .nfunctions = 2,
				    .allocated_by = "leak (app)", .write_frames = write_native};
	struct run_allocs in = {.head = {.threshold_bytes = 8 << 20, .mode = "uprobe", .return_probes = 1, .stack_depth = 24,
					 .count = 2, .frees_without_record = 1},
				.groups = &g, .ngroups = 1, .allocations = (struct run_alloc *)allocs_list, .nallocations = 2};
	char *line = text_of(allocs_doc, &in), *again;
	struct json_object *o = json_tokener_parse(line);
	struct run_allocs back;

	TAP_OK(o && run_allocs_read(o, &back) == 0, "allocs: written, read back");
	TAP_OK(back.head.threshold_bytes == 8 << 20 && !strcmp(back.head.mode, "uprobe") && back.head.return_probes &&
	       back.head.stack_depth == 24 && back.head.count == 2 && back.head.frees_without_record == 1, "allocs: the head");
	TAP_OK(back.ngroups == 1 && back.groups[0].count == 5 && back.groups[0].live_bytes == 80 << 20 &&
	       back.groups[0].has_live && back.groups[0].nfunctions == 2 && !strcmp(back.groups[0].functions[1], "mmap") &&
	       !strcmp(back.groups[0].allocated_by, "leak (app)"), "allocs: the group");
	TAP_EQ_INT(back.groups[0].frames.n, NFRAMES, "allocs: the group's frames");
	for (size_t i = 0; i < NFRAMES && i < back.groups[0].frames.n; i++)
		TAP_OK(same_frame(&frames[i], &back.groups[0].frames.v[i]), "frame %zu read as written", i);
	TAP_OK(back.nallocations == 2 && back.allocations[0].address == 0x7f0000000000 && back.allocations[1].address == 0 &&
	       !strcmp(back.allocations[1].state, "freed") && back.allocations[1].allocated_by == NULL &&
	       back.allocations[0].t == 1.25, "allocs: each allocation, an absent address and culprit as absent");
	/* what was read writes the same line (its frames from the struct this time) */
	again = text_of(allocs_doc, &back);
	TAP_EQ_STR(again, line, "allocs: re-written byte for byte");
	free(again);
	run_allocs_free(&back);
	json_object_put(o);
	free(line);
	/* not an allocs document */
	o = json_tokener_parse("[1,2]");
	TAP_EQ_INT(run_allocs_read(o, &back), -EINVAL, "an array is not an allocs document");
	json_object_put(o);
	o = json_tokener_parse("{\"groups\":[{\"count\":\"many\",\"frames\":[5,{\"addr\":7}]}],\"allocations\":{}}");
	TAP_OK(run_allocs_read(o, &back) == 0 && back.ngroups == 1 && back.groups[0].count == 0 &&
	       back.groups[0].frames.n == 2 && back.groups[0].frames.v[1].addr == 0 && back.nallocations == 0,
	       "damaged: wrong types read as absent");
	run_allocs_free(&back);
	json_object_put(o);
}

/* ---- failures and death ---- */

static void group_obj(struct json *j, const void *arg)
{
	json_obj(j);
	run_fail_group_write(j, arg, 0);
	json_obj_end(j);
}

static void test_failures(void)
{
	struct run_fail_group g = {.kind = "threads", .syscall = "clone3", .err = "EAGAIN", .kernel_stack_id = 9,
				   .count = 12, .count_estimated = 1, .t_first = 1.5, .t_last = 2.75, .tid = 42,
				   .thread = "spawner", .fds_open = -1, .threads = 40, .clone_flags = 0x3d0f00, .bytes = -1,
				   .called_by = "spawn (app)", .write_stacks = write_frames};
	char *line = text_of(group_obj, &g), *again;
	struct json_object *o = json_tokener_parse(line);
	struct run_fail_group back;

	TAP_OK(o && run_fail_group_read(o, &back) == 0, "failure group: written, read back");
	TAP_OK(!strcmp(back.kind, "threads") && !strcmp(back.syscall, "clone3") && !strcmp(back.err, "EAGAIN") &&
	       back.kernel_stack_id == 9 && back.count == 12 && back.count_estimated && back.t_first == 1.5 &&
	       back.t_last == 2.75 && back.tid == 42 && !strcmp(back.thread, "spawner") && back.threads == 40 &&
	       back.fds_open == -1 && back.clone_flags == 0x3d0f00 && back.bytes == -1 &&
	       !strcmp(back.called_by, "spawn (app)"), "failure group: every field");
	TAP_OK(back.frames.n == NFRAMES && run_java_frames_count(back.obj) == 2 &&
	       !strcmp(run_java_frame(back.obj, 0), "App.leak(App.java:12)"), "failure group: its native and Java frames");
	back.write_stacks = write_frames;
	again = text_of(group_obj, &back);
	TAP_EQ_STR(again, line, "failure group: re-written byte for byte");
	free(again);
	run_fail_group_free(&back);
	json_object_put(o);
	free(line);
}

static void death_doc(struct json *j, const void *arg)
{
	run_death_write(j, arg);
}

static void test_death(void)
{
	struct run_death d = {
		.t = 9.5, .pid = 4242, .cause = "oom-cgroup", .how = "killed by the kernel's OOM killer", .wait_status = 9,
		.exit_code = -1, .signal = 9, .signal_name = "SIGKILL", .core_dumped = 0, .has_sender = 1, .sender = {0, NULL, 128},
		.has_oom_killer = 1,
		.oom_killer = {9.25, 66000, 63000, 100, 0, 200, 0, 4242, "leaker"},
		.has_memory_cgroup = 1, .memory_cgroup = {"/x", "v2", 64 << 20, 3, 1},
		.has_last_state = 1,
		.last_state = {"oom_killer", 9.25, 63100, 66000, 3, 1000, 5, 1024, 1, 10 << 20, 64 << 20},
		.has_java_oom = 1, .java_oom = {2, 9.0, "Java heap space", "main", "dump-2.hprof.gz"},
		.has_last_failure = 1,
		.last_failure = {.kind = "memory", .syscall = "mmap", .err = "ENOMEM", .count = 1, .t_last = 9.1,
				 .fds_open = -1, .threads = -1, .clone_flags = -1, .bytes = 1 << 20, .called_by = "grow (app)"},
		.threads_file = "threads.json", .fds_file = "fds.json", .vmsize_file = "vmsize.json"};
	char *line = text_of(death_doc, &d), *again;
	struct json_object *o = json_tokener_parse(line);
	struct run_death back;

	TAP_OK(o && run_death_read(o, &back) == 0, "death: written, read back");
	TAP_OK(back.t == 9.5 && back.pid == 4242 && !strcmp(back.cause, "oom-cgroup") && back.wait_status == 9 &&
	       back.exit_code == -1 && back.signal == 9 && !strcmp(back.signal_name, "SIGKILL") && back.sender.si_code == 128 &&
	       back.sender.comm == NULL, "death: cause, status, signal, its sender");
	TAP_OK(back.has_oom_killer && back.oom_killer.anon_rss_kb == 63000 && back.oom_killer.allocating_pid == 4242 &&
	       back.has_memory_cgroup && back.memory_cgroup.limit_bytes == 64 << 20 && back.memory_cgroup.oom_kills == 1,
	       "death: the OOM killer's figures and the memory cgroup");
	TAP_OK(back.has_last_state && !strcmp(back.last_state.source, "oom_killer") && back.last_state.fds == 5 &&
	       back.last_state.has_heap && back.last_state.heap_max == 64 << 20, "death: the last state");
	TAP_OK(back.has_java_oom && back.java_oom.count == 2 && !strcmp(back.java_oom.dump, "dump-2.hprof.gz"),
	       "death: the OutOfMemoryError");
	TAP_OK(back.has_last_failure && !strcmp(back.last_failure.syscall, "mmap") && back.last_failure.bytes == 1 << 20 &&
	       back.last_failure.frames.n == 0, "death: the last failure, brief (no stacks)");
	again = text_of(death_doc, &back);
	TAP_EQ_STR(again, line, "death: re-written byte for byte");
	free(again);
	run_death_free(&back);
	json_object_put(o);
	free(line);
	o = json_tokener_parse("{\"type\":\"death\",\"t\":1}");
	TAP_EQ_INT(run_death_read(o, &back), -EINVAL, "a death record without its sentence is none");
	json_object_put(o);
}

/* ---- every field kind (run/fields.h), each at its edges ---- */

struct kinds {
	const char *str, *str_set;
	int64_t i64, i64_set, i64_0, i64_nz, i64_m1, i64_nn;
	int int_0, bool_;
	uint64_t u64, u64_set;
	double dbl, dbl_set, dbl_0;
};

static const struct run_field kind_fields[] = {
	RF(RF_STR, struct kinds, str, "str"),
	RF(RF_STR_SET, struct kinds, str_set, "str_set"),
	RF(RF_I64, struct kinds, i64, "i64"),
	RF(RF_I64_SET, struct kinds, i64_set, "i64_set"),
	RF(RF_I64_0, struct kinds, i64_0, "i64_0"),
	RF(RF_I64_NZ, struct kinds, i64_nz, "i64_nz"),
	RF(RF_I64_M1, struct kinds, i64_m1, "i64_m1"),
	RF(RF_I64_NN, struct kinds, i64_nn, "i64_nn"),
	RF(RF_INT_0, struct kinds, int_0, "int_0"),
	RF(RF_BOOL, struct kinds, bool_, "bool"),
	RF(RF_U64, struct kinds, u64, "u64"),
	RF(RF_U64_SET, struct kinds, u64_set, "u64_set"),
	RF(RF_DBL, struct kinds, dbl, "dbl"),
	RF(RF_DBL_SET, struct kinds, dbl_set, "dbl_set"),
	RF(RF_DBL_0, struct kinds, dbl_0, "dbl_0"),
};

static void kinds_doc(struct json *j, const void *arg)
{
	json_obj(j);
	run_fields_write(j, arg, kind_fields, RUN_FIELDS_N(kind_fields));
	json_obj_end(j);
}

static void test_field_kinds(void)
{
	/* zeros: each kind that writes a zero writes it (a _SET kind's "unset" is not 0) */
	struct kinds zero = {.str = "", .str_set = "", .dbl_set = 0};
	struct kinds unset = {.str = NULL, .str_set = NULL, .i64_set = RUN_NONE, .i64_nz = 0, .i64_nn = -1,
			      .u64_set = 0, .dbl = NAN, .dbl_set = NAN};
	struct kinds back;
	char *line = text_of(kinds_doc, &zero);
	struct json_object *o;

	TAP_EQ_STR(line,
		   "{\"str\":\"\",\"str_set\":\"\",\"i64\":0,\"i64_set\":0,\"i64_0\":0,\"i64_m1\":0,\"i64_nn\":0,"
		   "\"int_0\":0,\"bool\":false,\"u64\":0,\"dbl\":0,\"dbl_set\":0,\"dbl_0\":0}\n",
		   "field kinds: zeros written (all but i64_nz's and u64_set's, whose 0 is unset)");
	o = json_tokener_parse(line);
	run_fields_read(o, &back, kind_fields, RUN_FIELDS_N(kind_fields));
	TAP_OK(back.i64_set == 0 && back.i64_nn == 0 && back.i64_m1 == 0 && back.i64_nz == 0 && back.dbl_set == 0,
	       "field kinds: zeros read back as zeros");
	json_object_put(o);
	free(line);
	line = text_of(kinds_doc, &unset);
	TAP_EQ_STR(line, "{\"str\":null,\"i64\":0,\"i64_0\":0,\"i64_m1\":0,\"int_0\":0,\"bool\":false,\"u64\":0,\"dbl\":null,\"dbl_0\":0}\n",
		   "field kinds: what is unset left out");
	o = json_tokener_parse(line);
	run_fields_read(o, &back, kind_fields, RUN_FIELDS_N(kind_fields));
	TAP_OK(back.str == NULL && back.str_set == NULL && back.i64_set == RUN_NONE && back.i64_nz == 0 &&
	       back.i64_nn == -1 && back.u64_set == 0 && isnan(back.dbl_set),
	       "field kinds: what is absent reads as each kind's none");
	json_object_put(o);
	free(line);
}

/* ---- snapshots ---- */

static void fds_doc(struct json *j, const void *arg)
{
	(void)arg;
	run_snapshot_begin(j, SNAP_FDS, 99, 3.5, 1, 12, 1024);
	run_snap_group_begin(j, SNAP_FDS, "memfd", 10);
	run_snap_counts_begin(j, RUN_SNAP_PATHS);
	run_snap_count(j, RUN_SNAP_PATHS, "/memfd:a (deleted)", 10);
	run_snap_list_end(j);
	run_snap_stacks_begin(j);
	run_snap_stack_write(j, &(struct run_snap_stack){.count = 9, .created_by = "open_shared_memory (fd_target)",
							.creator_thread = "main", .syscall = "memfd_create"});
	write_frames(j, NULL);
	run_snap_stack_end(j);
	run_snap_stack_write(j, &(struct run_snap_stack){.count = 1, .unknown = "existed at attach"});
	run_snap_stack_end(j);
	run_snap_group_end(j);
	run_snapshot_end(j);
}

static void test_snapshot(void)
{
	char *line = text_of(fds_doc, NULL);
	struct json_object *o = json_tokener_parse(line);
	struct run_snapshot back;
	struct run_frames fr;

	TAP_OK(o && run_snapshot_read(o, SNAP_FDS, &back) == 0, "fds snapshot: written, read back");
	TAP_OK(back.pid == 99 && back.t == 3.5 && back.target_alive && back.members == 12 && back.limit == 1024,
	       "fds snapshot: its head");
	TAP_OK(back.ngroups == 1 && !strcmp(back.groups[0].name, "memfd") && back.groups[0].count == 10 &&
	       back.groups[0].nstacks == 2, "fds snapshot: the group by its kind, its two stacks");
	TAP_OK(back.groups[0].stacks[0].count == 9 && !strcmp(back.groups[0].stacks[0].syscall, "memfd_create") &&
	       !strcmp(back.groups[0].stacks[0].created_by, "open_shared_memory (fd_target)") &&
	       back.groups[0].stacks[1].unknown && !back.groups[0].stacks[1].created_by, "fds snapshot: each stack");
	TAP_OK(run_frames_read(back.groups[0].stacks[0].obj, &fr) == 0 && fr.n == NFRAMES &&
	       run_java_frames_count(back.groups[0].stacks[0].obj) == 2, "fds snapshot: a stack's frames");
	run_frames_free(&fr);
	run_snapshot_free(&back);
	TAP_OK(run_snapshot_read(o, SNAP_VMSIZE, &back) == -EINVAL, "vmsize.json has no groups to read");
	json_object_put(o);
	free(line);
}

/* ---- an analysis, as the analyzer writes it ---- */

static void test_analysis(void)
{
	struct json_object *o = json_tokener_parse(
		"{\"runningInfo\":{\"objects\":1200,\"reachableShallowSize\":65536},"
		"\"gcPaths\":[{\"className\":\"Leak\",\"signature\":\"ab12\",\"instanceCount\":3,\"retainedSizeTotal\":300,"
		"\"retainedSize\":100,\"leakReason\":\"kept\",\"gcRoot\":\"StickyClass\","
		"\"path\":[{\"referenceType\":\"STATIC_FIELD\",\"reference\":\"App.cache\"},{\"reference\":\"[3]\"}]}],"
		"\"suspects\":[{\"description\":\"accumulates\",\"count\":9,\"retainedSize\":900,\"gcRoot\":\"JavaFrame\"}],"
		"\"threads\":[{\"name\":\"main\",\"threwOutOfMemoryError\":true,\"heldRetainedSize\":50,"
		"\"frames\":[{\"frame\":\"App.run(App.java:3)\",\"locals\":[{\"className\":\"byte[]\",\"retainedSize\":40}]},"
		"{\"frame\":\"App.main(App.java:1)\"}]}],"
		"\"classHistogram\":[{\"className\":\"byte[]\",\"instanceCount\":10,\"retainedSize\":400}],"
		"\"topRetainers\":[{\"isClass\":true,\"className\":\"App\",\"objectId\":\"0x10\",\"retainedSize\":1000,"
		"\"shallowSize\":16}]}");
	struct run_analysis a;

	TAP_OK(o && run_analysis_read(o, &a) == 0, "analysis: read");
	TAP_OK(a.objects == 1200 && a.reachable_shallow_size == 65536, "analysis: its totals");
	TAP_OK(a.nleaks == 1 && !strcmp(a.leaks[0].class_name, "Leak") && a.leaks[0].instance_count == 3 &&
	       a.leaks[0].retained_size_total == 300 && !strcmp(a.leaks[0].path.gc_root, "StickyClass") &&
	       a.leaks[0].path.nsteps == 2 && !strcmp(a.leaks[0].path.steps[0].reference_type, "STATIC_FIELD") &&
	       a.leaks[0].path.steps[1].reference_type == NULL, "analysis: a leak group with its path");
	TAP_OK(a.nsuspects == 1 && a.suspects[0].count == 9 && a.suspects[0].path.nsteps == 0 && a.suspects[0].signature == NULL,
	       "analysis: a suspect");
	TAP_OK(a.nthreads == 1 && a.threads[0].threw_oom && a.threads[0].nframes == 2 && a.threads[0].frames[0].nlocals == 1 &&
	       a.threads[0].frames[0].locals[0].retained_size == 40 && a.threads[0].frames[1].nlocals == 0,
	       "analysis: a thread, its frames and locals");
	TAP_OK(a.nclasses == 1 && a.classes[0].instance_count == 10 && a.nretainers == 1 && a.retainers[0].is_class &&
	       a.retainers[0].shallow_size == 16, "analysis: the histogram and the top retainers");
	run_analysis_free(&a);
	json_object_put(o);
	o = json_tokener_parse("{\"gcPaths\":[5,{\"path\":{}}],\"threads\":[{\"frames\":[1]}]}");
	TAP_OK(run_analysis_read(o, &a) == 0 && a.nleaks == 2 && a.leaks[0].class_name == NULL && a.leaks[1].path.nsteps == 0 &&
	       a.nthreads == 1 && a.threads[0].nframes == 1 && a.threads[0].frames[0].frame == NULL,
	       "analysis, damaged: wrong types read as absent");
	run_analysis_free(&a);
	json_object_put(o);
	o = json_tokener_parse("\"text\"");
	TAP_EQ_INT(run_analysis_read(o, &a), -EINVAL, "a string is no analysis");
	json_object_put(o);
}

/* The writer's pieces in the file's order, as analyze/findings.c calls them. */
static void analysis_doc(struct json *j, const void *arg)
{
	static const struct run_anw_count kinds[] = {{"StickyClass", 3}, {"JavaFrame", 2}};
	static const char *const order[] = {"ThreadObject", "StickyClass"};
	static const struct run_anw_accumulated acc[] = {{"Session", 40, 4000}};

	(void)arg;
	run_anw_begin(j, &(struct run_anw_info){.file = "a.hprof", .format = "JAVA PROFILE 1.0.2", .id_size = 8,
						 .runtime = "jvm", .objects = 1200, .reachable_shallow_size = 65536,
						 .root_kinds = kinds, .nroot_kinds = 2, .retained_model = "visualvm",
						 .root_order = order, .nroot_order = 2});
	run_anw_list(j, RUN_AN_CLASS_INFOS);
	run_anw_class_info(j, &(struct run_anw_class_info){"Leak", "kept", 5, 3});
	run_anw_list_end(j);
	run_anw_list(j, RUN_AN_GC_PATHS);
	run_anw_leak_begin(j, &(struct run_anw_leak){
		.instance_count = 3, .leak_reason = "kept", .watcher = RUN_AN_LEAKCANARY, .watch_key = "k1",
		.watch_uptime_ms = INT64_MIN, .retained_uptime_ms = INT64_MIN, .gc_root = "StickyClass", .signature = "ab12",
		.class_name = "Leak", .leak_object_id = 0x40, .retained_size = 100, .retained_size_total = 300, .path_length = 2});
	run_anw_path_begin(j);
	run_anw_step(j, &(struct run_anw_step){"App.cache", "STATIC_FIELD", "App", 1, 0x10});
	run_anw_step(j, &(struct run_anw_step){"Leak", "LEAKING_INSTANCE", "Leak", 1, 0x40});
	run_anw_path_end(j);
	run_anw_item_end(j);
	run_anw_list_end(j);
	run_anw_list(j, RUN_AN_SUSPECTS);
	run_anw_suspect_begin(j, &(struct run_anw_suspect){
		.instances = 1, .description = "accumulates", .class_name = "java.util.ArrayList", .signature = "cd34",
		.gc_root = "JavaFrame", .count = 9, .retained_size = 900, .heap_share = 0.5, .point_class = "Object[]",
		.accumulates = acc, .naccumulates = 1, .path_length = 0});
	run_anw_path_begin(j);
	run_anw_path_end(j);
	run_anw_item_end(j);
	run_anw_list_end(j);
	run_anw_list(j, RUN_AN_THREADS);
	run_anw_thread_begin(j, &(struct run_anw_thread){.serial = 1, .name = "main", .class_name = "java.lang.Thread",
							 .threw_oom = 1, .held_retained_size = 50, .stack_trace_serial = -1});
	run_anw_frame_begin(j, "App.run(App.java:3)");
	run_anw_local(j, &(struct run_anw_local){"JavaFrame", "byte[]", 0x50, 40});
	run_anw_frame_end(j);
	run_anw_frame_begin(j, "App.main(App.java:1)");
	run_anw_frame_end(j);
	run_anw_other_locals(j);
	run_anw_local(j, &(struct run_anw_local){"ThreadBlock", "java.lang.Thread", 0x60, 8});
	run_anw_thread_end(j);
	run_anw_list_end(j);
	run_anw_growth_begin(j, &(struct run_anw_growth){"old.hprof", 100, 200});
	run_anw_growth_class(j, &(struct run_anw_growth_class){"Leak", 1, 3, 100, 300});
	run_anw_growth_suspects(j);
	run_anw_growth_suspect(j, &(struct run_anw_growth_suspect){"cd34", "accumulates", 1, 0, 900});
	run_anw_growth_end(j);
	run_anw_list(j, RUN_AN_TOP_RETAINERS);
	run_anw_retainer(j, &(struct run_anw_retainer){0x10, "App", 1, 16, 1000, 0});
	run_anw_list_end(j);
	run_anw_list(j, RUN_AN_CLASS_HISTOGRAM);
	run_anw_class(j, &(struct run_anw_class){"byte[]", 10, 400, 400});
	run_anw_list_end(j);
	run_anw_end(j, &(struct run_anw_timings){.total = 0.5});
}

static void test_analysis_written(void)
{
	char *line = text_of(analysis_doc, NULL);
	struct json_object *o = json_tokener_parse(line), *v;
	struct run_analysis a;

	TAP_OK(o && run_analysis_read(o, &a) == 0, "analysis written: one document, read back");
	TAP_OK(a.objects == 1200 && a.reachable_shallow_size == 65536, "... its totals");
	TAP_OK(a.nleaks == 1 && !strcmp(a.leaks[0].class_name, "Leak") && a.leaks[0].instance_count == 3 &&
	       a.leaks[0].retained_size_total == 300 && !strcmp(a.leaks[0].signature, "ab12") &&
	       !strcmp(a.leaks[0].path.gc_root, "StickyClass") && a.leaks[0].path.nsteps == 2 &&
	       !strcmp(a.leaks[0].path.steps[0].reference, "App.cache"), "... the leak group and its path");
	TAP_OK(a.nsuspects == 1 && a.suspects[0].count == 9 && !strcmp(a.suspects[0].signature, "cd34") &&
	       a.suspects[0].path.nsteps == 0, "... the suspect");
	TAP_OK(a.nthreads == 1 && a.threads[0].threw_oom && a.threads[0].held_retained_size == 50 &&
	       a.threads[0].nframes == 2 && a.threads[0].frames[0].nlocals == 1 &&
	       a.threads[0].frames[0].locals[0].retained_size == 40 && a.threads[0].frames[1].nlocals == 0,
	       "... the thread, its frames and their locals");
	TAP_OK(a.nclasses == 1 && a.classes[0].instance_count == 10 && a.nretainers == 1 && a.retainers[0].is_class &&
	       !strcmp(a.retainers[0].object_id, "0x10"), "... the histogram and the top retainer");
	TAP_OK(json_object_object_get_ex(o, "growth", &v) && json_object_object_get_ex(o, "timings", &v) &&
	       json_object_object_get_ex(json_object_array_get_idx(json_object_object_get(o, "gcPaths"), 0), "leakCanary",
					 &v) &&
	       !json_object_object_get_ex(v, "watchUptimeMillis", NULL),
	       "... growth, the timings, and a watched leak's key without the times it does not know");
	run_analysis_free(&a);
	json_object_put(o);
	free(line);
}

/* `oomscope symbolize`'s side: a frame's module and offset, what was found set into it. */
static void test_symbolize_side(void)
{
	struct json_object *o = json_tokener_parse("{\"frames\":[{\"addr\":\"0x10\",\"module\":\"/a\",\"offset\":16,\"text\":\"a+0x10\"},"
						   "{\"addr\":\"0x20\",\"text\":\"0x20\"}]}");
	struct json_object *arr = json_object_object_get(o, "frames");
	const char *module, *build_id, *text;
	uint64_t off;
	struct run_frame f;

	TAP_OK(run_frame_module_offset(json_object_array_get_idx(arr, 0), &module, &off, &build_id, &text) == 0 &&
	       !strcmp(module, "/a") && off == 16 && !build_id && !strcmp(text, "a+0x10"), "a frame's module and offset");
	TAP_EQ_INT(run_frame_module_offset(json_object_array_get_idx(arr, 1), &module, &off, &build_id, &text), -1,
		   "a frame in no module: nothing to look up");
	run_frame_set_found(json_object_array_get_idx(arr, 0), &(struct run_frame_found){
		.symbol = "f", .sym_offset = 2, .file = "a.c", .line = 7, .from = "/debug/a", .text = "a+0x10 f+2 (a.c:7)"});
	run_frame_read(json_object_array_get_idx(arr, 0), &f);
	TAP_OK(!strcmp(f.symbol, "f") && f.sym_offset == 2 && !strcmp(f.text, "a+0x10 f+2 (a.c:7)"), "what was found, read back");
	json_object_put(o);
}

int main(void)
{
	test_allocs();
	test_failures();
	test_death();
	test_field_kinds();
	test_snapshot();
	test_analysis();
	test_analysis_written();
	test_symbolize_side();
	return tap_done();
}
