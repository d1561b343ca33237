/* The hprof heap dump format: tags, basic types, big-endian readers.
 * See docs/commands.md ("oomscope hprof") for what reads and writes it. No BPF, no /proc: this
 * library can be fuzzed and reused on its own. */
#ifndef OOMSCOPE_HPROF_H
#define OOMSCOPE_HPROF_H

#include <stddef.h>
#include <stdint.h>

enum hprof_tag {
	HPROF_STRING = 0x01,
	HPROF_LOAD_CLASS = 0x02,
	HPROF_UNLOAD_CLASS = 0x03,
	HPROF_STACK_FRAME = 0x04,
	HPROF_STACK_TRACE = 0x05,
	HPROF_ALLOC_SITES = 0x06,
	HPROF_HEAP_SUMMARY = 0x07,
	HPROF_START_THREAD = 0x0A,
	HPROF_END_THREAD = 0x0B,
	HPROF_HEAP_DUMP = 0x0C,
	HPROF_CPU_SAMPLES = 0x0D,
	HPROF_CONTROL_SETTINGS = 0x0E,
	HPROF_HEAP_DUMP_SEGMENT = 0x1C,
	HPROF_HEAP_DUMP_END = 0x2C,
};

enum hprof_subtag {
	HPROF_ROOT_UNKNOWN = 0xFF,
	HPROF_ROOT_JNI_GLOBAL = 0x01,
	HPROF_ROOT_JNI_LOCAL = 0x02,
	HPROF_ROOT_JAVA_FRAME = 0x03,
	HPROF_ROOT_NATIVE_STACK = 0x04,
	HPROF_ROOT_STICKY_CLASS = 0x05,
	HPROF_ROOT_THREAD_BLOCK = 0x06,
	HPROF_ROOT_MONITOR_USED = 0x07,
	HPROF_ROOT_THREAD_OBJECT = 0x08,
	HPROF_CLASS_DUMP = 0x20,
	HPROF_INSTANCE_DUMP = 0x21,
	HPROF_OBJ_ARRAY_DUMP = 0x22,
	HPROF_PRIM_ARRAY_DUMP = 0x23,
	/* Android (1.0.3) */
	HPROF_ROOT_INTERNED_STRING = 0x89,
	HPROF_ROOT_FINALIZING = 0x8A,
	HPROF_ROOT_DEBUGGER = 0x8B,
	HPROF_ROOT_REFERENCE_CLEANUP = 0x8C,
	HPROF_ROOT_VM_INTERNAL = 0x8D,
	HPROF_ROOT_JNI_MONITOR = 0x8E,
	HPROF_UNREACHABLE = 0x90,
	HPROF_PRIM_ARRAY_NODATA = 0xC3,
	HPROF_HEAP_DUMP_INFO = 0xFE,
};

enum hprof_type {
	HPROF_T_OBJECT = 2,
	HPROF_T_BOOLEAN = 4,
	HPROF_T_CHAR = 5,
	HPROF_T_FLOAT = 6,
	HPROF_T_DOUBLE = 7,
	HPROF_T_BYTE = 8,
	HPROF_T_SHORT = 9,
	HPROF_T_INT = 10,
	HPROF_T_LONG = 11,
};

/* Android heap ids (HEAP_DUMP_INFO) */
#define HPROF_HEAP_DEFAULT 0
#define HPROF_HEAP_APP 'A'
#define HPROF_HEAP_IMAGE 'I'
#define HPROF_HEAP_ZYGOTE 'Z'

/* Size of a value of type t, or 0 for an unknown type. */
/* A heap dump sub-record that is an object (a class, an instance, an
 * array), as opposed to a root. */
static inline int hprof_sub_is_object(unsigned tag)
{
	return tag == HPROF_CLASS_DUMP || tag == HPROF_INSTANCE_DUMP || tag == HPROF_OBJ_ARRAY_DUMP ||
	       tag == HPROF_PRIM_ARRAY_DUMP || tag == HPROF_PRIM_ARRAY_NODATA;
}

static inline unsigned hprof_type_size(unsigned t, unsigned id_size)
{
	static const unsigned char sz[12] = {0, 0, 0, 0, 1, 2, 4, 8, 1, 2, 4, 8};

	if (t == HPROF_T_OBJECT)
		return id_size;
	return t < 12 ? sz[t] : 0;
}

static inline uint32_t hprof_u2(const uint8_t *p) { return (uint32_t)p[0] << 8 | p[1]; }
static inline uint32_t hprof_u4(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static inline uint64_t hprof_u8(const uint8_t *p) { return (uint64_t)hprof_u4(p) << 32 | hprof_u4(p + 4); }
static inline uint64_t hprof_id(const uint8_t *p, unsigned id_size)
{
	return id_size == 4 ? hprof_u4(p) : hprof_u8(p);
}
static inline void hprof_put_u4(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24; p[1] = v >> 16; p[2] = v >> 8; p[3] = v;
}

const char *hprof_tag_name(unsigned tag);
const char *hprof_subtag_name(unsigned tag);

/* Which heap dump the records belong to. A file may hold several (the
 * hprof agent writes two, the second with its arrays emptied); the
 * analyzer reads the first, as VisualVM does; check counts it apart. */
struct hprof_heap_count {
	unsigned dumps;  /* heap dumps begun */
	int open;        /* inside a run of HEAP_DUMP_SEGMENTs */
};

/* Called at each record's start: 1 when its sub-records are in a later
 * heap dump than the first (to be skipped). */
static inline int hprof_heap_later(struct hprof_heap_count *h, uint8_t tag)
{
	if (tag == HPROF_HEAP_DUMP_END) {
		h->open = 0;
	} else if (tag == HPROF_HEAP_DUMP) {
		h->dumps++;
		h->open = 0;
	} else if (tag == HPROF_HEAP_DUMP_SEGMENT && !h->open) {
		h->dumps++;
		h->open = 1;
	}
	return h->dumps > 1;
}

#endif
