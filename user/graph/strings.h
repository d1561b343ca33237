/* java.lang.String values read from a dump: which records hold a String's
 * characters, asked for in the names pass (labels.h), and the text decoded
 * from what that pass read (JDK 9+ byte[] with its coder, char[] of JDK 8
 * and Android). For names and keys in reports, so the text is cut at
 * OOMS_CONTENT_MAX bytes and non-ASCII shows as '?'. */
#ifndef OOMSCOPE_GRAPH_STRINGS_H
#define OOMSCOPE_GRAPH_STRINGS_H

#include <stddef.h>
#include <stdint.h>
#include "graph/index.h"
#include "graph/labels.h"

/* The records to read for the value of s, a String node or a char[] (JDK 8
 * Thread.name): *inst (the String, OOMS_NONE for a char[]) and *chars. 0, or
 * -1 when s is neither. */
int ooms_string_nodes(const struct ooms_index *ix, uint32_t s, uint32_t *inst, uint32_t *chars);
/* Adds node to *wants unless it is there. 0 or -ENOMEM. */
int ooms_want(struct ooms_content **wants, size_t *n, size_t *cap, uint32_t node);
/* The text of the String whose records are inst and chars, from what the
 * names pass read (wants[0..n)), into out ("" when it was not read). */
void ooms_string_text(const struct ooms_index *ix, uint32_t inst, uint32_t chars, const struct ooms_content *wants,
		      size_t n, char *out, size_t len);

#endif
