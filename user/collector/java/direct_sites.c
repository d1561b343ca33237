/* Direct buffers' memory by call site (issue 36). Once the target is known
 * to run HotSpot, collect.bpf.c's direct_* programs go on libjvm.so's
 * Unsafe_AllocateMemory0, Unsafe_ReallocateMemory0 and Unsafe_FreeMemory0:
 * every block with the stack (and, with the shim, the Java stack) that made
 * it, kept by attrib_direct.c. A direct-memory crossing writes what holds the
 * memory then (direct-N.json) and names its largest sites on the terminal;
 * direct.json is the view at the end. */
#define _GNU_SOURCE
#include "collector/java/java_watch.h"
#include "collector/console/console.h"
#include "util/clock.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "collector/java/unsafe_probes.h"
#include "run/files.h"
#include "util/text.h"

void coll_direct_try(struct java_watch *jw)
{
	struct bpf_program *progs[UNSAFE_PROBES];
	const char *missing;
	char lib[1100];
	int e;

	if (jw->direct_tried || !jw->jheap || ooms_jheap_runtime(jw->jheap) != OOMS_RT_HOTSPOT)
		return;
	jw->direct_tried = 1;
	coll_k_direct_progs(jw->k, progs);
	snprintf(lib, sizeof(lib), "/proc/%d/root%s", (int)jw->pid, ooms_jheap_lib(jw->jheap));
	e = ooms_unsafe_attach(jw->pid, lib, progs, jw->direct_links, &missing);
	if (e == -ENOENT && missing) {
		if (coll_verbose)
			coll_err("no %s in %s: direct memory not followed by call site", missing, lib);
		return;
	}
	if (e) {
		coll_err("direct memory by call site: attaching to %s: %s", lib, strerror(-e));
		return;
	}
	jw->ndirect_links = UNSAFE_PROBES;
}

void coll_direct_detach(struct java_watch *jw)
{
	for (int i = 0; i < jw->ndirect_links; i++)
		bpf_link__destroy(jw->direct_links[i]);
	jw->ndirect_links = 0;
}

int coll_direct_snapshot(struct java_watch *jw, int seq, double t, int alive, int64_t limit, char *name, size_t len)
{
	char path[4200], lines[2048];
	int e, n;

	if (!jw->ndirect_links)
		return -1;
	coll_java_perfmap(jw, 0, alive);
	run_name_numbered(name, len, RUN_DIRECT, seq);
	snprintf(path, sizeof(path), "%s/%s", jw->dir, name);
	if ((e = ooms_attrib_write_direct(jw->attrib, t, limit, path))) {
		coll_err("cannot write %s: %s", path, strerror(-e));
		return -1;
	}
	n = ooms_attrib_direct_lines(jw->attrib, 3, lines, sizeof(lines));
	if (!jw->o->json && n) {
		char safe[4096];

		/* each line indented under the crossing's */
		for (char *p = lines, *nl; p && *p; p = nl ? nl + 1 : NULL) {
			if ((nl = strchr(p, '\n')))
				*nl = 0;
			coll_print("           %s\n", text_term_safe(safe, sizeof(safe), p));
		}
	}
	return 0;
}

void coll_direct_write_end(struct java_watch *jw, double t)
{
	char path[4200];
	int e;

	if (!jw->ndirect_links && !ooms_attrib_direct_seen(jw->attrib))
		return;
	snprintf(path, sizeof(path), "%s/" RUN_DIRECT, jw->dir);
	if ((e = ooms_attrib_write_direct(jw->attrib, t, ooms_jheap_direct_limit(jw->jheap), path)))
		coll_err("cannot write %s: %s", path, strerror(-e));
}
