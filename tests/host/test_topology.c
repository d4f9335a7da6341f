/* test_topology.c - host tests of kernel/sched/topology.c on the trees of dts/
 * (exact capacities, clusters, domains, flags, OPPs, energy model) and on the
 * broken trees of tests/dts/ (one fallback each). Trees are read from
 * BUILD/dts and BUILD/tests/dts (BUILD = build, or the directory of the
 * --dtb files the runner passes); a missing tree fails, never skips.
 * Expected values are computed here from the DT facts, in doubles. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "host.h"
#include "ktest.h"
#include "topology.h"

struct tree {
	void *blob;
	struct dtb dt;
	struct topology topo;
	int ret;
};

/* BUILD: the runner passes --dtb BUILD/dts/X.dtb; without it, "build". */
static const char *build_dir(void)
{
	static char dir[512];

	for (int i = 0; i < host_nr_dtbs; i++) {
		const char *f = host_dtb_files[i], *s = NULL;

		for (const char *p = strstr(f, "/dts/"); p; p = strstr(p + 1, "/dts/"))
			s = p; /* the last one: BUILD itself may contain "/dts/" */
		if (s && !strchr(s + 5, '/') && (size_t)(s - f) < sizeof(dir)) {
			memcpy(dir, f, (size_t)(s - f));
			dir[s - f] = '\0';
			return dir;
		}
	}
	return "build";
}

static struct tree *parse_blob(struct ktest *t, void *blob, size_t size, const char *what)
{
	struct tree *tr = calloc(1, sizeof(*tr));
	int err;

	if (!tr) {
		free(blob);
		return NULL;
	}
	tr->blob = blob;
	if ((err = dtb_init(&tr->dt, blob, size)) < 0) {
		ktest_fail(t, __FILE__, __LINE__, "%s: dtb_init: %s", what, dtb_strerror(err));
		free(blob);
		free(tr);
		return NULL;
	}
	tr->ret = topology_parse(&tr->dt, &tr->topo);
	return tr;
}

/* sub is "dts" or "tests/dts"; name without ".dtb". */
static struct tree *load(struct ktest *t, const char *sub, const char *name)
{
	char path[1024];
	size_t size;
	void *blob;

	snprintf(path, sizeof(path), "%s/%s/%s.dtb", build_dir(), sub, name);
	if (!(blob = host_read_file(path, &size))) {
		ktest_fail(t, __FILE__, __LINE__, "cannot read %s (make dtbs builds it)", path);
		return NULL;
	}
	return parse_blob(t, blob, size, path);
}

static void unload(struct tree *tr)
{
	if (tr) {
		free(tr->blob);
		free(tr);
	}
}

static bool warned(const struct topology *topo, enum topology_warning w)
{
	return topo->warnings & (1u << w);
}

/* ---- invariants that hold for any input ------------------------------------ */

static void check_opp_table(struct ktest *t, const struct topology_opp_table *ot)
{
	EXPECT_GT(t, ot->nr_opps, 0);
	EXPECT_LE(t, ot->nr_opps, TOPOLOGY_MAX_OPPS);
	for (int i = 1; i < ot->nr_opps; i++)
		EXPECT_LT(t, ot->opp[i - 1].freq_khz, ot->opp[i].freq_khz);
}

static void check_cpu(struct ktest *t, const struct topology *topo, int cpu, const cpumask_t *all)
{
	const struct cpu_topology *c = &topo->cpu[cpu];

	EXPECT_GE(t, c->capacity_orig, 1);
	EXPECT_LE(t, c->capacity_orig, SCHED_CAPACITY_SCALE);
	ASSERT_GE(t, c->cluster_id, 0);
	ASSERT_LT(t, c->cluster_id, topo->nr_clusters);
	EXPECT_TRUE(t, cpumask_test_cpu(cpu, &topo->cluster_cpus[c->cluster_id]));
	ASSERT_GE(t, c->freq_domain, 0);
	ASSERT_LT(t, c->freq_domain, topo->nr_freq_domains);
	EXPECT_TRUE(t, cpumask_test_cpu(cpu, &topo->freq_domain[c->freq_domain].cpus));
	EXPECT_TRUE(t, c->opp_table >= -1 && c->opp_table < topo->nr_opp_tables);
	if (c->mpidr != MPIDR_INVALID)
		EXPECT_EQ(t, c->mpidr & ~MPIDR_HWID_BITMASK, 0);
	for (int l = 0; l < SD_NR_LEVELS; l++) {
		if (cpumask_empty(&c->sd[l].span))
			continue;
		EXPECT_TRUE(t, cpumask_test_cpu(cpu, &c->sd[l].span));
		EXPECT_TRUE(t, cpumask_subset(&c->sd[l].span, all));
		EXPECT_GT(t, cpumask_weight(&c->sd[l].span), 1u);
	}
	if (c->sd_asym_cpucapacity >= 0)
		EXPECT_TRUE(t, c->sd[c->sd_asym_cpucapacity].flags & SD_ASYM_CPUCAPACITY_FULL);
}

static void check_invariants(struct ktest *t, const struct topology *topo)
{
	cpumask_t all = { { 0 } }, clusters = { { 0 } }, domains = { { 0 } };
	u32 max_cap = 0;

	ASSERT_GE(t, topo->nr_cpus, 1);
	ASSERT_LE(t, topo->nr_cpus, NR_CPUS);
	for (int cpu = 0; cpu < topo->nr_cpus; cpu++)
		__cpumask_set_cpu(cpu, &all);
	for (int cpu = 0; cpu < topo->nr_cpus; cpu++) {
		check_cpu(t, topo, cpu, &all);
		max_cap = MAX(max_cap, topo->cpu[cpu].capacity_orig);
	}
	EXPECT_EQ(t, max_cap, SCHED_CAPACITY_SCALE);
	for (int i = 0; i < topo->nr_clusters; i++) {
		EXPECT_FALSE(t, cpumask_empty(&topo->cluster_cpus[i]));
		EXPECT_FALSE(t,
			     cpumask_intersects(&clusters, &topo->cluster_cpus[i])); /* disjoint */
		cpumask_or(&clusters, &clusters, &topo->cluster_cpus[i]);
	}
	EXPECT_TRUE(t, cpumask_equal(&clusters, &all));
	for (int i = 0; i < topo->nr_freq_domains; i++) {
		EXPECT_FALSE(t, cpumask_intersects(&domains, &topo->freq_domain[i].cpus));
		cpumask_or(&domains, &domains, &topo->freq_domain[i].cpus);
	}
	EXPECT_TRUE(t, cpumask_equal(&domains, &all));
	for (int i = 0; i < topo->nr_opp_tables; i++)
		if (topo->opp_table[i].nr_opps)
			check_opp_table(t, &topo->opp_table[i]);
}

