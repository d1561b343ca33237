/* The shim's ELF symbol reader and the ART fork-dump's symbols, against the
 * real libart.so of Debian's android-libart (an Android 11 build) and a
 * MiniDebugInfo ELF built by tests/unit/make_minidebuginfo.sh. Every address
 * found is checked against `nm`. The shim's sources are compiled in here:
 * they are not in libooms.a (the shim is a library of its own). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tap.h"
#include "sym/symbolize.h"
#include "sym/art_frames.h"
#include "runtime/art_agent.h"

#include "shim/art_syms.c"
#include "shim/elfsym.c"

/* Debian's multiarch directory of the build's own arch (android-libart of
 * that arch: on arm64, android-libart:arm64, also under qemu-user) */
#if defined(__x86_64__)
#define MULTIARCH "x86_64-linux-gnu"
#elif defined(__aarch64__)
#define MULTIARCH "aarch64-linux-gnu"
#else
#error "unsupported architecture"
#endif
#define LIBART "/usr/lib/" MULTIARCH "/android/libart.so.0"

/* The address nm gives for name (dynamic: nm -D), or 0. */
static uint64_t nm_addr(const char *file, const char *name, int dynamic)
{
	char cmd[1024], line[2048];
	uint64_t v = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm %s --defined-only '%s' 2>/dev/null", dynamic ? "-D" : "", file);
	p = popen(cmd, "r");
	if (!p)
		return 0;
	while (fgets(line, sizeof(line), p)) {
		char sym[1024], type[8];
		unsigned long long a;

		if (sscanf(line, "%llx %7s %1023s", &a, type, sym) == 3 && !strcmp(sym, name)) {
			v = a;
			break;
		}
	}
	pclose(p);
	return v;
}

static void test_libart(void)
{
	static const enum art_sym needed[] = {
		ART_DUMP_HEAP, ART_SSA_CTOR, ART_SSA_DTOR, ART_GCCS_CTOR, ART_GCCS_DTOR, ART_MUTATOR_LOCK,
		ART_THREAD_LIST_LOCK, ART_RW_EXCLUSIVE_LOCK, ART_RW_EXCLUSIVE_UNLOCK, ART_MUTEX_LOCK, ART_MUTEX_UNLOCK,
		ART_THREAD_CURRENT, ART_GC_RUN, ART_OOM_HEAP, ART_OOM_THREAD,
	};
	struct elfsym_lib lib;
	struct art_syms s;
	int ok_all = 1;

	TAP_EQ_INT(elfsym_open_file(&lib, LIBART), 0, "open Debian's %s", LIBART);
	if (!lib.map)
		return;
	art_syms_resolve(&lib, &s);
	for (size_t i = 0; i < sizeof(needed) / sizeof(needed[0]); i++) {
		enum art_sym k = needed[i];
		/* C1 is looked up first, C2 when C1 is absent: nm knows one of them */
		uint64_t want = nm_addr(LIBART, art_sym_names[k], 1);

		if (!want && (k == ART_SSA_CTOR || k == ART_SSA_DTOR || k == ART_GCCS_CTOR || k == ART_GCCS_DTOR))
			want = nm_addr(LIBART, art_sym_names[k + 1], 1);
		TAP_OK(s.addr[k] != 0 && s.addr[k] == want, "%s at 0x%llx in .%s (nm: 0x%llx)", art_sym_names[k],
		       (unsigned long long)s.addr[k], s.table[k] ? s.table[k] : "-", (unsigned long long)want);
		ok_all &= s.addr[k] == want && want;
	}
	TAP_OK(!s.addr[ART_SUSPEND_VM] && !s.addr[ART_RESUME_VM], "Dbg::SuspendVM/ResumeVM absent (gone since Android 11)");
	TAP_EQ_INT(art_fork_path_for(&s, 0), ART_PATH_MUTATOR_LOCK,
		   "unknown API level: the symbols choose the Android 11-14 path (critical section, suspend, mutator lock)");
	TAP_EQ_INT(art_fork_path_for(&s, 30), ART_PATH_MUTATOR_LOCK, "API 30 (Android 11): mutator lock path");
	TAP_EQ_INT(art_fork_path_for(&s, 35), ART_PATH_THREAD_LIST_LOCK,
		   "API 35 (Android 15): thread_list_lock_ path (its symbols are there too)");
	TAP_EQ_INT(art_fork_path_for(&s, 29), ART_PATH_NONE, "API 29 wants Dbg::SuspendVM, absent here: no path");
	TAP_OK(ok_all, "every symbol the fork-dump and the GC/OOM probes need is in libart.so's .dynsym");
	elfsym_close(&lib);
}

