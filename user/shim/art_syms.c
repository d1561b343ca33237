/* The libart.so symbols (art_syms.h). No JNI here: the tests resolve them
 * in Debian's libart.so. */
#include "shim/art_syms.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const art_sym_names[ART_SYM_MAX] = {
	[ART_DUMP_HEAP] = "_ZN3art5hprof8DumpHeapEPKcib",
	[ART_SUSPEND_VM] = "_ZN3art3Dbg9SuspendVMEv",
	[ART_RESUME_VM] = "_ZN3art3Dbg8ResumeVMEv",
	[ART_SSA_CTOR] = "_ZN3art16ScopedSuspendAllC1EPKcb",
	[ART_SSA_CTOR2] = "_ZN3art16ScopedSuspendAllC2EPKcb",
	[ART_SSA_DTOR] = "_ZN3art16ScopedSuspendAllD1Ev",
	[ART_SSA_DTOR2] = "_ZN3art16ScopedSuspendAllD2Ev",
	[ART_GCCS_CTOR] = "_ZN3art2gc23ScopedGCCriticalSectionC1EPNS_6ThreadENS0_7GcCauseENS0_13CollectorTypeE",
	[ART_GCCS_CTOR2] = "_ZN3art2gc23ScopedGCCriticalSectionC2EPNS_6ThreadENS0_7GcCauseENS0_13CollectorTypeE",
	[ART_GCCS_DTOR] = "_ZN3art2gc23ScopedGCCriticalSectionD1Ev",
	[ART_GCCS_DTOR2] = "_ZN3art2gc23ScopedGCCriticalSectionD2Ev",
	[ART_MUTATOR_LOCK] = "_ZN3art5Locks13mutator_lock_E",
	[ART_THREAD_LIST_LOCK] = "_ZN3art5Locks17thread_list_lock_E",
	[ART_RW_EXCLUSIVE_LOCK] = "_ZN3art17ReaderWriterMutex13ExclusiveLockEPNS_6ThreadE",
	[ART_RW_EXCLUSIVE_UNLOCK] = "_ZN3art17ReaderWriterMutex15ExclusiveUnlockEPNS_6ThreadE",
	[ART_MUTEX_LOCK] = "_ZN3art5Mutex13ExclusiveLockEPNS_6ThreadE",
	[ART_MUTEX_UNLOCK] = "_ZN3art5Mutex15ExclusiveUnlockEPNS_6ThreadE",
	[ART_THREAD_CURRENT] = "_ZN3art6Thread14CurrentFromGdbEv",
	[ART_GC_RUN] = "_ZN3art2gc9collector16GarbageCollector3RunENS0_7GcCauseEb",
	[ART_OOM_HEAP] = "_ZN3art2gc4Heap21ThrowOutOfMemoryErrorEPNS_6ThreadEmNS0_13AllocatorTypeE",
	[ART_OOM_THREAD] = "_ZN3art6Thread21ThrowOutOfMemoryErrorEPKc",
};

int art_syms_resolve(struct elfsym_lib *lib, struct art_syms *s)
{
	memset(s, 0, sizeof(*s));
	for (int i = 0; i < ART_SYM_MAX; i++)
		s->addr[i] = elfsym_find(lib, art_sym_names[i], &s->table[i]);
	/* C1 and C2 (complete and base object) are one function in ART */
	if (!s->addr[ART_SSA_CTOR])
		s->addr[ART_SSA_CTOR] = s->addr[ART_SSA_CTOR2];
	if (!s->addr[ART_SSA_DTOR])
		s->addr[ART_SSA_DTOR] = s->addr[ART_SSA_DTOR2];
	if (!s->addr[ART_GCCS_CTOR])
		s->addr[ART_GCCS_CTOR] = s->addr[ART_GCCS_CTOR2];
	if (!s->addr[ART_GCCS_DTOR])
		s->addr[ART_GCCS_DTOR] = s->addr[ART_GCCS_DTOR2];
	return 0;
}

int art_syms_options_write(const uint64_t value[ART_SYM_MAX], char *out, size_t len)
{
	size_t at = 0;

	if (!len)
		return -1;
	out[0] = 0;
	for (int i = 0; i < ART_SYM_MAX; i++) {
		int n;

		if (!value[i])
			continue;
		n = snprintf(out + at, len - at, "%s%s=%llx", at ? "," : "", art_sym_names[i],
			     (unsigned long long)value[i]);
		if (n < 0 || (size_t)n >= len - at) {
			out[0] = 0;
			return -1;
		}
		at += (size_t)n;
	}
	return (int)at;
}

int art_syms_from_options(struct art_syms *s, uintptr_t base, const char *options)
{
	int taken = 0;

	for (int i = 0; i < ART_SYM_MAX; i++) {
		size_t k = strlen(art_sym_names[i]);

		if (s->addr[i])
			continue;
		for (const char *o = options; o && *o;) {
			size_t n = strcspn(o, ",");

			if (n > k + 1 && !strncmp(o, art_sym_names[i], k) && o[k] == '=') {
				uint64_t v = strtoull(o + k + 1, NULL, 16);

				if (v) {
					s->addr[i] = base + (uintptr_t)v;
					s->table[i] = "options";
					taken++;
				}
				break;
			}
			o += n + (o[n] == ',');
		}
	}
	return taken;
}

int art_module_api_from_xml(const char *xml)
{
	for (const char *p = xml; (p = strstr(p, "moduleName=\"com.android.art\"")); p++) {
		const char *start = p, *end = strchr(p, '>'), *v, *active;
		long code = 0;

		while (start > xml && *start != '<')
			start--;
		if (!end)
			break;
		v = strstr(start, " versionCode=\"");
		active = strstr(start, " isActive=\"");
		if (!v || v > end || (active && active < end && strncmp(active + 11, "true", 4)))
			continue;
		for (v += 14; *v >= '0' && *v <= '9'; v++)
			code = code * 10 + (*v - '0');
		return code >= 290000000 && code < 1000000000 ? (int)(code / 10000000) : 0;
	}
	return 0;
}

enum art_fork_path art_fork_path_for(const struct art_syms *s, int api)
{
	if (!s->addr[ART_DUMP_HEAP])
		return ART_PATH_NONE;
	if ((api > 0 && api <= 29) || (api <= 0 && s->addr[ART_SUSPEND_VM] && !s->addr[ART_SSA_CTOR]))
		return s->addr[ART_SUSPEND_VM] && s->addr[ART_RESUME_VM] ? ART_PATH_SUSPEND_VM : ART_PATH_NONE;
	if (!s->addr[ART_SSA_CTOR] || !s->addr[ART_SSA_DTOR] || !s->addr[ART_GCCS_CTOR] || !s->addr[ART_GCCS_DTOR])
		return ART_PATH_NONE;
	if (api >= 35)
		return s->addr[ART_THREAD_LIST_LOCK] && s->addr[ART_MUTEX_LOCK] && s->addr[ART_MUTEX_UNLOCK]
			       ? ART_PATH_THREAD_LIST_LOCK : ART_PATH_NONE;
	return s->addr[ART_MUTATOR_LOCK] && s->addr[ART_RW_EXCLUSIVE_LOCK] && s->addr[ART_RW_EXCLUSIVE_UNLOCK]
		       ? ART_PATH_MUTATOR_LOCK : ART_PATH_NONE;
}


unsigned art_child_alarm_s(int64_t used_bytes)
{
	int64_t s = 60 + (used_bytes > 0 ? used_bytes / (4 << 20) : 0);

	return (unsigned)(s > 1800 ? 1800 : s);
}
