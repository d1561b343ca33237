/* Direct buffers' memory by the code that made it: HotSpot's
 * Unsafe.allocateMemory blocks (EV_DIRECT_ALLOC, EV_DIRECT_FREE) kept by
 * address with their creation's stack and Java stack, grouped at a
 * direct-memory crossing and at the end (direct-N.json, direct.json). */
#define _GNU_SOURCE
#include "collector/attrib/attrib_int.h"
#include "run/direct.h"

static size_t slot_of(const struct ooms_attrib *a, uint64_t addr)
{
	return (size_t)((addr >> 4) * 0x9e3779b97f4a7c15ull) & (a->ndirect_slots - 1);
}

struct direct_block *attrib_direct_find(struct ooms_attrib *a, uint64_t addr)
{
	if (!a->ndirect_slots || !addr)
		return NULL;
	for (size_t i = slot_of(a, addr);; i = (i + 1) & (a->ndirect_slots - 1)) {
		if (a->direct[i].addr == addr)
			return &a->direct[i];
		if (!a->direct[i].addr)
			return NULL;
	}
}

static int direct_grow(struct ooms_attrib *a)
{
	struct direct_block *old = a->direct;
	size_t n = a->ndirect_slots, want = n ? n * 2 : 1024;

	if (want > MAX_DIRECT_BLOCKS * 2)
		return -1;
	if (!(a->direct = calloc(want, sizeof(*a->direct)))) {
		a->direct = old;
		return -1;
	}
	a->ndirect_slots = want;
	for (size_t i = 0; i < n; i++)
		if (old[i].addr) {
			size_t k = slot_of(a, old[i].addr);

			while (a->direct[k].addr)
				k = (k + 1) & (want - 1);
			a->direct[k] = old[i];
		}
	free(old);
	return 0;
}

struct direct_block *attrib_direct_add(struct ooms_attrib *a, uint64_t addr, uint64_t bytes)
{
	struct direct_block *b;
	size_t i;

	if (!addr)
		return NULL;
	attrib_direct_forget(a, addr); /* a block freed before we saw it, its address reused */
	if ((a->ndirect + 1) * 2 > a->ndirect_slots && direct_grow(a)) {
		a->direct_untracked++;
		return NULL;
	}
	for (i = slot_of(a, addr); a->direct[i].addr; i = (i + 1) & (a->ndirect_slots - 1))
		;
	b = &a->direct[i];
	memset(b, 0, sizeof(*b));
	b->addr = addr;
	b->bytes = bytes;
	a->ndirect++;
	a->direct_bytes += bytes;
	a->direct_seen++;
	return b;
}

/* Linear probing's deletion: the entries after the hole that would not be
 * found past it move back into it. */
void attrib_direct_forget(struct ooms_attrib *a, uint64_t addr)
{
	struct direct_block *b = attrib_direct_find(a, addr);
	size_t mask = a->ndirect_slots - 1, hole, i;

	if (!b)
		return;
	a->direct_bytes -= b->bytes;
	a->ndirect--;
	hole = (size_t)(b - a->direct);
	a->direct[hole].addr = 0;
	for (i = (hole + 1) & mask; a->direct[i].addr; i = (i + 1) & mask) {
		size_t home = slot_of(a, a->direct[i].addr);

		/* it stays when its home lies cyclically in (hole, i] */
		if (hole <= i ? (home > hole && home <= i) : (home > hole || home <= i))
			continue;
		a->direct[hole] = a->direct[i];
		a->direct[i].addr = 0;
		hole = i;
	}
}

uint64_t ooms_attrib_direct_live(const struct ooms_attrib *a, uint64_t *blocks, uint64_t *untracked)
{
	if (blocks)
		*blocks = a->ndirect;
	if (untracked)
		*untracked = a->direct_untracked;
	return a->direct_bytes;
}

uint64_t ooms_attrib_direct_seen(const struct ooms_attrib *a)
{
	return a->direct_seen;
}

/* A site: the blocks made by one stack and, when the shim reported it, one
 * Java stack. */
struct site {
	uint32_t stack, jstack;
	uint8_t jstate;
	uint64_t bytes, blocks;
	char creator[OOMS_COMM_LEN];
};

static int site_key_cmp(const void *pa, const void *pb)
{
	const struct site *x = pa, *y = pb;

	if (x->jstate != y->jstate)
		return x->jstate < y->jstate ? -1 : 1;
	if (x->jstate == JS_GOT) /* the Java stack alone: native ones differ as code is compiled */
		return x->jstack == y->jstack ? 0 : x->jstack < y->jstack ? -1 : 1;
	if (x->stack != y->stack)
		return x->stack < y->stack ? -1 : 1;
	return 0;
}

