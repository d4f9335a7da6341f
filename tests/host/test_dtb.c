/* test_dtb.c - lib/dtb.c checked against libfdt (the oracle) on every --dtb file and on trees
 * built here, then fed malformed blobs (every truncation, pseudo-random corruption, bogus
 * offsets, nesting beyond the limit) under ASan/UBSan, which turn any overread into a failure.
 * libfdt is a host-only test oracle: the kernel's reader is lib/dtb.c alone. */
#include <libfdt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dtb.h"
#include "host.h"
#include "ktest.h"
#include "topology.h"

/* After this many mismatches in one blob the rest is noise: stop comparing it. */
#define MAX_FAILS 20

/* ======================================================================================
 * Oracle comparison: every node and property of a valid blob, both readers side by side.
 * ====================================================================================== */

/* Typed reads of the first property called `name`, checked against its raw bytes. */
static void cmp_typed(struct ktest *t, const struct dtb *dt, const void *fdt, int node,
		      const char *name)
{
	int len;
	const char *val = fdt_getprop(fdt, node, name, &len);
	u32 v32 = 0xabababab;
	u64 v64 = 0xabababababababab;

	if (!val)
		return;
	EXPECT_EQ(t, dtb_prop_u32(dt, node, name, &v32), len == 4 ? 0 : DTB_E_BADVALUE);
	if (len == 4)
		EXPECT_EQ(t, v32, fdt32_ld((const fdt32_t *)val));
	EXPECT_EQ(t, dtb_prop_u64(dt, node, name, &v64), len == 4 || len == 8 ? 0 : DTB_E_BADVALUE);
	if (len == 8)
		EXPECT_EQ(t, v64, fdt64_ld((const fdt64_t *)val));
	/* A string property is one whose bytes hold a NUL; else dtb_prop_str refuses it. */
	if (memchr(val, 0, (size_t)len))
		EXPECT_TRUE(t, dtb_prop_str(dt, node, name) == val);
	else
		EXPECT_TRUE(t, dtb_prop_str(dt, node, name) == NULL);
	/* Every string of a string list is found at libfdt's index (the first if repeated). */
	if (len > 0 && val[len - 1] == '\0') {
		for (const char *s = val; s < val + len; s += strlen(s) + 1)
			EXPECT_EQ(t, dtb_stringlist_index(dt, node, name, s),
				  fdt_stringlist_search(fdt, node, name, s));
	}
	EXPECT_EQ(t, dtb_stringlist_index(dt, node, name, "no-such,string"),
		  fdt_stringlist_search(fdt, node, name, "no-such,string") == -FDT_ERR_NOTFOUND
			  ? DTB_E_NOTFOUND
			  : DTB_E_BADVALUE);
}

/* Property offsets, names, lengths and value pointers, in order. Pointer equality proves the
 * same bytes: both readers return a pointer into the same blob. */
static void cmp_props(struct ktest *t, const struct dtb *dt, const void *fdt, int node)
{
	int p = dtb_first_prop(dt, node), lp = fdt_first_property_offset(fdt, node);

	for (; lp >= 0; lp = fdt_next_property_offset(fdt, lp), p = dtb_next_prop(dt, p)) {
		const char *lname, *name = NULL;
		int llen, len = -100, l1, l2;
		const void *lval = fdt_getprop_by_offset(fdt, lp, &lname, &llen);
		const void *val;

		ASSERT_EQ(t, p, lp);
		val = dtb_prop_at(dt, p, &name, &len);
		ASSERT_TRUE(t, lval && val);
		EXPECT_TRUE(t, val == lval);
		EXPECT_EQ(t, len, llen);
		EXPECT_STREQ(t, name, lname);
		/* By name: the first property so called, as libfdt (duplicates are legal). */
		EXPECT_TRUE(t,
			    dtb_prop(dt, node, lname, &l1) == fdt_getprop(fdt, node, lname, &l2));
		EXPECT_EQ(t, l1, l2);
		cmp_typed(t, dt, fdt, node, lname);
	}
	EXPECT_EQ(t, lp, -FDT_ERR_NOTFOUND);
	EXPECT_EQ(t, p, DTB_E_NOTFOUND);
	EXPECT_TRUE(t, dtb_prop(dt, node, "no-such-property", NULL) == NULL);
}

static void cmp_compatible(struct ktest *t, const struct dtb *dt, const void *fdt, int node)
{
	int len;
	const char *c = fdt_getprop(fdt, node, "compatible", &len);

	EXPECT_FALSE(t, dtb_is_compatible(dt, node, "no-such,device"));
	if (!c || len <= 0 || c[len - 1])
		return;
	for (const char *s = c; s < c + len; s += strlen(s) + 1) {
		EXPECT_TRUE(t, dtb_is_compatible(dt, node, s));
		EXPECT_EQ(t, fdt_node_check_compatible(fdt, node, s), 0);
		EXPECT_EQ(t, dtb_find_compatible(dt, -1, s),
			  fdt_node_offset_by_compatible(fdt, -1, s));
		EXPECT_EQ(t, dtb_find_compatible(dt, node, s),
			  fdt_node_offset_by_compatible(fdt, node, s));
	}
}

/* #address-cells/#size-cells (from the parent) and every reg entry decoded by hand. */
static void cmp_reg(struct ktest *t, const struct dtb *dt, const void *fdt, int node)
{
	int parent = fdt_parent_offset(fdt, node), la, ls, ac, sc, len, n, i;
	const fdt32_t *reg;
	u64 a, s;

	ac = dtb_addr_cells(dt, node);
	sc = dtb_size_cells(dt, node);
	if (parent < 0) { /* the root: nothing above it, the spec's defaults */
		EXPECT_EQ(t, ac, 2);
		EXPECT_EQ(t, sc, 1);
		return;
	}
	la = fdt_address_cells(fdt, parent);
	ls = fdt_size_cells(fdt, parent);
	if (la >= 0)
		EXPECT_EQ(t, ac, la);
	else
		EXPECT_EQ(t, ac, DTB_E_BADVALUE);
	if (ls >= 0)
		EXPECT_EQ(t, sc, ls);
	else
		EXPECT_EQ(t, sc, DTB_E_BADVALUE);
	reg = fdt_getprop(fdt, node, "reg", &len);
	if (la < 0 || ls < 0 || la > 2 || ls > 2) {
		EXPECT_LT(t, dtb_reg(dt, node, 0, &a, &s), 0);
		return;
	}
	if (!reg) {
		EXPECT_EQ(t, dtb_reg(dt, node, 0, &a, &s), DTB_E_NOTFOUND);
		return;
	}
	if (len % (4 * (la + ls))) {
		EXPECT_EQ(t, dtb_reg(dt, node, 0, &a, &s), DTB_E_BADVALUE);
		return;
	}
	n = len / (4 * (la + ls));
	for (i = 0; i < n; i++, reg += la + ls) {
		u64 wa = fdt32_ld(&reg[0]), ws = 0;

		if (la == 2)
			wa = wa << 32 | fdt32_ld(&reg[1]);
		if (ls >= 1)
			ws = fdt32_ld(&reg[la]);
		if (ls == 2)
			ws = ws << 32 | fdt32_ld(&reg[la + 1]);
		a = s = 0xdead;
		EXPECT_EQ(t, dtb_reg(dt, node, i, &a, &s), 0);
		EXPECT_EQ(t, a, wa);
		EXPECT_EQ(t, s, ws);
	}
	EXPECT_EQ(t, dtb_reg(dt, node, n, &a, &s), DTB_E_NOTFOUND);
	EXPECT_EQ(t, dtb_reg(dt, node, -1, &a, &s), DTB_E_NOTFOUND);
}

/* Everything about one node; `path` is its full path, built by the caller. */
static void cmp_node(struct ktest *t, const struct dtb *dt, const void *fdt, int node,
		     const char *path)
{
	int len, llen, parent = fdt_parent_offset(fdt, node), lph, status_len;
	const char *name = dtb_node_name(dt, node, &len), *lname = fdt_get_name(fdt, node, &llen);
	const char *at, *status;
	char buf[4200];
	u32 ph;

	EXPECT_STREQ(t, name, lname);
	EXPECT_EQ(t, len, llen);
	EXPECT_EQ(t, dtb_parent(dt, node), parent < 0 ? DTB_E_NOTFOUND : parent);
	EXPECT_EQ(t, dtb_first_child(dt, node), fdt_first_subnode(fdt, node));
	EXPECT_EQ(t, dtb_next_sibling(dt, node), fdt_next_subnode(fdt, node));
	if (parent >= 0 && lname) {
		EXPECT_EQ(t, dtb_subnode(dt, parent, lname),
			  fdt_subnode_offset(fdt, parent, lname));
		/* Without its unit address a name matches the first "name@..." sibling. */
		if ((at = strchr(lname, '@'))) {
			snprintf(buf, sizeof(buf), "%.*s", (int)(at - lname), lname);
			EXPECT_EQ(t, dtb_subnode(dt, parent, buf),
				  fdt_subnode_offset(fdt, parent, buf));
		}
	}
	EXPECT_EQ(t, dtb_path(dt, path), fdt_path_offset(fdt, path));
	snprintf(buf, sizeof(buf), "%s:opt,ions/x", path);
	EXPECT_EQ(t, dtb_path(dt, buf), fdt_path_offset(fdt, path));

	lph = (int)fdt_get_phandle(fdt, node);
	ph = dtb_node_phandle(dt, node);
	EXPECT_EQ(t, ph, (u32)lph);
	if (ph)
		EXPECT_EQ(t, dtb_node_by_phandle(dt, ph), fdt_node_offset_by_phandle(fdt, ph));
	status = fdt_getprop(fdt, node, "status", &status_len);
	EXPECT_EQ(t, dtb_node_enabled(dt, node),
		  !status || (status_len == 5 && !memcmp(status, "okay", 5)) ||
			  (status_len == 3 && !memcmp(status, "ok", 3)));
	cmp_props(t, dt, fdt, node);
	cmp_compatible(t, dt, fdt, node);
	cmp_reg(t, dt, fdt, node);
}