/* .gnu_debugdata (oomscope's reader: the shim leaves MiniDebugInfo to it,
 * which passes what it finds in the agent's options) and .symtab (both),
 * on a file built for it. */
static void test_minidebug(const char *elf)
{
	char syms[512], line[256];
	struct elfsym_lib lib;
	FILE *f;
	int n = 0;

	snprintf(syms, sizeof(syms), "%s.syms", elf);
	TAP_EQ_INT(elfsym_open_file(&lib, elf), 0, "open %s", elf);
	f = fopen(syms, "r");
	TAP_OK(f != NULL, "%s", syms);
	while (f && fgets(line, sizeof(line), f)) {
		char name[128];
		unsigned long long want;
		const char *table = NULL;

		if (sscanf(line, "%127s %llx", name, &want) != 2)
			continue;
		{
			const char *names[1] = {name};
			uint64_t v = 0;

			TAP_OK(ooms_sym_elf_values(elf, names, 1, &v) == 0 && v == want,
			       "%s at 0x%llx from .gnu_debugdata (MiniDebugInfo, xz), by oomscope's reader", name, want);
		}
		TAP_OK(elfsym_find(&lib, name, &table) == 0, "%s: not in the shim's reader (no xz in the shim)", name);
		n++;
	}
	if (f)
		fclose(f);
	TAP_OK(n == 2, "both functions listed");
	TAP_OK(elfsym_find(&lib, "no_such_function", NULL) == 0, "an absent name is 0");
	elfsym_close(&lib);
	/* .symtab: the unstripped build */
	{
		char full[512];
		uint64_t want;

		snprintf(full, sizeof(full), "%s.full", elf);
		if (access(full, R_OK) == 0 && elfsym_open_file(&lib, full) == 0) {
			const char *table = NULL;

			want = nm_addr(full, "md_alpha", 0);
			TAP_OK(want && elfsym_find(&lib, "md_alpha", &table) == want && table && !strcmp(table, "symtab"),
			       "md_alpha from .symtab of the unstripped build");
			elfsym_close(&lib);
		}
	}
}

/* The ART module's train from apex-info-list.xml (its format as devices write it) */
static void test_apex_info(void)
{
	static const char xml[] =
		"<?xml version='1.0' encoding='utf-8' standalone='yes' ?>\n<apex-info-list>\n"
		"    <apex-info moduleName=\"com.android.art\" modulePath=\"/system/apex/com.android.art.apex\" "
		"preinstalledModulePath=\"/system/apex/com.android.art.apex\" versionCode=\"330443000\" versionName=\"\" "
		"isFactory=\"true\" isActive=\"false\" lastUpdateMillis=\"1230768000000\" provideSharedApexLibs=\"false\" />\n"
		"    <apex-info moduleName=\"com.android.art\" modulePath=\"/data/apex/active/com.android.art@341810000.apex\" "
		"preinstalledModulePath=\"/system/apex/com.android.art.apex\" versionCode=\"341810000\" versionName=\"\" "
		"isFactory=\"false\" isActive=\"true\" lastUpdateMillis=\"1700000000000\" provideSharedApexLibs=\"false\" />\n"
		"    <apex-info moduleName=\"com.android.runtime\" versionCode=\"1\" isActive=\"true\" />\n"
		"</apex-info-list>\n";

	TAP_EQ_INT(art_module_api_from_xml(xml), 34, "apex-info-list: the active ART module is Android 14's train (341810000)");
	TAP_EQ_INT(art_module_api_from_xml("<apex-info-list></apex-info-list>"), 0, "no ART module listed: 0");
	TAP_EQ_INT(art_module_api_from_xml("<apex-info moduleName=\"com.android.art\" versionCode=\"1\" isActive=\"true\" />"),
		   0, "a version code that names no train: 0");
	/* the fork-dump child's time, by the heap it dumps (DumpHeap walks it twice) */
	TAP_EQ_INT(art_child_alarm_s(-1), 60, "child alarm: heap unknown, 60 s");
	TAP_EQ_INT(art_child_alarm_s(64ll << 20), 76, "... a 64 MB heap: 76 s");
	TAP_OK(art_child_alarm_s(512ll << 20) > 150, "... a 512 MB heap (a phone's largeHeap): %u s, not 60",
	       art_child_alarm_s(512ll << 20));
	TAP_EQ_INT(art_child_alarm_s(64ll << 30), 1800, "... at most 1800 s");
}

