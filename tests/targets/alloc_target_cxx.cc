/* The C++ side of alloc_target: large allocations through operator new and
 * operator new[] (libstdc++), each from a named function in a named thread:
 *   parser:  build_index   new char[]      48 MiB
 *            build_index   new char[]     512 KiB (under the threshold)
 *   worker:  make_table    new Table        12 MiB (one object)
 * It prints "ready pid=N", waits for SIGUSR1, allocates, prints "allocated",
 * deletes build_index's array and prints "freed", then sleeps until killed.
 * operator new calls malloc itself: each block must be reported once, under
 * the operator, not a second time as malloc. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const size_t MiB = 1024 * 1024;

struct Table {
	char cells[12 * 1024 * 1024];
};

/* volatile: the compiler may drop an allocation whose result is never read */
static char *volatile index_block, *volatile small_block;
static Table *volatile table;
static volatile sig_atomic_t go;

static void on_usr1(int) { go = 1; }

__attribute__((noinline)) static void build_index()
{
	index_block = new char[48 * MiB];
	memset(index_block, 1, 4096);
	small_block = new char[512 * 1024];
}

__attribute__((noinline)) static void make_table()
{
	table = new Table;
	table->cells[0] = 1;
}

struct job {
	const char *name;
	void (*fn)();
};

static void *run(void *arg)
{
	job *j = static_cast<job *>(arg);

	pthread_setname_np(pthread_self(), j->name); /* before any allocation */
	j->fn();
	return nullptr;
}

static void in_thread(const char *name, void (*fn)())
{
	job j = {name, fn};
	pthread_t t;

	pthread_create(&t, nullptr, run, &j);
	pthread_join(t, nullptr);
}

int main()
{
	signal(SIGUSR1, on_usr1);
	printf("ready pid=%d\n", (int)getpid());
	fflush(stdout);
	while (!go)
		pause();
	in_thread("parser", build_index);
	in_thread("worker", make_table);
	printf("allocated\n");
	fflush(stdout);
	sleep(1);
	delete[] index_block;
	printf("freed\n");
	fflush(stdout);
	for (;;)
		pause();
}