/* ---- the machines of dts/ --------------------------------------------------- */

#define L	  462 /* A53: 592 x 1844000 x 1024 / (1024 x 2362000) */
#define B	  1024
#define MC_FLAGS  SD_SHARE_PKG_RESOURCES
#define ASYM_FULL (SD_ASYM_CPUCAPACITY | SD_ASYM_CPUCAPACITY_FULL)

#define MACHINE_MAX_CPUS 64

struct machine {
	const char *name;
	int nr_cpus;
	u64 mpidr[MACHINE_MAX_CPUS];
	u32 capacity[MACHINE_MAX_CPUS];
	int cluster[MACHINE_MAX_CPUS];
	u32 fmax[MACHINE_MAX_CPUS];
	int nr_clusters; /* 0: 2 with a DIE level, else 1 */
	int nr_freq_domains;
	u32 mc_flags; /* every MC domain */
	bool die;     /* a DIE level exists (more than one cluster) */
	int sd_asym;  /* expected sd_asym_cpucapacity level of every cpu */
	const char *compat_big;
};

/* One machine per block reads better than one field per line. */
/* clang-format off */
#define HIKEY_FMAX { 1844000, 1844000, 1844000, 1844000, 2362000, 2362000, 2362000, 2362000 }
#define HIKEY_MPIDR { 0, 1, 2, 3, 0x100, 0x101, 0x102, 0x103 }
#define MPIDR_0_7 { 0, 1, 2, 3, 4, 5, 6, 7 }
#define CAPS_44 { L, L, L, L, B, B, B, B }
#define CLUSTERS_44 { 0, 0, 0, 0, 1, 1, 1, 1 }
/* qemu-bl64: QEMU's GICv3 MPIDRs (16 per Aff1), clusters of 8, 32 LITTLE then 32 big. */
#define X8(v) v, v, v, v, v, v, v, v
#define X32(v) X8(v), X8(v), X8(v), X8(v)
#define AFF16(h) h, h + 1, h + 2, h + 3, h + 4, h + 5, h + 6, h + 7, h + 8, h + 9, \
	h + 10, h + 11, h + 12, h + 13, h + 14, h + 15

static const struct machine machines[] = {
	{ .name = "hi3660-hikey960", .nr_cpus = 8, .mpidr = HIKEY_MPIDR, .capacity = CAPS_44,
	  .cluster = CLUSTERS_44, .fmax = HIKEY_FMAX, .nr_freq_domains = 2,
	  .mc_flags = MC_FLAGS, .die = true, .sd_asym = SD_LEVEL_DIE,
	  .compat_big = "arm,cortex-a73" },
	{ .name = "qemu-bl44", .nr_cpus = 8, .mpidr = MPIDR_0_7, .capacity = CAPS_44,
	  .cluster = CLUSTERS_44, .fmax = HIKEY_FMAX, .nr_freq_domains = 2,
	  .mc_flags = MC_FLAGS, .die = true, .sd_asym = SD_LEVEL_DIE,
	  .compat_big = "arm,cortex-a53" },
	/* Pixel 3 shape: one cluster, so MC itself is the asymmetric domain. */
	{ .name = "qemu-bl44-1c", .nr_cpus = 8, .mpidr = MPIDR_0_7, .capacity = CAPS_44,
	  .cluster = { 0 }, .fmax = HIKEY_FMAX, .nr_freq_domains = 2,
	  .mc_flags = MC_FLAGS | ASYM_FULL, .die = false, .sd_asym = SD_LEVEL_MC,
	  .compat_big = "arm,cortex-a53" },
	{ .name = "qemu-sym8", .nr_cpus = 8, .mpidr = MPIDR_0_7,
	  .capacity = { B, B, B, B, B, B, B, B }, .cluster = { 0 },
	  .fmax = { 1844000, 1844000, 1844000, 1844000, 1844000, 1844000, 1844000, 1844000 },
	  .nr_freq_domains = 1, .mc_flags = MC_FLAGS, .die = false, .sd_asym = -1,
	  .compat_big = "arm,cortex-a53" },
	{ .name = "qemu-bl22", .nr_cpus = 4, .mpidr = { 0, 1, 2, 3 }, .capacity = { L, L, B, B },
	  .cluster = { 0, 0, 1, 1 }, .fmax = { 1844000, 1844000, 2362000, 2362000 },
	  .nr_freq_domains = 2, .mc_flags = MC_FLAGS, .die = true, .sd_asym = SD_LEVEL_DIE,
	  .compat_big = "arm,cortex-a53" },
	/* Three capacity levels (issue 14's speed self-tests): 800 x 2000 MHz against
	 * 1024 x 2362 MHz is 677. */
	{ .name = "qemu-tri", .nr_cpus = 8, .mpidr = MPIDR_0_7,
	  .capacity = { L, L, L, L, 677, 677, B, B }, .cluster = { 0, 0, 0, 0, 1, 1, 2, 2 },
	  .fmax = { 1844000, 1844000, 1844000, 1844000, 2000000, 2000000, 2362000, 2362000 },
	  .nr_freq_domains = 3, .mc_flags = MC_FLAGS, .die = true, .sd_asym = SD_LEVEL_DIE,
	  .compat_big = "arm,cortex-a53", .nr_clusters = 3 },
	{ .name = "qemu-hikey-mpidr", .nr_cpus = 8, .mpidr = HIKEY_MPIDR, .capacity = CAPS_44,
	  .cluster = CLUSTERS_44, .fmax = HIKEY_FMAX, .nr_freq_domains = 2,
	  .mc_flags = MC_FLAGS, .die = true, .sd_asym = SD_LEVEL_DIE,
	  .compat_big = "arm,cortex-a72" },
	{ .name = "qemu-bl64", .nr_cpus = 64,
	  .mpidr = { AFF16(0), AFF16(0x100), AFF16(0x200), AFF16(0x300) },
	  .capacity = { X32(L), X32(B) },
	  .cluster = { X8(0), X8(1), X8(2), X8(3), X8(4), X8(5), X8(6), X8(7) },
	  .fmax = { X32(1844000), X32(2362000) }, .nr_clusters = 8, .nr_freq_domains = 2,
	  .mc_flags = MC_FLAGS, .die = true, .sd_asym = SD_LEVEL_DIE,
	  .compat_big = "arm,cortex-a53" },
};
/* clang-format on */

