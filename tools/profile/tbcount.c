/* tbcount.c - a QEMU TCG plugin for `make profile` (tools/insn_profile.py): counts the
 * guest instructions executed, per translation block, into "vaddr ninsns count" lines at
 * exit.
 * Host code, built as a shared object; QEMU loads it with
 *   -plugin build/host/tbcount.so,out=FILE[,begin=HEX,end=HEX]
 * begin/end: guest addresses of two marker functions; only what runs between each begin
 * and the next end is kept (all windows summed), so the boot is not in the figures. A begin
 * inside an open window restarts it (a benchmark leaves its set-up out). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * QEMU 7.2's plugin API (include/qemu/qemu-plugin.h, QEMU_PLUGIN_VERSION 1), the part used
 * here, declared by hand: Debian packages QEMU without that header. The ABI is C calls by
 * name into the QEMU binary; the enums' first values are the ones QEMU defines as 0.
 */
typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t; /* opaque here: we check nothing in it */
struct qemu_plugin_tb;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*qemu_plugin_tb_trans_cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb)(unsigned int vcpu, void *udata);
typedef void (*qemu_plugin_udata_cb)(qemu_plugin_id_t id, void *udata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_tb_trans_cb cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb, qemu_plugin_vcpu_udata_cb cb,
					  enum qemu_plugin_cb_flags flags, void *udata);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb, enum qemu_plugin_op op,
					      void *ptr, uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb cb, void *udata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);

#define EXPORT __attribute__((visibility("default")))
EXPORT int qemu_plugin_version = 1;

/*
 * One block per (start address, length): QEMU may translate the same address again (after
 * a flush, or shorter under -icount), and each translation adds to the same counter. The
 * counter's address is baked into the generated code, so blocks are never moved.
 */
struct block {
	uint64_t vaddr, ninsns;
	uint64_t count;	 /* executions, bumped inline by the generated code */
	uint64_t mark;	 /* count at the open window's begin */
	uint64_t window; /* executions inside closed windows */
	struct block *hnext, *all;
};

#define HASH_BITS 16
static struct block *hash[1u << HASH_BITS];
static struct block *blocks; /* every block, for the markers and the dump */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t begin_va = UINT64_MAX, end_va = UINT64_MAX;
static unsigned windows; /* begin..end pairs seen */
static int in_window;
static char out_path[4096] = "tbcount.txt";

static unsigned hash_of(uint64_t va, uint64_t n)
{
	uint64_t h = (va >> 2) * 0x9e3779b97f4a7c15ull ^ n;

	return (unsigned)(h >> (64 - HASH_BITS));
}

static struct block *block_get(uint64_t va, uint64_t n)
{
	unsigned h = hash_of(va, n);
	struct block *b;

	for (b = hash[h]; b; b = b->hnext)
		if (b->vaddr == va && b->ninsns == n)
			return b;
	b = calloc(1, sizeof(*b));
	if (!b) {
		fprintf(stderr, "tbcount: out of memory\n");
		abort();
	}
	b->vaddr = va;
	b->ninsns = n;
	b->hnext = hash[h];
	hash[h] = b;
	b->all = blocks;
	blocks = b;
	return b;
}

/* A marker block ran: open or restart (snapshot every counter) or close (add what ran
 * since) the window. Under -icount QEMU runs all vCPUs in one thread: the counters are
 * still meanwhile. */
static void marker(unsigned int vcpu, void *udata)
{
	int open = udata == &begin_va;

	(void)vcpu;
	pthread_mutex_lock(&lock);
	if (open) {
		for (struct block *b = blocks; b; b = b->all)
			b->mark = b->count;
		in_window = 1;
	} else if (!open && in_window) {
		for (struct block *b = blocks; b; b = b->all)
			b->window += b->count - b->mark;
		in_window = 0;
		windows++;
	}
	pthread_mutex_unlock(&lock);
}

static void translated(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t va = qemu_plugin_tb_vaddr(tb);
	struct block *b;

	(void)id;
	pthread_mutex_lock(&lock);
	b = block_get(va, qemu_plugin_tb_n_insns(tb));
	pthread_mutex_unlock(&lock);
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &b->count, 1);
	if (va == begin_va || va == end_va)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, marker, QEMU_PLUGIN_CB_NO_REGS,
						     va == begin_va ? &begin_va : &end_va);
}

/* Windows given: what ran inside them (a window still open at exit is left out).
 * None given: everything. */
static void dump(qemu_plugin_id_t id, void *udata)
{
	int windowed = begin_va != UINT64_MAX;
	FILE *f = fopen(out_path, "w");

	(void)id;
	(void)udata;
	if (!f) {
		perror(out_path);
		return;
	}
	fprintf(f, "# tbcount windows=%u windowed=%d\n", windows, windowed);
	for (struct block *b = blocks; b; b = b->all) {
		uint64_t n = windowed ? b->window : b->count;

		if (n)
			fprintf(f, "%llx %llu %llu\n", (unsigned long long)b->vaddr,
				(unsigned long long)b->ninsns, (unsigned long long)n);
	}
	fclose(f);
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
	(void)info;
	for (int i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			snprintf(out_path, sizeof(out_path), "%s", argv[i] + 4);
		} else if (!strncmp(argv[i], "begin=", 6)) {
			begin_va = strtoull(argv[i] + 6, NULL, 16);
		} else if (!strncmp(argv[i], "end=", 4)) {
			end_va = strtoull(argv[i] + 4, NULL, 16);
		} else {
			fprintf(stderr, "tbcount: unknown argument %s\n", argv[i]);
			return -1;
		}
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, translated);
	qemu_plugin_register_atexit_cb(id, dump, NULL);
	return 0;
}
