/* dtb.c - read-only flattened device tree reader: header checks, the structure walk, properties,
 * phandles, aliases and reg decoding (API and conventions in include/dtb.h).
 * Not: writing or patching a tree, "ranges" translation, or knowing what any node means (each
 * driver reads its own nodes). Pure: no globals, no allocation, no locks. It runs before the MMU
 * is on, so multi-byte fields are assembled from byte loads and never read through a u32 *. */
#include "dtb.h"

/* Structure block tokens (Devicetree Specification v0.4, 5.4.1). */
#define FDT_BEGIN_NODE 1
#define FDT_END_NODE   2
#define FDT_PROP       3
#define FDT_NOP	       4
#define FDT_END	       9

/* Header sizes: version 16 ends after size_dt_strings, 17 adds size_dt_struct. */
#define HDR_V16_SIZE   0x24
#define HDR_V17_SIZE   0x28
#define RSV_ENTRY_SIZE 16

/* Nesting bound of dtb_parent()'s stack; real trees are under 10 deep. The spec sets no limit,
 * so a deeper tree is treated as malformed rather than risking the (kernel) stack. */
#define MAX_DEPTH 64

/* ---- tiny freestanding helpers (no libc here) ------------------------------------------ */

u32 dtb_be32(const void *p)
{
	const u8 *b = p;

	return (u32)b[0] << 24 | (u32)b[1] << 16 | (u32)b[2] << 8 | (u32)b[3];
}

/* Cells are big-endian 32-bit words, most significant first; more than two cells keep the low
 * 64 bits, which callers avoid by checking the cell count first. */
u64 dtb_read_cells(const void *p, int cells)
{
	const u8 *b = p;
	u64 v = 0;

	for (int i = 0; i < cells; i++)
		v = v << 32 | dtb_be32(b + 4 * i);
	return v;
}

static size_t str_len(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

static bool mem_eq(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

static const char *mem_chr(const char *s, char c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] == c)
			return s + i;
	return NULL;
}

/* ---- header ------------------------------------------------------------------------------ */

const char *dtb_strerror(int err)
{
	switch (err) {
	case 0:
		return "ok";
	case DTB_E_NOTFOUND:
		return "not found";
	case DTB_E_BADMAGIC:
		return "bad magic (not a DTB)";
	case DTB_E_BADVERSION:
		return "unsupported DTB version";
	case DTB_E_TRUNCATED:
		return "truncated DTB";
	case DTB_E_BADSTRUCT:
		return "malformed structure block";
	case DTB_E_BADVALUE:
		return "property has an unexpected length or value";
	case DTB_E_BADPATH:
		return "bad path";
	default:
		return "unknown DTB error";
	}
}

u32 dtb_header_totalsize(const void *blob)
{
	const u8 *b = blob;

	if (!b || dtb_be32(b) != DTB_MAGIC)
		return 0;
	return dtb_be32(b + 4);
}

/* A block [off, off + size) must start after the header and end inside totalsize. Computed
 * in 64 bits so that a huge offset or size cannot wrap around. */
static int check_block(u32 off, u32 size, u32 hdrsize, u32 totalsize)
{
	if (off < hdrsize)
		return DTB_E_BADSTRUCT; /* overlaps the header: a layout error */
	if ((u64)off + size > totalsize)
		return DTB_E_TRUNCATED;
	return 0;
}

/* Validate the header only, the way libfdt's fdt_check_header() does. The structure block is
 * checked lazily by every walk, so a damaged node deep in the tree still leaves the rest
 * readable (and the kernel can report which lookup failed). */
