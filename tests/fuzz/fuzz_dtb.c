/* fuzz_dtb.c - libFuzzer target (clang -fsanitize=fuzzer) for everything the
 * kernel does with an untrusted DTB: lib/dtb.c's header check, walks, lookups
 * and typed reads, then kernel/sched/topology.c's parse and topology_print.c's print. Any fault
 * or sanitizer report is a bug, and so is a parsed topology that breaks the
 * contract of include/topology.h that the scheduler relies on (CPU count,
 * capacities, clusters that partition the CPUs, valid indices, nested
 * domain spans, sorted OPPs); the exact values are the host unit tests'.
 * Seeds: tests/fuzz/corpus/dtb/ (small real and broken trees). */
#include <stdio.h>
#include <stdlib.h>
#include "dtb.h"
#include "topology.h"

/* The parser's warnings and topology_print() go through printk to stdout:
 * keep them (the code runs) but out of libFuzzer's log. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	if (!freopen("/dev/null", "w", stdout))
		abort();
	return 0;
}

/* Every property of a node, read every way the kernel reads one. */
static void read_props(const struct dtb *dt, int node)
{
	for (int p = dtb_first_prop(dt, node); p >= 0; p = dtb_next_prop(dt, p)) {
		const char *name;
		int len;
		const void *v = dtb_prop_at(dt, p, &name, &len);
		u32 u;
		u64 w;

		if (!v || !name)
			continue;
		dtb_prop_u32(dt, node, name, &u);
		dtb_prop_u64(dt, node, name, &w);
		dtb_prop_str(dt, node, name);
		dtb_stringlist_index(dt, node, name, "psci");
		if (len >= 8)
			dtb_read_cells(v, 2);
	}
}

static void walk(const struct dtb *dt)
{
	int depth = 0, n = 0;

	for (int node = dtb_next_node(dt, -1, &depth); node >= 0 && n < 4096;
	     node = dtb_next_node(dt, node, &depth), n++) {
		u64 addr, size;

		dtb_node_name(dt, node, NULL);
		dtb_parent(dt, node);
		dtb_first_child(dt, node);
		dtb_next_sibling(dt, node);
		dtb_node_enabled(dt, node);
		dtb_node_by_phandle(dt, dtb_node_phandle(dt, node));
		dtb_addr_cells(dt, node);
		dtb_size_cells(dt, node);
		for (int i = 0; i < 4 && dtb_reg(dt, node, i, &addr, &size) == 0; i++)
			;
		read_props(dt, node);
	}
}

/* The lookups boot makes: console, memory, cpus, interrupt controllers. */
static void boot_lookups(const struct dtb *dt)
{
	int chosen = dtb_path(dt, "/chosen");
	const char *stdout_path = chosen >= 0 ? dtb_prop_str(dt, chosen, "stdout-path") : NULL;
	u64 addr, size;

	if (stdout_path)
		dtb_path(dt, stdout_path);
	dtb_path(dt, "serial0");
	dtb_path(dt, "/cpus/cpu-map/cluster0/core0");
	dtb_path(dt, "/memory");
	dtb_find_compatible(dt, -1, "arm,gic-v3");
	dtb_find_compatible(dt, -1, "arm,cortex-a15-gic");
	for (int i = 0; i < 8 && dtb_mem_rsv(dt, i, &addr, &size) == 0; i++)
		;
}

#define CHECK(x)                                                                                   \
	do {                                                                                       \
		if (!(x)) {                                                                        \
			fprintf(stderr, "topology: %s\n", #x);                                     \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

static void check_cpu(const struct topology *t, int c, const cpumask_t *all)
{
	const struct cpu_topology *cpu = &t->cpu[c];
	const cpumask_t *mc = &cpu->sd[SD_LEVEL_MC].span, *die = &cpu->sd[SD_LEVEL_DIE].span;

	CHECK(cpu->capacity_orig >= 1 && cpu->capacity_orig <= SCHED_CAPACITY_SCALE);
	CHECK(cpu->cluster_id >= 0 && cpu->cluster_id < t->nr_clusters);
	CHECK(cpumask_test_cpu(c, &t->cluster_cpus[cpu->cluster_id]));
	CHECK(cpu->freq_domain >= 0 && cpu->freq_domain < t->nr_freq_domains);
	CHECK(cpumask_test_cpu(c, &t->freq_domain[cpu->freq_domain].cpus));
	CHECK(cpu->opp_table >= -1 && cpu->opp_table < t->nr_opp_tables);
	CHECK(cpu->fmin <= cpu->fmax);
	CHECK(cpumask_empty(mc) || (cpumask_test_cpu(c, mc) && cpumask_subset(mc, all)));
	CHECK(cpumask_empty(die) ||
	      (cpumask_test_cpu(c, die) && cpumask_subset(mc, die) && cpumask_subset(die, all)));
	CHECK(cpu->sd_asym_cpucapacity >= -1 && cpu->sd_asym_cpucapacity < SD_NR_LEVELS);
}

/* What include/topology.h promises of any parse, good tree or bad. */
static void check_topology(const struct topology *t)
{
	cpumask_t all = { { 0 } }, seen = { { 0 } };
	u32 maxcap = 0;

	CHECK(t->nr_cpus >= 1 && t->nr_cpus <= NR_CPUS);
	for (int c = 0; c < t->nr_cpus; c++)
		__cpumask_set_cpu((unsigned int)c, &all);
	CHECK(t->nr_clusters >= 1 && t->nr_clusters <= t->nr_cpus);
	for (int k = 0; k < t->nr_clusters; k++) {
		CHECK(!cpumask_empty(&t->cluster_cpus[k]) &&
		      cpumask_subset(&t->cluster_cpus[k], &all));
		CHECK(!cpumask_intersects(&t->cluster_cpus[k],
					  &seen)); /* clusters do not overlap */
		cpumask_or(&seen, &seen, &t->cluster_cpus[k]);
	}
	CHECK(cpumask_equal(&seen, &all));
	CHECK(t->nr_freq_domains >= 1 && t->nr_freq_domains <= t->nr_cpus);
	CHECK(t->nr_opp_tables >= 0 && t->nr_opp_tables <= NR_CPUS);
	for (int i = 0; i < t->nr_opp_tables; i++) {
		const struct topology_opp_table *o = &t->opp_table[i];

		CHECK(o->nr_opps >= 0 && o->nr_opps <= TOPOLOGY_MAX_OPPS);
		for (int j = 1; j < o->nr_opps; j++)
			CHECK(o->opp[j - 1].freq_khz < o->opp[j].freq_khz);
	}
	for (int c = 0; c < t->nr_cpus; c++) {
		check_cpu(t, c, &all);
		maxcap = t->cpu[c].capacity_orig > maxcap ? t->cpu[c].capacity_orig : maxcap;
	}
	CHECK(maxcap == SCHED_CAPACITY_SCALE); /* the biggest CPU is the scale */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct topology topo;
	struct dtb dt;

	if (size >= 8) /* it reads the 8 header bytes unchecked, by contract */
		dtb_header_totalsize(data);
	if (dtb_init(&dt, data, size) < 0)
		return 0;
	walk(&dt);
	boot_lookups(&dt);
	topology_parse(&dt, &topo);
	check_topology(&topo);
	topology_print(&topo);
	return 0;
}
