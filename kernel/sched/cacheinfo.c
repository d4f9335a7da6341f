/* cacheinfo.c - each CPU's data caches from the device tree, as Linux's cacheinfo reads
 * them (drivers/base/cacheinfo.c: of_count_cache_leaves(), init_of_cache_level(),
 * cache_setup_of_node()): the L1 from the cpu node, then the next-level-cache chain.
 * Pure, like topology.c: it fills struct topology and prints it. Not the cost of a
 * migration (cache.c reads these sizes). */
#include "topology.h"
#include "printk.h"

/* Linux: of_find_next_cache_node(): the "l2-cache" or "next-level-cache" phandle (a cpu
 * node without either may hold a child of device_type "cache"; no tree here does). */
static int next_cache_node(const struct dtb *dt, int node)
{
	u32 ph;

	if (dtb_prop_u32(dt, node, "l2-cache", &ph) &&
	    dtb_prop_u32(dt, node, "next-level-cache", &ph))
		return -1;
	return dtb_node_by_phandle(dt, ph);
}

static bool has_prop(const struct dtb *dt, int node, const char *name)
{
	return dtb_prop(dt, node, name, NULL) != NULL;
}

/* The data side of one node: d-cache-size, else a unified cache-size. Linux reads
 * "cache-size" for a unified leaf and "d-cache-size" for a data leaf. */
static void read_cache(const struct dtb *dt, int node, u32 level, struct topology_cache *c)
{
	u32 size = 0;

	c->node = node;
	c->level = level;
	c->unified = has_prop(dt, node, "cache-unified") ||
		     (has_prop(dt, node, "cache-size") && !has_prop(dt, node, "d-cache-size"));
	if (dtb_prop_u32(dt, node, "d-cache-size", &size))
		dtb_prop_u32(dt, node, "cache-size", &size);
	c->size = size;
}

static void caches_broken(struct topology *topo, int cpu, const char *why)
{
	topo->cpu[cpu].nr_caches = 0;
	if (topo->warnings & (1u << TW_CACHES))
		return;
	topo->warnings |= 1u << TW_CACHES;
	printk("topology: warning: cpu%d: %s: no cache info (as Linux's init_of_cache_level)\n",
	       cpu, why);
}

/* Linux keeps a cpu's L1 only when the cpu node names a size (or cache-unified); each
 * next level must be compatible "cache" with a cache-level above the previous one. */
static void parse_cpu_caches(const struct dtb *dt, struct topology *topo, int cpu)
{
	struct cpu_topology *c = &topo->cpu[cpu];
	int node = c->node;
	u32 levels = 0, level;

	if (node < 0)
		return;
	if (has_prop(dt, node, "d-cache-size") || has_prop(dt, node, "cache-size") ||
	    has_prop(dt, node, "cache-unified")) {
		read_cache(dt, node, 1, &c->cache[c->nr_caches++]);
		levels = 1;
	}
	for (node = next_cache_node(dt, node); node >= 0; node = next_cache_node(dt, node)) {
		if (!dtb_is_compatible(dt, node, "cache"))
			return caches_broken(topo, cpu,
					     "a next-level cache is not compatible \"cache\"");
		if (dtb_prop_u32(dt, node, "cache-level", &level) || level <= levels)
			return caches_broken(topo, cpu, "cache-level absent or not above the last");
		if (c->nr_caches == TOPOLOGY_MAX_CACHES)
			return caches_broken(topo, cpu, "too many cache levels");
		read_cache(dt, node, level, &c->cache[c->nr_caches++]);
		levels = level;
	}
}

void topology_parse_caches(const struct dtb *dt, struct topology *topo)
{
	for (int cpu = 0; cpu < topo->nr_cpus; cpu++)
		parse_cpu_caches(dt, topo, cpu);
}

const struct topology_cache *topology_cache_at(const struct topology *topo, int cpu, u32 level)
{
	const struct cpu_topology *c = &topo->cpu[cpu];

	for (int i = 0; i < c->nr_caches; i++)
		if (c->cache[i].level == level)
			return &c->cache[i];
	return NULL;
}

/* One line per cpu and level; shared_cpu_list as Linux's sysfs names it. */
void topology_print_caches(const struct topology *topo)
{
	for (int cpu = 0; cpu < topo->nr_cpus; cpu++) {
		const struct cpu_topology *c = &topo->cpu[cpu];

		for (int i = 0; i < c->nr_caches; i++) {
			cpumask_t shared = { { 0 } };
			char list[64];

			for (int o = 0; o < topo->nr_cpus; o++) {
				const struct topology_cache *oc =
					topology_cache_at(topo, o, c->cache[i].level);

				if (oc && oc->node == c->cache[i].node)
					__cpumask_set_cpu((unsigned int)o, &shared);
			}
			topology_format_mask(list, sizeof(list), &shared);
			printk("topology: cache cpu=%d level=%u type=%s size_kib=%u "
			       "shared_cpus=%s\n",
			       cpu, c->cache[i].level, c->cache[i].unified ? "unified" : "data",
			       c->cache[i].size / 1024, list);
		}
	}
}
