/* Input of make_minidebuginfo.sh's libart.so: functions under libart's own
 * mangled names (those the shim needs), hidden, so that once the library is
 * stripped only its .gnu_debugdata (MiniDebugInfo) names them: the case of a
 * phone's libart, whose .dynsym may not hold them. */
volatile int art_sink;

#define ART_FN(cname, mangled) \
	__attribute__((noinline, visibility("hidden"))) int cname(int x) __asm__(mangled); \
	int cname(int x) { art_sink += x * __LINE__; return art_sink; }

ART_FN(dump_heap, "_ZN3art5hprof8DumpHeapEPKcib")
ART_FN(ssa_ctor, "_ZN3art16ScopedSuspendAllC1EPKcb")
ART_FN(ssa_dtor, "_ZN3art16ScopedSuspendAllD1Ev")
ART_FN(gccs_ctor, "_ZN3art2gc23ScopedGCCriticalSectionC1EPNS_6ThreadENS0_7GcCauseENS0_13CollectorTypeE")
ART_FN(gccs_dtor, "_ZN3art2gc23ScopedGCCriticalSectionD1Ev")

/* one exported function, so the library has a .dynsym the shim can read */
int art_minidebug_entry(int x)
{
	return dump_heap(x) + ssa_ctor(x) + ssa_dtor(x) + gccs_ctor(x) + gccs_dtor(x);
}
