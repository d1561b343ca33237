#define _GNU_SOURCE
#include "runtime/hsperf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/hs_attach.h"

#define PROLOGUE 32
#define ENTRY_HEADER 20

static uint32_t u32(const uint8_t *p, int little)
{
	return little ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24
		      : (uint32_t)p[3] | (uint32_t)p[2] << 8 | (uint32_t)p[1] << 16 | (uint32_t)p[0] << 24;
}

static int64_t i64(const uint8_t *p, int little)
{
	uint64_t lo = u32(p + (little ? 0 : 4), little), hi = u32(p + (little ? 4 : 0), little);

	return (int64_t)(hi << 32 | lo);
}

int hsperf_parse(const void *buf, size_t len, hsperf_visit_fn fn, void *ctx)
{
	const uint8_t *b = buf;
	uint32_t off, n;
	int little;

	if (len < PROLOGUE || b[0] != 0xca || b[1] != 0xfe || b[2] != 0xc0 || b[3] != 0xc0)
		return -EINVAL;
	little = b[4] == 1;
	if (b[5] != 2) /* major version */
		return -EINVAL;
	if (!b[7])     /* accessible: set once the JVM has initialized the file */
		return -EAGAIN;
	off = u32(b + 24, little);
	n = u32(b + 28, little);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t elen, name_off, vlen, data_off;
		const char *name, *str = NULL;
		char type;
		int64_t value = 0;

		if ((size_t)off + ENTRY_HEADER > len)
			return -EINVAL;
		elen = u32(b + off, little);
		name_off = u32(b + off + 4, little);
		vlen = u32(b + off + 8, little);
		type = (char)b[off + 12];
		data_off = u32(b + off + 16, little);
		if (elen < ENTRY_HEADER || (size_t)off + elen > len || name_off >= elen || data_off > elen)
			return -EINVAL;
		name = (const char *)b + off + name_off;
		if (!memchr(name, 0, elen - name_off))
			return -EINVAL;
		if (vlen == 0 && type == 'J') {
			if (elen - data_off < 8) /* data_off <= elen: neither side wraps */
				return -EINVAL;
			value = i64(b + off + data_off, little);
		} else if (type == 'B' && vlen > 0 && vlen <= elen - data_off && /* not data_off + vlen: it wraps */
			   memchr(b + off + data_off, 0, vlen)) {
			str = (const char *)b + off + data_off;
		}
		if (fn(ctx, name, type, value, str))
			break;
		off += elen;
	}
	return 0;
}

/* Counter names: sun.gc.generation.<g>.space.<s>.used, .capacity,
 * sun.gc.generation.<g>.capacity / .maxCapacity, sun.gc.collector.<c>.invocations / .time */
struct heap_acc {
	struct hsperf_heap *h;
	int64_t gen_max_largest; /* G1 gives every generation the whole heap as its max */
	int g1;
};

/* a += v, held at the int64 bounds: a damaged file's counters may be anything */
static void add(int64_t *a, int64_t v)
{
	if (__builtin_add_overflow(*a, v, a))
		*a = v < 0 ? INT64_MIN : INT64_MAX;
}

/* The last value of a size flag (-XX:Name=48m) in a command line, in
 * bytes, or -1. */
static int64_t flag_size(const char *args, const char *flag)
{
	int64_t v = -1;
	size_t k = strlen(flag);

	for (const char *p = strstr(args, flag); p; p = strstr(p + k, flag)) {
		char *end;
		unsigned long long n;

		if (p != args && p[-1] != ' ')
			continue;
		n = strtoull(p + k, &end, 10);
		if (end == p + k)
			continue;
		switch (*end | 0x20) {
		case 't': n <<= 10; /* fall through */
		case 'g': n <<= 10; /* fall through */
		case 'm': n <<= 10; /* fall through */
		case 'k': n <<= 10; end++; break;
		default: break;
		}
		if (*end && *end != ' ')
			continue;
		v = n > INT64_MAX ? -1 : (int64_t)n;
	}
	return v;
}