/* Aliases resolve as libfdt resolves them, also with ":options" and a path after them. */
static void cmp_aliases(struct ktest *t, const struct dtb *dt, const void *fdt)
{
	int aliases = fdt_path_offset(fdt, "/aliases"), chosen = fdt_path_offset(fdt, "/chosen");
	const char *name, *val;
	char buf[600];
	int p, len, target, child;

	if (aliases >= 0) {
		fdt_for_each_property_offset(p, fdt, aliases)
		{
			val = fdt_getprop_by_offset(fdt, p, &name, &len);
			/* libfdt would recurse forever on an alias naming an alias: skip those. */
			if (!val || len < 1 || val[0] != '/' || strlen(name) > 200)
				continue;
			target = fdt_path_offset(fdt, name);
			EXPECT_EQ(t, dtb_path(dt, name), target);
			snprintf(buf, sizeof(buf), "%s:115200n8", name);
			EXPECT_EQ(t, dtb_path(dt, buf), target);
			if (target >= 0 && (child = fdt_first_subnode(fdt, target)) >= 0) {
				snprintf(buf, sizeof(buf), "%s/%s", name,
					 fdt_get_name(fdt, child, NULL));
				EXPECT_EQ(t, dtb_path(dt, buf), child);
				EXPECT_EQ(t, fdt_path_offset(fdt, buf), child);
			}
		}
	}
	if (chosen >= 0 && (val = fdt_getprop(fdt, chosen, "stdout-path", &len)) &&
	    memchr(val, 0, (size_t)len))
		EXPECT_EQ(t, dtb_path(dt, val),
			  fdt_path_offset_namelen(fdt, val, (int)strcspn(val, ":")));
}

static void cmp_header(struct ktest *t, const struct dtb *dt, const void *fdt)
{
	u64 a, s;
	uint64_t la, ls; /* libfdt's type, not always u64's */
	int i, n = fdt_num_mem_rsv(fdt);

	EXPECT_EQ(t, dt->version, fdt_version(fdt));
	EXPECT_EQ(t, dt->boot_cpuid, fdt_boot_cpuid_phys(fdt));
	EXPECT_EQ(t, dt->totalsize, fdt_totalsize(fdt));
	EXPECT_EQ(t, dtb_header_totalsize(fdt), fdt_totalsize(fdt));
	EXPECT_EQ(t, dt->off_struct, fdt_off_dt_struct(fdt));
	EXPECT_EQ(t, dt->off_strings, fdt_off_dt_strings(fdt));
	EXPECT_EQ(t, dt->off_rsvmap, fdt_off_mem_rsvmap(fdt));
	EXPECT_EQ(t, dtb_root(dt), fdt_path_offset(fdt, "/"));
	EXPECT_EQ(t, dtb_path(dt, "/"), fdt_path_offset(fdt, "/"));
	ASSERT_GE(t, n, 0);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(t, fdt_get_mem_rsv(fdt, i, &la, &ls), 0);
		EXPECT_EQ(t, dtb_mem_rsv(dt, i, &a, &s), 0);
		EXPECT_EQ(t, a, la);
		EXPECT_EQ(t, s, ls);
	}
	EXPECT_EQ(t, dtb_mem_rsv(dt, n, &a, &s), DTB_E_NOTFOUND);
	EXPECT_EQ(t, dtb_node_by_phandle(dt, 0), DTB_E_NOTFOUND);
	EXPECT_EQ(t, dtb_node_by_phandle(dt, 0xffffffffu), DTB_E_NOTFOUND);
	EXPECT_EQ(t, dtb_node_by_phandle(dt, 0xfffffffeu),
		  fdt_node_offset_by_phandle(fdt, 0xfffffffeu) >= 0
			  ? fdt_node_offset_by_phandle(fdt, 0xfffffffeu)
			  : DTB_E_NOTFOUND);
	EXPECT_EQ(t, dtb_path(dt, "/no-such-node"), DTB_E_NOTFOUND);
	EXPECT_EQ(t, dtb_path(dt, "no-such-alias"), DTB_E_NOTFOUND);
}

/* Whole-tree comparison of a valid blob; *nodes gets the number of nodes walked. */
static void oracle_compare(struct ktest *t, const void *fdt, size_t size, const char *what,
			   int *nodes)
{
	int before = t->failed, node, lnode, depth, ldepth = -1;
	int pathlen[65];
	char path[4096];
	struct dtb dt;

	*nodes = 0;
	ASSERT_EQ(t, fdt_check_header(fdt), 0);
	ASSERT_EQ(t, dtb_init(&dt, fdt, size), 0);
	cmp_header(t, &dt, fdt);
	cmp_aliases(t, &dt, fdt);

	/* Walk both in lockstep; the paths are rebuilt from names to test dtb_path. */
	node = dtb_next_node(&dt, -1, &depth);
	lnode = fdt_next_node(fdt, -1, &ldepth);
	for (; lnode >= 0 && ldepth >= 0; (*nodes)++) {
		const char *name = fdt_get_name(fdt, lnode, NULL);
		int start = ldepth ? pathlen[ldepth - 1] : 0;

		ASSERT_EQ(t, node, lnode);
		EXPECT_EQ(t, depth, ldepth);
		ASSERT_LT(t, ldepth, 64);
		ASSERT_LT(t, start + strlen(name) + 2, sizeof(path));
		if (ldepth == 0) {
			strcpy(path, "/");
			pathlen[0] = 0;
		} else {
			pathlen[ldepth] = start + sprintf(path + start, "/%s", name);
		}
		cmp_node(t, &dt, fdt, lnode, path);
		if (t->failed - before > MAX_FAILS) {
			ktest_diag(t, "%s: too many mismatches, stopped at %s", what, path);
			return;
		}
		node = dtb_next_node(&dt, node, &depth);
		lnode = fdt_next_node(fdt, lnode, &ldepth);
	}
	EXPECT_EQ(t, node, DTB_E_NOTFOUND);
	/* Without a depth both walks run to FDT_END through the same nodes. */
	node = dtb_next_node(&dt, -1, NULL);
	lnode = fdt_next_node(fdt, -1, NULL);
	for (; lnode >= 0; lnode = fdt_next_node(fdt, lnode, NULL)) {
		ASSERT_EQ(t, node, lnode);
		node = dtb_next_node(&dt, node, NULL);
	}
	EXPECT_EQ(t, node, DTB_E_NOTFOUND);
	if (t->failed > before)
		ktest_diag(t, "mismatches in %s", what);
}

/* ======================================================================================
 * Trees built in memory with libfdt's sequential writer, so the suite asserts something even
 * without --dtb files, and covers what QEMU's tree lacks: aliases, /memreserve/, legacy
 * "linux,phandle", status values, 1- and 3-cell buses, malformed reg and cells, deep nodes.
 * ====================================================================================== */

struct sw {
	char *buf;
	int err;
};

static void sw(struct sw *w, int r)
{
	if (r < 0 && !w->err)
		w->err = r;
}

/* A property of n u32 cells. */
static void cells(struct sw *w, const char *name, int n, ...)
{
	fdt32_t v[16];
	va_list ap;

	va_start(ap, n);
	for (int i = 0; i < n; i++)
		v[i] = cpu_to_fdt32(va_arg(ap, u32));
	va_end(ap);
	sw(w, fdt_property(w->buf, name, v, n * 4));
}

#define BEGIN(w, name)	   sw(w, fdt_begin_node((w)->buf, name))
#define END(w)		   sw(w, fdt_end_node((w)->buf))
#define STR(w, name, s)	   sw(w, fdt_property_string((w)->buf, name, s))
/* A string list given as one literal with embedded NULs: "a\0b". */
#define LIST(w, name, lit) sw(w, fdt_property((w)->buf, name, lit, sizeof(lit)))
#define U32(w, name, v)	   sw(w, fdt_property_cell((w)->buf, name, v))

