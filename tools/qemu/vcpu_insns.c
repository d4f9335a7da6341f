/* vcpu_insns.c - a QEMU TCG plugin that gives each vCPU of the kernel its own executed-
 * instruction count, written into a page of guest memory the kernel reads (speed=exact:
 * kernel/sched/speed.c, arch/arm64/insn_counter.c). Under -icount the guest sees only the
 * global count (its clock, QEMU's PMU); this is the one thing it cannot measure itself.
 * Counts only: it never slows a vCPU nor touches the clock, so emulated time stays the
 * instruction count of -icount and runs stay deterministic; the kernel does the stalling.
 * Host code, built as a shared object (make: build/host/vcpu_insns.so); QEMU loads it with
 *   -plugin build/host/vcpu_insns.so
 *
 * How it finds the page: the kernel's boot CPU calls insn_counter_marker(), whose first two
 * instructions (movz/movk xzr: no effect) are a signature. Seeing them in a block being
 * translated, the plugin reads three words at marker + 16 through the host address of the
 * guest's instructions (qemu_plugin_insn_haddr): the page and the hello sled, each relative
 * to its word, and the sled's length. Guest RAM is one host mapping, so guest offsets are
 * host offsets (docs/design.md, QEMU facts). Each CPU then enters the sled at nop number
 * <its logical id>: a block starting at sled + 4 x id tells which vCPU is which CPU.
 *
 * Under -icount QEMU runs every vCPU in one thread (round-robin), so the counters need no
 * locks; without -icount (MTTCG) each vCPU's counter is written by its own thread only.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/*
 * QEMU 7.2's plugin API (include/qemu/qemu-plugin.h, QEMU_PLUGIN_VERSION 1), the part used
 * here, declared by hand as tools/profile/tbcount.c does: Debian packages QEMU without the
 * header. The ABI is C calls by name into the QEMU binary.
 */
typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
typedef void (*qemu_plugin_tb_trans_cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb)(unsigned int vcpu, void *udata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_tb_trans_cb cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb, qemu_plugin_vcpu_udata_cb cb,
					  enum qemu_plugin_cb_flags flags, void *udata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
void *qemu_plugin_insn_haddr(const struct qemu_plugin_insn *insn);

#define EXPORT __attribute__((visibility("default")))
EXPORT int qemu_plugin_version = 1;

/* arch/arm64/insn_counter.S and insn_counter.c, the other side of the contract. */
#define SIG0	    0xd289885fu		  /* movz xzr, #0x4c42 */
#define SIG1	    0xf2a9287fu		  /* movk xzr, #0x4943, lsl #16 */
#define PAGE_MAGIC  0x4c42494353544e49ull /* struct insn_counter_page.magic */
#define MAX_VCPUS   4096
#define MAX_LOGICAL 4096

struct counter_page {
	uint64_t magic, nr;
	uint64_t count[];
};

static uint64_t count[MAX_VCPUS];    /* each vCPU's instructions since it started */
static uint64_t *slot[MAX_VCPUS];    /* its word in the guest page, once it said hello */
static struct counter_page *page;    /* host address of the guest's page */
static uint64_t sled_va, sled_len;   /* guest address and length of the hello sled */
static struct counter_page *pending; /* found at translation, attached at execution */
static uint8_t in_sled[MAX_VCPUS];   /* its last block was in the sled */
static int verbose;

/* Every block, as it starts: its instructions are this vCPU's. */
static void block_exec(unsigned int vcpu, void *udata)
{
	if (vcpu >= MAX_VCPUS)
		return;
	count[vcpu] += (uintptr_t)udata;
	in_sled[vcpu] = 0;
	if (slot[vcpu])
		*slot[vcpu] = count[vcpu];
}

/* The marker's block: attach to the page and sign it, before the guest reads it. */
static void marker_exec(unsigned int vcpu, void *udata)
{
	(void)udata;
	page = pending;
	page->magic = PAGE_MAGIC;
	if (verbose)
		fprintf(stderr, "vcpu_insns: page attached by vcpu %u, %llu CPUs\n", vcpu,
			(unsigned long long)page->nr);
}

/* A block starting inside the sled at nop <id> (udata: id << 16 | its instructions): if
 * the vCPU came from outside (a block may also end inside the sled, cut short under
 * -icount or at a page end, and the next then starts there), vCPU vcpu is logical CPU id. */
static void hello_exec(unsigned int vcpu, void *udata)
{
	uint64_t id = (uintptr_t)udata >> 16;
	int entered;

	if (vcpu >= MAX_VCPUS)
		return;
	count[vcpu] += (uintptr_t)udata & 0xffff;
	entered = !in_sled[vcpu];
	in_sled[vcpu] = 1;
	if (!entered || !page || id >= page->nr || id >= MAX_LOGICAL) {
		if (slot[vcpu])
			*slot[vcpu] = count[vcpu];
		return;
	}
	slot[vcpu] = &page->count[id];
	*slot[vcpu] = count[vcpu];
	if (verbose)
		fprintf(stderr, "vcpu_insns: vcpu %u is cpu %llu\n", vcpu, (unsigned long long)id);
}

static uint32_t insn_word(const struct qemu_plugin_insn *insn)
{
	uint32_t w = 0;

	if (qemu_plugin_insn_size(insn) == 4)
		memcpy(&w, qemu_plugin_insn_data(insn), 4);
	return w;
}

/* The marker's signature at instruction i: read its three words (host memory). */
static void find_marker(struct qemu_plugin_tb *tb, size_t i, size_t n)
{
	struct qemu_plugin_insn *a = qemu_plugin_tb_get_insn(tb, i);
	uint8_t *h = qemu_plugin_insn_haddr(a);
	int64_t page_off, sled_off;
	uint64_t len;

	if (i + 1 >= n || insn_word(a) != SIG0 ||
	    insn_word(qemu_plugin_tb_get_insn(tb, i + 1)) != SIG1 || !h)
		return;
	memcpy(&page_off, h + 16, 8);
	memcpy(&sled_off, h + 24, 8);
	memcpy(&len, h + 32, 8);
	/* A guest that only looks like ours must not make us write anywhere: the page is
	 * within the kernel's image (1 GiB is far more than any), aligned, and the sled short. */
	if ((page_off & 7) || page_off > (1ll << 30) || page_off < -(1ll << 30) || !len ||
	    len > MAX_LOGICAL) {
		fprintf(stderr, "vcpu_insns: a marker with implausible words; ignored\n");
		return;
	}
	pending = (struct counter_page *)(void *)(h + 16 + page_off);
	sled_va = qemu_plugin_tb_vaddr(tb) + 4 * i + 24 + (uint64_t)sled_off;
	sled_len = len;
	qemu_plugin_register_vcpu_tb_exec_cb(tb, marker_exec, QEMU_PLUGIN_CB_NO_REGS, NULL);
}

static void translated(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	uint64_t va = qemu_plugin_tb_vaddr(tb);

	(void)id;
	if (sled_len && va >= sled_va && va < sled_va + 4 * sled_len) {
		qemu_plugin_register_vcpu_tb_exec_cb(
			tb, hello_exec, QEMU_PLUGIN_CB_NO_REGS,
			(void *)(uintptr_t)((va - sled_va) / 4 << 16 | n));
		return;
	}
	/* The count first: the marker's callback then sees this block counted. */
	qemu_plugin_register_vcpu_tb_exec_cb(tb, block_exec, QEMU_PLUGIN_CB_NO_REGS,
					     (void *)(uintptr_t)n);
	for (size_t i = 0; !pending && i < n; i++)
		find_marker(tb, i, n);
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
	(void)info;
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "verbose=on")) {
			verbose = 1;
		} else {
			fprintf(stderr, "vcpu_insns: unknown argument %s\n", argv[i]);
			return -1;
		}
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, translated);
	return 0;
}
