#include "sym/stackfix.h"
#include "util/clock.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MEMO_BITS 14
#define MEMO_SIZE (1u << MEMO_BITS)

/* Memo of return-address checks: the set of call sites a process uses is small. */
struct memo_slot {
	uint64_t addr;
	int8_t verdict; /* 0 empty, 1 yes, -1 no */
};

/* Memo of CFI rules by pc: a process makes its syscalls from few places. */
struct rule_slot {
	uint64_t pc;
	int32_t at;     /* byte offset of the return address from sp (ra_reg < 0) */
	int32_t cfa;    /* byte offset of the CFA (the caller's sp) from sp */
	int8_t ra_reg;  /* -1: saved at sp + at; else the DWARF register holding it */
	int8_t verdict; /* 0 empty, 1 rule, -1 none */
};

struct ooms_stackfix {
	struct ooms_symbolizer *sym;
	uint64_t last_refresh_ns;
	uint64_t refresh_cost_ns; /* what the last reading took */
	struct memo_slot memo[MEMO_SIZE];
	struct rule_slot rules[MEMO_SIZE];
};

#define REFRESH_MIN_NS (20 * 1000 * 1000ull)


/* An address in no known mapping may be in code mapped since the maps were
 * read (a library loaded, or the exec of `oomscope run`): read them again,
 * at most every 20 ms and at most a tenth of the time (a process with
 * 30,000 threads has 60,000 mappings: a reading takes 100 ms and more, and
 * read back to back they held the collector while its ring buffer
 * overflowed), and forget the verdicts drawn from the old ones. */
static int is_exec_fresh(struct ooms_stackfix *fx, uint64_t addr)
{
	uint64_t now, gap;
	int err;

	if (ooms_sym_is_exec(fx->sym, addr))
		return 1;
	now = mono_ns();
	gap = fx->refresh_cost_ns * 10 > REFRESH_MIN_NS ? fx->refresh_cost_ns * 10 : REFRESH_MIN_NS;
	if (now - fx->last_refresh_ns < gap)
		return 0;
	err = ooms_sym_refresh(fx->sym);
	fx->last_refresh_ns = mono_ns();
	fx->refresh_cost_ns = fx->last_refresh_ns - now;
	if (err)
		return 0;
	memset(fx->memo, 0, sizeof(fx->memo));
	memset(fx->rules, 0, sizeof(fx->rules));
	return ooms_sym_is_exec(fx->sym, addr);
}

struct ooms_stackfix *ooms_stackfix_new(struct ooms_symbolizer *sym)
{
	struct ooms_stackfix *fx = calloc(1, sizeof(*fx));

	if (fx)
		fx->sym = sym;
	return fx;
}

void ooms_stackfix_free(struct ooms_stackfix *fx)
{
	free(fx);
}

#if defined(__x86_64__)
/* Does a call instruction end right before code[len]? */
static int ends_with_call(const uint8_t *c, size_t len)
{
	if (len >= 5 && c[len - 5] == 0xE8)
		return 1; /* call rel32 */
	if (len >= 2 && c[len - 2] == 0xFF) {
		uint8_t m = c[len - 1];

		if ((m & 0xF8) == 0xD0)
			return 1; /* call reg */
		if ((m & 0xF8) == 0x10 && (m & 7) != 4 && (m & 7) != 5)
			return 1; /* call [reg] */
	}
	if (len >= 3 && c[len - 3] == 0xFF && (c[len - 2] & 0xF8) == 0x50 && (c[len - 2] & 7) != 4)
		return 1; /* call [reg+disp8] */
	if (len >= 4 && c[len - 4] == 0xFF && c[len - 3] == 0x54)
		return 1; /* call [sib+disp8] */
	if (len >= 3 && c[len - 3] == 0xFF && c[len - 2] == 0x14)
		return 1; /* call [sib] */
	if (len >= 6 && c[len - 6] == 0xFF &&
	    (c[len - 5] == 0x15 || (c[len - 5] & 0xF8) == 0x90))
		return 1; /* call [rip+disp32], call [reg+disp32] */
	if (len >= 7 && c[len - 7] == 0xFF && c[len - 6] == 0x94)
		return 1; /* call [sib+disp32] */
	return 0;
}
#define CODE_BEFORE 7
#elif defined(__aarch64__)
static int ends_with_call(const uint8_t *c, size_t len)
{
	uint32_t insn;

	if (len < 4)
		return 0;
	memcpy(&insn, c + len - 4, 4);
	return (insn & 0xFC000000u) == 0x94000000u /* bl */ ||
	       (insn & 0xFFFFFC1Fu) == 0xD63F0000u /* blr */;
}
#define CODE_BEFORE 4
#else
#error "unsupported architecture"
#endif

static int check_return_addr(struct ooms_stackfix *fx, uint64_t addr)
{
	uint8_t code[CODE_BEFORE];
	int n;

	if (addr < CODE_BEFORE || !is_exec_fresh(fx, addr))
		return 0;
	n = ooms_sym_read_code(fx->sym, addr - CODE_BEFORE, code, CODE_BEFORE);
	if (n == CODE_BEFORE)
		return ends_with_call(code, CODE_BEFORE);
	/* executable but not file-backed (JIT code): cannot check, trust it */
	return n == -ENODATA ? 1 : 0;
}

