/* topology.h - what the device tree says about the CPUs: logical numbering,
 * MPIDRs, capacities, clusters, OPP tables, frequency domains, the energy
 * model and the sched-domain hierarchy (kernel/sched/topology.c).
 * Pure data filled by topology_parse(): no globals, no locks, no allocation;
 * the same code runs in the kernel at boot and in build/host/topology. */
#ifndef TOPOLOGY_H
#define TOPOLOGY_H

#include "dtb.h"
#include "cpumask.h"
#include "types.h"

/* Linux: SCHED_CAPACITY_SCALE. The biggest CPU at its highest OPP. */
#define SCHED_CAPACITY_SHIFT 10
#define SCHED_CAPACITY_SCALE (1u << SCHED_CAPACITY_SHIFT)

#define TOPOLOGY_MAX_OPPS     32      /* per OPP table; more are ignored, with a warning */
#define TOPOLOGY_MAX_CLUSTERS NR_CPUS /* every cluster holds at least one CPU */
#define MPIDR_INVALID	      (~0ull) /* Linux: INVALID_HWID; reg absent, bad or duplicated */
/* Linux: MPIDR_HWID_BITMASK - the affinity fields Aff3..Aff0 that reg may hold. */
#define MPIDR_HWID_BITMASK    0xff00ffffffull

/* Sched-domain levels, lowest first. Linux: default_topology[] without SMT/CLS. */
enum topology_level {
	SD_LEVEL_MC,  /* the CPUs of one cluster */
	SD_LEVEL_DIE, /* all CPUs, when there is more than one cluster */
	SD_NR_LEVELS,
};

/* Linux's SD_* flags that this tree can derive (values are ours). */
#define SD_SHARE_PKG_RESOURCES	 (1u << 0) /* MC: the cluster shares its last-level cache */
#define SD_ASYM_CPUCAPACITY	 (1u << 1) /* span holds more than one capacity value */
#define SD_ASYM_CPUCAPACITY_FULL (1u << 2) /* span sees every capacity value of the system */

/* Which fallbacks fired (topology->warnings); each is printed once per parse. */
enum topology_warning {
	TW_NO_CPUS,	  /* no usable /cpus: one default CPU */
	TW_TOO_MANY_CPUS, /* more than NR_CPUS: the rest are ignored */
	TW_BAD_REG,	  /* cpu reg absent or outside MPIDR_HWID_BITMASK */
	TW_DUP_MPIDR,	  /* two cpus with the same reg */
	TW_DMIPS_MISSING, /* some cpu lacks capacity-dmips-mhz: all get 1024 */
	TW_DMIPS_ZERO,	  /* capacity-dmips-mhz = 0 counts as missing */
	TW_NO_FMAX,	  /* some cpus have OPPs, one has none: dmips alone */
	TW_OPP_PHANDLE,	  /* operating-points-v2 names no node */
	TW_OPP_EMPTY,	  /* an OPP table with no usable entry */
	TW_OPP_BAD_ENTRY, /* an OPP without opp-hz, with 0 Hz, or a duplicate */
	TW_OPP_TOO_MANY,  /* more than TOPOLOGY_MAX_OPPS entries */
	TW_NO_CPU_MAP,	  /* no cpu-map: clusters from MPIDR Aff1 (informational) */
	TW_CPU_MAP,	  /* cpu-map broken: clusters from MPIDR Aff1 */
	TW_EM,		  /* an energy model could not be built for a domain */
	TW_POWER_COEFF,	  /* cpus of one frequency domain disagree on the coefficient */
	TW_IDLE_STATES,	  /* a cpu's idle-state list is broken: that cpu gets WFI only */
	TW_CACHES,	  /* a cpu's cache chain is broken: no cache info for it */
	TW_NR,
};

struct topology_opp {
	u32 freq_khz;  /* opp-hz / 1000 */
	u32 microvolt; /* first cell of opp-microvolt, 0 if absent */
};

/* An operating-points-v2 table, sorted by ascending frequency. */
struct topology_opp_table {
	int node;	      /* DT offset of the table node */
	bool shared;	      /* opp-shared: one frequency for its cpus */
	u32 clock_latency_ns; /* the largest clock-latency-ns of its entries */
	int nr_opps;
	struct topology_opp opp[TOPOLOGY_MAX_OPPS];
};

/* Linux: struct em_perf_state. power_uW = C x mV^2 x MHz / 10^6,
 * cost = f_max x power / f. */
struct topology_em_state {
	u32 frequency; /* kHz */
	u64 power;     /* uW */
	u64 cost;
};

/* A frequency domain (Linux: a cpufreq policy and its em_perf_domain). */
struct topology_freq_domain {
	cpumask_t cpus;	    /* logical cpus */
	int opp_table;	    /* index in topology->opp_table, -1 if none */
	u32 power_coeff;    /* dynamic-power-coefficient, 0 if none */
	int nr_perf_states; /* 0: no energy model */
	struct topology_em_state em[TOPOLOGY_MAX_OPPS];
};

#define TOPOLOGY_MAX_IDLE_STATES 8 /* per cpu, WFI included (Linux: CPUIDLE_STATE_MAX 10) */

/* An idle state (Linux: struct cpuidle_state as dt_init_idle_driver() fills
 * it, plus the PSCI driver's parameter). State 0 is always WFI (Linux:
 * ARM_CPUIDLE_WFI_STATE: 1 us latency and residency). level: the power
 * domain it turns off, 0 the CPU, 1 its cluster: from the PSCI parameter's
 * PowerLevel (bits 25:24), or the power-domain hierarchy it came from. */
struct topology_idle_state {
	int node;	  /* DT offset, -1 for WFI */
	const char *name; /* the node's name, "WFI" */
	u32 entry_latency_us, exit_latency_us, min_residency_us;
	u32 psci_param;
	bool local_timer_stop;
	int level;
};