int dtb_init(struct dtb *dt, const void *blob, size_t bufsize)
{
	const u8 *b = blob;
	u32 version, hdrsize, totalsize, off_struct, size_struct, off_strings, size_strings;
	u32 off_rsvmap;
	int err;

	if (!b)
		return DTB_E_BADMAGIC;
	if (bufsize < 4)
		return DTB_E_TRUNCATED;
	if (dtb_be32(b) != DTB_MAGIC)
		return DTB_E_BADMAGIC;
	if (bufsize < HDR_V16_SIZE)
		return DTB_E_TRUNCATED;
	/* Version 16 is the oldest with inline node names and no 8-byte property alignment;
	 * last_comp_version says which older reader the writer still supports. */
	version = dtb_be32(b + 0x14);
	if (version < 16 || dtb_be32(b + 0x18) > 17)
		return DTB_E_BADVERSION;
	hdrsize = version >= 17 ? HDR_V17_SIZE : HDR_V16_SIZE;
	totalsize = dtb_be32(b + 4);
	/* Offsets are ints in the API, so the blob must fit in INT_MAX bytes. */
	if (bufsize < hdrsize || totalsize < hdrsize || totalsize > bufsize ||
	    totalsize > 0x7fffffffu)
		return DTB_E_TRUNCATED;

	off_struct = dtb_be32(b + 0x08);
	off_strings = dtb_be32(b + 0x0c);
	off_rsvmap = dtb_be32(b + 0x10);
	size_strings = dtb_be32(b + 0x20);
	/* Version 16 has no size_dt_struct: the block may run to the end of the blob. */
	if (version >= 17)
		size_struct = dtb_be32(b + 0x24);
	else
		size_struct = off_struct <= totalsize ? totalsize - off_struct : 0;

	if ((err = check_block(off_struct, size_struct, hdrsize, totalsize)) ||
	    (err = check_block(off_strings, size_strings, hdrsize, totalsize)) ||
	    (err = check_block(off_rsvmap, RSV_ENTRY_SIZE, hdrsize, totalsize)))
		return err;
	/* Tokens are 32-bit aligned relative to the blob; node offsets assume it too. */
	if (off_struct & 3)
		return DTB_E_BADSTRUCT;

	dt->blob = b;
	dt->totalsize = totalsize;
	dt->off_struct = off_struct;
	dt->size_struct = size_struct;
	dt->off_strings = off_strings;
	dt->size_strings = size_strings;
	dt->off_rsvmap = off_rsvmap;
	dt->version = version;
	dt->boot_cpuid = dtb_be32(b + 0x1c);
	return 0;
}

/* ---- the token walk ----------------------------------------------------------------------- */

static const u8 *sblock(const struct dtb *dt)
{
	return dt->blob + dt->off_struct;
}

/* Decode the token at structure offset `off` and set *next to the offset of the one after it.
 * Returns the token (> 0) or DTB_E_*. Every byte it touches is checked against size_struct, so
 * no caller can be led outside the block; and *next > off always, so every loop built on it
 * ends within size_struct / 4 steps, whatever the blob says. */
static int next_tag(const struct dtb *dt, int off, int *next)
{
	const u8 *s = sblock(dt);
	u32 size = dt->size_struct, o, len;
	u32 tag;

	if (off < 0 || (off & 3))
		return DTB_E_BADSTRUCT;
	if (size < 4 || (u32)off > size - 4)
		return DTB_E_TRUNCATED;
	tag = dtb_be32(s + off);
	o = (u32)off + 4;
	switch (tag) {
	case FDT_BEGIN_NODE:
		/* The unit name is inline and NUL-terminated (v16+). */
		while (o < size && s[o])
			o++;
		if (o >= size)
			return DTB_E_TRUNCATED;
		o++;
		break;
	case FDT_PROP:
		/* u32 len, u32 nameoff, then len bytes of value. */
		if (size - o < 8)
			return DTB_E_TRUNCATED;
		len = dtb_be32(s + o);
		o += 8;
		if (len > size - o)
			return DTB_E_TRUNCATED;
		o += len;
		break;
	case FDT_END_NODE:
	case FDT_NOP:
	case FDT_END:
		break;
	default:
		return DTB_E_BADSTRUCT;
	}
	/* size < 2^31 (dtb_init), so the padding cannot overflow. */
	o = ALIGN_UP(o, 4u);
	if (o > size)
		return DTB_E_TRUNCATED;
	*next = (int)o;
	return (int)tag;
}

/* The first token at or after `off` that is not a NOP; *at gets its offset. */
static int tag_skip_nop(const struct dtb *dt, int off, int *at, int *next)
{
	int tag;

	while ((tag = next_tag(dt, off, next)) == FDT_NOP)
		off = *next;
	*at = off;
	return tag;
}

/* `node` must name a BEGIN_NODE token; returns the offset just after its name, or DTB_E_*.
 * As in libfdt, an offset is trusted to be a token boundary once its token checks out: an
 * offset into a property value that happens to look like a node is only wrong, never unsafe. */
static int node_body(const struct dtb *dt, int node)
{
	int next, tag = next_tag(dt, node, &next);

	if (tag < 0)
		return tag;
	return tag == FDT_BEGIN_NODE ? next : DTB_E_BADSTRUCT;
}

