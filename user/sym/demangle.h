/* C++ (Itanium ABI) names made readable, for the views people read; the
 * reports keep the exact ELF name too, which is what tools match on. */
#ifndef OOMSCOPE_SYM_DEMANGLE_H
#define OOMSCOPE_SYM_DEMANGLE_H

#include <stddef.h>

/* name demangled into buf ("_ZL11build_indexv" -> "build_index()"), cut to
 * buf with "..." at its end when longer; name itself (not copied) when it is
 * not a mangled C++ name (or buf is under 8 bytes). */
const char *ooms_demangle(const char *name, char *buf, size_t len);

#endif
