/* Strings written into the report's HTML/SVG and JSON exports. */
#ifndef OOMSCOPE_REPORT_ESCAPE_H
#define OOMSCOPE_REPORT_ESCAPE_H

#include <stdio.h>

/* s with < > & " as entities (NULL writes nothing). */
void esc_html(FILE *f, const char *s);
/* s as a quoted JSON string (NULL as ""). */
void esc_json(FILE *f, const char *s);

#endif
