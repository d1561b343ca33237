/* The kernel side: the BPF object collect.bpf.c loaded, attached and read
 * (kernel/ alone touches its skeleton). The rest of the collector holds a
 * struct coll_kernel and asks through the calls below; events leave through
 * the ring buffer's callback, given at coll_k_ring_open, so records flow one
 * way and nothing here calls up into the code that handles them.
 *   collect.c      the kernel checked, the programs loaded and attached
 *   compat.c       what this kernel's BPF has, probed (5.10 on)
 *   kprobe.c       --syscall-hook kprobe's kretprobes
 *   faults.c       the sampled page faults' perf events
 *   ring.c         the one reader of the ring buffer
 *   sets.c         the fd and thread sets: seeded, made right, read back
 *   kernel_side.c  the object's totals and records, as the rest may see them */
#ifndef OOMSCOPE_COLLECTOR_KERNEL_KERNEL_SIDE_H
#define OOMSCOPE_COLLECTOR_KERNEL_KERNEL_SIDE_H

#include <bpf/libbpf.h>
#include <stdint.h>
#include <sys/types.h>

#include "collector/collector.h"
#include "collector/kernel/collect.h"
#include "collector/kernel/compat.h"
#include "collector/kernel/set_snapshot.h"
#include "collector/kernel/syscall_table.h"

struct collect_bpf; /* the skeleton (collect.skel.h): kernel/'s alone */

struct coll_kernel {
	/* given before coll_k_check */
	const struct ooms_watch_opts *o;
	pid_t pid;
	enum ooms_arch arch;
	int launched;              /* started by oomscope: its code maps are held (hold_code_maps) */
	/* its own */
	struct collect_bpf *skel;
	struct ring_buffer *rb;
	int ring_busy;             /* the ring buffer is being read (ring.c) */
	int aarch32;               /* a 32-bit ARM process on an arm64 kernel: no uprobe fires in it */
	int alloc_mode;            /* --big-alloc-mode as used: syscall when uprobes cannot be */
	struct bpf_link *libc_link;
	char libc_path[512];
	char syscall_hook[96];     /* the hook that was chosen, for the start record */
	int hook;                  /* OOMS_HOOK_FEXIT, _SYSCALLS or _RAW once loaded */
	int fexit_err;             /* why this kernel refused a probe fexit program (0: it did not) */
	struct bpf_link *sc_links[OOMS_FEXIT_SLOTS]; /* syscalls:sys_exit_* or kretprobe links */
	int nsc_links;
	char kp_events[OOMS_FEXIT_SLOTS][48];      /* the kretprobe events made (kprobe.c) */
	int kp_made;
	struct bpf_link *alloc_links[24];
	int nalloc_links;
	int memalign_is_aligned_alloc;
	uint64_t fault_period;     /* page faults per sample (0: none sampled); set before coll_k_load */
	struct bpf_link **fault_links; /* the sampled page faults' perf events, one a CPU (faults.c) */
	int nfault_links;
	uint64_t *fd_bits;         /* the BPF fd bitmap, mmap-ed */
	size_t fd_words;
	char tracefs[256];
	int tracefs_mounted;
	struct coll_kcompat compat; /* what this kernel's BPF has (coll_k_check) */
	uint64_t regs_off;          /* no bpf_task_pt_regs: where user registers sit past the stack's base (0: not learned) */
	char fallbacks[256];        /* what the kernel lacks and how oomscope does without, for the start record ("": nothing) */
};

/* Loading and attaching (collect.c): tracefs, BTF and the events needed
 * checked (said; -1); the programs loaded and attached with the first
 * syscall hook this kernel takes (0 or -1, said); the pthread_create probe
 * on the target's libc (again at each exec: the path is compared); the
 * allocator's uprobes for --big-alloc-mode uprobe (0 or -1). */
int coll_k_check(struct coll_kernel *ks);
int coll_k_load(struct coll_kernel *ks);
void coll_k_attach_libc(struct coll_kernel *ks);
int coll_k_attach_allocs(struct coll_kernel *ks);
uint32_t coll_ringbuf_bytes(const struct ooms_watch_opts *o);
void coll_explain_bpf_error(const char *what, int e);
/* BPF programs the kernel skipped (another program was running on the CPU). */
uint64_t coll_k_skipped_runs(struct coll_kernel *ks);
/* Everything undone: links, probes, maps, the object, tracefs if mounted. */
void coll_k_close(struct coll_kernel *ks);

