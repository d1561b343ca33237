/* The app's base.odex stand-in (android.bats): compiled Java of the app's
 * own, "com.example.leakyapp.CacheLoader.openAll" once make_oat.sh renames
 * it (in .gnu_debugdata only, as dex2oat writes it), which opens files
 * through the platform's java.io.FileInputStream.<init> (oat_boot.c). */
typedef int (*fis_init_fn)(const char *path);

__attribute__((noinline, visibility("hidden"))) int cacheloader_open_all(fis_init_fn fis_init, const char *path, int n)
{
	int made = 0;

	for (int i = 0; i < n; i++)
		made += fis_init(path) >= 0;
	return made;
}

const void *const oatdata[] = {(const void *)cacheloader_open_all};
