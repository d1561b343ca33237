#include "runtime/runtime.h"
#include "proc/maps.h"
#include "util/names.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* by value, from OOMS_RT_AUTO (-1) */
static const char *const rt_names[] = {"auto", "native", "hotspot", "art"};

const char *ooms_rt_name(enum ooms_rt_kind k)
{
	return names_get(rt_names, NAMES_N(rt_names), OOMS_RT_AUTO, k, "auto");
}

int ooms_rt_parse(const char *name)
{
	return names_find(rt_names, NAMES_N(rt_names), OOMS_RT_AUTO, name, -2);
}

/* The first libjvm.so or libart.so mapped. */
static int find_runtime(void *ctx, const struct proc_map_line *m)
{
	struct ooms_rt_target *t = ctx;
	const char *base = strrchr(m->path, '/');

	if (m->path[0] != '/' || !base)
		return 0;
	base++;
	if (!strcmp(base, "libjvm.so"))
		t->kind = OOMS_RT_HOTSPOT;
	else if (!strncmp(base, "libart.so", 9))
		t->kind = OOMS_RT_ART;
	else
		return 0;
	snprintf(t->lib, sizeof(t->lib), "%s", m->path);
	return 1;
}

int ooms_rt_detect(pid_t pid, enum ooms_rt_kind want, struct ooms_rt_target *t)
{
	int e;

	memset(t, 0, sizeof(*t));
	t->kind = OOMS_RT_NATIVE;
	if ((e = proc_maps_each(pid, find_runtime, t)) < 0)
		return e;
	if (want == OOMS_RT_AUTO)
		return 0;
	if (want != OOMS_RT_NATIVE && t->kind != want)
		return -ENOENT;
	t->kind = want;
	if (want == OOMS_RT_NATIVE)
		t->lib[0] = 0;
	return 0;
}
