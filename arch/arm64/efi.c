/* efi.c - the EFI stub: what runs when UEFI (EDK2, U-Boot's bootefi) starts
 * the Image as an EFI application (head.S: efi_pe_entry). It finds the DTB in
 * the configuration table, copies it with /chosen/bootargs set from the load
 * options, moves the kernel to the lowest 2 MiB-aligned free RAM with the DTB
 * just after it, takes the memory map, calls ExitBootServices, records what
 * the firmware keeps (boot_fw_rsv, which early.c takes out of RAM) and enters
 * primary_entry, which turns the firmware's MMU off. Does not use runtime
 * services, ACPI or any protocol beyond the loaded image and text output.
 * Runs on one CPU, before the kernel's relocations are applied: nothing here
 * may keep a pointer in static data. */
#include "boot.h"
#include "dtb.h"
#include "efi.h"
#include "kernel.h"

/* Filled before primary_entry clears bss, hence .data. */
struct boot_fw_rsv boot_fw_rsv __attribute__((section(".data")));

void efi_enter_kernel(u64 entry, u64 dtb) __attribute__((noreturn));
efi_status_t efi_main(efi_handle_t image, struct efi_system_table *systab, u64 base);
extern char primary_entry[], _edata[];

#define EFI_PAGE    4096ull
#define SZ_2M	    (2ull << 20)
#define DTB_ROOM    4096 /* room for /chosen/bootargs in our copy */
#define CMDLINE_MAX 512
#define RAW_RSV_MAX 64 /* firmware ranges collected before merging */

static struct efi_system_table *st;
static struct efi_boot_services *bs;

/* ASCII to the console (UCS-2), '\n' as CR LF. */
static void say(const char *s)
{
	efi_char16_t buf[64];
	size_t n = 0;

	for (;;) {
		char c = *s++;

		if (c == '\n')
			buf[n++] = '\r';
		if (c)
			buf[n++] = (u8)c;
		if (!c || n + 2 >= ARRAY_SIZE(buf)) {
			buf[n] = 0;
			st->con_out->output_string(st->con_out, buf);
			n = 0;
		}
		if (!c)
			return;
	}
}

static void say_hex(u64 v)
{
	char b[19] = "0x";

	for (int i = 0; i < 16; i++)
		b[2 + i] = "0123456789abcdef"[(v >> (60 - 4 * i)) & 15];
	b[18] = 0;
	say(b);
}

static bool guid_eq(const efi_guid_t *a, const efi_guid_t *b)
{
	return !memcmp(a, b, sizeof(*a));
}

static void *find_dtb(void)
{
	efi_guid_t g = EFI_DTB_TABLE_GUID;

	for (u64 i = 0; i < st->nr_tables; i++)
		if (guid_eq(&st->tables[i].guid, &g))
			return st->tables[i].table;
	return NULL;
}

/*
 * The command line: the load options, UCS-2 to ASCII. A shell passes its
 * whole command line, so a first word that names the image (a path or
 * *.efi) is dropped.
 */
static void get_cmdline(efi_handle_t image, char *out)
{
	efi_guid_t g = EFI_LOADED_IMAGE_GUID;
	struct efi_loaded_image *li;
	const efi_char16_t *in;
	size_t n = 0, len, w;
	bool is_image = false;

	out[0] = 0;
	if (bs->handle_protocol(image, &g, (void **)&li) != EFI_SUCCESS || !li->load_options)
		return;
	in = li->load_options;
	len = li->load_options_size / 2;
	for (size_t i = 0; i < len && in[i] && n + 1 < CMDLINE_MAX; i++)
		out[n++] = in[i] >= 0x20 && in[i] < 0x7f ? (char)in[i] : ' ';
	out[n] = 0;
	for (w = 0; out[w] && out[w] != ' '; w++)
		is_image |= out[w] == '\\';
	if (w >= 4 && (!strncmp(out + w - 4, ".efi", 4) || !strncmp(out + w - 4, ".EFI", 4)))
		is_image = true;
	if (is_image) {
		memmove(out, out + w, n - w + 1);
		n -= w;
	}
	while (out[0] == ' ')
		memmove(out, out + 1, n--);
	while (n && out[n - 1] == ' ')
		out[--n] = 0;
}