/* The "tiny" tree. Returns a malloc()ed blob of exactly *size bytes, or NULL. */
static void *make_tiny(size_t *size)
{
	struct sw w = { calloc(1, 8192), 0 };
	char *blob;

	if (!w.buf)
		return NULL;
	sw(&w, fdt_create(w.buf, 8192));
	sw(&w, fdt_add_reservemap_entry(w.buf, 0x48000000, 0x100000));
	sw(&w, fdt_add_reservemap_entry(w.buf, 0x1000, 0x2000));
	sw(&w, fdt_add_reservemap_entry(w.buf, 0, 0x1000)); /* address 0 is not the end */
	sw(&w, fdt_finish_reservemap(w.buf));
	BEGIN(&w, "");
	U32(&w, "#address-cells", 2);
	U32(&w, "#size-cells", 2);
	LIST(&w, "compatible", "test,tiny\0test,base");
	STR(&w, "model", "tiny");
	BEGIN(&w, "aliases");
	STR(&w, "serial0", "/soc/serial@9000000");
	STR(&w, "cpu1", "/cpus/cpu@1");
	STR(&w, "soc", "/soc");
	STR(&w, "broken", "noslash");
	STR(&w, "missing", "/nowhere");
	END(&w);
	BEGIN(&w, "chosen");
	STR(&w, "stdout-path", "serial0:115200n8");
	STR(&w, "bootargs", "");
	END(&w);
	BEGIN(&w, "cpus");
	U32(&w, "#address-cells", 1);
	U32(&w, "#size-cells", 0);
	BEGIN(&w, "cpu@0");
	STR(&w, "device_type", "cpu");
	LIST(&w, "compatible", "arm,cortex-a53\0arm,armv8");
	U32(&w, "reg", 0);
	U32(&w, "phandle", 1);
	END(&w);
	BEGIN(&w, "cpu@1");
	STR(&w, "compatible", "arm,cortex-a53");
	U32(&w, "reg", 1);
	U32(&w, "linux,phandle", 2);
	STR(&w, "status", "disabled");
	END(&w);
	BEGIN(&w, "cpu@100");
	STR(&w, "compatible", "arm,cortex-a73");
	U32(&w, "reg", 0x100);
	U32(&w, "phandle", 3);
	STR(&w, "status", "okay");
	END(&w);
	END(&w);
	BEGIN(&w, "memory@40000000");
	STR(&w, "device_type", "memory");
	cells(&w, "reg", 8, 0, 0x40000000, 0, 0x20000000, 1, 0, 0, 0x1000);
	END(&w);
	BEGIN(&w, "soc");
	U32(&w, "#address-cells", 1);
	U32(&w, "#size-cells", 1);
	STR(&w, "compatible", "simple-bus");
	BEGIN(&w, "serial@9000000");
	LIST(&w, "compatible", "arm,pl011\0arm,primecell");
	cells(&w, "reg", 2, 0x9000000, 0x1000);
	STR(&w, "status", "ok");
	U32(&w, "phandle", 0x10);
	END(&w);
	BEGIN(&w, "serial@9001000");
	LIST(&w, "compatible", "arm,pl011\0arm,primecell");
	cells(&w, "reg", 2, 0x9001000, 0x1000);
	STR(&w, "status", "fail");
	END(&w);
	BEGIN(&w, "intc@8000000");
	cells(&w, "reg", 4, 0x8000000, 0x10000, 0x8010000, 0x10000);
	U32(&w, "#address-cells", 3);
	U32(&w, "phandle", 4);
	BEGIN(&w, "child@0,0,1");
	cells(&w, "reg", 4, 0, 0, 1, 0x10); /* 3 address cells: too wide for dtb_reg */
	END(&w);
	END(&w);
	BEGIN(&w, "bad-reg");
	cells(&w, "reg", 3, 1, 2, 3); /* not a whole number of (1 + 1)-cell entries */
	END(&w);
	BEGIN(&w, "a");
	BEGIN(&w, "b");
	BEGIN(&w, "c");
	BEGIN(&w, "d");
	BEGIN(&w, "e");
	STR(&w, "deep", "yes");
	END(&w);
	END(&w);
	END(&w);
	END(&w);
	END(&w);
	END(&w);
	BEGIN(&w, "misc");
	sw(&w, fdt_property(w.buf, "flag", NULL, 0));
	sw(&w, fdt_property(w.buf, "bin", "ab", 2));
	sw(&w, fdt_property_u64(w.buf, "u64", 0x123456789ull));
	STR(&w, "status", "okay!");
	BEGIN(&w, "bad-cells");
	U32(&w, "#address-cells", 0);
	U32(&w, "#size-cells", 5);
	BEGIN(&w, "x");
	U32(&w, "reg", 1);
	END(&w);
	END(&w);
	BEGIN(&w, "odd@1@2"); /* "odd@1" must not find it: a unit address was asked for */
	END(&w);
	BEGIN(&w, "nop-target");
	STR(&w, "dropped", "x");
	U32(&w, "kept", 5);
	BEGIN(&w, "gone");
	STR(&w, "compatible", "test,gone");
	END(&w);
	END(&w);
	END(&w);
	END(&w);
	sw(&w, fdt_finish(w.buf));
	if (w.err) {
		free(w.buf);
		return NULL;
	}
	/* Exactly totalsize bytes, so any read past the end is an ASan error. */
	*size = fdt_totalsize(w.buf);
	blob = malloc(*size);
	if (blob)
		memcpy(blob, w.buf, *size);
	free(w.buf);
	return blob;
}

static int off(const void *fdt, const char *path)
{
	return fdt_path_offset(fdt, path);
}

static void dtb_tiny_oracle(struct ktest *t)
{
	size_t size;
	void *blob = make_tiny(&size);

	int nodes;

	ASSERT_TRUE(t, blob != NULL);
	oracle_compare(t, blob, size, "tiny", &nodes);
	EXPECT_EQ(t, nodes, 25);
	free(blob);
}

