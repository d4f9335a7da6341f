/* hi3660_stub_clk.c - the Hi3660's CPU frequency: the cluster clocks belong to the
 * LPM3 power MCU, asked for a rate over the Hi3660 mailbox (hisilicon,hi3660-mbox)
 * by the stub clock (hisilicon,hi3660-stub-clk), which reads back the rate the MCU
 * set from shared memory. The protocol (top half) reaches registers only through
 * struct hi3660_stub's accessors (host tests run it on a model); the kernel glue
 * (bottom half) takes addresses, channel and clock ids from the tree and registers a
 * cpufreq driver. Requests are serialised by the cpufreq core (one transition timer
 * per policy) and a spinlock here (two policies share the channel). */
#include "hi3660_stub_clk.h"
#include "kernel.h"

/* Command word of each stub clock (Linux: clk-hi3660-stub.c's DEFINE_CLK_STUB). */
static const u32 stub_cmd[HI3660_STUB_NR_CLKS] = {
	0x0001030a, /* HI3660_CLK_STUB_CLUSTER0: the A53s */
	0x0002030a, /* HI3660_CLK_STUB_CLUSTER1: the A73s */
	0x0003030a, /* HI3660_CLK_STUB_GPU */
	0x00040309, /* HI3660_CLK_STUB_DDR */
};

static u32 chan_read(const struct hi3660_stub *s, u32 reg)
{
	return s->mbox_read(s->ctx, HI3660_MBOX_CHAN(s->chan) + reg);
}

static void chan_write(const struct hi3660_stub *s, u32 reg, u32 val)
{
	s->mbox_write(s->ctx, HI3660_MBOX_CHAN(s->chan) + reg, val);
}

/* Linux: hi3660_mbox_unlock(): write the key, read back 0; 3 more tries, 10 us apart. */
static int mbox_unlock(const struct hi3660_stub *s)
{
	for (int retry = 0; retry <= 3; retry++) {
		s->mbox_write(s->ctx, HI3660_MBOX_IPC_LOCK, HI3660_MBOX_IPC_UNLOCK);
		if (!s->mbox_read(s->ctx, HI3660_MBOX_IPC_LOCK))
			return 0;
		s->udelay(s->ctx, 10);
	}
	printk("hi3660-mbox: failed to unlock the IPC registers\n");
	return -ETIMEDOUT;
}

/* Linux: hi3660_mbox_acquire_channel(): an idle channel takes our ack interrupt as
 * its source; the write must read back (another master may have won). 10 tries. */
static int mbox_acquire(const struct hi3660_stub *s)
{
	for (int retry = 0; retry < 10; retry++) {
		if (!(chan_read(s, HI3660_MBOX_MODE) & HI3660_MBOX_STATE_IDLE))
			continue;
		chan_write(s, HI3660_MBOX_SRC, 1u << s->ack_irq);
		if (chan_read(s, HI3660_MBOX_SRC) & (1u << s->ack_irq))
			return 0;
	}
	printk("hi3660-mbox: failed to acquire channel %u\n", s->chan);
	return -ETIMEDOUT;
}

int hi3660_mbox_startup(const struct hi3660_stub *s)
{
	int err = mbox_unlock(s);

	return err ? err : mbox_acquire(s);
}

/* Linux: hi3660_mbox_check_state(): READY, or wait for the acknowledge of the last
 * message and clear it (the channel goes back to READY). */
static int mbox_wait_ready(const struct hi3660_stub *s)
{
	for (u32 waited = 0;; waited += HI3660_MBOX_POLL_US) {
		u32 mode = chan_read(s, HI3660_MBOX_MODE);

		if (mode & HI3660_MBOX_STATE_READY)
			return 0;
		if (mode & HI3660_MBOX_STATE_ACK) {
			chan_write(s, HI3660_MBOX_ICLR, 1u << s->ack_irq);
			return 0;
		}
		if (waited >= HI3660_MBOX_ACK_TIMEOUT_US)
			return -ETIMEDOUT;
		s->udelay(s->ctx, HI3660_MBOX_POLL_US);
	}
}

