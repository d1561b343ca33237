/* Direct buffers' memory by call site (issue 36). Once the target is known
 * to run HotSpot, collect.bpf.c's direct_* programs go on libjvm.so's
 * Unsafe_AllocateMemory0, Unsafe_ReallocateMemory0 and Unsafe_FreeMemory0:
 * every block with the stack (and, with the shim, the Java stack) that made
 * it, kept by attrib_direct.c. A direct-memory crossing writes what holds the
 * memory then (direct-N.json) and names its largest sites on the terminal;
 * direct.json is the view at the end. */
#define _GNU_SOURCE
#include "collector/coll.h"
#include "collector/java/unsafe_probes.h"
#include "run/files.h"
#include "util/text.h"

void coll_direct_try(struct coll *c)
{
	struct bpf_program *progs[UNSAFE_PROBES];
	const char *missing;
	char lib[1100];
	int e;

	if (c->direct_tried || !c->jheap || ooms_jheap_runtime(c->jheap) != OOMS_RT_HOTSPOT)
		return;
	c->direct_tried = 1;
	coll_k_direct_progs(c, progs);
	snprintf(lib, sizeof(lib), "/proc/%d/root%s", (int)c->pid, ooms_jheap_lib(c->jheap));
	e = ooms_unsafe_attach(c->pid, lib, progs, c->direct_links, &missing);
	if (e == -ENOENT && missing) {
		if (coll_verbose)
			coll_err("no %s in %s: direct memory not followed by call site", missing, lib);
		return;
	}
	if (e) {
		coll_err("direct memory by call site: attaching to %s: %s", lib, strerror(-e));
		return;
	}
	c->ndirect_links = UNSAFE_PROBES;
}

void coll_direct_detach(struct coll *c)
{
	for (int i = 0; i < c->ndirect_links; i++)
		bpf_link__destroy(c->direct_links[i]);
	c->ndirect_links = 0;
}

int coll_direct_snapshot(struct coll *c, int seq, int64_t limit, char *name, size_t len)
{
	char path[4200], lines[2048];
	int e, n;

	if (!c->ndirect_links)
		return -1;
	coll_java_perfmap(c, 0);
	run_name_numbered(name, len, RUN_DIRECT, seq);
	snprintf(path, sizeof(path), "%s/%s", c->dir, name);
	if ((e = ooms_attrib_write_direct(c->attrib, coll_since(c), limit, path))) {
		coll_err("cannot write %s: %s", path, strerror(-e));
		return -1;
	}
	n = ooms_attrib_direct_lines(c->attrib, 3, lines, sizeof(lines));
	if (!c->o->json && n) {
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

void coll_direct_write_end(struct coll *c)
{
	char path[4200];
	int e;

	if (!c->ndirect_links && !ooms_attrib_direct_seen(c->attrib))
		return;
	snprintf(path, sizeof(path), "%s/" RUN_DIRECT, c->dir);
	if ((e = ooms_attrib_write_direct(c->attrib, coll_since(c), ooms_jheap_direct_limit(c->jheap), path)))
		coll_err("cannot write %s: %s", path, strerror(-e));
}
