/* Where oomscope's own temporary files go: $TMPDIR when it names a
 * directory, else /tmp, else /data/local/tmp (an Android device has no
 * /tmp; what is pushed there by adb lives there). */
#ifndef OOMSCOPE_UTIL_TMPDIR_H
#define OOMSCOPE_UTIL_TMPDIR_H

const char *ooms_tmpdir(void);
/* Where a default output goes: "" (the working directory) when it can be
 * written, else ooms_tmpdir() with a slash (adb shell starts in /, which
 * is read-only on a phone). */
const char *ooms_default_out_dir(void);

#endif
