// Raw DEFLATE (RFC 1951, no zlib header or trailer) through the system zlib, loaded with
// dlopen at first use: commands that never compress never load it (see Package.swift).
#ifndef APPDNA_CZLIB_LOADER_H
#define APPDNA_CZLIB_LOADER_H

#include <stddef.h>
#include <stdint.h>

/// Loads libz once (thread-safe). 0 on success; otherwise writes a message into `message`.
int appdna_zlib_load(char *message, size_t size);

/// Compresses `count` bytes at `input` into raw DEFLATE (windowBits -15, level `level`).
/// On success returns 0 and sets `*output` (free with appdna_zlib_free) and `*output_count`.
int appdna_deflate_raw(const uint8_t *input, size_t count, int level, uint8_t **output, size_t *output_count);

/// Inflates raw DEFLATE; at most `limit` output bytes. 0 on success, -1 corrupt, -2 over limit,
/// -3 no zlib. Used by the tests' ingest server.
int appdna_inflate_raw(const uint8_t *input, size_t count, size_t limit, uint8_t **output, size_t *output_count);

/// Inflates raw DEFLATE without keeping the output (through a small buffer of its own), to learn
/// what holding it would cost before anything is held: sets `*size` to the inflated bytes and
/// `*structural` to how many of them are `[`, `{`, `,` or `:` (a bound on the JSON values
/// they can hold). 0 on success, -1 corrupt, -2 over `limit` (stopped there), -3 no zlib.
int appdna_inflate_raw_measure(const uint8_t *input, size_t count, size_t limit, size_t *size, size_t *structural);

/// Inflates raw DEFLATE into `output`, which has room for `capacity` bytes (the size
/// appdna_inflate_raw_measure found): 0 when the stream ended within it (`*output_count`
/// bytes), -1 corrupt, -2 more than `capacity`, -3 no zlib.
int appdna_inflate_raw_into(const uint8_t *input, size_t count, uint8_t *output, size_t capacity, size_t *output_count);

void appdna_zlib_free(uint8_t *buffer);

#endif
