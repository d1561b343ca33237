/* libandroid_app.so: the app's own code, installed at /system/lib64 in the
 * Android layout test (android.bats): its frames are on the stacks of the
 * files, the thread and the large block it makes, so they must be
 * symbolized from the file as the target's mount namespace shows it. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__((noinline)) int app_open_cache_files(int n)
{
	int made = 0;

	for (int i = 0; i < n; i++)
		made += open("/system/lib64/libandroid_app.so", O_RDONLY | O_CLOEXEC) >= 0;
	return made;
}

__attribute__((noinline)) void *app_load_image(size_t bytes)
{
	char *p = malloc(bytes);

	if (p)
		memset(p, 1, 4096);
	return p;
}

__attribute__((noinline)) static void *app_worker_main(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

__attribute__((noinline)) int app_start_worker(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, app_worker_main, NULL))
		return -1;
	pthread_setname_np(t, "FinalizerDaemon");
	return 0;
}
