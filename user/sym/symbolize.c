/* Symbolization of user addresses of a live process: see symbolize.h.
 *
 * Mappings come from /proc/PID/maps; each distinct file (path + inode) is a
 * module whose ELF is parsed lazily on the first lookup and kept until
 * ooms_sym_free, so strings handed out stay valid across refreshes. Every
 * input (maps, ELF files, compressed sections) may be hostile: all sizes are
 * checked, and a corrupt ELF only yields no symbols. */
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
	char *build_id;
};

struct module {
	char *path;             /* as in maps, without " (deleted)" */
	uint64_t inode;
	int deleted;
	uint64_t base;
	uint64_t map_start, map_end; /* one current mapping, for map_files */
	int loaded;             /* ELF parse attempted (successful or not) */
	int fd;                 /* file for read_code; -1 if it cannot be opened */
	int open_tried;         /* fd opened (or failed) already */
	struct elfinfo elf;
	int cfi_tried;          /* .eh_frame/.debug_frame looked for */
	Elf *cfi_elf;
	Dwarf_CFI *cfi;         /* call frame information, for exact one-frame unwinds */
};

struct mapping {
	uint64_t start, end, pgoff;
	int exec;
	struct module *mod;     /* NULL for anonymous mappings */
};

struct ooms_symbolizer {
	pid_t pid;
	struct mapping *maps;
	size_t nmaps;
	struct module **mods;
	size_t nmods;
};

/* ---- ELF reading ---- */

static void elfinfo_free(struct elfinfo *e)
{
	free(e->syms);
	free(e->pool);
	free(e->loads);
	free(e->build_id);
	memset(e, 0, sizeof(*e));
}

static int pool_add(struct elfinfo *e, const char *s, uint32_t *off)
{
	size_t n = strlen(s) + 1;

	if (e->pool_len + n > MAX_POOL)
		return -E2BIG;
	if (e->pool_len + n > e->pool_cap) {
		size_t cap = e->pool_cap ? e->pool_cap * 2 : 4096;
		char *p;

		while (cap < e->pool_len + n)
			cap *= 2;
		p = realloc(e->pool, cap);
		if (!p)
			return -ENOMEM;
		e->pool = p;
		e->pool_cap = cap;
	}
	memcpy(e->pool + e->pool_len, s, n);
	*off = (uint32_t)e->pool_len;
	e->pool_len += n;
	return 0;
}

/* Append the function symbols of one SYMTAB/DYNSYM section. */
static int add_symbols(struct elfinfo *e, Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t entsz = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	size_t i, n;

	if (!data || !entsz)
		return 0;
	n = data->d_size / entsz;
	for (i = 1; i < n; i++) {       /* entry 0 is the null symbol */
		GElf_Sym st;
		const char *name;
		int type, bind;
		struct sym *s;

		if (!gelf_getsym(data, (int)i, &st))
			break;
		type = GELF_ST_TYPE(st.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || !st.st_value ||
		    st.st_shndx == SHN_UNDEF)
			continue;
		name = elf_strptr(elf, sh->sh_link, st.st_name);
		if (!name || !*name)
			continue;
		if (e->nsyms == e->cap) {
			size_t cap = e->cap ? e->cap * 2 : 1024;

			s = realloc(e->syms, cap * sizeof(*s));
			if (!s)
				return -ENOMEM;
			e->syms = s;
			e->cap = cap;
		}
		s = &e->syms[e->nsyms];
		if (pool_add(e, name, &s->name) < 0)
			return -ENOMEM;
		bind = GELF_ST_BIND(st.st_info);
		s->addr = st.st_value;
		s->size = st.st_size;
		s->rank = bind == STB_GLOBAL ? 2 : bind == STB_WEAK ? 1 : 0;
		e->nsyms++;
	}
	return 0;
}

static const char *section_name(Elf *elf, size_t shstrndx, const GElf_Shdr *sh)
{
	return shstrndx ? elf_strptr(elf, shstrndx, sh->sh_name) : NULL;
}

