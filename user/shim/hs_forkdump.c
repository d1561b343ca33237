/* The HotSpot fork-dump (hotspot-dump.md has the measurements behind it).
 *
 * The parent gathers class layouts while the app runs (hs_layout.c), then
 * calls JVMTI FollowReferences. HotSpot runs the walk as a VM operation at a
 * safepoint, in the VM thread; the first callback forks there. The parent
 * returns JVMTI_VISIT_ABORT, the walk ends and the app goes on: its pause is
 * the safepoint and the fork. The child is a consistent, single-threaded copy
 * whose VM thread is still inside the walk: it carries on and writes the dump
 * from the callbacks (objects tagged with sequential ids, references with
 * their field and array indices, primitive fields; primitive array contents
 * are skipped at the source, their lengths kept, but for char and byte
 * arrays of at most HPROF_TEXT_BYTES, where Strings keep their contents),
 * through the stripper and zlib, to the output.
 *
 * The child notices the end of the walk by itself: the VM thread then goes
 * back to waiting for VM operations, blocked in a futex, with every object it
 * reached written. A watchdog thread in the child sees that, finishes the
 * file and _exits. A walk that stops with objects still pending is an error,
 * never a silently partial dump.
 *
 * One file on purpose (over 600 lines): the walk's state is one static
 * struct that the JVMTI callbacks, the child's writer and its watchdog all
 * use; splitting it would expose it to the rest of the shim. */
#define _GNU_SOURCE
#include "shim/shim.h"
#include "util/vec.h"
#include "shim/hs_oom.h"
#include "shim/hs_perfmap.h"

#include <errno.h>
#include <jvmti.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "hprof/emit.h"
#include "hprof/hprof.h"
#include "hprof/stream.h"
#include "shim/elfsym.h"
#include "shim/hs_layout.h"
#include "shim/hs_jstack.h"
#include "shim/hs_tstart.h"
#include "shim/hs_jvmdump.h"
#include "shim/hs_threads.h"
#include "shim/libc/shim_libc.h"

#define ID(tag) ((uint64_t)(tag) << 3)
#define STRING_ID(i) ((((uint64_t)1 << 44) + (uint64_t)(i)) << 3)
/* the threads' strings after the layout's; their frames in an id range of their own */
#define THREAD_STRING_ID(i) STRING_ID(W.lay.nstrings + (uint64_t)(i))
#define FRAME_ID(k) ((((uint64_t)1 << 45) + (uint64_t)(k)) << 3)
#define STACK_SERIAL 1 /* the empty trace objects point to; thread i's is i + 2 */
#define CHILD_ALARM_S 1800

static JavaVM *jvm;
static jvmtiEnv *jvmti;
static int gc_events;     /* can_generate_garbage_collection_events was granted */

/* The fork at the end of a GC pause: armed by the control thread, taken
 * by the callback at GarbageCollectionFinish, or disarmed when no GC came. */
enum { AT_GC_OFF, AT_GC_ARMED, AT_GC_FORKING, AT_GC_DONE };
#define AT_GC_WAIT_MS 2000 /* an app that allocates has a GC sooner than that */
static int at_gc_wait_ms = AT_GC_WAIT_MS;

/* Forks made by this process's dumps; a child sees its own number. */
static int forks_made;
/* Fault injection for the tests, OOMSCOPE_SHIM_FAULT in the JVM's
 * environment, items separated by commas:
 *   stall:N     the children of its first N forks block their VM thread
 *               mid-walk, as a lock held by a thread that did not survive
 *               the fork does;
 *   stall_ms:M  a walk blocked that long is a stall (default 10 s);
 *   gc_wait_ms:M  a dump waits that long for a GC's end to fork at
 *               (default 2 s): a test that wants the GC's end whatever
 *               the machine's speed;
 *   hold:PATH   each child pauses mid-walk until PATH exists (at most
 *               120 s), still making progress as far as its watchdog can
 *               tell: a test kills or queries a dump it knows is running. */
static int fault_stall_forks;
static int stall_ms = 10000;
static char fault_hold[256];

static void fault_parse(const char *f)
{
	while (f && *f) {
		size_t n = strcspn(f, ",");

		if (!strncmp(f, "stall:", 6))
			fault_stall_forks = atoi(f + 6);
		else if (!strncmp(f, "stall_ms:", 9))
			stall_ms = atoi(f + 9);
		else if (!strncmp(f, "gc_wait_ms:", 11))
			at_gc_wait_ms = atoi(f + 11);
		else if (!strncmp(f, "hold:", 5) && n - 5 < sizeof(fault_hold))
			snprintf(fault_hold, sizeof(fault_hold), "%.*s", (int)(n - 5), f + 5);
		f += n + (f[n] == ',');
	}
}

/* What the fork needs from libjvm.so's .symtab (Debian keeps it; a
 * stripped libjvm leaves them unknown):
 * - UseZGC: a walk aborted in the parent right after the fork left a ZGC
 *   heap broken (JDK 17: a JIT-compiled loop crashed with SIGSEGV seconds
 *   later, and the child died too), so ZGC is refused;
 * - ThreadCritical: HotSpot's global lock around its arena chunk pool. A
 *   compiler thread holding it at the fork left the child's VM thread
 *   blocked on it for good (a stalled walk) as soon as a resource area
 *   grew. The VM thread takes it across fork(), as pthread_atfork would,
 *   and both sides release it. */
static struct {
	int resolved;
	const volatile uint8_t *use_zgc;
	void (*tc_enter)(void *self);  /* ThreadCritical::ThreadCritical() */
	void (*tc_leave)(void *self);  /* ThreadCritical::~ThreadCritical() */
	uintptr_t tc_mutex;            /* its pthread mutex, to name a stall */
} J;

static void jvm_syms_resolve(void)
{
	struct elfsym_lib lib;
	uintptr_t enter, leave;

	if (J.resolved || elfsym_open_loaded(&lib, "libjvm.so"))
		return;
	J.use_zgc = (const volatile uint8_t *)elfsym_find(&lib, "UseZGC", NULL);
	enter = elfsym_find(&lib, "_ZN14ThreadCriticalC1Ev", NULL);
	leave = elfsym_find(&lib, "_ZN14ThreadCriticalD1Ev", NULL);
	if (enter && leave) {
		J.tc_enter = (void (*)(void *))enter;
		J.tc_leave = (void (*)(void *))leave;
	}
	J.tc_mutex = elfsym_find(&lib, "_ZL8tc_mutex", NULL);
	elfsym_close(&lib);
	J.resolved = 1;
}