static void check_machine_cpu(struct ktest *t, const struct machine *m, const struct topology *topo,
			      int cpu)
{
	const struct cpu_topology *c = &topo->cpu[cpu];
	u64 all = m->nr_cpus >= 64 ? ~0ull : (1ull << m->nr_cpus) - 1, cluster = 0;

	for (int i = 0; i < m->nr_cpus; i++)
		if (m->cluster[i] == m->cluster[cpu])
			cluster |= 1ull << i;
	EXPECT_EQ(t, c->mpidr, m->mpidr[cpu]);
	EXPECT_EQ(t, c->capacity_orig, m->capacity[cpu]);
	EXPECT_EQ(t, c->cluster_id, m->cluster[cpu]);
	EXPECT_EQ(t, c->fmax, m->fmax[cpu]);
	EXPECT_EQ(t, topo->opp_table[c->opp_table].nr_opps, 5);
	EXPECT_STREQ(t, c->enable_method, "psci");
	EXPECT_EQ(t, c->cpu_release_addr, 0);
	if (c->capacity_orig == B && m->capacity[0] != B)
		EXPECT_STREQ(t, c->compatible, m->compat_big);
	EXPECT_EQ(t, cpumask_u64(&c->sd[SD_LEVEL_MC].span), cluster);
	EXPECT_EQ(t, c->sd[SD_LEVEL_MC].flags, m->mc_flags);
	EXPECT_EQ(t, cpumask_u64(&c->sd[SD_LEVEL_DIE].span), m->die ? all : 0);
	if (m->die)
		EXPECT_EQ(t, c->sd[SD_LEVEL_DIE].flags, ASYM_FULL);
	EXPECT_EQ(t, c->sd_asym_cpucapacity, m->sd_asym);
}

static void check_machine(struct ktest *t, const struct machine *m)
{
	struct tree *tr = load(t, "dts", m->name);

	if (!tr)
		return;
	ktest_diag(t, "%s", m->name);
	EXPECT_EQ(t, tr->ret, 0);
	EXPECT_EQ(t, tr->topo.warnings, 0);
	EXPECT_TRUE(t, tr->topo.cpu_map);
	EXPECT_EQ(t, tr->topo.nr_cpus, m->nr_cpus);
	EXPECT_EQ(t, tr->topo.nr_clusters, m->nr_clusters ? m->nr_clusters : m->die ? 2 : 1);
	EXPECT_EQ(t, tr->topo.nr_freq_domains, m->nr_freq_domains);
	EXPECT_EQ(t, tr->topo.asym_cpucapacity, m->sd_asym >= 0);
	check_invariants(t, &tr->topo);
	for (int cpu = 0; cpu < m->nr_cpus && cpu < tr->topo.nr_cpus; cpu++)
		check_machine_cpu(t, m, &tr->topo, cpu);
	unload(tr);
}

static void every_dts_machine(struct ktest *t)
{
	for (size_t i = 0; i < ARRAY_SIZE(machines); i++)
		check_machine(t, &machines[i]);
}

/* A tree added to dts/ must get its expectations above. */
static void every_dts_file_is_checked(struct ktest *t)
{
	DIR *d = opendir("dts");
	struct dirent *e;
	int n = 0;

	ASSERT_TRUE(t, d != NULL);
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name), i;

		if (len < 5 || strcmp(e->d_name + len - 4, ".dts"))
			continue;
		n++;
		for (i = 0; i < ARRAY_SIZE(machines); i++)
			if (strlen(machines[i].name) == len - 4 &&
			    !strncmp(machines[i].name, e->d_name, len - 4))
				break;
		EXPECT_TRUE(t, i < ARRAY_SIZE(machines));
		if (i == ARRAY_SIZE(machines))
			ktest_diag(t, "dts/%s has no expectations in test_topology.c", e->d_name);
	}
	closedir(d);
	EXPECT_EQ(t, n, (int)ARRAY_SIZE(machines));
}

static const u32 a53_khz[] = { 533000, 999000, 1402000, 1709000, 1844000 };
static const u32 a73_khz[] = { 903000, 1421000, 1805000, 2112000, 2362000 };
static const u32 hikey_uv[] = { 700000, 800000, 900000, 1000000, 1100000 };

