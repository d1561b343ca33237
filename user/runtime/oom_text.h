/* An OutOfMemoryError as an app prints it (the default handler of an
 * uncaught one: "Exception in thread "main" java.lang.OutOfMemoryError:
 * MESSAGE"), told from prose about one (the JVM's "Exception:
 * java.lang.OutOfMemoryError thrown from the UncaughtExceptionHandler in
 * thread ..."). Pure. */
#ifndef OOMSCOPE_RUNTIME_OOM_TEXT_H
#define OOMSCOPE_RUNTIME_OOM_TEXT_H

#include <stddef.h>

/* text starts at "OutOfMemoryError": 1 with its message (to the line's
 * end; "" for none) in msg, or 0 when it is not an error printed. */
int ooms_oom_text_message(const char *text, char *msg, size_t len);

#endif
