/* uclamp.c - utilization clamping as Linux 6.1 aggregates it: each task's
 * effective clamps (its request, restricted by the system-wide limits), the
 * per-rq buckets that max-aggregate the clamps of the RUNNABLE tasks
 * (uclamp_rq_inc/dec, UCLAMP_FLAG_IDLE), and uclamp_rq_util_with() for
 * schedutil. Not the fit checks (fair_select.c, rt.c read uclamp_eff_value()).
 * Linux: the uclamp half of kernel/sched/core.c. State under rq->lock. */
#include "sched_internal.h"

/* Linux: CONFIG_UCLAMP_BUCKETS_COUNT (default 5, E1's configuration): bucket i
 * holds the clamp values [i x 205, (i + 1) x 205), the last one up to 1024. */
#define UCLAMP_BUCKET_DELTA ((SCHED_CAPACITY_SCALE + UCLAMP_BUCKETS / 2) / UCLAMP_BUCKETS)

/* Linux: sysctl_sched_uclamp_util_{min,max} (the system-wide limits: a task's
 * request above them is cut to them) and sysctl_sched_uclamp_util_min_rt_default
 * (the uclamp.min an RT task gets unless it asked for its own). */
static unsigned int sysctl_sched_uclamp_util_min = SCHED_CAPACITY_SCALE;
static unsigned int sysctl_sched_uclamp_util_max = SCHED_CAPACITY_SCALE;
static unsigned int sysctl_sched_uclamp_util_min_rt_default = SCHED_CAPACITY_SCALE;

/* Linux: the sched_uclamp_used static key: off until a clamp is first set
 * (task, sysctl), so a kernel with uclamp built in but unused skips the rq
 * buckets on the enqueue/dequeue paths. Never turned off again. */
static bool sched_uclamp_used;

unsigned int uclamp_none(enum uclamp_id clamp_id)
{
	return clamp_id == UCLAMP_MIN ? 0 : SCHED_CAPACITY_SCALE;
}

unsigned int uclamp_bucket_id(unsigned int clamp_value)
{
	return MIN(clamp_value / UCLAMP_BUCKET_DELTA, UCLAMP_BUCKETS - 1u);
}

static void uclamp_se_set(struct uclamp_se *uc_se, unsigned int value)
{
	uc_se->value = value & 0x7ff;
	uc_se->bucket_id = uclamp_bucket_id(value) & 0x1f;
}

/* The UCLAMP feature stands for CONFIG_UCLAMP_TASK: off, the kernel behaves
 * as one built without uclamp (no clamp anywhere). */
bool uclamp_is_used(void)
{
	return sched_feat(UCLAMP) && READ_ONCE(sched_uclamp_used);
}

void uclamp_mark_used(void)
{
	WRITE_ONCE(sched_uclamp_used, true);
}

/* Linux: uclamp_tg_restrict(): a task outside the root group has its request
 * clamped into its group's effective [uclamp.min, uclamp.max] (so the group's
 * min raises it, its max caps it); the root group's tasks keep theirs. */
static unsigned int uclamp_tg_restrict(const struct task_struct *p, enum uclamp_id clamp_id)
{
	unsigned int value = READ_ONCE(p->uclamp_req[clamp_id]);
	const struct task_group *tg = task_group(p);
	unsigned int tg_min, tg_max;

	if (tg == &root_task_group)
		return value;
	tg_min = READ_ONCE(tg->uclamp[UCLAMP_MIN]);
	tg_max = READ_ONCE(tg->uclamp[UCLAMP_MAX]);
	return value < tg_min ? tg_min : value > tg_max ? tg_max : value;
}

/* Linux: uclamp_eff_get(): the group-restricted request, cut to the system
 * limit. The value alone: the fit checks call this on every wakeup. */
static unsigned int uclamp_eff_get_value(const struct task_struct *p, enum uclamp_id clamp_id)
{
	unsigned int req = uclamp_tg_restrict(p, clamp_id);
	unsigned int limit = clamp_id == UCLAMP_MIN ? READ_ONCE(sysctl_sched_uclamp_util_min)
						    : READ_ONCE(sysctl_sched_uclamp_util_max);

	return MIN(req, limit);
}

static struct uclamp_se uclamp_eff_get(const struct task_struct *p, enum uclamp_id clamp_id)
{
	struct uclamp_se uc = { 0 };

	uclamp_se_set(&uc, uclamp_eff_get_value(p, clamp_id));
	return uc;
}

/* Linux: uclamp_eff_value(): while the task is counted in its rq's buckets,
 * the value it was counted with; otherwise what it would be counted with. */
unsigned long uclamp_eff_value(const struct task_struct *p, enum uclamp_id clamp_id)
{
	if (!sched_feat(UCLAMP))
		return uclamp_none(clamp_id); /* Linux without CONFIG_UCLAMP_TASK */
	if (p->uclamp[clamp_id].active)
		return p->uclamp[clamp_id].value;
	return uclamp_eff_get_value(p, clamp_id);
}

