/* hi3660_stub_clk.h - the Hi3660 CPU clocks as the LPM3 power MCU serves them
 * (drivers/hi3660_stub_clk.c): the protocol part, which touches the hardware only
 * through the accessors below, so host tests (tests/host/test_hi3660.c) run it
 * against a register-level model of the mailbox and the shared memory. Facts: Linux
 * drivers/mailbox/hi3660-mailbox.c, drivers/clk/hisilicon/clk-hi3660-stub.c and
 * hi3660.dtsi (mailbox@e896b000, stub_clock@e896b500, mboxes = <&mailbox 13 3 0>). */
#ifndef DRIVERS_HI3660_STUB_CLK_H
#define DRIVERS_HI3660_STUB_CLK_H

#include "types.h"

/* Mailbox registers: one 0x40-byte window per channel, and the global lock. */
#define HI3660_MBOX_CHAN(ch)	   ((ch)*0x40u)
#define HI3660_MBOX_SRC		   0x00u
#define HI3660_MBOX_DST		   0x04u
#define HI3660_MBOX_MODE	   0x10u
#define HI3660_MBOX_IMASK	   0x14u
#define HI3660_MBOX_ICLR	   0x18u
#define HI3660_MBOX_SEND	   0x1cu
#define HI3660_MBOX_DATA	   0x20u /* 8 words */
#define HI3660_MBOX_IPC_LOCK	   0xa00u
#define HI3660_MBOX_IPC_UNLOCK	   0x1acce551u
#define HI3660_MBOX_AUTOMATIC_ACK  1u
#define HI3660_MBOX_STATE_IDLE	   (1u << 4)
#define HI3660_MBOX_STATE_READY	   (1u << 5)
#define HI3660_MBOX_STATE_ACK	   (1u << 7)
#define HI3660_MBOX_MSG_LEN	   8
/* Linux polls for the MCU's acknowledge every 1 ms for up to 300 ms; we poll every
 * 10 us (a transition is not rounded up to a millisecond), same limit. */
#define HI3660_MBOX_POLL_US	   10u
#define HI3660_MBOX_ACK_TIMEOUT_US 300000u

/* Stub clocks (dt-bindings/clock/hi3660-clock.h: HI3660_CLK_STUB_*): the rate the
 * MCU runs each at, in MHz, is a u32 at 0x70 + 4 x id in the stub clock's reg. */
#define HI3660_STUB_CLOCK_DATA 0x70u
#define HI3660_STUB_NR_CLKS    4

struct hi3660_stub {
	void *ctx;
	u32 (*mbox_read)(void *ctx, u32 off); /* the mailbox's register window */
	void (*mbox_write)(void *ctx, u32 off, u32 val);
	u32 (*shm_read)(void *ctx, u32 off); /* the stub clock's reg (shared SRAM) */
	void (*udelay)(void *ctx, u32 us);
	/* From mboxes = <&mailbox chan dst_irq ack_irq>. */
	u32 chan, dst_irq, ack_irq;
};

/* Linux: hi3660_mbox_startup(): unlock the IPC registers, take the channel as its
 * source. 0, or -ETIMEDOUT. */
int hi3660_mbox_startup(const struct hi3660_stub *s);
/* Linux: hi3660_mbox_send_data() (check_state, then send), and here also the wait
 * for this message's acknowledge, cleared again (the channel back to READY).
 * 0, or -ETIMEDOUT (no acknowledge of the previous or of this message). */
int hi3660_mbox_send(const struct hi3660_stub *s, const u32 msg[HI3660_MBOX_MSG_LEN]);
/* Linux: hi3660_stub_clk_set_rate(): { command of clk id, MHz } to the MCU. */
int hi3660_stub_clk_set_rate(const struct hi3660_stub *s, u32 id, u32 khz);
/* Linux: hi3660_stub_clk_recalc_rate(): what the MCU wrote back, kHz (0: bad id). */
u32 hi3660_stub_clk_get_rate(const struct hi3660_stub *s, u32 id);

#endif
