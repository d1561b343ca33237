/* The check that a JVM mapped the shim from the file oomscope wrote into its
 * /tmp (runtime/shim_client.c): by device and inode in /proc/PID/maps, so a
 * file swapped in at that name, before or after the copy, is refused. */
#include <errno.h>
#include <string.h>
#include <sys/sysmacros.h>
#include "runtime/shim_client.h"
#include "tap.h"

#define LIBC "7f0000000000-7f0000001000 r-xp 00000000 fe:01 1234 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
#define SHIM(dev, ino, path)                                                                        \
	"7f1000000000-7f1000010000 r--p 00000000 " dev " " ino "   " path "\n"                        \
	"7f1000010000-7f1000020000 r-xp 00010000 " dev " " ino "   " path "\n"

int main(void)
{
	dev_t d = makedev(0, 0x2a);
	struct ooms_err why = {0};

	/* the copy, mapped from the inode written */
	TAP_EQ_INT(shim_client_maps_match(LIBC SHIM("00:2a", "777", "/tmp/oomscope-shim-42.so"), "oomscope-shim-42.so", d,
					  777, &why),
		   1, "the file written, mapped: accepted");
	/* still accepted once the copy is removed from /tmp */
	TAP_EQ_INT(shim_client_maps_match(SHIM("00:2a", "777", "/tmp/oomscope-shim-42.so (deleted)") LIBC,
					  "oomscope-shim-42.so", d, 777, &why),
		   1, "the file written, mapped and since removed: accepted");
	/* a target in another mount namespace: the path as this side sees it */
	TAP_EQ_INT(shim_client_maps_match(SHIM("00:2a", "777", "/var/lib/c/rootfs/tmp/oomscope-shim-42.so"),
					  "oomscope-shim-42.so", d, 777, &why),
		   1, "a longer path ending in the name: accepted");
	/* swapped: the same name, another inode */
	TAP_EQ_INT(shim_client_maps_match(LIBC SHIM("00:2a", "778", "/tmp/oomscope-shim-42.so"), "oomscope-shim-42.so", d,
					  777, &why),
		   0, "another inode at the name: refused");
	TAP_OK(strstr(why.msg, "/tmp/oomscope-shim-42.so from inode 00:2a 778, not the file oomscope wrote (00:2a 777)") != NULL,
	       "the refusal names both inodes: %s", why.msg);
	TAP_OK(!strchr(why.msg, '\n'), "in one line");
	TAP_EQ_INT(why.code, -EPERM, "under -EPERM, the code the load is refused with");
	/* the same inode number on another device */
	TAP_EQ_INT(shim_client_maps_match(SHIM("fe:01", "777", "/tmp/oomscope-shim-42.so"), "oomscope-shim-42.so", d, 777,
					  &why),
		   0, "another device: refused");
	/* ours and another at the same name: refused */
	TAP_EQ_INT(shim_client_maps_match(SHIM("00:2a", "777", "/tmp/oomscope-shim-42.so")
						  SHIM("00:2a", "999", "/tmp/oomscope-shim-42.so (deleted)"),
					  "oomscope-shim-42.so", d, 777, &why),
		   0, "a second file mapped at the name: refused");
	/* not mapped at all (the JVM said it loaded something else) */
	TAP_EQ_INT(shim_client_maps_match(LIBC, "oomscope-shim-42.so", d, 777, &why), 0,
		   "not mapped: refused");
	TAP_EQ_STR(why.msg, "maps no oomscope-shim-42.so", "said so");
	/* a name that merely ends like it is not it */
	TAP_EQ_INT(shim_client_maps_match(SHIM("00:2a", "999", "/tmp/xoomscope-shim-42.so") SHIM("00:2a", "777", "/tmp/oomscope-shim-42.so"),
					  "oomscope-shim-42.so", d, 777, &why),
		   1, "another file whose name ends alike: not taken for it");
	/* anonymous mappings and short lines are skipped */
	TAP_EQ_INT(shim_client_maps_match("7f00-7f01 rw-p 00000000 00:00 0 \n7f02-7f03 rw-p 0\n" SHIM("00:2a", "777", "/tmp/oomscope-shim-42.so"),
					  "oomscope-shim-42.so", d, 777, &why),
		   1, "anonymous and cut lines skipped");
	return tap_done();
}