/* Decompress a whole .xz stream into a fresh buffer, bounded by MAX_DEBUGDATA. */
static int xz_decode(const uint8_t *in, size_t in_len, uint8_t **out, size_t *out_len)
{
	lzma_stream st = LZMA_STREAM_INIT;
	size_t cap = in_len < MAX_DEBUGDATA / 8 ? in_len * 4 + 4096 : MAX_DEBUGDATA;
	uint8_t *buf = NULL;
	lzma_ret r;
	int err = -EINVAL;

	if (lzma_stream_decoder(&st, MAX_DEBUGDATA, 0) != LZMA_OK)
		return -ENOMEM;
	st.next_in = in;
	st.avail_in = in_len;
	for (;;) {
		uint8_t *nb = realloc(buf, cap);

		if (!nb) {
			err = -ENOMEM;
			break;
		}
		buf = nb;
		st.next_out = buf + st.total_out;
		st.avail_out = cap - st.total_out;
		r = lzma_code(&st, LZMA_FINISH);
		if (r == LZMA_STREAM_END) {
			*out = buf;
			*out_len = st.total_out;
			lzma_end(&st);
			return 0;
		}
		/* only an output buffer that is full is worth growing */
		if ((r != LZMA_OK && r != LZMA_BUF_ERROR) || st.avail_out ||
		    cap >= MAX_DEBUGDATA)
			break;
		cap = cap * 2 < MAX_DEBUGDATA ? cap * 2 : MAX_DEBUGDATA;
	}
	lzma_end(&st);
	free(buf);
	return err;
}

/* MiniDebugInfo: an xz-compressed ELF whose .symtab uses the same vaddrs. */
static int add_debugdata(struct elfinfo *e, Elf_Scn *scn)
{
	Elf_Data *data = elf_rawdata(scn, NULL);
	uint8_t *img;
	size_t len, shstrndx;
	Elf *inner;
	Elf_Scn *s = NULL;
	int err = 0;

	if (!data || !data->d_buf || !data->d_size)
		return 0;
	if (xz_decode(data->d_buf, data->d_size, &img, &len) < 0)
		return 0;       /* a broken section just gives no symbols */
	inner = elf_memory((char *)img, len);
	if (inner && elf_kind(inner) == ELF_K_ELF && elf_getshdrstrndx(inner, &shstrndx) == 0) {
		while (!err && (s = elf_nextscn(inner, s))) {
			GElf_Shdr sh;

			if (gelf_getshdr(s, &sh) && sh.sh_type == SHT_SYMTAB)
				err = add_symbols(e, inner, s, &sh);
		}
	}
	elf_end(inner);
	free(img);
	return err;
}

/* Scan notes in data for NT_GNU_BUILD_ID; sets e->build_id. */
static void find_build_id(struct elfinfo *e, Elf_Data *data)
{
	size_t off = 0, next, name_off, desc_off, i;
	GElf_Nhdr nh;

	if (!data || !data->d_buf)
		return;
	while (!e->build_id && off < data->d_size &&
	       (next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		const uint8_t *d = (const uint8_t *)data->d_buf + desc_off;

		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp((const char *)data->d_buf + name_off, "GNU", 4) == 0 &&
		    nh.n_descsz > 0 && nh.n_descsz <= 64) {
			e->build_id = malloc(nh.n_descsz * 2 + 1);
			if (!e->build_id)
				return;
			for (i = 0; i < nh.n_descsz; i++)
				snprintf(e->build_id + 2 * i, 3, "%02x", d[i]);
		}
		off = next;
	}
}

/* Order by address; at one address the preferred symbol comes first. */
static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (!x->size != !y->size)
		return x->size ? -1 : 1;        /* sized beats unsized */
	if (x->rank != y->rank)
		return x->rank > y->rank ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;     /* source order */
}

static void sort_symbols(struct elfinfo *e)
{
	size_t i, n = 0;

	if (!e->nsyms)
		return;
	qsort(e->syms, e->nsyms, sizeof(*e->syms), sym_cmp);
	for (i = 0; i < e->nsyms; i++)  /* keep one symbol per address */
		if (!n || e->syms[i].addr != e->syms[n - 1].addr)
			e->syms[n++] = e->syms[i];
	e->nsyms = n;
}