/* ---- the walk's state (parent: until the fork; child: the whole walk) ---- */

struct current {          /* the object whose references are being reported */
	jlong tag;        /* 0: none */
	jlong class_tag;
	int kind;         /* 'I' instance, 'A' object array, 'P' primitive array, 'C' class */
	uint8_t *buf;     /* instance field bytes / array element ids */
	size_t buf_cap;
	uint32_t len;     /* object array, primitive array: elements */
	uint32_t text;    /* primitive array: bytes of contents kept in buf (char and byte arrays) */
	uint64_t signers, pd;
	uint64_t *statics; /* class: static values (ids, or raw bits) */
	uint32_t statics_cap;
};

static struct {
	struct hs_layout lay;
	struct hs_threads th;     /* the Java threads' stack traces, read before the fork */
	int forked;               /* parent: the fork happened; abort the walk */
	int hotspot_writer;       /* the child runs HotSpot's dumper (hs_jvmdump.h), not the walk below */
	volatile int at_gc;       /* the fork at the end of a GC pause: AT_GC_* */
	double gc_fork_ms;        /* that fork's part of the pause */
	unsigned gc_count;        /* collections when it was armed */
	int in_child;
	double pause_start_ms;
	pid_t child;
	char error[200];
	const struct shim_dump_req *req;
	/* A copy: in the child, glibc reclaims the other threads' stacks (the
	 * control thread's, where the caller's request lives) for new threads. */
	struct shim_dump_req req_copy;
	/* child */
	struct hprof_strip_stream strip;
	struct hprof_emit emit;
	struct current cur;
	jlong next_tag;
	uint32_t *arr_len;        /* by tag: array length seen when first reached */
	uint64_t *reached, *emitted; /* bitsets by tag */
	size_t tag_cap;           /* entries in arr_len and bits in the bitsets */
	int64_t pending;          /* reached, not a java.lang.Class, not yet written */
	uint8_t *class_dumped;    /* by class index */
	jlong *thread_tags;       /* thread serial - 1 -> the thread object's tag */
	uint32_t nthreads;
	size_t threads_cap;
	uint64_t objects;
	uint64_t unknown_class;    /* objects whose class was not among the loaded classes */
	uint64_t unlisted_mirrors; /* Class objects not among them (primitive types, new classes) */
	volatile uint64_t callbacks;
	volatile int in_callback;
	int fault_fired;           /* a stall or hold fault has been taken (once a walk) */
	pid_t vm_tid;
	double start_ms;
	int err;
	char why[200];
} W;


static void child_fail(int e, const char *why)
{
	if (!W.err) {
		W.err = e ? e : -EIO;
		snprintf(W.why, sizeof(W.why), "%s", why);
	}
}

static int to_strip(void *ctx, const void *buf, size_t n)
{
	(void)ctx;
	return hprof_strip_stream_feed(&W.strip, buf, n);
}

/* Grows the per-tag tables to hold tag. */
static int ensure_tag(jlong tag)
{
	size_t need = (size_t)tag + 1, cap = W.tag_cap;

	if (need <= cap)
		return 0;
	while (cap < need)
		cap = cap ? cap * 2 : (size_t)1 << 20;
	{
		uint32_t *a = realloc(W.arr_len, cap * sizeof(*a));
		uint64_t *r, *e;

		if (!a)
			return -ENOMEM;
		memset(a + W.tag_cap, 0, (cap - W.tag_cap) * sizeof(*a));
		W.arr_len = a;
		r = realloc(W.reached, cap / 8 + 8);
		if (!r)
			return -ENOMEM;
		memset((uint8_t *)r + W.tag_cap / 8, 0, cap / 8 + 8 - W.tag_cap / 8);
		W.reached = r;
		e = realloc(W.emitted, cap / 8 + 8);
		if (!e)
			return -ENOMEM;
		memset((uint8_t *)e + W.tag_cap / 8, 0, cap / 8 + 8 - W.tag_cap / 8);
		W.emitted = e;
	}
	W.tag_cap = cap;
	return 0;
}

static int bit_test(const uint64_t *bits, jlong tag)
{
	return (bits[tag >> 6] >> (tag & 63)) & 1;
}

static int bit_test_set(uint64_t *bits, jlong tag)
{
	uint64_t m = 1ull << (tag & 63);
	int was = (bits[tag >> 6] & m) != 0;

	bits[tag >> 6] |= m;
	return was;
}

static struct hs_class *klass(jlong tag)
{
	return tag >= 1 && (uint64_t)tag <= W.lay.nclasses ? &W.lay.classes[tag - 1] : NULL;
}

static int is_class_instance(jlong class_tag)
{
	return class_tag && class_tag == W.lay.class_class_tag;
}

/* The referee of a reference: its tag (assigned now if new). */
static jlong reach(jlong *tag_ptr, jlong class_tag, jint length)
{
	jlong t = *tag_ptr;

	if (!t) {
		t = *tag_ptr = W.next_tag++;
	}
	if (ensure_tag(t)) {
		child_fail(-ENOMEM, "out of memory for the object tables");
		return t;
	}
	if (!bit_test_set(W.reached, t)) {
		if (length >= 0)
			W.arr_len[t] = (uint32_t)length;
		if (!is_class_instance(class_tag))
			W.pending++;
		else if (!klass(t))
			W.unlisted_mirrors++;
		if (!klass(class_tag))
			W.unknown_class++;
	}
	return t;
}

static uint8_t *grow(uint8_t **buf, size_t *cap, size_t want)
{
	return vec_reserve((void **)buf, cap, want, 1) ? NULL : *buf;
}

/* ---- records ---- */

