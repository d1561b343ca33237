/* GC root kinds (roots.h). */
#include "graph/roots.h"
#include "hprof/hprof.h"

const char *ooms_root_kind_name(uint8_t kind)
{
	switch (kind) {
	case HPROF_ROOT_JNI_GLOBAL: return "JniGlobal";
	case HPROF_ROOT_JNI_LOCAL: return "JniLocal";
	case HPROF_ROOT_JAVA_FRAME: return "JavaFrame";
	case HPROF_ROOT_NATIVE_STACK: return "NativeStack";
	case HPROF_ROOT_STICKY_CLASS: return "StickyClass";
	case HPROF_ROOT_THREAD_BLOCK: return "ThreadBlock";
	case HPROF_ROOT_MONITOR_USED: return "MonitorUsed";
	case HPROF_ROOT_THREAD_OBJECT: return "ThreadObject";
	case HPROF_ROOT_INTERNED_STRING: return "InternedString";
	case HPROF_ROOT_FINALIZING: return "Finalizing";
	case HPROF_ROOT_DEBUGGER: return "Debugger";
	case HPROF_ROOT_REFERENCE_CLEANUP: return "ReferenceCleanup";
	case HPROF_ROOT_VM_INTERNAL: return "VmInternal";
	case HPROF_ROOT_JNI_MONITOR: return "JniMonitor";
	}
	return "Unknown";
}

const uint8_t ooms_root_kinds[OOMS_ROOT_KINDS] = {
	HPROF_ROOT_UNKNOWN,         HPROF_ROOT_JNI_GLOBAL,      HPROF_ROOT_JNI_LOCAL,    HPROF_ROOT_JAVA_FRAME,
	HPROF_ROOT_NATIVE_STACK,    HPROF_ROOT_STICKY_CLASS,    HPROF_ROOT_THREAD_BLOCK, HPROF_ROOT_MONITOR_USED,
	HPROF_ROOT_THREAD_OBJECT,   HPROF_ROOT_INTERNED_STRING, HPROF_ROOT_FINALIZING,   HPROF_ROOT_DEBUGGER,
	HPROF_ROOT_REFERENCE_CLEANUP, HPROF_ROOT_VM_INTERNAL,   HPROF_ROOT_JNI_MONITOR,
};
