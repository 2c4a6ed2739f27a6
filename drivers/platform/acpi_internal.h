/* drivers/platform/acpi_internal.h — what the three files of the ACPI table
 * parser share, and nothing outside them needs (that is
 * include/drivers/acpi.h):
 *
 *   acpi_tables.c  finding the tables: the RSDP, the RSDT/XSDT it points
 *                  to, and the walk that hands each listed table on;
 *   acpi_sdt.c     one table: mapping it, checking its header, length and
 *                  checksum, and the list of every table looked at;
 *   acpi_decode.c  the values lull reads from the FADT (and the DSDT's
 *                  \_S5), the MADT and the HPET table.
 *
 * Tables are read as byte arrays by named offsets (see acpi_tables.c);
 * the layouts every table shares are here, each table's own in the file
 * that reads it.
 */
#ifndef LULL_DRIVERS_PLATFORM_ACPI_INTERNAL_H
#define LULL_DRIVERS_PLATFORM_ACPI_INTERNAL_H

#include "drivers/acpi.h"
#include "kstring.h"

enum {                          /* every table's header (5.2.6) */
	SDT_SIG_LEN     = 4,    /* the signature at offset 0: "FACP", "APIC", ... */
	SDT_LENGTH      = 4,    /* whole table, header included */
	SDT_REVISION    = 8,    /* of the table's layout */
	SDT_OEM_ID      = 10,   /* 6 characters */
	SDT_HEADER_LEN  = 36,   /* fields and entries start here */
};
_Static_assert(SDT_OEM_ID + 6 + 8 + 4 + 4 + 4 == SDT_HEADER_LEN,
               "5.2.6: OEM ID, OEM Table ID, OEM Revision, Creator ID, Creator Revision");

enum {                          /* Generic Address Structure (5.2.3.2) */
	GAS_SPACE       = 0,    /* ACPI_SPACE_* */
	GAS_ADDRESS     = 4,    /* 64-bit */
	GAS_LEN         = 12,   /* size of the structure */
};
_Static_assert(GAS_SPACE + 4 == GAS_ADDRESS && GAS_ADDRESS + 8 == GAS_LEN,
               "5.2.3.2: space id, bit width, bit offset, access size, then the address");

#define ACPI_MAX_TABLES         24          /* more than QEMU or a PC lists; an
                                               RSDT/XSDT listing more is cut here */

/* How the tables are reached: set by acpi_parse for the length of a parse. */
extern acpi_map_fn acpi_map_phys;

static inline uint32_t acpi_table_len(const uint8_t *t) { return (uint32_t)load_le(t + SDT_LENGTH, 4); }

/* A field of a table, or 0 if the table is too short to have it. */
static inline uint64_t acpi_field(const uint8_t *t, unsigned off, unsigned size)
{
	return off + size <= acpi_table_len(t) ? load_le(t + off, size) : 0;
}

/* ------------------------------------------------ acpi_sdt.c: one table */

/* The sum of `len` bytes: 0 where a checksum holds. */
uint8_t acpi_sum(const uint8_t *p, uint32_t len);

/* The OEM id at `in` as a printable C string, trailing spaces dropped. */
void acpi_copy_oem_id(char out[ACPI_OEM_ID_LEN + 1], const uint8_t *in);

/* Empty the list of tables looked at (a new parse), and add one to it. */
void acpi_forget_tables(void);
void acpi_note_table(const char *sig, uint32_t addr, uint32_t len, uint8_t rev,
                     const char *oem_id, bool ok);

/* The checked table at `phys` (signature `want`, or any for NULL), listed
 * and announced; NULL with one line saying why if it is unusable. */
const uint8_t *acpi_table_load(uint64_t phys, const char *want);

/* ------------------------------------------------ acpi_decode.c: each table */

/* Each fills in its part of `acpi` from a table acpi_table_load accepted,
 * loaded from `addr`; the FADT loads the DSDT it points to as well. */
void acpi_parse_fadt(const uint8_t *f);
void acpi_parse_madt(const uint8_t *m, uint32_t addr);
void acpi_parse_hpet(const uint8_t *h, uint32_t addr);

#endif