static void emit_class_dump(jlong tag)
{
	struct hs_class *c = klass(tag);
	size_t len;
	uint8_t *p;
	struct current *cur = &W.cur;
	int with_values = cur->tag == tag && cur->kind == 'C';

	if (!c || W.class_dumped[tag - 1])
		return;
	W.class_dumped[tag - 1] = 1;
	len = 1 + 8 + 4 + 8 * 6 + 4 + 2 + 2 + 2;
	for (uint32_t i = 0; i < c->nstatic; i++)
		len += 8 + 1 + hs_type_size(c->statics[i].type);
	len += (size_t)c->ninst * (8 + 1);
	p = hprof_emit_sub(&W.emit, len);
	if (!p)
		return;
	p = hprof_put1(p, HPROF_CLASS_DUMP);
	p = hprof_put8(p, ID(tag));
	p = hprof_put4(p, STACK_SERIAL);
	p = hprof_put8(p, c->super >= 0 ? ID(c->super + 1) : 0);
	p = hprof_put8(p, c->loader_tag ? ID(c->loader_tag) : 0);
	p = hprof_put8(p, with_values ? cur->signers : 0);
	p = hprof_put8(p, with_values ? cur->pd : 0);
	p = hprof_put8(p, 0);
	p = hprof_put8(p, 0);
	p = hprof_put4(p, c->inst_bytes);
	p = hprof_put2(p, 0); /* constant pool */
	p = hprof_put2(p, (uint16_t)c->nstatic);
	for (uint32_t i = 0; i < c->nstatic; i++) {
		uint64_t v = with_values && i < cur->statics_cap ? cur->statics[i] : 0;
		unsigned sz = hs_type_size(c->statics[i].type);

		p = hprof_put8(p, STRING_ID(c->statics[i].name));
		p = hprof_put1(p, c->statics[i].type);
		if (sz == 1)
			p = hprof_put1(p, (uint8_t)v);
		else if (sz == 2)
			p = hprof_put2(p, (uint16_t)v);
		else if (sz == 4)
			p = hprof_put4(p, (uint32_t)v);
		else
			p = hprof_put8(p, v);
	}
	p = hprof_put2(p, (uint16_t)c->ninst);
	for (uint32_t i = 0; i < c->ninst; i++) {
		p = hprof_put8(p, STRING_ID(c->inst[i].name));
		p = hprof_put1(p, c->inst[i].type);
	}
}

/* The object being reported is complete: its record goes out. */
static void flush_current(void)
{
	struct current *cur = &W.cur;
	struct hs_class *c = klass(cur->class_tag);
	uint8_t *p;

	if (!cur->tag)
		return;
	if (ensure_tag(cur->tag) || bit_test_set(W.emitted, cur->tag)) {
		cur->tag = 0; /* written already (a referrer reported twice) */
		return;
	}
	if (bit_test(W.reached, cur->tag) && !is_class_instance(cur->class_tag))
		W.pending--;
	W.objects++;
	switch (cur->kind) {
	case 'C':
		emit_class_dump(cur->tag);
		break;
	case 'I': {
		uint32_t n = c ? c->inst_bytes : 0;

		p = hprof_emit_sub(&W.emit, 1 + 8 + 4 + 8 + 4 + n);
		if (!p)
			break;
		p = hprof_put1(p, HPROF_INSTANCE_DUMP);
		p = hprof_put8(p, ID(cur->tag));
		p = hprof_put4(p, STACK_SERIAL);
		p = hprof_put8(p, ID(cur->class_tag));
		p = hprof_put4(p, n);
		if (n)
			memcpy(p, cur->buf, n);
		break;
	}
	case 'A':
		p = hprof_emit_sub(&W.emit, 1 + 8 + 4 + 4 + 8 + (size_t)cur->len * 8);
		if (!p)
			break;
		p = hprof_put1(p, HPROF_OBJ_ARRAY_DUMP);
		p = hprof_put8(p, ID(cur->tag));
		p = hprof_put4(p, STACK_SERIAL);
		p = hprof_put4(p, cur->len);
		p = hprof_put8(p, ID(cur->class_tag));
		if (cur->len)
			memcpy(p, cur->buf, (size_t)cur->len * 8);
		break;
	case 'P':
		if (cur->text) { /* a small char or byte array: whole, as the stripper keeps it */
			p = hprof_emit_sub(&W.emit, 1 + 8 + 4 + 4 + 1 + (size_t)cur->text);
			if (p)
				memcpy(hprof_put1(hprof_put4(hprof_put4(hprof_put8(hprof_put1(p, HPROF_PRIM_ARRAY_DUMP),
											 ID(cur->tag)),
									 STACK_SERIAL),
							     cur->len),
						  c && c->prim_array_type ? c->prim_array_type : HT_BYTE),
				       cur->buf, cur->text);
			break;
		}
		/* contents skipped at the source: length and type stay, as the
		 * stripper would leave them */
		p = hprof_emit_sub(&W.emit, 1 + 8 + 4 + 4 + 1);
		if (p)
			hprof_put1(hprof_put4(hprof_put4(hprof_put8(hprof_put1(p, HPROF_PRIM_ARRAY_NODATA), ID(cur->tag)),
							 STACK_SERIAL),
					      cur->len),
				   c && c->prim_array_type ? c->prim_array_type : HT_BYTE);
		break;
	}
	cur->tag = 0;
}

/* The object that is now the referrer: starts its record if it is new. */
static int begin_object(jlong tag, jlong class_tag)
{
	struct current *cur = &W.cur;
	struct hs_class *c;

	if (cur->tag == tag)
		return 0;
	flush_current();
	cur->tag = tag;
	cur->class_tag = class_tag;
	cur->signers = cur->pd = 0;
	if (klass(tag) && class_tag == W.lay.class_class_tag) {
		struct hs_class *k = klass(tag);

		cur->kind = 'C';
		if (k->nstatic > cur->statics_cap) {
			uint64_t *q = realloc(cur->statics, k->nstatic * sizeof(*q));

			if (!q)
				return child_fail(-ENOMEM, "out of memory"), -1;
			cur->statics = q;
			cur->statics_cap = k->nstatic;
		}
		memset(cur->statics, 0, cur->statics_cap * sizeof(*cur->statics));
		return 0;
	}
	c = klass(class_tag);
	if (c && c->prim_array_type) {
		cur->kind = 'P';
		cur->len = tag < (jlong)W.tag_cap ? W.arr_len[tag] : 0;
	} else if (c && c->is_array) {
		cur->kind = 'A';
		cur->len = tag < (jlong)W.tag_cap ? W.arr_len[tag] : 0;
		if (!grow(&cur->buf, &cur->buf_cap, (size_t)cur->len * 8 + 8))
			return child_fail(-ENOMEM, "out of memory"), -1;
		memset(cur->buf, 0, (size_t)cur->len * 8);
	} else {
		uint32_t n = c ? c->inst_bytes : 0;

		cur->kind = 'I';
		if (!grow(&cur->buf, &cur->buf_cap, n + 8))
			return child_fail(-ENOMEM, "out of memory"), -1;
		memset(cur->buf, 0, n);
	}
	return 0;
}

static void store(uint8_t *at, uint8_t type, uint64_t v)
{
	switch (hs_type_size(type)) {
	case 1: hprof_put1(at, (uint8_t)v); break;
	case 2: hprof_put2(at, (uint16_t)v); break;
	case 4: hprof_put4(at, (uint32_t)v); break;
	default: hprof_put8(at, v); break;
	}
}

