/* The JIT's code named for oomscope (HotSpot): a perf map, /tmp/perf-PID.map
 * in the JVM's own /tmp, the format Linux perf reads ("START SIZE NAME", hex),
 * written as HotSpot compiles and generates code: JVMTI's CompiledMethodLoad
 * (a method: "RET Class.method(ARGS)", as HotSpot's own Compiler.perfmap
 * names it) and DynamicCodeGenerated (the interpreter, "Interpreter", and the
 * stubs), as perf-map-agent and async-profiler write theirs. oomscope reads
 * it for every stack of a run with --shim (creation stacks, sampled faults):
 * the frames in JIT-compiled code and in the interpreter are named. Each line
 * one write(2) in append mode (lines from compiler threads at once do not
 * mix). Not on ART. */
#ifndef OOMSCOPE_SHIM_HS_PERFMAP_H
#define OOMSCOPE_SHIM_HS_PERFMAP_H

#include <jvmti.h>

/* Before SetEventCallbacks: the capability, and the callbacks to set. 0,
 * or -1 when the JVM refuses the capability (no map then). */
int hs_perfmap_onload(jvmtiEnv *jvmti, jvmtiEventCallbacks *ev);
/* After SetEventCallbacks (at VMInit, or at once when attached to a
 * running JVM): the file opened (truncated), the events enabled, and the
 * code compiled before now posted again (GenerateEvents). */
void hs_perfmap_start(jvmtiEnv *jvmti);

#endif