/* Offset just past the END_NODE that closes `node`, i.e. its whole subtree skipped. */
static int node_end(const struct dtb *dt, int node)
{
	int depth = 0, off = node, next, tag;

	if ((tag = node_body(dt, node)) < 0)
		return tag;
	do {
		tag = next_tag(dt, off, &next);
		if (tag < 0)
			return tag;
		if (tag == FDT_BEGIN_NODE) {
			if (++depth > MAX_DEPTH)
				return DTB_E_BADSTRUCT;
		} else if (tag == FDT_END_NODE) {
			depth--;
		} else if (tag == FDT_END) {
			return DTB_E_BADSTRUCT; /* the tree ends inside a node */
		}
		off = next;
	} while (depth > 0);
	return off;
}

int dtb_root(const struct dtb *dt)
{
	int at, next, tag = tag_skip_nop(dt, 0, &at, &next);

	if (tag < 0)
		return tag;
	return tag == FDT_BEGIN_NODE ? at : DTB_E_BADSTRUCT;
}

/* Properties come before subnodes (spec 5.4.2), so the first child is the first BEGIN_NODE
 * after the node's properties, and an END_NODE there means no children. */
int dtb_first_child(const struct dtb *dt, int node)
{
	int off = node_body(dt, node), next, tag;

	if (off < 0)
		return off;
	for (;;) {
		tag = next_tag(dt, off, &next);
		if (tag < 0)
			return tag;
		if (tag == FDT_BEGIN_NODE)
			return off;
		if (tag == FDT_END_NODE)
			return DTB_E_NOTFOUND;
		if (tag == FDT_END)
			return DTB_E_BADSTRUCT;
		off = next;
	}
}

int dtb_next_sibling(const struct dtb *dt, int node)
{
	int off = node_end(dt, node), at, next, tag;

	if (off < 0)
		return off;
	tag = tag_skip_nop(dt, off, &at, &next);
	if (tag < 0)
		return tag;
	if (tag == FDT_BEGIN_NODE)
		return at;
	/* END_NODE: the parent closes. END: `node` was the root. */
	if (tag == FDT_END_NODE || tag == FDT_END)
		return DTB_E_NOTFOUND;
	return DTB_E_BADSTRUCT; /* a property after a subnode */
}

/* The DTB has no parent links: walk from the root with a stack of open nodes until `node`
 * shows up. O(size of the tree), which is fine for boot-time lookups. */
int dtb_parent(const struct dtb *dt, int node)
{
	int stack[MAX_DEPTH];
	int depth = 0, next, tag, off;

	if ((tag = node_body(dt, node)) < 0)
		return tag;
	if ((off = dtb_root(dt)) < 0)
		return off;
	for (;;) {
		if (off > node)
			return DTB_E_BADSTRUCT; /* `node` is not on a token boundary */
		tag = next_tag(dt, off, &next);
		if (tag < 0)
			return tag;
		if (tag == FDT_BEGIN_NODE) {
			if (off == node)
				return depth ? stack[depth - 1] : DTB_E_NOTFOUND;
			if (depth == MAX_DEPTH)
				return DTB_E_BADSTRUCT;
			stack[depth++] = off;
		} else if (tag == FDT_END_NODE) {
			/* The root closed before `node` showed up: it is outside the tree. */
			if (--depth <= 0)
				return DTB_E_BADSTRUCT;
		} else if (tag == FDT_END) {
			return DTB_E_BADSTRUCT;
		}
		off = next;
	}
}

/* Depth-first, like libfdt's fdt_next_node(): *depth (if given) goes up by one into a child
 * and down by one per END_NODE, and the walk stops with NOTFOUND once it would go below the
 * caller's starting depth, so a caller can iterate exactly one subtree by starting at 0.
 * Starting from -1 returns the root with *depth = 0 (libfdt increments instead). */
int dtb_next_node(const struct dtb *dt, int node, int *depth)
{
	int d = depth ? *depth : 0;
	int off, next, tag;

	if (node < 0) {
		off = dtb_root(dt);
		if (off >= 0 && depth)
			*depth = 0;
		return off;
	}
	if ((off = node_body(dt, node)) < 0)
		return off;
	for (;;) {
		tag = next_tag(dt, off, &next);
		if (tag < 0)
			return tag;
		if (tag == FDT_BEGIN_NODE) {
			if (depth)
				*depth = d + 1;
			return off;
		}
		if (tag == FDT_END_NODE && --d < 0 && depth)
			return DTB_E_NOTFOUND;
		if (tag == FDT_END)
			return DTB_E_NOTFOUND;
		off = next;
	}
}

