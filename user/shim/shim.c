/* The shim's entry points. A JVMTI agent on either runtime:
 *   - at launch: -agentpath:/path/liboomscope_shim.so (HotSpot, ART);
 *   - into a running HotSpot JVM: the attach protocol's `load` (oomscope
 *     watch --shim does it), or `jcmd PID JVMTI.agent_load`;
 *   - into a running debuggable Android app: `cmd activity attach-agent`.
 * It finds out which runtime it is in from the libraries mapped, then starts
 * the control socket. */
#define _GNU_SOURCE
#include "shim/shim.h"

#include <jvmti.h>
#include <link.h>
#include <stdio.h>
#include <string.h>


static int find_lib(struct dl_phdr_info *info, size_t size, void *data)
{
	const char *base = strrchr(info->dlpi_name, '/');

	(void)size;
	base = base ? base + 1 : info->dlpi_name;
	if (!strcmp(base, "libjvm.so"))
		*(enum shim_runtime *)data = SHIM_HOTSPOT;
	else if (!strncmp(base, "libart.so", 9) && *(enum shim_runtime *)data == SHIM_NONE)
		*(enum shim_runtime *)data = SHIM_ART;
	return 0;
}

static enum shim_runtime which_runtime(void)
{
	enum shim_runtime r = SHIM_NONE;

	dl_iterate_phdr(find_lib, &r);
	return r;
}

static jint start(JavaVM *vm, int live)
{
	int e;

	shim_runtime = which_runtime();
	if (shim_runtime == SHIM_HOTSPOT)
		e = shim_hs_init(vm, live);
	else if (shim_runtime == SHIM_ART)
		e = shim_art_init(vm, live);
	else
		e = -1;
	if (e) {
		fprintf(stderr, "oomscope-shim: not loaded: %s\n",
			shim_runtime == SHIM_NONE ? "neither libjvm.so nor libart.so in this process"
						  : "the runtime refused a JVMTI environment with can_tag_objects");
		return JNI_ERR;
	}
	return JNI_OK;
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
	(void)options;
	(void)reserved;
	return start(vm, 0);
}

JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM *vm, char *options, void *reserved)
{
	(void)options;
	(void)reserved;
	return start(vm, 1);
}
