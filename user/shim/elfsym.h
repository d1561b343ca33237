/* Symbols of a loaded library that dlsym cannot give (not exported, or
 * behind Android's linker namespaces), read from the library's file:
 * .dynsym, then .symtab. Self-contained (no libelf, no libc: the shim runs
 * on devices), 32- and 64-bit ELF. A library found through
 * /proc/self/maps, its load bias from its first loaded segment. Symbols
 * only in .gnu_debugdata (MiniDebugInfo: xz) are oomscope's to find
 * (runtime/shim_syms.c), which passes them in the agent's options. */
#ifndef OOMSCOPE_SHIM_ELFSYM_H
#define OOMSCOPE_SHIM_ELFSYM_H

#include <stddef.h>
#include <stdint.h>

struct elfsym_lib {
	char path[512];      /* the file, as the process's maps have it */
	uintptr_t base;      /* load bias: runtime address = base + st_value */
	const uint8_t *map;  /* the file, mapped */
	size_t map_len;
};

/* The loaded library whose file name starts with prefix ("libart.so").
 * 0, or -ENOENT (not loaded) / -errno. */
int elfsym_open_loaded(struct elfsym_lib *l, const char *prefix);
/* The same for a file not loaded (tests): base 0. */
int elfsym_open_file(struct elfsym_lib *l, const char *path);
void elfsym_close(struct elfsym_lib *l);
/* The runtime address (base + value) of symbol name, or 0 when absent.
 * table (optional) says where it was found: "dynsym", "symtab". */
uintptr_t elfsym_find(struct elfsym_lib *l, const char *name, const char **table);
/* The file's ELF class: 32 or 64 (0: not ELF). */
int elfsym_class(const struct elfsym_lib *l);

#endif
