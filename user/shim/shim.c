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
	const struct shim_runtime_ops **ops = data;
	const char *base = strrchr(info->dlpi_name, '/');

	(void)size;
	base = base ? base + 1 : info->dlpi_name;
	if (!strcmp(base, "libjvm.so"))
		*ops = &shim_hotspot_ops;
	else if (!strncmp(base, "libart.so", 9) && !*ops)
		*ops = &shim_art_ops;
	return 0;
}

const struct shim_runtime_ops *shim_ops;

static const struct shim_runtime_ops *which_runtime(void)
{
	const struct shim_runtime_ops *ops = NULL;

	dl_iterate_phdr(find_lib, &ops);
	return ops;
}

static jint start(JavaVM *vm, int live)
{
	shim_ops = which_runtime();
	if (!shim_ops || shim_ops->init(vm, live)) {
		fprintf(stderr, "oomscope-shim: not loaded: %s\n",
			!shim_ops ? "neither libjvm.so nor libart.so in this process"
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