/* Sampled page faults (faults.c): a perf event counting page faults on
 * each CPU, one in fault_period running the BPF program (0, or -errno:
 * none attached); taken off. */
int coll_k_faults_attach(struct coll_kernel *ks);
void coll_k_faults_detach(struct coll_kernel *ks);

/* --syscall-hook kprobe (kprobe.c): the kretprobes made in tracefs and
 * attached (their count, or a negative errno with failed naming it), undone,
 * and the returns they missed so far. */
int coll_k_kretprobes_attach(struct coll_kernel *ks, char *failed, size_t failed_len);
void coll_k_kretprobes_detach(struct coll_kernel *ks);
uint64_t coll_k_kretprobes_missed(struct coll_kernel *ks);

/* The ring buffer (ring.c): opened with the callback its events go to;
 * read (-1 when it is being read already: a snapshot taken while handling
 * an event ticks back here); its fd for epoll. coll_k_tick is the same
 * read with a void * (a long /proc read's tick). */
int coll_k_ring_open(struct coll_kernel *ks, ring_buffer_sample_fn on_event, void *ctx);
int coll_k_read_ring(struct coll_kernel *ks);
void coll_k_tick(void *ks);
int coll_k_ring_fd(struct coll_kernel *ks);
struct ring_buffer *coll_k_ring(struct coll_kernel *ks);

/* The sets (sets.c): keys added to a BPF set (how many were new; pid 0: no
 * check that each still lives); a snapshot's fds or tids as keys (malloc'd);
 * the fd bitmap made equal to a snapshot (add_only: only set; the change in
 * members, *corrected the members set or cleared); the fd or thread set
 * made right as of now, the totals moved with it (how many members were
 * wrong); the sets' places for a reading of them. */
int64_t coll_seed_set(pid_t pid, int map_fd, const int *keys, size_t n);
int *coll_snapshot_keys(const struct ooms_snapshot *s, int fds);
int64_t coll_k_sync_fd_bits(struct coll_kernel *ks, const struct ooms_snapshot *s, int add_only, int64_t *corrected);
int64_t coll_k_resync(struct coll_kernel *ks, const struct ooms_snapshot *s, int fds);
void coll_k_held_sets(struct coll_kernel *ks, struct ooms_held_sets *h);

/* The object as the rest may see it (kernel_side.c): its totals; when the
 * OOM killer chose the target (0: not yet); whether it saw the target's
 * last thread leave; its records of the end (death, the last signals, the
 * OOM victim); the kernel's count of a failure key (0, or -1) and the map
 * holding them; the Java stacks' signal; the direct-memory programs
 * (UNSAFE_PROBES of them); whether it holds code maps; the live threads'
 * set; the syscall hook chosen and the allocator's mode, as the start
 * record says them. */
volatile struct ooms_totals *coll_k_totals(struct coll_kernel *ks);
uint64_t coll_k_oom_ns(struct coll_kernel *ks);
int coll_k_death_seen(struct coll_kernel *ks);
void coll_k_end_records(struct coll_kernel *ks, const struct ooms_death **death, const struct ooms_sig_rec **sigs,
			const struct ooms_oom_victim **oom);
/* The ring of SIGKILLs and SIGTERMs any process sent another (OOMS_KILLS
 * records, in any order; ts_ns 0: an empty one). */
const struct ooms_kill_rec *coll_k_kills(struct coll_kernel *ks, size_t *n);
int coll_k_fail_count(struct coll_kernel *ks, const struct ooms_fail_key *key, struct ooms_fail_count *n);
int coll_k_fail_counts_fd(struct coll_kernel *ks);
void coll_k_java_signal(struct coll_kernel *ks, int sig);
void coll_k_direct_progs(struct coll_kernel *ks, struct bpf_program **progs);
int coll_k_hold_code_maps(struct coll_kernel *ks);
int coll_k_live_threads_fd(struct coll_kernel *ks);

#endif
