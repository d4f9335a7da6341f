/* fair_eevdf.c - the fair class's policy under sched=eevdf, as Linux 6.12.117 runs it:
 * the load-weighted average vruntime V (avg_vruntime/avg_load, kept incrementally),
 * eligibility, the earliest eligible virtual deadline pick on the tree ordered by
 * deadline and augmented with each subtree's least vruntime, deadlines from the base
 * slice or a task's own, placement with lag, reweight with lag kept, and the boot/shell
 * switch sched=cfs|eevdf. Not the class's bookkeeping up the hierarchy, PELT or wakeup
 * placement (fair.c, fair_pelt.c, fair_select.c: they stay 6.1's, deviations.md). State
 * under rq->lock. Linux: kernel/sched/fair.c (6.12.117), written fresh from its rules. */
#include "bootargs.h"
#include "sched_internal.h"
#include "trace.h"

bool sysctl_sched_eevdf; /* false: CFS (6.1), the default */

/* Linux 6.12: 0.7 ms x (1 + ilog2(min(nr_cpus, 8))), SCHED_TUNABLESCALING_LOG as 6.1's
 * latency: 2.8 ms on 8 CPUs. */
unsigned int sysctl_sched_base_slice = 700000;

void eevdf_tunables_init(unsigned int factor)
{
	sysctl_sched_base_slice = 700000 * factor;
}

/* ---- V: the weighted average vruntime -------------------------------------------------
 *
 *   lag_i = w_i x (V - v_i),  sum lag_i = 0  =>  V = sum w_i v_i / sum w_i
 *
 * kept as keys against an origin that follows V (zero_vruntime), so the products stay
 * small: avg_vruntime = sum (v_i - zero) x w_i and avg_load = sum w_i over the tree;
 * curr, out of the tree while it runs, is added in by whoever reads V. Weights are
 * Linux's scale_load_down() ones (NICE_0 = 1024), which is all we have. */

static s64 entity_key(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	return (s64)(se->vruntime - cfs_rq->zero_vruntime);
}

static void avg_vruntime_add(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	cfs_rq->avg_vruntime += entity_key(cfs_rq, se) * (s64)se->load.weight;
	cfs_rq->avg_load += (long)se->load.weight;
}

static void avg_vruntime_sub(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	cfs_rq->avg_vruntime -= entity_key(cfs_rq, se) * (s64)se->load.weight;
	cfs_rq->avg_load -= (long)se->load.weight;
}

/* Moving the origin by d moves every key by -d. */
static void update_zero_vruntime(struct cfs_rq *cfs_rq, s64 delta)
{
	cfs_rq->avg_vruntime -= cfs_rq->avg_load * delta;
	cfs_rq->zero_vruntime += (u64)delta;
}

static struct sched_entity *queued_curr(struct cfs_rq *cfs_rq)
{
	struct sched_entity *curr = cfs_rq->curr;

	return curr && curr->on_rq ? curr : NULL;
}

/* V - zero_vruntime, rounded towards -inf (so that an entity at V is eligible). */
static s64 avg_vruntime_delta(struct cfs_rq *cfs_rq)
{
	struct sched_entity *curr = queued_curr(cfs_rq);
	long weight = cfs_rq->avg_load;

	if (weight) {
		s64 runtime = cfs_rq->avg_vruntime;

		if (curr) {
			runtime += entity_key(cfs_rq, curr) * (s64)curr->load.weight;
			weight += (long)curr->load.weight;
		}
		if (runtime < 0)
			runtime -= weight - 1; /* floor, not C's truncation */
		return runtime / weight;
	}
	return curr ? entity_key(cfs_rq, curr) : 0; /* alone: it is the average */
}

/* V, and the origin moved to it. Linux 6.12.117: avg_vruntime(). */
u64 avg_vruntime(struct cfs_rq *cfs_rq)
{
	update_zero_vruntime(cfs_rq, avg_vruntime_delta(cfs_rq));
	return cfs_rq->zero_vruntime;
}

/* V - v, clamped to twice the slice (at least a tick) in the entity's virtual time:
 * V moves as entities come and go, and lag could otherwise grow without bound.
 * Linux: entity_lag(). */
static s64 entity_lag(u64 avruntime, struct sched_entity *se)
{
	s64 vlag = (s64)(avruntime - se->vruntime);
	s64 limit = (s64)calc_delta_fair(MAX(2 * se->slice, (u64)TICK_NSEC), se);

	return vlag < -limit ? -limit : (vlag > limit ? limit : vlag);
}

