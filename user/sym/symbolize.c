/* Symbolization of user addresses of a live process: see symbolize.h.
 *
 * Mappings come from /proc/PID/maps; each distinct file (path + inode) is a
 * module whose ELF is parsed lazily on the first lookup and kept until
 * ooms_sym_free, so strings handed out stay valid across refreshes. Every
 * input (maps, ELF files, compressed sections) may be hostile: all sizes are
 * checked, and a corrupt ELF only yields no symbols. */
#include "sym/elf.h"
#include "sym/perfmap.h"
#include "util/vec.h"

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
	size_t nmods, mods_cap;
	struct ooms_perfmap **pms; /* the last names anonymous code; the others keep their names valid */
	size_t npms, pms_cap;
};

/* The module's file as the target sees it: through its root, or through
 * map_files when the file was deleted or replaced since it was mapped. */
static int module_open(const struct ooms_symbolizer *s, const struct module *m)
{
	char path[4200];
	uint64_t ino = 0, ino2;
	int fd = -ENOENT, fd2;

	if (!m->deleted) {
		snprintf(path, sizeof(path), "/proc/%d/root%s", (int)s->pid, m->path);
		fd = symelf_open_regular(path, &ino);
	}
	/* map_files needs privileges the caller may lack: then keep what we have */
	if (fd < 0 || (m->inode && ino != m->inode)) {
		snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64,
			 (int)s->pid, m->map_start, m->map_end);
		fd2 = symelf_open_regular(path, &ino2);
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
		symelf_elf_read(m->fd, &m->elf, 0);    /* on failure: no symbols */
}

static void module_free(struct module *m)
{
	if (m->cfi)
		dwarf_cfi_end(m->cfi);
	if (m->cfi_elf)
		elf_end(m->cfi_elf);
	if (m->fd >= 0)
		close(m->fd);
	symelf_elfinfo_free(&m->elf);
	free(m->path);
	free(m);
}

