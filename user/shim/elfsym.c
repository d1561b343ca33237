#define _GNU_SOURCE
#include "shim/elfsym.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Every offset and size below comes from the file: bounds are checked
 * without overflow, and headers are copied out (the file's offsets need not
 * be aligned). 32- and 64-bit headers are read into these. */
struct eh {
	int cls;                  /* 32 or 64 */
	uint64_t shoff, phoff;
	unsigned shnum, shentsize, shstrndx, phnum, phentsize;
};

struct sh {
	uint32_t name, type, link;
	uint64_t offset, size, entsize;
};

static int in_file(size_t len, uint64_t off, uint64_t size)
{
	return off <= len && size <= len - off;
}

static int read_eh(const uint8_t *elf, size_t len, struct eh *e)
{
	memset(e, 0, sizeof(*e));
	if (len < sizeof(Elf32_Ehdr) || memcmp(elf, ELFMAG, SELFMAG))
		return -1;
	if (elf[EI_CLASS] == ELFCLASS64 && len >= sizeof(Elf64_Ehdr)) {
		Elf64_Ehdr h;

		memcpy(&h, elf, sizeof(h));
		*e = (struct eh){64, h.e_shoff, h.e_phoff, h.e_shnum, h.e_shentsize, h.e_shstrndx, h.e_phnum, h.e_phentsize};
		return e->shentsize == sizeof(Elf64_Shdr) || !e->shnum ? 0 : -1;
	}
	if (elf[EI_CLASS] == ELFCLASS32) {
		Elf32_Ehdr h;

		memcpy(&h, elf, sizeof(h));
		*e = (struct eh){32, h.e_shoff, h.e_phoff, h.e_shnum, h.e_shentsize, h.e_shstrndx, h.e_phnum, h.e_phentsize};
		return e->shentsize == sizeof(Elf32_Shdr) || !e->shnum ? 0 : -1;
	}
	return -1;
}

/* The section count (0 when there is no usable section table). */
static unsigned sections(const uint8_t *elf, size_t len, struct eh *e)
{
	if (read_eh(elf, len, e) || !e->shoff || !in_file(len, e->shoff, (uint64_t)e->shnum * e->shentsize))
		return 0;
	return e->shnum;
}

static void read_sh(const uint8_t *elf, const struct eh *e, unsigned i, struct sh *s)
{
	const uint8_t *p = elf + e->shoff + (uint64_t)i * e->shentsize;

	if (e->cls == 64) {
		Elf64_Shdr h;

		memcpy(&h, p, sizeof(h));
		*s = (struct sh){h.sh_name, h.sh_type, h.sh_link, h.sh_offset, h.sh_size, h.sh_entsize};
	} else {
		Elf32_Shdr h;

		memcpy(&h, p, sizeof(h));
		*s = (struct sh){h.sh_name, h.sh_type, h.sh_link, h.sh_offset, h.sh_size, h.sh_entsize};
	}
}

/* The string at off in the string table strs, NUL-terminated within it; NULL if not. */
static const char *string_at(const uint8_t *elf, size_t len, const struct sh *strs, uint64_t off)
{
	const char *s;

	if (!in_file(len, strs->offset, strs->size) || off >= strs->size)
		return NULL;
	s = (const char *)elf + strs->offset + off;
	return memchr(s, 0, strs->size - off) ? s : NULL;
}

/* Looks name up in the symbol table of type (SHT_DYNSYM / SHT_SYMTAB). */
static uint64_t lookup(const uint8_t *elf, size_t len, uint32_t type, const char *name)
{
	struct eh e;
	unsigned n = sections(elf, len, &e);
	size_t symsize = e.cls == 64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);

	for (unsigned i = 0; i < n; i++) {
		struct sh st, strs;
		size_t count;

		read_sh(elf, &e, i, &st);
		if (st.type != type || st.link >= n || st.entsize != symsize || !in_file(len, st.offset, st.size))
			continue;
		read_sh(elf, &e, st.link, &strs);
		if (!in_file(len, strs.offset, strs.size))
			continue;
		count = st.size / symsize;
		for (size_t k = 0; k < count; k++) {
			const uint8_t *p = elf + st.offset + k * symsize;
			uint32_t sname_off;
			uint64_t value;
			uint16_t shndx;
			const char *sname;

			if (e.cls == 64) {
				Elf64_Sym s;

				memcpy(&s, p, sizeof(s));
				sname_off = s.st_name, value = s.st_value, shndx = s.st_shndx;
			} else {
				Elf32_Sym s;

				memcpy(&s, p, sizeof(s));
				sname_off = s.st_name, value = s.st_value, shndx = s.st_shndx;
			}
			if (!sname_off || shndx == SHN_UNDEF || !(sname = string_at(elf, len, &strs, sname_off)))
				continue;
			if (!strcmp(sname, name))
				return value;
		}
	}
	return 0;
}