const char *dtb_node_name(const struct dtb *dt, int node, int *len)
{
	int body = node_body(dt, node);
	const char *name;

	if (body < 0) {
		if (len)
			*len = body;
		return NULL;
	}
	/* next_tag() found the NUL inside the block. */
	name = (const char *)sblock(dt) + node + 4;
	if (len)
		*len = (int)str_len(name);
	return name;
}

/* "cpu@100" matches only itself; "cpus" (no '@' asked for) also matches "cpus@0". */
static bool name_matches(const char *nodename, size_t nodelen, const char *name, size_t n)
{
	if (nodelen < n || !mem_eq(nodename, name, n))
		return false;
	return nodelen == n || (nodename[n] == '@' && !mem_chr(name, '@', n));
}

static int subnode_namelen(const struct dtb *dt, int parent, const char *name, size_t n)
{
	const char *nm;
	int child, len;

	for (child = dtb_first_child(dt, parent); child >= 0; child = dtb_next_sibling(dt, child)) {
		if (!(nm = dtb_node_name(dt, child, &len)))
			return len;
		if (name_matches(nm, (size_t)len, name, n))
			return child;
	}
	return child;
}

int dtb_subnode(const struct dtb *dt, int parent, const char *name)
{
	return subnode_namelen(dt, parent, name, str_len(name));
}

/* ---- properties ---------------------------------------------------------------------------- */

/* The property (if any) at or after `off`, skipping NOPs; stops at the node's first child or
 * its END_NODE, which is where a node's properties end. */
static int prop_from(const struct dtb *dt, int off)
{
	int at, next, tag = tag_skip_nop(dt, off, &at, &next);

	if (tag < 0)
		return tag;
	if (tag == FDT_PROP)
		return at;
	if (tag == FDT_BEGIN_NODE || tag == FDT_END_NODE)
		return DTB_E_NOTFOUND;
	return DTB_E_BADSTRUCT;
}

int dtb_first_prop(const struct dtb *dt, int node)
{
	int body = node_body(dt, node);

	return body < 0 ? body : prop_from(dt, body);
}

int dtb_next_prop(const struct dtb *dt, int prop)
{
	int next, tag = next_tag(dt, prop, &next);

	if (tag < 0)
		return tag;
	return tag == FDT_PROP ? prop_from(dt, next) : DTB_E_BADSTRUCT;
}

/* A name in the strings block: must start and end (NUL) inside it. */
static const char *string_at(const struct dtb *dt, u32 nameoff)
{
	const char *s = (const char *)dt->blob + dt->off_strings;

	if (nameoff >= dt->size_strings || !mem_chr(s + nameoff, '\0', dt->size_strings - nameoff))
		return NULL;
	return s + nameoff;
}

const void *dtb_prop_at(const struct dtb *dt, int prop, const char **name, int *len)
{
	const u8 *p = NULL;
	const char *nm = NULL;
	int next, tag = next_tag(dt, prop, &next);

	if (tag >= 0 && tag != FDT_PROP)
		tag = DTB_E_BADSTRUCT;
	/* next_tag() checked that the 12-byte header and len bytes of value are in the block. */
	if (tag >= 0) {
		p = sblock(dt) + prop;
		if (!(nm = string_at(dt, dtb_be32(p + 8))))
			tag = DTB_E_BADSTRUCT;
	}
	if (tag < 0) {
		if (len)
			*len = tag;
		return NULL;
	}
	if (name)
		*name = nm;
	if (len)
		*len = (int)dtb_be32(p + 4);
	return p + 12;
}

/* First property of `node` whose name is name[0..n); NULL with *len = DTB_E_* if none. */
static const void *prop_namelen(const struct dtb *dt, int node, const char *name, size_t n,
				int *len)
{
	const char *nm;
	const void *val;
	int prop, l = DTB_E_NOTFOUND;

	for (prop = dtb_first_prop(dt, node); prop >= 0; prop = dtb_next_prop(dt, prop)) {
		if (!(val = dtb_prop_at(dt, prop, &nm, &l)))
			break;
		if (mem_eq(nm, name, n) && nm[n] == '\0') {
			if (len)
				*len = l;
			return val;
		}
	}
	if (len)
		*len = prop >= 0 ? l : prop;
	return NULL;
}