/* The frames that say "ART's Java": oat files by name, and the interpreters
 * by the symbols the real libart.so has (each family named by at least one
 * of its exported symbols; none of the GC's or the allocator's). */
static void test_art_frames(void)
{
	char cmd[400], line[512];
	int interp = 0, other = 0, families[3] = {0};
	FILE *p;

	TAP_EQ_INT(ooms_art_frame_kind("base.odex", "com.example.Foo.bar"), OOMS_ART_COMPILED, "base.odex: compiled Java");
	TAP_EQ_INT(ooms_art_frame_kind("boot-framework.oat", NULL), OOMS_ART_COMPILED, "boot-framework.oat: compiled Java");
	TAP_EQ_INT(ooms_art_frame_kind("libart.so", NULL), OOMS_ART_NONE, "libart.so without a symbol: nothing said");
	TAP_EQ_INT(ooms_art_frame_kind("liboat.so", "ExecuteNterpImpl"), OOMS_ART_NONE, "an interpreter's name elsewhere: nothing");
	TAP_EQ_INT(ooms_art_frame_kind("libart.so", "ExecuteNterpImpl"), OOMS_ART_INTERPRETER, "nterp (Android 12+)");
	snprintf(cmd, sizeof(cmd), "nm -D --defined-only %s", LIBART);
	if (!(p = popen(cmd, "r"))) {
		TAP_OK(0, "%s", cmd);
		return;
	}
	while (fgets(line, sizeof(line), p)) {
		char *sym = strrchr(line, ' ');

		if (!sym)
			continue;
		sym[strcspn(sym, "\n")] = 0;
		sym++;
		if (ooms_art_frame_kind("libart.so", sym) == OOMS_ART_INTERPRETER) {
			interp++;
			families[0] |= !strncmp(sym, "Mterp", 5);
			families[1] |= !strncmp(sym, "_ZN3art11interpreter20ExecuteSwitchImpl", 39);
			families[2] |= !strcmp(sym, "artQuickToInterpreterBridge");
			other += strstr(sym, "Heap") != NULL || strstr(sym, "GarbageCollector") != NULL;
		}
	}
	pclose(p);
	TAP_OK(families[0] && families[1] && families[2],
	       "Debian's libart.so: mterp's, the switch interpreter's and the bridge's symbols are the interpreter's (%d)",
	       interp);
	TAP_EQ_INT(other, 0, "... and no GC or heap function is");
}

/* A libart whose functions only .gnu_debugdata names (a phone's may be so):
 * oomscope finds them and writes them into the agent's options; the shim,
 * which cannot read them itself, takes them from there. */
