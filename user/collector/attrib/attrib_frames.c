/* Creation stacks written out (attrib.h): each frame as JSON and as a
 * crash-log line, and the culprit, the app's first frame (Java or native)
 * past its runtime's and libc's plumbing. Below attrib.c, attrib_direct.c
 * and attrib_write.c, which all write stacks. */
#define _GNU_SOURCE
#include "collector/attrib/attrib_int.h"
#include "run/memory.h"
#include "run/frames.h"
#include "util/vec.h"
#include "sym/perfmap.h"
#include "sym/art_frames.h"
#include "util/text.h"

static void write_frames(struct json *j, struct ooms_attrib *a, uint32_t stack);
static const char *culprit(struct ooms_attrib *a, uint32_t stack, int first_is_code, char *buf, size_t len);

void attrib_write_frame(struct json *j, struct ooms_attrib *a, uint64_t addr, int is_ret)
{
	struct ooms_frame f;
	char text[512];

	memset(&f, 0, sizeof(f));
	f.addr = addr;
	ooms_sym_resolve(a->sym, addr, is_ret, &f);
	ooms_frame_format(&f, text, sizeof(text));
	struct run_frame rf = {.addr = addr, .module = f.module, .base = f.module ? f.base : 0,
			       .offset = f.module ? f.offset : 0, .symbol = f.symbol, .sym_offset = -1, .jit = f.jit,
			       .build_id = f.build_id, .text = text};
	char name[256];

	if (f.symbol && !f.jit) {
		const char *d = ooms_demangle(f.symbol, name, sizeof(name));

		rf.demangled = d != f.symbol ? d : NULL;
		rf.sym_offset = (int64_t)f.sym_offset;
	}
	run_frame_write(j, &rf);
}

void ooms_attrib_write_frames(struct json *j, struct ooms_attrib *a, uint32_t stack)
{
	write_frames(j, a, stack);
}

const char *ooms_attrib_culprit(struct ooms_attrib *a, uint32_t stack, char *buf, size_t len)
{
	return culprit(a, stack, 0, buf, len);
}

const char *ooms_attrib_culprit_pc(struct ooms_attrib *a, uint32_t stack, char *buf, size_t len)
{
	return culprit(a, stack, 1, buf, len);
}

void ooms_attrib_print_frames(FILE *out, struct ooms_attrib *a, uint32_t stack, const char *indent)
{
	size_t n = 0;
	const uint64_t *fr = ooms_stacks_get(a->stacks, stack, &n);

	for (size_t i = 0; fr && i < n; i++) {
		struct ooms_frame f;
		char text[512];

		char name[256];

		memset(&f, 0, sizeof(f));
		f.addr = fr[i];
		ooms_sym_resolve(a->sym, fr[i], i > 0, &f);
		f.symbol = ooms_demangle(f.symbol, name, sizeof(name)); /* a view for people */
		ooms_frame_format(&f, text, sizeof(text));
		fprintf(out, "%s#%02zu %s\n", indent, i, text);
	}
	if (!n)
		fprintf(out, "%s(no stack)\n", indent);
}

static void write_frames(struct json *j, struct ooms_attrib *a, uint32_t stack)
{
	size_t n = 0;
	const uint64_t *fr = ooms_stacks_get(a->stacks, stack, &n);

	run_frames_open(j);
	for (size_t i = 0; fr && i < n; i++)
		attrib_write_frame(j, a, fr[i], i > 0);
	json_arr_end(j);
}

/* Libraries that only pass a request on (libc, the dynamic loader, the C++
 * runtime's operator new, malloc replacements): the code that called them
 * is the one to blame. */
static int is_plumbing(const char *base)
{
	static const char *const prefixes[] = {
		"libc.so", "libc-", "ld-linux", "ld-musl", "libpthread", "linker", "libdl.so",
		"libstdc++.so", "libc++.so", "libc++abi.so", "libjemalloc", "libtcmalloc", "libmimalloc",
	};

	/* a frame in [stack] or [heap] is no code: a leaf function without a
	 * frame of its own left the unwinder reading its caller's slot */
	if (base[0] == '[' && strcmp(base, "[vdso]"))
		return 1;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(base, prefixes[i], strlen(prefixes[i])))
			return 1;
	return 0;
}

static const char *const java_platform[] = {
	"java.", "jdk.", "sun.", "com.sun.", "android.", "androidx.", "kotlin.", "kotlinx.", "com.android.internal.",
	"dalvik.", "libcore.", NULL,
};

