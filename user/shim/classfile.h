/* A class file's constructors made to call a static hook with the new
 * object, just before each returns (its fields are set by then): how the
 * shim sees every OutOfMemoryError built in Java code (java.nio.Bits's
 * "Cannot reserve ... direct buffer memory", a library's), which neither
 * HotSpot's OOM report nor JVMTI's ResourceExhausted sees. Pure: bytes in,
 * bytes out, no JVM (tested on the JDK's own OutOfMemoryError.class).
 *
 * Only straight-line constructors are rewritten (no branch, switch or
 * exception handler: the hook's 4 bytes then move no jump target, and no
 * StackMapTable is needed); a constructor that is not is left as it was.
 * LineNumberTable and LocalVariable(Type)Table offsets follow the code. */
#ifndef OOMSCOPE_SHIM_CLASSFILE_H
#define OOMSCOPE_SHIM_CLASSFILE_H

#include <stddef.h>
#include <stdint.h>

/* Rewrites the class file in[0..n) into out (cap bytes; n + 256 is
 * enough for a class with up to 40 constructors): each straight-line
 * <init> calls hook_class.hook_name(hook_desc) with `this` (aload_0;
 * invokestatic) before its returns. Returns the bytes written and sets
 * *hooked to the constructors rewritten, or -1 (not a class file, cut
 * short, out too small). */
long shim_classfile_hook_ctors(const uint8_t *in, size_t n, const char *hook_class, const char *hook_name,
			       const char *hook_desc, uint8_t *out, size_t cap, int *hooked);

/* The hook class itself: `public final class NAME { public static native
 * void METHOD(DESC); }`, a class file (version 52) built into out. Returns
 * its length, or -1 when out is too small. */
long shim_classfile_hook_class(const char *name, const char *method, const char *desc, uint8_t *out, size_t cap);

#endif
