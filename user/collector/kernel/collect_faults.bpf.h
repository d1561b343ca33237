/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Part of collect.bpf.c (included at its end, for its maps and helpers):
 * sampled page faults, the code that first touched the target's new
 * memory. User space opens a software perf event counting page faults on
 * each CPU with a sample period of fault_period faults (kernel/faults.c);
 * every period-th fault on that CPU, whoever made it, runs this program,
 * which keeps the target's: the faulting address and the user stack. A
 * page fault is a page made resident, so the samples times the period
 * times the page size estimate the memory it touched into being. */

/* the pages one sample stands for (set by user space before the load) */
const volatile __u64 fault_period = 0;

SEC("perf_event")
int fault_sample(struct bpf_perf_event_data *ctx)
{
	struct ooms_event *e;

	if (!is_target())
		return 0;
	__sync_fetch_and_add(&totals.fault_samples, 1);
	e = event_start(EV_FAULT);
	if (!e)
		return 0;
	e->ret = (__s64)ctx->addr;
	e->arg0 = fault_period;
	/* the user registers at the fault (a fault from the kernel, copying
	 * to the user's memory, has the kernel's: its user stack is still
	 * the thread's) */
	event_stack(ctx, e, PT_REGS_SP(&ctx->regs), UPROBE_LR(&ctx->regs));
	event_send(e);
	return 0;
}