static int prefixed(const char *const *list, const char *frame, size_t len)
{
	for (const char *const *p = list; *p; p++)
		if (len >= strlen(*p) && !strncmp(frame, *p, strlen(*p)))
			return 1;
	return 0;
}

static int java_is_platform(const struct ooms_attrib *a, const char *frame, size_t len)
{
	if (!a->platform)
		return prefixed(java_platform, frame, len);
	return prefixed(a->platform, frame, len) || (a->platform_add && prefixed(java_platform, frame, len));
}

/* The first Java frame of the app's own code (outside the platform's
 * classes), else the first frame: "who did it", in Java. */
static const char *java_culprit(struct ooms_attrib *a, uint32_t jstack, char *buf, size_t len)
{
	const char *f = jstack < a->njstacks ? a->jstacks[jstack] : NULL, *first = f;

	if (!f)
		return NULL;
	for (const char *p = f; *p;) {
		size_t n = strcspn(p, ";");

		if (!java_is_platform(a, p, n)) {
			snprintf(buf, len, "%.*s", (int)n, p);
			return buf;
		}
		p += n + (p[n] == ';');
	}
	snprintf(buf, len, "%.*s", (int)strcspn(first, ";"), first);
	return buf;
}

static void write_java_frames(struct json *j, struct ooms_attrib *a, uint32_t jstack)
{
	run_java_frames_write(j, jstack < a->njstacks ? a->jstacks[jstack] : NULL);
}

const char *ooms_attrib_java_culprit(struct ooms_attrib *a, int jstate, uint32_t jstack, char *buf, size_t len)
{
	return jstate == JS_GOT ? java_culprit(a, jstack, buf, len) : NULL;
}

void ooms_attrib_write_java(struct json *j, struct ooms_attrib *a, int jstate, uint32_t jstack)
{
	if (jstate == JS_GOT)
		write_java_frames(j, a, jstack);
	else if (jstate)
		run_java_stack_missing(j, jstate == JS_NO_JAVA   ? "none (not in Java code)"
					  : jstate == JS_SAMPLED ? "sampled out (over its place's limit)"
								 : "asked, not reported");
}

/* A Java runtime's own native code: the app's is past it. */
static int is_runtime(const char *base)
{
	static const char *const prefixes[] = {"libjvm.so", "libjava.so", "libjli.so", "libnio.so", "libnet.so", "libzip.so",
					       "libart.so", "libartbase.so", "libopenjdk.so", "libopenjdkjvm.so",
					       "libjavacore.so", "libandroid_runtime.so",
					       /* ART's launchers: a phone's zygote, the host's */
					       "app_process", "dalvikvm"};

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(base, prefixes[i], strlen(prefixes[i])))
			return 1;
	return 0;
}

/* A frame in a Java runtime's anonymous code (its JIT-compiled methods, its
 * interpreter): named by the perf map where there is one. Returns the
 * culprit's text, or NULL when the frame does not name one in this pass
 * (pass 0: the app's own code only). */
static const char *java_code_culprit(struct ooms_attrib *a, const struct ooms_frame *f, int pass, char *buf,
				     size_t len)
{
	char method[512];

	if (!f->jit) {
		if (pass || !a->java_runtime || !ooms_sym_is_exec(a->sym, f->addr))
			return NULL;
		snprintf(buf, len, "%s", a->java_runtime == ATTRIB_JAVA_ART
					 ? "Java code (ART's JIT; its methods are not named here)"
					 : "Java code (JIT-compiled or interpreted; unnamed: no perf map, which --shim or --perf-map gives)");
		return buf;
	}
	switch (ooms_perfmap_kind(f->symbol, method, sizeof(method))) {
	case OOMS_PM_METHOD:
		if (!pass && java_is_platform(a, method, strlen(method)))
			return NULL;
		snprintf(buf, len, "%s (compiled Java)", method);
		return buf;
	case OOMS_PM_INTERPRETER:
		snprintf(buf, len, "interpreted Java (methods unnamed here; --shim names them for threads and fds)");
		return pass ? NULL : buf;
	default:
		return NULL; /* a stub */
	}
}

