/* drivers/platform/acpi_sdt.c — one ACPI table: mapping it, checking it
 * before anything in it is believed, and keeping the list of every table
 * looked at, usable or not, for acpi_table_at() (the `acpi` command).
 *
 * Spec: ACPI 6.5, 5.2.6: every table but the RSDP starts with the common
 * header (signature, length, revision, checksum, OEM id) and sums to 0
 * modulo 256.  A table whose header, length or checksum fails is dropped
 * with one line, "acpi: <sig> at <address>: <why>, ignored".  Which tables
 * are looked at is acpi_tables.c's walk; what is read from them,
 * acpi_decode.c.
 */
#include "acpi_internal.h"
#include "kprintf.h"

/* A table longer than this is garbage (the largest real DSDTs are a few
 * hundred KiB); mapping it would use up the page-table pool. */
#define ACPI_TABLE_MAX_LEN      (1u << 20)

/* How the tables are reached: set by acpi_parse for the length of a parse. */
acpi_map_fn acpi_map_phys;

/* Every table we looked at, usable or not, in the order found. */
static struct acpi_table tables[ACPI_MAX_TABLES];
static unsigned ntables;

const struct acpi_table *acpi_table_at(unsigned i)
{
	return i < ntables ? &tables[i] : NULL;
}

/* Every ACPI checksum makes its bytes sum to 0 modulo 256. */
uint8_t acpi_sum(const uint8_t *p, uint32_t len)
{
	uint8_t sum = 0;
	while (len--)
		sum += *p++;
	return sum;
}

/* `n` bytes of firmware text as a printable C string: a hostile table may
 * hold any bytes, and only printable ones go to the console. */
static void copy_text(char *out, const uint8_t *in, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		out[i] = in[i] >= ' ' && in[i] <= '~' ? (char)in[i] : '?';
	out[n] = '\0';
}

/* An OEM id: 6 characters padded with spaces, as a C string. */
void acpi_copy_oem_id(char out[ACPI_OEM_ID_LEN + 1], const uint8_t *in)
{
	copy_text(out, in, ACPI_OEM_ID_LEN);
	for (int i = ACPI_OEM_ID_LEN - 1; i >= 0 && out[i] == ' '; i--)
		out[i] = '\0';
}

void acpi_forget_tables(void)
{
	ntables = 0;
}

void acpi_note_table(const char *sig, uint32_t addr, uint32_t len, uint8_t rev,
                     const char *oem_id, bool ok)
{
	if (ntables == ACPI_MAX_TABLES)
		return;
	struct acpi_table *e = &tables[ntables++];
	*e = (struct acpi_table){ .addr = addr, .length = len, .revision = rev, .checksum_ok = ok };
	memcpy(e->sig, sig, SDT_SIG_LEN);
	memcpy(e->oem_id, oem_id, sizeof(e->oem_id));
}

/* Map the table at `phys`, check its length and checksum, list it and print
 * its boot line.  `want` is the signature expected there, or NULL for any.
 * Returns the whole table, or NULL (with the reason printed) if it is
 * unusable.  The map function may hand back a different pointer for the
 * header and for the whole table, so only the second is kept. */
const uint8_t *acpi_table_load(uint64_t phys, const char *want)
{
	if (phys == 0)
		return NULL;
	const uint8_t *t = acpi_map_phys(phys, SDT_HEADER_LEN);
	if (!t) {
		kprintf("acpi: table at 0x%llx is out of reach, ignored\n", (unsigned long long)phys);
		return NULL;
	}
	char sig[SDT_SIG_LEN + 1];
	copy_text(sig, t, SDT_SIG_LEN);
	uint32_t addr = (uint32_t)phys, len = acpi_table_len(t);
	if (want && memcmp(t, want, SDT_SIG_LEN) != 0) {
		kprintf("acpi: %s at 0x%08x: found '%s' there, ignored\n", want, addr, sig);
		return NULL;
	}
	if (len < SDT_HEADER_LEN) {
		kprintf("acpi: %s at 0x%08x: length %u is shorter than the header, ignored\n",
		        sig, addr, len);
		return NULL;
	}
	if (len > ACPI_TABLE_MAX_LEN) {
		kprintf("acpi: %s at 0x%08x: length %u is too large, ignored\n", sig, addr, len);
		return NULL;
	}
	if (!(t = acpi_map_phys(phys, len))) {
		kprintf("acpi: %s at 0x%08x: its %u bytes run out of memory, ignored\n", sig, addr, len);
		return NULL;
	}
	char oem_id[ACPI_OEM_ID_LEN + 1];
	acpi_copy_oem_id(oem_id, t + SDT_OEM_ID);
	bool ok = acpi_sum(t, len) == 0;
	acpi_note_table(sig, addr, len, t[SDT_REVISION], oem_id, ok);
	if (!ok) {
		kprintf("acpi: %s at 0x%08x: bad checksum, ignored\n", sig, addr);
		return NULL;
	}
	kprintf("acpi: %s rev %u at 0x%08x, %u bytes (OEM %s)\n", sig, t[SDT_REVISION], addr, len, oem_id);
	return t;
}
