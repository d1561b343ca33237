/* ART's OutOfMemoryError messages read (runtime/art_oom.c), in the forms
 * AOSP's heap.cc and its spaces write them. */
#include <string.h>
#include "runtime/art_oom.h"
#include "runtime/oom_text.h"
#include "tap.h"

int main(void)
{
	struct ooms_art_oom o;
	char why[256];

	ooms_art_oom_parse("Failed to allocate a 44040208 byte allocation with 25165824 free bytes and 30MB until OOM, "
			   "target footprint 268435456, growth limit 268435456", &o);
	TAP_EQ_STR(o.kind, "heap", "a failed allocation: the heap");
	TAP_EQ_INT(o.bytes, 44040208, "... its size");
	TAP_EQ_INT(o.free_bytes, 25165824, "... what was free");
	TAP_EQ_INT(o.until_oom, 30LL << 20, "... what was left below the growth limit (PrettySize 30MB)");
	TAP_EQ_INT(o.largest, -1, "... no fragmentation said");
	ooms_art_oom_explain(&o, why, sizeof(why));
	TAP_EQ_STR(why, "full: 24.0 MB free and 30.0 MB below the growth limit, the allocation needed 42.0 MB",
		   "... explained");

	ooms_art_oom_parse("Failed to allocate a 4194320 byte allocation with 12582912 free bytes and 11MB until OOM, "
			   "target footprint 201326592, growth limit 201326592; failed due to fragmentation (largest "
			   "possible contiguous allocation 3145728 bytes)", &o);
	TAP_EQ_INT(o.largest, 3145728, "region space fragmentation: the largest contiguous block");
	ooms_art_oom_explain(&o, why, sizeof(why));
	TAP_EQ_STR(why, "fragmented: 12.0 MB free, but at most 3.0 MB in one piece, and the allocation needed 4.0 MB",
		   "... explained as fragmentation");

	ooms_art_oom_parse("Failed to allocate a 65552 byte allocation with 1048576 free bytes and 1024KB until OOM, "
			   "target footprint 100663296, growth limit 100663296; failed due to fragmentation (required "
			   "contiguous free 131072 bytes for a new buffer where largest contiguous free 65536 bytes)", &o);
	TAP_EQ_INT(o.largest, 65536, "RosAlloc fragmentation: its largest contiguous free");
	TAP_EQ_INT(o.until_oom, 1024LL << 10, "PrettySize in KB");

	ooms_art_oom_parse("Failed to allocate a 16 byte allocation with 262144 free bytes and 256KB until OOM, target "
			   "footprint 536870912, growth limit 536870912; giving up on allocation because <1% of heap free "
			   "after GC.", &o);
	TAP_OK(o.below_min_free, "under 1%% free after GC said");
	ooms_art_oom_explain(&o, why, sizeof(why));
	TAP_OK(!strncmp(why, "full: under 1% of the heap free", 31), "... explained: %s", why);

	ooms_art_oom_parse("pthread_create (1040KB stack) failed: Try again", &o);
	TAP_EQ_STR(o.kind, "threads", "pthread_create's failure: threads");
	TAP_OK(ooms_art_oom_explain(&o, why, sizeof(why)) > 0, "... explained: %s", why);
	ooms_art_oom_parse("Could not allocate JNI Env: Failed anonymous mmap(0x0, 8192, 0x3, 0x22, -1, 0): Too many open "
			   "files. See process maps in the log.", &o);
	TAP_EQ_STR(o.kind, "threads", "no fd for a thread's JNI Env: threads");

	ooms_art_oom_parse("Java heap space", &o);
	TAP_EQ_STR(o.kind, "other", "not ART's words: other");
	TAP_EQ_INT(ooms_art_oom_explain(&o, why, sizeof(why)), 0, "... nothing more said");
	ooms_art_oom_parse("Failed to allocate a x byte allocation", &o);
	TAP_EQ_INT(o.bytes, -1, "a number that is not one: unknown");
	ooms_art_oom_parse(NULL, &o);
	TAP_EQ_STR(o.kind, "other", "no message: other");
	TAP_EQ_INT(ooms_art_oom_explain(&o, why, 1), 0, "a one-byte buffer: empty, terminated");
	/* printed by an app: the error's message, or prose about one */
	{
		char m[200];

		TAP_OK(ooms_oom_text_message("OutOfMemoryError: Cannot reserve 1048576 bytes of direct buffer memory\n\tat "
					     "java.nio.Bits", m, sizeof(m)) &&
			       !strcmp(m, "Cannot reserve 1048576 bytes of direct buffer memory"),
		       "printed: its message to the line's end");
		TAP_OK(ooms_oom_text_message("OutOfMemoryError\n\tat Foo.bar", m, sizeof(m)) && !m[0],
		       "printed with no message: empty");
		TAP_OK(ooms_oom_text_message("OutOfMemoryError", m, sizeof(m)) && !m[0], "the name alone at the end: empty");
		TAP_OK(!ooms_oom_text_message("OutOfMemoryError thrown from the UncaughtExceptionHandler in thread \"main\"",
					      m, sizeof(m)),
		       "the JVM's prose about one (thrown from the handler): not an error printed");
		TAP_OK(!ooms_oom_text_message("OutOfMemoryErrors are rare", m, sizeof(m)), "a longer word: not one");
		TAP_OK(!ooms_oom_text_message("no", m, sizeof(m)), "not at the name: not one");
	}
	printf("1..%d\n", tap_n);
	return tap_failed != 0;
}