/* Known answers on the tiny tree: the oracle says both agree, this says both are right. */
static void dtb_tiny_values(struct ktest *t)
{
	size_t size;
	void *f = make_tiny(&size);
	struct dtb dt;
	u64 a = 0, s = 0;
	u32 v32;
	int node, depth, n;
	const char *str;

	ASSERT_TRUE(t, f != NULL);
	ASSERT_EQ(t, dtb_init(&dt, f, size), 0);
	EXPECT_EQ(t, dtb_root(&dt), 0);
	EXPECT_GT(t, dtb_path(&dt, "serial0"), 0);
	EXPECT_EQ(t, dtb_path(&dt, "serial0"), off(f, "/soc/serial@9000000"));
	EXPECT_EQ(t, dtb_path(&dt, "serial0:115200n8"), off(f, "/soc/serial@9000000"));
	EXPECT_EQ(t, dtb_path(&dt, "soc/intc@8000000/child@0,0,1"),
		  off(f, "/soc/intc@8000000/child@0,0,1"));
	EXPECT_EQ(t, dtb_path(&dt, "//soc//serial@9001000/"), off(f, "/soc/serial@9001000"));
	EXPECT_EQ(t, dtb_path(&dt, "/soc/a/b/c/d/e"), off(f, "/soc/a/b/c/d/e"));
	EXPECT_EQ(t, dtb_path(&dt, "/memory"), off(f, "/memory@40000000"));
	EXPECT_EQ(t, dtb_path(&dt, "/cpus/cpu"), off(f, "/cpus/cpu@0"));
	EXPECT_EQ(t, dtb_path(&dt, "/cpus/cpu@10"), DTB_E_NOTFOUND);
	EXPECT_EQ(t, dtb_path(&dt, "/cpus/cpu@1@x"), DTB_E_NOTFOUND);
	EXPECT_EQ(t, dtb_path(&dt, "broken"), DTB_E_BADPATH);
	EXPECT_EQ(t, dtb_path(&dt, "missing"), DTB_E_NOTFOUND);
	EXPECT_EQ(t, dtb_path(&dt, "nosuch/child"), DTB_E_NOTFOUND);
	EXPECT_EQ(t, dtb_path(&dt, ""), DTB_E_BADPATH);
	EXPECT_EQ(t, dtb_path(&dt, ":opts"), DTB_E_BADPATH);
	EXPECT_EQ(t, dtb_path(&dt, NULL), DTB_E_BADPATH);
	EXPECT_EQ(t, dtb_path(&dt, "/:opts"), 0);
	str = dtb_prop_str(&dt, dtb_path(&dt, "/chosen"), "stdout-path");
	EXPECT_STREQ(t, str, "serial0:115200n8");
	EXPECT_EQ(t, dtb_path(&dt, str), off(f, "/soc/serial@9000000"));

	EXPECT_EQ(t, dtb_subnode(&dt, 0, "memory"), off(f, "/memory@40000000"));
	EXPECT_EQ(t, dtb_subnode(&dt, 0, "mem"), DTB_E_NOTFOUND);
	EXPECT_EQ(t, dtb_subnode(&dt, off(f, "/misc"), "odd"), off(f, "/misc/odd@1@2"));
	EXPECT_EQ(t, dtb_subnode(&dt, off(f, "/misc"), "odd@1"), DTB_E_NOTFOUND);
	EXPECT_EQ(t, fdt_subnode_offset(f, off(f, "/misc"), "odd@1"), -FDT_ERR_NOTFOUND);
	EXPECT_EQ(t, dtb_reg(&dt, off(f, "/memory@40000000"), 1, &a, &s), 0);
	EXPECT_EQ(t, a, 0x100000000ull);
	EXPECT_EQ(t, s, 0x1000);
	EXPECT_EQ(t, dtb_reg(&dt, off(f, "/cpus/cpu@100"), 0, &a, &s), 0);
	EXPECT_EQ(t, a, 0x100);
	EXPECT_EQ(t, s, 0);
	EXPECT_EQ(t, dtb_reg(&dt, off(f, "/soc/serial@9000000"), 0, &a, &s), 0);
	EXPECT_EQ(t, a, 0x9000000);
	EXPECT_EQ(t, s, 0x1000);
	EXPECT_EQ(t, dtb_reg(&dt, off(f, "/soc/serial@9000000"), 1, &a, &s), DTB_E_NOTFOUND);
	EXPECT_EQ(t, dtb_reg(&dt, off(f, "/soc/bad-reg"), 0, &a, &s), DTB_E_BADVALUE);
	EXPECT_EQ(t, dtb_addr_cells(&dt, off(f, "/soc/intc@8000000/child@0,0,1")), 3);
	EXPECT_EQ(t, dtb_reg(&dt, off(f, "/soc/intc@8000000/child@0,0,1"), 0, &a, &s),
		  DTB_E_BADVALUE);
	EXPECT_EQ(t, dtb_addr_cells(&dt, off(f, "/misc/bad-cells/x")), DTB_E_BADVALUE);
	EXPECT_EQ(t, dtb_size_cells(&dt, off(f, "/misc/bad-cells/x")), DTB_E_BADVALUE);
	EXPECT_EQ(t, dtb_reg(&dt, off(f, "/misc"), 0, &a, &s), DTB_E_NOTFOUND);

	EXPECT_TRUE(t, dtb_node_enabled(&dt, off(f, "/cpus/cpu@0")));
	EXPECT_FALSE(t, dtb_node_enabled(&dt, off(f, "/cpus/cpu@1")));
	EXPECT_TRUE(t, dtb_node_enabled(&dt, off(f, "/cpus/cpu@100")));
	EXPECT_TRUE(t, dtb_node_enabled(&dt, off(f, "/soc/serial@9000000")));
	EXPECT_FALSE(t, dtb_node_enabled(&dt, off(f, "/soc/serial@9001000")));
	EXPECT_FALSE(t, dtb_node_enabled(&dt, off(f, "/misc")));
	EXPECT_EQ(t, dtb_node_by_phandle(&dt, 1), off(f, "/cpus/cpu@0"));
	EXPECT_EQ(t, dtb_node_by_phandle(&dt, 2), off(f, "/cpus/cpu@1"));
	EXPECT_EQ(t, dtb_node_by_phandle(&dt, 0x10), off(f, "/soc/serial@9000000"));
	EXPECT_EQ(t, dtb_node_by_phandle(&dt, 99), DTB_E_NOTFOUND);

	EXPECT_EQ(t, dtb_mem_rsv(&dt, 0, &a, &s), 0);
	EXPECT_EQ(t, a, 0x48000000);
	EXPECT_EQ(t, s, 0x100000);
	EXPECT_EQ(t, dtb_mem_rsv(&dt, 1, &a, &s), 0);
	EXPECT_EQ(t, a, 0x1000);
	EXPECT_EQ(t, dtb_mem_rsv(&dt, 2, &a, &s), 0);
	EXPECT_EQ(t, a, 0);
	EXPECT_EQ(t, s, 0x1000);
	EXPECT_EQ(t, dtb_mem_rsv(&dt, 3, &a, &s), DTB_E_NOTFOUND);
	EXPECT_EQ(t, dtb_mem_rsv(&dt, -1, &a, &s), DTB_E_NOTFOUND);

	node = off(f, "/misc");
	EXPECT_EQ(t, dtb_prop_u64(&dt, node, "u64", &a), 0);
	EXPECT_EQ(t, a, 0x123456789ull);
	EXPECT_EQ(t, dtb_prop_u32(&dt, node, "u64", &v32), DTB_E_BADVALUE);
	EXPECT_EQ(t, dtb_prop_u32(&dt, node, "flag", &v32), DTB_E_BADVALUE);
	EXPECT_EQ(t, dtb_prop_u32(&dt, node, "nothing", &v32), DTB_E_NOTFOUND);
	EXPECT_TRUE(t, dtb_prop_str(&dt, node, "bin") == NULL);
	EXPECT_TRUE(t, dtb_prop(&dt, node, "flag", &n) != NULL);
	EXPECT_EQ(t, n, 0);
	EXPECT_EQ(t, dtb_stringlist_index(&dt, node, "bin", "ab"), DTB_E_BADVALUE);
	EXPECT_EQ(t, dtb_stringlist_index(&dt, off(f, "/cpus/cpu@0"), "compatible", "arm,armv8"),
		  1);
	EXPECT_STREQ(t, dtb_prop_str(&dt, 0, "model"), "tiny");

	/* find_compatible resumes after `from`. */
	node = dtb_find_compatible(&dt, -1, "arm,pl011");
	EXPECT_EQ(t, node, off(f, "/soc/serial@9000000"));
	node = dtb_find_compatible(&dt, node, "arm,pl011");
	EXPECT_EQ(t, node, off(f, "/soc/serial@9001000"));
	EXPECT_EQ(t, dtb_find_compatible(&dt, node, "arm,pl011"), DTB_E_NOTFOUND);

	/* Depth counting from 0 at a node iterates exactly its subtree. */
	n = 0;
	depth = 0;
	for (node = dtb_next_node(&dt, off(f, "/soc/a"), &depth); node >= 0;
	     node = dtb_next_node(&dt, node, &depth)) {
		n++;
		EXPECT_EQ(t, depth, n);
	}
	EXPECT_EQ(t, node, DTB_E_NOTFOUND);
	EXPECT_EQ(t, n, 4);
	/* ... also when the subtree has a next sibling (/cpus is followed by /memory). */
	n = 0;
	depth = 0;
	for (node = dtb_next_node(&dt, off(f, "/cpus"), &depth); node >= 0;
	     node = dtb_next_node(&dt, node, &depth), n++)
		EXPECT_EQ(t, depth, 1);
	EXPECT_EQ(t, node, DTB_E_NOTFOUND);
	EXPECT_EQ(t, n, 3);

	EXPECT_EQ(t, dtb_header_totalsize(f), size);
	EXPECT_EQ(t, dtb_be32((const u8 *)"\x12\x34\x56\x78\x9a" + 1), 0x3456789a);
	EXPECT_EQ(t, dtb_read_cells("\0\0\0\1\0\0\0\2", 2), 0x100000002ull);
	EXPECT_EQ(t, dtb_read_cells("\0\0\0\1\0\0\0\2", 1), 1);
	for (int e = 0; e >= DTB_E_BADPATH - 1; e--)
		EXPECT_TRUE(t, dtb_strerror(e) && dtb_strerror(e)[0]);
	EXPECT_FALSE(t, ktest_streq(dtb_strerror(DTB_E_NOTFOUND), dtb_strerror(DTB_E_BADPATH)));
	free(f);
}

/* Two variants of the tiny tree that libfdt also reads: version 16 (no size_dt_struct, so the
 * walk is bounded by totalsize alone) and one with NOP tokens where a property and a node
 * were removed in place. */
static void dtb_tiny_variants(struct ktest *t)
{
	size_t size;
	char *f = make_tiny(&size), *g;
	int nodes;

	ASSERT_TRUE(t, f != NULL);
	g = malloc(size);
	ASSERT_TRUE(t, g != NULL);
	memcpy(g, f, size);
	fdt_set_version(g, 16);
	oracle_compare(t, g, size, "tiny v16", &nodes);
	EXPECT_EQ(t, nodes, 25);

	memcpy(g, f, size);
	EXPECT_EQ(t, fdt_nop_property(g, off(g, "/misc/nop-target"), "dropped"), 0);
	EXPECT_EQ(t, fdt_nop_node(g, off(g, "/misc/nop-target/gone")), 0);
	EXPECT_EQ(t, fdt_nop_node(g, off(g, "/misc/bad-cells")), 0);
	oracle_compare(t, g, size, "tiny with NOPs", &nodes);
	EXPECT_EQ(t, nodes, 22);
	free(g);
	free(f);
}

/* Every --dtb file given to the runner (QEMU's virt trees, the project's dts/). */
static void dtb_files_oracle(struct ktest *t)
{
	if (!host_nr_dtbs)
		KTEST_SKIP(t, "no --dtb files given");
	for (int i = 0; i < host_nr_dtbs; i++) {
		size_t size;
		void *blob = host_read_file(host_dtb_files[i], &size);
		int nodes;

		EXPECT_TRUE(t, blob != NULL);
		if (!blob)
			continue;
		oracle_compare(t, blob, size, host_dtb_files[i], &nodes);
		EXPECT_GT(t, nodes, 0);
		ktest_diag(t, "%s: %d nodes agree", host_dtb_files[i], nodes);
		free(blob);
	}
}

/* libfdt's reading of one idle state: 0, or -1 if it lacks what Linux requires. */
static int fdt_idle_state(const void *fdt, int st, u32 v[4])
{
	static const char *const names[4] = { "entry-latency-us", "exit-latency-us",
					      "min-residency-us", "arm,psci-suspend-param" };

	int len;
	const fdt32_t *w = fdt_getprop(fdt, st, "wakeup-latency-us", &len);

	if (fdt_node_check_compatible(fdt, st, "arm,idle-state"))
		return -1;
	for (int i = 0; i < 4; i++) {
		const fdt32_t *p = fdt_getprop(fdt, st, names[i], &len);

		if (i < 2 && (!p || len != 4) && w) { /* Linux: wakeup-latency-us instead */
			v[0] = 0;
			v[1] = fdt32_ld(w);
			i = 1;
			continue;
		}
		if (!p || len != 4)
			return -1;
		v[i] = fdt32_ld(p);
	}
	return 0;
}