/* A field value (reference id or primitive bits) of the current object. */
static void field_value(jint index, uint64_t v, int is_static_kind)
{
	struct current *cur = &W.cur;
	struct hs_class *c = klass(cur->kind == 'C' ? cur->tag : cur->class_tag);
	const struct hs_slot *s;

	if (!c || index < 0 || (uint32_t)index >= c->nslots)
		return;
	s = &c->slots[index];
	if (!s->valid || s->is_static != is_static_kind)
		return;
	if (is_static_kind) {
		if (cur->kind == 'C' && (uint32_t)s->at < cur->statics_cap)
			cur->statics[s->at] = v;
	} else if (cur->kind == 'I' && (uint32_t)s->at + hs_type_size(s->type) <= c->inst_bytes) {
		store(cur->buf + s->at, s->type, v);
	}
}

static uint32_t thread_serial(jlong thread_tag)
{
	for (uint32_t i = 0; i < W.nthreads; i++)
		if (W.thread_tags[i] == thread_tag)
			return i + 1;
	if (vec_reserve((void **)&W.thread_tags, &W.threads_cap, (size_t)W.nthreads + 1, sizeof(*W.thread_tags)))
		return 0;
	W.thread_tags[W.nthreads++] = thread_tag;
	return W.nthreads;
}

static void emit_root(jvmtiHeapReferenceKind kind, const jvmtiHeapReferenceInfo *info, jlong tag)
{
	uint8_t *p;

	switch (kind) {
	case JVMTI_HEAP_REFERENCE_JNI_GLOBAL:
		if ((p = hprof_emit_sub(&W.emit, 1 + 8 + 8)))
			hprof_put8(hprof_put8(hprof_put1(p, HPROF_ROOT_JNI_GLOBAL), ID(tag)), 0);
		break;
	case JVMTI_HEAP_REFERENCE_SYSTEM_CLASS:
		/* also constant pool arrays and Module objects: only classes are sticky */
		if ((p = hprof_emit_sub(&W.emit, 1 + 8)))
			hprof_put8(hprof_put1(p, klass(tag) ? HPROF_ROOT_STICKY_CLASS : HPROF_ROOT_UNKNOWN), ID(tag));
		break;
	case JVMTI_HEAP_REFERENCE_MONITOR:
		if ((p = hprof_emit_sub(&W.emit, 1 + 8)))
			hprof_put8(hprof_put1(p, HPROF_ROOT_MONITOR_USED), ID(tag));
		break;
	case JVMTI_HEAP_REFERENCE_THREAD: {
		uint32_t serial = thread_serial(tag);

		/* the threads read before the fork have serials 1..n and traces 2..n+1 */
		if ((p = hprof_emit_sub(&W.emit, 1 + 8 + 4 + 4)))
			hprof_put4(hprof_put4(hprof_put8(hprof_put1(p, HPROF_ROOT_THREAD_OBJECT), ID(tag)), serial),
				   serial >= 1 && serial <= W.th.n ? serial + 1 : STACK_SERIAL);
		break;
	}
	case JVMTI_HEAP_REFERENCE_STACK_LOCAL:
	case JVMTI_HEAP_REFERENCE_JNI_LOCAL: {
		const jvmtiHeapReferenceInfoStackLocal *sl = &info->stack_local;
		uint8_t t = kind == JVMTI_HEAP_REFERENCE_STACK_LOCAL ? HPROF_ROOT_JAVA_FRAME : HPROF_ROOT_JNI_LOCAL;

		if ((p = hprof_emit_sub(&W.emit, 1 + 8 + 4 + 4)))
			hprof_put4(hprof_put4(hprof_put8(hprof_put1(p, t), ID(tag)),
					      sl->thread_tag ? thread_serial(sl->thread_tag) : 0),
				   (uint32_t)sl->depth);
		break;
	}
	default:
		if ((p = hprof_emit_sub(&W.emit, 1 + 8)))
			hprof_put8(hprof_put1(p, HPROF_ROOT_UNKNOWN), ID(tag));
		break;
	}
}

/* ---- the child's start and end ---- */

static void child_start(void);
static void watchdog(void *arg);

/* The first callback of the walk forks. The parent aborts the walk; the
 * child starts writing. Returns 1 in the parent. */
static int fork_here(void)
{
	char tc_self; /* ThreadCritical has no fields: any address is its this */
	pid_t p;

	if (W.forked)
		return !W.in_child;
	W.forked = 1;
	forks_made++;
	if (W.hotspot_writer)
		hs_jvmdump_unshare_free();
	if (J.tc_enter)
		J.tc_enter(&tc_self);
	p = shim_fork();
	if (p != 0 && W.hotspot_writer)
		hs_jvmdump_share_again();
	if (p == 0)
		shim_malloc_after_fork();
	if (J.tc_leave)
		J.tc_leave(&tc_self); /* the child's VM thread is its owner too */
	if (p < 0) {
		snprintf(W.error, sizeof(W.error), "fork: %s", strerror(errno));
		return 1;
	}
	if (p > 0) {
		W.child = p;
		return 1;
	}
	W.in_child = 1;
	if (W.hotspot_writer) {
		struct hs_jvmdump_faults f = {forks_made <= fault_stall_forks, stall_ms,
					      fault_hold[0] ? fault_hold : NULL};

		hs_jvmdump_child(W.req, &f, W.at_gc == AT_GC_FORKING);
	}
	child_start();
	return 0;
}

/* A futex wait nobody ends; the watchdog finds the walk stalled. */
static void fault_hold_here(void)
{
	for (int i = 0; i < 12000 && access(fault_hold, F_OK) != 0; i++) {
		struct timespec ts = {0, 10 * 1000 * 1000};

		nanosleep(&ts, NULL);
		W.callbacks++; /* a slow walk, not a stalled one */
	}
}

