/* ELF files read for symbols: .symtab, .dynsym, MiniDebugInfo (.gnu_debugdata,
 * xz), load segments, build ids; and the offline look-ups against unstripped
 * files. Every file may be hostile: sizes are checked, a corrupt ELF only
 * yields no symbols. */
#include "sym/elf.h"
#include "util/vec.h"

/* Open a regular file read-only; stat first so a device is never opened. */
int symelf_open_regular(const char *path, uint64_t *ino)
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

void symelf_elfinfo_free(struct elfinfo *e)
{
	free(e->syms);
	free(e->pool);
	free(e->loads);
	free(e->nobits_text);
	free(e->build_id);
	memset(e, 0, sizeof(*e));
}

static int pool_add(struct elfinfo *e, const char *s, uint32_t *off)
{
	size_t n = strlen(s) + 1;

	if (e->pool_len + n > MAX_POOL)
		return -E2BIG;
	if (vec_reserve((void **)&e->pool, &e->pool_cap, e->pool_len + n, 1))
		return -ENOMEM;
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
		if ((type != STT_FUNC && type != STT_GNU_IFUNC && !(e->objects && type == STT_OBJECT)) || !st.st_value ||
		    st.st_shndx == SHN_UNDEF)
			continue;
		name = elf_strptr(elf, sh->sh_link, st.st_name);
		if (!name || !*name)
			continue;
		if (vec_reserve((void **)&e->syms, &e->cap, e->nsyms + 1, sizeof(*e->syms)))
			return -ENOMEM;
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
int symelf_elf_read(int fd, struct elfinfo *e, int all_names)
{
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t phnum, shstrndx, i;
	int err = 0;

	memset(e, 0, sizeof(*e));
	e->objects = all_names == 2;
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
		e->nobits_text = calloc(phnum, sizeof(*e->nobits_text));
		if (!e->loads || !e->nobits_text)
			err = -ENOMEM;
		for (i = 0; !err && i < phnum; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(elf, (int)i, &ph))
				break;
			if (ph.p_type == PT_LOAD && ph.p_filesz)
				e->loads[e->nloads++] = (struct load){ ph.p_offset, ph.p_vaddr, ph.p_filesz };
			/* code with fewer bytes in the file than in memory: a debug file's
			 * (objcopy keeps only the headers' part of a segment that starts
			 * the file, as arm64's code segment does) */
			if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X) && ph.p_memsz > ph.p_filesz)
				e->nobits_text[e->nnobits_text++] = (struct load){ ph.p_offset, ph.p_vaddr, ph.p_memsz };
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
		symelf_elfinfo_free(e);
		return err;
	}
	if (!all_names) /* for lookups by address: one name per address */
		sort_symbols(e);
	return 0;
}

/* Symbol containing vaddr, or NULL. */
const struct sym *symelf_sym_find(const struct elfinfo *e, uint64_t vaddr)
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
int symelf_debug_off_to_vaddr(const struct elfinfo *e, uint64_t off, uint64_t *vaddr)
{
	for (size_t i = 0; i < e->nnobits_text; i++)
		if (off >= e->nobits_text[i].vaddr && off - e->nobits_text[i].vaddr < e->nobits_text[i].filesz) {
			*vaddr = off;
			return 0;
		}
	return -ENOENT;
}

int symelf_off_to_vaddr(const struct elfinfo *e, uint64_t off, uint64_t *vaddr)
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



/* The symbols and load segments of the ELF file at path. 0 or -errno. */
static int elf_read_path(const char *path, struct elfinfo *e, int all_names)
{
	uint64_t ino;
	int fd = symelf_open_regular(path, &ino), err;

	if (fd < 0)
		return fd;
	err = symelf_elf_read(fd, e, all_names);
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
	sym = symelf_sym_find(&e, vaddr);
	if (sym) {
		snprintf(name, name_len, "%s", e.pool + sym->name);
		if (sym_offset)
			*sym_offset = vaddr - sym->addr;
	}
	symelf_elfinfo_free(&e);
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
	symelf_elfinfo_free(&e);
	return err;
}


int ooms_sym_elf_values(const char *path, const char *const *names, size_t n, uint64_t *values)
{
	struct elfinfo e;
	int err;

	memset(values, 0, n * sizeof(*values));
	if ((err = elf_read_path(path, &e, 2)))
		return err;
	for (size_t i = 0; i < e.nsyms; i++)
		for (size_t k = 0; k < n; k++)
			if (!values[k] && names[k] && !strcmp(e.pool + e.syms[i].name, names[k]))
				values[k] = e.syms[i].addr;
	symelf_elfinfo_free(&e);
	return 0;
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
	symelf_elfinfo_free(&e);
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
	err = symelf_off_to_vaddr(&e, file_offset, &vaddr);
	if (err)
		err = symelf_debug_off_to_vaddr(&e, file_offset, &vaddr);
	if (!err) {
		/* a return address points after its call: look the call up */
		uint64_t at = is_ret && vaddr ? vaddr - 1 : vaddr;

		if ((sym = symelf_sym_find(&e, at))) {
			snprintf(out->symbol, sizeof(out->symbol), "%s", e.pool + sym->name);
			out->sym_offset = vaddr - sym->addr;
		}
		if (dwarf_line_of(path, at, out->file, sizeof(out->file), &out->line) != 0)
			out->line = 0;
		err = out->symbol[0] || out->line ? 0 : -ENOENT;
	}
	symelf_elfinfo_free(&e);
	return err;
}
