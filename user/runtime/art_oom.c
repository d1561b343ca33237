/* ART's OutOfMemoryError messages: see art_oom.h. The forms read:
 *   Failed to allocate a N byte allocation with F free bytes and 30MB until
 *     OOM, target footprint T, growth limit G[; failed due to fragmentation
 *     (largest possible contiguous allocation L bytes)| (required contiguous
 *     free R bytes for a new buffer where largest contiguous free L bytes)]
 *     [; giving up on allocation because <1% of heap free after GC.]
 *   pthread_create (1040KB stack) failed: Try again
 *   Could not allocate JNI Env: ... (each thread's JNI Env needs an fd) */
#include "runtime/art_oom.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ART's PrettySize: "30MB", "2047KB", "512B", "1GB" */
static int64_t pretty_size(const char *s)
{
	char *end;
	long long v = strtoll(s, &end, 10);

	if (end == s || v < 0)
		return -1;
	if (!strncmp(end, "GB", 2))
		return v << 30;
	if (!strncmp(end, "MB", 2))
		return v << 20;
	if (!strncmp(end, "KB", 2))
		return v << 10;
	if (*end == 'B')
		return v;
	return -1;
}

/* The number right after the words at, or -1 */
static int64_t number_after(const char *msg, const char *words)
{
	const char *p = strstr(msg, words);
	char *end;
	long long v;

	if (!p)
		return -1;
	v = strtoll(p + strlen(words), &end, 10);
	return end == p + strlen(words) || v < 0 ? -1 : v;
}

void ooms_art_oom_parse(const char *msg, struct ooms_art_oom *o)
{
	const char *p;

	memset(o, 0, sizeof(*o));
	o->bytes = o->free_bytes = o->until_oom = o->largest = -1;
	o->kind = "other";
	if (!msg)
		return;
	if (!strncmp(msg, "pthread_create", 14) || strstr(msg, "Could not allocate JNI Env")) {
		o->kind = "threads";
		return;
	}
	if (strncmp(msg, "Failed to allocate a ", 21))
		return;
	o->kind = "heap";
	o->bytes = number_after(msg, "Failed to allocate a ");
	o->free_bytes = number_after(msg, " byte allocation with ");
	if ((p = strstr(msg, " free bytes and ")))
		o->until_oom = pretty_size(p + strlen(" free bytes and "));
	o->largest = number_after(msg, "largest possible contiguous allocation ");
	if (o->largest < 0)
		o->largest = number_after(msg, "largest contiguous free ");
	o->below_min_free = strstr(msg, "heap free after GC") != NULL;
}

#define MB(x) ((double)(x) / 1048576.0)

size_t ooms_art_oom_explain(const struct ooms_art_oom *o, char *buf, size_t len)
{
	int n = 0;

	if (!len)
		return 0;
	buf[0] = 0;
	if (strcmp(o->kind, "heap") || o->bytes < 0)
		n = !strcmp(o->kind, "threads")
			    ? snprintf(buf, len, "a thread could not be started (its stack, or its JNI Env's fd): "
						 "the thread or fd limit, not the Java heap")
			    : 0;
	else if (o->largest >= 0 && o->free_bytes >= o->bytes)
		n = snprintf(buf, len,
			     "fragmented: %.1f MB free, but at most %.1f MB in one piece, and the allocation needed %.1f MB",
			     MB(o->free_bytes), MB(o->largest), MB(o->bytes));
	else if (o->below_min_free)
		n = snprintf(buf, len, "full: under 1%% of the heap free after a collection (%.1f MB asked)", MB(o->bytes));
	else if (o->free_bytes >= 0)
		n = snprintf(buf, len, "full: %.1f MB free and %.1f MB below the growth limit, the allocation needed %.1f MB",
			     MB(o->free_bytes), o->until_oom >= 0 ? MB(o->until_oom) : 0.0, MB(o->bytes));
	return n > 0 ? ((size_t)n < len ? (size_t)n : len - 1) : 0;
}
