/* Fuzzing the ELF symbol readers on arbitrary bytes as an ELF file: the
 * symbolizer's (sym/elf.c: libelf for .symtab, .dynsym, .gnu_debugdata's
 * xz-compressed ELF, PT_LOADs, build ids; libdw for source lines) and the
 * shim's own (shim/elfsym.c, no libelf, no .gnu_debugdata). Each must answer or find nothing,
 * never crash; what the symbolizer reads must hold together (names within
 * the pool, addresses sorted and each found again). With OOMS_FUZZ_PRINT
 * set (the replays in tests/bats/fuzz.bats) what both find is printed. */
#define _GNU_SOURCE /* memfd_create */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "sym/elf.h"
#include "shim/elfsym.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const wanted[] = {"main", "md_alpha", "md_beta"};

static void check(const struct elfinfo *e, int all_names)
{
	for (size_t i = 0; i < e->nsyms; i++) {
		const struct sym *s = &e->syms[i];

		if (s->name >= e->pool_len || !memchr(e->pool + s->name, 0, e->pool_len - s->name))
			abort(); /* a name outside the pool */
		if (!all_names && i && s->addr <= e->syms[i - 1].addr)
			abort(); /* not sorted, or two at one address */
		if (!all_names && symelf_sym_find(e, s->addr) != s)
			abort(); /* a symbol's own address must find it */
	}
	for (size_t i = 0; i < e->nloads; i++) {
		uint64_t v;

		if (symelf_off_to_vaddr(e, e->loads[i].off, &v) != 0)
			abort(); /* a segment's first byte maps somewhere */
	}
}

/* The symbolizer's address of name (all names read), 0 when absent. */
static uint64_t sym_addr(const struct elfinfo *e, const char *name)
{
	for (size_t i = 0; i < e->nsyms; i++)
		if (!strcmp(e->pool + e->syms[i].name, name))
			return e->syms[i].addr;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz.elf", MFD_CLOEXEC), print = getenv("OOMS_FUZZ_PRINT") != NULL;
	struct elfinfo sorted, all;
	struct elfsym_lib lib, mapped;
	struct ooms_offline_frame fr;
	char path[64], hex[160], name[256];
	uint64_t off, symoff;
	int er_sorted, er_all;

	if (fd < 0)
		abort();
	if (size && write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);

	er_sorted = symelf_elf_read(fd, &sorted, 0);
	er_all = symelf_elf_read(fd, &all, 1);
	if (er_sorted != er_all || (er_sorted && (sorted.nsyms || all.nsyms)))
		abort();
	check(&sorted, 0);
	check(&all, 1);
	if (sorted.nsyms > all.nsyms)
		abort();
	if (ooms_sym_build_id(path, hex, sizeof(hex)) == 0 && (!sorted.build_id || strcmp(hex, sorted.build_id)))
		abort();
	/* the offline look-ups: each symbol's file offset, its name and line */
	for (size_t i = 0; i < sorted.nsyms && i < 4; i++) {
		uint64_t a = sorted.syms[i].addr;

		for (size_t k = 0; k < sorted.nloads; k++) {
			const struct load *l = &sorted.loads[k];

			if (a >= l->vaddr && a - l->vaddr < l->filesz) {
				ooms_sym_offline(path, l->off + (a - l->vaddr), 0, &fr);
				ooms_sym_offline(path, l->off + (a - l->vaddr), 1, &fr);
				break;
			}
		}
	}
	if (sorted.nloads)
		ooms_sym_elf_lookup(path, sorted.loads[0].vaddr, name, sizeof(name), &symoff);

	/* the shim's reader: the file mapped, and a heap copy of exactly size bytes
	 * (so ASan sees a read past its end) */
	if (elfsym_open_file(&mapped, path) == 0) {
		for (size_t i = 0; i < sizeof(wanted) / sizeof(*wanted); i++)
			elfsym_find(&mapped, wanted[i], NULL);
		elfsym_close(&mapped);
	}
	memset(&lib, 0, sizeof(lib));
	lib.map = malloc(size ? size : 1);
	lib.map_len = size;
	if (!lib.map)
		abort();
	memcpy((void *)lib.map, data, size);
	for (size_t i = 0; i < sizeof(wanted) / sizeof(*wanted); i++) {
		const char *table = "-";
		uintptr_t a = elfsym_find(&lib, wanted[i], &table);

		if (print)
			printf("%s: sym=%#llx shim=%#llx(%s) ", wanted[i], (unsigned long long)sym_addr(&all, wanted[i]),
			       (unsigned long long)a, a ? table : "-");
	}
	if (print) {
		off = 0;
		memset(&fr, 0, sizeof(fr));
		if (ooms_sym_elf_find(path, "md_alpha", &off) == 0)
			ooms_sym_offline(path, off + 4, 0, &fr);
		printf("syms=%zu loads=%zu build_id=%s md_alpha+4=%s:%s:%d\n", sorted.nsyms, sorted.nloads,
		       sorted.build_id ? "yes" : "no", fr.symbol[0] ? fr.symbol : "-",
		       fr.file[0] ? strrchr(fr.file, '/') ? strrchr(fr.file, '/') + 1 : fr.file : "-", fr.line);
	}
	free((void *)lib.map);
	symelf_elfinfo_free(&sorted);
	symelf_elfinfo_free(&all);
	close(fd);
	return 0;
}
