/* Constructors that call a hook: see classfile.h. The class file format is
 * the JVM specification's, chapter 4. */
#include "shim/classfile.h"

#include <string.h>

#define MAX_INSERTS 64

struct rd {
	const uint8_t *p;
	size_t n, at;
	int bad;
};

struct wr {
	uint8_t *p;
	size_t cap, at;
	int bad;
};

static uint32_t get(struct rd *r, int bytes)
{
	uint32_t v = 0;

	if (r->bad || r->n - r->at < (size_t)bytes) {
		r->bad = 1;
		return 0;
	}
	for (int i = 0; i < bytes; i++)
		v = v << 8 | r->p[r->at++];
	return v;
}

static const uint8_t *take(struct rd *r, size_t len)
{
	const uint8_t *s = r->p + r->at;

	if (r->bad || r->n - r->at < len) {
		r->bad = 1;
		return NULL;
	}
	r->at += len;
	return s;
}

static void put(struct wr *w, uint32_t v, int bytes)
{
	if (w->bad || w->cap - w->at < (size_t)bytes) {
		w->bad = 1;
		return;
	}
	for (int i = bytes - 1; i >= 0; i--)
		w->p[w->at++] = (uint8_t)(v >> (8 * i));
}

static void put_bytes(struct wr *w, const void *s, size_t len)
{
	if (w->bad || w->cap - w->at < len) {
		w->bad = 1;
		return;
	}
	memcpy(w->p + w->at, s, len);
	w->at += len;
}

static void put_utf8(struct wr *w, const char *s)
{
	put(w, 1, 1);
	put(w, (uint32_t)strlen(s), 2);
	put_bytes(w, s, strlen(s));
}

/* The constant pool's Utf8 entries, by index: offsets into the file */
struct pool {
	uint32_t count;
	uint32_t utf8_at[65536]; /* 0: not a Utf8 */
};

static int utf8_is(const struct rd *r, const struct pool *cp, uint32_t i, const char *s)
{
	size_t k = strlen(s);
	uint32_t at;

	if (!i || i >= cp->count || !(at = cp->utf8_at[i]))
		return 0;
	return ((uint32_t)r->p[at] << 8 | r->p[at + 1]) == k && !memcmp(r->p + at + 2, s, k);
}

static int read_pool(struct rd *r, struct pool *cp)
{
	cp->count = get(r, 2);
	for (uint32_t i = 1; i < cp->count && !r->bad; i++) {
		uint32_t tag = get(r, 1);

		cp->utf8_at[i] = 0;
		switch (tag) {
		case 1:
			cp->utf8_at[i] = (uint32_t)r->at;
			take(r, get(r, 2));
			break;
		case 3: case 4: case 9: case 10: case 11: case 12: case 17: case 18:
			take(r, 4);
			break;
		case 5: case 6: /* 8 bytes, two slots */
			take(r, 8);
			if (++i < cp->count)
				cp->utf8_at[i] = 0;
			break;
		case 7: case 8: case 16: case 19: case 20:
			take(r, 2);
			break;
		case 15:
			take(r, 3);
			break;
		default:
			return -1;
		}
	}
	return r->bad ? -1 : 0;
}

/* The length of the instruction at pc, or -1 for one that moves control
 * (a branch, a switch, jsr/ret) or is unknown. */
static int insn_len(const uint8_t *code, uint32_t pc, uint32_t len)
{
	uint8_t op = code[pc];

	if (op <= 0x0f || (op >= 0x1a && op <= 0x35) || (op >= 0x3b && op <= 0x83) || (op >= 0x85 && op <= 0x98) ||
	    (op >= 0xac && op <= 0xb1) || op == 0xbe || op == 0xbf || op == 0xc2 || op == 0xc3)
		return 1;
	if (op == 0x10 || op == 0x12 || (op >= 0x15 && op <= 0x19) || (op >= 0x36 && op <= 0x3a) || op == 0xbc)
		return 2;
	if (op == 0x11 || op == 0x13 || op == 0x14 || op == 0x84 || (op >= 0xb2 && op <= 0xb8) || op == 0xbb ||
	    op == 0xbd || op == 0xc0 || op == 0xc1)
		return 3;
	if (op == 0xc5)
		return 4;
	if (op == 0xb9 || op == 0xba)
		return 5;
	if (op == 0xc4 && pc + 1 < len) /* wide */
		return code[pc + 1] == 0x84 ? 6 : 4;
	return -1;
}

/* Offset p of the old code in the new: each hook inserted before it moves it */
static uint32_t moved(uint32_t p, const uint32_t *ins, int nins)
{
	uint32_t d = 0;

	for (int i = 0; i < nins; i++)
		d += ins[i] < p ? 4 : 0;
	return p + d;
}

