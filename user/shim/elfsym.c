#define _GNU_SOURCE
#include "shim/elfsym.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct find_ctx {
	const char *prefix;
	struct elfsym_lib *l;
	int found;
};

static int find_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct find_ctx *f = data;
	const char *base = strrchr(info->dlpi_name, '/');

	(void)size;
	base = base ? base + 1 : info->dlpi_name;
	if (f->found || strncmp(base, f->prefix, strlen(f->prefix)))
		return 0;
	snprintf(f->l->path, sizeof(f->l->path), "%s", info->dlpi_name);
	f->l->base = (uintptr_t)info->dlpi_addr;
	f->found = 1;
	return 1;
}

static int map_file(struct elfsym_lib *l)
{
	struct stat st;
	int fd = open(l->path, O_RDONLY | O_CLOEXEC);
	void *m;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0 || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
		close(fd);
		return -EINVAL;
	}
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return -errno;
	l->map = m;
	l->map_len = (size_t)st.st_size;
	return 0;
}

/* Every offset and size below comes from the file: bounds are checked
 * without overflow, and headers are copied out (the file's offsets need not
 * be aligned). */
#define MAX_MINI (256u << 20) /* decompressed .gnu_debugdata cap (an xz bomb) */

static int in_file(size_t len, uint64_t off, uint64_t size)
{
	return off <= len && size <= len - off;
}

/* Section i's header (i < the count sections() gave). */
static void shdr(const uint8_t *elf, const Elf64_Ehdr *eh, unsigned i, Elf64_Shdr *sh)
{
	memcpy(sh, elf + eh->e_shoff + (uint64_t)i * sizeof(*sh), sizeof(*sh));
}

/* The ELF header, and its section count; 0 when there is no section table. */
static unsigned sections(const uint8_t *elf, size_t len, Elf64_Ehdr *eh)
{
	if (len < sizeof(*eh))
		return 0;
	memcpy(eh, elf, sizeof(*eh));
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shoff == 0 ||
	    eh->e_shentsize != sizeof(Elf64_Shdr) || !in_file(len, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)))
		return 0;
	return eh->e_shnum;
}

/* The string at off in the string table strs, NUL-terminated within it; NULL if not. */
static const char *string_at(const uint8_t *elf, size_t len, const Elf64_Shdr *strs, uint64_t off)
{
	const char *s;

	if (!in_file(len, strs->sh_offset, strs->sh_size) || off >= strs->sh_size)
		return NULL;
	s = (const char *)elf + strs->sh_offset + off;
	return memchr(s, 0, strs->sh_size - off) ? s : NULL;
}

static const char *section_name(const uint8_t *elf, size_t len, const Elf64_Ehdr *eh, unsigned n,
				const Elf64_Shdr *sh)
{
	Elf64_Shdr strs;
	const char *name;

	if (eh->e_shstrndx >= n)
		return "";
	shdr(elf, eh, eh->e_shstrndx, &strs);
	name = string_at(elf, len, &strs, sh->sh_name);
	return name ? name : "";
}

/* Looks name up in the symbol table of type (SHT_DYNSYM / SHT_SYMTAB). */
static uint64_t lookup(const uint8_t *elf, size_t len, uint32_t type, const char *name)
{
	Elf64_Ehdr eh;
	unsigned n = sections(elf, len, &eh);

	for (unsigned i = 0; i < n; i++) {
		Elf64_Shdr st, strs;
		size_t count;

		shdr(elf, &eh, i, &st);
		if (st.sh_type != type || st.sh_link >= n || st.sh_entsize != sizeof(Elf64_Sym) ||
		    !in_file(len, st.sh_offset, st.sh_size))
			continue;
		shdr(elf, &eh, st.sh_link, &strs);
		if (!in_file(len, strs.sh_offset, strs.sh_size))
			continue;
		count = st.sh_size / sizeof(Elf64_Sym);
		for (size_t k = 0; k < count; k++) {
			Elf64_Sym sym;
			const char *sname;

			memcpy(&sym, elf + st.sh_offset + k * sizeof(sym), sizeof(sym));
			if (!sym.st_name || sym.st_shndx == SHN_UNDEF ||
			    !(sname = string_at(elf, len, &strs, sym.st_name)))
				continue;
			if (!strcmp(sname, name))
				return sym.st_value;
		}
	}
	return 0;
}

/* .gnu_debugdata, decompressed (xz). */
static void load_mini(struct elfsym_lib *l)
{
	Elf64_Ehdr eh;
	unsigned n = sections(l->map, l->map_len, &eh);

	for (unsigned i = 0; i < n; i++) {
		uint64_t limit = UINT64_MAX;
		size_t in_pos = 0, out_pos = 0, cap;
		uint8_t *out;
		Elf64_Shdr sh;

		shdr(l->map, &eh, i, &sh);
		if (strcmp(section_name(l->map, l->map_len, &eh, n, &sh), ".gnu_debugdata") ||
		    !in_file(l->map_len, sh.sh_offset, sh.sh_size))
			continue;
		cap = sh.sh_size < (MAX_MINI - 4096) / 8 ? sh.sh_size * 8 + 4096 : MAX_MINI;
		for (;;) {
			lzma_ret r;

			out = malloc(cap);
			if (!out)
				return;
			in_pos = out_pos = 0;
			r = lzma_stream_buffer_decode(&limit, 0, NULL, l->map + sh.sh_offset, &in_pos, sh.sh_size,
						      out, &out_pos, cap);
			if (r == LZMA_OK) {
				l->mini = out;
				l->mini_len = out_pos;
				return;
			}
			free(out);
			if (r != LZMA_BUF_ERROR || cap >= MAX_MINI)
				return;
			cap = cap < MAX_MINI / 4 ? cap * 4 : MAX_MINI;
		}
	}
}

int elfsym_open_file(struct elfsym_lib *l, const char *path)
{
	memset(l, 0, sizeof(*l));
	snprintf(l->path, sizeof(l->path), "%s", path);
	return map_file(l);
}

int elfsym_open_loaded(struct elfsym_lib *l, const char *prefix)
{
	struct find_ctx f = {prefix, l, 0};

	memset(l, 0, sizeof(*l));
	dl_iterate_phdr(find_cb, &f);
	if (!f.found)
		return -ENOENT;
	return map_file(l);
}

void elfsym_close(struct elfsym_lib *l)
{
	if (l->map)
		munmap((void *)l->map, l->map_len);
	free(l->mini);
	memset(l, 0, sizeof(*l));
}

uintptr_t elfsym_find(struct elfsym_lib *l, const char *name, const char **table)
{
	uint64_t v;

	if (!l->map)
		return 0;
	if ((v = lookup(l->map, l->map_len, SHT_DYNSYM, name))) {
		if (table)
			*table = "dynsym";
		return l->base + v;
	}
	if ((v = lookup(l->map, l->map_len, SHT_SYMTAB, name))) {
		if (table)
			*table = "symtab";
		return l->base + v;
	}
	if (!l->mini)
		load_mini(l);
	if (l->mini && (v = lookup(l->mini, l->mini_len, SHT_SYMTAB, name))) {
		if (table)
			*table = "gnu_debugdata";
		return l->base + v;
	}
	return 0;
}
