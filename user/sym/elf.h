/* What the symbolizer reads from an ELF file (symbols, .gnu_debugdata, load
 * segments, build id), shared by symbolize.c (a live process's modules) and
 * elf.c (the reading, and the offline look-ups). Private to sym/. */
#ifndef OOMSCOPE_SYM_ELF_H
#define OOMSCOPE_SYM_ELF_H

#include <errno.h>
#include <fcntl.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <inttypes.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sym/symbolize.h"
#include "proc/maps.h"
#include "util/vec.h"

#define MAX_DEBUGDATA (256u << 20) /* decompressed .gnu_debugdata cap (xz bomb) */
#define MAX_POOL UINT32_MAX         /* symbol name pool is indexed by uint32_t */
#define DELETED " (deleted)"

struct sym {
	uint64_t addr, size;
	uint32_t name;  /* offset in the module's name pool */
	uint8_t rank;   /* binding preference: higher wins at equal address */
};

struct load {           /* one PT_LOAD: file range -> vaddr */
	uint64_t off, vaddr, filesz;
};

/* What is read from an ELF file: shared by modules and ooms_sym_elf_lookup. */
struct elfinfo {
	struct sym *syms;
	size_t nsyms, cap;
	char *pool;
	size_t pool_len, pool_cap;
	struct load *loads;
	size_t nloads;
	/* a separate debug file's code segments (objcopy --only-keep-debug,
	 * Debian's .debug files): no bytes in the file, their offsets lost;
	 * filesz holds the size in memory */
	struct load *nobits_text;
	size_t nnobits_text;
	char *build_id;
	int objects;    /* data symbols too (ooms_sym_elf_values), not only functions */
};

void symelf_elfinfo_free(struct elfinfo *e);
int symelf_elf_read(int fd, struct elfinfo *e, int all_names);
const struct sym *symelf_sym_find(const struct elfinfo *e, uint64_t vaddr);
int symelf_off_to_vaddr(const struct elfinfo *e, uint64_t off, uint64_t *vaddr);
/* The same in a separate debug file, whose program headers lost the
 * original's offsets: code is taken to sit at its file offset (a code
 * segment's offset equals its address in the usual layout of executables
 * and libraries). 0, or -ENOENT when off is in no code segment. */
int symelf_debug_off_to_vaddr(const struct elfinfo *e, uint64_t off, uint64_t *vaddr);
int symelf_open_regular(const char *path, uint64_t *ino);

#endif