int ooms_stackfix_is_return_addr(struct ooms_stackfix *fx, uint64_t addr)
{
	uint64_t h = (addr * 0x9E3779B97F4A7C15ull) >> (64 - MEMO_BITS);
	struct memo_slot *slot = &fx->memo[h];
	int v;

	if (slot->verdict && slot->addr == addr)
		return slot->verdict > 0;
	v = check_return_addr(fx, addr);
	slot->addr = addr;
	slot->verdict = v ? 1 : -1;
	return v;
}

/* The CFI rule at pc, memoized: where the return address and the CFA are,
 * as byte offsets from sp, or the register that still holds the return
 * address (*ra_reg >= 0: arm64's link register). 0 when pc has an sp-based
 * rule. */
static int rule_at(struct ooms_stackfix *fx, uint64_t pc, int32_t *at, int32_t *cfa, int *ra_reg)
{
	struct rule_slot *r = &fx->rules[(pc * 0x9E3779B97F4A7C15ull) >> (64 - MEMO_BITS)];
	struct ooms_unwind_rule u;

	if (!r->verdict || r->pc != pc) {
		r->pc = pc;
		r->verdict = -1;
		if (ooms_sym_unwind_at(fx->sym, pc, &u) == 0 && u.cfa_from_sp >= 0 && u.cfa_from_sp <= INT32_MAX) {
			if (u.ra_reg >= 0 && u.ra_reg <= INT8_MAX) {
				r->verdict = 1;
				r->ra_reg = (int8_t)u.ra_reg;
				r->at = 0;
				r->cfa = (int32_t)u.cfa_from_sp;
			} else if (u.ra_reg < 0 && u.cfa_from_sp + u.ra_from_cfa >= 0 &&
				   u.cfa_from_sp + u.ra_from_cfa <= INT32_MAX) {
				r->verdict = 1;
				r->ra_reg = -1;
				r->at = (int32_t)(u.cfa_from_sp + u.ra_from_cfa);
				r->cfa = (int32_t)u.cfa_from_sp;
			}
		}
	}
	if (r->verdict < 0)
		return -1;
	*at = r->at;
	*cfa = r->cfa;
	*ra_reg = r->ra_reg;
	return 0;
}

/* Unwinds by the call frame information through the copied stack slice
 * (which starts at sp): the return addresses above pc, innermost first, as
 * far as the frames have sp-based rules (code built without frame pointers,
 * such as libc) and the slice reaches. */
/* Where a frame's CFI cannot be followed from the stack pointer (its CFA
 * is rbp-based), the next return address above it, found by scanning the
 * slice the way breakpad does as a last resort: the first word that points
 * right after a call instruction. Returns its word index, or nslice. */
static size_t scan_for_return(struct ooms_stackfix *fx, const uint64_t *slice, size_t from, size_t nslice,
			      uint64_t mask)
{
	for (size_t i = from; i < nslice && i < from + 256; i++)
		if ((slice[i] & mask) && ooms_stackfix_is_return_addr(fx, slice[i] & mask))
			return i;
	return nslice;
}

/* The register that holds the return address at a function's entry, the
 * only one an event captures (struct ooms_event's lr): arm64's link register
 * x30. x86_64 has none (the return address is on the stack). */
#if defined(__aarch64__)
#define DWARF_LR 30
#else
#define DWARF_LR -1
#endif

/* in_chain: is ra one of the frame-pointer chain's frames after the first? */
static int in_chain(const uint64_t *chain, size_t n, uint64_t ra, uint64_t mask)
{
	for (size_t j = 1; j < n; j++)
		if ((chain[j] & mask) == ra)
			return 1;
	return 0;
}

/* The CFI walk from pc, until it meets the frame-pointer chain (from there
 * the chain is the kernel's own walk; a CFI walk left to go on past it, into
 * frames it can only scan for, took stale words for frames past _start). */
static size_t unwind_cfi(struct ooms_stackfix *fx, uint64_t pc, uint64_t sp, uint64_t lr, const uint64_t *slice,
			 size_t nslice, const uint64_t *chain, size_t nchain, uint64_t *out, size_t max, int scan,
			 uint64_t mask)
{
	uint64_t off = 0; /* the frame's sp, as a byte offset into the slice */
	size_t n = 0;

	if (!sp)
		return 0;
	while (n < max) {
		int32_t at, cfa;
		int reg;
		uint64_t ra;

		if (off % 8)
			break;
		ra = 0;
		if (!rule_at(fx, pc, &at, &cfa, &reg)) {
			if (reg < 0) {
				if (!(at % 8) && (off + (uint64_t)at) / 8 < nslice)
					ra = slice[(off + (uint64_t)at) / 8] & mask;
			} else if (n == 0 && reg == DWARF_LR) {
				/* the interrupted function has not saved its return
				 * address (a leaf, or before its prologue): the link
				 * register at the probe is it. Only for this frame:
				 * the callers' registers were not captured. */
				ra = lr & mask;
			}
		}
		if (!ra || !is_exec_fresh(fx, ra)) {
			size_t i;

			if (!scan || (i = scan_for_return(fx, slice, off / 8, nslice, mask)) >= nslice)
				break;
			out[n++] = slice[i] & mask;
			if (in_chain(chain, nchain, slice[i] & mask, mask))
				break;
			off = (i + 1) * 8;
			pc = (slice[i] & mask) - 1;
			continue;
		}
		out[n++] = ra;
		if (in_chain(chain, nchain, ra, mask))
			break;
		off += (uint64_t)cfa;
		pc = ra - 1; /* the call instruction: the caller's rule */
	}
	return n;
}

