/* timectl.c - issue 26's lead 2, a prototype: a QEMU >= 9 TCG plugin that makes each
 * vCPU progress at its own rate (instructions per ns = R x capacity/1024) under MTTCG,
 * with no -icount and no stalls in the kernel (boot it with speed=native).
 *
 * Built on the host (make build/host/timectl.so) and
 * loaded by QEMU 10 (bookworm-backports, unpacked privately by tools/qemu/fetch-qemu10.sh):
 *   -accel tcg,thread=multi -plugin build/host/timectl.so,mips=R,cap=C0:C1:...[,opts]
 *
 * What QEMU 10 lets a plugin do with time, read from its source (v10.0): without
 * -icount, QEMU_CLOCK_VIRTUAL under TCG is the host's monotonic clock while the VM runs
 * (cpus_get_virtual_clock() -> cpu_get_clock(): TCG sets no get/set_virtual_clock op
 * unless icount is on; only qtest has set_virtual_clock). qemu_plugin_update_ns() queues
 * qemu_clock_advance_virtual_time() on the calling vCPU, which runs due timers and "sets"
 * the clock through that missing op: it cannot move the guest's clock ahead of the host's,
 * it can only wait for it (with the BQL held). So this plugin does not call it: the
 * guest's time is host time, and the plugin's only lever is making vCPUs wait
 * (contrib/plugins/ips.c works the same way: it sleeps vCPUs that run ahead of an
 * instructions-per-second budget). The time control handle is still requested, so no
 * other plugin moves the clock (and migration is blocked, as QEMU does for it).
 *
 * The model, per vCPU i: its local time t_i advances by n / rate_i for every n
 * instructions it executes (counted inline per TB in a per-vCPU scoreboard; checked in a
 * conditional callback every `quantum` instructions). At each check it waits
 *   - until the host clock reaches t_i - slack (it never runs ahead of real time, which
 *     is the guest's time), and
 *   - until every other busy vCPU's t_j reaches t_i - window (causality: no CPU runs
 *     more than `window` ns of model time ahead of the slowest busy one, so a pipe write
 *     and the wakeup it causes happen in model order to within window),
 * bounded by `maxwait` ns of host time per check (a vCPU waiting here is still inside
 * cpu_exec: one that wants an exclusive section would otherwise deadlock with it).
 * A vCPU in WFI (vcpu_idle callback) holds nobody back; at resume its local time jumps to
 * the host clock. A vCPU more than `lag` ns behind the host clock (the host did not run
 * it: 8 vCPU threads on fewer host cores, other load) is moved up to now - lag and the
 * difference is counted as dropped: it ran slower than its rate then. All-idle needs
 * nothing: the guest's timers run on host time.
 *
 * Not deterministic (MTTCG and host scheduling). Host code; never copies QEMU's. QEMU
 * 10's plugin API (include/qemu/qemu-plugin.h, API version 4), the part used here, is
 * declared by hand, as tools/qemu/vcpu_insns.c does for 7.2: Debian ships no header.
 */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef uint64_t qemu_plugin_id_t;
typedef struct {
	const char *target_name;
	struct {
		int min, cur;
	} version;
	bool system_emulation;
	union {
		struct {
			int smp_vcpus, max_vcpus;
		} system;
	};
} qemu_info_t;
struct qemu_plugin_tb;
struct qemu_plugin_scoreboard;
typedef struct {
	struct qemu_plugin_scoreboard *score;
	size_t offset;
} qemu_plugin_u64;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64, QEMU_PLUGIN_INLINE_STORE_U64 };
enum qemu_plugin_cond {
	QEMU_PLUGIN_COND_NEVER,
	QEMU_PLUGIN_COND_ALWAYS,
	QEMU_PLUGIN_COND_EQ,
	QEMU_PLUGIN_COND_NE,
	QEMU_PLUGIN_COND_LT,
	QEMU_PLUGIN_COND_LE,
	QEMU_PLUGIN_COND_GT,
	QEMU_PLUGIN_COND_GE,
};
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_vcpu_simple_cb_t)(qemu_plugin_id_t id, unsigned int vcpu_index);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_idle_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_simple_cb_t cb);
void qemu_plugin_register_vcpu_resume_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_simple_cb_t cb);
void qemu_plugin_register_vcpu_init_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_simple_cb_t cb);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_scoreboard *qemu_plugin_scoreboard_new(size_t element_size);
void *qemu_plugin_scoreboard_find(struct qemu_plugin_scoreboard *score, unsigned int vcpu_index);
void qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(struct qemu_plugin_tb *tb,
						       enum qemu_plugin_op op,
						       qemu_plugin_u64 entry, uint64_t imm);