/* Read symbols, PT_LOADs and build-id of the ELF open on fd. -EINVAL if fd
 * is no ELF; a malformed ELF parses as far as it safely can. */
static int elf_read(int fd, struct elfinfo *e, int all_names)
{
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t phnum, shstrndx, i;
	int err = 0;

	memset(e, 0, sizeof(*e));
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOSYS;
	/* ELF_C_READ, not MMAP: a file truncated under us must not SIGBUS */
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf)
		return -EINVAL;
	if (elf_kind(elf) != ELF_K_ELF) {
		elf_end(elf);
		return -EINVAL;
	}

	if (elf_getphdrnum(elf, &phnum) == 0 && phnum) {
		e->loads = calloc(phnum, sizeof(*e->loads));
		if (!e->loads)
			err = -ENOMEM;
		for (i = 0; !err && i < phnum; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(elf, (int)i, &ph))
				break;
			if (ph.p_type == PT_LOAD && ph.p_filesz)
				e->loads[e->nloads++] = (struct load){ ph.p_offset, ph.p_vaddr, ph.p_filesz };
			else if (ph.p_type == PT_NOTE && !e->build_id)
				find_build_id(e, elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz,
							    ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR));
		}
	}

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		shstrndx = 0;
	while (!err && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			break;
		if (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM)
			err = add_symbols(e, elf, scn, &sh);
		else if (sh.sh_type == SHT_NOTE && !e->build_id)
			find_build_id(e, elf_getdata(scn, NULL));
		else if (sh.sh_type == SHT_PROGBITS &&
			 (name = section_name(elf, shstrndx, &sh)) &&
			 strcmp(name, ".gnu_debugdata") == 0)
			err = add_debugdata(e, scn);
	}
	elf_end(elf);
	if (err) {
		elfinfo_free(e);
		return err;
	}
	if (!all_names) /* for lookups by address: one name per address */
		sort_symbols(e);
	return 0;
}

