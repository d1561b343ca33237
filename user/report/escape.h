/* Strings written into the report's HTML and SVG (JSON goes through util/json.h). */
#ifndef OOMSCOPE_REPORT_ESCAPE_H
#define OOMSCOPE_REPORT_ESCAPE_H

#include <stdio.h>

/* s with < > & " as entities (NULL writes nothing). */
void esc_html(FILE *f, const char *s);

#endif