/* One method's Code attribute (r at its max_stack), rewritten into w when
 * it is straight-line; else copied. Returns 1 when hooked, 0 copied, -1 bad. */
static int code_attr(struct rd *r, const struct pool *cp, uint32_t name_idx, uint32_t attr_len, uint32_t hook,
		     struct wr *w)
{
	const uint8_t *attr = take(r, attr_len);
	struct rd c = {attr, attr_len, 0, 0};
	uint32_t max_stack, max_locals, code_len, ins[MAX_INSERTS], nattrs;
	const uint8_t *code;
	int nins = 0, ok = 1;

	if (!attr)
		return -1;
	max_stack = get(&c, 2);
	max_locals = get(&c, 2);
	code_len = get(&c, 4);
	code = take(&c, code_len);
	if (!code)
		return -1;
	for (uint32_t pc = 0; pc < code_len && ok;) {
		int l = insn_len(code, pc, code_len);

		if (l < 0 || pc + (uint32_t)l > code_len) {
			ok = 0;
			break;
		}
		if (code[pc] == 0xb1) {
			if (nins == MAX_INSERTS)
				ok = 0;
			else
				ins[nins++] = pc;
		}
		pc += (uint32_t)l;
	}
	if (get(&c, 2) != 0) /* an exception handler: its offsets would move */
		ok = 0;
	nattrs = get(&c, 2);
	{
		struct rd scan = c;

		for (uint32_t i = 0; i < nattrs && ok && !scan.bad; i++) {
			uint32_t an = get(&scan, 2), al = get(&scan, 4);

			if (!utf8_is(r, cp, an, "LineNumberTable") && !utf8_is(r, cp, an, "LocalVariableTable") &&
			    !utf8_is(r, cp, an, "LocalVariableTypeTable"))
				ok = 0; /* StackMapTable, type annotations: offsets not followed */
			take(&scan, al);
		}
		if (scan.bad)
			return -1;
	}
	put(w, name_idx, 2);
	if (!ok || !nins) {
		put(w, attr_len, 4);
		put_bytes(w, attr, attr_len);
		return w->bad ? -1 : 0;
	}
	put(w, attr_len + 4u * (uint32_t)nins, 4);
	put(w, max_stack ? max_stack : 1, 2);
	put(w, max_locals, 2);
	put(w, code_len + 4u * (uint32_t)nins, 4);
	for (uint32_t pc = 0, k = 0; pc < code_len; pc++) {
		if (k < (uint32_t)nins && ins[k] == pc) {
			uint8_t hookcall[4] = {0x2a, 0xb8, (uint8_t)(hook >> 8), (uint8_t)hook}; /* aload_0; invokestatic */

			put_bytes(w, hookcall, 4);
			k++;
		}
		put(w, code[pc], 1);
	}
	put(w, 0, 2); /* no exception table */
	put(w, nattrs, 2);
	for (uint32_t i = 0; i < nattrs; i++) {
		uint32_t an = get(&c, 2), al = get(&c, 4), n;
		int lnt = utf8_is(r, cp, an, "LineNumberTable");

		put(w, an, 2);
		put(w, al, 4);
		n = get(&c, 2);
		put(w, n, 2);
		for (uint32_t e = 0; e < n; e++) {
			uint32_t pc = get(&c, 2);

			if (lnt) {
				put(w, moved(pc, ins, nins), 2);
				put(w, get(&c, 2), 2);
			} else { /* start, length, name, descriptor or signature, slot */
				uint32_t len = get(&c, 2), from = moved(pc, ins, nins);

				put(w, from, 2);
				put(w, moved(pc + len, ins, nins) - from, 2);
				put(w, get(&c, 2), 2);
				put(w, get(&c, 2), 2);
				put(w, get(&c, 2), 2);
			}
		}
	}
	return c.bad || w->bad ? -1 : 1;
}

/* A field's or method's attributes, copied (r at attributes_count). */
static void copy_attrs(struct rd *r, struct wr *w)
{
	uint32_t n = get(r, 2);

	put(w, n, 2);
	for (uint32_t i = 0; i < n && !r->bad; i++) {
		uint32_t an = get(r, 2), al = get(r, 4);
		const uint8_t *a = take(r, al);

		put(w, an, 2);
		put(w, al, 4);
		if (a)
			put_bytes(w, a, al);
	}
}

