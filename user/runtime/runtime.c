#include "runtime/runtime.h"

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

int ooms_rt_detect(pid_t pid, enum ooms_rt_kind want, struct ooms_rt_target *t)
{
	char path[64], line[1024];
	FILE *f;

	memset(t, 0, sizeof(*t));
	t->kind = OOMS_RT_NATIVE;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *lib = strchr(line, '/'), *base;

		if (!lib)
			continue;
		lib[strcspn(lib, "\n")] = 0;
		base = strrchr(lib, '/') + 1;
		if (!strcmp(base, "libjvm.so") && t->kind == OOMS_RT_NATIVE) {
			t->kind = OOMS_RT_HOTSPOT;
			snprintf(t->lib, sizeof(t->lib), "%s", lib);
		} else if (!strncmp(base, "libart.so", 9) && t->kind == OOMS_RT_NATIVE) {
			t->kind = OOMS_RT_ART;
			snprintf(t->lib, sizeof(t->lib), "%s", lib);
		}
	}
	fclose(f);
	if (want == OOMS_RT_AUTO)
		return 0;
	if (want != OOMS_RT_NATIVE && t->kind != want)
		return -ENOENT;
	t->kind = want;
	if (want == OOMS_RT_NATIVE)
		t->lib[0] = 0;
	return 0;
}
