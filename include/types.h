/* types.h - fixed-width integer names shared by the kernel and the host tests.
 * Freestanding: only the compiler's own <stdint.h>, <stddef.h>, <stdbool.h>. */
#ifndef TYPES_H
#define TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
/* long long, on every target, so %llu/%llx print a u64 without casts. */
typedef unsigned long long u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef long long s64;

#define ARRAY_SIZE(a)			(sizeof(a) / sizeof((a)[0]))
#define MIN(a, b)			((a) < (b) ? (a) : (b))
#define MAX(a, b)			((a) > (b) ? (a) : (b))
#define ALIGN_UP(x, a)			(((x) + ((a)-1)) & ~((__typeof__(x))(a)-1))
#define ALIGN_DOWN(x, a)		((x) & ~((__typeof__(x))(a)-1))
#define container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))

/* Upper bound on logical CPUs, an array size only (as Linux's NR_CPUS): the
 * real count always comes from the device tree. */
#define NR_CPUS 256

#endif