void eevdf_update_entity_lag(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	WARN_ON_ONCE(!se->on_rq);
	se->vlag = entity_lag(avg_vruntime(cfs_rq), se);
}

/* Eligible: owed service, lag >= 0, i.e. v <= V, asked without dividing:
 * sum (v_i - zero) w_i >= (v - zero) x sum w_i. Linux: vruntime_eligible(). */
static bool vruntime_eligible(struct cfs_rq *cfs_rq, u64 vruntime)
{
	struct sched_entity *curr = queued_curr(cfs_rq);
	s64 avg = cfs_rq->avg_vruntime;
	long load = cfs_rq->avg_load;

	if (curr) {
		avg += entity_key(cfs_rq, curr) * (s64)curr->load.weight;
		load += (long)curr->load.weight;
	}
	return avg >= (s64)(vruntime - cfs_rq->zero_vruntime) * load;
}

bool entity_eligible(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	return vruntime_eligible(cfs_rq, se->vruntime);
}

/* ---- the tree: ordered by deadline, each node caching its subtree's least vruntime
 * (the heap that prunes the eligibility search) and least slice (a group's slice). */

static struct sched_entity *node_se(const struct rb_node *n)
{
	return n ? rb_entry(n, struct sched_entity, run_node) : NULL;
}

static bool deadline_less(const struct rb_node *a, const struct rb_node *b)
{
	return (s64)(node_se(a)->deadline - node_se(b)->deadline) < 0;
}

static void min_vruntime_aug(struct rb_node *n)
{
	struct sched_entity *se = node_se(n), *c;
	const struct rb_node *kids[2] = { n->left, n->right };

	se->min_vruntime = se->vruntime;
	se->min_slice = se->slice;
	for (int i = 0; i < 2; i++) {
		c = node_se(kids[i]);
		if (!c)
			continue;
		if ((s64)(se->min_vruntime - c->min_vruntime) > 0)
			se->min_vruntime = c->min_vruntime;
		if (c->min_slice < se->min_slice)
			se->min_slice = c->min_slice;
	}
}

void eevdf_enqueue_tree(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	avg_vruntime_add(cfs_rq, se);
	se->min_vruntime = se->vruntime;
	se->min_slice = se->slice;
	rb_insert_augmented_cached(&cfs_rq->tasks_timeline, &se->run_node, deadline_less,
				   min_vruntime_aug);
}

void eevdf_dequeue_tree(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	rb_erase_augmented_cached(&cfs_rq->tasks_timeline, &se->run_node, min_vruntime_aug);
	avg_vruntime_sub(cfs_rq, se);
}

/* A queued entity's slice changed in place (a group's, at enqueue): its ancestors'. */
void eevdf_propagate(struct sched_entity *se)
{
	for (struct rb_node *n = &se->run_node; n; n = n->parent)
		min_vruntime_aug(n);
}

/* A delayed sleeper wakes (Linux 6.12: requeue_delayed_entity()): with DELAY_ZERO, one
 * that became eligible meanwhile starts again at lag 0, placed as if it joined now. */
void requeue_delayed_entity(struct sched_entity *se)
{
	struct cfs_rq *cfs_rq = cfs_rq_of(se);

	WARN_ON_ONCE(!se->sched_delayed || !se->on_rq);
	if (sched_feat(DELAY_ZERO)) {
		eevdf_update_entity_lag(cfs_rq, se);
		if (se->vlag > 0) {
			cfs_rq->nr_running--;
			if (se != cfs_rq->curr)
				eevdf_dequeue_tree(cfs_rq, se);
			se->vlag = 0;
			eevdf_place_entity(cfs_rq, se, 0);
			if (se != cfs_rq->curr)
				eevdf_enqueue_tree(cfs_rq, se);
			cfs_rq->nr_running++;
		}
	}
	update_load_avg(cfs_rq, se, 0);
	se->sched_delayed = false;
}

/* The least slice queued here, curr's included. Linux: cfs_rq_min_slice(). */
u64 cfs_rq_min_slice(struct cfs_rq *cfs_rq)
{
	struct sched_entity *curr = queued_curr(cfs_rq);
	struct sched_entity *root = node_se(cfs_rq->tasks_timeline.rb_root.rb_node);
	u64 min_slice = ~0ull;

	if (curr)
		min_slice = curr->slice;
	if (root)
		min_slice = MIN(min_slice, root->min_slice);
	return min_slice;
}