static void hikey960_opp_tables(struct ktest *t)
{
	struct tree *tr = load(t, "dts", "hi3660-hikey960");

	if (!tr)
		return;
	ASSERT_EQ(t, tr->topo.nr_freq_domains, 2);
	for (int fd = 0; fd < 2; fd++) {
		const struct topology_freq_domain *d = &tr->topo.freq_domain[fd];
		const struct topology_opp_table *ot = &tr->topo.opp_table[d->opp_table];
		const u32 *khz = fd ? a73_khz : a53_khz;

		EXPECT_EQ(t, cpumask_u64(&d->cpus), fd ? 0xf0 : 0x0f);
		EXPECT_TRUE(t, ot->shared);
		EXPECT_EQ(t, ot->clock_latency_ns, 300000);
		ASSERT_EQ(t, ot->nr_opps, 5);
		for (int i = 0; i < 5; i++) {
			EXPECT_EQ(t, ot->opp[i].freq_khz, khz[i]);
			EXPECT_EQ(t, ot->opp[i].microvolt, hikey_uv[i]);
		}
	}
	unload(tr);
}

/* uW = C x mV^2 x MHz / 10^6 and cost = fmax x power / f, from the DT facts. */
static void check_em(struct ktest *t, const struct topology_freq_domain *d, double coeff,
		     const u32 *khz)
{
	ASSERT_EQ(t, d->nr_perf_states, 5);
	EXPECT_EQ(t, d->power_coeff, (u32)coeff);
	for (int i = 0; i < 5; i++) {
		double mv = hikey_uv[i] / 1000.0, mhz = khz[i] / 1000.0;
		double power = coeff * mv * mv * mhz / 1e6, cost = khz[4] * power / khz[i];

		EXPECT_EQ(t, d->em[i].frequency, khz[i]);
		EXPECT_NEAR(t, d->em[i].power, power, 1);
		EXPECT_NEAR(t, d->em[i].cost, cost, 2);
		if (i)
			EXPECT_GT(t, d->em[i].cost, d->em[i - 1].cost);
	}
}

static void hikey960_energy_model(struct ktest *t)
{
	struct tree *tr = load(t, "dts", "hi3660-hikey960");

	if (!tr)
		return;
	check_em(t, &tr->topo.freq_domain[0], 110, a53_khz);
	check_em(t, &tr->topo.freq_domain[1], 550, a73_khz);
	/* The figures: A53 at 533 MHz ~28.7 mW, A73 at 2362 MHz ~1572 mW. */
	EXPECT_NEAR(t, tr->topo.freq_domain[0].em[0].power, 28700, 50);
	EXPECT_NEAR(t, tr->topo.freq_domain[1].em[4].power, 1572000, 500);
	/* The coefficient sits on cpu0/cpu4 only; it applies to the whole domain. */
	EXPECT_EQ(t, tr->topo.freq_domain[tr->topo.cpu[3].freq_domain].power_coeff, 110);
	EXPECT_EQ(t, tr->topo.freq_domain[tr->topo.cpu[7].freq_domain].power_coeff, 550);
	unload(tr);
}

/* Every DTB the runner passes (ours and QEMU's own): parse and hold the invariants. */
static void any_dtb_holds_invariants(struct ktest *t)
{
	for (int i = 0; i < host_nr_dtbs; i++) {
		size_t size;
		void *blob = host_read_file(host_dtb_files[i], &size);
		struct tree *tr;

		ASSERT_TRUE(t, blob != NULL);
		if (!(tr = parse_blob(t, blob, size, host_dtb_files[i])))
			continue;
		check_invariants(t, &tr->topo);
		unload(tr);
	}
	if (!host_nr_dtbs)
		ktest_diag(t, "no --dtb given: only the named trees are checked");
}

static void format_mask(struct ktest *t)
{
	char buf[64], small[5];

	topology_format_mask(buf, sizeof(buf), &(cpumask_t){ { 0 } });
	EXPECT_STREQ(t, buf, "none");
	topology_format_mask(buf, sizeof(buf), &(cpumask_t){ { 0xf0 } });
	EXPECT_STREQ(t, buf, "4-7");
	topology_format_mask(buf, sizeof(buf),
			     &(cpumask_t){ { 0x1ull | 0x4 | 0x38 | (1ull << 63) } });
	EXPECT_STREQ(t, buf, "0,2-5,63");
	topology_format_mask(small, sizeof(small), &(cpumask_t){ { 0x15 } });
	EXPECT_STREQ(t, small, "0,2,"); /* truncated, still terminated */
	EXPECT_STREQ(t, topology_level_name(SD_LEVEL_MC), "MC");
	EXPECT_STREQ(t, topology_level_name(SD_LEVEL_DIE), "DIE");
}

/* Linux's hi3660.dtsi idle-states, written out here as the reference: per
 * cluster {entry, exit, min-residency} in us, PSCI parameter, level. */
static const struct {
	u32 entry, exit, res, psci;
	int level;
} hikey_idle[2][2] = {
	{ { 400, 650, 1500, 0x0010000, 0 }, { 500, 1600, 3500, 0x1010000, 1 } }, /* A53 */
	{ { 400, 550, 1500, 0x0010000, 0 }, { 800, 2900, 3500, 0x1010000, 1 } }, /* A73 */
};

static void hikey960_idle_states(struct ktest *t)
{
	static const char *const trees[] = { "hi3660-hikey960", "qemu-bl44", "qemu-bl44-1c" };

	for (size_t n = 0; n < ARRAY_SIZE(trees); n++) {
		struct tree *tr = load(t, "dts", trees[n]);

		if (!tr)
			continue;
		EXPECT_FALSE(t, warned(&tr->topo, TW_IDLE_STATES));
		for (int cpu = 0; cpu < tr->topo.nr_cpus; cpu++) {
			const struct cpu_topology *c = &tr->topo.cpu[cpu];

			ASSERT_EQ(t, c->nr_idle_states, 3);
			EXPECT_STREQ(t, c->idle[0].name, "WFI");
			EXPECT_EQ(t, c->idle[0].level, 0);
			EXPECT_FALSE(t, c->idle[0].local_timer_stop);
			for (int i = 1; i < 3; i++) {
				const struct topology_idle_state *s = &c->idle[i];
				int big = cpu >= 4;

				EXPECT_EQ(t, s->entry_latency_us, hikey_idle[big][i - 1].entry);
				EXPECT_EQ(t, s->exit_latency_us, hikey_idle[big][i - 1].exit);
				EXPECT_EQ(t, s->min_residency_us, hikey_idle[big][i - 1].res);
				EXPECT_EQ(t, s->psci_param, hikey_idle[big][i - 1].psci);
				EXPECT_EQ(t, s->level, hikey_idle[big][i - 1].level);
				EXPECT_TRUE(t, s->local_timer_stop);
			}
		}
		unload(tr);
	}
}

