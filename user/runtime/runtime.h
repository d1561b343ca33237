/* Runtime adapters: which runtime a target runs (from the libraries it maps),
 * and what each offers. native: no Java heap; hotspot: libjvm.so (USDT
 * probes, hsperfdata, the attach protocol); art: libart.so (uprobes on its
 * symbols, `am dumpheap`). Overridable with --runtime. */
#ifndef OOMSCOPE_RUNTIME_H
#define OOMSCOPE_RUNTIME_H

#include <stddef.h>
#include <sys/types.h>

enum ooms_rt_kind { OOMS_RT_AUTO = -1, OOMS_RT_NATIVE = 0, OOMS_RT_HOTSPOT, OOMS_RT_ART };

struct ooms_rt_target {
	enum ooms_rt_kind kind;
	char lib[512];         /* libjvm.so / libart.so as the target maps it ("" for native) */
};

/* From /proc/PID/maps; want: OOMS_RT_AUTO, or a kind to insist on (its
 * library is still looked up). 0, or -ENOENT when want's library is not
 * mapped, or -errno. */
int ooms_rt_detect(pid_t pid, enum ooms_rt_kind want, struct ooms_rt_target *t);
const char *ooms_rt_name(enum ooms_rt_kind k); /* "native", "hotspot", "art" */
int ooms_rt_parse(const char *name);           /* enum, or -2 for an unknown name ("auto" is -1) */

#endif
