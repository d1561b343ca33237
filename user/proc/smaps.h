/* A process's memory by the categories of Android's `dumpsys meminfo` App
 * Summary (Java heap, native heap, code, stack, graphics, other), read
 * from /proc/PID/smaps: each mapping's name tells its category
 * (memory-facts.md §4, after android_os_Debug.cpp). Reading smaps walks the
 * page tables under the target's mmap lock: a crossing's and the end's
 * reading, never a sample's. */
#ifndef OOMSCOPE_PROC_SMAPS_H
#define OOMSCOPE_PROC_SMAPS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PROC_SMAPS_TOP 12

enum proc_mem_cat {
	MEMCAT_JAVA_HEAP,   /* ART's spaces ([anon:dalvik-main space]...), .art images */
	MEMCAT_NATIVE_HEAP, /* [heap], bionic's and scudo's ([anon:libc_malloc], [anon:scudo:*]) */
	MEMCAT_ANON,        /* other anonymous memory: glibc's arenas and large blocks, a JVM's heap */
	MEMCAT_CODE,        /* .so, .oat, .dex, .jar, .apk, JIT caches, executable file mappings */
	MEMCAT_STACK,       /* [stack], [anon:stack_and_tls:*] */
	MEMCAT_GRAPHICS,    /* GPU and DMA-BUF mappings (/dev/kgsl-3d0, /dev/mali*, /dmabuf...) */
	MEMCAT_SHARED,      /* shared memory: memfd, ashmem, SysV, /dev/shm */
	MEMCAT_FILE,        /* other file mappings (data) */
	MEMCAT_OTHER,       /* the rest ([anon:dalvik-*] other than the heap, [vvar]...) */
	MEMCAT_MAX,
};

/* kB */
struct proc_mem_fig {
	int64_t rss, pss, private_dirty, anon, swap;
};

struct proc_mem_map {
	uint64_t start, end;
	char perms[5];
	char name[160];
	enum proc_mem_cat cat;
	struct proc_mem_fig fig;
};

struct proc_smaps {
	struct proc_mem_fig cat[MEMCAT_MAX];
	struct proc_mem_fig total;
	size_t nmaps;
	struct proc_mem_map top[PROC_SMAPS_TOP];
	size_t ntop;                 /* the mappings with the most RSS + swap, largest first */
};

/* The category's name in files and reports ("native_heap") and in words ("native heap"). */
const char *proc_mem_cat_key(enum proc_mem_cat c);
const char *proc_mem_cat_words(enum proc_mem_cat c);
/* The category a mapping's name and perms put it in. */
enum proc_mem_cat proc_mem_cat_of(const char *name, const char *perms);
/* Reads /proc/PID/smaps, keeping the ntop largest mappings (at most
 * PROC_SMAPS_TOP). 0 or -errno. */
int proc_read_smaps(pid_t pid, size_t ntop, struct proc_smaps *out);

#endif