/* One cpu: its cpu-idle-states read with libfdt, against topology_parse()'s
 * (state 0 WFI, then the list in order, disabled states skipped; one invalid
 * state and Linux's PSCI driver does not register: WFI only). */
static void cmp_cpu_idle(struct ktest *t, const void *fdt, int n, const struct cpu_topology *c)
{
	int len, k = 0;
	const fdt32_t *ph = fdt_getprop(fdt, n, "cpu-idle-states", &len);
	u32 v[TOPOLOGY_MAX_IDLE_STATES][4];
	int node[TOPOLOGY_MAX_IDLE_STATES];

	EXPECT_STREQ(t, c->idle[0].name, "WFI");
	if (!ph || fdt_getprop(fdt, n, "power-domains", NULL))
		return;
	for (int i = 0; i < len / 4; i++) {
		int st = fdt_node_offset_by_phandle(fdt, fdt32_ld(ph + i));
		const char *status = st >= 0 ? fdt_getprop(fdt, st, "status", NULL) : NULL;

		if (status && strcmp(status, "okay") && strcmp(status, "ok"))
			continue;
		if (st < 0 || k + 1 == TOPOLOGY_MAX_IDLE_STATES || fdt_idle_state(fdt, st, v[k])) {
			EXPECT_EQ(t, c->nr_idle_states, 1);
			return;
		}
		node[k++] = st;
	}
	ASSERT_EQ(t, c->nr_idle_states, k + 1);
	for (int i = 0; i < k; i++) {
		const struct topology_idle_state *s = &c->idle[i + 1];

		EXPECT_EQ(t, s->entry_latency_us, v[i][0]);
		EXPECT_EQ(t, s->exit_latency_us, v[i][1]);
		EXPECT_EQ(t, s->min_residency_us, v[i][2]);
		EXPECT_EQ(t, s->psci_param, v[i][3]);
		EXPECT_EQ(t, s->local_timer_stop,
			  fdt_getprop(fdt, node[i], "local-timer-stop", NULL) != NULL);
		EXPECT_EQ(t, s->level, (v[i][3] >> 24) & 3 ? 1 : 0);
	}
}

/* Each cpu's caches as libfdt reads the chain (Linux's init_of_cache_level() rules written
 * again): the cpu node's d-cache-size or cache-size, then each next-level-cache node. */
static void cmp_cpu_caches(struct ktest *t, const void *fdt, int n, const struct cpu_topology *c)
{
	const fdt32_t *p = fdt_getprop(fdt, n, "d-cache-size", NULL);
	int i = 0;

	if (!p)
		p = fdt_getprop(fdt, n, "cache-size", NULL);
	if (p) {
		ASSERT_GT(t, c->nr_caches, 0);
		EXPECT_EQ(t, c->cache[0].level, 1u);
		EXPECT_EQ(t, c->cache[0].size, fdt32_to_cpu(*p));
		EXPECT_EQ(t, c->cache[0].node, n);
		i = 1;
	}
	for (const fdt32_t *ph = fdt_getprop(fdt, n, "next-level-cache", NULL); ph;
	     ph = fdt_getprop(fdt, n, "next-level-cache", NULL)) {
		const fdt32_t *lvl, *sz;

		n = fdt_node_offset_by_phandle(fdt, fdt32_to_cpu(*ph));
		ASSERT_GE(t, n, 0);
		lvl = fdt_getprop(fdt, n, "cache-level", NULL);
		sz = fdt_getprop(fdt, n, "cache-size", NULL);
		ASSERT_LT(t, i, c->nr_caches);
		EXPECT_EQ(t, c->cache[i].node, n);
		EXPECT_EQ(t, c->cache[i].level, lvl ? fdt32_to_cpu(*lvl) : 0u);
		EXPECT_EQ(t, c->cache[i].size, sz ? fdt32_to_cpu(*sz) : 0u);
		EXPECT_EQ(t, c->cache[i].unified,
			  fdt_getprop(fdt, n, "cache-unified", NULL) != NULL ||
				  (sz && !fdt_getprop(fdt, n, "d-cache-size", NULL)));
		i++;
	}
	EXPECT_EQ(t, c->nr_caches, i);
}

/* The idle states (and caches) of each cpu of each --dtb file. */
static void dtb_files_idle_states(struct ktest *t)
{
	struct topology *topo = malloc(sizeof(*topo));

	for (int f = 0; topo && f < host_nr_dtbs; f++) {
		size_t size;
		void *fdt = host_read_file(host_dtb_files[f], &size);
		struct dtb dt;
		int cpu = 0;

		if (!fdt || dtb_init(&dt, fdt, size) || topology_parse(&dt, topo)) {
			free(fdt);
			continue;
		}
		for (int n = fdt_first_subnode(fdt, fdt_path_offset(fdt, "/cpus"));
		     n >= 0 && cpu < topo->nr_cpus; n = fdt_next_subnode(fdt, n)) {
			const char *type = fdt_getprop(fdt, n, "device_type", NULL);
			const char *status = fdt_getprop(fdt, n, "status", NULL);

			if (!type || strcmp(type, "cpu") ||
			    (status && strcmp(status, "okay") && strcmp(status, "ok")))
				continue;
			cmp_cpu_caches(t, fdt, n, &topo->cpu[cpu]);
			cmp_cpu_idle(t, fdt, n, &topo->cpu[cpu++]);
		}
		free(fdt);
	}
	free(topo);
}

KTEST_SUITE(dtb_oracle, KTEST_CASE(dtb_tiny_oracle), KTEST_CASE(dtb_tiny_values),
	    KTEST_CASE(dtb_tiny_variants), KTEST_CASE(dtb_files_oracle),
	    KTEST_CASE(dtb_files_idle_states));

/* ======================================================================================
 * Malformed input. Nothing here may crash or read outside the blob (ASan watches: each blob
 * sits in a buffer of exactly its size), no loop may run longer than the structure block
 * has tokens, and where the damage is known the error code is checked too.
 * ====================================================================================== */

static void put_be32(void *p, u32 v)
{
	fdt32_st(p, v);
}

/* A copy of a valid v17 blob laid out header, rsvmap, strings, struct - the structure block
 * last and cut to `cut` bytes - in a buffer of exactly totalsize bytes, so that reading
 * anything past the cut is a heap overflow. */
static u8 *relayout(const void *fdt, u32 cut, size_t *size)
{
	u32 rsv = 16 * ((u32)fdt_num_mem_rsv(fdt) + 1), strsz = fdt_size_dt_strings(fdt);
	u32 off_rsv = 0x28, off_str = off_rsv + rsv, off_st = ALIGN_UP(off_str + strsz, 4u);
	u8 *b = malloc(off_st + cut);

	if (!b)
		return NULL;
	memcpy(b, fdt, 0x28);
	memcpy(b + off_rsv, (const u8 *)fdt + fdt_off_mem_rsvmap(fdt), rsv);
	memcpy(b + off_str, (const u8 *)fdt + fdt_off_dt_strings(fdt), strsz);
	memset(b + off_str + strsz, 0, off_st - off_str - strsz);
	memcpy(b + off_st, (const u8 *)fdt + fdt_off_dt_struct(fdt), cut);
	put_be32(b + 0x04, off_st + cut);
	put_be32(b + 0x08, off_st);
	put_be32(b + 0x0c, off_str);
	put_be32(b + 0x10, off_rsv);
	put_be32(b + 0x14, 17);
	put_be32(b + 0x24, cut);
	*size = off_st + cut;
	return b;
}

/* Is [p, p + len) inside the blob? Everything the reader hands out must be. */
static bool in_blob(const struct dtb *dt, const void *p, long len)
{
	uintptr_t b = (uintptr_t)dt->blob, q = (uintptr_t)p;

	return len >= 0 && q >= b && q - b <= dt->totalsize && q - b + (u64)len <= dt->totalsize;
}

static bool good_node(const struct dtb *dt, int node)
{
	return node >= 0 && !(node & 3) && (u32)node < dt->size_struct;
}

/* Fail and leave (returning the optional value) once a loop outlives the token count. */
#define CHECK_STEPS(t, steps, limit, ...)                                                          \
	do {                                                                                       \
		if (++(steps) > (limit)) {                                                         \
			ktest_fail(t, __FILE__, __LINE__, "loop without progress");                \
			return __VA_ARGS__;                                                        \
		}                                                                                  \
	} while (0)

/* Every per-node call. `heavy` adds the ones that walk the tree again (parent, cells, reg),
 * done on a subset of nodes to keep thousands of blobs fast. */
