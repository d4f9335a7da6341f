/* syscalls.c - changing a task's scheduling parameters: nice, policy and RT priority,
 * SCHED_DEADLINE's attributes, the EEVDF slice and uclamp (sched_setattr() and its parts),
 * each through change_task(): dequeue, change, requeue, tell the classes. Not affinity
 * (core.c's set_cpus_allowed(), as Linux keeps set_cpus_allowed_ptr() in core.c) nor DL
 * admission (deadline.c). Under p->pi_lock, then its rq->lock. Linux: kernel/sched/syscalls.c
 * (split from core.c in 6.11; 6.1 has these paths in core.c). */
#include "sched_internal.h"

/* Dequeue p, let fn change it, requeue it (Linux: the queued/running
 * dance of __sched_setscheduler and set_user_nice). */
static void change_task(struct task_struct *p, void (*fn)(struct task_struct *, long), long arg)
{
	unsigned long flags = spin_lock_irqsave(&p->pi_lock);
	const struct sched_class *prev_class = p->sched_class;
	int oldprio = p->prio;
	bool queued, running;
	struct rq *rq;

	if (p->state == TASK_NEW || p->cpu < 0) {
		fn(p, arg);
		spin_unlock_irqrestore(&p->pi_lock, flags);
		return;
	}
	rq = task_rq_lock(p); /* only now: a new task has no CPU (cpu -1) */
	update_rq_clock(rq);
	if (p->se.sched_delayed)
		block_delayed_task(rq, p); /* asleep: finish it (6.12 does for a class change) */
	queued = task_on_rq_queued(p);
	running = task_running(rq, p);
	if (queued) {
		sched_oracle_event(SCHED_EV_DEQUEUE, rq, p, 0);
		dequeue_task(rq, p, DEQUEUE_SAVE);
	}
	if (running) {
		sched_oracle_event(SCHED_EV_PUT_PREV, rq, p, 0);
		p->sched_class->put_prev_task(rq, p);
	}
	sched_oracle_event(SCHED_EV_CHANGE, rq, p, 0);
	fn(p, arg);
	sched_oracle_event(SCHED_EV_CHANGED, rq, p, 0);
	if (queued) {
		sched_oracle_event(SCHED_EV_ENQUEUE, rq, p, 0);
		enqueue_task(rq, p, ENQUEUE_RESTORE);
	}
	if (running) {
		sched_oracle_event(SCHED_EV_SET_NEXT, rq, p, 0);
		p->sched_class->set_next_task(rq, p, false);
	}
	if (prev_class != p->sched_class) {
		sched_oracle_event(SCHED_EV_SWITCHED, rq, p, 0);
		if (prev_class->switched_from)
			prev_class->switched_from(rq, p);
		if (p->sched_class->switched_to)
			p->sched_class->switched_to(rq, p);
		resched_curr(rq);
	} else if (p->prio != oldprio && p->sched_class->prio_changed) {
		p->sched_class->prio_changed(rq, p, oldprio);
	}
	if (queued && !running)
		check_preempt_curr(rq, p, 0);
	run_balance_callbacks(rq); /* Linux: __sched_setscheduler()'s balance_callbacks() */
	spin_unlock(&rq->lock);
	spin_unlock_irqrestore(&p->pi_lock, flags);
}

void sched_change_task(struct task_struct *p, void (*fn)(struct task_struct *, long), long arg)
{
	change_task(p, fn, arg);
}

static void apply_nice(struct task_struct *p, long nice)
{
	p->static_prio = NICE_TO_PRIO((int)nice);
	if (!task_has_rt_policy(p))
		p->prio = p->normal_prio = p->static_prio;
	set_load_weight(p, p->state != TASK_NEW && p->cpu >= 0);
}

int set_user_nice(struct task_struct *p, int nice)
{
	if (nice < -20 || nice > 19)
		return -1;
	change_task(p, apply_nice, nice);
	return 0;
}

int task_nice(const struct task_struct *p)
{
	return PRIO_TO_NICE(p->static_prio);
}