int hi3660_mbox_send(const struct hi3660_stub *s, const u32 msg[HI3660_MBOX_MSG_LEN])
{
	if (mbox_wait_ready(s)) {
		printk("hi3660-mbox: channel %u: no acknowledge of the last message\n", s->chan);
		return -ETIMEDOUT;
	}
	chan_write(s, HI3660_MBOX_IMASK, ~(1u << s->dst_irq)); /* unmask the MCU's irq */
	chan_write(s, HI3660_MBOX_DST, 1u << s->dst_irq);
	chan_write(s, HI3660_MBOX_MODE, HI3660_MBOX_AUTOMATIC_ACK);
	for (u32 i = 0; i < HI3660_MBOX_MSG_LEN; i++)
		chan_write(s, HI3660_MBOX_DATA + 4 * i, msg[i]);
	chan_write(s, HI3660_MBOX_SEND, 1u << s->ack_irq);
	/* Linux returns here and waits at the next send; we wait now, so that the rate
	 * read back next is the MCU's answer to this request. */
	if (mbox_wait_ready(s)) {
		printk("hi3660-mbox: channel %u: no acknowledge in %u us\n", s->chan,
		       HI3660_MBOX_ACK_TIMEOUT_US);
		return -ETIMEDOUT;
	}
	return 0;
}

int hi3660_stub_clk_set_rate(const struct hi3660_stub *s, u32 id, u32 khz)
{
	u32 msg[HI3660_MBOX_MSG_LEN] = { 0 };

	if (id >= HI3660_STUB_NR_CLKS)
		return -EINVAL;
	msg[0] = stub_cmd[id];
	msg[1] = khz / 1000; /* MHz, truncated as Linux's rate / MHZ */
	return hi3660_mbox_send(s, msg);
}

u32 hi3660_stub_clk_get_rate(const struct hi3660_stub *s, u32 id)
{
	if (id >= HI3660_STUB_NR_CLKS)
		return 0;
	return s->shm_read(s->ctx, HI3660_STUB_CLOCK_DATA + 4 * id) * 1000;
}

#ifndef HOST_BUILD
/* ---- kernel glue: the tree, MMIO, the cpufreq driver -------------------------------- */
#include "cpufreq.h"
#include "drivers.h"
#include "spinlock.h"
#include "sysreg.h"
#include "arch_topology.h"
#include "topology.h"

void *ioremap(u64 pa, u64 size);

static struct {
	u8 *mbox, *shm;
	struct hi3660_stub stub;
	spinlock_t lock;
	int clk_of_cpu[NR_CPUS]; /* stub clock id, -1: not a stub clock */
} hi;

static u32 mmio_mbox_read(void *ctx, u32 off)
{
	return readl(hi.mbox + off);
}

static void mmio_mbox_write(void *ctx, u32 off, u32 val)
{
	writel(val, hi.mbox + off);
}

static u32 mmio_shm_read(void *ctx, u32 off)
{
	return readl(hi.shm + off);
}

/* Busy-wait on the arch counter (IRQ context is fine). */
static void mmio_udelay(void *ctx, u32 us)
{
	u64 end = arm_timer_read_ns() + (u64)us * NSEC_PER_USEC;

	while (arm_timer_read_ns() < end)
		arch_cpu_relax();
}

static int hi3660_target(unsigned int cpu, u32 khz)
{
	unsigned long flags;
	int err;

	if (cpu >= NR_CPUS || hi.clk_of_cpu[cpu] < 0)
		return -EINVAL;
	flags = spin_lock_irqsave(&hi.lock);
	err = hi3660_stub_clk_set_rate(&hi.stub, (u32)hi.clk_of_cpu[cpu], khz);
	spin_unlock_irqrestore(&hi.lock, flags);
	return err;
}

static u32 hi3660_get(unsigned int cpu)
{
	if (cpu >= NR_CPUS || hi.clk_of_cpu[cpu] < 0)
		return 0;
	return hi3660_stub_clk_get_rate(&hi.stub, (u32)hi.clk_of_cpu[cpu]);
}

static const struct cpufreq_driver hi3660_driver = {
	.name = "hi3660-stub-clk",
	.target = hi3660_target,
	.get = hi3660_get,
	.emulate_latency = false,
};

