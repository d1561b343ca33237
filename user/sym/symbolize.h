/* Symbolization of user addresses of a live process.
 *
 * Addresses are placed in modules from /proc/PID/maps, and names come from the
 * module's ELF symbols (libelf): .symtab, .dynsym, and the xz-compressed
 * .gnu_debugdata (MiniDebugInfo) where present (liblzma). Modules are opened
 * through /proc/PID/root so that a target in another mount namespace (an
 * Android app, a container) resolves to its own files. */
#ifndef OOMSCOPE_SYMBOLIZE_H
#define OOMSCOPE_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ooms_symbolizer;

struct ooms_frame {
	uint64_t addr;          /* the address as captured */
	const char *module;     /* path as in the target's maps, or NULL if unmapped */
	uint64_t base;          /* address where the module's file offset 0 is mapped */
	uint64_t offset;        /* addr - base */
	const char *symbol;     /* function name, or NULL */
	uint64_t sym_offset;    /* addr - symbol start */
	const char *build_id;   /* hex build-id of the module, or NULL */
	int jit;                /* anonymous code named by a JIT's perf map (symbol: its name) */
};

/* root_pid: whose /proc/PID/root to open modules through (usually = pid). */
struct ooms_symbolizer *ooms_sym_new(pid_t pid);
void ooms_sym_free(struct ooms_symbolizer *s);

/* A JIT's perf map (perfmap.h, taken over) names the code in anonymous
 * mappings from now on; the one it replaces is kept, so that names handed
 * out stay valid. */
struct ooms_perfmap;
void ooms_sym_set_perfmap(struct ooms_symbolizer *s, struct ooms_perfmap *pm);
/* 1 when a perf map is set. */
int ooms_sym_has_perfmap(const struct ooms_symbolizer *s);

/* Re-read /proc/PID/maps (after the target mapped new code). 0 or -errno. */
int ooms_sym_refresh(struct ooms_symbolizer *s);

/* Fill f for addr. is_return_addr: look up addr-1 (a return address points
 * after the call). Strings stay valid until ooms_sym_free. Returns 0 when the
 * address is in a mapping (even without a symbol), -ENOENT when it is not. */
int ooms_sym_resolve(struct ooms_symbolizer *s, uint64_t addr, int is_return_addr,
		     struct ooms_frame *f);

/* Executable mapping test and code bytes, for the stack repair heuristics:
 * copies up to len bytes of the module's file content that is mapped at addr
 * (through the ELF file, not the process's memory). Returns bytes copied or -errno. */
int ooms_sym_read_code(struct ooms_symbolizer *s, uint64_t addr, void *buf, size_t len);
int ooms_sym_is_exec(struct ooms_symbolizer *s, uint64_t addr);
/* What backs addr in the maps last read: a file, shared memory (memfd,
 * ashmem, SysV, /dev/shm, a shared anonymous mapping), or anonymous memory
 * ([heap], [stack], [anon:...], an unnamed mapping), or unknown (in no
 * mapping read: one made since). */
enum ooms_backing { OOMS_BACK_ANON = 0, OOMS_BACK_FILE, OOMS_BACK_SHARED, OOMS_BACK_UNKNOWN /* in no mapping read */ };
enum ooms_backing ooms_sym_backing(struct ooms_symbolizer *s, uint64_t addr);
/* The run of anonymous mappings next to each other that holds addr (a
 * reservation split by what is committed: a JVM's heap), as last read: 0
 * with *start and *end set, -ENOENT when addr is in no anonymous mapping. */
int ooms_sym_anon_run(struct ooms_symbolizer *s, uint64_t addr, uint64_t *start, uint64_t *end);

/* "libc.so.6 0x7f12... 0x7f10... + 123456 eventfd+16": crash-log form. */
int ooms_frame_format(const struct ooms_frame *f, char *buf, size_t len);

/* Symbolize a standalone ELF file address (file vaddr), for tests and the later
 * `oomscope symbolize`: fills symbol/sym_offset. 0, or -errno. */
int ooms_sym_elf_lookup(const char *path, uint64_t vaddr, char *name, size_t name_len,
			uint64_t *sym_offset);

/* Call frame information at pc (the pc of the innermost frame, not a return
 * address), from the module's .eh_frame/.debug_frame (libdw): the CFA is
 * sp + *cfa_from_sp and the return address is stored at CFA + *ra_from_cfa.
 * 0, -ENOENT (no CFI there), -ENOTSUP (a rule not based on sp). */
int ooms_sym_unwind_rule(struct ooms_symbolizer *s, uint64_t pc, int64_t *cfa_from_sp,
			 int64_t *ra_from_cfa);

/* The same, also where the return address is still in a register, as on
 * arm64 in a leaf function or before a function's prologue has saved the
 * link register (x30, DWARF register 30), where ooms_sym_unwind_rule says
 * -ENOTSUP. 0, -ENOENT (no CFI there, or the outermost frame), -ENOTSUP
 * (a CFA not based on sp, or an expression). */
struct ooms_unwind_rule {
	int64_t cfa_from_sp;  /* the CFA (the caller's sp) is sp + this */
	int ra_reg;           /* -1: the return address is saved at CFA + ra_from_cfa;
			       * else the DWARF register that holds it */
	int64_t ra_from_cfa;
};
int ooms_sym_unwind_at(struct ooms_symbolizer *s, uint64_t pc, struct ooms_unwind_rule *rule);

/* The bits of a user code address: arm64 with pointer authentication signs
 * return addresses (x30 and the saved link registers) in the bits above the
 * user VA width, and the top byte may carry a tag; a code address is
 * addr & mask. The width is that of the highest mapping of the process (the
 * stack and vdso sit at the top of the user half: 48 bits on most arm64
 * kernels, 39 on many Android ones), so no address in a mapping loses a
 * bit. All ones on x86_64. */
uint64_t ooms_sym_code_mask(const struct ooms_symbolizer *s);

/* File offset of function `name` in an ELF file (for uprobes), from the
 * same symbol sources. 0, or -errno (-ENOENT when there is no such symbol). */
int ooms_sym_elf_find(const char *path, const char *name, uint64_t *file_offset);
/* The symbol values (ELF virtual addresses) of names[0..n) in the ELF at
 * path, functions and data, from .dynsym, .symtab and .gnu_debugdata alike;
 * values[i] is 0 where names[i] is absent. 0, or -errno. */
int ooms_sym_elf_values(const char *path, const char *const *names, size_t n, uint64_t *values);

/* Offline symbolization (oomscope symbolize): the symbol and, from DWARF,
 * the source line of a file offset in the ELF at path; is_ret: the offset is
 * a return address (the call before it is looked up). 0, or -errno. */
struct ooms_offline_frame {
	char symbol[256];
	uint64_t sym_offset;
	char file[512];    /* "" without DWARF */
	int line;
};
int ooms_sym_offline(const char *path, uint64_t file_offset, int is_ret, struct ooms_offline_frame *out);
/* The GNU build-id of the ELF at path, as hex. 0, -ENOENT (none), -errno. */
int ooms_sym_build_id(const char *path, char *hex, size_t len);

#endif