static void fuzz_node(struct ktest *t, const struct dtb *dt, int node, bool heavy, int limit)
{
	int len, plen, steps = 0, child, parent, prop;
	const char *name = dtb_node_name(dt, node, &len), *pname;
	const void *val;
	u64 a, s;
	u32 v;

	EXPECT_TRUE(t, !name || in_blob(dt, name, len + 1));
	for (prop = dtb_first_prop(dt, node); prop >= 0; prop = dtb_next_prop(dt, prop)) {
		CHECK_STEPS(t, steps, limit);
		if (!(val = dtb_prop_at(dt, prop, &pname, &plen))) {
			EXPECT_LT(t, plen, 0);
			break;
		}
		EXPECT_TRUE(t, in_blob(dt, val, plen) && in_blob(dt, pname, strlen(pname) + 1));
		val = dtb_prop(dt, node, pname, &plen);
		EXPECT_TRUE(t, val && in_blob(dt, val, plen));
		dtb_prop_u32(dt, node, pname, &v);
		dtb_prop_u64(dt, node, pname, &a);
		dtb_stringlist_index(dt, node, pname, "okay");
		if ((val = dtb_prop_str(dt, node, pname)))
			EXPECT_TRUE(t, in_blob(dt, val, strlen(val) + 1));
	}
	steps = 0;
	for (child = dtb_first_child(dt, node); child >= 0; child = dtb_next_sibling(dt, child)) {
		CHECK_STEPS(t, steps, limit);
		EXPECT_TRUE(t, good_node(dt, child) && child > node);
	}
	dtb_is_compatible(dt, node, "arm,pl011");
	dtb_node_enabled(dt, node);
	dtb_node_phandle(dt, node);
	if (!heavy)
		return;
	parent = dtb_parent(dt, node);
	EXPECT_TRUE(t, parent < 0 || (good_node(dt, parent) && parent < node));
	if (parent >= 0 && name)
		EXPECT_TRUE(t, dtb_subnode(dt, parent, name) < 0 ||
				       good_node(dt, dtb_subnode(dt, parent, name)));
	dtb_addr_cells(dt, node);
	dtb_size_cells(dt, node);
	for (int i = 0; i < 64 && dtb_reg(dt, node, i, &a, &s) == 0; i++)
		;
}

/* The whole API over a possibly corrupt blob. Returns how the depth-less walk to FDT_END
 * ended: NOTFOUND for a sound structure block, else the error met on the way. */
static int fuzz_walk(struct ktest *t, const struct dtb *dt)
{
	static const char *const paths[] = {
		"/",	   "serial0",  "serial0:1",   "soc/intc@8000000",	  "cpu1",
		"broken",  "missing",  "/cpus/cpu@1", "/soc/a/b/c/d/e",		  "/memory",
		"/chosen", "/aliases", "/psci",	      "/intc@8000000/its@8080000"
	};
	static const char *const compats[] = { "arm,pl011", "arm,cortex-a53", "test,gone",
					       "virtio,mmio", "arm,psci-1.0" };
	int limit = (int)(dt->size_struct / 4) + 2, steps = 0, depth = 0, node, idx = 0, end;
	u64 a, s;

	for (node = dtb_next_node(dt, -1, &depth); node >= 0;
	     node = dtb_next_node(dt, node, &depth)) {
		CHECK_STEPS(t, steps, limit, DTB_E_BADSTRUCT);
		EXPECT_TRUE(t, good_node(dt, node));
		EXPECT_GE(t, depth, 0);
		fuzz_node(t, dt, node, idx < 12 || idx % 8 == 0, limit);
		idx++;
	}
	steps = 0;
	for (node = dtb_next_node(dt, -1, NULL); node >= 0; node = dtb_next_node(dt, node, NULL))
		CHECK_STEPS(t, steps, limit, DTB_E_BADSTRUCT);
	end = node;
	for (size_t i = 0; i < ARRAY_SIZE(paths); i++) {
		node = dtb_path(dt, paths[i]);
		EXPECT_TRUE(t, node < 0 || good_node(dt, node));
	}
	for (size_t i = 0; i < ARRAY_SIZE(compats); i++) {
		steps = 0;
		for (node = dtb_find_compatible(dt, -1, compats[i]); node >= 0;
		     node = dtb_find_compatible(dt, node, compats[i]))
			CHECK_STEPS(t, steps, limit, DTB_E_BADSTRUCT);
	}
	for (u32 ph = 0; ph < 6; ph++) {
		node = dtb_node_by_phandle(dt, ph ? ph : 0x8001);
		EXPECT_TRUE(t, node < 0 || dtb_node_phandle(dt, node) == (ph ? ph : 0x8001));
	}
	steps = 0;
	for (int i = 0; dtb_mem_rsv(dt, i, &a, &s) == 0; i++)
		CHECK_STEPS(t, steps, (int)(dt->totalsize / 16), end);
	return end;
}

/* Header damage gives the documented error, at every buffer length up to the header's end. */
static void dtb_bad_headers(struct ktest *t)
{
	size_t size;
	u8 *f = make_tiny(&size), *g;
	struct dtb dt;

	ASSERT_TRUE(t, f != NULL);
	g = malloc(size);
	ASSERT_TRUE(t, g != NULL);
	/* Short buffers, each exactly its length so that a longer read is caught. */
	for (size_t len = 0; len < 0x40; len++) {
		u8 *h = malloc(len ? len : 1);

		ASSERT_TRUE(t, h != NULL);
		memcpy(h, f, len);
		EXPECT_EQ(t, dtb_init(&dt, h, len), DTB_E_TRUNCATED);
		free(h);
	}
	for (size_t len = 0x40; len < size; len++)
		EXPECT_EQ(t, dtb_init(&dt, f, len), DTB_E_TRUNCATED);
	EXPECT_EQ(t, dtb_init(&dt, f, size), 0);
	EXPECT_EQ(t, dtb_init(&dt, NULL, size), DTB_E_BADMAGIC);
	EXPECT_EQ(t, dtb_header_totalsize(NULL), 0);

	/* One field at a time: offset in the header, new value, expected error. */
	static const struct {
		u32 field, value;
		int err;
	} cases[] = {
		{ 0x00, 0xd00dfeee, DTB_E_BADMAGIC },
		{ 0x00, 0xedfe0dd0, DTB_E_BADMAGIC }, /* little-endian writer */
		{ 0x14, 15, DTB_E_BADVERSION },
		{ 0x14, 1, DTB_E_BADVERSION },
		{ 0x18, 18, DTB_E_BADVERSION },
		{ 0x04, 0x27, DTB_E_TRUNCATED }, /* totalsize < header */
		{ 0x04, 0xffffffff, DTB_E_TRUNCATED },
		{ 0x08, 0x10, DTB_E_BADSTRUCT }, /* struct overlaps the header */
		{ 0x08, 0xffffff00, DTB_E_TRUNCATED },
		{ 0x24, 0xffffffff, DTB_E_TRUNCATED }, /* size_dt_struct wraps */
		{ 0x0c, 0xfffffffc, DTB_E_TRUNCATED },
		{ 0x20, 0x80000000, DTB_E_TRUNCATED },
		{ 0x10, 0, DTB_E_BADSTRUCT }, /* rsvmap overlaps the header */
		{ 0x10, 0xfffffff8, DTB_E_TRUNCATED },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		memcpy(g, f, size);
		put_be32(g + cases[i].field, cases[i].value);
		if (dtb_init(&dt, g, size) != cases[i].err)
			ktest_fail(t, __FILE__, __LINE__, "field %#x = %#x: got %d, want %d",
				   cases[i].field, cases[i].value, dtb_init(&dt, g, size),
				   cases[i].err);
	}
	/* Fields whose damage depends on the layout. */
	memcpy(g, f, size);
	put_be32(g + 0x08, fdt_off_dt_struct(f) + 2);
	put_be32(g + 0x24, fdt_size_dt_struct(f) - 2);
	EXPECT_EQ(t, dtb_init(&dt, g, size), DTB_E_BADSTRUCT); /* misaligned struct block */
	memcpy(g, f, size);
	put_be32(g + 0x24, fdt_size_dt_struct(f) + (u32)size);
	EXPECT_EQ(t, dtb_init(&dt, g, size), DTB_E_TRUNCATED);
	memcpy(g, f, size);
	put_be32(g + 0x10, (u32)size - 8); /* no room for the terminator */
	EXPECT_EQ(t, dtb_init(&dt, g, size), DTB_E_TRUNCATED);
	memcpy(g, f, size);
	put_be32(g + 0x14, 16); /* v16 ignores size_dt_struct, so a bad one is harmless */
	put_be32(g + 0x24, 0xffffffff);
	EXPECT_EQ(t, dtb_init(&dt, g, size), 0);
	/* A buffer larger than totalsize is fine: the bootloader's bound is generous. */
	EXPECT_EQ(t, dtb_init(&dt, f, size + 1000), 0);
	free(g);
	free(f);
}

/* Cut the structure block at every length: init accepts the header, every call stays in
 * bounds, and the walk to FDT_END reports TRUNCATED (NOTFOUND only for the whole block). */
static void truncate_all(struct ktest *t, const void *fdt, const char *what, u32 stride)
{
	u32 full = fdt_size_dt_struct(fdt);
	struct dtb dt;
	int before = t->failed;

	for (u32 cut = 0; cut <= full;
	     cut = cut + stride > full && cut < full ? full : cut + stride) {
		size_t size;
		u8 *b = relayout(fdt, cut, &size);

		ASSERT_TRUE(t, b != NULL);
		EXPECT_EQ(t, dtb_init(&dt, b, size), 0);
		EXPECT_EQ(t, fuzz_walk(t, &dt), cut == full ? DTB_E_NOTFOUND : DTB_E_TRUNCATED);
		free(b);
		if (t->failed - before > MAX_FAILS) {
			ktest_diag(t, "%s: stopped at cut %u of %u", what, cut, full);
			return;
		}
	}
}