/* Each CPU's clocks = <&stub_clock id>: its stub clock, if it names this one. */
static int map_cpu_clocks(const struct dtb *dt, u32 stub_phandle)
{
	int n = 0;

	for (int c = 0; c < NR_CPUS; c++) {
		int len = 0, node = c < cpu_topology.nr_cpus ? cpu_topology.cpu[c].node : -1;
		const u8 *p = node >= 0 ? dtb_prop(dt, node, "clocks", &len) : NULL;

		hi.clk_of_cpu[c] = -1;
		if (p && len >= 8 && dtb_be32(p) == stub_phandle &&
		    dtb_be32(p + 4) < HI3660_STUB_NR_CLKS) {
			hi.clk_of_cpu[c] = (int)dtb_be32(p + 4);
			n++;
		}
	}
	return n;
}

/* The mailbox node and channel from the stub clock's mboxes = <&mbox ch dst ack>. */
static int find_mailbox(const struct dtb *dt, int stub, u64 *base, u64 *size)
{
	int len = 0, mbox;
	const u8 *p = dtb_prop(dt, stub, "mboxes", &len);

	if (!p || len < 16)
		return -1;
	mbox = dtb_node_by_phandle(dt, dtb_be32(p));
	if (mbox < 0 || !dtb_is_compatible(dt, mbox, "hisilicon,hi3660-mbox") ||
	    dtb_reg(dt, mbox, 0, base, size))
		return -1;
	hi.stub.chan = dtb_be32(p + 4);
	hi.stub.dst_irq = dtb_be32(p + 8);
	hi.stub.ack_irq = dtb_be32(p + 12);
	return hi.stub.chan < 32 && hi.stub.dst_irq < 32 && hi.stub.ack_irq < 32 ? 0 : -1;
}

/* From arch_platform_init(), before cpufreq_init(). No such node: 0, nothing done
 * (the emulated driver stays); a broken one: a message, and the same. */
int hi3660_stub_clk_init(const struct dtb *dt)
{
	int stub = dtb_find_compatible(dt, -1, "hisilicon,hi3660-stub-clk"), ncpus;
	u64 mbase, msize, sbase, ssize;

	if (stub < 0 || !dtb_node_enabled(dt, stub))
		return 0;
	if (dtb_reg(dt, stub, 0, &sbase, &ssize) ||
	    ssize < HI3660_STUB_CLOCK_DATA + 4 * HI3660_STUB_NR_CLKS ||
	    find_mailbox(dt, stub, &mbase, &msize) || msize < HI3660_MBOX_IPC_LOCK + 4) {
		printk("hi3660-stub-clk: no usable reg or mboxes: CPU frequency stays emulated\n");
		return -1;
	}
	ncpus = map_cpu_clocks(dt, dtb_node_phandle(dt, stub));
	hi.mbox = ioremap(mbase, msize);
	hi.shm = ioremap(sbase, ssize);
	if (!ncpus || !hi.mbox || !hi.shm) {
		printk("hi3660-stub-clk: %s: CPU frequency stays emulated\n",
		       ncpus ? "cannot map the registers" : "no CPU's clocks names it");
		return -1;
	}
	hi.stub = (struct hi3660_stub){ .mbox_read = mmio_mbox_read,
					.mbox_write = mmio_mbox_write,
					.shm_read = mmio_shm_read,
					.udelay = mmio_udelay,
					.chan = hi.stub.chan,
					.dst_irq = hi.stub.dst_irq,
					.ack_irq = hi.stub.ack_irq };
	spin_lock_init(&hi.lock);
	if (hi3660_mbox_startup(&hi.stub) || cpufreq_register_driver(&hi3660_driver)) {
		printk("hi3660-stub-clk: mailbox unusable: CPU frequency stays emulated\n");
		return -1;
	}
	printk("hi3660-stub-clk: mailbox %#llx channel %u (dst %u, ack %u), rates at %#llx; "
	       "%d CPUs; cluster clocks now %u and %u MHz\n",
	       mbase, hi.stub.chan, hi.stub.dst_irq, hi.stub.ack_irq,
	       sbase + HI3660_STUB_CLOCK_DATA, ncpus, hi3660_stub_clk_get_rate(&hi.stub, 0) / 1000,
	       hi3660_stub_clk_get_rate(&hi.stub, 1) / 1000);
	return 0;
}
#endif