static size_t repair(struct ooms_stackfix *fx, const uint64_t *in, size_t n, uint64_t sp, uint64_t lr,
		     const uint64_t *slice, size_t nslice, uint64_t *out, size_t max, int scan)
{
	size_t k = 0, c, from = 1;
	uint64_t mask;

	if (n == 0 || max == 0)
		return 0;
	is_exec_fresh(fx, in[0]); /* maps current for the CFI lookup */
	mask = ooms_sym_code_mask(fx->sym);
	out[k++] = in[0];
	c = unwind_cfi(fx, in[0], sp, lr, slice, nslice, in, n, out + k, max - k, scan, mask);
	if (c) {
		/* where the CFI walk meets the frame-pointer chain, the chain goes on */
		size_t last = k + c - 1, j;

		for (j = 1; j < n && (in[j] & mask) != out[last]; j++)
			;
		k += c;
		if (j < n)
			from = j + 1;
		else if (n > 1 && (in[1] & mask) == out[1])
			from = n; /* the chain is the same walk, shorter: nothing to add */
	} else {
		/* no CFI: the first word that looks like a return address after a call */
		for (size_t i = 0; i < nslice; i++)
			if ((slice[i] & mask) && ooms_stackfix_is_return_addr(fx, slice[i] & mask)) {
				if (n < 2 || (in[1] & mask) != (slice[i] & mask))
					out[k++] = slice[i] & mask;
				break;
			}
	}
	for (size_t i = from; i < n && k < max; i++) {
		if (!is_exec_fresh(fx, in[i] & mask))
			break; /* the frame-pointer chain went astray */
		out[k++] = in[i] & mask;
	}
	return k;
}

/* Is a call right before the 32-bit ARM return address lr: A32 BL, BLX
 * (immediate or register), or with bit 0 set (Thumb) T32 BL/BLX or BLX
 * register? */
static int a32_after_call(struct ooms_stackfix *fx, uint64_t lr)
{
	uint64_t at = lr & ~1ull;
	uint8_t c[4];
	uint32_t w;
	uint16_t h1, h2;

	if (at < 4 || ooms_sym_read_code(fx->sym, at - 4, c, 4) != 4)
		return 0;
	if (lr & 1) {
		memcpy(&h1, c, 2);
		memcpy(&h2, c + 2, 2);
		return (h2 & 0xFF87u) == 0x4780u ||                               /* blx reg */
		       ((h1 & 0xF800u) == 0xF000u && (h2 & 0xC000u) == 0xC000u); /* bl, blx imm */
	}
	memcpy(&w, c, 4);
	return ((w & 0x0F000000u) == 0x0B000000u && (w >> 28) != 0xFu) || /* bl */
	       (w & 0xFE000000u) == 0xFA000000u ||                         /* blx imm */
	       (w & 0x0FFFFFF0u) == 0x012FFF30u;                           /* blx reg */
}

size_t ooms_stackfix_repair_a32(struct ooms_stackfix *fx, const uint64_t *in, size_t n, uint64_t lr, uint64_t *out,
				size_t max)
{
	size_t k = 0;
	uint64_t ra = lr & 0xFFFFFFFFull;

	if (n == 0 || max == 0)
		return 0;
	out[k++] = in[0];
	if (ra && k < max && is_exec_fresh(fx, ra & ~1ull) && (ra & ~1ull) != in[0] && a32_after_call(fx, ra))
		out[k++] = ra & ~1ull;
	for (size_t i = 1; i < n && k < max; i++) {
		if (!is_exec_fresh(fx, in[i]))
			break;
		if (in[i] != out[k - 1])
			out[k++] = in[i];
	}
	return k;
}

size_t ooms_stackfix_repair(struct ooms_stackfix *fx, const uint64_t *in, size_t n, uint64_t sp, uint64_t lr,
			    const uint64_t *slice, size_t nslice, uint64_t *out, size_t max)
{
	return repair(fx, in, n, sp, lr, slice, nslice, out, max, 0);
}

size_t ooms_stackfix_repair_scan(struct ooms_stackfix *fx, const uint64_t *in, size_t n, uint64_t sp, uint64_t lr,
				 const uint64_t *slice, size_t nslice, uint64_t *out, size_t max)
{
	return repair(fx, in, n, sp, lr, slice, nslice, out, max, 1);
}
