/* /proc/PID/smaps by category (smaps.h). */
#define _GNU_SOURCE
#include "proc/smaps.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const cat_keys[MEMCAT_MAX] = {
	"java_heap", "native_heap", "anonymous", "code", "stack", "graphics", "shared", "file", "other",
};
static const char *const cat_words[MEMCAT_MAX] = {
	"Java heap", "native heap", "other anonymous", "code", "stacks", "graphics", "shared memory", "mapped files",
	"other",
};

const char *proc_mem_cat_key(enum proc_mem_cat c)
{
	return (unsigned)c < MEMCAT_MAX ? cat_keys[c] : "other";
}

const char *proc_mem_cat_words(enum proc_mem_cat c)
{
	return (unsigned)c < MEMCAT_MAX ? cat_words[c] : "other";
}

static int starts(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

static int ends(const char *s, const char *e)
{
	size_t n = strlen(s), m = strlen(e);

	return n >= m && !strcmp(s + n - m, e);
}

enum proc_mem_cat proc_mem_cat_of(const char *name, const char *perms)
{
	static const char *const java_spaces[] = {
		"[anon:dalvik-main space", "[anon:dalvik-alloc space", "[anon:dalvik-large object space",
		"[anon:dalvik-free list large object space", "[anon:dalvik-non moving space", "[anon:dalvik-zygote space",
	};
	static const char *const code_ext[] = {".so", ".jar", ".apk", ".ttf", ".dex", ".odex", ".oat", ".vdex"};

	if (!name[0])
		return MEMCAT_ANON;
	for (size_t i = 0; i < sizeof(java_spaces) / sizeof(*java_spaces); i++)
		if (starts(name, java_spaces[i]))
			return MEMCAT_JAVA_HEAP;
	if (ends(name, ".art") || strstr(name, ".art]"))
		return MEMCAT_JAVA_HEAP;
	if (!strcmp(name, "[heap]") || starts(name, "[anon:libc_malloc") || starts(name, "[anon:scudo:") ||
	    starts(name, "[anon:GWP-ASan"))
		return MEMCAT_NATIVE_HEAP;
	if (starts(name, "[stack") || starts(name, "[anon:stack_and_tls:") || starts(name, "[anon:thread stack"))
		return MEMCAT_STACK;
	if (starts(name, "/dev/kgsl") || starts(name, "/dev/mali") || starts(name, "/dev/dri/") ||
	    starts(name, "/dmabuf") || starts(name, "anon_inode:dmabuf") || starts(name, "/dev/nvidia"))
		return MEMCAT_GRAPHICS;
	if (starts(name, "/memfd:jit-cache") || starts(name, "[anon:dalvik-jit-code-cache") ||
	    starts(name, "[anon:dalvik-data-code-cache"))
		return MEMCAT_CODE;
	if (starts(name, "/memfd:") || starts(name, "/dev/ashmem") || starts(name, "/SYSV") || starts(name, "/dev/shm/"))
		return MEMCAT_SHARED;
	if (name[0] == '[') /* [anon:...] of other kinds, [vdso], [vvar] */
		return starts(name, "[anon:") && !starts(name, "[anon:dalvik-") ? MEMCAT_ANON : MEMCAT_OTHER;
	for (size_t i = 0; i < sizeof(code_ext) / sizeof(*code_ext); i++)
		if (ends(name, code_ext[i]) || strstr(name, ".so."))
			return MEMCAT_CODE;
	if (perms[2] == 'x')
		return MEMCAT_CODE;
	return MEMCAT_FILE;
}

static void add(struct proc_mem_fig *to, const struct proc_mem_fig *f)
{
	to->rss += f->rss;
	to->pss += f->pss;
	to->private_dirty += f->private_dirty;
	to->anon += f->anon;
	to->swap += f->swap;
}

/* Keeps m among the ntop largest (by RSS + swap), largest first. */
static void keep_top(struct proc_smaps *s, size_t ntop, const struct proc_mem_map *m)
{
	int64_t w = m->fig.rss + m->fig.swap;
	size_t i = s->ntop;

	if (!ntop || (s->ntop == ntop && w <= s->top[ntop - 1].fig.rss + s->top[ntop - 1].fig.swap))
		return;
	if (s->ntop < ntop)
		s->ntop++;
	for (i = s->ntop - 1; i > 0 && s->top[i - 1].fig.rss + s->top[i - 1].fig.swap < w; i--)
		s->top[i] = s->top[i - 1];
	s->top[i] = *m;
}

static void end_map(struct proc_smaps *s, size_t ntop, struct proc_mem_map *m)
{
	if (!m->end)
		return;
	m->cat = proc_mem_cat_of(m->name, m->perms);
	add(&s->cat[m->cat], &m->fig);
	add(&s->total, &m->fig);
	s->nmaps++;
	keep_top(s, ntop, m);
	m->end = 0;
}

int proc_read_smaps(pid_t pid, size_t ntop, struct proc_smaps *out)
{
	char path[64], line[4096];
	struct proc_mem_map m = {0};
	FILE *f;

	memset(out, 0, sizeof(*out));
	if (ntop > PROC_SMAPS_TOP)
		ntop = PROC_SMAPS_TOP;
	snprintf(path, sizeof(path), "/proc/%d/smaps", (int)pid);
	if (!(f = fopen(path, "re")))
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a, b;
		long long v;
		int off = 0;
		char key[32];

		if (sscanf(line, "%llx-%llx %4s %*s %*s %*s %n", &a, &b, m.perms, &off) >= 3 && off > 0) {
			end_map(out, ntop, &m);
			m.start = a;
			m.end = b;
			m.fig = (struct proc_mem_fig){0};
			snprintf(m.name, sizeof(m.name), "%.*s", (int)strcspn(line + off, "\n"), line + off);
			continue;
		}
		if (sscanf(line, "%31[^:]: %lld kB", key, &v) != 2)
			continue;
		if (!strcmp(key, "Rss"))
			m.fig.rss = v;
		else if (!strcmp(key, "Pss"))
			m.fig.pss = v;
		else if (!strcmp(key, "Private_Dirty"))
			m.fig.private_dirty = v;
		else if (!strcmp(key, "Anonymous"))
			m.fig.anon = v;
		else if (!strcmp(key, "Swap"))
			m.fig.swap = v;
	}
	end_map(out, ntop, &m);
	fclose(f);
	return out->nmaps ? 0 : -ESRCH;
}