void qemu_plugin_register_vcpu_tb_exec_cond_cb(struct qemu_plugin_tb *tb,
					       qemu_plugin_vcpu_udata_cb_t cb,
					       enum qemu_plugin_cb_flags flags,
					       enum qemu_plugin_cond cond, qemu_plugin_u64 entry,
					       uint64_t imm, void *userdata);
const void *qemu_plugin_request_time_control(void);
void qemu_plugin_update_ns(const void *handle, int64_t time);

#define EXPORT __attribute__((visibility("default")))
EXPORT int qemu_plugin_version = 4;

#define MAX_VCPUS 256

/* The scoreboard's element: instructions since the last check (inline add per TB). */
struct sb {
	uint64_t pending;
};

struct vc {
	_Atomic int64_t local; /* model time, host CLOCK_MONOTONIC ns */
	_Atomic int idle;
	double ns_per_insn;
	uint64_t insns, checks;
	int64_t waited_rt, waited_peer, dropped, idle_ns, idle_since;
	uint64_t maxwait_hits;
};

static struct qemu_plugin_scoreboard *score;
static struct vc vcs[MAX_VCPUS];
static unsigned int nr_vcpus;
static double mips = 100.0; /* R: instructions per us of the biggest CPU at f_max */
static unsigned int cap[MAX_VCPUS];
static uint64_t quantum = 2000;	  /* instructions between checks */
static int64_t window = 50000;	  /* ns of model time a vCPU may lead the slowest */
static int64_t slack = 20000;	  /* ns it may lead the host clock */
static int64_t lag = 1000000;	  /* ns it may trail the host clock before dropping */
static int64_t maxwait = 2000000; /* ns of host time one check may wait */
static int64_t poll = 20000;	  /* ns between looks at the peers while waiting */
static int pace = 1, causal = 1, verbose;
static int64_t t_start;
/* probe=N: once, at vCPU 0's 1000th check, ask qemu_plugin_update_ns() for the virtual
 * clock N ns ahead of the host's (an experiment: does the guest's time jump?). */
static int64_t probe;
static const void *time_handle;

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void sleep_ns(int64_t ns)
{
	struct timespec ts = { ns / 1000000000, ns % 1000000000 };

	nanosleep(&ts, NULL);
}

/* The slowest busy vCPU other than self, each taken as at least now - lag. */
static int64_t min_busy_other(unsigned int self, int64_t now)
{
	int64_t m = INT64_MAX;

	for (unsigned int j = 0; j < nr_vcpus; j++) {
		int64_t t;

		if (j == self || atomic_load_explicit(&vcs[j].idle, memory_order_acquire))
			continue;
		t = atomic_load_explicit(&vcs[j].local, memory_order_acquire);
		if (t < now - lag)
			t = now - lag;
		if (t < m)
			m = t;
	}
	return m;
}

/* Fold the instructions counted since the last check into the local time. */
static int64_t fold(unsigned int i, int64_t now)
{
	struct vc *v = &vcs[i];
	struct sb *s = qemu_plugin_scoreboard_find(score, i);
	uint64_t n = s->pending;
	int64_t t = atomic_load_explicit(&v->local, memory_order_relaxed);

	s->pending = 0;
	v->insns += n;
	t += (int64_t)((double)n * v->ns_per_insn);
	if (t < now - lag) {
		v->dropped += now - lag - t;
		t = now - lag;
	}
	atomic_store_explicit(&v->local, t, memory_order_release);
	return t;
}