long shim_classfile_hook_ctors(const uint8_t *in, size_t n, const char *hook_class, const char *hook_name,
			       const char *hook_desc, uint8_t *out, size_t cap, int *hooked)
{
	static struct pool cp; /* 256 KiB: not on a thread's stack */
	struct rd r = {in, n, 0, 0};
	struct wr w = {out, cap, 0, 0};
	size_t pool_from, pool_to;
	uint32_t hook, count;

	*hooked = 0;
	if (get(&r, 4) != 0xCAFEBABE)
		return -1;
	put(&w, 0xCAFEBABE, 4);
	put(&w, get(&r, 4), 4); /* minor, major */
	pool_from = r.at + 2;
	if (read_pool(&r, &cp) || cp.count + 6 > 65535)
		return -1;
	pool_to = r.at;
	count = cp.count;
	/* the old pool, then the hook's entries: Utf8 class, Class, Utf8 name,
	 * Utf8 descriptor, NameAndType, Methodref */
	put(&w, count + 6, 2);
	put_bytes(&w, in + pool_from, pool_to - pool_from);
	put_utf8(&w, hook_class);
	put(&w, 7, 1);
	put(&w, count, 2);
	put_utf8(&w, hook_name);
	put_utf8(&w, hook_desc);
	put(&w, 12, 1);
	put(&w, count + 2, 2);
	put(&w, count + 3, 2);
	put(&w, 10, 1);
	put(&w, count + 1, 2);
	put(&w, count + 4, 2);
	hook = count + 5;
	/* access, this, super; the interfaces */
	put(&w, get(&r, 2), 2);
	put(&w, get(&r, 2), 2);
	put(&w, get(&r, 2), 2);
	{
		uint32_t ni = get(&r, 2);
		const uint8_t *ifs = take(&r, 2 * (size_t)ni);

		put(&w, ni, 2);
		if (ifs)
			put_bytes(&w, ifs, 2 * (size_t)ni);
	}
	/* fields, as they are */
	{
		uint32_t nf = get(&r, 2);

		put(&w, nf, 2);
		for (uint32_t i = 0; i < nf && !r.bad; i++) {
			put(&w, get(&r, 2), 2);
			put(&w, get(&r, 2), 2);
			put(&w, get(&r, 2), 2);
			copy_attrs(&r, &w);
		}
	}
	/* methods: the constructors' Code rewritten */
	{
		uint32_t nm = get(&r, 2);

		put(&w, nm, 2);
		for (uint32_t i = 0; i < nm && !r.bad; i++) {
			uint32_t acc = get(&r, 2), name = get(&r, 2), desc = get(&r, 2), na = get(&r, 2);
			int ctor = utf8_is(&r, &cp, name, "<init>");

			put(&w, acc, 2);
			put(&w, name, 2);
			put(&w, desc, 2);
			put(&w, na, 2);
			for (uint32_t a = 0; a < na && !r.bad; a++) {
				uint32_t an = get(&r, 2), al = get(&r, 4);

				if (ctor && utf8_is(&r, &cp, an, "Code")) {
					int e = code_attr(&r, &cp, an, al, hook, &w);

					if (e < 0)
						return -1;
					*hooked += e;
				} else {
					const uint8_t *body = take(&r, al);

					put(&w, an, 2);
					put(&w, al, 4);
					if (body)
						put_bytes(&w, body, al);
				}
			}
		}
	}
	/* the class's attributes */
	copy_attrs(&r, &w);
	if (r.bad || w.bad || r.at != n)
		return -1;
	return (long)w.at;
}

long shim_classfile_hook_class(const char *name, const char *method, const char *desc, uint8_t *out, size_t cap)
{
	struct wr w = {out, cap, 0, 0};

	put(&w, 0xCAFEBABE, 4);
	put(&w, 0, 2);
	put(&w, 52, 2); /* Java 8: no StackMapTable needed, readable by any JVM since */
	put(&w, 7, 2);
	put_utf8(&w, name);            /* 1 */
	put(&w, 7, 1);                 /* 2: Class #1 */
	put(&w, 1, 2);
	put_utf8(&w, "java/lang/Object"); /* 3 */
	put(&w, 7, 1);                 /* 4: Class #3 */
	put(&w, 3, 2);
	put_utf8(&w, method);          /* 5 */
	put_utf8(&w, desc);            /* 6 */
	put(&w, 0x0031, 2);            /* public final super */
	put(&w, 2, 2);
	put(&w, 4, 2);
	put(&w, 0, 2);                 /* interfaces */
	put(&w, 0, 2);                 /* fields */
	put(&w, 1, 2);                 /* methods: */
	put(&w, 0x0109, 2);            /* public static native */
	put(&w, 5, 2);
	put(&w, 6, 2);
	put(&w, 0, 2);
	put(&w, 0, 2);                 /* class attributes */
	return w.bad ? -1 : (long)w.at;
}
