/* test_hi3660.c - host tests of the Hi3660 stub-clock driver's protocol
 * (drivers/hi3660_stub_clk.c) against a register-level model of the mailbox and
 * the stub clock's shared memory: a fake MMIO window whose MCU side is scripted
 * (acknowledge and set the rate, round it, refuse it, answer late, never answer).
 * The model is written from the hardware's description (Linux's hi3660-mailbox.c
 * and clk-hi3660-stub.c, hi3660.dtsi: channel 13, dst irq 3, ack irq 0), not from
 * the driver: register offsets and commands are spelled out here again. */
#include "../../drivers/hi3660_stub_clk.h"
#include "kernel.h"
#include "ktest.h"

enum mcu_script {
	MCU_ACK,    /* acknowledges, runs the cluster at the rate asked */
	MCU_ROUND,  /* acknowledges, runs it at the rate rounded down to 10 MHz */
	MCU_REFUSE, /* acknowledges, keeps the old rate */
	MCU_SILENT, /* never acknowledges */
};

#define CH	 13
#define DST_IRQ	 3
#define ACK_IRQ	 0
#define CHREG(r) (CH * 0x40 + (r))

struct mcu {
	u32 reg[0x1000 / 4]; /* the mailbox window as last written */
	u32 shm[0x100 / 4];  /* the stub clock's reg: rates in MHz at 0x70 + 4 x id */
	u32 state;	     /* channel state bits of MODE: 0x10 idle, 0x20 ready, 0x80 ack */
	bool locked, lock_stuck, busy_elsewhere;
	enum mcu_script script;
	u64 now_us, answer_at;
	u32 answer_after_us;
	bool pending;
	int sends;
	u32 msg[8];
};

/* The MCU's side of a message sent at answer_at - answer_after_us. */
static void mcu_step(struct mcu *m)
{
	u32 id, mhz;

	if (!m->pending || m->now_us < m->answer_at || m->script == MCU_SILENT)
		return;
	m->pending = false;
	id = (m->msg[0] >> 16) - 1; /* 0x0001030a: cluster0 (id 0), 0x0002030a: cluster1 */
	mhz = m->msg[1];
	if (id < 2 && m->script == MCU_ACK)
		m->shm[(0x70 >> 2) + id] = mhz;
	if (id < 2 && m->script == MCU_ROUND)
		m->shm[(0x70 >> 2) + id] = mhz - mhz % 10;
	m->state = 0x80;
}

static u32 m_read(void *ctx, u32 off)
{
	struct mcu *m = ctx;

	mcu_step(m);
	if (off == 0xa00)
		return m->locked ? 1 : 0;
	if (off == CHREG(0x10))
		return m->state | (m->reg[off / 4] & 1);
	return m->reg[off / 4];
}

static void m_write(void *ctx, u32 off, u32 val)
{
	struct mcu *m = ctx;

	mcu_step(m);
	if (off == 0xa00) {
		if (val == 0x1acce551 && !m->lock_stuck)
			m->locked = false;
		return;
	}
	if (m->locked)
		return;		  /* the IPC registers ignore writes until unlocked */
	if (off == CHREG(0x00)) { /* SRC: taking an idle channel makes it ready */
		if (m->state == 0x10 && !m->busy_elsewhere) {
			m->reg[off / 4] = val;
			m->state = 0x20;
		}
		return;
	}
	if (off == CHREG(0x18)) { /* ICLR of our ack irq: the ack is consumed */
		if ((val & (1u << ACK_IRQ)) && m->state == 0x80)
			m->state = 0x20;
		return;
	}
	m->reg[off / 4] = val;
	if (off == CHREG(0x1c) && m->state == 0x20) { /* SEND: the MCU has the message */
		for (int i = 0; i < 8; i++)
			m->msg[i] = m->reg[CHREG(0x20) / 4 + i];
		m->state = 0x40;
		m->pending = true;
		m->answer_at = m->now_us + m->answer_after_us;
		m->sends++;
	}
}

static u32 m_shm(void *ctx, u32 off)
{
	struct mcu *m = ctx;

	mcu_step(m);
	return m->shm[off / 4];
}