const void *dtb_prop(const struct dtb *dt, int node, const char *name, int *len)
{
	return prop_namelen(dt, node, name, str_len(name), len);
}

int dtb_prop_u32(const struct dtb *dt, int node, const char *name, u32 *out)
{
	int len;
	const void *p = dtb_prop(dt, node, name, &len);

	if (!p)
		return len;
	if (len != 4)
		return DTB_E_BADVALUE;
	*out = dtb_be32(p);
	return 0;
}

int dtb_prop_u64(const struct dtb *dt, int node, const char *name, u64 *out)
{
	int len;
	const void *p = dtb_prop(dt, node, name, &len);

	if (!p)
		return len;
	if (len != 4 && len != 8)
		return DTB_E_BADVALUE;
	*out = dtb_read_cells(p, len / 4);
	return 0;
}

const char *dtb_prop_str(const struct dtb *dt, int node, const char *name)
{
	int len;
	const char *p = dtb_prop(dt, node, name, &len);

	/* A string that runs off the end of its property would make callers overread. */
	if (!p || !mem_chr(p, '\0', (size_t)len))
		return NULL;
	return p;
}

int dtb_stringlist_index(const struct dtb *dt, int node, const char *name, const char *str)
{
	int len, idx = 0;
	const char *p = dtb_prop(dt, node, name, &len), *end, *nul;
	size_t n = str_len(str);

	if (!p)
		return len;
	for (end = p + len; p < end; p = nul + 1, idx++) {
		if (!(nul = mem_chr(p, '\0', (size_t)(end - p))))
			return DTB_E_BADVALUE; /* last string unterminated */
		if ((size_t)(nul - p) == n && mem_eq(p, str, n))
			return idx;
	}
	return DTB_E_NOTFOUND;
}

bool dtb_is_compatible(const struct dtb *dt, int node, const char *compat)
{
	return dtb_stringlist_index(dt, node, "compatible", compat) >= 0;
}

int dtb_find_compatible(const struct dtb *dt, int from, const char *compat)
{
	int node;

	for (node = dtb_next_node(dt, from, NULL); node >= 0; node = dtb_next_node(dt, node, NULL))
		if (dtb_is_compatible(dt, node, compat))
			return node;
	return node;
}

bool dtb_node_enabled(const struct dtb *dt, int node)
{
	int len;
	const char *s = dtb_prop(dt, node, "status", &len);

	if (!s)
		return len == DTB_E_NOTFOUND;
	/* Compare including the NUL so "okay!" or an unterminated "ok" do not pass. */
	return (len == 5 && mem_eq(s, "okay", 5)) || (len == 3 && mem_eq(s, "ok", 3));
}

/* ---- phandles ------------------------------------------------------------------------------ */

u32 dtb_node_phandle(const struct dtb *dt, int node)
{
	u32 ph;

	/* "linux,phandle" is what dtc wrote before the spec named "phandle". */
	if (dtb_prop_u32(dt, node, "phandle", &ph) == 0 ||
	    dtb_prop_u32(dt, node, "linux,phandle", &ph) == 0)
		return ph;
	return 0;
}

int dtb_node_by_phandle(const struct dtb *dt, u32 phandle)
{
	int node;

	/* 0 and ~0 are reserved: "no phandle" and "unresolved" (overlays). */
	if (phandle == 0 || phandle == 0xffffffffu)
		return DTB_E_NOTFOUND;
	for (node = dtb_next_node(dt, -1, NULL); node >= 0; node = dtb_next_node(dt, node, NULL))
		if (dtb_node_phandle(dt, node) == phandle)
			return node;
	return node;
}

/* ---- paths and aliases --------------------------------------------------------------------- */

/* Resolve path[0..end) component by component from `node`; repeated '/' are ignored. */
static int walk_path(const struct dtb *dt, int node, const char *p, const char *end)
{
	const char *q;

	for (;;) {
		while (p < end && *p == '/')
			p++;
		if (p == end || node < 0)
			return node;
		if (!(q = mem_chr(p, '/', (size_t)(end - p))))
			q = end;
		node = subnode_namelen(dt, node, p, (size_t)(q - p));
		p = q;
	}
}

/* Aliases are properties of /aliases whose value is an absolute path (spec 3.3). Requiring the
 * '/' also rules out an alias naming another alias, so resolution cannot recurse. */