static void test_art_options(const char *dir)
{
	char lib[400], syms[420], line[512], options[4096], small[40];
	uint64_t want[ART_SYM_MAX] = {0};
	struct ooms_err err = {0};
	struct elfsym_lib l;
	struct art_syms s;
	int found = -1, n = 0, ok = 1;
	FILE *f;

	snprintf(lib, sizeof(lib), "%s/libart.so", dir);
	snprintf(syms, sizeof(syms), "%s/libart.so.syms", dir);
	f = fopen(syms, "r");
	TAP_OK(f != NULL, "%s", syms);
	while (f && fgets(line, sizeof(line), f)) {
		char name[256];
		unsigned long long v;

		if (sscanf(line, "%255s %llx", name, &v) == 2)
			for (int i = 0; i < ART_SYM_MAX; i++)
				if (!strcmp(art_sym_names[i], name))
					want[i] = v, n++;
	}
	if (f)
		fclose(f);
	TAP_EQ_INT(n, 5, "the library's 5 functions under libart's names, by nm of its unstripped build");
	TAP_EQ_INT(elfsym_open_file(&l, lib), 0, "the shim opens %s", lib);
	art_syms_resolve(&l, &s);
	TAP_OK(!s.addr[ART_DUMP_HEAP] && !s.addr[ART_SSA_CTOR], "the shim's own reader finds none of them (xz)");
	elfsym_close(&l);
	TAP_EQ_INT(ooms_art_shim_options(getpid(), lib, options, sizeof(options), &found, &err), 0,
		   "oomscope reads them through /proc/PID/root%s: %s", lib, err.msg);
	TAP_EQ_INT(found, 5, "all 5 found in .gnu_debugdata; options \"%.80s...\"", options);
	memset(&s, 0, sizeof(s));
	TAP_EQ_INT(art_syms_from_options(&s, 0x7000000000, options), 5, "the shim takes all 5 from the options");
	for (int i = 0; i < ART_SYM_MAX; i++)
		if (want[i])
			ok &= s.addr[i] == 0x7000000000 + want[i] && s.table[i] && !strcmp(s.table[i], "options");
		else
			ok &= s.addr[i] == 0;
	TAP_OK(ok, "each at the load bias plus nm's value, from \"options\"; the rest absent");
	s.addr[ART_DUMP_HEAP] = 0x1234;
	s.addr[ART_SSA_CTOR] = 0;
	TAP_EQ_INT(art_syms_from_options(&s, 0x7000000000, options), 1,
		   "a symbol the shim found itself is kept; only the missing one taken");
	TAP_OK(s.addr[ART_DUMP_HEAP] == 0x1234, "DumpHeap as the shim found it");
	TAP_EQ_INT(art_syms_options_write(want, small, sizeof(small)), -1, "options that do not fit: -1");
	TAP_OK(small[0] == 0, "... and nothing half-written");
	TAP_OK(ooms_art_shim_options(getpid(), "/nonexistent/libart.so", options, sizeof(options), &found, &err) < 0 &&
		       strstr(err.msg, "/nonexistent/libart.so"),
	       "a missing libart: an error naming it (%s)", err.msg);
}

int main(void)
{
	char *dir, elf[300];

	TAP_EQ_INT(elfsym_open_file(&(struct elfsym_lib){0}, "/nonexistent/libart.so"), -2, "a missing file: -ENOENT");
	test_apex_info();
	if (access(LIBART, R_OK) == 0) {
		test_libart();
		test_art_frames();
	} else {
		TAP_OK(0, "%s missing: scripts/install-deps.sh installs android-libart", LIBART);
	}
	/* built by make (tests/unit/make_minidebuginfo.sh); absolute: oomscope
	 * reads the library through /proc/PID/root */
	dir = realpath(MINIDEBUG_DIR, NULL);
	if (dir && strlen(dir) < 256 && (snprintf(elf, sizeof(elf), "%s/minidebug", dir), access(elf, R_OK) == 0)) {
		test_minidebug(elf);
		test_art_options(dir);
	} else {
		TAP_OK(0, "%s/minidebug missing: make unit builds it", MINIDEBUG_DIR);
	}
	free(dir);
	return tap_done();
}
