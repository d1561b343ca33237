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

static const Elf64_Shdr *sections(const uint8_t *elf, size_t len, unsigned *n)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)elf;

	if (len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shoff == 0 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > len)
		return NULL;
	*n = eh->e_shnum;
	return (const Elf64_Shdr *)(elf + eh->e_shoff);
}

static const char *section_name(const uint8_t *elf, size_t len, const Elf64_Shdr *sh, unsigned n, unsigned i)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)elf;
	const Elf64_Shdr *strs;

	if (eh->e_shstrndx >= n)
		return "";
	strs = &sh[eh->e_shstrndx];
	if (strs->sh_offset + sh[i].sh_name >= len)
		return "";
	return (const char *)elf + strs->sh_offset + sh[i].sh_name;
}

/* Looks name up in the symbol table of type (SHT_DYNSYM / SHT_SYMTAB). */
static uint64_t lookup(const uint8_t *elf, size_t len, uint32_t type, const char *name)
{
	unsigned n = 0;
	const Elf64_Shdr *sh = sections(elf, len, &n);

	for (unsigned i = 0; sh && i < n; i++) {
		const Elf64_Shdr *st = &sh[i], *strs;
		const Elf64_Sym *sym;
		size_t count;

		if (st->sh_type != type || st->sh_link >= n || st->sh_entsize != sizeof(Elf64_Sym) ||
		    st->sh_offset + st->sh_size > len)
			continue;
		strs = &sh[st->sh_link];
		if (strs->sh_offset + strs->sh_size > len)
			continue;
		sym = (const Elf64_Sym *)(elf + st->sh_offset);
		count = st->sh_size / sizeof(*sym);
		for (size_t k = 0; k < count; k++) {
			if (!sym[k].st_name || sym[k].st_name >= strs->sh_size || sym[k].st_shndx == SHN_UNDEF)
				continue;
			if (!strcmp((const char *)elf + strs->sh_offset + sym[k].st_name, name))
				return sym[k].st_value;
		}
	}
	return 0;
}

/* .gnu_debugdata, decompressed (xz). */
static void load_mini(struct elfsym_lib *l)
{
	unsigned n = 0;
	const Elf64_Shdr *sh = sections(l->map, l->map_len, &n);

	for (unsigned i = 0; sh && i < n; i++) {
		uint64_t limit = UINT64_MAX;
		size_t in_pos = 0, out_pos = 0, cap;
		uint8_t *out;

		if (strcmp(section_name(l->map, l->map_len, sh, n, i), ".gnu_debugdata") ||
		    sh[i].sh_offset + sh[i].sh_size > l->map_len)
			continue;
		cap = sh[i].sh_size * 8 + 4096;
		for (;;) {
			lzma_ret r;

			out = malloc(cap);
			if (!out)
				return;
			in_pos = out_pos = 0;
			r = lzma_stream_buffer_decode(&limit, 0, NULL, l->map + sh[i].sh_offset, &in_pos, sh[i].sh_size,
						      out, &out_pos, cap);
			if (r == LZMA_OK) {
				l->mini = out;
				l->mini_len = out_pos;
				return;
			}
			free(out);
			if (r != LZMA_BUF_ERROR || cap > ((size_t)1 << 30))
				return;
			cap *= 4;
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
