/* A JIT's perf map (/tmp/perf-PID.map, the format Linux perf reads): one
 * line per block of generated code, "START SIZE NAME" with START and SIZE
 * in hex (a 0x prefix or not). HotSpot writes one on `jcmd PID
 * Compiler.perfmap` (JDK 17+) or at exit with -XX:+DumpPerfMapAtExit: its
 * compiled methods as "RET Class.method(ARGS)", its interpreter as
 * "Interpreter", its stubs by their names. The file may be hostile: lines
 * that do not parse are skipped, names are cut at 1 KiB, at most
 * OOMS_PERFMAP_MAX entries are kept. */
#ifndef OOMSCOPE_PERFMAP_H
#define OOMSCOPE_PERFMAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define OOMS_PERFMAP_MAX (4u << 20)

struct ooms_perfmap;

/* Reads a perf map from f. 0 (and *out, possibly empty), or -errno. */
int ooms_perfmap_read(FILE *f, struct ooms_perfmap **out);
void ooms_perfmap_free(struct ooms_perfmap *pm);
size_t ooms_perfmap_count(const struct ooms_perfmap *pm);

/* The name of the block holding addr, and its start; NULL when none does.
 * Where blocks overlap (a JIT reuses its memory; a map appended to over
 * time), of two starting at the same address the later line wins, and a
 * block ends where the next one begins. */
const char *ooms_perfmap_find(const struct ooms_perfmap *pm, uint64_t addr, uint64_t *start);

/* What a HotSpot perf map name says: OOMS_PM_METHOD for a compiled Java
 * method ("void a.B.c(int)": *method gets "a.B.c(int)", the class and
 * method with the arguments, cut to fit), OOMS_PM_INTERPRETER for the
 * interpreter, OOMS_PM_OTHER for a stub or anything else. */
enum ooms_pm_kind { OOMS_PM_OTHER, OOMS_PM_METHOD, OOMS_PM_INTERPRETER };
enum ooms_pm_kind ooms_perfmap_kind(const char *name, char *method, size_t len);

#endif
