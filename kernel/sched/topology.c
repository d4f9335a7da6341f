/* topology.c - reads the CPUs out of the device tree: logical numbering and
 * MPIDRs, capacity_orig, clusters (cpu-map), OPP tables, frequency domains,
 * the energy model, and the MC/DIE sched-domain spans with their asymmetry
 * flags. Pure: everything lands in the caller's struct topology; no globals,
 * no locks. Not the scheduler's runtime domains: balance.c builds those from these spans
 * (sched_domains_init(), again at each hotplug); nor printing them (topology_print.c).
 * Linux: drivers/base/arch_topology.c, drivers/opp/of.c, kernel/power/energy_model.c,
 * kernel/sched/topology.c (asym_cpu_capacity_classify). */
#include "topology.h"
#include "printk.h"

#define CPU_MAP_MAX_DEPTH 8	      /* socket/cluster nesting; deeper is surely garbage */
#define EM_MAX_POWER	  64000000ull /* uW; Linux: EM_MAX_POWER (64 W) */

/* Each kind of bad input is reported once per parse, then only recorded. */
static bool first_warning(struct topology *topo, enum topology_warning w)
{
	if (topo->warnings & (1u << w))
		return false;
	topo->warnings |= 1u << w;
	return true;
}

#define topo_warn(topo, w, fmt, ...)                                                               \
	do {                                                                                       \
		if (first_warning(topo, w))                                                        \
			printk("topology: warning: " fmt "\n", ##__VA_ARGS__);                     \
	} while (0)

/* For legal trees that still make us guess (no cpu-map): said once, not a warning. */
#define topo_note(topo, w, fmt, ...)                                                               \
	do {                                                                                       \
		if (first_warning(topo, w))                                                        \
			printk("topology: " fmt "\n", ##__VA_ARGS__);                              \
	} while (0)

/* No libc in the kernel: the two string helpers this file needs. */
static bool str_eq(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

/* "cluster12" matches prefix "cluster": the prefix then one or more digits. */
static bool name_is(const char *name, int len, const char *prefix)
{
	int i = 0;

	if (!name)
		return false;
	for (; prefix[i]; i++)
		if (i >= len || name[i] != prefix[i])
			return false;
	if (i >= len)
		return false;
	for (; i < len; i++)
		if (name[i] < '0' || name[i] > '9')
			return false;
	return true;
}

static cpumask_t all_cpus(const struct topology *topo)
{
	cpumask_t m;

	cpumask_clear(&m);
	for (int cpu = 0; cpu < topo->nr_cpus; cpu++)
		__cpumask_set_cpu((unsigned int)cpu, &m);
	return m;
}

/* Logical id of the possible cpu whose node is `node`, or -1. */
static int cpu_of_node(const struct topology *topo, int node)
{
	for (int cpu = 0; cpu < topo->nr_cpus; cpu++)
		if (topo->cpu[cpu].node == node)
			return cpu;
	return -1;
}

/* ---- cpus: numbering, MPIDR, boot properties ------------------------------- */

/* reg holds the MPIDR affinity fields (1 or 2 cells as /cpus says). Linux
 * drops cpus with a bad or duplicate reg; our numbering contract keeps them,
 * marked MPIDR_INVALID so that they are never started. */
static u64 read_mpidr(const struct dtb *dt, struct topology *topo, int node, int cpu)
{
	int cells = dtb_addr_cells(dt, node), len;
	const void *reg = dtb_prop(dt, node, "reg", &len);
	u64 hwid;

	if (!reg || (cells != 1 && cells != 2) || len < 4 * cells) {
		topo_warn(topo, TW_BAD_REG, "cpu%d: reg absent or malformed: never started", cpu);
		return MPIDR_INVALID;
	}
	hwid = dtb_read_cells(reg, cells);
	if (hwid & ~MPIDR_HWID_BITMASK) {
		topo_warn(topo, TW_BAD_REG, "cpu%d: reg 0x%llx is not an MPIDR: never started", cpu,
			  (unsigned long long)hwid);
		return MPIDR_INVALID;
	}
	for (int i = 0; i < cpu; i++) {
		if (topo->cpu[i].mpidr == hwid) {
			topo_warn(topo, TW_DUP_MPIDR,
				  "cpu%d: reg 0x%llx duplicates cpu%d's: never started", cpu,
				  (unsigned long long)hwid, i);
			return MPIDR_INVALID;
		}
	}
	return hwid;
}

static void read_cpu_node(const struct dtb *dt, struct topology *topo, int node)
{
	int cpu = topo->nr_cpus++;
	struct cpu_topology *c = &topo->cpu[cpu];
	u32 dmips = 0;
	u64 release = 0;

	c->node = node;
	c->mpidr = read_mpidr(dt, topo, node, cpu);
	c->enable_method = dtb_prop_str(dt, node, "enable-method");
	c->compatible = dtb_prop_str(dt, node, "compatible");
	if (dtb_prop_u64(dt, node, "cpu-release-addr", &release) == 0)
		c->cpu_release_addr = release;
	if (dtb_prop_u32(dt, node, "capacity-dmips-mhz", &dmips) == 0 && dmips == 0)
		topo_warn(topo, TW_DMIPS_ZERO, "cpu%d: capacity-dmips-mhz is 0: treated as absent",
			  cpu);
	c->dmips = dmips;
	c->opp_table = -1;
	c->sd_asym_cpucapacity = -1;
}

/* THE LOGICAL CPU NUMBERING CONTRACT (topology.h): device_type = "cpu"
 * children of /cpus, DT order, disabled ones skipped, at most NR_CPUS. */
static void parse_cpus(const struct dtb *dt, struct topology *topo)
{
	int cpus = dtb_path(dt, "/cpus");

	if (cpus < 0)
		return;
	for (int node = dtb_first_child(dt, cpus); node >= 0; node = dtb_next_sibling(dt, node)) {
		const char *type = dtb_prop_str(dt, node, "device_type");

		if (!type || !str_eq(type, "cpu") || !dtb_node_enabled(dt, node))
			continue;
		if (topo->nr_cpus == NR_CPUS) {
			topo_warn(topo, TW_TOO_MANY_CPUS, "more than %d cpus: the rest are ignored",
				  NR_CPUS);
			break;
		}
		read_cpu_node(dt, topo, node);
	}
}

/* ---- idle states --------------------------------------------------------------------- */

#define PSCI_POWER_LEVEL(param) (((param) >> 24) & 3) /* PSCI 0.2 original power_state */

/* Linux: init_state_node() + psci_dt_parse_state_node(). wakeup-latency-us, or
 * else both entry- and exit-latency-us, and min-residency-us are required, and
 * so is arm,psci-suspend-param; any missing one makes the list invalid. */
static const char *read_idle_state(const struct dtb *dt, int node, int level,
				   struct topology_idle_state *s)
{
	u32 wakeup;

	if (!dtb_is_compatible(dt, node, "arm,idle-state"))
		return "not compatible with arm,idle-state";
	*s = (struct topology_idle_state){ .node = node, .level = level };
	s->name = dtb_node_name(dt, node, NULL);
	if (dtb_prop_u32(dt, node, "entry-latency-us", &s->entry_latency_us) ||
	    dtb_prop_u32(dt, node, "exit-latency-us", &s->exit_latency_us)) {
		if (dtb_prop_u32(dt, node, "wakeup-latency-us", &wakeup))
			return "no entry-/exit-latency-us nor wakeup-latency-us";
		s->entry_latency_us = 0; /* Linux: exit_latency = wakeup latency */
		s->exit_latency_us = wakeup;
	}
	if (dtb_prop_u32(dt, node, "min-residency-us", &s->min_residency_us))
		return "no min-residency-us";
	if (dtb_prop_u32(dt, node, "arm,psci-suspend-param", &s->psci_param))
		return "no arm,psci-suspend-param";
	s->local_timer_stop = dtb_prop(dt, node, "local-timer-stop", NULL) != NULL;
	if (level < 0)
		s->level = PSCI_POWER_LEVEL(s->psci_param) ? 1 : 0;
	return NULL;
}

/* Append the states of phandle list `prop` of `node`. level -1: from the PSCI
 * parameter. Disabled states are skipped (Linux: of_device_is_available). */
static const char *add_idle_states(const struct dtb *dt, struct cpu_topology *c, int node,
				   const char *prop, int level)
{
	int len;
	const u8 *list = dtb_prop(dt, node, prop, &len);

	if (!list)
		return NULL;
	if (len % 4)
		return "phandle list of odd length";
	for (int i = 0; i < len / 4; i++) {
		int st = dtb_node_by_phandle(dt, dtb_be32(list + 4 * i));
		const char *why;

		if (st < 0)
			return "phandle names no node";
		if (!dtb_node_enabled(dt, st))
			continue;
		if (c->nr_idle_states == TOPOLOGY_MAX_IDLE_STATES)
			return "too many states";
		if ((why = read_idle_state(dt, st, level, &c->idle[c->nr_idle_states])))
			return why;
		c->nr_idle_states++;
	}
	return NULL;
}

/* The first power domain a node names (power-domains = <&pd>), or -1. */
static int power_domain_of(const struct dtb *dt, int node)
{
	int len;
	const u8 *p = dtb_prop(dt, node, "power-domains", &len);

	return p && len >= 4 ? dtb_node_by_phandle(dt, dtb_be32(p)) : -1;
}

/* Linux: dt_init_idle_driver() via of_get_cpu_state_node(): the states of the
 * cpu's PSCI power domain (domain-idle-states) if it has one, else its
 * cpu-idle-states; state 0 is WFI. The domain's parent (the cluster's power
 * domain) adds its domain-idle-states at level 1: Linux hands those to genpd,
 * which powers the cluster off when its last CPU idles; our cpuidle core does
 * the same last-man rule (kernel/sched/cpuidle.c). A broken list leaves the
 * cpu with WFI only, as Linux's PSCI cpuidle driver then fails to register. */
static void parse_idle_states(const struct dtb *dt, struct topology *topo, int cpu)
{
	struct cpu_topology *c = &topo->cpu[cpu];
	const char *why = NULL;
	int pd = c->node >= 0 ? power_domain_of(dt, c->node) : -1;

	c->idle[0] = (struct topology_idle_state){
		.node = -1, .name = "WFI", .exit_latency_us = 1, .min_residency_us = 1
	};
	c->nr_idle_states = 1;
	if (c->node < 0)
		return;
	if (pd >= 0 && dtb_prop(dt, pd, "domain-idle-states", NULL)) {
		int cluster = power_domain_of(dt, pd);

		why = add_idle_states(dt, c, pd, "domain-idle-states", 0);
		if (!why && cluster >= 0)
			why = add_idle_states(dt, c, cluster, "domain-idle-states", 1);
	} else {
		why = add_idle_states(dt, c, c->node, "cpu-idle-states", -1);
	}
	for (int i = 2; !why && i < c->nr_idle_states; i++)
		if (c->idle[i].min_residency_us < c->idle[i - 1].min_residency_us)
			why = "states not in order of depth";
	if (why) {
		topo_warn(topo, TW_IDLE_STATES, "cpu%d: idle states: %s: WFI only", cpu, why);
		c->nr_idle_states = 1;
	}
}

/* ---- OPP tables and frequency domains ---------------------------------------- */

/* opp-hz is /bits/ 64 (several clocks may follow: the first is the cpu's). */
static u32 opp_khz(const struct dtb *dt, int node)
{
	int len;
	const void *p = dtb_prop(dt, node, "opp-hz", &len);
	u64 hz;

	if (!p || len < 4)
		return 0;
	hz = dtb_read_cells(p, len >= 8 ? 2 : 1);
	if (hz / 1000 > 0xffffffffull)
		return 0;
	return (u32)(hz / 1000);
}

/* Insert one entry keeping the table sorted: DTs may list OPPs in any order. */
static void opp_insert(struct topology *topo, struct topology_opp_table *t, u32 khz, u32 uv)
{
	int i = t->nr_opps;

	for (int j = 0; j < t->nr_opps; j++) {
		if (t->opp[j].freq_khz == khz) {
			topo_warn(topo, TW_OPP_BAD_ENTRY, "OPP %u kHz listed twice: one is ignored",
				  khz);
			return;
		}
	}
	if (t->nr_opps == TOPOLOGY_MAX_OPPS) {
		topo_warn(topo, TW_OPP_TOO_MANY, "OPP table with more than %d entries: truncated",
			  TOPOLOGY_MAX_OPPS);
		return;
	}
	for (; i > 0 && t->opp[i - 1].freq_khz > khz; i--)
		t->opp[i] = t->opp[i - 1];
	t->opp[i].freq_khz = khz;
	t->opp[i].microvolt = uv;
	t->nr_opps++;
}

/* Linux: _of_add_opp_table_v2(). Disabled and turbo-mode entries are skipped
 * (turbo OPPs are not for normal use); the table latency is the largest. */
static void parse_opp_table(const struct dtb *dt, struct topology *topo, int node,
			    struct topology_opp_table *t)
{
	t->node = node;
	t->shared = dtb_prop(dt, node, "opp-shared", NULL) != NULL;
	for (int opp = dtb_first_child(dt, node); opp >= 0; opp = dtb_next_sibling(dt, opp)) {
		u32 khz, lat = 0;
		int len;
		const void *uv;

		if (!dtb_node_enabled(dt, opp) || dtb_prop(dt, opp, "turbo-mode", NULL))
			continue;
		khz = opp_khz(dt, opp);
		if (!khz) {
			topo_warn(topo, TW_OPP_BAD_ENTRY, "OPP without a usable opp-hz: ignored");
			continue;
		}
		/* opp-microvolt: <target> or <target min max>; the target is what we need. */
		uv = dtb_prop(dt, opp, "opp-microvolt", &len);
		if (dtb_prop_u32(dt, opp, "clock-latency-ns", &lat) == 0 &&
		    lat > t->clock_latency_ns)
			t->clock_latency_ns = lat;
		opp_insert(topo, t, khz, uv && len >= 4 ? dtb_be32(uv) : 0);
	}
}

/* Index of the cpu's OPP table in topo->opp_table (parsed on first use), or -1. */
static int cpu_opp_table(const struct dtb *dt, struct topology *topo, int cpu)
{
	u32 phandle;
	int node, i;

	if (dtb_prop_u32(dt, topo->cpu[cpu].node, "operating-points-v2", &phandle) < 0)
		return -1;
	node = dtb_node_by_phandle(dt, phandle);
	if (node < 0) {
		topo_warn(topo, TW_OPP_PHANDLE, "cpu%d: operating-points-v2 names no node", cpu);
		return -1;
	}
	for (i = 0; i < topo->nr_opp_tables; i++)
		if (topo->opp_table[i].node == node)
			return topo->opp_table[i].nr_opps ? i : -1;
	/* Each cpu adds at most one table, so NR_CPUS slots always suffice. */
	parse_opp_table(dt, topo, node, &topo->opp_table[i]);
	topo->nr_opp_tables++;
	if (!topo->opp_table[i].nr_opps) {
		topo_warn(topo, TW_OPP_EMPTY, "cpu%d: OPP table without a usable entry", cpu);
		return -1;
	}
	return i;
}

/* Linux: a cpufreq policy per table with opp-shared, else one per cpu. */
static void build_freq_domains(const struct dtb *dt, struct topology *topo)
{
	for (int cpu = 0; cpu < topo->nr_cpus; cpu++) {
		struct cpu_topology *c = &topo->cpu[cpu];
		int fd, t = cpu_opp_table(dt, topo, cpu);

		c->opp_table = t;
		if (t >= 0) {
			c->fmin = topo->opp_table[t].opp[0].freq_khz;
			c->fmax = topo->opp_table[t].opp[topo->opp_table[t].nr_opps - 1].freq_khz;
		}
		for (fd = 0; fd < topo->nr_freq_domains; fd++)
			if (t >= 0 && topo->opp_table[t].shared &&
			    topo->freq_domain[fd].opp_table == t)
				break;
		if (fd == topo->nr_freq_domains) {
			topo->nr_freq_domains++;
			topo->freq_domain[fd].opp_table = t;
		}
		__cpumask_set_cpu((unsigned int)cpu, &topo->freq_domain[fd].cpus);
		c->freq_domain = fd;
	}
}

/* ---- capacity_orig ------------------------------------------------------------- */

/* Linux: topology_normalize_cpu_scale(). raw = dmips x f_max (kHz) when every
 * cpu has an OPP table, dmips alone when none has; the largest raw becomes
 * SCHED_CAPACITY_SCALE. capacity-dmips-mhz is all-or-nothing: one cpu without
 * it and every cpu gets 1024. */
static void compute_capacities(struct topology *topo)
{
	int n = topo->nr_cpus, no_dmips = -1, no_fmax = -1, with_dmips = 0, with_fmax = 0;
	u64 raw[NR_CPUS], max = 0;
	int shift = 0;

	for (int cpu = 0; cpu < n; cpu++) {
		if (topo->cpu[cpu].dmips)
			with_dmips++;
		else if (no_dmips < 0)
			no_dmips = cpu;
		if (topo->cpu[cpu].fmax)
			with_fmax++;
		else if (no_fmax < 0)
			no_fmax = cpu;
	}
	if (no_dmips >= 0) {
		/* None at all is a symmetric machine, not an error (Linux is silent too). */
		if (with_dmips)
			topo_warn(topo, TW_DMIPS_MISSING,
				  "cpu%d lacks capacity-dmips-mhz: every cpu gets capacity 1024",
				  no_dmips);
		for (int cpu = 0; cpu < n; cpu++)
			topo->cpu[cpu].capacity_orig = SCHED_CAPACITY_SCALE;
		return;
	}
	if (with_fmax && with_fmax < n)
		topo_warn(topo, TW_NO_FMAX,
			  "cpu%d has no usable OPP table: capacity from dmips alone", no_fmax);
	for (int cpu = 0; cpu < n; cpu++) {
		raw[cpu] = topo->cpu[cpu].dmips;
		if (with_fmax == n)
			raw[cpu] *= topo->cpu[cpu].fmax; /* both < 2^32: no overflow */
		max = MAX(max, raw[cpu]);
	}
	/* raw x 1024 must fit in 64 bits: drop low bits of absurd values. */
	while ((max >> shift) >= (1ull << 53))
		shift++;
	for (int cpu = 0; cpu < n; cpu++) {
		u64 cap = ((raw[cpu] >> shift) << SCHED_CAPACITY_SHIFT) / (max >> shift);

		topo->cpu[cpu].capacity_orig = cap ? (u32)cap : 1;
	}
}

/* ---- clusters: cpu-map, else MPIDR Aff1 ------------------------------------------ */

struct cpu_map_walk {
	const struct dtb *dt;
	struct topology *topo;
	int cluster_of[NR_CPUS]; /* -1 until the cpu-map names the cpu */
	const char *why;	 /* first reason the map is unusable, NULL if fine */
	int why_arg;
};

static void map_reject(struct cpu_map_walk *w, const char *why, int arg)
{
	if (!w->why) {
		w->why = why;
		w->why_arg = arg;
	}
}

/* A "cpu" phandle inside a core or thread node. Linux: get_cpu_for_node().
 * A phandle to a disabled cpu (or one past NR_CPUS) is legal and ignored. */
static void map_cpu(struct cpu_map_walk *w, int node, int *cluster)
{
	u32 phandle;
	int target, cpu;

	if (dtb_prop_u32(w->dt, node, "cpu", &phandle) < 0) {
		map_reject(w, "a core without a cpu phandle at node offset", node);
		return;
	}
	target = dtb_node_by_phandle(w->dt, phandle);
	if (target < 0) {
		map_reject(w, "a cpu phandle names no node, phandle", (int)phandle);
		return;
	}
	cpu = cpu_of_node(w->topo, target);
	if (cpu < 0)
		return;
	if (w->cluster_of[cpu] >= 0) {
		map_reject(w, "named twice: cpu", cpu);
		return;
	}
	if (*cluster < 0) /* ids go to clusters that hold a possible cpu, in DT order */
		*cluster = w->topo->nr_clusters++;
	w->cluster_of[cpu] = *cluster;
}

/* coreN holds either a cpu phandle or threadN children (SMT) with one each. */
static void map_core(struct cpu_map_walk *w, int core, int *cluster)
{
	bool threads = false;

	for (int n = dtb_first_child(w->dt, core); n >= 0; n = dtb_next_sibling(w->dt, n)) {
		int len;
		const char *name = dtb_node_name(w->dt, n, &len);

		if (name_is(name, len, "thread")) {
			threads = true;
			map_cpu(w, n, cluster);
		}
	}
	if (threads && dtb_prop(w->dt, core, "cpu", NULL))
		map_reject(w, "a core with both threads and a cpu, node offset", core);
	else if (!threads)
		map_cpu(w, core, cluster);
}

/* socketN and clusterN nest (Linux: parse_socket(), parse_cluster()); only a
 * leaf cluster, one holding coreN nodes, is a cluster for the scheduler. */
static void map_cluster(struct cpu_map_walk *w, int node, int depth)
{
	int cluster = -1;
	bool inner = false, cores = false;

	if (depth > CPU_MAP_MAX_DEPTH) {
		map_reject(w, "nested deeper than", CPU_MAP_MAX_DEPTH);
		return;
	}
	for (int n = dtb_first_child(w->dt, node); n >= 0; n = dtb_next_sibling(w->dt, n)) {
		int len;
		const char *name = dtb_node_name(w->dt, n, &len);

		if (name_is(name, len, "cluster") || name_is(name, len, "socket")) {
			inner = true;
			map_cluster(w, n, depth + 1);
		} else if (name_is(name, len, "core")) {
			cores = true;
			map_core(w, n, &cluster);
		}
	}
	if (cores && (inner || depth == 0))
		map_reject(w, "cores outside a leaf cluster, node offset", node);
}

/* Returns false (nothing assigned) when there is no usable cpu-map. */
static bool parse_cpu_map(const struct dtb *dt, struct topology *topo)
{
	struct cpu_map_walk w = { .dt = dt, .topo = topo };
	int map = dtb_path(dt, "/cpus/cpu-map");

	if (map < 0) {
		topo_note(topo, TW_NO_CPU_MAP, "no cpu-map: clusters from MPIDR Aff1");
		return false;
	}
	for (int cpu = 0; cpu < NR_CPUS; cpu++)
		w.cluster_of[cpu] = -1;
	map_cluster(&w, map, 0);
	for (int cpu = 0; cpu < topo->nr_cpus && !w.why; cpu++)
		if (w.cluster_of[cpu] < 0)
			map_reject(&w, "does not name cpu", cpu);
	if (w.why) {
		topo_warn(topo, TW_CPU_MAP, "cpu-map unusable (%s %d): clusters from MPIDR Aff1",
			  w.why, w.why_arg);
		topo->nr_clusters = 0;
		return false;
	}
	for (int cpu = 0; cpu < topo->nr_cpus; cpu++)
		topo->cpu[cpu].cluster_id = w.cluster_of[cpu];
	return true;
}

/* Linux: store_cpu_topology() without MT: a cluster is Aff3.Aff2.Aff1. A cpu
 * without a valid MPIDR is a cluster of its own. */
static void clusters_from_mpidr(struct topology *topo)
{
	u64 key[NR_CPUS];

	topo->nr_clusters = 0;
	for (int cpu = 0; cpu < topo->nr_cpus; cpu++) {
		u64 mpidr = topo->cpu[cpu].mpidr;
		int id;

		key[cpu] = mpidr == MPIDR_INVALID ? ~0ull - cpu : mpidr >> 8;
		for (id = 0; id < cpu; id++)
			if (key[id] == key[cpu])
				break;
		topo->cpu[cpu].cluster_id =
			id < cpu ? topo->cpu[id].cluster_id : topo->nr_clusters++;
	}
}

static void build_clusters(const struct dtb *dt, struct topology *topo)
{
	topo->cpu_map = parse_cpu_map(dt, topo);
	if (!topo->cpu_map)
		clusters_from_mpidr(topo);
	for (int cpu = 0; cpu < topo->nr_cpus; cpu++)
		__cpumask_set_cpu((unsigned int)cpu,
				  &topo->cluster_cpus[topo->cpu[cpu].cluster_id]);
}

/* ---- energy model ---------------------------------------------------------------- */

/* dynamic-power-coefficient is often on the first cpu of a cluster only: the
 * first one found applies to the whole frequency domain. */
static u32 domain_power_coeff(const struct dtb *dt, struct topology *topo, int fd)
{
	u32 coeff = 0;

	for (int cpu = 0; cpu < topo->nr_cpus; cpu++) {
		u32 c;

		if (!cpumask_test_cpu((unsigned int)cpu, &topo->freq_domain[fd].cpus) ||
		    dtb_prop_u32(dt, topo->cpu[cpu].node, "dynamic-power-coefficient", &c) < 0 ||
		    !c)
			continue;
		if (!coeff)
			coeff = c;
		else if (c != coeff)
			topo_warn(topo, TW_POWER_COEFF,
				  "cpu%d: dynamic-power-coefficient %u differs from its domain's "
				  "%u: ignored",
				  cpu, c, coeff);
	}
	return coeff;
}

/* Linux: _get_power() in drivers/opp/of.c: uW = C x mV^2 x MHz / 10^6.
 * Returns 0 when the OPP gives no usable power (no voltage, out of range). */
static u64 opp_power_uw(u32 coeff, const struct topology_opp *opp)
{
	u64 mv = opp->microvolt / 1000, mhz = opp->freq_khz / 1000, t;

	if (!mv || !mhz || mv > 0xffff) /* mV^2 < 2^32, so C x mV^2 < 2^64 */
		return 0;
	t = (u64)coeff * mv * mv;
	if (t > ~0ull / mhz)
		return 0;
	t = t * mhz / 1000000;
	return t <= EM_MAX_POWER ? t : 0;
}

/* Linux: em_create_perf_table(): cost = f_max x power / f, so that the cost
 * of running a unit of work at each OPP can be compared across domains. */
static void build_energy_model(const struct dtb *dt, struct topology *topo, int fd)
{
	struct topology_freq_domain *d = &topo->freq_domain[fd];
	const struct topology_opp_table *t;
	u32 fmax;

	d->power_coeff = domain_power_coeff(dt, topo, fd);
	if (!d->power_coeff)
		return; /* no coefficient: no energy model, as on Linux */
	if (d->opp_table < 0) {
		topo_warn(topo, TW_EM,
			  "frequency domain %d: power coefficient but no OPPs: no energy model",
			  fd);
		return;
	}
	t = &topo->opp_table[d->opp_table];
	fmax = t->opp[t->nr_opps - 1].freq_khz;
	for (int i = 0; i < t->nr_opps; i++) {
		u64 power = opp_power_uw(d->power_coeff, &t->opp[i]);

		if (!power) {
			topo_warn(topo, TW_EM,
				  "frequency domain %d: OPP %u kHz gives no power "
				  "(opp-microvolt absent or absurd): no energy model",
				  fd, t->opp[i].freq_khz);
			d->nr_perf_states = 0;
			return;
		}
		d->em[i].frequency = t->opp[i].freq_khz;
		d->em[i].power = power;
		d->em[i].cost = (u64)fmax * power / t->opp[i].freq_khz;
		d->nr_perf_states = i + 1;
	}
}

/* ---- sched domains ----------------------------------------------------------------- */

/* Linux: asym_cpu_capacity_classify(). A capacity value "seen" by the span
 * is one that some cpu of the span has; the span is asymmetric when it sees
 * two or more, FULL when it misses none that the active cpus have (the
 * capacities of inactive cpus do not count: Linux builds over cpu_map). */
static u32 asym_classify(const struct topology *topo, const cpumask_t *span,
			 const cpumask_t *active)
{
	u32 caps[NR_CPUS];
	int nr = 0, count = 0, miss = 0;

	for (int cpu = 0; cpu < topo->nr_cpus; cpu++) {
		int i;

		for (i = 0; i < nr && caps[i] != topo->cpu[cpu].capacity_orig; i++)
			;
		if (i == nr)
			caps[nr++] = topo->cpu[cpu].capacity_orig;
	}
	for (int i = 0; i < nr; i++) {
		bool in_span = false, in_active = false;

		for (unsigned int cpu = 0; cpu < (unsigned int)topo->nr_cpus; cpu++) {
			if (topo->cpu[cpu].capacity_orig != caps[i])
				continue;
			in_span |= cpumask_test_cpu(cpu, span);
			in_active |= cpumask_test_cpu(cpu, active);
		}
		if (in_span)
			count++;
		else if (in_active)
			miss++;
	}
	if (count < 2)
		return 0;
	return miss ? SD_ASYM_CPUCAPACITY : SD_ASYM_CPUCAPACITY | SD_ASYM_CPUCAPACITY_FULL;
}

/* The cpus sharing cpu's last-level cache, as Linux's llc_sibling: false when the tree
 * does not describe cpu's caches past its L1. (Linux counts the levels in CLIDR_EL1 and
 * reads their sharing from the tree: a board's CPU reports its L2; QEMU 7.2's reports
 * L1 only, so Linux on QEMU never sees a tree's L2 and stays flat. We read the tree, as a
 * board's Linux sees it: docs/compare.md, docs/deviations.md.) */
static bool llc_siblings(const struct topology *topo, int cpu, cpumask_t *mask)
{
	const struct cpu_topology *c = &topo->cpu[cpu];
	int node = c->nr_caches ? c->cache[c->nr_caches - 1].node : -1;

	cpumask_clear(mask);
	if (node < 0 || node == c->node) /* none, or the cpu's own L1 */
		return false;
	for (int o = 0; o < topo->nr_cpus; o++) {
		const struct cpu_topology *oc = &topo->cpu[o];

		if (oc->nr_caches && oc->cache[oc->nr_caches - 1].node == node)
			__cpumask_set_cpu((unsigned int)o, mask);
	}
	return true;
}

/* Linux 6.1's cpu_coregroup_mask() (drivers/base/arch_topology.c) as Debian builds it
 * (CONFIG_SCHED_CLUSTER off): MC spans the package, narrowed to the cpus sharing the
 * last-level cache when the tree describes it. A cpu-map cluster alone does not make an
 * MC level: with no caches in the tree Linux balances every cpu of the package in one
 * domain (issue 31, docs/compare.md). One package: cpu-map sockets are not kept. DIE
 * spans every active cpu; as Linux's degeneration does, a level spanning one cpu, or
 * the same cpus as the level below, is dropped. Inactive cpus get no domains. */
void topology_build_sched_domains(struct topology *topo, const cpumask_t *active)
{
	cpumask_t all = all_cpus(topo), live;

	cpumask_and(&live, active, &all);
	topo->asym_cpucapacity = false;
	for (int cpu = 0; cpu < topo->nr_cpus; cpu++) {
		struct cpu_topology *c = &topo->cpu[cpu];
		cpumask_t mc;

		if (!llc_siblings(topo, cpu, &mc))
			mc = all;
		cpumask_and(&mc, &mc, active);
		for (int l = 0; l < SD_NR_LEVELS; l++)
			c->sd[l] = (struct topology_sd){ 0 };
		c->sd_asym_cpucapacity = -1;
		if (!cpumask_test_cpu((unsigned int)cpu, active))
			continue;
		if (cpumask_weight(&mc) > 1) {
			c->sd[SD_LEVEL_MC].span = mc;
			c->sd[SD_LEVEL_MC].flags = SD_SHARE_PKG_RESOURCES;
		}
		if (cpumask_weight(&live) > 1 && !cpumask_equal(&mc, &live))
			c->sd[SD_LEVEL_DIE].span = live;
		for (int l = 0; l < SD_NR_LEVELS; l++) {
			if (cpumask_empty(&c->sd[l].span))
				continue;
			c->sd[l].flags |= asym_classify(topo, &c->sd[l].span, active);
			if (c->sd[l].flags & SD_ASYM_CPUCAPACITY)
				topo->asym_cpucapacity = true;
			if ((c->sd[l].flags & SD_ASYM_CPUCAPACITY_FULL) &&
			    c->sd_asym_cpucapacity < 0)
				c->sd_asym_cpucapacity = l;
		}
	}
}

/* ---- entry points ----------------------------------------------------------------- */

/* No usable cpu: the boot cpu still runs, alone, at full capacity. */
static void default_cpu(struct topology *topo)
{
	struct cpu_topology *c = &topo->cpu[0];

	topo_warn(topo, TW_NO_CPUS, "no usable cpu in /cpus: one cpu, capacity 1024");
	topo->nr_cpus = 1;
	c->node = -1;
	c->mpidr = MPIDR_INVALID;
	c->opp_table = -1;
	c->sd_asym_cpucapacity = -1;
	c->capacity_orig = SCHED_CAPACITY_SCALE;
	topo->nr_clusters = 1;
	__cpumask_set_cpu(0, &topo->cluster_cpus[0]);
	topo->nr_freq_domains = 1;
	__cpumask_set_cpu(0, &topo->freq_domain[0].cpus);
	topo->freq_domain[0].opp_table = -1;
	c->idle[0] = (struct topology_idle_state){
		.node = -1, .name = "WFI", .exit_latency_us = 1, .min_residency_us = 1
	};
	c->nr_idle_states = 1;
}

int topology_parse(const struct dtb *dt, struct topology *topo)
{
	*topo = (struct topology){ 0 };
	parse_cpus(dt, topo);
	if (!topo->nr_cpus) {
		default_cpu(topo);
		return -1;
	}
	build_freq_domains(dt, topo);
	compute_capacities(topo);
	build_clusters(dt, topo);
	for (int cpu = 0; cpu < topo->nr_cpus; cpu++)
		parse_idle_states(dt, topo, cpu);
	topology_parse_caches(dt, topo);
	for (int fd = 0; fd < topo->nr_freq_domains; fd++)
		build_energy_model(dt, topo, fd);
	cpumask_t all = all_cpus(topo);

	topology_build_sched_domains(topo, &all);
	return 0;
}
