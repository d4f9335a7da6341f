/* test_initrd.c - kernel/initrd.c's reading of /chosen linux,initrd-start and
 * linux,initrd-end, as boot loaders write them: one cell (QEMU on a 32-bit
 * address) or two, and broken pairs, which are ignored. Trees built with
 * libfdt's sequential writer. */
#include <libfdt.h>
#include <stdlib.h>
#include "initrd.h"
#include "ktest.h"

/* value as n big-endian cells (the high ones first). */
static const fdt32_t *cells(fdt32_t buf[3], int n, u64 value)
{
	for (int i = n - 1; i >= 0; i--, value >>= 32)
		buf[i] = cpu_to_fdt32((u32)value);
	return buf;
}

/* A tree whose /chosen has the given start/end (0 cells: property absent). */
static void *tree(int scells, u64 start, int ecells, u64 end)
{
	void *b = calloc(1, 4096);
	fdt32_t buf[3];

	if (!b || fdt_create(b, 4096) || fdt_finish_reservemap(b) || fdt_begin_node(b, "") ||
	    fdt_begin_node(b, "chosen"))
		goto fail;
	if (scells && fdt_property(b, "linux,initrd-start", cells(buf, scells, start), scells * 4))
		goto fail;
	if (ecells && fdt_property(b, "linux,initrd-end", cells(buf, ecells, end), ecells * 4))
		goto fail;
	if (fdt_end_node(b) || fdt_end_node(b) || fdt_finish(b))
		goto fail;
	return b;
fail:
	free(b);
	return NULL;
}

static int find(void *blob, u64 *s, u64 *e)
{
	struct dtb dt;
	int r = -2;

	if (blob && !dtb_init(&dt, blob, fdt_totalsize(blob)))
		r = initrd_find(&dt, s, e);
	free(blob);
	return r;
}

static void initrd_chosen_cells(struct ktest *t)
{
	u64 s = 0, e = 0;

	EXPECT_EQ(t, find(tree(1, 0x48000000, 1, 0x48000131), &s, &e), 0);
	EXPECT_EQ(t, s, 0x48000000);
	EXPECT_EQ(t, e, 0x48000131);
	EXPECT_EQ(t, find(tree(2, 0x880000000ull, 2, 0x880001000ull), &s, &e), 0);
	EXPECT_EQ(t, s, 0x880000000ull);
	EXPECT_EQ(t, e, 0x880001000ull);
	EXPECT_EQ(t, find(tree(1, 0x48000000, 2, 0x48002000), &s, &e), 0); /* mixed */
	EXPECT_EQ(t, e, 0x48002000);
	EXPECT_EQ(t, find(tree(0, 0, 0, 0), &s, &e), -1);		    /* no initrd */
	EXPECT_EQ(t, find(tree(1, 0x48000000, 0, 0), &s, &e), -1);	    /* no end */
	EXPECT_EQ(t, find(tree(1, 0x48001000, 1, 0x48000000), &s, &e), -1); /* end < start */
	EXPECT_EQ(t, find(tree(1, 0x48000000, 1, 0x48000000), &s, &e), -1); /* empty */
	EXPECT_EQ(t, find(tree(3, 0x48000000, 1, 0x48001000), &s, &e), -1); /* 3 cells */
}

KTEST_SUITE(initrd, KTEST_CASE(initrd_chosen_cells));