static void apply_policy(struct task_struct *p, long packed)
{
	unsigned int policy = (unsigned int)(packed >> 8), rt_prio = packed & 0xff;

	p->policy = policy;
	p->rt_priority = rt_prio;
	set_load_weight(p,
			p->state != TASK_NEW && p->cpu >= 0); /* Linux: before the class changes */
	if (policy == SCHED_FIFO || policy == SCHED_RR) {
		p->prio = p->normal_prio = MAX_RT_PRIO - 1 - (int)rt_prio;
		p->sched_class = &rt_sched_class;
		p->rt.time_slice = 100 * NSEC_PER_MSEC; /* Linux: sched_rr_timeslice */
	} else {
		p->prio = p->normal_prio = p->static_prio;
		p->sched_class = &fair_sched_class;
	}
	uclamp_policy_defaults(p); /* Linux: __setscheduler_uclamp() */
}

int sched_setscheduler(struct task_struct *p, unsigned int policy, unsigned int rt_priority)
{
	bool rt = policy == SCHED_FIFO || policy == SCHED_RR;

	if (policy != SCHED_NORMAL && policy != SCHED_BATCH && policy != SCHED_IDLE && !rt)
		return -1;
	if (rt ? (rt_priority < 1 || rt_priority > 99) : rt_priority != 0)
		return -1;
	if (p->is_idle)
		return -1;
	if (dl_task(p)) { /* its DL bandwidth goes at its 0-lag time (deadline.c) */
		struct sched_attr a = { .sched_policy = policy };

		sched_dl_overflow(p, &a);
	}
	change_task(p, apply_policy, (long)policy << 8 | rt_priority);
	return 0;
}

/* SCHED_DEADLINE's part of Linux's __setscheduler_params(): prio -1 (Linux:
 * MAX_DL_PRIO - 1), above every RT priority. */
static void apply_dl_attr(struct task_struct *p, long arg)
{
	const struct sched_attr *attr = (const struct sched_attr *)arg;

	p->policy = SCHED_DEADLINE;
	p->rt_priority = 0;
	set_load_weight(p, p->state != TASK_NEW && p->cpu >= 0);
	sched_dl_setparams(p, attr);
	p->prio = p->normal_prio = -1;
	p->sched_class = &dl_sched_class;
}

/* Linux 6.12's __setscheduler_params() for a fair policy: sched_runtime, when given, is
 * the task's own request (EEVDF's slice), clamped to 0.1-100 ms; 0 gives the base slice
 * back. CFS ignores it. */
static void apply_slice(struct task_struct *p, long ns)
{
	p->se.custom_slice = ns != 0;
	p->se.slice = ns ? (u64)MIN(MAX(ns, (long)NSEC_PER_MSEC / 10), 100 * (long)NSEC_PER_MSEC)
			 : sysctl_sched_base_slice;
}

int sched_set_slice(struct task_struct *p, u64 ns)
{
	if (p->is_idle || ns > 100 * NSEC_PER_MSEC * 10)
		return -EINVAL;
	if (p->se.custom_slice == (ns != 0) && (!ns || p->se.slice == ns))
		return 0; /* unchanged: no requeue (a CFS run stays as it was) */
	change_task(p, apply_slice, (long)ns);
	return 0;
}

/* Linux: sched_setattr() -> __sched_setscheduler(): check, admit, change. */
int sched_setattr(struct task_struct *p, const struct sched_attr *attr)
{
	int err;

	if (attr->sched_policy != SCHED_DEADLINE) {
		err = sched_setscheduler(p, attr->sched_policy, attr->sched_priority) ? -EINVAL : 0;
		if (!err && !task_has_rt_policy(p) && attr->sched_nice)
			err = set_user_nice(p, attr->sched_nice) ? -EINVAL : 0;
		if (!err && !task_has_rt_policy(p))
			err = sched_set_slice(p, attr->sched_runtime);
		return err;
	}
	if (p->is_idle || p->per_cpu_kthread || !sched_dl_param_ok(attr))
		return -EINVAL;
	if (!cpumask_subset(cpu_active_mask, &p->cpus_allowed))
		return -EPERM;
	err = sched_dl_overflow(p, attr);
	if (err)
		return err;
	change_task(p, apply_dl_attr, (long)attr);
	return 0;
}

static void apply_uclamp(struct task_struct *p, long packed)
{
	uclamp_set_request(p, (unsigned int)(packed >> 16), packed & 0xffff);
}

/* Linux: sched_setattr() with SCHED_FLAG_UTIL_CLAMP: a queued task is
 * dequeued and enqueued around the change, so its rq's buckets follow. */
int sched_set_uclamp(struct task_struct *p, unsigned int min, unsigned int max)
{
	if (min > max || max > SCHED_CAPACITY_SCALE)
		return -1;
	change_task(p, apply_uclamp, (long)min << 16 | max);
	return 0;
}