/* Linux: init_uclamp_rq(): no clamp, and idle (the max clamp held). */
void init_uclamp_rq(struct rq *rq)
{
	memset(rq->uclamp, 0, sizeof(rq->uclamp));
	for (int id = 0; id < UCLAMP_CNT; id++)
		rq->uclamp[id].value = uclamp_none(id);
	rq->uclamp_flags = UCLAMP_FLAG_IDLE;
}

/* Linux: uclamp_idle_value(): the last task left. The max clamp keeps its
 * value (flagged idle), so the blocked utilization that decays after it does
 * not push the frequency up; the min clamp drops to none. */
static unsigned int uclamp_idle_value(struct rq *rq, enum uclamp_id clamp_id, unsigned int value)
{
	if (clamp_id == UCLAMP_MAX) {
		rq->uclamp_flags |= UCLAMP_FLAG_IDLE;
		return value;
	}
	return uclamp_none(UCLAMP_MIN);
}

/* Linux: uclamp_rq_max_value(): both clamps are max-aggregated, so the top
 * bucket with tasks sets the rq's value. */
static unsigned int uclamp_rq_max_value(struct rq *rq, enum uclamp_id clamp_id, unsigned int value)
{
	const struct uclamp_bucket *bucket = rq->uclamp[clamp_id].bucket;

	for (int id = UCLAMP_BUCKETS - 1; id >= 0; id--)
		if (bucket[id].tasks)
			return bucket[id].value;
	return uclamp_idle_value(rq, clamp_id, value);
}

/* Linux: uclamp_rq_inc_id(): count p in the bucket of its effective clamp;
 * the bucket's value is the largest clamp counted in it since it was empty. */
static void uclamp_rq_inc_id(struct rq *rq, struct task_struct *p, enum uclamp_id clamp_id)
{
	struct uclamp_rq *uc_rq = &rq->uclamp[clamp_id];
	struct uclamp_se *uc_se = &p->uclamp[clamp_id];
	struct uclamp_bucket *bucket;

	*uc_se = uclamp_eff_get(p, clamp_id);
	bucket = &uc_rq->bucket[uc_se->bucket_id];
	bucket->tasks++;
	uc_se->active = 1;
	if (rq->uclamp_flags & UCLAMP_FLAG_IDLE) /* Linux: uclamp_idle_reset() */
		WRITE_ONCE(uc_rq->value, uc_se->value);
	if (bucket->tasks == 1 || uc_se->value > bucket->value)
		bucket->value = uc_se->value;
	if (uc_se->value > READ_ONCE(uc_rq->value))
		WRITE_ONCE(uc_rq->value, uc_se->value);
}

/* Linux: uclamp_rq_dec_id(). A bucket keeps its value while tasks remain in
 * it (Linux accepts that over-boost: the bucket width bounds it); an emptied
 * bucket that set the rq's value hands it to the next one down. */
static void uclamp_rq_dec_id(struct rq *rq, struct task_struct *p, enum uclamp_id clamp_id)
{
	struct uclamp_rq *uc_rq = &rq->uclamp[clamp_id];
	struct uclamp_se *uc_se = &p->uclamp[clamp_id];
	struct uclamp_bucket *bucket;
	unsigned int rq_clamp;

	if (!uc_se->active) /* enqueued before uclamp was used */
		return;
	bucket = &uc_rq->bucket[uc_se->bucket_id];
	WARN_ON_ONCE(!bucket->tasks);
	if (bucket->tasks)
		bucket->tasks--;
	uc_se->active = 0;
	if (bucket->tasks)
		return;
	rq_clamp = READ_ONCE(uc_rq->value);
	WARN_ON_ONCE(bucket->value > rq_clamp);
	if (bucket->value >= rq_clamp)
		WRITE_ONCE(uc_rq->value, uclamp_rq_max_value(rq, clamp_id, uc_se->value));
}

/* Linux: uclamp_rq_inc(), from enqueue_task() before the class's enqueue (so
 * the cpufreq update there sees the clamp); only the classes with
 * uclamp_enabled (fair, rt). */
void uclamp_rq_inc(struct rq *rq, struct task_struct *p)
{
	lockdep_assert_held(&rq->lock);
	if (!uclamp_is_used() || !p->sched_class->uclamp_enabled)
		return;
	for (int id = 0; id < UCLAMP_CNT; id++)
		uclamp_rq_inc_id(rq, p, id);
	rq->uclamp_flags &= ~UCLAMP_FLAG_IDLE; /* a RUNNABLE task ends the hold */
}

/* Linux: uclamp_rq_dec(). Runs on the active marks alone, so a task counted
 * before NO_UCLAMP is still taken out of its bucket. */
void uclamp_rq_dec(struct rq *rq, struct task_struct *p)
{
	lockdep_assert_held(&rq->lock);
	if (!p->uclamp[UCLAMP_MIN].active && !p->uclamp[UCLAMP_MAX].active)
		return;
	for (int id = 0; id < UCLAMP_CNT; id++)
		uclamp_rq_dec_id(rq, p, id);
}

