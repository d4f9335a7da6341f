/* fuzz_dtb.c - libFuzzer target (clang -fsanitize=fuzzer) for everything the
 * kernel does with an untrusted DTB: lib/dtb.c's header check, walks, lookups
 * and typed reads, then kernel/sched/topology.c's parse and print. Any fault
 * or sanitizer report is a bug; outputs are not checked here (the host unit
 * tests do that). Seeds: tests/fuzz/corpus/dtb/ (small real and broken trees). */
#include <stdio.h>
#include <stdlib.h>
#include "dtb.h"
#include "topology.h"

/* The parser's warnings and topology_print() go through printk to stdout:
 * keep them (the code runs) but out of libFuzzer's log. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	if (!freopen("/dev/null", "w", stdout))
		abort();
	return 0;
}

/* Every property of a node, read every way the kernel reads one. */
static void read_props(const struct dtb *dt, int node)
{
	for (int p = dtb_first_prop(dt, node); p >= 0; p = dtb_next_prop(dt, p)) {
		const char *name;
		int len;
		const void *v = dtb_prop_at(dt, p, &name, &len);
		u32 u;
		u64 w;

		if (!v || !name)
			continue;
		dtb_prop_u32(dt, node, name, &u);
		dtb_prop_u64(dt, node, name, &w);
		dtb_prop_str(dt, node, name);
		dtb_stringlist_index(dt, node, name, "psci");
		if (len >= 8)
			dtb_read_cells(v, 2);
	}
}

static void walk(const struct dtb *dt)
{
	int depth = 0, n = 0;

	for (int node = dtb_next_node(dt, -1, &depth); node >= 0 && n < 4096;
	     node = dtb_next_node(dt, node, &depth), n++) {
		u64 addr, size;

		dtb_node_name(dt, node, NULL);
		dtb_parent(dt, node);
		dtb_first_child(dt, node);
		dtb_next_sibling(dt, node);
		dtb_node_enabled(dt, node);
		dtb_node_by_phandle(dt, dtb_node_phandle(dt, node));
		dtb_addr_cells(dt, node);
		dtb_size_cells(dt, node);
		for (int i = 0; i < 4 && dtb_reg(dt, node, i, &addr, &size) == 0; i++)
			;
		read_props(dt, node);
	}
}

/* The lookups boot makes: console, memory, cpus, interrupt controllers. */
static void boot_lookups(const struct dtb *dt)
{
	int chosen = dtb_path(dt, "/chosen");
	const char *stdout_path = chosen >= 0 ? dtb_prop_str(dt, chosen, "stdout-path") : NULL;
	u64 addr, size;

	if (stdout_path)
		dtb_path(dt, stdout_path);
	dtb_path(dt, "serial0");
	dtb_path(dt, "/cpus/cpu-map/cluster0/core0");
	dtb_path(dt, "/memory");
	dtb_find_compatible(dt, -1, "arm,gic-v3");
	dtb_find_compatible(dt, -1, "arm,cortex-a15-gic");
	for (int i = 0; i < 8 && dtb_mem_rsv(dt, i, &addr, &size) == 0; i++)
		;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct topology topo;
	struct dtb dt;

	if (size >= 8) /* it reads the 8 header bytes unchecked, by contract */
		dtb_header_totalsize(data);
	if (dtb_init(&dt, data, size) < 0)
		return 0;
	walk(&dt);
	boot_lookups(&dt);
	topology_parse(&dt, &topo);
	topology_print(&topo);
	return 0;
}
