/* Repairs a frame-pointer stack captured at a syscall or at a function entry.
 *
 * When the probe fires inside a libc function built without frame pointers,
 * the kernel's frame-pointer walk goes from the instruction pointer straight
 * to the caller's caller: the function that called libc, the one an engineer
 * needs, is missing. Its return address is on the stack just above the stack
 * pointer, in the copied slice: the module's call frame information (CFI,
 * .eh_frame) says exactly which word it is. On arm64 a call leaves the return
 * address in the link register (x30) and the callee saves it, if at all, in
 * its prologue: where the CFI says it is still there (a leaf such as libc's
 * syscall wrappers, a uprobe on a function's first instruction), it is the
 * event's lr. Without CFI, the first word of the slice that is a return
 * address (in an executable mapping, right after a call instruction) is
 * taken. Either is put back as frame 1. Frames that point into no executable
 * mapping (a broken chain) are cut off. On arm64 every address read from a
 * register or the stack is stripped of a pointer-authentication signature
 * (ooms_sym_code_mask). */
#ifndef OOMSCOPE_STACKFIX_H
#define OOMSCOPE_STACKFIX_H

#include <stddef.h>
#include <stdint.h>
#include "sym/symbolize.h"

struct ooms_stackfix;

struct ooms_stackfix *ooms_stackfix_new(struct ooms_symbolizer *sym);
void ooms_stackfix_free(struct ooms_stackfix *fx);

/* in: n captured frames; lr: the link register at the probe (arm64; 0 when
 * not known, and on x86_64); slice: nslice words from sp up. Writes at most
 * max frames to out; returns how many. */
size_t ooms_stackfix_repair(struct ooms_stackfix *fx, const uint64_t *in, size_t n, uint64_t sp, uint64_t lr,
			    const uint64_t *slice, size_t nslice, uint64_t *out, size_t max);

/* The same, and where a frame's CFI cannot be followed from the stack
 * pointer, the walk goes on from the next return address found by scanning
 * the slice (a last resort that may take a stale word for a frame: used for
 * failed calls deep in libc, clone3 under pthread_create). */
size_t ooms_stackfix_repair_scan(struct ooms_stackfix *fx, const uint64_t *in, size_t n, uint64_t sp, uint64_t lr,
				 const uint64_t *slice, size_t nslice, uint64_t *out, size_t max);

/* A 32-bit ARM task's event (its syscall seen through the compat table): the
 * kernel unwinds no user stack for it, so in is its pc (and whatever frames
 * the kernel found); its lr (r14), where a call instruction precedes it, is
 * the return address of a function that has not called another yet (libc's
 * syscall wrappers) and goes in as frame 1. */
size_t ooms_stackfix_repair_a32(struct ooms_stackfix *fx, const uint64_t *in, size_t n, uint64_t lr, uint64_t *out,
				size_t max);

/* 1 when addr is a return address: executable and preceded by a call (memoized). */
int ooms_stackfix_is_return_addr(struct ooms_stackfix *fx, uint64_t addr);

#endif