static struct module *module_get(struct ooms_symbolizer *s, const char *path,
				 uint64_t inode, struct module *hint)
{
	size_t len = strlen(path), dl = strlen(DELETED), i;
	int deleted = len > dl && strcmp(path + len - dl, DELETED) == 0;
	struct module *m;

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
	if (vec_reserve((void **)&s->mods, &s->mods_cap, s->nmods + 1, sizeof(*s->mods)))
		return NULL;
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
	for (i = 0; i < s->npms; i++)
		ooms_perfmap_free(s->pms[i]);
	free(s->pms);
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
		uint64_t start;

		f->base = mp->start;
		f->offset = addr - mp->start;
		if (s->npms && (f->symbol = ooms_perfmap_find(s->pms[s->npms - 1], a, &start))) {
			f->jit = 1;
			f->sym_offset = addr - start;
		}
		return 0;
	}
	f->module = m->path;
	f->base = m->base;
	f->offset = addr - m->base;
	module_load(s, m);
	f->build_id = m->elf.build_id;
	if (symelf_off_to_vaddr(&m->elf, a - mp->start + mp->pgoff, &vaddr) == 0 &&
	    (sym = symelf_sym_find(&m->elf, vaddr))) {
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

enum ooms_backing ooms_sym_backing(struct ooms_symbolizer *s, uint64_t addr)
{
	const struct mapping *mp = s ? find_mapping(s, addr) : NULL;
	const char *p;

	if (!mp)
		return OOMS_BACK_UNKNOWN;
	if (!mp->mod || !(p = mp->mod->path) || p[0] == '[')
		return OOMS_BACK_ANON;
	if (!strncmp(p, "/memfd:", 7) || !strncmp(p, "/dev/ashmem", 11) || !strncmp(p, "/SYSV", 5) ||
	    !strncmp(p, "/dev/shm/", 9) || !strncmp(p, "/dev/zero", 9))
		return OOMS_BACK_SHARED;
	return p[0] == '/' ? OOMS_BACK_FILE : OOMS_BACK_ANON;
}

int ooms_sym_anon_run(struct ooms_symbolizer *s, uint64_t addr, uint64_t *start, uint64_t *end)
{
	const struct mapping *mp = s ? find_mapping(s, addr) : NULL;
	size_t i, lo, hi;

	if (!mp || mp->mod)
		return -ENOENT;
	i = (size_t)(mp - s->maps);
	for (lo = i; lo > 0 && !s->maps[lo - 1].mod && s->maps[lo - 1].end == s->maps[lo].start; lo--)
		;
	for (hi = i; hi + 1 < s->nmaps && !s->maps[hi + 1].mod && s->maps[hi + 1].start == s->maps[hi].end; hi++)
		;
	*start = s->maps[lo].start;
	*end = s->maps[hi].end;
	return 0;
}

void ooms_sym_set_perfmap(struct ooms_symbolizer *s, struct ooms_perfmap *pm)
{
	struct ooms_perfmap **slot;

	if (!s || !pm || !(slot = VEC_PUSH(s->pms, s->npms, s->pms_cap)))
		ooms_perfmap_free(pm);
	else
		*slot = pm;
}

int ooms_sym_has_perfmap(const struct ooms_symbolizer *s)
{
	return s && s->npms;
}

int ooms_frame_format(const struct ooms_frame *f, char *buf, size_t len)
{
	const char *base;
	int n;

	if (!f || !buf || !len)
		return -EINVAL;
	if (!f->module && f->jit) {
		n = snprintf(buf, len, "[jit] 0x%" PRIx64 " %s+%" PRIu64, f->addr, f->symbol, f->sym_offset);
	} else if (!f->module) {
		n = snprintf(buf, len, "[unknown] 0x%" PRIx64, f->addr);
	} else {
		base = strrchr(f->module, '/');
		base = base ? base + 1 : f->module;
		n = snprintf(buf, len, "%s 0x%" PRIx64 " 0x%" PRIx64 " + %" PRIu64, base,
			     f->addr, f->base, f->offset);
		if (n >= 0 && (size_t)n < len && f->symbol)
			n += snprintf(buf + n, len - n, " %s+%" PRIu64, f->symbol, f->sym_offset);
		else if (n >= 0 && (size_t)n < len) /* no symbol: module+0xOFFSET (file offset) */
			n += snprintf(buf + n, len - n, " %s+0x%" PRIx64, base, f->offset);
	}
	if (n < 0)
		return -EINVAL;
	return (size_t)n < len ? n : -ENOSPC;
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

int ooms_sym_unwind_at(struct ooms_symbolizer *s, uint64_t pc, struct ooms_unwind_rule *rule)
{
	const struct mapping *mp = s ? find_mapping(s, pc) : NULL;
	struct module *m;
	Dwarf_Frame *frame = NULL;
	Dwarf_Op *ops, ops_mem[3];
	size_t nops;
	uint64_t vaddr;
	int ra_reg, err = -ENOTSUP;

	if (!mp || !mp->mod || !rule)
		return -ENOENT;
	m = mp->mod;
	module_load(s, m);
	if (!m->cfi_tried) {
		m->cfi_tried = 1;
		if (m->fd >= 0 && (m->cfi_elf = elf_begin(m->fd, ELF_C_READ_MMAP, NULL)))
			m->cfi = dwarf_getcfi_elf(m->cfi_elf);
	}
	if (!m->cfi || symelf_off_to_vaddr(&m->elf, pc - mp->start + mp->pgoff, &vaddr) != 0)
		return -ENOENT;
	if (dwarf_cfi_addrframe(m->cfi, vaddr, &frame) != 0)
		return -ENOENT;
	/* CFA = sp + N */
	if (dwarf_frame_cfa(frame, &ops, &nops) == 0 && nops == 1 &&
	    ((ops[0].atom == DW_OP_bregx && ops[0].number == DWARF_SP) ||
	     ops[0].atom == DW_OP_breg0 + DWARF_SP)) {
		rule->cfa_from_sp = ops[0].atom == DW_OP_bregx ? (int64_t)ops[0].number2 : (int64_t)ops[0].number;
		rule->ra_reg = -1;
		rule->ra_from_cfa = 0;
		ra_reg = dwarf_frame_info(frame, NULL, NULL, NULL);
		if (ra_reg >= 0 && dwarf_frame_register(frame, ra_reg, ops_mem, &ops, &nops) == 0) {
			if (nops == 0 && !ops) {
				/* "same value": the return address is still in its
				 * register (arm64's link register before the function
				 * saves it, and all through a leaf) */
				rule->ra_reg = ra_reg;
				err = 0;
			} else if (nops == 0) {
				err = -ENOENT; /* "undefined": the outermost frame */
			} else if (nops == 1 && ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31) {
				rule->ra_reg = ops[0].atom - DW_OP_reg0; /* moved to another register */
				err = 0;
			} else if (nops == 1 && ops[0].atom == DW_OP_regx && ops[0].number <= INT32_MAX) {
				rule->ra_reg = (int)ops[0].number;
				err = 0;
			} else {
				/* saved at CFA + M */
				err = cfa_location_offset(ops, nops, &rule->ra_from_cfa);
			}
		}
	}
	free(frame);
	return err;
}

int ooms_sym_unwind_rule(struct ooms_symbolizer *s, uint64_t pc, int64_t *cfa_from_sp,
			 int64_t *ra_from_cfa)
{
	struct ooms_unwind_rule r;
	int err = ooms_sym_unwind_at(s, pc, &r);

	if (err)
		return err;
	if (r.ra_reg >= 0)
		return -ENOTSUP; /* in a register: see ooms_sym_unwind_at */
	*cfa_from_sp = r.cfa_from_sp;
	*ra_from_cfa = r.ra_from_cfa;
	return 0;
}

uint64_t ooms_sym_code_mask(const struct ooms_symbolizer *s)
{
#if defined(__aarch64__)
	uint64_t top = s && s->nmaps ? s->maps[s->nmaps - 1].end : 0;
	int bits = 48;

	/* The highest mapping (the main stack, the vdso: the top of the user
	 * half) gives the user VA width; none known yet: 48, arm64 Linux's
	 * usual (52-bit kernels map user memory above 2^48 only on request). */
	if (top > 1)
		bits = 64 - __builtin_clzll(top - 1);
	if (bits < 32)
		bits = 32;
	return bits >= 64 ? UINT64_MAX : (1ull << bits) - 1;
#else
	(void)s;
	return UINT64_MAX;
#endif
}
