/* topology_print.c - what topology.c read, printed: the `topology:` lines (the boot's,
 * the shell's `topology`, build/host/topology's, compared line by line by the tests), the
 * boot summary, and CPU masks and level names as text. Not the reading (topology.c).
 * Pure but for one flag without a lock: whether the block was printed (a trace dump
 * prints it once for tools/trace.py). Linux shows these facts in /sys/devices/system/cpu. */
#include "topology.h"
#include "printk.h"

const char *topology_level_name(int level)
{
	return level == SD_LEVEL_MC ? "MC" : level == SD_LEVEL_DIE ? "DIE" : "?";
}

/* Append v in base 10 or 16 to buf[pos..], keeping room for the NUL. */
static size_t put_uint(char *buf, size_t size, size_t pos, u64 v, unsigned int base)
{
	char tmp[20];
	int n = 0;

	do {
		tmp[n++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	while (n && pos + 1 < size)
		buf[pos++] = tmp[--n];
	return pos;
}

void topology_format_mask(char *buf, size_t size, const cpumask_t *mask)
{
	size_t pos = 0;

	if (!size)
		return;
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		unsigned int last = cpu;

		if (!cpumask_test_cpu(cpu, mask))
			continue;
		while (last + 1 < NR_CPUS && cpumask_test_cpu(last + 1, mask))
			last++;
		if (pos && pos + 1 < size)
			buf[pos++] = ',';
		pos = put_uint(buf, size, pos, cpu, 10);
		if (last > cpu) {
			if (pos + 1 < size)
				buf[pos++] = '-';
			pos = put_uint(buf, size, pos, last, 10);
		}
		cpu = last;
	}
	if (!pos) {
		for (const char *s = "none"; *s && pos + 1 < size; s++)
			buf[pos++] = *s;
	}
	buf[pos] = '\0';
}

static const char *flags_name(u32 flags)
{
	static const char *const names[] = {
		"none",
		"SD_SHARE_PKG_RESOURCES",
		"SD_ASYM_CPUCAPACITY",
		"SD_SHARE_PKG_RESOURCES|SD_ASYM_CPUCAPACITY",
		"SD_ASYM_CPUCAPACITY_FULL",
		"SD_SHARE_PKG_RESOURCES|SD_ASYM_CPUCAPACITY_FULL",
		"SD_ASYM_CPUCAPACITY|SD_ASYM_CPUCAPACITY_FULL",
		"SD_SHARE_PKG_RESOURCES|SD_ASYM_CPUCAPACITY|SD_ASYM_CPUCAPACITY_FULL",
	};

	return flags < ARRAY_SIZE(names) ? names[flags] : "?";
}

/* One printk per line: lines are atomic on the console, fragments are not. */
static void print_cpu(const struct topology *topo, int cpu)
{
	const struct cpu_topology *c = &topo->cpu[cpu];
	const struct topology_freq_domain *fd = &topo->freq_domain[c->freq_domain];
	const struct topology_opp_table *t =
		c->opp_table >= 0 ? &topo->opp_table[c->opp_table] : NULL;
	char mpidr[24] = "invalid";

	if (c->mpidr != MPIDR_INVALID) {
		mpidr[0] = '0';
		mpidr[1] = 'x';
		mpidr[put_uint(mpidr, sizeof(mpidr), 2, c->mpidr, 16)] = '\0';
	}
	printk("topology: cpu=%d mpidr=%s cluster=%d freq_domain=%d compatible=%s dmips=%u "
	       "capacity=%u fmin=%u fmax=%u nr_opps=%d power_coeff=%u enable_method=%s "
	       "cpu_release_addr=0x%llx sd_asym_cpucapacity=%s\n",
	       cpu, mpidr, c->cluster_id, c->freq_domain, c->compatible ? c->compatible : "none",
	       c->dmips, c->capacity_orig, c->fmin, c->fmax, t ? t->nr_opps : 0, fd->power_coeff,
	       c->enable_method ? c->enable_method : "none",
	       (unsigned long long)c->cpu_release_addr,
	       c->sd_asym_cpucapacity >= 0 ? topology_level_name(c->sd_asym_cpucapacity) : "none");
}

static void print_freq_domain(const struct topology *topo, int fd)
{
	const struct topology_freq_domain *d = &topo->freq_domain[fd];
	const struct topology_opp_table *t =
		d->opp_table >= 0 ? &topo->opp_table[d->opp_table] : NULL;
	char cpus[64];

	topology_format_mask(cpus, sizeof(cpus), &d->cpus);
	printk("topology: freq_domain=%d cpus=%s nr_opps=%d fmin=%u fmax=%u latency_ns=%u "
	       "shared=%d power_coeff=%u nr_perf_states=%d\n",
	       fd, cpus, t ? t->nr_opps : 0, t ? t->opp[0].freq_khz : 0,
	       t ? t->opp[t->nr_opps - 1].freq_khz : 0, t ? t->clock_latency_ns : 0,
	       t ? t->shared : 0, d->power_coeff, d->nr_perf_states);
	for (int i = 0; t && i < t->nr_opps; i++)
		printk("topology: opp freq_domain=%d freq=%u microvolt=%u power=%llu cost=%llu\n",
		       fd, t->opp[i].freq_khz, t->opp[i].microvolt,
		       (unsigned long long)(i < d->nr_perf_states ? d->em[i].power : 0),
		       (unsigned long long)(i < d->nr_perf_states ? d->em[i].cost : 0));
}

static void print_idle_state(int cpu, int i, const struct topology_idle_state *s)
{
	printk("topology: idle cpu=%d state=%d name=%s entry_us=%u exit_us=%u residency_us=%u "
	       "level=%d timer_stop=%d psci=0x%x\n",
	       cpu, i, s->name, s->entry_latency_us, s->exit_latency_us, s->min_residency_us,
	       s->level, s->local_timer_stop, s->psci_param);
}

static bool block_printed;

bool topology_printed(void)
{
	return block_printed;
}

/* Appends to buf (size bytes) at *len; "..." once it is full. */
#define APPEND(buf, size, len, ...)                                                                \
	do {                                                                                       \
		if (*(len) < (size))                                                               \
			*(len) += (size_t)ksnprintf((buf) + *(len), (size) - *(len), __VA_ARGS__); \
		if (*(len) >= (size))                                                              \
			ksnprintf((buf) + (size)-4, 4, "...");                                     \
	} while (0)

/* "0: CPUs 0-3 capacity 462; 1: CPUs 4-7 capacity 1024" */
static void format_clusters(const struct topology *topo, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int cl = 0; cl < topo->nr_clusters; cl++) {
		cpumask_t m = { { 0 } };
		u32 lo = ~0u, hi = 0;
		char cpus[64];

		for (int cpu = 0; cpu < topo->nr_cpus; cpu++) {
			if (topo->cpu[cpu].cluster_id != cl)
				continue;
			__cpumask_set_cpu((unsigned int)cpu, &m);
			lo = MIN(lo, topo->cpu[cpu].capacity_orig);
			hi = MAX(hi, topo->cpu[cpu].capacity_orig);
		}
		if (cpumask_empty(&m))
			continue;
		topology_format_mask(cpus, sizeof(cpus), &m);
		APPEND(buf, size, &len, "%s%d: CPUs %s capacity %u", cl ? "; " : "", cl, cpus, lo);
		if (hi != lo)
			APPEND(buf, size, &len, "-%u", hi);
	}
}