static void dtb_truncations(struct ktest *t)
{
	size_t size;
	void *f = make_tiny(&size);

	ASSERT_TRUE(t, f != NULL);
	truncate_all(t, f, "tiny", 1);
	free(f);
	/* Big trees: a stride of 11 (odd) still cuts at every alignment and in every kind of
	 * token, at a fraction of the cost. */
	for (int i = 0; i < host_nr_dtbs; i++) {
		if (!(f = host_read_file(host_dtb_files[i], &size)))
			continue;
		if (fdt_check_header(f) == 0 && fdt_version(f) >= 17)
			truncate_all(t, f, host_dtb_files[i], 11);
		free(f);
	}
}

/* xorshift64: deterministic, so a failure reproduces run after run. */
static u64 rnd(u64 *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

/* Damage 1-4 bytes, mostly in the structure block and mostly in ways that matter there: a
 * token, a length, a name offset, a NUL. Returns how many corrupted blobs passed dtb_init. */
static int corrupt_many(struct ktest *t, const void *fdt, int iterations, u64 seed)
{
	static const u8 interesting[] = { 0, 1, 2, 3, 4, 9, 0x7f, 0x80, 0xff, '@', '/', ':' };
	size_t size;
	u8 *master = relayout(fdt, fdt_size_dt_struct(fdt), &size), *b;
	u32 off_st = fdt_off_dt_struct(master), off_str = fdt_off_dt_strings(master);
	int accepted = 0, before = t->failed;
	struct dtb dt;

	if (!master)
		return 0;
	for (int it = 0; it < iterations && t->failed - before <= MAX_FAILS; it++) {
		int n = 1 + (int)(rnd(&seed) % 4);

		if (!(b = malloc(size)))
			break;
		memcpy(b, master, size);
		while (n--) {
			u64 r = rnd(&seed);
			u32 where = (u32)(r >> 8) % 20;
			size_t pos;

			if (where < 15) /* structure block */
				pos = off_st + (r >> 16) % (size - off_st);
			else if (where < 18) /* strings */
				pos = off_str + (r >> 16) % (off_st - off_str);
			else /* header and reservation map */
				pos = (r >> 16) % off_str;
			if ((r & 3) == 0)
				b[pos] ^= (u8)(1u << ((r >> 2) % 8));
			else if ((r & 3) == 1)
				b[pos] = (u8)(r >> 40);
			else
				b[pos] = interesting[(r >> 40) % sizeof(interesting)];
		}
		if (dtb_init(&dt, b, size) == 0) {
			accepted++;
			fuzz_walk(t, &dt);
		}
		free(b);
	}
	free(master);
	return accepted;
}

static void dtb_corruptions(struct ktest *t)
{
	size_t size;
	void *f = make_tiny(&size);
	int accepted;

	ASSERT_TRUE(t, f != NULL);
	accepted = corrupt_many(t, f, 10000, 0x1234567887654321ull);
	/* Most damage is in the structure block, which dtb_init does not read. */
	EXPECT_GT(t, accepted, 5000);
	ktest_diag(t, "tiny: %d of 10000 corrupted blobs passed dtb_init and were walked",
		   accepted);
	free(f);
	for (int i = 0; i < host_nr_dtbs; i++) {
		if (!(f = host_read_file(host_dtb_files[i], &size)))
			continue;
		if (fdt_check_header(f) == 0 && fdt_version(f) >= 17) {
			accepted = corrupt_many(t, f, 500, 0x9e3779b97f4a7c15ull + (u64)i);
			ktest_diag(t, "%s: %d of 500 corrupted blobs walked", host_dtb_files[i],
				   accepted);
		}
		free(f);
	}
}

/* Offsets that are not nodes (or not properties) are refused, not followed. */
static void dtb_bad_offsets(struct ktest *t)
{
	size_t size;
	void *f = make_tiny(&size);
	struct dtb dt;
	int len, node, prop, fake;
	const char *name;
	const void *reg;

	ASSERT_TRUE(t, f != NULL);
	ASSERT_EQ(t, dtb_init(&dt, f, size), 0);
	node = off(f, "/cpus/cpu@1");
	prop = dtb_first_prop(&dt, node);
	ASSERT_GT(t, prop, node);
	/* cpu@1's reg = <1> reads as a BEGIN_NODE token: only the parent walk can tell. */
	reg = fdt_getprop(f, node, "reg", &len);
	fake = (int)((const u8 *)reg - (const u8 *)f - fdt_off_dt_struct(f));

	const int bad[] = { -100,
			    -4,
			    -1,
			    1,
			    2,
			    3,
			    (int)dt.size_struct,
			    (int)dt.size_struct + 4,
			    0x7fffffff,
			    0x7ffffffc,
			    -0x7fffffff - 1,
			    prop,
			    node + 4 };
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		int o = bad[i];
		u64 a;
		u32 v;

		EXPECT_TRUE(t, dtb_node_name(&dt, o, &len) == NULL);
		EXPECT_LT(t, len, 0);
		EXPECT_LT(t, dtb_first_child(&dt, o), 0);
		EXPECT_LT(t, dtb_next_sibling(&dt, o), 0);
		EXPECT_LT(t, dtb_parent(&dt, o), 0);
		EXPECT_LT(t, dtb_subnode(&dt, o, "cpu"), 0);
		EXPECT_LT(t, dtb_first_prop(&dt, o), 0);
		EXPECT_TRUE(t, dtb_prop(&dt, o, "reg", &len) == NULL);
		EXPECT_LT(t, len, 0);
		EXPECT_LT(t, dtb_prop_u32(&dt, o, "reg", &v), 0);
		EXPECT_LT(t, dtb_prop_u64(&dt, o, "reg", &a), 0);
		EXPECT_TRUE(t, dtb_prop_str(&dt, o, "compatible") == NULL);
		EXPECT_FALSE(t, dtb_is_compatible(&dt, o, "arm,cortex-a53"));
		EXPECT_FALSE(t, dtb_node_enabled(&dt, o));
		EXPECT_EQ(t, dtb_node_phandle(&dt, o), 0);
		EXPECT_LT(t, dtb_addr_cells(&dt, o), 0);
		EXPECT_LT(t, dtb_size_cells(&dt, o), 0);
		EXPECT_LT(t, dtb_reg(&dt, o, 0, &a, &a), 0);
		if (o != prop) {
			EXPECT_TRUE(t, dtb_prop_at(&dt, o, &name, &len) == NULL);
			EXPECT_LT(t, dtb_next_prop(&dt, o), 0);
		}
		if (o >= 0) /* negative means "from the start", as in libfdt */
			EXPECT_LT(t, dtb_next_node(&dt, o, NULL), 0);
	}
	EXPECT_TRUE(t, dtb_prop_at(&dt, node, &name, &len) == NULL);
	EXPECT_EQ(t, dtb_next_prop(&dt, node), DTB_E_BADSTRUCT);
	EXPECT_EQ(t, dtb_parent(&dt, fake), DTB_E_BADSTRUCT);
	free(f);
}

/* A blob from raw structure words (host order, stored big-endian) and a strings block. */
static u8 *raw_blob(const u32 *words, size_t nwords, const char *strings, u32 slen, size_t *size)
{
	u32 off_st = 0x28 + 16, off_str = off_st + 4 * (u32)nwords;
	u8 *b = calloc(1, off_str + slen);

	if (!b)
		return NULL;
	put_be32(b + 0x00, FDT_MAGIC);
	put_be32(b + 0x04, off_str + slen);
	put_be32(b + 0x08, off_st);
	put_be32(b + 0x0c, off_str);
	put_be32(b + 0x10, 0x28);
	put_be32(b + 0x14, 17);
	put_be32(b + 0x18, 16);
	put_be32(b + 0x20, slen);
	put_be32(b + 0x24, 4 * (u32)nwords);
	for (size_t i = 0; i < nwords; i++)
		put_be32(b + off_st + 4 * i, words[i]);
	memcpy(b + off_str, strings, slen);
	*size = off_str + slen;
	return b;
}

#define BEGIN_T	   1
#define END_NODE_T 2
#define PROP_T	   3
#define NOP_T	   4
#define END_T	   9
#define NAME_A	   0x61000000 /* "a" and its NUL, one word */
#define NAME_AB	   0x61620000 /* "ab" */