/* Symbol containing vaddr, or NULL. */
static const struct sym *sym_find(const struct elfinfo *e, uint64_t vaddr)
{
	size_t lo = 0, hi = e->nsyms;
	const struct sym *s;

	while (lo < hi) {               /* first symbol with addr > vaddr */
		size_t mid = lo + (hi - lo) / 2;

		if (e->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &e->syms[lo - 1];
	if (s->size && vaddr - s->addr >= s->size)
		return NULL;
	return s;
}

/* File offset -> ELF vaddr through the PT_LOAD holding it. */
static int off_to_vaddr(const struct elfinfo *e, uint64_t off, uint64_t *vaddr)
{
	size_t i;

	for (i = 0; i < e->nloads; i++) {
		const struct load *l = &e->loads[i];

		if (off >= l->off && off - l->off < l->filesz) {
			*vaddr = l->vaddr + (off - l->off);
			return 0;
		}
	}
	return -ENOENT;
}

/* ---- modules and maps ---- */

/* Open a regular file read-only; stat first so a device is never opened. */
static int open_regular(const char *path, uint64_t *ino)
{
	struct stat st;
	int fd;

	if (stat(path, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	*ino = st.st_ino;
	return fd;
}

/* The module's file as the target sees it: through its root, or through
 * map_files when the file was deleted or replaced since it was mapped. */
static int module_open(const struct ooms_symbolizer *s, const struct module *m)
{
	char path[4200];
	uint64_t ino = 0, ino2;
	int fd = -ENOENT, fd2;

	if (!m->deleted) {
		snprintf(path, sizeof(path), "/proc/%d/root%s", (int)s->pid, m->path);
		fd = open_regular(path, &ino);
	}
	/* map_files needs privileges the caller may lack: then keep what we have */
	if (fd < 0 || (m->inode && ino != m->inode)) {
		snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64,
			 (int)s->pid, m->map_start, m->map_end);
		fd2 = open_regular(path, &ino2);
		if (fd2 >= 0) {
			if (fd >= 0)
				close(fd);
			fd = fd2;
		}
	}
	return fd;
}

static void module_load(const struct ooms_symbolizer *s, struct module *m)
{
	if (m->loaded)
		return;
	m->loaded = 1;
	if (m->path[0] != '/')  /* [vdso], [heap], [anon:...]: nothing to open */
		return;
	if (!m->open_tried) {
		m->open_tried = 1;
		m->fd = module_open(s, m);
	}
	if (m->fd >= 0)
		elf_read(m->fd, &m->elf, 0);    /* on failure: no symbols */
}

static void module_free(struct module *m)
{
	if (m->cfi)
		dwarf_cfi_end(m->cfi);
	if (m->cfi_elf)
		elf_end(m->cfi_elf);
	if (m->fd >= 0)
		close(m->fd);
	elfinfo_free(&m->elf);
	free(m->path);
	free(m);
}

static struct module *module_get(struct ooms_symbolizer *s, const char *path,
				 uint64_t inode, struct module *hint)
{
	size_t len = strlen(path), dl = strlen(DELETED), i;
	int deleted = len > dl && strcmp(path + len - dl, DELETED) == 0;
	struct module *m, **mods;

	if (deleted)
		len -= dl;
	if (hint && hint->inode == inode && strlen(hint->path) == len &&
	    memcmp(hint->path, path, len) == 0)
		m = hint;
	else
		for (m = NULL, i = 0; i < s->nmods && !m; i++)
			if (s->mods[i]->inode == inode && strlen(s->mods[i]->path) == len &&
			    memcmp(s->mods[i]->path, path, len) == 0)
				m = s->mods[i];
	if (m) {
		m->deleted = deleted;
		return m;
	}
	mods = realloc(s->mods, (s->nmods + 1) * sizeof(*mods));
	if (!mods)
		return NULL;
	s->mods = mods;
	m = calloc(1, sizeof(*m));
	if (!m || !(m->path = strndup(path, len))) {
		free(m);
		return NULL;
	}
	m->inode = inode;
	m->deleted = deleted;
	m->fd = -1;
	s->mods[s->nmods++] = m;
	return m;
}

static int map_cmp(const void *a, const void *b)
{
	const struct mapping *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* The mappings being read, for add_mapping. */
struct reading {
	struct ooms_symbolizer *s;
	struct mapping *maps;
	size_t n, cap;
	struct module *prev;
};

static int add_mapping(void *ctx, const struct proc_map_line *l)
{
	struct reading *r = ctx;
	struct mapping *mp = VEC_PUSH(r->maps, r->n, r->cap);

	if (!mp)
		return -ENOMEM;
	/* [uprobes] is the kernel's return-probe trampoline: an address there
	 * on a stack is a return address the kernel swapped out, never code
	 * the program called from */
	*mp = (struct mapping){l->start, l->end, l->offset, l->perms[2] == 'x' && strcmp(l->path, "[uprobes]"), NULL};
	if (l->path[0]) {
		mp->mod = r->prev = module_get(r->s, l->path, l->inode, r->prev);
		if (!mp->mod)
			return -ENOMEM;
	}
	return 0;
}

int ooms_sym_refresh(struct ooms_symbolizer *s)
{
	struct reading r = {s, NULL, 0, 0, NULL};
	struct mapping *maps;
	size_t n, i;
	int err;

	if (!s)
		return -EINVAL;
	err = proc_maps_each(s->pid, add_mapping, &r);
	maps = r.maps;
	n = r.n;
	if (!err && !n)
		err = -ESRCH; /* a zombie's maps are empty: keep what the living process had */
	if (err) {
		free(maps);
		return err;
	}
	qsort(maps, n, sizeof(*maps), map_cmp);
	for (i = 0; i < s->nmods; i++)
		s->mods[i]->base = UINT64_MAX;
	for (i = 0; i < n; i++) {
		struct module *m = maps[i].mod;

		if (!m)
			continue;
		if (maps[i].start - maps[i].pgoff < m->base) {
			m->base = maps[i].start - maps[i].pgoff;
			m->map_start = maps[i].start;
			m->map_end = maps[i].end;
		}
	}
	/* Open every code file now, while the process lives: its frames are
	 * often resolved after it exited, when /proc/PID/root has gone. */
	for (i = 0; i < n; i++) {
		struct module *m = maps[i].mod;

		if (m && maps[i].exec && !m->open_tried && m->path[0] == '/') {
			m->open_tried = 1;
			m->fd = module_open(s, m);
		}
	}
	free(s->maps);
	s->maps = maps;
	s->nmaps = n;
	return 0;
}

struct ooms_symbolizer *ooms_sym_new(pid_t pid)
{
	struct ooms_symbolizer *s = calloc(1, sizeof(*s));
	int err;

	if (!s)
		return NULL;
	s->pid = pid;
	err = ooms_sym_refresh(s);
	if (err < 0) {
		free(s);
		errno = -err;
		return NULL;
	}
	return s;
}

void ooms_sym_free(struct ooms_symbolizer *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nmods; i++)
		module_free(s->mods[i]);
	free(s->mods);
	free(s->maps);
	free(s);
}

static const struct mapping *find_mapping(const struct ooms_symbolizer *s, uint64_t addr)
{
	size_t lo = 0, hi = s->nmaps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct mapping *m = &s->maps[mid];

		if (addr < m->start)
			hi = mid;
		else if (addr >= m->end)
			lo = mid + 1;
		else
			return m;
	}
	return NULL;
}

int ooms_sym_resolve(struct ooms_symbolizer *s, uint64_t addr, int is_return_addr,
		     struct ooms_frame *f)
{
	uint64_t a = addr - (is_return_addr ? 1 : 0), vaddr;
	const struct mapping *mp;
	const struct sym *sym;
	struct module *m;

	if (!s || !f)
		return -EINVAL;
	memset(f, 0, sizeof(*f));
	f->addr = addr;
	if ((is_return_addr && !addr) || !(mp = find_mapping(s, a)))
		return -ENOENT;
	m = mp->mod;
	if (!m) {               /* anonymous: no module, offset in the mapping */
		f->base = mp->start;
		f->offset = addr - mp->start;
		return 0;
	}
	f->module = m->path;
	f->base = m->base;
	f->offset = addr - m->base;
	module_load(s, m);
	f->build_id = m->elf.build_id;
	if (off_to_vaddr(&m->elf, a - mp->start + mp->pgoff, &vaddr) == 0 &&
	    (sym = sym_find(&m->elf, vaddr))) {
		f->symbol = m->elf.pool + sym->name;
		f->sym_offset = vaddr + (addr - a) - sym->addr;
	}
	return 0;
}

int ooms_sym_read_code(struct ooms_symbolizer *s, uint64_t addr, void *buf, size_t len)
{
	const struct mapping *mp;
	ssize_t n;

	if (!s || (!buf && len))
		return -EINVAL;
	mp = find_mapping(s, addr);
	if (!mp)
		return -ENOENT;
	if (!mp->mod)
		return -ENODATA;        /* anonymous memory: no file to read */
	module_load(s, mp->mod);
	if (mp->mod->fd < 0)
		return -ENODATA;
	if (len > mp->end - addr)       /* stay inside this mapping */
		len = mp->end - addr;
	if (len > INT32_MAX)
		len = INT32_MAX;
	n = pread(mp->mod->fd, buf, len, (off_t)(addr - mp->start + mp->pgoff));
	return n < 0 ? -errno : (int)n;
}

int ooms_sym_is_exec(struct ooms_symbolizer *s, uint64_t addr)
{
	const struct mapping *mp = s ? find_mapping(s, addr) : NULL;

	return mp && mp->exec;
}

int ooms_frame_format(const struct ooms_frame *f, char *buf, size_t len)
{
	const char *base;
	int n;

	if (!f || !buf || !len)
		return -EINVAL;
	if (!f->module) {
		n = snprintf(buf, len, "[unknown] 0x%" PRIx64, f->addr);
	} else {
		base = strrchr(f->module, '/');
		base = base ? base + 1 : f->module;
		n = snprintf(buf, len, "%s 0x%" PRIx64 " 0x%" PRIx64 " + %" PRIu64, base,
			     f->addr, f->base, f->offset);
		if (n >= 0 && (size_t)n < len && f->symbol)
			n += snprintf(buf + n, len - n, " %s+%" PRIu64, f->symbol, f->sym_offset);
	}
	if (n < 0)
		return -EINVAL;
	return (size_t)n < len ? n : -ENOSPC;
}

/* The symbols and load segments of the ELF file at path. 0 or -errno. */
static int elf_read_path(const char *path, struct elfinfo *e, int all_names)
{
	uint64_t ino;
	int fd = open_regular(path, &ino), err;

	if (fd < 0)
		return fd;
	err = elf_read(fd, e, all_names);
	close(fd);
	return err < 0 ? err : 0;
}

int ooms_sym_elf_lookup(const char *path, uint64_t vaddr, char *name, size_t name_len,
			uint64_t *sym_offset)
{
	struct elfinfo e;
	const struct sym *sym;
	int err;

	if (!path || !name || !name_len)
		return -EINVAL;
	if ((err = elf_read_path(path, &e, 0)))
		return err;
	sym = sym_find(&e, vaddr);
	if (sym) {
		snprintf(name, name_len, "%s", e.pool + sym->name);
		if (sym_offset)
			*sym_offset = vaddr - sym->addr;
	}
	elfinfo_free(&e);
	return sym ? 0 : -ENOENT;
}

/* ELF vaddr -> file offset through the PT_LOAD holding it. */
static int vaddr_to_off(const struct elfinfo *e, uint64_t vaddr, uint64_t *off)
{
	for (size_t i = 0; i < e->nloads; i++) {
		const struct load *l = &e->loads[i];

		if (vaddr >= l->vaddr && vaddr - l->vaddr < l->filesz) {
			*off = l->off + (vaddr - l->vaddr);
			return 0;
		}
	}
	return -ENOENT;
}

int ooms_sym_elf_find(const char *path, const char *name, uint64_t *file_offset)
{
	struct elfinfo e;
	uint64_t addr = 0;
	int err, found = 0;

	if (!path || !name || !file_offset)
		return -EINVAL;
	/* every name: weak aliases (calloc) share their address with another (__libc_calloc) */
	if ((err = elf_read_path(path, &e, 1)))
		return err;
	/* Versioned names (pthread_create@GLIBC_2.2.5 and @@GLIBC_2.34) are one
	 * address under one plain name in the table; any match will do. */
	for (size_t i = 0; i < e.nsyms && !found; i++) {
		if (!strcmp(e.pool + e.syms[i].name, name)) {
			addr = e.syms[i].addr;
			found = 1;
		}
	}
	err = found ? vaddr_to_off(&e, addr, file_offset) : -ENOENT;
	elfinfo_free(&e);
	return err;
}

#if defined(__x86_64__)
#define DWARF_SP 7
#elif defined(__aarch64__)
#define DWARF_SP 31
#endif

/* An offset that a CFI location adds to the CFA: [call_frame_cfa] or
 * [call_frame_cfa, plus_uconst/consts N]. */
static int cfa_location_offset(const Dwarf_Op *ops, size_t nops, int64_t *off)
{
	if (nops < 1 || ops[0].atom != DW_OP_call_frame_cfa)
		return -ENOTSUP;
	if (nops == 1) {
		*off = 0;
		return 0;
	}
	if (nops == 2 && (ops[1].atom == DW_OP_plus_uconst || ops[1].atom == DW_OP_consts ||
			  ops[1].atom == DW_OP_constu)) {
		*off = (int64_t)ops[1].number;
		return 0;
	}
	return -ENOTSUP;
}

int ooms_sym_unwind_rule(struct ooms_symbolizer *s, uint64_t pc, int64_t *cfa_from_sp,
			 int64_t *ra_from_cfa)
{
	const struct mapping *mp = s ? find_mapping(s, pc) : NULL;
	struct module *m;
	Dwarf_Frame *frame = NULL;
	Dwarf_Op *ops, ops_mem[3];
	size_t nops;
	uint64_t vaddr;
	int ra_reg, err = -ENOTSUP;

	if (!mp || !mp->mod)
		return -ENOENT;
	m = mp->mod;
	module_load(s, m);
	if (!m->cfi_tried) {
		m->cfi_tried = 1;
		if (m->fd >= 0 && (m->cfi_elf = elf_begin(m->fd, ELF_C_READ_MMAP, NULL)))
			m->cfi = dwarf_getcfi_elf(m->cfi_elf);
	}
	if (!m->cfi || off_to_vaddr(&m->elf, pc - mp->start + mp->pgoff, &vaddr) != 0)
		return -ENOENT;
	if (dwarf_cfi_addrframe(m->cfi, vaddr, &frame) != 0)
		return -ENOENT;
	/* CFA = sp + N */
	if (dwarf_frame_cfa(frame, &ops, &nops) == 0 && nops == 1 &&
	    ((ops[0].atom == DW_OP_bregx && ops[0].number == DWARF_SP) ||
	     ops[0].atom == DW_OP_breg0 + DWARF_SP)) {
		*cfa_from_sp = ops[0].atom == DW_OP_bregx ? (int64_t)ops[0].number2 : (int64_t)ops[0].number;
		/* return address saved at CFA + M */
		ra_reg = dwarf_frame_info(frame, NULL, NULL, NULL);
		if (ra_reg >= 0 && dwarf_frame_register(frame, ra_reg, ops_mem, &ops, &nops) == 0)
			err = cfa_location_offset(ops, nops, ra_from_cfa);
	}
	free(frame);
	return err;
}

/* ---- offline: a saved report's frames, against unstripped files ---- */

int ooms_sym_build_id(const char *path, char *hex, size_t len)
{
	struct elfinfo e;
	int err = elf_read_path(path, &e, 0);

	if (err)
		return err;
	err = e.build_id ? 0 : -ENOENT;
	if (!err)
		snprintf(hex, len, "%s", e.build_id);
	elfinfo_free(&e);
	return err;
}

/* The source line of vaddr from the file's DWARF, if it has any. */
static int dwarf_line_of(const char *path, uint64_t vaddr, char *file, size_t file_len, int *line)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = -ENOENT;
	Dwarf *dbg;
	Dwarf_Die cu;
	Dwarf_Line *l;
	const char *src;

	if (fd < 0)
		return -errno;
	dbg = dwarf_begin(fd, DWARF_C_READ);
	if (dbg && dwarf_addrdie(dbg, vaddr, &cu) && (l = dwarf_getsrc_die(&cu, vaddr)) &&
	    (src = dwarf_linesrc(l, NULL, NULL)) && dwarf_lineno(l, line) == 0) {
		snprintf(file, file_len, "%s", src);
		err = 0;
	}
	if (dbg)
		dwarf_end(dbg);
	close(fd);
	return err;
}

int ooms_sym_offline(const char *path, uint64_t file_offset, int is_ret, struct ooms_offline_frame *out)
{
	struct elfinfo e;
	const struct sym *sym;
	uint64_t vaddr;
	int err = elf_read_path(path, &e, 0);

	memset(out, 0, sizeof(*out));
	if (err)
		return err;
	err = off_to_vaddr(&e, file_offset, &vaddr);
	if (!err) {
		/* a return address points after its call: look the call up */
		uint64_t at = is_ret && vaddr ? vaddr - 1 : vaddr;

		if ((sym = sym_find(&e, at))) {
			snprintf(out->symbol, sizeof(out->symbol), "%s", e.pool + sym->name);
			out->sym_offset = vaddr - sym->addr;
		}
		if (dwarf_line_of(path, at, out->file, sizeof(out->file), &out->line) != 0)
			out->line = 0;
		err = out->symbol[0] || out->line ? 0 : -ENOENT;
	}
	elfinfo_free(&e);
	return err;
}