/* The memory map into a pool buffer (with slack for the allocations that
 * follow). Returns the buffer or NULL. */
static struct efi_memory_desc *get_map(u64 *size, u64 *key, u64 *dsize)
{
	struct efi_memory_desc *map = NULL;
	u32 ver;

	*size = 0;
	for (int tries = 0; tries < 4; tries++) {
		efi_status_t s = bs->get_memory_map(size, map, key, dsize, &ver);

		if (s == EFI_SUCCESS)
			return map;
		if (map)
			bs->free_pool(map);
		map = NULL;
		if (s != EFI_BUFFER_TOO_SMALL)
			return NULL;
		*size += 16 * *dsize;
		if (bs->allocate_pool(EFI_LOADER_DATA, *size, (void **)&map) != EFI_SUCCESS)
			return NULL;
	}
	return NULL;
}

#define DESC(map, i, dsize) ((struct efi_memory_desc *)((u8 *)(map) + (i) * (dsize)))

/* The lowest 2 MiB-aligned free RAM for `bytes`, allocated; 0 if none. */
static u64 place_kernel(u64 bytes)
{
	u64 size, key, dsize, best = ~0ull;
	struct efi_memory_desc *map = get_map(&size, &key, &dsize);

	if (!map)
		return 0;
	for (u64 i = 0; i < size / dsize; i++) {
		struct efi_memory_desc *d = DESC(map, i, dsize);
		u64 a = ALIGN_UP(d->phys_start, SZ_2M),
		    end = d->phys_start + d->nr_pages * EFI_PAGE;

		if (d->type == EFI_CONVENTIONAL_MEMORY && a + bytes <= end && a < best)
			best = a;
	}
	bs->free_pool(map);
	if (best == ~0ull ||
	    bs->allocate_pages(EFI_ALLOCATE_ADDRESS, EFI_LOADER_CODE, bytes / EFI_PAGE, &best))
		return 0;
	return best;
}

static bool usable(const struct efi_memory_desc *d)
{
	if (d->attribute & EFI_MEMORY_RUNTIME)
		return false;
	return d->type == EFI_LOADER_CODE || d->type == EFI_LOADER_DATA ||
	       d->type == EFI_BOOT_SERVICES_CODE || d->type == EFI_BOOT_SERVICES_DATA ||
	       d->type == EFI_CONVENTIONAL_MEMORY;
}

/*
 * Sort and merge ranges until at most `max` remain. Ranges that touch are
 * joined; beyond that the two closest are joined (the free gap between them
 * is given up: safe, only wasteful), never across [keep, keep_end), which
 * holds the kernel and its DTB.
 */
static int squeeze(struct mem_region *r, int n, int max, u64 keep, u64 keep_end)
{
	for (int i = 1; i < n; i++) /* insertion sort by base */
		for (int j = i; j > 0 && r[j].base < r[j - 1].base; j--) {
			struct mem_region t = r[j];

			r[j] = r[j - 1];
			r[j - 1] = t;
		}
	for (;;) {
		int best = -1;
		u64 gap = ~0ull;

		for (int i = 0; i + 1 < n; i++) {
			u64 end = r[i].base + r[i].size,
			    g = r[i + 1].base > end ? r[i + 1].base - end : 0;

			if (g && n <= max)
				continue;
			if (g && keep < r[i + 1].base && keep_end > end)
				continue;
			if (g < gap)
				gap = g, best = i;
		}
		if (best < 0)
			return n;
		r[best].size =
			MAX(r[best].base + r[best].size, r[best + 1].base + r[best + 1].size) -
			r[best].base;
		memmove(&r[best + 1], &r[best + 2], (n - best - 2) * sizeof(*r));
		n--;
	}
}