static void fault_stall(void)
{
	static int never;

	W.in_callback = 0;
	for (;;)
		syscall(SYS_futex, &never, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
}

static jint JNICALL on_reference(jvmtiHeapReferenceKind kind, const jvmtiHeapReferenceInfo *info, jlong class_tag,
				 jlong referrer_class_tag, jlong size, jlong *tag_ptr, jlong *referrer_tag_ptr,
				 jint length, void *user_data)
{
	jlong t;

	(void)size;
	(void)user_data;
	if (!W.in_child && fork_here())
		return JVMTI_VISIT_ABORT;
	W.in_callback = 1;
	W.callbacks++;
	/* from the 5000th callback on, at the first reference: the other
	 * callbacks count too, so the 5000th itself may not be one */
	if (W.callbacks >= 5000 && !W.fault_fired) {
		W.fault_fired = 1;
		if (forks_made <= fault_stall_forks)
			fault_stall();
		if (fault_hold[0])
			fault_hold_here();
	}
	t = reach(tag_ptr, class_tag, length);
	if (!referrer_tag_ptr) {
		emit_root(kind, info, t);
	} else if ((*referrer_tag_ptr || (*referrer_tag_ptr = reach(referrer_tag_ptr, referrer_class_tag, -1))) &&
		   begin_object(*referrer_tag_ptr, referrer_class_tag) == 0) {
		switch (kind) {
		case JVMTI_HEAP_REFERENCE_FIELD:
			field_value(info->field.index, ID(t), 0);
			break;
		case JVMTI_HEAP_REFERENCE_STATIC_FIELD:
			field_value(info->field.index, ID(t), 1);
			break;
		case JVMTI_HEAP_REFERENCE_ARRAY_ELEMENT:
			if (W.cur.kind == 'A' && info->array.index >= 0) {
				uint32_t i = (uint32_t)info->array.index;

				if (i >= W.cur.len) { /* length unknown (referrer not seen as a referee) */
					if (!grow(&W.cur.buf, &W.cur.buf_cap, ((size_t)i + 1) * 8)) {
						child_fail(-ENOMEM, "out of memory");
						break;
					}
					memset(W.cur.buf + (size_t)W.cur.len * 8, 0, ((size_t)i + 1 - W.cur.len) * 8);
					W.cur.len = i + 1;
				}
				hprof_put8(W.cur.buf + (size_t)i * 8, ID(t));
			}
			break;
		case JVMTI_HEAP_REFERENCE_SIGNERS:
			W.cur.signers = ID(t);
			break;
		case JVMTI_HEAP_REFERENCE_PROTECTION_DOMAIN:
			W.cur.pd = ID(t);
			break;
		default: /* CLASS, CLASS_LOADER, SUPERCLASS, INTERFACE, CONSTANT_POOL: known or not in hprof */
			break;
		}
	}
	W.in_callback = 0;
	return W.err ? JVMTI_VISIT_ABORT : JVMTI_VISIT_OBJECTS;
}

static jint JNICALL on_primitive_field(jvmtiHeapReferenceKind kind, const jvmtiHeapReferenceInfo *info,
				       jlong object_class_tag, jlong *object_tag_ptr, jvalue value,
				       jvmtiPrimitiveType value_type, void *user_data)
{
	(void)value_type;
	(void)user_data;
	if (!W.in_child && fork_here())
		return JVMTI_VISIT_ABORT;
	W.in_callback = 1;
	W.callbacks++;
	if (*object_tag_ptr && begin_object(*object_tag_ptr, object_class_tag) == 0)
		field_value(info->field.index, (uint64_t)value.j, kind == JVMTI_HEAP_REFERENCE_STATIC_FIELD);
	W.in_callback = 0;
	return W.err ? JVMTI_VISIT_ABORT : 0;
}

static jint JNICALL on_array_values(jlong class_tag, jlong size, jlong *tag_ptr, jint element_count,
				    jvmtiPrimitiveType element_type, const void *elements, void *user_data)
{
	(void)size;
	(void)user_data;
	if (!W.in_child && fork_here())
		return JVMTI_VISIT_ABORT;
	W.in_callback = 1;
	W.callbacks++;
	if (*tag_ptr && begin_object(*tag_ptr, class_tag) == 0 && W.cur.kind == 'P') {
		struct current *cur = &W.cur;
		int is_char = element_type == JVMTI_PRIMITIVE_TYPE_CHAR;
		size_t bytes = (size_t)element_count * (is_char ? 2 : 1);

		cur->len = (uint32_t)element_count; /* the record goes out when the next object starts */
		cur->text = 0;
		/* String contents (char[], or byte[] since JDK 9): kept up to the
		 * stripper's bound, big-endian as hprof has them */
		if (W.req->text_bytes && (is_char || element_type == JVMTI_PRIMITIVE_TYPE_BYTE) && elements &&
		    bytes && bytes <= W.req->text_bytes && grow(&cur->buf, &cur->buf_cap, bytes)) {
			if (is_char)
				for (size_t i = 0; i < (size_t)element_count; i++)
					hprof_put2(cur->buf + 2 * i, ((const uint16_t *)elements)[i]);
			else
				memcpy(cur->buf, elements, bytes);
			cur->text = (uint32_t)bytes;
		}
	}
	W.in_callback = 0;
	return W.err ? JVMTI_VISIT_ABORT : 0;
}

/* The threads read before the fork: their strings, frames and traces,
 * thread i (serial i + 1) with trace serial i + 2, as HotSpot numbers them. */
static void emit_threads(void)
{
	const struct hs_threads *th = &W.th;
	uint8_t *rec = NULL;
	size_t cap = 0;

	for (uint32_t i = 0; i < th->nstrings; i++) {
		size_t n = strlen(th->strings[i]);

		if (!grow(&rec, &cap, 8 + n))
			goto out;
		hprof_put8(rec, THREAD_STRING_ID(i));
		memcpy(rec + 8, th->strings[i], n);
		hprof_emit_record(&W.emit, HPROF_STRING, rec, (uint32_t)(8 + n));
	}
	for (size_t k = 0; k < th->nframes; k++) {
		const struct hs_frame *f = &th->frames[k];
		const struct hs_method *m = &th->methods[f->method];
		uint8_t buf[8 * 4 + 4 + 4], *p = buf;

		p = hprof_put8(p, FRAME_ID(k));
		p = hprof_put8(p, THREAD_STRING_ID(m->name));
		p = hprof_put8(p, THREAD_STRING_ID(m->sig));
		p = hprof_put8(p, THREAD_STRING_ID(m->file));
		p = hprof_put4(p, m->class_serial);
		p = hprof_put4(p, (uint32_t)f->line);
		hprof_emit_record(&W.emit, HPROF_STACK_FRAME, buf, (uint32_t)(p - buf));
	}
	for (uint32_t i = 0; i < th->n; i++) {
		const struct hs_thread *t = &th->list[i];
		uint8_t *p;

		if (!grow(&rec, &cap, 12 + (size_t)t->nframes * 8))
			goto out;
		p = hprof_put4(hprof_put4(hprof_put4(rec, i + 2), i + 1), t->nframes);
		for (uint32_t f = 0; f < t->nframes; f++)
			p = hprof_put8(p, FRAME_ID(t->frames_at + f));
		hprof_emit_record(&W.emit, HPROF_STACK_TRACE, rec, (uint32_t)(p - rec));
		/* serial i + 1 is this thread's, whatever order the walk meets them in */
		thread_serial(t->tag);
	}
out:
	free(rec);
}

static void child_start(void)
{
	const struct shim_dump_req *req = W.req;
	uint8_t buf[64];
	int e;

	W.start_ms = shim_now_ms();
	W.vm_tid = (pid_t)syscall(SYS_gettid);
	shim_child_setup(CHILD_ALARM_S);
	{
		/* The walk writes every object's header: a copy-on-write fault each
		 * page, and each fault flushes the TLB of every CPU the child's mm is
		 * live on. One CPU for the whole child (the watchdog thread inherits
		 * the mask) makes those flushes local: a third of the child's time
		 * went to the cross-CPU interrupts. */
		cpu_set_t one;
		int cpu = sched_getcpu();

		if (cpu >= 0) {
			CPU_ZERO(&one);
			CPU_SET(cpu, &one);
			sched_setaffinity(0, sizeof(one), &one);
		}
	}
	W.next_tag = W.lay.next_tag;
	W.class_dumped = calloc(W.lay.nclasses + 1, 1);
	if (!W.class_dumped || ensure_tag(W.next_tag + 1024)) {
		child_fail(-ENOMEM, "out of memory");
	} else if ((e = hprof_strip_stream_open(&W.strip, req->fd, req->op, HPROF_PLAIN, 0)) ||
		   (e = hprof_emit_init(&W.emit, to_strip, NULL, 8, 1u << 20))) {
		child_fail(e, "opening the output");
	} else {
		hprof_emit_header(&W.emit, "JAVA PROFILE 1.0.2", (uint64_t)time(NULL) * 1000);
		for (uint32_t i = 0; i < W.lay.nstrings; i++) {
			size_t n = strlen(W.lay.strings[i]);
			uint8_t *rec = malloc(8 + n);

			if (!rec)
				break;
			hprof_put8(rec, STRING_ID(i));
			memcpy(rec + 8, W.lay.strings[i], n);
			hprof_emit_record(&W.emit, HPROF_STRING, rec, (uint32_t)(8 + n));
			free(rec);
		}
		for (uint32_t i = 0; i < W.lay.nclasses; i++) {
			uint8_t *p = buf;

			p = hprof_put4(p, i + 1);                    /* class serial */
			p = hprof_put8(p, ID(i + 1));                /* class object id */
			p = hprof_put4(p, STACK_SERIAL);
			p = hprof_put8(p, STRING_ID(W.lay.classes[i].name_str));
			hprof_emit_record(&W.emit, HPROF_LOAD_CLASS, buf, (uint32_t)(p - buf));
		}
		hprof_put4(hprof_put4(hprof_put4(buf, STACK_SERIAL), 0), 0); /* no frames */
		hprof_emit_record(&W.emit, HPROF_STACK_TRACE, buf, 12);
		emit_threads();
	}
	if (shim_thread_start(watchdog, NULL) != 0)
		shim_child_finish(req, -EAGAIN, "starting the watchdog", 0, 0, 0, W.start_ms);
}

/* Everything reached is written: classes not met in the walk and objects
 * never reported as referrers (the mirrors of int, long, ...) get records. */
static void child_end(void)
{
	const struct shim_dump_req *req = W.req;
	int e;

	flush_current();
	for (uint32_t i = 0; i < W.lay.nclasses && !W.err; i++)
		if (!W.class_dumped[i])
			emit_class_dump(i + 1);
	for (jlong t = W.lay.next_tag; t < W.next_tag && t < (jlong)W.tag_cap && !W.err; t++) {
		uint8_t *p;
		struct hs_class *cc = klass(W.lay.class_class_tag);
		uint32_t n = cc ? cc->inst_bytes : 0;

		if (!bit_test(W.reached, t) || bit_test(W.emitted, t))
			continue;
		/* an instance of java.lang.Class with no class behind it */
		if ((p = hprof_emit_sub(&W.emit, 1 + 8 + 4 + 8 + 4 + n))) {
			p = hprof_put4(hprof_put8(hprof_put4(hprof_put8(hprof_put1(p, HPROF_INSTANCE_DUMP), ID(t)), STACK_SERIAL),
						  ID(W.lay.class_class_tag)),
				       n);
			memset(p, 0, n);
			W.objects++;
		}
	}
	snprintf(shim_child_note, sizeof(shim_child_note), "walk=jvmti classes=%u unknown_class=%llu unlisted_mirrors=%llu",
		 W.lay.nclasses, (unsigned long long)W.unknown_class, (unsigned long long)W.unlisted_mirrors);
	if (!W.err && (e = hprof_emit_heap_end(&W.emit)))
		child_fail(e, "writing the dump");
	if (!W.err && W.emit.err)
		child_fail(W.emit.err, W.strip.msg[0] ? W.strip.msg : "writing the dump");
	if (!W.err && (e = hprof_strip_stream_finish(&W.strip)))
		child_fail(e, W.strip.msg[0] ? W.strip.msg : "finishing the dump");
	shim_child_finish(req, W.err, W.why, W.emit.bytes, W.strip.sink.bytes_out, W.objects, W.start_ms);
}

/* Reached objects not written yet, the current one (written at the end) aside. */
static int64_t still_pending(void)
{
	const struct current *c = &W.cur;

	return W.pending - (c->tag && !is_class_instance(c->class_tag) && !bit_test(W.emitted, c->tag));
}

/* The end of the walk: no callback for a while, the VM thread out of it
 * (waiting or blocked, not restoring object headers), and nothing reached
 * left unwritten. Blocked with objects pending is a stall: an error. */
static void watchdog(void *arg)
{
	uint64_t last = (uint64_t)-1;
	double idle_since = 0;

	(void)arg;
	for (;;) {
		struct timespec ts = {0, 20 * 1000 * 1000};
		uint64_t now = W.callbacks;
		enum shim_task_state st;
		double idle;

		nanosleep(&ts, NULL);
		if (now != last || W.in_callback) {
			last = now;
			idle_since = 0;
			continue;
		}
		if (!idle_since)
			idle_since = shim_now_ms();
		idle = shim_now_ms() - idle_since;
		if (idle < 60)
			continue;
		st = shim_task_state(W.vm_tid);
		if (W.err) { /* the callbacks returned ABORT: the walk is ending */
			if (st != SHIM_TASK_RUNNING || idle > 60000)
				break;
			continue;
		}
		if (st == SHIM_TASK_RUNNING) {
			if (idle < 1800 * 1000.0) /* restoring object headers: about a second per GB */
				continue;
			child_fail(-ETIMEDOUT, "the heap walk did not end");
			break;
		}
		if (still_pending() <= 0)
			break; /* done, whether the thread waits or hung after the walk */
		if (st == SHIM_TASK_BLOCKED && idle > stall_ms) {
			char sc[96], why[sizeof(W.why)];

			shim_task_syscall(W.vm_tid, sc, sizeof(sc));
			{
				/* "NR arg0 ...": a futex wait on ThreadCritical's mutex is named */
				char *sp = strchr(sc, ' ');
				unsigned long long addr = sp ? strtoull(sp + 1, NULL, 16) : 0;
				int on_tc = J.tc_mutex && addr == J.tc_mutex;

				sc[strcspn(sc, " ")] = 0; /* the syscall's number */
				/* child_fail() copies into W.why: format elsewhere */
				snprintf(why, sizeof(why),
					 "the heap walk stalled with %lld objects not written (a lock held at fork time; the VM thread waits in syscall %.20s%s)",
					 (long long)still_pending(), sc,
					 atol(sc) != SYS_futex ? "" : on_tc ? ", futex on HotSpot's ThreadCritical" : ", futex");
			}
			child_fail(-EDEADLK, why);
			break;
		}
	}
	child_end();
}

/* ---- the fork at the end of a GC pause ---- */

/* GarbageCollectionFinish: in the VM thread, at the end of a GC pause,
 * still at its safepoint. A young GC has just emptied eden and retired
 * every TLAB: forking here, with the free space kept from the copy
 * (hs_jvmdump_unshare_free), leaves the copy nothing the app writes soon
 * (new objects, the next GC's evacuation): its copy-on-write is the old
 * objects it changes. No JNI or JVMTI call here. */
static void JNICALL on_gc_finish(jvmtiEnv *env)
{
	double t0;

	(void)env;
	/* a young (or full) GC's end: not a remark or cleanup pause, which
	 * leave eden as it was */
	if (W.at_gc != AT_GC_ARMED || hs_jvmdump_collections() == W.gc_count)
		return;
	if (!__sync_bool_compare_and_swap(&W.at_gc, AT_GC_ARMED, AT_GC_FORKING))
		return;
	t0 = shim_now_ms();
	fork_here(); /* the child does not return */
	W.gc_fork_ms = shim_now_ms() - t0;
	__atomic_store_n(&W.at_gc, AT_GC_DONE, __ATOMIC_RELEASE);
	syscall(SYS_futex, &W.at_gc, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* Arms the fork at the next GC's end and waits up to at_gc_wait_ms: 1 when
 * it forked (or failed to, W.error), 0 when no GC came (disarmed). */
static int fork_at_next_gc(void)
{
	double until = shim_now_ms() + at_gc_wait_ms;

	W.gc_count = hs_jvmdump_collections();
	W.at_gc = AT_GC_ARMED;
	if ((*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_GARBAGE_COLLECTION_FINISH, NULL) !=
	    JVMTI_ERROR_NONE) {
		W.at_gc = AT_GC_OFF;
		return 0;
	}
	for (;;) {
		int st = __atomic_load_n(&W.at_gc, __ATOMIC_ACQUIRE);
		double left = until - shim_now_ms();
		struct timespec ts;

		if (st == AT_GC_DONE)
			break;
		if (st == AT_GC_ARMED && left <= 0) {
			if (__sync_bool_compare_and_swap(&W.at_gc, AT_GC_ARMED, AT_GC_OFF))
				break; /* no GC came: the caller forks by the heap walk */
			continue;
		}
		if (left < 1 || st == AT_GC_FORKING)
			left = 1;
		ts.tv_sec = (time_t)(left / 1000);
		ts.tv_nsec = (long)((left - ts.tv_sec * 1000.0) * 1e6);
		syscall(SYS_futex, &W.at_gc, FUTEX_WAIT_PRIVATE, st, &ts, NULL, 0);
	}
	(*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_GARBAGE_COLLECTION_FINISH, NULL);
	return W.at_gc == AT_GC_DONE;
}

/* ---- the parent's side ---- */

static JNIEnv *attach_thread(void)
{
	JNIEnv *env = NULL;

	if ((*jvm)->GetEnv(jvm, (void **)&env, JNI_VERSION_1_6) == JNI_OK)
		return env;
	if ((*jvm)->AttachCurrentThreadAsDaemon(jvm, (void **)&env, NULL) != JNI_OK)
		return NULL;
	return env;
}

static int hs_dump(const struct shim_dump_req *req, struct shim_dump_result *res)
{
	JNIEnv *jni;
	jvmtiHeapCallbacks cb;
	jvmtiError e;
	double t0;

	jvm_syms_resolve();
	if (J.use_zgc && *J.use_zgc) {
		snprintf(res->error, sizeof(res->error),
			 "the fork-dump is not safe with ZGC (it crashed the app in testing): use the JVM's dumper (oomscope dump --method jvm)");
		return -1;
	}
	jni = attach_thread();
	if (!jni) {
		snprintf(res->error, sizeof(res->error), "cannot attach the control thread to the JVM");
		return -1;
	}
	memset(&W, 0, sizeof(W));
	W.req_copy = *req;
	W.req = &W.req_copy;
	{
		static int told;
		char why[200];

		/* walk=jvmti in the request: the JVMTI walk even where HotSpot's
		 * dumper can run (the tests compare the two) */
		W.hotspot_writer = !req->jvmti_walk && hs_jvmdump_ready(why, sizeof(why)) == 0;
		if (!W.hotspot_writer && !req->jvmti_walk && !told++)
			shim_log("fork-dumps walk with JVMTI (slower): HotSpot's dumper cannot run in the child: %s", why);
	}
	/* HotSpot's dumper reads the classes and the threads' stacks itself,
	 * in the child; the JVMTI walk wants them from before the fork */
	if (!W.hotspot_writer && hs_layout_gather(jvmti, jni, &W.lay, res->error, sizeof(res->error))) {
		hs_layout_release(jvmti, jni, &W.lay);
		return -1;
	}
	/* the threads stay suspended from their stack traces to the fork, so the
	 * locals the walk reports sit in the frames the traces name */
	if (!W.hotspot_writer && hs_threads_gather(jvmti, jni, &W.th, &W.lay.next_tag, (jlong)W.lay.nclasses,
						   res->error, sizeof(res->error))) {
		hs_threads_release(jvmti, jni, &W.th);
		hs_layout_release(jvmti, jni, &W.lay);
		return -1;
	}
	/* HotSpot's dumper in the copy on G1, asked for (not at the throw,
	 * where the heap is full and no GC is to come): at the end of the
	 * next GC pause, if one comes soon (an app that allocates); an idle
	 * app is forked at once, by the heap walk below */
	if (W.hotspot_writer && gc_events && hs_jvmdump_is_g1() && !req->at_oom && fork_at_next_gc()) {
		res->pause_ms = W.gc_fork_ms;
		res->child = W.child;
		if (W.child)
			hs_jvmdump_own_survivors();
		if (!W.child)
			snprintf(res->error, sizeof(res->error), "%s", W.error[0] ? W.error : "fork failed");
		return res->child ? 0 : -1;
	}
	memset(&cb, 0, sizeof(cb));
	cb.heap_reference_callback = on_reference; /* its first call forks */
	if (!W.hotspot_writer) {
		cb.primitive_field_callback = on_primitive_field;
		cb.array_primitive_value_callback = on_array_values;
	}
	t0 = W.hotspot_writer ? shim_now_ms() : W.th.suspended_at_ms;
	e = (*jvmti)->FollowReferences(jvmti, 0, NULL, NULL, &cb, NULL);
	hs_threads_resume(jvmti, &W.th);
	res->pause_ms = shim_now_ms() - t0;
	if (W.child && W.hotspot_writer)
		hs_jvmdump_own_survivors();
	if (!W.child) {
		if (!W.error[0])
			snprintf(W.error, sizeof(W.error), "FollowReferences: JVMTI error %d, no callback", (int)e);
		snprintf(res->error, sizeof(res->error), "%s", W.error);
	}
	res->child = W.child;
	hs_threads_release(jvmti, jni, &W.th);
	hs_layout_release(jvmti, jni, &W.lay);
	return res->child ? 0 : -1;
}

static int hs_heap(int64_t *used, int64_t *committed, int64_t *max)
{
	return shim_jni_heap(jvm, used, committed, max);
}

/* The hook on OutOfMemoryError's constructors (hs_oom.h): a JVM that
 * cannot take it still has everything else. */
static void install_oomhook(JNIEnv *jni)
{
	char why[160];

	if (jni && shim_hs_oomhook_install(jvmti, jni, why, sizeof(why)))
		shim_log("OutOfMemoryErrors built in Java code are not seen: %s", why);
}

static void JNICALL on_vm_init(jvmtiEnv *env, JNIEnv *jni, jthread thread)
{
	(void)env;
	(void)thread;
	install_oomhook(jni);
	hs_tstart_vm_init(jvmti);
	hs_perfmap_start(jvmti);
	if (shim_control_start(jvm))
		shim_log("not serving: %s", shim_init_error);
}

static int hs_init(void *vm, int live)
{
	jvmtiCapabilities caps;
	jvmtiEventCallbacks ev;
	int tstart, perfmap;

	fault_parse(shim_getenv("OOMSCOPE_SHIM_FAULT"));
	jvm = vm;
	if ((*jvm)->GetEnv(jvm, (void **)&jvmti, JVMTI_VERSION_1_2) != JNI_OK)
		return -1;
	memset(&caps, 0, sizeof(caps));
	caps.can_tag_objects = 1;
	if ((*jvmti)->AddCapabilities(jvmti, &caps) != JVMTI_ERROR_NONE)
		return -1;
	/* the OutOfMemoryError's kind and thread, and the last-chance dump: a
	 * JVM that cannot give these still gets the rest */
	memset(&caps, 0, sizeof(caps));
	caps.can_generate_resource_exhaustion_heap_events = 1;
	caps.can_generate_resource_exhaustion_threads_events = 1;
	caps.can_get_line_numbers = 1;
	caps.can_get_source_file_name = 1;
	(*jvmti)->AddCapabilities(jvmti, &caps);
	/* a fork-dump at the end of a GC pause */
	memset(&caps, 0, sizeof(caps));
	caps.can_generate_garbage_collection_events = 1;
	gc_events = (*jvmti)->AddCapabilities(jvmti, &caps) == JVMTI_ERROR_NONE;
	/* the threads suspended while their traces are read for a dump */
	memset(&caps, 0, sizeof(caps));
	caps.can_suspend = 1;
	(*jvmti)->AddCapabilities(jvmti, &caps);
	/* OutOfMemoryError's constructors retransformed once (hs_oom.h) */
	memset(&caps, 0, sizeof(caps));
	caps.can_retransform_classes = 1;
	(*jvmti)->AddCapabilities(jvmti, &caps);
	/* at launch: who started each thread, for a collector that connects later (hs_tstart.h) */
	tstart = !live && hs_tstart_onload(jvmti) == 0;
	memset(&ev, 0, sizeof(ev));
	if (tstart) {
		ev.NativeMethodBind = hs_tstart_bind;
		ev.ThreadStart = hs_tstart_thread_start; /* enabled at VMInit */
		ev.ThreadEnd = hs_tstart_thread_end;
	}
	ev.ResourceExhausted = shim_hs_on_exhausted;
	ev.GarbageCollectionFinish = on_gc_finish; /* enabled only while a fork waits for a GC */
	ev.ClassPrepare = hs_jstack_class_prepare; /* enabled once Java stacks are asked for */
	ev.ClassLoad = hs_jstack_class_load;
	ev.ClassFileLoadHook = shim_hs_oomhook_cflh; /* enabled only while the hook is put in */
	if (!live)
		ev.VMInit = on_vm_init; /* at launch: the socket opens once the VM is up */
	/* the JIT's code named in a perf map (a JVM that refuses has none) */
	perfmap = hs_perfmap_onload(jvmti, &ev) == 0;
	if ((*jvmti)->SetEventCallbacks(jvmti, &ev, sizeof(ev)) != JVMTI_ERROR_NONE)
		return -1;
	if (live && perfmap)
		hs_perfmap_start(jvmti);
	(*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_RESOURCE_EXHAUSTED, NULL);
	if (tstart)
		hs_tstart_enable_bind(jvmti);
	if (live) {
		install_oomhook(attach_thread());
		return shim_control_start(jvm) ? -1 : 0;
	}
	if ((*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_INIT, NULL) != JVMTI_ERROR_NONE)
		return -1;
	return 0;
}

static int hs_javastacks(int conn, int no_stacks, char *why, size_t why_len)
{
	JNIEnv *jni = attach_thread();

	if (!jni) {
		snprintf(why, why_len, "cannot attach the control thread to the JVM");
		return -1;
	}
	return hs_jstack_arm(jvm, jvmti, jni, conn, no_stacks, why, why_len);
}

const struct shim_runtime_ops shim_hotspot_ops = {"hotspot", hs_init, hs_heap, hs_dump, hs_javastacks};
