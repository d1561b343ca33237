#include "graph/strings.h"
#include "util/vec.h"

#include <errno.h>
#include <string.h>

int ooms_string_nodes(const struct ooms_index *ix, uint32_t s, uint32_t *inst, uint32_t *chars)
{
	*inst = *chars = OOMS_NONE;
	if (s == OOMS_NONE || s >= ix->nodes)
		return -1;
	if (ooms_kind(ix, s) == NODE_PRIM_ARRAY) { /* JDK 8 and older: a char[] name */
		*chars = s;
		return 0;
	}
	if (ooms_kind(ix, s) != NODE_INSTANCE)
		return -1;
	*inst = s;
	for (uint32_t e = ix->off[s]; e < ix->off[s + 1]; e++) /* its one primitive array */
		if (ooms_kind(ix, ix->tgt[e]) == NODE_PRIM_ARRAY)
			*chars = ix->tgt[e];
	return 0;
}

int ooms_want(struct ooms_content **wants, size_t *n, size_t *cap, uint32_t node)
{
	struct ooms_content *c;

	if (node == OOMS_NONE)
		return 0;
	for (size_t j = 0; j < *n; j++)
		if ((*wants)[j].node == node)
			return 0;
	if (!(c = VEC_PUSH(*wants, *n, *cap)))
		return -ENOMEM;
	c->node = node;
	c->len = 0;
	return 0;
}

static const struct ooms_content *content_of(const struct ooms_content *w, size_t n, uint32_t node)
{
	for (size_t i = 0; node != OOMS_NONE && i < n; i++)
		if (w[i].node == node)
			return &w[i];
	return NULL;
}

/* The String's coder (JDK 9+: 0 Latin-1, 1 UTF-16), or -1 when it has none. */
static int string_coder(const struct ooms_index *ix, uint32_t s, const struct ooms_content *inst)
{
	uint32_t c = s != OOMS_NONE ? ooms_cls(ix, s) : OOMS_NONE;

	if (c == OOMS_NONE || !inst)
		return -1;
	for (uint32_t i = 0; i < ix->classes[c].nfields; i++) {
		const struct ooms_field *f = &ix->fields[ix->classes[c].fields_at + i];

		if (!strcmp(ooms_index_str(ix, f->name), "coder") && f->offset < inst->len)
			return inst->data[f->offset];
	}
	return -1;
}

void ooms_string_text(const struct ooms_index *ix, uint32_t inst, uint32_t chars_node, const struct ooms_content *wants,
		      size_t n, char *out, size_t len)
{
	const struct ooms_content *chars = content_of(wants, n, chars_node);
	int coder = string_coder(ix, inst, content_of(wants, n, inst));
	/* char[] (JDK 8, Android) is UTF-16 big-endian, as hprof writes values;
	 * a UTF-16 byte[] (coder 1) holds the chars as the JVM did: little-endian here */
	int wide, big_endian = coder != 1;
	size_t o = 0;

	if (!len)
		return;
	out[0] = 0;
	if (!chars)
		return;
	wide = ooms_cls(ix, chars_node) == ix->prim_class[HPROF_T_CHAR] || coder == 1;
	for (size_t i = 0; i + (wide ? 1 : 0) < chars->len && o + 1 < len; i += wide ? 2 : 1) {
		unsigned ch = wide ? (big_endian ? chars->data[i] << 8 | chars->data[i + 1] : chars->data[i + 1] << 8 | chars->data[i])
				   : chars->data[i];

		if (ch < 0x20 || ch == 0x7f)
			continue;
		out[o++] = ch < 0x80 ? (char)ch : '?';
	}
	out[o] = 0;
}
