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
#include <string.h>

#include "shim/elfsym.h"
#include "shim/libc/shim_libc.h"

const struct shim_runtime_ops *shim_ops;

static int mapped(const char *prefix)
{
	struct elfsym_lib lib;

	if (elfsym_open_loaded(&lib, prefix))
		return 0;
	elfsym_close(&lib);
	return 1;
}

static const struct shim_runtime_ops *which_runtime(void)
{
	if (mapped("libjvm.so"))
		return &shim_hotspot_ops;
	if (mapped("libart.so"))
		return &shim_art_ops;
	return NULL;
}

static jint start(JavaVM *vm, const char *options, int live)
{
	shim_options = options ? options : "";
	shim_ops = which_runtime();
	if (!shim_ops) {
		shim_log("not loaded: neither libjvm.so nor libart.so in this process");
		return JNI_ERR;
	}
	if (shim_ops->init(vm, live)) {
		shim_log("not loaded: %s", shim_init_error[0] ? shim_init_error : "the runtime refused a JVMTI environment");
		return JNI_ERR;
	}
	return JNI_OK;
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
	(void)reserved;
	return start(vm, options, 0);
}

JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM *vm, char *options, void *reserved)
{
	(void)reserved;
	return start(vm, options, 1);
}