KTEST_SUITE(topology, KTEST_CASE(every_dts_machine), KTEST_CASE(every_dts_file_is_checked),
	    KTEST_CASE(hikey960_opp_tables), KTEST_CASE(hikey960_energy_model),
	    KTEST_CASE(hikey960_idle_states), KTEST_CASE(any_dtb_holds_invariants),
	    KTEST_CASE(format_mask));

/* ---- bad and unusual input: the trees of tests/dts/, one fallback each --------- */

static struct tree *load_bad(struct ktest *t, const char *name)
{
	struct tree *tr = load(t, "tests/dts", name);

	if (tr)
		check_invariants(t, &tr->topo);
	return tr;
}

static void all_capacities(struct ktest *t, const struct topology *topo, u32 cap)
{
	for (int cpu = 0; cpu < topo->nr_cpus; cpu++)
		EXPECT_EQ(t, topo->cpu[cpu].capacity_orig, cap);
	EXPECT_FALSE(t, topo->asym_cpucapacity);
}

static void dmips_missing_gives_1024(struct ktest *t)
{
	struct tree *tr = load_bad(t, "dmips-missing");

	if (!tr)
		return;
	EXPECT_TRUE(t, warned(&tr->topo, TW_DMIPS_MISSING));
	all_capacities(t, &tr->topo, 1024);
	unload(tr);
	if (!(tr = load_bad(t, "dmips-zero")))
		return;
	EXPECT_TRUE(t, warned(&tr->topo, TW_DMIPS_ZERO));
	EXPECT_TRUE(t, warned(&tr->topo, TW_DMIPS_MISSING));
	all_capacities(t, &tr->topo, 1024);
	unload(tr);
}

/* One cpu without f_max: every capacity from dmips alone (these trees' dmips
 * top out at 1024, so capacity_orig = dmips). */
static void missing_fmax_uses_dmips(struct ktest *t)
{
	static const char *const trees[] = { "opp-missing-one", "opp-phandle", "opp-empty" };

	for (size_t i = 0; i < ARRAY_SIZE(trees); i++) {
		struct tree *tr = load_bad(t, trees[i]);

		if (!tr)
			continue;
		ktest_diag(t, "%s", trees[i]);
		EXPECT_TRUE(t, warned(&tr->topo, TW_NO_FMAX));
		for (int cpu = 0; cpu < tr->topo.nr_cpus; cpu++)
			EXPECT_EQ(t, tr->topo.cpu[cpu].capacity_orig, tr->topo.cpu[cpu].dmips);
		unload(tr);
	}
}

static void opp_phandle_to_nothing(struct ktest *t)
{
	struct tree *tr = load_bad(t, "opp-phandle");

	if (!tr)
		return;
	EXPECT_TRUE(t, warned(&tr->topo, TW_OPP_PHANDLE));
	EXPECT_EQ(t, tr->topo.cpu[1].opp_table, -1);
	EXPECT_EQ(t, tr->topo.cpu[1].fmax, 0);
	EXPECT_EQ(t, tr->topo.cpu[0].fmax, 1000000);
	unload(tr);
}

/* Unsorted entries sorted; duplicate, 0 Hz, missing opp-hz, turbo and
 * disabled entries dropped; triplet microvolt -> target; not opp-shared ->
 * one frequency domain per cpu even on a common table. */
static void opp_entries_filtered_and_sorted(struct ktest *t)
{
	struct tree *tr = load_bad(t, "opp-empty");
	const struct topology_opp_table *ot;

	if (!tr)
		return;
	EXPECT_TRUE(t, warned(&tr->topo, TW_OPP_EMPTY));
	EXPECT_TRUE(t, warned(&tr->topo, TW_OPP_BAD_ENTRY));
	EXPECT_EQ(t, tr->topo.cpu[1].opp_table, -1);
	ASSERT_GE(t, tr->topo.cpu[0].opp_table, 0);
	EXPECT_EQ(t, tr->topo.cpu[2].opp_table, tr->topo.cpu[0].opp_table);
	EXPECT_NE(t, tr->topo.cpu[2].freq_domain, tr->topo.cpu[0].freq_domain);
	EXPECT_EQ(t, tr->topo.nr_freq_domains, 3);
	ot = &tr->topo.opp_table[tr->topo.cpu[0].opp_table];
	EXPECT_FALSE(t, ot->shared);
	ASSERT_EQ(t, ot->nr_opps, 3);
	EXPECT_EQ(t, ot->opp[0].freq_khz, 600000);
	EXPECT_EQ(t, ot->opp[1].freq_khz, 1200000);
	EXPECT_EQ(t, ot->opp[1].microvolt, 950000);
	EXPECT_EQ(t, ot->opp[2].freq_khz, 1500000);
	EXPECT_EQ(t, ot->clock_latency_ns, 250000);
	unload(tr);
}