/* The page-aligned virtual address of the segment at file offset 0 (its
 * first PT_LOAD), which the maps show at base + that address. */
static uint64_t first_load_vaddr(const uint8_t *elf, size_t len)
{
	struct eh e;

	if (read_eh(elf, len, &e) || !in_file(len, e.phoff, (uint64_t)e.phnum * e.phentsize))
		return 0;
	for (unsigned i = 0; i < e.phnum; i++) {
		const uint8_t *p = elf + e.phoff + (uint64_t)i * e.phentsize;
		uint64_t type, off, vaddr;

		if (e.cls == 64 && e.phentsize >= sizeof(Elf64_Phdr)) {
			Elf64_Phdr h;

			memcpy(&h, p, sizeof(h));
			type = h.p_type, off = h.p_offset, vaddr = h.p_vaddr;
		} else if (e.cls == 32 && e.phentsize >= sizeof(Elf32_Phdr)) {
			Elf32_Phdr h;

			memcpy(&h, p, sizeof(h));
			type = h.p_type, off = h.p_offset, vaddr = h.p_vaddr;
		} else {
			return 0;
		}
		if (type == PT_LOAD)
			return (vaddr - off) & ~(uint64_t)0xfff;
	}
	return 0;
}

static int map_file(struct elfsym_lib *l)
{
	struct stat st;
	int fd = open(l->path, O_RDONLY | O_CLOEXEC);
	void *m;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0 || st.st_size < (off_t)sizeof(Elf32_Ehdr)) {
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

int elfsym_open_file(struct elfsym_lib *l, const char *path)
{
	memset(l, 0, sizeof(*l));
	snprintf(l->path, sizeof(l->path), "%s", path);
	return map_file(l);
}

/* In /proc/self/maps, the mapping at file offset 0 of the first file whose
 * name starts with prefix: its start and path. 0, or -ENOENT. */
static int find_mapped(const char *prefix, uintptr_t *start, char *path, size_t path_len)
{
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC), e = -ENOENT;
	static char buf[8192];
	size_t have = 0;

	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n = read(fd, buf + have, sizeof(buf) - 1 - have);
		char *line = buf, *nl;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
		buf[have] = 0;
		while ((nl = strchr(line, '\n'))) {
			/* "start-end perms offset dev inode   path" */
			char *p = line, *end, *file;
			unsigned long long lo, off;

			*nl = 0;
			lo = strtoull(p, &end, 16);
			p = strchr(end, ' ');
			p = p ? strchr(p + 1, ' ') : NULL;
			off = p ? strtoull(p + 1, NULL, 16) : 1;
			file = strchr(line, '/');
			if (off == 0 && file) {
				const char *b = strrchr(file, '/') + 1;

				if (!strncmp(b, prefix, strlen(prefix)) && strlen(file) < path_len) {
					*start = (uintptr_t)lo;
					snprintf(path, path_len, "%s", file);
					e = 0;
					break;
				}
			}
			line = nl + 1;
		}
		if (!e)
			break;
		have -= (size_t)(line - buf);
		memmove(buf, line, have);
		if (have == sizeof(buf) - 1) /* a line longer than the buffer: skipped */
			have = 0;
	}
	close(fd);
	return e;
}

int elfsym_open_loaded(struct elfsym_lib *l, const char *prefix)
{
	uintptr_t start = 0;
	int e;

	memset(l, 0, sizeof(*l));
	if ((e = find_mapped(prefix, &start, l->path, sizeof(l->path))))
		return e;
	if ((e = map_file(l)))
		return e;
	l->base = start - (uintptr_t)first_load_vaddr(l->map, l->map_len);
	return 0;
}

void elfsym_close(struct elfsym_lib *l)
{
	if (l->map)
		munmap((void *)l->map, l->map_len);
	memset(l, 0, sizeof(*l));
}

int elfsym_class(const struct elfsym_lib *l)
{
	struct eh e;

	return l->map && read_eh(l->map, l->map_len, &e) == 0 ? e.cls : 0;
}

uintptr_t elfsym_find(struct elfsym_lib *l, const char *name, const char **table)
{
	uint64_t v;

	if (!l->map)
		return 0;
	if ((v = lookup(l->map, l->map_len, SHT_DYNSYM, name))) {
		if (table)
			*table = "dynsym";
		return l->base + (uintptr_t)v;
	}
	if ((v = lookup(l->map, l->map_len, SHT_SYMTAB, name))) {
		if (table)
			*table = "symtab";
		return l->base + (uintptr_t)v;
	}
	return 0;
}
