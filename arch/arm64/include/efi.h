/* efi.h - the few UEFI types the EFI stub (efi.c) uses, as the UEFI
 * specification 2.10 lays them out (section numbers below). Only what a
 * loader needs before ExitBootServices: no runtime services, no protocols
 * beyond the loaded image and text output. Calling convention: AAPCS64, the
 * same as our C (spec 2.3.6), so the function pointers are plain C. */
#ifndef ARM64_EFI_H
#define ARM64_EFI_H
#include "types.h"

typedef u64 efi_status_t;
typedef void *efi_handle_t;
typedef u16 efi_char16_t;

#define EFI_SUCCESS	      0ull
#define EFI_ERR(n)	      ((1ull << 63) | (n)) /* appendix D */
#define EFI_LOAD_ERROR	      EFI_ERR(1)
#define EFI_INVALID_PARAMETER EFI_ERR(2)
#define EFI_BUFFER_TOO_SMALL  EFI_ERR(5)
#define EFI_OUT_OF_RESOURCES  EFI_ERR(9)
#define EFI_NOT_FOUND	      EFI_ERR(14)

typedef struct {
	u32 data1;
	u16 data2, data3;
	u8 data4[8];
} efi_guid_t;

/* A GUID is one line, as the UEFI spec prints it. */
/* clang-format off */
/* 4.6: EFI_CONFIGURATION_TABLE; the DTB's GUID is EFI_DTB_TABLE_GUID. */
#define EFI_DTB_TABLE_GUID                                                                 \
	{ 0xb1b621d5, 0xf19c, 0x41a5, { 0x83, 0x0b, 0xd9, 0x15, 0x2c, 0x69, 0xaa, 0xe0 } }
/* 9.1: EFI_LOADED_IMAGE_PROTOCOL_GUID */
#define EFI_LOADED_IMAGE_GUID                                                              \
	{ 0x5b1b31a1, 0x9562, 0x11d2, { 0x8e, 0x3f, 0x00, 0xa0, 0xc9, 0x69, 0x72, 0x3b } }
/* clang-format on */

struct efi_config_table {
	efi_guid_t guid;
	void *table;
};

/* 4.2 */
struct efi_table_header {
	u64 signature;
	u32 revision, header_size, crc32, reserved;
};

/* 12.4: EFI_SIMPLE_TEXT_OUTPUT_PROTOCOL (only OutputString is used). */
struct efi_text_output {
	void *reset;
	efi_status_t (*output_string)(struct efi_text_output *self, const efi_char16_t *s);
};

/* 7.2: EFI_MEMORY_DESCRIPTOR; walk with the DescriptorSize GetMemoryMap gives. */
struct efi_memory_desc {
	u32 type;
	u32 pad;
	u64 phys_start, virt_start, nr_pages, attribute;
};
#define EFI_MEMORY_RUNTIME (1ull << 63)

/* 7.2: EFI_MEMORY_TYPE */
enum {
	EFI_RESERVED_MEMORY,
	EFI_LOADER_CODE,
	EFI_LOADER_DATA,
	EFI_BOOT_SERVICES_CODE,
	EFI_BOOT_SERVICES_DATA,
	EFI_RUNTIME_SERVICES_CODE,
	EFI_RUNTIME_SERVICES_DATA,
	EFI_CONVENTIONAL_MEMORY,
	EFI_UNUSABLE_MEMORY,
	EFI_ACPI_RECLAIM_MEMORY,
	EFI_ACPI_NVS_MEMORY,
	EFI_MMIO,
	EFI_MMIO_PORT_SPACE,
	EFI_PAL_CODE,
	EFI_PERSISTENT_MEMORY,
};

/* 7.2: EFI_ALLOCATE_TYPE */
enum { EFI_ALLOCATE_ANY_PAGES, EFI_ALLOCATE_MAX_ADDRESS, EFI_ALLOCATE_ADDRESS };

/* 4.4: EFI_BOOT_SERVICES, in table order; unused entries are plain pointers. */
struct efi_boot_services {
	struct efi_table_header hdr;
	void *raise_tpl, *restore_tpl;
	efi_status_t (*allocate_pages)(int type, int mem_type, u64 pages, u64 *addr);
	efi_status_t (*free_pages)(u64 addr, u64 pages);
	efi_status_t (*get_memory_map)(u64 *map_size, struct efi_memory_desc *map, u64 *map_key,
				       u64 *desc_size, u32 *desc_version);
	efi_status_t (*allocate_pool)(int mem_type, u64 size, void **buf);
	efi_status_t (*free_pool)(void *buf);
	void *create_event, *set_timer, *wait_for_event, *signal_event, *close_event, *check_event;
	void *install_protocol_interface, *reinstall_protocol_interface,
		*uninstall_protocol_interface;
	efi_status_t (*handle_protocol)(efi_handle_t h, const efi_guid_t *guid, void **iface);
	void *reserved, *register_protocol_notify, *locate_handle, *locate_device_path,
		*install_configuration_table;
	void *load_image, *start_image, *exit, *unload_image;
	efi_status_t (*exit_boot_services)(efi_handle_t image, u64 map_key);
};

/* 4.3: EFI_SYSTEM_TABLE */
struct efi_system_table {
	struct efi_table_header hdr;
	efi_char16_t *firmware_vendor;
	u32 firmware_revision;
	efi_handle_t con_in_handle;
	void *con_in;
	efi_handle_t con_out_handle;
	struct efi_text_output *con_out;
	efi_handle_t stderr_handle;
	struct efi_text_output *std_err;
	void *runtime_services;
	struct efi_boot_services *boot_services;
	u64 nr_tables;
	struct efi_config_table *tables;
};

/* 9.1: EFI_LOADED_IMAGE_PROTOCOL */
struct efi_loaded_image {
	u32 revision;
	efi_handle_t parent;
	struct efi_system_table *system_table;
	efi_handle_t device;
	void *file_path;
	void *reserved;
	u32 load_options_size;
	void *load_options;
	void *image_base;
	u64 image_size;
	int image_code_type, image_data_type;
	void *unload;
};

/* efi_fdt.c: set /chosen/bootargs in a DTB with room up to `bufsize`. */
int efi_fdt_set_bootargs(void *fdt, u32 bufsize, const char *args);

#endif