/* RUN_TO_PARITY: at the pick, vlag (unused until the dequeue) holds the deadline; while
 * it still does, curr keeps the CPU until its request is served. Linux 6.12's stash. */
void eevdf_set_protect_slice(struct sched_entity *se)
{
	se->vlag = (s64)se->deadline;
}

static bool protect_slice(struct sched_entity *se)
{
	return se->vlag == (s64)se->deadline;
}

void eevdf_cancel_protect_slice(struct sched_entity *se)
{
	if (protect_slice(se))
		se->vlag = (s64)se->deadline + 1;
}

/* Earliest eligible virtual deadline first (Linux: pick_eevdf()). curr, out of the tree,
 * competes too: kept while RUN_TO_PARITY protects it, taken over the tree's choice if
 * its deadline is earlier. The tree is a search tree on deadline and a heap on
 * min_vruntime: go left while the left subtree holds an eligible entity, else take this
 * node if eligible, else go right. */
struct sched_entity *pick_eevdf(struct cfs_rq *cfs_rq)
{
	struct rb_node *node = cfs_rq->tasks_timeline.rb_root.rb_node;
	struct sched_entity *se = node_se(rb_first_cached(&cfs_rq->tasks_timeline));
	struct sched_entity *curr = cfs_rq->curr, *best = NULL;

	if (cfs_rq->nr_running == 1)
		return curr && curr->on_rq ? curr : se;
	if (curr && (!curr->on_rq || !entity_eligible(cfs_rq, curr)))
		curr = NULL;
	if (sched_feat(RUN_TO_PARITY) && curr && protect_slice(curr))
		return curr;
	if (se && entity_eligible(cfs_rq, se)) {
		best = se; /* the earliest deadline of all, and eligible */
	} else {
		while (node) {
			struct rb_node *left = node->left;

			if (left && vruntime_eligible(cfs_rq, node_se(left)->min_vruntime)) {
				node = left;
				continue;
			}
			se = node_se(node);
			if (entity_eligible(cfs_rq, se)) {
				best = se;
				break;
			}
			node = node->right;
		}
	}
	if (!best || (curr && (s64)(curr->deadline - best->deadline) < 0))
		best = curr;
	return best;
}

/* Linux 6.12: pick_next_entity(): the next buddy if eligible (PICK_BUDDY), else EEVDF.
 * (No DELAY_DEQUEUE here: a picked entity is never a delayed one.) */
struct sched_entity *eevdf_pick_next_entity(struct cfs_rq *cfs_rq)
{
	if (sched_feat(PICK_BUDDY) && cfs_rq->next && entity_eligible(cfs_rq, cfs_rq->next))
		return cfs_rq->next;
	return pick_eevdf(cfs_rq);
}

/* The rule that makes se (queued or curr on cfs_rq) the pick now, for `why`. */
const char *eevdf_pick_rule(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	if (cfs_rq->nr_running <= 1)
		return "alone";
	if (cfs_rq->curr == se && sched_feat(RUN_TO_PARITY) && protect_slice(se) &&
	    entity_eligible(cfs_rq, se))
		return "run-to-parity (slice protected)";
	if (sched_feat(PICK_BUDDY) && cfs_rq->next == se && entity_eligible(cfs_rq, se))
		return "next buddy, eligible";
	if (!entity_eligible(cfs_rq, se))
		return "not eligible (lag < 0): not the pick";
	return pick_eevdf(cfs_rq) == se ? "earliest eligible virtual deadline"
					: "eligible, a later deadline than the pick";
}

/* The trace's view of a pick (only while tracing): se, then every other queued entity,
 * each with its lag and deadline against V as it is now, so that a timeline can show who
 * was eligible and whose deadline came first at each pick. V is computed, not stored:
 * tracing must not move the origin. Linux has no such event. */
void eevdf_trace_pick(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	unsigned int cpu = rq_of(cfs_rq)->cpu;
	struct sched_entity *curr = queued_curr(cfs_rq);
	struct rb_node *n;
	u64 V;

	if (!trace_sched_eevdf_enabled())
		return;
	V = cfs_rq->zero_vruntime + (u64)avg_vruntime_delta(cfs_rq);
	trace_sched_eevdf(cpu, se, 'K', V, entity_eligible(cfs_rq, se));
	if (curr && curr != se)
		trace_sched_eevdf(cpu, curr, 'Q', V, entity_eligible(cfs_rq, curr));
	for (n = rb_first_cached(&cfs_rq->tasks_timeline); n; n = rb_next(n))
		if (node_se(n) != se)
			trace_sched_eevdf(cpu, node_se(n), 'Q', V,
					  entity_eligible(cfs_rq, node_se(n)));
}

