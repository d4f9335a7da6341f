/* efi_fdt.c - the one DTB edit the EFI stub makes: /chosen/bootargs from the
 * EFI load options (U-Boot and Linux loaders put the command line there, and
 * EDK2 passes QEMU's -append that way). Works on the stub's own copy of the
 * firmware's DTB, in a buffer with room to grow. Not a general FDT writer:
 * the old property becomes NOPs and a new one goes first in /chosen. Runs
 * before relocation (efi.c): no pointers in static data. No locks (one CPU,
 * boot services still up). Format: Devicetree Specification 0.4, chapter 5. */
#include "efi.h"
#include "kernel.h"

#define FDT_MAGIC      0xd00dfeed
#define FDT_BEGIN_NODE 1
#define FDT_END_NODE   2
#define FDT_PROP       3
#define FDT_NOP	       4
#define FDT_END	       9

/* Header fields, by word index (5.2). */
enum {
	H_MAGIC,
	H_TOTALSIZE,
	H_OFF_STRUCT,
	H_OFF_STRINGS,
	H_OFF_RSVMAP,
	H_VERSION,
	H_LAST_COMP,
	H_BOOT_CPU,
	H_SIZE_STRINGS,
	H_SIZE_STRUCT
};

static u32 be32(const u8 *p)
{
	return (u32)p[0] << 24 | (u32)p[1] << 16 | (u32)p[2] << 8 | p[3];
}

static void put_be32(u8 *p, u32 v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static u32 hdr(const u8 *f, int i)
{
	return be32(f + 4 * i);
}

static u32 pad4(u32 n)
{
	return (n + 3) & ~3u;
}

/* Offset in the strings block of "bootargs", or -1. */
static int find_string(const u8 *f, const char *s)
{
	u32 off = hdr(f, H_OFF_STRINGS), size = hdr(f, H_SIZE_STRINGS), n = strlen(s) + 1;

	for (u32 i = 0; i + n <= size; i++)
		if (!memcmp(f + off + i, s, n) && (i == 0 || f[off + i - 1] == '\0'))
			return (int)i;
	return -1;
}

/*
 * Walk the structure block: *insert = just after /chosen's name (or, without
 * /chosen, just before the root's END_NODE, *have_chosen = false); any
 * bootargs property of /chosen is overwritten with NOPs on the way.
 * Returns 0, or -1 on a malformed block.
 */
static int scan(u8 *f, int bootargs_off, u32 *insert, bool *have_chosen)
{
	u32 p = hdr(f, H_OFF_STRUCT), end = p + hdr(f, H_SIZE_STRUCT);
	int depth = 0;
	bool in_chosen = false;

	*have_chosen = false;
	*insert = 0;
	while (p + 4 <= end) {
		u32 tok = be32(f + p), len;
		const char *name;

		p += 4;
		switch (tok) {
		case FDT_BEGIN_NODE:
			name = (const char *)f + p;
			len = strlen(name);
			p += pad4(len + 1);
			depth++;
			if (depth == 2 &&
			    (!strcmp(name, "chosen") || !strncmp(name, "chosen@", 7))) {
				in_chosen = *have_chosen = true;
				*insert = p;
			}
			break;
		case FDT_END_NODE:
			if (depth == 1 && !*have_chosen)
				*insert = p - 4;
			if (depth == 2)
				in_chosen = false;
			if (--depth < 0)
				return -1;
			break;
		case FDT_PROP:
			if (p + 8 > end)
				return -1;
			len = be32(f + p);
			if (in_chosen && depth == 2 && (int)be32(f + p + 4) == bootargs_off)
				for (u32 q = p - 4; q < p + 8 + pad4(len); q += 4)
					put_be32(f + q, FDT_NOP);
			p += 8 + pad4(len);
			break;
		case FDT_NOP:
			break;
		case FDT_END:
			return *insert ? 0 : -1;
		default:
			return -1;
		}
	}
	return -1;
}

int efi_fdt_set_bootargs(void *fdt, u32 bufsize, const char *args)
{
	u8 *f = fdt;
	u32 total = hdr(f, H_TOTALSIZE), strs = hdr(f, H_OFF_STRINGS);
	u32 strs_end = strs + hdr(f, H_SIZE_STRINGS), vlen = strlen(args) + 1;
	u32 insert, grow, add_str = 0;
	int nameoff = find_string(f, "bootargs");
	bool have_chosen;

	/* The usual layout, which is all we edit: header, rsvmap, struct, strings. */
	if (hdr(f, H_MAGIC) != FDT_MAGIC || hdr(f, H_VERSION) < 17 || total > bufsize ||
	    hdr(f, H_OFF_RSVMAP) > hdr(f, H_OFF_STRUCT) ||
	    hdr(f, H_OFF_STRUCT) + hdr(f, H_SIZE_STRUCT) > strs || strs_end > total)
		return -1;
	if (scan(f, nameoff, &insert, &have_chosen))
		return -1;
	if (nameoff < 0) {
		nameoff = (int)hdr(f, H_SIZE_STRINGS);
		add_str = sizeof("bootargs");
	}
	grow = 12 + pad4(vlen) + (have_chosen ? 0 : 4 + 8 + 4);
	if (strs_end + grow + add_str > bufsize)
		return -1;

	/* Open a gap at `insert` (the rest of struct + strings move up). */
	memmove(f + insert + grow, f + insert, strs_end - insert);
	memset(f + insert, 0, grow);
	if (!have_chosen) {
		put_be32(f + insert, FDT_BEGIN_NODE);
		memcpy(f + insert + 4, "chosen", 7);
		insert += 12;
	}
	put_be32(f + insert, FDT_PROP);
	put_be32(f + insert + 4, vlen);
	put_be32(f + insert + 8, (u32)nameoff);
	memcpy(f + insert + 12, args, vlen);
	if (!have_chosen)
		put_be32(f + insert + 12 + pad4(vlen), FDT_END_NODE);
	strs_end += grow;
	if (add_str)
		memcpy(f + strs_end, "bootargs", add_str);

	put_be32(f + 4 * H_SIZE_STRUCT, hdr(f, H_SIZE_STRUCT) + grow);
	put_be32(f + 4 * H_OFF_STRINGS, strs + grow);
	put_be32(f + 4 * H_SIZE_STRINGS, hdr(f, H_SIZE_STRINGS) + add_str);
	put_be32(f + 4 * H_TOTALSIZE, MAX(total, strs_end + add_str));
	return 0;
}
