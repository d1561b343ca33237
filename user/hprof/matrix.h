/* Matrix mode's first pass: which primitive arrays to keep whole. The
 * backing arrays of java.lang.String (field `value`), and of Bitmap pixel
 * buffers (android.graphics.Bitmap `mBuffer`) one copy per distinct content. */
#ifndef OOMSCOPE_HPROF_MATRIX_H
#define OOMSCOPE_HPROF_MATRIX_H

#include <stdio.h>
#include "hprof/idset.h"

/* Reads fd to the end; fills keep (initialized here). 0, or 1 after printing
 * an error to err. */
int hprof_matrix_scan(int fd, const char *name, struct hprof_idset *keep, FILE *err);

#endif