static void m_udelay(void *ctx, u32 us)
{
	((struct mcu *)ctx)->now_us += us;
}

static struct mcu model;

static struct hi3660_stub stub_on(enum mcu_script script, u32 answer_after_us)
{
	memset(&model, 0, sizeof(model));
	model.state = 0x10;
	model.locked = true;
	model.script = script;
	model.answer_after_us = answer_after_us;
	model.shm[(0x70 >> 2) + 0] = 1844; /* the firmware leaves both clusters at f_max */
	model.shm[(0x70 >> 2) + 1] = 2362;
	return (struct hi3660_stub){ .ctx = &model,
				     .mbox_read = m_read,
				     .mbox_write = m_write,
				     .shm_read = m_shm,
				     .udelay = m_udelay,
				     .chan = CH,
				     .dst_irq = DST_IRQ,
				     .ack_irq = ACK_IRQ };
}

static void hi3660_startup_takes_channel(struct ktest *t)
{
	struct hi3660_stub s = stub_on(MCU_ACK, 50);

	ASSERT_EQ(t, hi3660_mbox_startup(&s), 0);
	EXPECT_FALSE(t, model.locked);
	EXPECT_EQ(t, model.reg[CHREG(0x00) / 4], 1u << ACK_IRQ);
	EXPECT_EQ(t, model.state, 0x20);
	EXPECT_EQ(t, hi3660_stub_clk_get_rate(&s, 0), 1844000);
	EXPECT_EQ(t, hi3660_stub_clk_get_rate(&s, 1), 2362000);
	EXPECT_EQ(t, hi3660_stub_clk_get_rate(&s, 4), 0); /* no such stub clock */
}

/* One request: the message as the MCU reads it, the rate it set read back, the
 * channel ready again, and the wait as long as the MCU took (10 us polls). */
static void hi3660_set_rate_acknowledged(struct ktest *t)
{
	struct hi3660_stub s = stub_on(MCU_ACK, 200);
	u64 t0;

	ASSERT_EQ(t, hi3660_mbox_startup(&s), 0);
	t0 = model.now_us;
	ASSERT_EQ(t, hi3660_stub_clk_set_rate(&s, 1, 1421000), 0);
	EXPECT_EQ(t, model.sends, 1);
	EXPECT_EQ(t, model.msg[0], 0x0002030a);
	EXPECT_EQ(t, model.msg[1], 1421);
	for (int i = 2; i < 8; i++)
		EXPECT_EQ(t, model.msg[i], 0);
	EXPECT_EQ(t, model.reg[CHREG(0x04) / 4], 1u << DST_IRQ);
	EXPECT_EQ(t, model.reg[CHREG(0x14) / 4], ~(1u << DST_IRQ));
	EXPECT_EQ(t, model.reg[CHREG(0x10) / 4] & 1, 1); /* automatic acknowledge */
	EXPECT_EQ(t, model.reg[CHREG(0x1c) / 4], 1u << ACK_IRQ);
	EXPECT_EQ(t, model.state, 0x20); /* the ack cleared */
	EXPECT_GE(t, model.now_us - t0, 200);
	EXPECT_LE(t, model.now_us - t0, 210);
	EXPECT_EQ(t, hi3660_stub_clk_get_rate(&s, 1), 1421000);
	EXPECT_EQ(t, hi3660_stub_clk_get_rate(&s, 0), 1844000); /* the other cluster */
	ASSERT_EQ(t, hi3660_stub_clk_set_rate(&s, 0, 533000), 0);
	EXPECT_EQ(t, model.msg[0], 0x0001030a);
	EXPECT_EQ(t, hi3660_stub_clk_get_rate(&s, 0), 533000);
	EXPECT_EQ(t, model.sends, 2);
}