static int heap_visit(void *ctx, const char *name, char type, int64_t v, const char *str)
{
	struct heap_acc *a = ctx;
	struct hsperf_heap *h = a->h;
	int g, s, c, pos = 0;

	if (!strcmp(name, "sun.gc.policy.name") && str)
		a->g1 = !strcmp(str, "GarbageFirst");
	if (!strcmp(name, "java.rt.vmArgs") && str)
	{
		h->meta_limit = flag_size(str, "-XX:MaxMetaspaceSize=");
		h->direct_limit = flag_size(str, "-XX:MaxDirectMemorySize=");
	}
	if (type != 'J')
		return 0;
	if (!strcmp(name, "sun.gc.metaspace.used"))
		h->meta_used = v;
	else if (!strcmp(name, "sun.gc.metaspace.maxCapacity"))
		h->meta_max = v;
	else if (!strcmp(name, "sun.gc.metaspace.capacity"))
		h->meta_committed = v;
	else if (!strcmp(name, "sun.gc.compressedclassspace.capacity"))
		h->class_committed = v;
	else if (!strcmp(name, "sun.gc.compressedclassspace.used"))
		h->class_used = v;
	else if (!strcmp(name, "sun.gc.compressedclassspace.maxCapacity"))
		h->class_max = v;
	if (sscanf(name, "sun.gc.generation.%d.space.%d.used%n", &g, &s, &pos) == 2 && !name[pos])
		add(&h->used, v);
	else if (sscanf(name, "sun.gc.generation.%d.capacity%n", &g, &pos) == 1 && !name[pos])
		add(&h->committed, v);
	else if (sscanf(name, "sun.gc.generation.%d.maxCapacity%n", &g, &pos) == 1 && !name[pos]) {
		add(&h->max, v);
		if (v > a->gen_max_largest)
			a->gen_max_largest = v;
	}
	else if (sscanf(name, "sun.gc.collector.%d.invocations%n", &c, &pos) == 1 && !name[pos]) {
		add(&h->gc_count, v);
		if (c == 1)
			h->full_gc_count = v;
	} else if (sscanf(name, "sun.gc.collector.%d.time%n", &c, &pos) == 1 && !name[pos])
		add(&h->gc_time_ms, v); /* ticks; converted below */
	return 0;
}

struct ticks {
	int64_t frequency;
};

static int ticks_visit(void *ctx, const char *name, char type, int64_t v, const char *str)
{
	(void)str;
	if (type == 'J' && !strcmp(name, "sun.os.hrt.frequency")) {
		((struct ticks *)ctx)->frequency = v;
		return 1;
	}
	return 0;
}

struct collector_match {
	const char *prefix;
	int found;
};

static int match_collector(void *ctx, const char *name, char type, int64_t value, const char *str)
{
	struct collector_match *m = ctx;
	int idx, end = 0;

	(void)type;
	(void)value;
	if (str && sscanf(name, "sun.gc.collector.%d.name%n", &idx, &end) == 1 && !name[end] &&
	    !strncmp(str, m->prefix, strlen(m->prefix)))
		m->found = 1;
	return m->found;
}

int hsperf_collector_is(const void *buf, size_t len, const char *prefix)
{
	struct collector_match m = {prefix, 0};
	int e = hsperf_parse(buf, len, match_collector, &m);

	return e ? e : m.found;
}

int hsperf_heap_from(const void *buf, size_t len, struct hsperf_heap *h)
{
	struct ticks t = {0};
	struct heap_acc a = {h, 0, 0};
	int e;

	memset(h, 0, sizeof(*h));
	h->meta_used = h->meta_max = h->class_used = h->class_max = h->meta_limit = -1;
	h->meta_committed = h->class_committed = h->direct_limit = -1;
	e = hsperf_parse(buf, len, heap_visit, &a);
	if (e)
		return e;
	if (a.g1) /* young and old may each grow to the whole heap */
		h->max = a.gen_max_largest;
	if (hsperf_parse(buf, len, ticks_visit, &t) == 0 && t.frequency > 0) {
		__int128 ms = (__int128)h->gc_time_ms * 1000 / t.frequency; /* ticks * 1000 may not fit */

		h->gc_time_ms = ms > INT64_MAX ? INT64_MAX : ms < INT64_MIN ? INT64_MIN : (int64_t)ms;
	}
	if (h->max <= 0 && h->used <= 0)
		return -ENODATA; /* counters off (-XX:-UsePerfData) or another collector's names */
	return 0;
}

ssize_t hsperf_read(pid_t pid, void *buf, size_t len)
{
	char dir[96], path[512];
	pid_t ns = hs_ns_pid(pid);
	struct dirent *d;
	DIR *dp;
	ssize_t n = -ENOENT;

	/* /tmp/hsperfdata_<user>/<pid>, the user being the JVM's: look in each */
	snprintf(dir, sizeof(dir), "/proc/%d/root/tmp", (int)pid);
	dp = opendir(dir);
	if (!dp)
		return -errno;
	while ((d = readdir(dp)) && n == -ENOENT) {
		int fd;

		if (strncmp(d->d_name, "hsperfdata_", 11))
			continue;
		snprintf(path, sizeof(path), "%s/%s/%d", dir, d->d_name, (int)ns);
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			continue;
		n = pread(fd, buf, len, 0);
		if (n < 0)
			n = -errno;
		close(fd);
	}
	closedir(dp);
	return n;
}
