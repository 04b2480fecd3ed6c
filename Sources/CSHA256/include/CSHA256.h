// The one piece of AppDNA written in C: the SHA-NI block function for SHA-256 (see CSHA256.c).
#ifndef APPDNA_CSHA256_H
#define APPDNA_CSHA256_H

#include <stddef.h>
#include <stdint.h>

/// Nonzero when this CPU has the SHA extensions (and SSSE3, SSE4.1) the hardware path needs.
int appdna_sha256_hardware_available(void);

/// Compresses `blocks` 64-byte blocks at `data` into `state` (H0..H7, native-endian words).
/// Only call when appdna_sha256_hardware_available() returned nonzero.
void appdna_sha256_blocks_hardware(uint32_t state[8], const uint8_t *data, size_t blocks);

#endif