/* A broken cpu-map falls back to MPIDR Aff1, as a missing one does. */
static void cpu_map_fallbacks(struct ktest *t)
{
	static const struct {
		const char *name;
		int w, nr_clusters;
	} cases[] = {
		{ "cpu-map-phandle", TW_CPU_MAP, 2 },
		{ "cpu-map-incomplete", TW_CPU_MAP, 1 },
		{ "no-cpu-map", TW_NO_CPU_MAP, 2 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct tree *tr = load_bad(t, cases[i].name);

		if (!tr)
			continue;
		ktest_diag(t, "%s", cases[i].name);
		EXPECT_TRUE(t, warned(&tr->topo, cases[i].w));
		EXPECT_FALSE(t, tr->topo.cpu_map);
		EXPECT_EQ(t, tr->topo.nr_clusters, cases[i].nr_clusters);
		if (cases[i].nr_clusters == 2) {
			EXPECT_EQ(t, cpumask_u64(&tr->topo.cluster_cpus[0]), 0x3);
			EXPECT_EQ(t, cpumask_u64(&tr->topo.cluster_cpus[1]), 0xc);
		}
		/* No caches in these trees: one MC over the package, as Linux 6.1's
		 * cpu_coregroup_mask() without CONFIG_SCHED_CLUSTER; no DIE. */
		EXPECT_EQ(t, cpumask_u64(&tr->topo.cpu[0].sd[SD_LEVEL_MC].span), 0xf);
		EXPECT_EQ(t, cpumask_u64(&tr->topo.cpu[0].sd[SD_LEVEL_DIE].span), 0);
		unload(tr);
	}
}

static void no_cpu_map_two_cell_reg(struct ktest *t)
{
	struct tree *tr = load_bad(t, "no-cpu-map");

	if (!tr)
		return;
	EXPECT_EQ(t, tr->topo.cpu[2].mpidr, 0x100);
	EXPECT_EQ(t, tr->topo.cpu[0].capacity_orig, 512); /* 400 / 800, dmips alone */
	EXPECT_EQ(t, tr->topo.cpu[3].capacity_orig, 1024);
	/* Two clusters by MPIDR but no caches: one MC sees both capacities (no DIE). */
	EXPECT_EQ(t, tr->topo.cpu[0].sd[SD_LEVEL_MC].flags, MC_FLAGS | ASYM_FULL);
	EXPECT_EQ(t, tr->topo.cpu[0].sd[SD_LEVEL_DIE].flags, 0);
	EXPECT_TRUE(t, tr->topo.cpu[0].enable_method == NULL);
	unload(tr);
}

/* THE LOGICAL CPU NUMBERING CONTRACT, on odd nodes (see bad-reg.dts). */
static void numbering_contract(struct ktest *t)
{
	struct tree *tr = load_bad(t, "bad-reg");
	static const char *const names[] = { "cpu@0", "cpu-noreg", "cpu@2", "cpu@3", "cpu-dup" };
	static const u64 mpidr[] = { 0, MPIDR_INVALID, 2, MPIDR_INVALID, MPIDR_INVALID };

	if (!tr)
		return;
	ASSERT_EQ(t, tr->topo.nr_cpus, 5);
	for (int cpu = 0; cpu < 5; cpu++) {
		EXPECT_STREQ(t, dtb_node_name(&tr->dt, tr->topo.cpu[cpu].node, NULL), names[cpu]);
		EXPECT_EQ(t, tr->topo.cpu[cpu].mpidr, mpidr[cpu]);
	}
	EXPECT_TRUE(t, warned(&tr->topo, TW_BAD_REG));
	EXPECT_TRUE(t, warned(&tr->topo, TW_DUP_MPIDR));
	unload(tr);
}

static void too_many_cpus(struct ktest *t)
{
	struct tree *tr = load_bad(t, "too-many-cpus");

	if (!tr)
		return;
	EXPECT_TRUE(t, warned(&tr->topo, TW_TOO_MANY_CPUS));
	EXPECT_EQ(t, tr->topo.nr_cpus, NR_CPUS);
	EXPECT_FALSE(t, warned(&tr->topo, TW_CPU_MAP)); /* cpus 256, 257: legal, ignored */
	EXPECT_TRUE(t, tr->topo.cpu_map);
	EXPECT_EQ(t, cpumask_first(&tr->topo.cluster_cpus[1]), 128u);
	EXPECT_EQ(t, cpumask_weight(&tr->topo.cluster_cpus[1]), NR_CPUS - 128u);
	EXPECT_TRUE(t, cpumask_test_cpu(NR_CPUS - 1, &tr->topo.cluster_cpus[1]));
	unload(tr);
}

static void no_cpus_gives_default_cpu(struct ktest *t)
{
	struct tree *tr = load_bad(t, "no-cpus");

	if (!tr)
		return;
	EXPECT_EQ(t, tr->ret, -1);
	EXPECT_TRUE(t, warned(&tr->topo, TW_NO_CPUS));
	EXPECT_EQ(t, tr->topo.nr_cpus, 1);
	EXPECT_EQ(t, tr->topo.cpu[0].mpidr, MPIDR_INVALID);
	EXPECT_EQ(t, tr->topo.cpu[0].capacity_orig, 1024);
	EXPECT_EQ(t, cpumask_u64(&tr->topo.cpu[0].sd[SD_LEVEL_MC].span), 0);
	unload(tr);
}

/* Three capacities, nested clusters, SMT threads, spin-table (tri-gear.dts). */
static void three_capacities_partial_asym(struct ktest *t)
{
	struct tree *tr = load_bad(t, "tri-gear");
	const struct topology *topo;

	if (!tr)
		return;
	topo = &tr->topo;
	EXPECT_TRUE(t, topo->cpu_map);
	EXPECT_EQ(t, topo->nr_clusters, 2);
	EXPECT_EQ(t, cpumask_u64(&topo->cluster_cpus[1]), 0xf0);
	/* 300 x 1 GHz, 600 x 2 GHz, 1024 x 2.5 GHz -> 120, 480, 1024 */
	EXPECT_EQ(t, topo->cpu[0].capacity_orig, 120);
	EXPECT_EQ(t, topo->cpu[4].capacity_orig, 480);
	EXPECT_EQ(t, topo->cpu[7].capacity_orig, 1024);
	EXPECT_EQ(t, topo->cpu[0].sd[SD_LEVEL_MC].flags, MC_FLAGS);
	EXPECT_EQ(t, topo->cpu[4].sd[SD_LEVEL_MC].flags, MC_FLAGS | SD_ASYM_CPUCAPACITY);
	EXPECT_EQ(t, topo->cpu[4].sd[SD_LEVEL_DIE].flags, ASYM_FULL);
	EXPECT_EQ(t, topo->cpu[4].sd_asym_cpucapacity, SD_LEVEL_DIE);
	EXPECT_STREQ(t, topo->cpu[6].enable_method, "spin-table");
	EXPECT_EQ(t, topo->cpu[6].cpu_release_addr, 0x8000fff8);
	EXPECT_TRUE(t, warned(topo, TW_POWER_COEFF));
	EXPECT_EQ(t, topo->freq_domain[0].power_coeff, 100); /* the first one wins */
	EXPECT_EQ(t, topo->freq_domain[0].nr_perf_states, 1);
	EXPECT_EQ(t, topo->warnings, 1u << TW_POWER_COEFF);
	unload(tr);
}

/* CPU hotplug rebuilds over the active cpus (tri-gear: 120 x4, 480 x2, 1024 x2). */
static void rebuild_over_active_cpus(struct ktest *t)
{
	struct tree *tr = load_bad(t, "tri-gear");
	struct topology *topo;

	if (!tr)
		return;
	topo = &tr->topo;
	/* The bigs off: MC of 4-5 symmetric; DIE sees 120 and 480, all there are. */
	topology_build_sched_domains(topo, &(cpumask_t){ { 0x3f } });
	EXPECT_EQ(t, cpumask_u64(&topo->cpu[4].sd[SD_LEVEL_MC].span), 0x30);
	EXPECT_EQ(t, topo->cpu[4].sd[SD_LEVEL_MC].flags, MC_FLAGS);
	EXPECT_EQ(t, cpumask_u64(&topo->cpu[4].sd[SD_LEVEL_DIE].span), 0x3f);
	EXPECT_EQ(t, topo->cpu[4].sd[SD_LEVEL_DIE].flags, ASYM_FULL);
	EXPECT_EQ(t, cpumask_u64(&topo->cpu[7].sd[SD_LEVEL_DIE].span), 0);
	EXPECT_EQ(t, topo->cpu[7].sd_asym_cpucapacity, -1);
	EXPECT_TRUE(t, topo->asym_cpucapacity);
	/* The littles off: one cluster, no DIE; its MC is FULL now. */
	topology_build_sched_domains(topo, &(cpumask_t){ { 0xf0 } });
	EXPECT_EQ(t, cpumask_u64(&topo->cpu[5].sd[SD_LEVEL_DIE].span), 0);
	EXPECT_EQ(t, topo->cpu[5].sd[SD_LEVEL_MC].flags, MC_FLAGS | ASYM_FULL);
	EXPECT_EQ(t, topo->cpu[5].sd_asym_cpucapacity, SD_LEVEL_MC);
	/* Littles only: symmetric. */
	topology_build_sched_domains(topo, &(cpumask_t){ { 0x0f } });
	EXPECT_FALSE(t, topo->asym_cpucapacity);
	EXPECT_EQ(t, topo->cpu[0].sd[SD_LEVEL_MC].flags, MC_FLAGS);
	EXPECT_EQ(t, topo->cpu[0].sd_asym_cpucapacity, -1);
	/* One little and one big: MC levels degenerate, DIE is asymmetric. */
	topology_build_sched_domains(topo, &(cpumask_t){ { 0x81 } });
	EXPECT_EQ(t, cpumask_u64(&topo->cpu[0].sd[SD_LEVEL_MC].span), 0);
	EXPECT_EQ(t, cpumask_u64(&topo->cpu[0].sd[SD_LEVEL_DIE].span), 0x81);
	EXPECT_EQ(t, topo->cpu[0].sd[SD_LEVEL_DIE].flags, ASYM_FULL);
	/* All back: what the parse gave (the check of three_capacities_partial_asym). */
	topology_build_sched_domains(topo, &(cpumask_t){ { 0xff } });
	EXPECT_EQ(t, topo->cpu[4].sd[SD_LEVEL_MC].flags, MC_FLAGS | SD_ASYM_CPUCAPACITY);
	EXPECT_EQ(t, topo->cpu[4].sd[SD_LEVEL_DIE].flags, ASYM_FULL);
	check_invariants(t, topo);
	unload(tr);
}

static void energy_model_refused(struct ktest *t)
{
	struct tree *tr = load_bad(t, "em-bad");

	if (!tr)
		return;
	EXPECT_TRUE(t, warned(&tr->topo, TW_EM));
	for (int fd = 0; fd < tr->topo.nr_freq_domains; fd++)
		EXPECT_EQ(t, tr->topo.freq_domain[fd].nr_perf_states, 0);
	unload(tr);
}

static void extreme_values(struct ktest *t)
{
	struct tree *tr = load_bad(t, "extreme");

	if (!tr)
		return;
	EXPECT_EQ(t, tr->topo.cpu[0].fmax, 4000000000u);
	EXPECT_EQ(t, tr->topo.cpu[1].fmax, 1000);
	EXPECT_EQ(t, tr->topo.cpu[0].capacity_orig, 1024);
	EXPECT_EQ(t, tr->topo.cpu[1].capacity_orig, 1); /* floor: never 0 */
	EXPECT_TRUE(t, warned(&tr->topo, TW_OPP_BAD_ENTRY));
	unload(tr);
}

/* stdout (printk's warnings) to /dev/null and back: returns the saved fd. */
static int quiet(int saved)
{
	fflush(stdout);
	if (saved >= 0) {
		dup2(saved, 1);
		close(saved);
		return -1;
	}
	saved = dup(1);
	int null = open("/dev/null", O_WRONLY);

	if (null >= 0) {
		dup2(null, 1);
		close(null);
	}
	return saved;
}

/* Cheap in-process fuzzing (the libFuzzer target needs clang): flip bytes
 * of a real tree, deterministically; nothing may fault (ASan watches) and
 * whatever parses must still hold the invariants. The parser's warnings
 * would be hundreds of lines: they go to /dev/null, failures are re-run. */
static void mutate(u8 *copy, size_t size, int round)
{
	u32 seed = 12345u + (u32)round * 7919u;

	for (int n = 0; n < 1 + round % 4; n++) {
		seed = seed * 1103515245u + 12345u;
		/* Skip the header: a broken header is dtb_init's business. */
		copy[40 + (seed >> 8) % (size - 40)] ^= (u8)(1u << ((seed >> 4) & 7));
	}
}

static void mutated_trees(struct ktest *t)
{
	static struct tree tr;
	char path[1024];
	size_t size;
	u8 *orig, *copy;
	int saved, failed_round = -1;

	snprintf(path, sizeof(path), "%s/dts/hi3660-hikey960.dtb", build_dir());
	ASSERT_TRUE(t, (orig = host_read_file(path, &size)) != NULL);
	ASSERT_TRUE(t, (copy = malloc(size)) != NULL);
	saved = quiet(-1);
	for (int round = 0; round < 300 && failed_round < 0; round++) {
		memcpy(copy, orig, size);
		mutate(copy, size, round);
		if (dtb_init(&tr.dt, copy, size) == 0) {
			tr.ret = topology_parse(&tr.dt, &tr.topo);
			check_invariants(t, &tr.topo);
		}
		if (t->failed)
			failed_round = round;
	}
	quiet(saved);
	if (failed_round >= 0) {
		ktest_diag(t, "mutation round %d breaks an invariant:", failed_round);
		memcpy(copy, orig, size);
		mutate(copy, size, failed_round);
		if (dtb_init(&tr.dt, copy, size) == 0) {
			topology_parse(&tr.dt, &tr.topo);
			check_invariants(t, &tr.topo);
		}
	}
	free(copy);
	free(orig);
}

/* idle-bad.dts: each broken list leaves its cpu with WFI only (Linux: the PSCI
 * cpuidle driver does not register); the good ones parse as written there. */
static void idle_states_malformed(struct ktest *t)
{
	struct tree *tr = load_bad(t, "idle-bad");
	const struct topology *topo;

	if (!tr)
		return;
	topo = &tr->topo;
	EXPECT_TRUE(t, warned(topo, TW_IDLE_STATES));
	for (int cpu = 0; cpu < 4; cpu++)
		EXPECT_EQ(t, topo->cpu[cpu].nr_idle_states, 1);
	ASSERT_EQ(t, topo->cpu[4].nr_idle_states, 2); /* the disabled one skipped */
	EXPECT_EQ(t, topo->cpu[4].idle[1].entry_latency_us, 0);
	EXPECT_EQ(t, topo->cpu[4].idle[1].exit_latency_us, 300);
	EXPECT_EQ(t, topo->cpu[4].idle[1].min_residency_us, 900);
	EXPECT_EQ(t, topo->cpu[4].idle[1].level, 1); /* PowerLevel 1 in the parameter */
	ASSERT_EQ(t, topo->cpu[5].nr_idle_states, 3);
	EXPECT_EQ(t, topo->cpu[5].idle[1].exit_latency_us, 40);
	EXPECT_EQ(t, topo->cpu[5].idle[1].level, 0);
	EXPECT_EQ(t, topo->cpu[5].idle[2].min_residency_us, 700);
	EXPECT_EQ(t, topo->cpu[5].idle[2].level, 1); /* the cluster's power domain */
	unload(tr);
}

/* cache-bad.dts: each broken chain leaves its cpu without caches (Linux's
 * init_of_cache_level() returns -EINVAL); the good ones parse as written there. */
static void caches_malformed(struct ktest *t)
{
	struct tree *tr = load_bad(t, "cache-bad");
	const struct topology *topo;
	const struct topology_cache *l2a, *l2b;

	if (!tr)
		return;
	topo = &tr->topo;
	EXPECT_TRUE(t, warned(topo, TW_CACHES));
	for (int cpu = 0; cpu < 4; cpu++)
		EXPECT_EQ(t, topo->cpu[cpu].nr_caches, 0);
	ASSERT_EQ(t, topo->cpu[4].nr_caches, 2);
	EXPECT_EQ(t, topo->cpu[4].cache[0].level, 1u);
	EXPECT_EQ(t, topo->cpu[4].cache[0].size, 0x4000u);
	EXPECT_TRUE(t, topo->cpu[4].cache[0].unified);
	ASSERT_EQ(t, topo->cpu[5].nr_caches, 1); /* no L1 properties: its L2 only */
	l2a = topology_cache_at(topo, 4, 2);
	l2b = topology_cache_at(topo, 5, 2);
	ASSERT_TRUE(t, l2a && l2b);
	EXPECT_EQ(t, l2a->node, l2b->node); /* shared */
	EXPECT_EQ(t, l2a->size, 0x100000u);
	EXPECT_TRUE(t, topology_cache_at(topo, 4, 1) && !topology_cache_at(topo, 5, 1));
	EXPECT_EQ(t, topo->cpu[6].nr_caches, 0);
	unload(tr);
}

KTEST_SUITE(topology_bad_input, KTEST_CASE(dmips_missing_gives_1024),
	    KTEST_CASE(missing_fmax_uses_dmips), KTEST_CASE(opp_phandle_to_nothing),
	    KTEST_CASE(opp_entries_filtered_and_sorted), KTEST_CASE(cpu_map_fallbacks),
	    KTEST_CASE(no_cpu_map_two_cell_reg), KTEST_CASE(numbering_contract),
	    KTEST_CASE(too_many_cpus), KTEST_CASE(no_cpus_gives_default_cpu),
	    KTEST_CASE(caches_malformed), KTEST_CASE(three_capacities_partial_asym),
	    KTEST_CASE(rebuild_over_active_cpus), KTEST_CASE(energy_model_refused),
	    KTEST_CASE(idle_states_malformed), KTEST_CASE(extreme_values),
	    KTEST_CASE(mutated_trees));
