/* selftest_cpufreq_driver.c - the cpufreq core with a driver that reports its own
 * rate (struct cpufreq_driver's get, as the Hi3660 stub clock does): a firmware that
 * rounds, one that refuses, one that fails. The reference is Linux's rule for the
 * scale (arch_set_freq_scale: cur x 1024 / max) applied to the rate the driver
 * reports, written here, and the OPP table. */
#include "arch_topology.h"
#include "cpufreq.h"
#include "kernel.h"
#include "ktest.h"
#include "sched.h"
#include "selftest.h"
#include "timer.h"

enum fw { FW_ROUND, FW_REFUSE, FW_FAIL };

static struct {
	enum fw mode;
	u32 rate[NR_CPUS]; /* kHz the "firmware" runs the domain of cpu at */
	int calls;
} fw;

static int fw_target(unsigned int cpu, u32 khz)
{
	fw.calls++;
	if (fw.mode == FW_FAIL)
		return -ETIMEDOUT;
	if (fw.mode == FW_ROUND)
		fw.rate[cpu] = khz - 5000; /* 5 MHz below the OPP asked */
	return 0;
}

static u32 fw_get(unsigned int cpu)
{
	return fw.mode == FW_FAIL ? 0 : fw.rate[cpu];
}

static const struct cpufreq_driver fw_driver = {
	.name = "selftest-firmware",
	.target = fw_target,
	.get = fw_get,
};

/* The policy of the lowest-capacity CPU, in userspace at its top OPP, settled. */
static int setup(struct ktest *t, unsigned int *cpu)
{
	int c = selftest_pick_cpu(true, true), p = c >= 0 ? cpufreq_policy_of((unsigned int)c) : -1;

	if (p < 0)
		return -1;
	*cpu = (unsigned int)c;
	if (cpufreq_set_governor(p, "userspace") || cpufreq_set_speed(p, cpufreq_max_freq(p)))
		return -1;
	msleep(2);
	return cpufreq_cur_freq(p) == cpufreq_max_freq(p) ? p : -1;
}

/* The driver's rate reported, and on cpu the scale switched (an IPI: an idle CPU takes
 * it after its exit latency). At most 20 ms. */
static bool wait_for(int p, unsigned int cpu, u32 khz)
{
	unsigned long scale = (unsigned long)khz * SCHED_CAPACITY_SCALE / cpufreq_max_freq(p);

	for (int i = 0; i < 20; i++) {
		if (cpufreq_hw_freq(p) == khz && arch_scale_freq_capacity((int)cpu) == scale)
			return true;
		msleep(1);
	}
	return false;
}

static void cpufreq_driver_rate_readback(struct ktest *t)
{
	const struct cpufreq_driver *old;
	struct cpufreq_stats s;
	unsigned int cpu;
	int p = setup(t, &cpu);
	u32 fmax, opp0;

	if (p < 0)
		KTEST_SKIP(t, "needs a policy");
	cpufreq_get_stats(p, &s);
	fmax = cpufreq_max_freq(p);
	opp0 = s.freq[0];
	fw = (typeof(fw)){ .mode = FW_ROUND };
	for (unsigned int c = 0; c < nr_cpu_ids; c++) /* every domain at its f_max */
		fw.rate[c] = cpufreq_policy_of(c) >= 0 ? cpufreq_max_freq(cpufreq_policy_of(c)) : 0;
	old = cpufreq_swap_driver(&fw_driver);
	/* rounded: the OPP asked is the policy's, the CPUs run at the firmware's rate */
	ASSERT_EQ(t, cpufreq_set_speed(p, opp0), 0);
	EXPECT_TRUE(t, wait_for(p, cpu, opp0 - 5000));
	EXPECT_EQ(t, cpufreq_cur_freq(p), opp0);
	EXPECT_EQ(t, arch_scale_freq_capacity((int)cpu),
		  (unsigned long)(opp0 - 5000) * SCHED_CAPACITY_SCALE / fmax);
	/* refused: acknowledged, the old rate stays, and so does the OPP */
	fw.mode = FW_REFUSE;
	ASSERT_EQ(t, cpufreq_set_speed(p, fmax), 0);
	msleep(2);
	EXPECT_GE(t, fw.calls, 2);
	EXPECT_EQ(t, cpufreq_hw_freq(p), opp0 - 5000);
	EXPECT_EQ(t, cpufreq_cur_freq(p), opp0);
	/* failed, reporting nothing: the core keeps what it had */
	fw.mode = FW_FAIL;
	ASSERT_EQ(t, cpufreq_set_speed(p, s.freq[s.nr > 1 ? 1 : 0]), 0);
	msleep(2);
	EXPECT_EQ(t, cpufreq_hw_freq(p), opp0 - 5000);
	EXPECT_EQ(t, arch_scale_freq_capacity((int)cpu),
		  (unsigned long)(opp0 - 5000) * SCHED_CAPACITY_SCALE / fmax);
	/* back to the emulated driver at f_max */
	cpufreq_swap_driver(old);
	ASSERT_EQ(t, cpufreq_set_speed(p, fmax), 0);
	EXPECT_TRUE(t, wait_for(p, cpu, fmax));
	EXPECT_EQ(t, arch_scale_freq_capacity((int)cpu), SCHED_CAPACITY_SCALE);
	selftest_restore_governors();
}

KTEST_SUITE(cpufreq_driver, KTEST_CASE(cpufreq_driver_rate_readback));
