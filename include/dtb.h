/* dtb.h - read-only flattened device tree (DTB) reader, lib/dtb.c.
 *
 * Nodes and properties are named by their byte offset in the structure block,
 * exactly as libfdt does, so host tests can compare the two offset by offset.
 * Every function validates what it reads: a malformed or truncated blob gives
 * a negative DTB_E* code, never an out-of-bounds read. Pure code: no globals,
 * no allocation, no locks; safe with the MMU off (byte loads only). */
#ifndef DTB_H
#define DTB_H

#include "types.h"

#define DTB_MAGIC 0xd00dfeedu

enum {
	DTB_E_NOTFOUND = -1, /* no such node / property */
	DTB_E_BADMAGIC = -2,
	DTB_E_BADVERSION = -3,
	DTB_E_TRUNCATED = -4, /* header or block outside totalsize / buffer */
	DTB_E_BADSTRUCT = -5, /* bad token, unterminated name, bad nesting */
	DTB_E_BADVALUE = -6,  /* property has the wrong length for the request */
	DTB_E_BADPATH = -7,
};

struct dtb {
	const u8 *blob;
	u32 totalsize;
	u32 off_struct, size_struct;
	u32 off_strings, size_strings;
	u32 off_rsvmap;
	u32 version;
	u32 boot_cpuid;
};

/* Validate the header of the blob at `blob` (at most `bufsize` bytes readable;
 * pass the totalsize read from the header when unknown is not an option, e.g.
 * the kernel passes a generous bound). Returns 0 or DTB_E_*. */
int dtb_init(struct dtb *dt, const void *blob, size_t bufsize);
const char *dtb_strerror(int err);

/* Peek at a header's totalsize without validation (0 if not a DTB). */
u32 dtb_header_totalsize(const void *blob);

/* Structure walk. Node offsets are >= 0; the root node is dtb_root(). */
int dtb_root(const struct dtb *dt);
int dtb_first_child(const struct dtb *dt, int node);  /* DTB_E_NOTFOUND if none */
int dtb_next_sibling(const struct dtb *dt, int node); /* DTB_E_NOTFOUND if none */
int dtb_parent(const struct dtb *dt, int node);	      /* root's parent: NOTFOUND */
/* Full unit name ("cpu@100"); *len gets its length if len is non-NULL. */
const char *dtb_node_name(const struct dtb *dt, int node, int *len);
/* Child by name: "cpu@100" matches exactly; "cpus" also matches "cpus@x". */
int dtb_subnode(const struct dtb *dt, int parent, const char *name);
/* "/cpus/cpu@0" or an alias ("serial0", "serial0/child"); trailing ':options'
 * (as in stdout-path "serial6:115200n8") is ignored. */
int dtb_path(const struct dtb *dt, const char *path);
/* Depth-first iteration over all nodes after `node` (pass -1 to start). */
int dtb_next_node(const struct dtb *dt, int node, int *depth);

/* Properties. */
const void *dtb_prop(const struct dtb *dt, int node, const char *name, int *len);
/* Iterate properties: first/next return a property offset, then read it. */
int dtb_first_prop(const struct dtb *dt, int node);
int dtb_next_prop(const struct dtb *dt, int prop);
const void *dtb_prop_at(const struct dtb *dt, int prop, const char **name, int *len);

/* Typed reads. Return 0 or DTB_E_*; out untouched on error. */
int dtb_prop_u32(const struct dtb *dt, int node, const char *name, u32 *out);
int dtb_prop_u64(const struct dtb *dt, int node, const char *name, u64 *out); /* 1 or 2 cells */
/* NUL-terminated string property (must be terminated inside the property). */
const char *dtb_prop_str(const struct dtb *dt, int node, const char *name);
/* Index of `str` in a stringlist property, or DTB_E_NOTFOUND. */
int dtb_stringlist_index(const struct dtb *dt, int node, const char *name, const char *str);
bool dtb_is_compatible(const struct dtb *dt, int node, const char *compat);
/* Next node after `from` (-1: from the start) whose compatible lists compat. */
int dtb_find_compatible(const struct dtb *dt, int from, const char *compat);
/* "status" absent, "okay" or "ok". */
bool dtb_node_enabled(const struct dtb *dt, int node);

/* phandles ("phandle" or legacy "linux,phandle"). */
int dtb_node_by_phandle(const struct dtb *dt, u32 phandle);
u32 dtb_node_phandle(const struct dtb *dt, int node); /* 0 if none */

/* Address translation helpers: #address-cells/#size-cells that apply to
 * `node`'s reg (i.e. read from its parent; defaults 2 and 1 as the spec says). */
int dtb_addr_cells(const struct dtb *dt, int node);
int dtb_size_cells(const struct dtb *dt, int node);
/* reg entry `index` of node; DTB_E_NOTFOUND past the end. No ranges
 * translation (QEMU virt and HiKey960 place devices at the root bus). */
int dtb_reg(const struct dtb *dt, int node, int index, u64 *addr, u64 *size);
/* Read `cells` (1 or 2) big-endian cells at p; helper for cell arrays. */
u64 dtb_read_cells(const void *p, int cells);
u32 dtb_be32(const void *p);

/* /memreserve/ entries: index 0..n-1; DTB_E_NOTFOUND past the end. */
int dtb_mem_rsv(const struct dtb *dt, int index, u64 *addr, u64 *size);

#endif