#define TOPOLOGY_MAX_CACHES 4 /* per cpu: its L1 data (or unified) cache and the levels beyond */

/* One cache a cpu reaches, as Linux's cacheinfo reads the tree (drivers/base/cacheinfo.c:
 * init_of_cache_level(), cache_setup_of_node()): level 1 from the cpu node's d-cache-size
 * (or cache-size with cache-unified), then each next-level-cache node, which must be
 * compatible "cache" with a cache-level above the last (else Linux keeps no cache info:
 * nr_caches 0 and a warning here). Two cpus share a cache when they reach the same node
 * (kernel/sched/cacheinfo.c). Instruction caches are not kept: the model has data only. */
struct topology_cache {
	int node;     /* DT offset: the cpu node for its L1, else the cache node */
	u32 level;    /* 1, 2, ... */
	u32 size;     /* bytes; 0 if the tree does not say */
	bool unified; /* cache-unified, or a cache-size without split i/d sizes */
};

struct topology_sd {
	cpumask_t span; /* empty: this level does not exist for this cpu */
	u32 flags;	/* SD_* */
};

/* Per logical cpu. Linux: struct cpu_topology + the bits of the cpu node. */
struct cpu_topology {
	int node;		   /* DT offset of the cpu node (-1: default cpu) */
	u64 mpidr;		   /* reg, or MPIDR_INVALID: never start such a cpu */
	const char *enable_method; /* "psci", "spin-table" (into the DTB) or NULL */
	u64 cpu_release_addr;	   /* 0 if absent */
	const char *compatible;	   /* first compatible string, or NULL */
	u32 dmips;		   /* capacity-dmips-mhz as read, 0 if absent */
	u32 capacity_orig;	   /* Linux: arch_scale_cpu_capacity(), 1..1024 */
	int cluster_id;		   /* 0..nr_clusters-1 */
	int freq_domain;	   /* index in topology->freq_domain */
	int opp_table;		   /* index in topology->opp_table, -1 if none */
	u32 fmin, fmax;		   /* kHz, 0 without an OPP table */
	struct topology_sd sd[SD_NR_LEVELS];
	int sd_asym_cpucapacity; /* lowest level with ..._FULL, -1 if none */
	int nr_idle_states;	 /* >= 1: idle[0] is WFI */
	struct topology_idle_state idle[TOPOLOGY_MAX_IDLE_STATES];
	int nr_caches; /* 0: the tree describes no (usable) cache */
	struct topology_cache cache[TOPOLOGY_MAX_CACHES];
};

struct topology {
	int nr_cpus;
	struct cpu_topology cpu[NR_CPUS];
	int nr_clusters;
	cpumask_t cluster_cpus[TOPOLOGY_MAX_CLUSTERS];
	bool cpu_map; /* clusters came from /cpus/cpu-map (else MPIDR) */
	int nr_opp_tables;
	struct topology_opp_table opp_table[NR_CPUS];
	int nr_freq_domains;
	struct topology_freq_domain freq_domain[NR_CPUS];
	bool asym_cpucapacity; /* Linux: sched_asym_cpucapacity static key */
	u32 warnings;	       /* 1 << TW_*: which fallbacks fired */
};

/* THE LOGICAL CPU NUMBERING CONTRACT: the possible cpus are the children of
 * /cpus with device_type = "cpu", in DT order, minus those with status
 * "disabled", at most NR_CPUS (more: warning); logical id = that index.
 * A cpu whose reg is absent, malformed or duplicated keeps its number with
 * mpidr = MPIDR_INVALID (and a warning): SMP code must not start it.
 *
 * Fills *topo from the DTB. Bad input is warned about (printk, once per kind)
 * and replaced by a safe default; it never faults. Returns 0, or -1 when the
 * tree has no usable cpu: topo then holds one default cpu (capacity 1024,
 * mpidr MPIDR_INVALID) so that the boot cpu can still run.
 * *topo is large (~20 KB): give it static storage in the kernel. */
int topology_parse(const struct dtb *dt, struct topology *topo);

/* kernel/sched/topology_print.c. Print the result, lines prefixed "topology: " with
 * key=value fields: a summary, one line per cpu, per domain level of each cpu, per
 * frequency domain and per energy-model state. Deterministic (no addresses). */
void topology_print(const struct topology *topo);
/* Whether topology_print() ran (a trace dump prints it once for tools/trace.py). */
bool topology_printed(void);
/* Three lines for the console's first screen: CPUs, clusters with their
 * capacities, each frequency domain's OPP range. */
void topology_print_summary(const struct topology *topo);

/* Recompute every cpu's sched-domain spans and flags (and asym_cpucapacity)
 * over the cpus in `active` (CPU hotplug; topology_parse() passes all):
 * inactive cpus get none, spans lose them, and the SD_ASYM_CPUCAPACITY(_FULL)
 * flags follow the capacities the active cpus have (Linux: build_sched_domains
 * over cpu_active_mask). Pure: only *topo changes. */
void topology_build_sched_domains(struct topology *topo, const cpumask_t *active);

const char *topology_level_name(int level); /* "MC", "DIE" */

/* Span as a cpu list ("0-3,6"): writes at most size bytes, NUL-terminated. */
void topology_format_mask(char *buf, size_t size, const cpumask_t *mask);

/* kernel/sched/cacheinfo.c: each cpu's caches (topology_parse() calls it), their
 * "topology: cache ..." lines, and whether two cpus share their level-`level` cache. */
void topology_parse_caches(const struct dtb *dt, struct topology *topo);
void topology_print_caches(const struct topology *topo);
const struct topology_cache *topology_cache_at(const struct topology *topo, int cpu, u32 level);

#endif