/* vd = v + r / w once v reaches vd: a new request. True when the request ran out, the
 * caller reschedules. Linux: update_deadline(). */
bool eevdf_update_deadline(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	if ((s64)(se->vruntime - se->deadline) < 0)
		return false;
	if (!se->custom_slice)
		se->slice = sysctl_sched_base_slice;
	se->deadline = se->vruntime + calc_delta_fair(se->slice, se);
	avg_vruntime(cfs_rq);
	trace_sched_eevdf(rq_of(cfs_rq)->cpu, se, 'D', cfs_rq->zero_vruntime, true);
	return true;
}

/* PREEMPT_SHORT at update_curr(): curr, no longer slice-protected, lost eligibility. */
bool eevdf_did_preempt_short(struct cfs_rq *cfs_rq, struct sched_entity *curr)
{
	if (!sched_feat(PREEMPT_SHORT) || protect_slice(curr))
		return false;
	return !entity_eligible(cfs_rq, curr);
}

/* Placement (Linux 6.12: place_entity()): v = V - vl, the lag it left with (PLACE_LAG),
 * inflated by (W + w) / W because adding w at v moves V itself towards v:
 *     V' = V - w vl / (W + w)  =>  for V' - v = vl' take vl = (W + w) vl' / W.
 * A migrating entity's relative deadline comes back (PLACE_REL_DEADLINE); else a new
 * request, half of it for a new task (PLACE_DEADLINE_INITIAL: the others are on average
 * half through theirs). */
void eevdf_place_entity(struct cfs_rq *cfs_rq, struct sched_entity *se, int flags)
{
	u64 vslice, vruntime = avg_vruntime(cfs_rq);
	s64 lag = 0;

	if (!se->custom_slice)
		se->slice = sysctl_sched_base_slice;
	vslice = calc_delta_fair(se->slice, se);
	if (sched_feat(PLACE_LAG) && cfs_rq->nr_running) {
		struct sched_entity *curr = queued_curr(cfs_rq);
		long load = cfs_rq->avg_load;

		if (curr)
			load += (long)curr->load.weight;
		lag = se->vlag * (load + (long)se->load.weight);
		if (WARN_ON_ONCE(!load))
			load = 1;
		lag /= load; /* Linux: div_s64(), truncating */
	}
	se->vruntime = vruntime - (u64)lag;
	if (sched_feat(PLACE_REL_DEADLINE) && se->rel_deadline) {
		se->deadline += se->vruntime;
		se->rel_deadline = false;
	} else {
		if (sched_feat(PLACE_DEADLINE_INITIAL) && (flags & ENQUEUE_INITIAL))
			vslice /= 2;
		se->deadline = se->vruntime + vslice;
	}
	trace_sched_eevdf(rq_of(cfs_rq)->cpu, se, 'P', cfs_rq->zero_vruntime, lag >= 0);
}

/* A queued entity's weight changes from se->load.weight to weight at V = avruntime: its
 * lag w (V - v) is kept, so v' = V - (V - v) w / w', and V does not move (6.12's proof);
 * the deadline's distance from V scales alike. Linux: reweight_eevdf(). */
void eevdf_reweight(struct sched_entity *se, u64 avruntime, unsigned long weight)
{
	unsigned long old = se->load.weight;
	s64 vlag, vslice;

	if (avruntime != se->vruntime) {
		vlag = entity_lag(avruntime, se);
		vlag = vlag * (s64)old / (s64)weight;
		se->vruntime = avruntime - (u64)vlag;
	}
	vslice = (s64)(se->deadline - avruntime);
	vslice = vslice * (s64)old / (s64)weight;
	se->deadline = avruntime + (u64)vslice;
}

/* ---- switching the policy ------------------------------------------------------------ */

static bool vruntime_less(const struct rb_node *a, const struct rb_node *b)
{
	return (s64)(node_se(a)->vruntime - node_se(b)->vruntime) < 0;
}

