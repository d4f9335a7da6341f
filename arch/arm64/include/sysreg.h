/* sysreg.h - system register access for arch/ and drivers/. */
#ifndef ARM64_SYSREG_H
#define ARM64_SYSREG_H

#define read_sysreg(r)                                                                             \
	({                                                                                         \
		u64 __v;                                                                           \
		__asm__ volatile("mrs %0, " #r : "=r"(__v));                                       \
		__v;                                                                               \
	})
#define write_sysreg(r, v) __asm__ volatile("msr " #r ", %0" ::"r"((u64)(v)))
#define isb()		   __asm__ volatile("isb" ::: "memory")
#define dsb(opt)	   __asm__ volatile("dsb " #opt ::: "memory")

static inline u32 readl(const volatile void *a)
{
	u32 v = *(const volatile u32 *)a;

	__asm__ volatile("dmb oshld" ::: "memory");
	return v;
}

static inline void writel(u32 v, volatile void *a)
{
	__asm__ volatile("dmb oshst" ::: "memory");
	*(volatile u32 *)a = v;
}

static inline u64 readq(const volatile void *a)
{
	u64 v = *(const volatile u64 *)a;

	__asm__ volatile("dmb oshld" ::: "memory");
	return v;
}

static inline void writeq(u64 v, volatile void *a)
{
	__asm__ volatile("dmb oshst" ::: "memory");
	*(volatile u64 *)a = v;
}

static inline void writeb(u8 v, volatile void *a)
{
	__asm__ volatile("dmb oshst" ::: "memory");
	*(volatile u8 *)a = v;
}

#endif