/* After ExitBootServices: what the firmware keeps goes into boot_fw_rsv. */
static void record_firmware_memory(struct efi_memory_desc *map, u64 size, u64 dsize, u64 keep,
				   u64 keep_end)
{
	struct mem_region raw[RAW_RSV_MAX + 1];
	int n = 0;

	for (u64 i = 0; i < size / dsize; i++) {
		struct efi_memory_desc *d = DESC(map, i, dsize);

		if (usable(d) || d->type == EFI_MMIO || d->type == EFI_MMIO_PORT_SPACE)
			continue;
		raw[n++] = (struct mem_region){ d->phys_start, d->nr_pages * EFI_PAGE };
		if (n > RAW_RSV_MAX)
			n = squeeze(raw, n, RAW_RSV_MAX / 2, keep, keep_end);
	}
	n = squeeze(raw, n, BOOT_MAX_FW_RSV, keep, keep_end);
	for (int i = 0; i < n && i < BOOT_MAX_FW_RSV; i++)
		boot_fw_rsv.r[i] = raw[i];
	boot_fw_rsv.nr = (u32)MIN(n, BOOT_MAX_FW_RSV);
	boot_fw_rsv.from_efi = 1;
}

/* ExitBootServices with a current map key; on success the map is recorded.
 * Between a failed attempt and the next, only GetMemoryMap is called. */
static efi_status_t exit_boot_services(efi_handle_t image, u64 keep, u64 keep_end)
{
	u64 size, key, dsize, cap;
	struct efi_memory_desc *map = get_map(&size, &key, &dsize);
	efi_status_t s = EFI_LOAD_ERROR;
	u32 ver;

	if (!map)
		return s;
	cap = size + 16 * dsize; /* get_map allocated this much */
	for (int tries = 0; tries < 4; tries++) {
		s = bs->exit_boot_services(image, key);
		if (s == EFI_SUCCESS) {
			record_firmware_memory(map, size, dsize, keep, keep_end);
			return s;
		}
		size = cap;
		if (bs->get_memory_map(&size, map, &key, &dsize, &ver) != EFI_SUCCESS)
			return s;
	}
	return s;
}

efi_status_t efi_main(efi_handle_t image, struct efi_system_table *systab, u64 base)
{
	u64 ksize = ALIGN_UP((u64)_end - (u64)_head, EFI_PAGE), dsize, new_base, dtb;
	char cmdline[CMDLINE_MAX];
	const void *fw_dtb;
	efi_status_t s;

	st = systab;
	bs = systab->boot_services;
	say("littlebig: EFI stub\n");
	fw_dtb = find_dtb();
	if (!fw_dtb || dtb_header_totalsize(fw_dtb) == 0) {
		say("littlebig: no device tree in the EFI configuration table; cannot boot\n");
		return EFI_NOT_FOUND;
	}
	dsize = ALIGN_UP((u64)dtb_header_totalsize(fw_dtb) + DTB_ROOM, EFI_PAGE);
	get_cmdline(image, cmdline);

	/* Kernel, then DTB, in one allocation at the lowest 2 MiB-aligned free RAM. */
	new_base = place_kernel(ksize + dsize);
	if (!new_base) {
		say("littlebig: no 2 MiB-aligned free RAM for the kernel\n");
		return EFI_OUT_OF_RESOURCES;
	}
	dtb = new_base + ksize;
	memcpy((void *)dtb, fw_dtb, dtb_header_totalsize(fw_dtb));
	if (cmdline[0] && efi_fdt_set_bootargs((void *)dtb, dsize, cmdline))
		say("littlebig: cannot set /chosen/bootargs; keeping the firmware's\n");
	say("littlebig: kernel at ");
	say_hex(new_base);
	say(", DTB at ");
	say_hex(dtb);
	say(", bootargs \"");
	say(cmdline);
	say("\"; exiting boot services\n");

	s = exit_boot_services(image, new_base, new_base + ksize + dsize);
	if (s != EFI_SUCCESS) {
		say("littlebig: ExitBootServices failed\n");
		return s;
	}
	/* No firmware service from here on. The copy carries boot_fw_rsv. */
	memcpy((void *)new_base, (void *)base, (u64)_edata - (u64)_head);
	dcache_clean_poc(new_base, new_base + ksize + dsize);
	efi_enter_kernel(new_base + ((u64)primary_entry - (u64)_head), dtb);
}