static int site_bytes_cmp(const void *pa, const void *pb)
{
	const struct site *x = pa, *y = pb;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return site_key_cmp(pa, pb);
}

/* The live blocks grouped into sites, largest first: the Java stack decides
 * where there is one (a JVM's interpreted callers all share one native
 * stack), the native stack otherwise. *n sites; NULL with *n 0 for none or
 * no memory. */
static struct site *sites_of(struct ooms_attrib *a, size_t *n)
{
	struct site *s = a->ndirect ? calloc(a->ndirect, sizeof(*s)) : NULL;
	size_t k = 0, m = 0;

	*n = 0;
	if (!s)
		return NULL;
	for (size_t i = 0; i < a->ndirect_slots; i++) {
		const struct direct_block *b = &a->direct[i];

		if (!b->addr)
			continue;
		s[k] = (struct site){b->o.stack, b->o.jstate == JS_GOT ? b->o.jstack : 0, b->o.jstate, b->bytes, 1, {0}};
		memcpy(s[k].creator, b->o.comm, sizeof(s[k].creator));
		k++;
	}
	qsort(s, k, sizeof(*s), site_key_cmp);
	for (size_t i = 0; i < k; i++) {
		if (m && !site_key_cmp(&s[m - 1], &s[i])) {
			s[m - 1].bytes += s[i].bytes;
			s[m - 1].blocks++;
			continue;
		}
		s[m++] = s[i];
	}
	qsort(s, m, sizeof(*s), site_bytes_cmp);
	*n = m;
	return s;
}

static const char *site_name(struct ooms_attrib *a, const struct site *s, char *buf, size_t len)
{
	const char *name = ooms_attrib_java_culprit(a, s->jstate, s->jstack, buf, len);

	return name ? name : ooms_attrib_culprit(a, s->stack, buf, len);
}

#define DIRECT_SITES_WRITTEN 50

int ooms_attrib_write_direct(struct ooms_attrib *a, double t, int64_t limit, const char *path)
{
	size_t n;
	struct site *s = sites_of(a, &n);
	struct atomic_file af;
	struct json j;
	char buf[512];
	int err;

	if (a->ndirect && !s)
		return -ENOMEM;
	if ((err = atomic_open(&af, path))) {
		free(s);
		return err;
	}
	json_init(&j, af.f, 1);
	run_direct_begin(&j, &(struct run_direct_head){
		.pid = a->pid, .t = t, .live_bytes = a->direct_bytes, .blocks = a->ndirect, .limit = limit,
		.untracked = a->direct_untracked, .sites_total = n});
	for (size_t i = 0; i < n && i < DIRECT_SITES_WRITTEN; i++) {
		run_direct_site_begin(&j, &(struct run_direct_site){
			.bytes = s[i].bytes, .blocks = s[i].blocks,
			.created_by = s[i].stack || s[i].jstate == JS_GOT ? site_name(a, &s[i], buf, sizeof(buf)) : NULL,
			.creator_thread = s[i].creator[0] ? s[i].creator : NULL});
		ooms_attrib_write_java(&j, a, s[i].jstate, s[i].jstack);
		ooms_attrib_write_frames(&j, a, s[i].stack);
		run_direct_site_end(&j);
	}
	run_direct_end(&j);
	json_end_line(&j);
	free(s);
	return atomic_commit(&af);
}

static void human(char *buf, size_t len, uint64_t bytes)
{
	if (bytes >= 10 * 1024 * 1024)
		snprintf(buf, len, "%.0f MB", (double)bytes / 1048576);
	else if (bytes >= 1024 * 1024)
		snprintf(buf, len, "%.1f MB", (double)bytes / 1048576);
	else
		snprintf(buf, len, "%.1f KB", (double)bytes / 1024);
}

int ooms_attrib_direct_lines(struct ooms_attrib *a, size_t top, char *buf, size_t len)
{
	size_t n, off = 0;
	struct site *s = sites_of(a, &n);
	char size[32], name[512];
	int lines = 0;

	if (len)
		buf[0] = 0;
	for (size_t i = 0; s && i < n && i < top && off < len; i++) {
		human(size, sizeof(size), s[i].bytes);
		off += (size_t)snprintf(buf + off, len - off, "%s%s in %" PRIu64 " block%s <- %s", off ? "\n" : "", size,
					s[i].blocks, s[i].blocks == 1 ? "" : "s",
					s[i].stack || s[i].jstate == JS_GOT ? site_name(a, &s[i], name, sizeof(name))
									     : "(stack not taken)");
		lines++;
	}
	free(s);
	return lines;
}
