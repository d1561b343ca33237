#include "runtime/runtime.h"
#include "proc/maps.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

const char *ooms_rt_name(enum ooms_rt_kind k)
{
	return k == OOMS_RT_HOTSPOT ? "hotspot" : k == OOMS_RT_ART ? "art" : k == OOMS_RT_NATIVE ? "native" : "auto";
}

int ooms_rt_parse(const char *name)
{
	if (!strcmp(name, "auto"))
		return OOMS_RT_AUTO;
	if (!strcmp(name, "native"))
		return OOMS_RT_NATIVE;
	if (!strcmp(name, "hotspot"))
		return OOMS_RT_HOTSPOT;
	if (!strcmp(name, "art"))
		return OOMS_RT_ART;
	return -2;
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