/* "CPUs 0-3 533-1844 MHz (5 OPPs); CPUs 4-7 903-2362 MHz (5 OPPs)" */
static void format_opps(const struct topology *topo, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int fd = 0; fd < topo->nr_freq_domains; fd++) {
		const struct topology_freq_domain *d = &topo->freq_domain[fd];
		const struct topology_opp_table *t =
			d->opp_table >= 0 ? &topo->opp_table[d->opp_table] : NULL;
		char cpus[64];

		if (!t || !t->nr_opps)
			continue;
		topology_format_mask(cpus, sizeof(cpus), &d->cpus);
		APPEND(buf, size, &len, "%sCPUs %s %u-%u MHz (%d OPPs)", len ? "; " : "", cpus,
		       t->opp[0].freq_khz / 1000, t->opp[t->nr_opps - 1].freq_khz / 1000,
		       t->nr_opps);
	}
	if (!len)
		APPEND(buf, size, &len, "none (no operating-points-v2 in the tree)");
}

/* The first screen's three lines; topology_print() has every fact. */
void topology_print_summary(const struct topology *topo)
{
	char buf[320];

	printk("machine: %d CPUs in %d cluster%s, %s capacities ('topology' prints every "
	       "fact read from the device tree)\n",
	       topo->nr_cpus, topo->nr_clusters, topo->nr_clusters == 1 ? "" : "s",
	       topo->asym_cpucapacity ? "asymmetric" : "equal");
	format_clusters(topo, buf, sizeof(buf));
	printk("clusters: %s\n", buf);
	format_opps(topo, buf, sizeof(buf));
	printk("OPPs: %s\n", buf);
}

void topology_print(const struct topology *topo)
{
	char span[64];

	block_printed = true;

	printk("topology: nr_cpus=%d nr_clusters=%d nr_freq_domains=%d clusters_from=%s "
	       "asym_cpucapacity=%d\n",
	       topo->nr_cpus, topo->nr_clusters, topo->nr_freq_domains,
	       topo->cpu_map ? "cpu-map" : "mpidr", topo->asym_cpucapacity);
	for (int cpu = 0; cpu < topo->nr_cpus; cpu++)
		print_cpu(topo, cpu);
	for (int cpu = 0; cpu < topo->nr_cpus; cpu++) {
		for (int l = 0; l < SD_NR_LEVELS; l++) {
			const struct topology_sd *sd = &topo->cpu[cpu].sd[l];

			if (cpumask_empty(&sd->span))
				continue;
			topology_format_mask(span, sizeof(span), &sd->span);
			printk("topology: domain=%s cpu=%d span=%s flags=%s\n",
			       topology_level_name(l), cpu, span, flags_name(sd->flags));
		}
	}
	for (int fd = 0; fd < topo->nr_freq_domains; fd++)
		print_freq_domain(topo, fd);
	for (int cpu = 0; cpu < topo->nr_cpus; cpu++)
		for (int i = 0; i < topo->cpu[cpu].nr_idle_states; i++)
			print_idle_state(cpu, i, &topo->cpu[cpu].idle[i]);
	topology_print_caches(topo);
}
