/* What the parts of report.html share (html.c, html_heap.c). */
#ifndef OOMSCOPE_REPORT_HTML_INT_H
#define OOMSCOPE_REPORT_HTML_INT_H

#include <stddef.h>
#include <stdio.h>
#include "report/rundata.h"

#define TOP_GROUPS 25 /* rows per table */

/* "12.3 MB", "-" for NAN. */
const char *html_bytes(double b, char *buf, size_t len);
/* "Java heap: leaks and retainers": every analyzed dump's suspects, leak
 * groups and top retainers. */
void html_heap_section(FILE *f, const struct rundata *rd);

#endif