static void check(unsigned int i, void *udata)
{
	struct vc *v = &vcs[i];
	int64_t now = now_ns(), t = fold(i, now), start = now;

	(void)udata;
	v->checks++;
	if (probe && i == 0 && v->checks == 1000 && time_handle) {
		/* QEMU_CLOCK_VIRTUAL is host time since the VM started, roughly t_start. */
		fprintf(stderr, "timectl: probe: update_ns(+%lld ns) at host %.3f s\n",
			(long long)probe, (now - t_start) / 1e9);
		qemu_plugin_update_ns(time_handle, now - t_start + probe);
	}
	if (atomic_load_explicit(&v->idle, memory_order_relaxed)) /* running, so not idle */
		atomic_store_explicit(&v->idle, 0, memory_order_release);
	for (;;) {
		int64_t ahead_rt = pace ? t - slack - now : 0;
		int64_t ahead_peer = 0;

		if (causal) {
			int64_t m = min_busy_other(i, now);

			if (m != INT64_MAX)
				ahead_peer = t - window - m;
		}
		if (ahead_rt <= 0 && ahead_peer <= 0)
			break;
		if (now - start >= maxwait) {
			v->maxwait_hits++;
			break;
		}
		if (ahead_rt >= ahead_peer) {
			/* Real time: it will come; sleep it off (bounded). */
			int64_t d = ahead_rt < maxwait ? ahead_rt : maxwait;

			sleep_ns(d);
			v->waited_rt += now_ns() - now;
		} else {
			/* A peer must catch up: poll. */
			int64_t d = ahead_peer < poll ? ahead_peer : poll;

			sleep_ns(d);
			v->waited_peer += now_ns() - now;
		}
		now = now_ns();
	}
}

static void vcpu_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	qemu_plugin_u64 e = { score, offsetof(struct sb, pending) };

	(void)id;
	qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(tb, QEMU_PLUGIN_INLINE_ADD_U64, e,
							  qemu_plugin_tb_n_insns(tb));
	qemu_plugin_register_vcpu_tb_exec_cond_cb(tb, check, QEMU_PLUGIN_CB_NO_REGS,
						  QEMU_PLUGIN_COND_GE, e, quantum, NULL);
}

static void vcpu_init(qemu_plugin_id_t id, unsigned int i)
{
	(void)id;
	if (i >= MAX_VCPUS)
		return;
	atomic_store(&vcs[i].local, now_ns());
	/* A secondary CPU starts powered off (PSCI) and halted: idle until it resumes. */
	atomic_store(&vcs[i].idle, i != 0);
	vcs[i].idle_since = now_ns();
}

static void vcpu_idle(qemu_plugin_id_t id, unsigned int i)
{
	int64_t now = now_ns();

	(void)id;
	if (i >= nr_vcpus)
		return;
	fold(i, now);
	vcs[i].idle_since = now;
	atomic_store_explicit(&vcs[i].idle, 1, memory_order_release);
}

static void vcpu_resume(qemu_plugin_id_t id, unsigned int i)
{
	int64_t now = now_ns(), t;

	(void)id;
	if (i >= nr_vcpus)
		return;
	t = atomic_load_explicit(&vcs[i].local, memory_order_relaxed);
	if (t < now)
		atomic_store_explicit(&vcs[i].local, now, memory_order_release);
	vcs[i].idle_ns += now - vcs[i].idle_since;
	atomic_store_explicit(&vcs[i].idle, 0, memory_order_release);
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	int64_t el = now_ns() - t_start;

	(void)id;
	(void)udata;
	fprintf(stderr,
		"timectl: R %.1f insns/us, quantum %llu insns, window %lld ns, slack %lld ns, "
		"lag %lld ns, %.3f s of host time\n",
		mips, (unsigned long long)quantum, (long long)window, (long long)slack,
		(long long)lag, el / 1e9);
	for (unsigned int i = 0; i < nr_vcpus; i++) {
		struct vc *v = &vcs[i];

		fprintf(stderr,
			"timectl: vcpu %u cap %u: %llu insns (%.1f/us of non-idle), %llu checks, "
			"idle %.3f s, waited rt %.3f s peer %.3f s, dropped %.3f s, maxwait %llu\n",
			i, cap[i], (unsigned long long)v->insns,
			el - v->idle_ns > 0 ? v->insns / ((el - v->idle_ns) / 1e3) : 0.0,
			(unsigned long long)v->checks, v->idle_ns / 1e9, v->waited_rt / 1e9,
			v->waited_peer / 1e9, v->dropped / 1e9,
			(unsigned long long)v->maxwait_hits);
	}
}