/* Linux: uclamp_rq_util_with(): util clamped by the rq's aggregated clamps,
 * and by p's (a task about to be enqueued there; then an idle rq's held max
 * clamp is ignored, since p will reset it). Inverted clamps: min wins. */
unsigned long uclamp_rq_util_with(struct rq *rq, unsigned long util, const struct task_struct *p)
{
	unsigned long min_util = 0, max_util = 0;

	if (!uclamp_is_used())
		return util;
	if (p) {
		min_util = uclamp_eff_value(p, UCLAMP_MIN);
		max_util = uclamp_eff_value(p, UCLAMP_MAX);
		if (READ_ONCE(rq->uclamp_flags) & UCLAMP_FLAG_IDLE)
			goto out;
	}
	min_util = MAX(min_util, (unsigned long)READ_ONCE(rq->uclamp[UCLAMP_MIN].value));
	max_util = MAX(max_util, (unsigned long)READ_ONCE(rq->uclamp[UCLAMP_MAX].value));
out:
	if (min_util >= max_util)
		return min_util;
	return MIN(MAX(util, min_util), max_util);
}

/* Linux: the first loop of __setscheduler_uclamp() (and uclamp_fork() without
 * reset_on_fork): a clamp the user never set follows the policy: none, or the
 * RT default boost for an RT task's uclamp.min. Not queued (the caller's
 * dequeue/enqueue recounts it). */
void uclamp_policy_defaults(struct task_struct *p)
{
	for (int id = 0; id < UCLAMP_CNT; id++) {
		unsigned int v = uclamp_none(id);

		if (p->uclamp_user_defined[id])
			continue;
		if (task_has_rt_policy(p) && id == UCLAMP_MIN)
			v = READ_ONCE(sysctl_sched_uclamp_util_min_rt_default);
		WRITE_ONCE(p->uclamp_req[id], v);
	}
}

/* A user request (Linux: __setscheduler_uclamp() with SCHED_FLAG_UTIL_CLAMP).
 * The caller dequeues and enqueues p around it. */
void uclamp_set_request(struct task_struct *p, unsigned int min, unsigned int max)
{
	uclamp_mark_used(); /* Linux: uclamp_validate() */
	WRITE_ONCE(p->uclamp_req[UCLAMP_MIN], min);
	WRITE_ONCE(p->uclamp_req[UCLAMP_MAX], max);
	p->uclamp_user_defined[UCLAMP_MIN] = p->uclamp_user_defined[UCLAMP_MAX] = true;
}

/* Linux: uclamp_update_util_min_rt_default(): an RT task that never set its
 * uclamp.min follows the new default; the rq buckets see it at its next
 * enqueue, as in Linux. One word written: for_each_task()'s leaf rule holds. */
static void uclamp_sync_rt_default(struct task_struct *p, void *arg)
{
	if (task_has_rt_policy(p) && !p->uclamp_user_defined[UCLAMP_MIN])
		WRITE_ONCE(p->uclamp_req[UCLAMP_MIN], *(unsigned int *)arg);
}

/* Linux: sysctl_sched_uclamp_handler(): util_min <= util_max <= 1024 and
 * rt_default <= 1024, else refused (-1). New limits apply to each task at its
 * next enqueue (Linux also recounts the active ones, uclamp_update_root_tg()). */
int sched_uclamp_sysctl(unsigned int util_min, unsigned int util_max, unsigned int rt_default)
{
	if (util_min > util_max || util_max > SCHED_CAPACITY_SCALE ||
	    rt_default > SCHED_CAPACITY_SCALE)
		return -1;
	WRITE_ONCE(sysctl_sched_uclamp_util_min, util_min);
	WRITE_ONCE(sysctl_sched_uclamp_util_max, util_max);
	if (rt_default != READ_ONCE(sysctl_sched_uclamp_util_min_rt_default)) {
		WRITE_ONCE(sysctl_sched_uclamp_util_min_rt_default, rt_default);
		for_each_task(uclamp_sync_rt_default, &rt_default);
	}
	uclamp_mark_used();
	return 0;
}

void sched_uclamp_sysctl_get(unsigned int *util_min, unsigned int *util_max,
			     unsigned int *rt_default)
{
	*util_min = READ_ONCE(sysctl_sched_uclamp_util_min);
	*util_max = READ_ONCE(sysctl_sched_uclamp_util_max);
	*rt_default = READ_ONCE(sysctl_sched_uclamp_util_min_rt_default);
}

unsigned int uclamp_rq_value(unsigned int cpu, enum uclamp_id clamp_id)
{
	return READ_ONCE(cpu_rq(cpu)->uclamp[clamp_id].value);
}

#ifdef HOST_BUILD
/* Host tests: a fresh machine has uclamp unused and the default limits. */
void uclamp_host_reset(void)
{
	sched_uclamp_used = false;
	sysctl_sched_uclamp_util_min = sysctl_sched_uclamp_util_max = SCHED_CAPACITY_SCALE;
	sysctl_sched_uclamp_util_min_rt_default = SCHED_CAPACITY_SCALE;
}
#endif