static int alias_node(const struct dtb *dt, int root, const char *name, size_t n)
{
	int aliases = subnode_namelen(dt, root, "aliases", 7), len;
	const char *val, *nul;

	if (aliases < 0)
		return aliases;
	if (!(val = prop_namelen(dt, aliases, name, n, &len)))
		return len;
	if (len < 1 || val[0] != '/' || !(nul = mem_chr(val, '\0', (size_t)len)))
		return DTB_E_BADPATH;
	return walk_path(dt, root, val, nul);
}

/* Path syntax as in Linux's of_find_node_opts_by_path(): the first ':' starts options for the
 * device (stdout-path = "serial0:115200n8") and is not part of the path. */
int dtb_path(const struct dtb *dt, const char *path)
{
	const char *end, *q;
	int root = dtb_root(dt), node;

	if (!path)
		return DTB_E_BADPATH;
	if (root < 0)
		return root;
	for (end = path; *end && *end != ':'; end++)
		;
	if (end == path)
		return DTB_E_BADPATH;
	if (*path == '/')
		return walk_path(dt, root, path, end);
	/* "alias" or "alias/rest": the alias names the starting node. */
	if (!(q = mem_chr(path, '/', (size_t)(end - path))))
		q = end;
	node = alias_node(dt, root, path, (size_t)(q - path));
	return walk_path(dt, node, q, end);
}

/* ---- addresses ----------------------------------------------------------------------------- */

/* #address-cells / #size-cells of `node`'s parent, which is what governs `node`'s reg. */
static int parent_cells(const struct dtb *dt, int node, const char *name, int dflt, int min)
{
	int parent = dtb_parent(dt, node), err;
	u32 v;

	if (parent == DTB_E_NOTFOUND)
		return dflt; /* the root: nothing to read */
	if (parent < 0)
		return parent;
	err = dtb_prop_u32(dt, parent, name, &v);
	if (err == DTB_E_NOTFOUND)
		return dflt;
	if (err < 0)
		return err;
	/* libfdt's bound (FDT_MAX_NCELLS): 4 cells covers PCI's 3-cell addresses. */
	if (v < (u32)min || v > 4)
		return DTB_E_BADVALUE;
	return (int)v;
}

int dtb_addr_cells(const struct dtb *dt, int node)
{
	return parent_cells(dt, node, "#address-cells", 2, 1);
}

int dtb_size_cells(const struct dtb *dt, int node)
{
	/* 0 is legal: cpu nodes have an address (the MPIDR) and no size. */
	return parent_cells(dt, node, "#size-cells", 1, 0);
}

int dtb_reg(const struct dtb *dt, int node, int index, u64 *addr, u64 *size)
{
	int ac = dtb_addr_cells(dt, node), sc = dtb_size_cells(dt, node), len, stride;
	const u8 *reg;

	if (ac < 0)
		return ac;
	if (sc < 0)
		return sc;
	/* Wider values do not fit a u64; no platform we boot on has them at the root bus. */
	if (ac > 2 || sc > 2)
		return DTB_E_BADVALUE;
	if (!(reg = dtb_prop(dt, node, "reg", &len)))
		return len;
	stride = 4 * (ac + sc);
	if (len % stride)
		return DTB_E_BADVALUE;
	if (index < 0 || index >= len / stride)
		return DTB_E_NOTFOUND;
	reg += index * stride;
	if (addr)
		*addr = dtb_read_cells(reg, ac);
	if (size)
		*size = sc ? dtb_read_cells(reg + 4 * ac, sc) : 0;
	return 0;
}

/* ---- memory reservation block -------------------------------------------------------------- */

/* Pairs of big-endian u64 (address, size), ended by an all-zero pair. The block has no size
 * field, so each entry is checked against totalsize instead. */
int dtb_mem_rsv(const struct dtb *dt, int index, u64 *addr, u64 *size)
{
	u64 off = dt->off_rsvmap, a, s;

	if (index < 0)
		return DTB_E_NOTFOUND;
	for (int i = 0;; i++, off += RSV_ENTRY_SIZE) {
		if (off + RSV_ENTRY_SIZE > dt->totalsize)
			return DTB_E_TRUNCATED;
		a = dtb_read_cells(dt->blob + off, 2);
		s = dtb_read_cells(dt->blob + off + 8, 2);
		if (a == 0 && s == 0)
			return DTB_E_NOTFOUND;
		if (i == index) {
			if (addr)
				*addr = a;
			if (size)
				*size = s;
			return 0;
		}
	}
}
