/* tests/fuzz/fuzz_host.h — what the libFuzzer harnesses share (fuzz_host.c).
 *
 * Each harness tests/fuzz/fuzz_<target>.c defines LLVMFuzzerTestOneInput and
 * names the portable kernel sources it links in a `// SOURCES:` line, as
 * the unit tests do; the Makefile builds it with clang's
 * -fsanitize=fuzzer,address,undefined (make fuzz, docs/robustness.md).
 * A harness fails by crashing: a sanitizer report, or fuzz_fail() when a
 * property of the parser's result does not hold. */
#ifndef LULL_FUZZ_HOST_H
#define LULL_FUZZ_HOST_H

#include <stddef.h>
#include <stdint.h>

/* Everything kprintf printed since fuzz_forget_output(), NUL-terminated
 * (cut at its size; the rest is still checked). */
extern char fuzz_output[16384];
void fuzz_forget_output(void);

/* Print `why` and abort: libFuzzer saves the input that got here. */
void fuzz_fail(const char *why) __attribute__((noreturn));

/* Text that reaches the console must be printable ASCII or "\n" (a hostile
 * input must not be able to send terminal escapes); fails otherwise. */
void fuzz_check_printable(const char *s, size_t n, const char *what);

/* A fake physical memory of `region` bytes from `base`: the input at its
 * start, zeros after it.  Returns the bytes, for a harness to patch. */
uint8_t *fuzz_memory_load(uint64_t base, size_t region, const uint8_t *data, size_t size);
/* A map function for a parser: NULL for bytes outside the fake memory
 * (and for address 0), else a fresh heap copy of exactly `len` bytes, so
 * AddressSanitizer reports any read past what the parser mapped. */
const void *fuzz_memory_map(uint64_t phys, uint32_t len);
/* Free every copy fuzz_memory_map handed out. */
void fuzz_memory_unmap_all(void);

#endif
