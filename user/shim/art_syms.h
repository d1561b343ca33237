/* The libart.so symbols the ART fork-dump and the GC/OOM probes need, by
 * their mangled names (the same on arm64 and x86_64), and which fork path a
 * given libart supports. Shared with the tests, which resolve them in
 * Debian's libart.so. */
#ifndef OOMSCOPE_SHIM_ART_SYMS_H
#define OOMSCOPE_SHIM_ART_SYMS_H

#include <stdint.h>
#include "shim/elfsym.h"

enum art_sym {
	ART_DUMP_HEAP,            /* art::hprof::DumpHeap(const char*, int, bool) */
	ART_SUSPEND_VM,           /* art::Dbg::SuspendVM() (Android 5-10) */
	ART_RESUME_VM,
	ART_SSA_CTOR, ART_SSA_CTOR2,   /* art::ScopedSuspendAll(const char*, bool) */
	ART_SSA_DTOR, ART_SSA_DTOR2,
	ART_GCCS_CTOR, ART_GCCS_CTOR2, /* art::gc::ScopedGCCriticalSection(Thread*, GcCause, CollectorType) */
	ART_GCCS_DTOR, ART_GCCS_DTOR2,
	ART_MUTATOR_LOCK,         /* art::Locks::mutator_lock_ (a pointer) */
	ART_THREAD_LIST_LOCK,     /* art::Locks::thread_list_lock_ (a pointer) */
	ART_RW_EXCLUSIVE_LOCK,    /* art::ReaderWriterMutex::ExclusiveLock(Thread*) */
	ART_RW_EXCLUSIVE_UNLOCK,
	ART_MUTEX_LOCK,           /* art::Mutex::ExclusiveLock(Thread*) */
	ART_MUTEX_UNLOCK,
	ART_THREAD_CURRENT,       /* art::Thread::CurrentFromGdb() */
	ART_GC_RUN,               /* art::gc::collector::GarbageCollector::Run(GcCause, bool): GC probe */
	ART_OOM_HEAP,             /* art::gc::Heap::ThrowOutOfMemoryError(Thread*, size_t, AllocatorType) */
	ART_OOM_THREAD,           /* art::Thread::ThrowOutOfMemoryError(const char*) */
	ART_SYM_MAX,
};

extern const char *const art_sym_names[ART_SYM_MAX];

struct art_syms {
	uintptr_t addr[ART_SYM_MAX];   /* 0: absent */
	const char *table[ART_SYM_MAX]; /* where each was found */
};

enum art_fork_path {
	ART_PATH_NONE = 0,
	ART_PATH_SUSPEND_VM,        /* Android 5-10 */
	ART_PATH_MUTATOR_LOCK,      /* Android 11-14 */
	ART_PATH_THREAD_LIST_LOCK,  /* Android 15+ */
};

int art_syms_resolve(struct elfsym_lib *lib, struct art_syms *s);

/* The agent's options carry what the shim cannot read itself (symbols only
 * in libart's .gnu_debugdata: MiniDebugInfo is xz, and the shim links no
 * liblzma): "NAME=HEX,NAME=HEX", each a symbol's value in the file.
 * Written by oomscope (runtime/art_agent.c), read by the shim at its init.
 * The writer: each value[i] != 0. The text's length, or -1 when len is too
 * small (out then holds nothing). */
int art_syms_options_write(const uint64_t value[ART_SYM_MAX], char *out, size_t len);
/* The reader: each symbol s lacks taken from options (base + value, table
 * "options"); how many were. */
int art_syms_from_options(struct art_syms *s, uintptr_t base, const char *options);
/* The API level of the active com.android.art module's train, from its
 * versionCode in the text of /apex/apex-info-list.xml (330000000 and up:
 * Android 13's, 34xxxxxxx: 14's...), or 0 when not there: ART is updated
 * apart from the platform since Android 12, and its internals follow it. */
int art_module_api_from_xml(const char *xml);
/* api: the device's API level, 0 when unknown (then by the symbols found). */
enum art_fork_path art_fork_path_for(const struct art_syms *s, int api);

/* The fork-dump child's alarm, in seconds, for a heap of used_bytes (-1:
 * unknown): ART's DumpHeap walks the heap twice (counting, then writing),
 * into a pipe whose reader compresses on the same phone. 60 s, and a second
 * for every 4 MB of the heap past nothing, at most 1800 (HotSpot's child's). */
unsigned art_child_alarm_s(int64_t used_bytes);

#endif