/* A stack of a Java runtime's own heap work: its collector copying, marking
 * or compacting the heap, or its allocator filling it (HotSpot's collectors
 * by their classes, ART's by its namespace). A page it touches is the Java
 * heap growing: the heap, not the collector, is what grew (the heap dump
 * says why); the JIT's and the runtime's other native memory are not this.
 * Only the frames above the first of the app's own (native or Java) count:
 * an allocation the interpreter or the app's code asked for is the heap's
 * (the page was the heap's), a GC frame below the app's code is not. */
static int java_heap_work(struct ooms_attrib *a, const uint64_t *fr, size_t n)
{
	static const char *const gc[] = {
		"G1", "PS", "ParallelCompact", "ParallelScavenge", "MarkSweep", "Serial", "DefNew", "Tenured",
		"CardTable", "Shenandoah", "ZHeap", "ZPage", "ZMark", "ZRelocate", "ZCollectedHeap", "ZDriver",
		"CollectedHeap", "GenCollectedHeap", "Epsilon", "MemAllocator", "ObjAllocator", "ObjArrayAllocator",
		"ThreadLocalAllocBuffer", "Copy::", "oopDesc::", "art::gc::", NULL,
	};

	for (size_t i = 0; i < n && i < 12; i++) {
		struct ooms_frame f;
		const char *base;
		char name[256];

		memset(&f, 0, sizeof(f));
		if (ooms_sym_resolve(a->sym, fr[i], i > 0, &f) != 0)
			continue;
		if (!f.module) {
			if (f.jit)
				return 0; /* the JIT's or the interpreter's code: the app's */
			continue; /* anonymous code no map names: ART's stubs as often as the app's */
		}
		base = strrchr(f.module, '/');
		base = base ? base + 1 : f.module;
		if (!is_runtime(base)) {
			if (is_plumbing(base))
				continue;
			return 0;
		}
		if (f.symbol && prefixed(gc, ooms_demangle(f.symbol, name, sizeof(name)), strlen(name)))
			return 1;
	}
	return 0;
}


/* The first frame outside the plumbing and the Java runtime: "who did it";
 * when every frame is theirs (a runtime's own threads), the first outside
 * the plumbing. */
/* first_is_code: the first frame is the code itself (a page fault's pc),
 * not where a call into a library was made from */
static const char *culprit(struct ooms_attrib *a, uint32_t stack, int first_is_code, char *buf, size_t len)
{
	size_t n = 0;
	const uint64_t *fr = ooms_stacks_get(a->stacks, stack, &n);

	for (int pass = 0; pass < 2; pass++) {
		/* a page the runtime's heap work touched, above any code of the
		 * app's: the Java heap's */
		if (pass == 0 && first_is_code && a->java_runtime && fr && java_heap_work(a, fr, n)) {
			snprintf(buf, len, "%s", RUN_MEMORY_JAVA_HEAP);
			return buf;
		}
		for (size_t i = 0; fr && i < n; i++) {
			struct ooms_frame f;
			const char *base;
			char name[256];
			enum ooms_art_frame art;

			memset(&f, 0, sizeof(f));
			if (ooms_sym_resolve(a->sym, fr[i], i > 0, &f) != 0)
				continue;
			if (!f.module) {
				if (java_code_culprit(a, &f, pass, buf, len))
					return buf;
				continue;
			}
			base = strrchr(f.module, '/');
			base = base ? base + 1 : f.module;
			/* ART's compiled Java: named by its method, the platform's
			 * passed over as the JVM's are */
			art = ooms_art_frame_kind(base, f.symbol);
			if (art == OOMS_ART_COMPILED && (i > 0 || first_is_code)) {
				if (!f.symbol || (!pass && java_is_platform(a, f.symbol, strlen(f.symbol))))
					continue;
				snprintf(buf, len, "%s (compiled Java, %s)", f.symbol, base);
				return buf;
			}
			if (!pass && art == OOMS_ART_INTERPRETER) {
				snprintf(buf, len, "interpreted Java (ART's interpreter; its methods are not named here)");
				return buf;
			}
			/* the first frame is where the call was made from: a libc
			 * wrapper, in a static executable its own module's */
			if (is_plumbing(base) || (!pass && (is_runtime(base) || (i == 0 && n > 1 && !first_is_code))))
				continue;
			if (f.symbol)
				snprintf(buf, len, "%s (%s)", ooms_demangle(f.symbol, name, sizeof(name)), base);
			else /* stripped: where, for `oomscope symbolize` or addr2line on its debug file */
				snprintf(buf, len, "%s+0x%" PRIx64, base, f.offset);
			return buf;
		}
	}
	return NULL;
}