/* The MCU runs the cluster at a rate of its own: the driver reports that one. */
static void hi3660_rate_rounded(struct ktest *t)
{
	struct hi3660_stub s = stub_on(MCU_ROUND, 20);

	ASSERT_EQ(t, hi3660_mbox_startup(&s), 0);
	ASSERT_EQ(t, hi3660_stub_clk_set_rate(&s, 0, 1709000), 0);
	EXPECT_EQ(t, model.msg[1], 1709);
	EXPECT_EQ(t, hi3660_stub_clk_get_rate(&s, 0), 1700000);
	/* kHz below a MHz are truncated in the message, as Linux's rate / MHZ */
	ASSERT_EQ(t, hi3660_stub_clk_set_rate(&s, 1, 2112999), 0);
	EXPECT_EQ(t, model.msg[1], 2112);
}

/* Acknowledged but not done: no error from the mailbox, the old rate read back. */
static void hi3660_rate_refused(struct ktest *t)
{
	struct hi3660_stub s = stub_on(MCU_REFUSE, 20);

	ASSERT_EQ(t, hi3660_mbox_startup(&s), 0);
	EXPECT_EQ(t, hi3660_stub_clk_set_rate(&s, 1, 903000), 0);
	EXPECT_EQ(t, hi3660_stub_clk_get_rate(&s, 1), 2362000);
}

/* No acknowledge: -ETIMEDOUT after 300 ms (Linux's limit), the rate unchanged;
 * the channel stays busy, so the next request times out as well. */
static void hi3660_timeout(struct ktest *t)
{
	struct hi3660_stub s = stub_on(MCU_SILENT, 0);
	u64 t0;

	ASSERT_EQ(t, hi3660_mbox_startup(&s), 0);
	t0 = model.now_us;
	EXPECT_EQ(t, hi3660_stub_clk_set_rate(&s, 1, 1805000), -ETIMEDOUT);
	EXPECT_GE(t, model.now_us - t0, 300000);
	EXPECT_LE(t, model.now_us - t0, 300000 + 10);
	EXPECT_EQ(t, hi3660_stub_clk_get_rate(&s, 1), 2362000);
	EXPECT_EQ(t, hi3660_stub_clk_set_rate(&s, 1, 903000), -ETIMEDOUT);
	EXPECT_EQ(t, model.sends, 1); /* never sent on a busy channel */
}

/* An answer after the timeout: that request failed, the next one first consumes
 * the late acknowledge (Linux: check_state) and then goes through. */
static void hi3660_late_ack_then_recovers(struct ktest *t)
{
	struct hi3660_stub s = stub_on(MCU_ACK, 400000);

	ASSERT_EQ(t, hi3660_mbox_startup(&s), 0);
	EXPECT_EQ(t, hi3660_stub_clk_set_rate(&s, 0, 999000), -ETIMEDOUT);
	model.answer_after_us = 30;
	EXPECT_EQ(t, hi3660_stub_clk_set_rate(&s, 0, 1402000), 0);
	EXPECT_EQ(t, model.sends, 2);
	EXPECT_EQ(t, hi3660_stub_clk_get_rate(&s, 0), 1402000);
}

/* The IPC lock never opens, or another master holds the channel: startup fails. */
static void hi3660_startup_failures(struct ktest *t)
{
	struct hi3660_stub s = stub_on(MCU_ACK, 10);

	model.lock_stuck = true;
	EXPECT_EQ(t, hi3660_mbox_startup(&s), -ETIMEDOUT);
	EXPECT_EQ(t, model.now_us, 40); /* 4 tries, 10 us apart */
	s = stub_on(MCU_ACK, 10);
	model.busy_elsewhere = true;
	EXPECT_EQ(t, hi3660_mbox_startup(&s), -ETIMEDOUT);
	EXPECT_EQ(t, hi3660_stub_clk_set_rate(&s, 4, 1000000), -EINVAL);
	EXPECT_EQ(t, model.sends, 0);
}

KTEST_SUITE(hi3660_stub_clk, KTEST_CASE(hi3660_startup_takes_channel),
	    KTEST_CASE(hi3660_set_rate_acknowledged), KTEST_CASE(hi3660_rate_rounded),
	    KTEST_CASE(hi3660_rate_refused), KTEST_CASE(hi3660_timeout),
	    KTEST_CASE(hi3660_late_ack_then_recovers), KTEST_CASE(hi3660_startup_failures));