static long long num(const char *s)
{
	return strtoll(s, NULL, 0);
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
	const char *caps = NULL;

	if (!info->system_emulation) {
		fprintf(stderr, "timectl: system emulation only\n");
		return -1;
	}
	nr_vcpus = (unsigned int)info->system.max_vcpus;
	if (nr_vcpus > MAX_VCPUS) {
		fprintf(stderr, "timectl: at most %d vCPUs\n", MAX_VCPUS);
		return -1;
	}
	for (int a = 0; a < argc; a++) {
		char *eq = strchr(argv[a], '=');
		const char *k = argv[a], *val = eq ? eq + 1 : "";

		if (eq)
			*eq = 0;
		if (!strcmp(k, "mips"))
			mips = strtod(val, NULL);
		else if (!strcmp(k, "cap"))
			caps = val;
		else if (!strcmp(k, "quantum"))
			quantum = (uint64_t)num(val);
		else if (!strcmp(k, "window"))
			window = num(val);
		else if (!strcmp(k, "slack"))
			slack = num(val);
		else if (!strcmp(k, "lag"))
			lag = num(val);
		else if (!strcmp(k, "maxwait"))
			maxwait = num(val);
		else if (!strcmp(k, "probe"))
			probe = num(val);
		else if (!strcmp(k, "poll"))
			poll = num(val);
		else if (!strcmp(k, "pace"))
			pace = (int)num(val);
		else if (!strcmp(k, "causal"))
			causal = (int)num(val);
		else if (!strcmp(k, "verbose"))
			verbose = (int)num(val);
		else {
			fprintf(stderr, "timectl: unknown option %s\n", k);
			return -1;
		}
	}
	for (unsigned int i = 0; i < nr_vcpus; i++)
		cap[i] = 1024;
	for (unsigned int i = 0; caps && *caps && i < nr_vcpus; i++) {
		char *end;

		cap[i] = (unsigned int)strtoul(caps, &end, 0);
		caps = *end == ':' ? end + 1 : end;
	}
	if (mips <= 0 || quantum == 0) {
		fprintf(stderr, "timectl: mips and quantum must be > 0\n");
		return -1;
	}
	for (unsigned int i = 0; i < nr_vcpus; i++)
		vcs[i].ns_per_insn = 1000.0 * 1024.0 / (mips * (cap[i] ? cap[i] : 1024));
	time_handle = qemu_plugin_request_time_control();
	if (!time_handle)
		fprintf(stderr, "timectl: another plugin controls time\n");
	score = qemu_plugin_scoreboard_new(sizeof(struct sb));
	t_start = now_ns();
	for (unsigned int i = 0; i < nr_vcpus; i++)
		atomic_store(&vcs[i].local, t_start);
	qemu_plugin_register_vcpu_init_cb(id, vcpu_init);
	qemu_plugin_register_vcpu_tb_trans_cb(id, vcpu_tb_trans);
	qemu_plugin_register_vcpu_idle_cb(id, vcpu_idle);
	qemu_plugin_register_vcpu_resume_cb(id, vcpu_resume);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	if (verbose)
		fprintf(stderr, "timectl: %u vCPUs, R %.1f insns/us\n", nr_vcpus, mips);
	return 0;
}