/* Structures that are wrong in one place each: which calls notice, and with which error. */
static void dtb_bad_structure(struct ktest *t)
{
	static const char strs[] = "reg\0status";
	struct dtb dt;
	size_t size;
	u8 *b;
	int len;

#define RAW(...)                                                                                   \
	do {                                                                                       \
		static const u32 w_[] = { __VA_ARGS__ };                                           \
		free(b);                                                                           \
		b = raw_blob(w_, ARRAY_SIZE(w_), strs, sizeof(strs), &size);                       \
		ASSERT_TRUE(t, b != NULL);                                                         \
		ASSERT_EQ(t, dtb_init(&dt, b, size), 0);                                           \
	} while (0)
	b = NULL;

	/* The sane minimum, for reference. */
	RAW(BEGIN_T, 0, BEGIN_T, NAME_A, END_NODE_T, END_NODE_T, END_T);
	EXPECT_EQ(t, dtb_first_child(&dt, 0), 8);
	EXPECT_EQ(t, dtb_next_sibling(&dt, 8), DTB_E_NOTFOUND);
	EXPECT_EQ(t, fuzz_walk(t, &dt), DTB_E_NOTFOUND);
	/* The root never closes. */
	RAW(BEGIN_T, 0, BEGIN_T, NAME_A, END_NODE_T, END_T);
	EXPECT_EQ(t, dtb_next_sibling(&dt, 0), DTB_E_BADSTRUCT);
	EXPECT_EQ(t, dtb_parent(&dt, 8), 0);
	EXPECT_EQ(t, dtb_path(&dt, "/a"), 8);
	fuzz_walk(t, &dt);
	/* One END_NODE too many: the parent walk sees a node outside the root. */
	RAW(BEGIN_T, 0, END_NODE_T, END_NODE_T, BEGIN_T, NAME_A, END_NODE_T, END_T);
	EXPECT_EQ(t, dtb_parent(&dt, 16), DTB_E_BADSTRUCT);
	EXPECT_EQ(t, dtb_next_sibling(&dt, 0), DTB_E_NOTFOUND);
	fuzz_walk(t, &dt);
	/* A second top-level node after the root: not in the tree. */
	RAW(BEGIN_T, 0, END_NODE_T, BEGIN_T, NAME_A, END_NODE_T, END_T);
	EXPECT_EQ(t, dtb_parent(&dt, 12), DTB_E_BADSTRUCT);
	EXPECT_EQ(t, dtb_next_sibling(&dt, 0), 12);
	fuzz_walk(t, &dt);
	/* A property after a subnode. */
	RAW(BEGIN_T, 0, BEGIN_T, NAME_A, END_NODE_T, PROP_T, 0, 0, END_NODE_T, END_T);
	EXPECT_EQ(t, dtb_next_sibling(&dt, 8), DTB_E_BADSTRUCT);
	fuzz_walk(t, &dt);
	/* An unknown token. */
	RAW(BEGIN_T, 0, 7, END_NODE_T, END_T);
	EXPECT_EQ(t, dtb_first_prop(&dt, 0), DTB_E_BADSTRUCT);
	EXPECT_EQ(t, dtb_next_node(&dt, 0, NULL), DTB_E_BADSTRUCT);
	EXPECT_EQ(t, fuzz_walk(t, &dt), DTB_E_BADSTRUCT);
	/* NOPs before the root, and a root with no END at all. */
	RAW(NOP_T, NOP_T, BEGIN_T, 0, END_NODE_T);
	EXPECT_EQ(t, dtb_root(&dt), 8);
	EXPECT_EQ(t, dtb_path(&dt, "/"), 8);
	EXPECT_EQ(t, fuzz_walk(t, &dt), DTB_E_TRUNCATED);
	/* Only NOPs; then an empty block. */
	RAW(NOP_T, NOP_T, END_T);
	EXPECT_EQ(t, dtb_root(&dt), DTB_E_BADSTRUCT);
	EXPECT_EQ(t, dtb_path(&dt, "/"), DTB_E_BADSTRUCT);
	fuzz_walk(t, &dt);
	free(b);
	b = raw_blob(NULL, 0, strs, sizeof(strs), &size);
	ASSERT_TRUE(t, b != NULL);
	ASSERT_EQ(t, dtb_init(&dt, b, size), 0);
	EXPECT_EQ(t, dtb_root(&dt), DTB_E_TRUNCATED);
	EXPECT_EQ(t, fuzz_walk(t, &dt), DTB_E_TRUNCATED);
	/* A node name running to the end of the block. */
	RAW(BEGIN_T, 0, BEGIN_T, 0x61616161);
	EXPECT_EQ(t, dtb_node_name(&dt, 8, &len), NULL);
	EXPECT_EQ(t, len, DTB_E_TRUNCATED);
	fuzz_walk(t, &dt);
	/* Property lengths past the block, including one that would wrap a 32-bit sum. */
	RAW(BEGIN_T, 0, PROP_T, 16, 0, 1, END_NODE_T, END_T);
	EXPECT_EQ(t, dtb_first_prop(&dt, 0), DTB_E_TRUNCATED);
	RAW(BEGIN_T, 0, PROP_T, 0xfffffffc, 0, 1, END_NODE_T, END_T);
	EXPECT_TRUE(t, dtb_prop(&dt, 0, "reg", &len) == NULL);
	EXPECT_EQ(t, len, DTB_E_TRUNCATED);
	fuzz_walk(t, &dt);
	/* A name offset just past the strings block hides the good property after it. */
	RAW(BEGIN_T, 0, PROP_T, 4, sizeof(strs), 1, PROP_T, 4, 0, 5, END_NODE_T, END_T);
	EXPECT_TRUE(t, dtb_prop(&dt, 0, "reg", &len) == NULL);
	EXPECT_EQ(t, len, DTB_E_BADSTRUCT);
	EXPECT_TRUE(t, dtb_prop_at(&dt, 8, NULL, &len) == NULL);
	EXPECT_EQ(t, len, DTB_E_BADSTRUCT);
	EXPECT_TRUE(t, dtb_prop_at(&dt, 24, NULL, &len) != NULL);
	EXPECT_EQ(t, len, 4);
	fuzz_walk(t, &dt);
	/* status without its NUL is not "ok"; "ok" with it is. */
	RAW(BEGIN_T, 0, PROP_T, 2, 4, 0x6f6b0000, BEGIN_T, NAME_A, PROP_T, 3, 4, 0x6f6b0000,
	    END_NODE_T, END_NODE_T, END_T);
	EXPECT_FALSE(t, dtb_node_enabled(&dt, 0));
	EXPECT_TRUE(t, dtb_node_enabled(&dt, 24));
	EXPECT_TRUE(t, dtb_prop_str(&dt, 0, "status") == NULL);
	EXPECT_EQ(t, dtb_stringlist_index(&dt, 0, "status", "ok"), DTB_E_BADVALUE);
	/* Sibling "ab" must not match a lookup of "a", nor "a" one of "ab". */
	RAW(BEGIN_T, 0, BEGIN_T, NAME_AB, END_NODE_T, BEGIN_T, NAME_A, END_NODE_T, END_NODE_T,
	    END_T);
	EXPECT_EQ(t, dtb_subnode(&dt, 0, "a"), 20);
	EXPECT_EQ(t, dtb_subnode(&dt, 0, "ab"), 8);
	EXPECT_EQ(t, dtb_subnode(&dt, 0, "abc"), DTB_E_NOTFOUND);
	EXPECT_EQ(t, dtb_subnode(&dt, 0, ""), DTB_E_NOTFOUND);
	free(b);
#undef RAW
}

/* 70 nested nodes, past the 64 the parent walk can hold: refused there, fine elsewhere. */
static void dtb_too_deep(struct ktest *t)
{
	struct sw w = { calloc(1, 4096), 0 };
	int node, depth, n = 0, deepest = -1, at64 = -1, parent64 = -1;
	struct dtb dt;
	char path[200] = "";

	ASSERT_TRUE(t, w.buf != NULL);
	sw(&w, fdt_create(w.buf, 4096));
	sw(&w, fdt_finish_reservemap(w.buf));
	BEGIN(&w, "");
	for (int i = 0; i < 70; i++)
		BEGIN(&w, "n");
	for (int i = 0; i < 71; i++)
		END(&w);
	sw(&w, fdt_finish(w.buf));
	ASSERT_EQ(t, w.err, 0);
	ASSERT_EQ(t, dtb_init(&dt, w.buf, 4096), 0);
	for (node = dtb_next_node(&dt, -1, &depth); node >= 0;
	     node = dtb_next_node(&dt, node, &depth), n++) {
		EXPECT_EQ(t, depth, n);
		if (depth == 63)
			parent64 = node;
		if (depth == 64)
			at64 = node;
		deepest = node;
	}
	EXPECT_EQ(t, n, 71);
	EXPECT_EQ(t, dtb_parent(&dt, at64), parent64);
	EXPECT_EQ(t, dtb_parent(&dt, at64), fdt_parent_offset(w.buf, at64));
	EXPECT_EQ(t, dtb_parent(&dt, deepest), DTB_E_BADSTRUCT);
	EXPECT_EQ(t, dtb_next_sibling(&dt, 0), DTB_E_BADSTRUCT);
	for (int i = 0; i < 70; i++)
		strcat(path, "/n");
	EXPECT_EQ(t, dtb_path(&dt, path), deepest);
	fuzz_walk(t, &dt);
	free(w.buf);
}

KTEST_SUITE(dtb_malformed, KTEST_CASE(dtb_bad_headers), KTEST_CASE(dtb_truncations),
	    KTEST_CASE(dtb_corruptions), KTEST_CASE(dtb_bad_offsets), KTEST_CASE(dtb_bad_structure),
	    KTEST_CASE(dtb_too_deep));