/* Re-sort one cfs_rq (and, through its group entities, those below) for the policy just
 * set: EEVDF gets V's sums, fresh requests (deadline = v + slice / w) and zero lag, CFS
 * its vruntime order. Entities are unlinked into a chain through run_node.left. */
static void policy_rebuild(struct cfs_rq *cfs_rq, bool eevdf)
{
	struct rb_node *n, *chain = NULL;
	struct sched_entity *se;

	while ((n = rb_first_cached(&cfs_rq->tasks_timeline))) {
		rb_erase_cached(&cfs_rq->tasks_timeline, n);
		n->left = chain;
		chain = n;
	}
	cfs_rq->tasks_timeline = RB_ROOT_CACHED;
	cfs_rq->avg_vruntime = 0;
	cfs_rq->avg_load = 0;
	cfs_rq->zero_vruntime = cfs_rq->min_vruntime;
	cfs_rq->next = cfs_rq->last = cfs_rq->skip = NULL;
	for (; chain; chain = n) {
		n = chain->left;
		se = node_se(chain);
		if (!se->custom_slice)
			se->slice = sysctl_sched_base_slice;
		se->deadline = se->vruntime + calc_delta_fair(se->slice, se);
		se->vlag = 0;
		se->rel_deadline = false;
		if (eevdf)
			eevdf_enqueue_tree(cfs_rq, se);
		else
			rb_insert_cached(&cfs_rq->tasks_timeline, chain, vruntime_less);
		if (se->my_q)
			policy_rebuild(se->my_q, eevdf);
	}
	se = cfs_rq->curr;
	if (se) {
		se->deadline = se->vruntime + calc_delta_fair(se->slice, se);
		if (se->my_q)
			policy_rebuild(se->my_q, eevdf);
	}
	if (eevdf)
		avg_vruntime(cfs_rq);
}

static void reset_sleeper(struct task_struct *p, void *arg)
{
	(void)arg;
	if (!p->on_rq) {
		p->se.vlag = 0;
		p->se.rel_deadline = false;
	}
}

/* On every CPU at once (stop_machine): no CPU is inside the fair class meanwhile. A task
 * between two CPUs (a wakeup's relative vruntime) is not corrected: it lands as the
 * policy it left under would have placed it (deviations.md). */
static int policy_switch(void *arg)
{
	bool eevdf = arg != NULL;
	unsigned int cpu;

	for (cpu = 0; cpu < nr_cpu_ids && !eevdf; cpu++) {
		/* back to CFS: the delayed sleepers leave their queues first */
		struct rq *rq = cpu_rq(cpu);
		unsigned long flags = spin_lock_irqsave(&rq->lock);
		struct list_head *pos, *n;

		list_for_each_safe(pos, n, &rq->cfs_tasks) {
			struct sched_entity *se = list_entry(pos, struct sched_entity, group_node);

			if (se->sched_delayed)
				block_delayed_task(rq, container_of(se, struct task_struct, se));
		}
		spin_unlock_irqrestore(&rq->lock, flags);
	}
	WRITE_ONCE(sysctl_sched_eevdf, eevdf);
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct rq *rq = cpu_rq(cpu);
		unsigned long flags = spin_lock_irqsave(&rq->lock);

		policy_rebuild(&rq->cfs, eevdf);
		spin_unlock_irqrestore(&rq->lock, flags);
	}
	for_each_task(reset_sleeper, NULL);
	return 0;
}

bool sched_policy_is_eevdf(void)
{
	return sched_eevdf();
}

const char *sched_policy_name(void)
{
	return sched_eevdf() ? "eevdf" : "cfs";
}

int sched_policy_set(const char *name)
{
	bool eevdf;

	if (!strcmp(name, "eevdf"))
		eevdf = true;
	else if (!strcmp(name, "cfs"))
		eevdf = false;
	else
		return -1;
	if (eevdf == sched_eevdf())
		return 0;
	return stop_machine_cpus_locked(policy_switch, eevdf ? (void *)1 : NULL) ? -1 : 0;
}

/* bootargs sched=cfs|eevdf, before any task is queued: no rebuild needed. */
void sched_policy_init_from_bootargs(void)
{
	char buf[16];

	if (!bootarg_get("sched", buf, sizeof(buf)))
		return;
	if (!strcmp(buf, "eevdf") || !strcmp(buf, "cfs"))
		sysctl_sched_eevdf = !strcmp(buf, "eevdf");
	else
		printk("sched: unknown policy \"%s\" ignored (cfs|eevdf)\n", buf);
}
