/* Reference for bench/bucket.sh: the same stdin -> stdout job as
 *   appdna bucket - EXP SALT [--variants a=0.5,b=0.5]
 * in plain C (own MurmurHash3_x86_32, getline, one big stdout buffer).
 * Output per input line: user TAB hash TAB bucket [TAB variant] LF, where
 * hash = murmur3_x86_32("EXP.SALT.USER", seed 0) (unsigned), bucket = hash % 10000, and the
 * variant is the first whose cumulative trunc(weight*10000) exceeds the bucket, else the last.
 * A trailing CR is dropped from each line, like appdna. Not handled (appdna skips them):
 * lines that are not valid UTF-8; the benchmark input has none.
 *
 * Build: gcc -O2 -o bench/out/bucket_ref bench/bucket_ref.c
 * Usage: bucket_ref EXP SALT [--variants name=weight,...] < ids.txt
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t rotl32(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

static uint32_t murmur3_x86_32(const unsigned char *data, size_t len, uint32_t seed) {
    const uint32_t c1 = 0xcc9e2d51u, c2 = 0x1b873593u;
    uint32_t h1 = seed;
    size_t nblocks = len / 4;
    for (size_t i = 0; i < nblocks; i++) {
        uint32_t k1;
        memcpy(&k1, data + i * 4, 4); /* little-endian host (x86-64) */
        k1 *= c1; k1 = rotl32(k1, 15); k1 *= c2;
        h1 ^= k1; h1 = rotl32(h1, 13); h1 = h1 * 5 + 0xe6546b64u;
    }
    const unsigned char *tail = data + nblocks * 4;
    uint32_t k1 = 0;
    switch (len & 3) {
    case 3: k1 ^= (uint32_t)tail[2] << 16; /* fall through */
    case 2: k1 ^= (uint32_t)tail[1] << 8;  /* fall through */
    case 1: k1 ^= tail[0];
            k1 *= c1; k1 = rotl32(k1, 15); k1 *= c2; h1 ^= k1;
    }
    h1 ^= (uint32_t)len;
    h1 ^= h1 >> 16; h1 *= 0x85ebca6bu; h1 ^= h1 >> 13; h1 *= 0xc2b2ae35u; h1 ^= h1 >> 16;
    return h1;
}

#define MAX_VARIANTS 64
static char *variant_names[MAX_VARIANTS];
static size_t variant_lens[MAX_VARIANTS];
static uint64_t variant_upper[MAX_VARIANTS]; /* cumulative trunc(weight * 10000) */
static int variant_count;

static void parse_variants(char *spec) {
    uint64_t cumulative = 0;
    for (char *item = strtok(spec, ","); item; item = strtok(NULL, ",")) {
        char *eq = strchr(item, '=');
        if (!eq || variant_count == MAX_VARIANTS) { fprintf(stderr, "bucket_ref: bad --variants\n"); exit(2); }
        *eq = '\0';
        double weight = strtod(eq + 1, NULL);
        if (weight > 0) cumulative += (uint64_t)(weight * 10000.0);
        variant_names[variant_count] = item;
        variant_lens[variant_count] = strlen(item);
        variant_upper[variant_count] = cumulative;
        variant_count++;
    }
}

static char *out_pos, *out_end;
static char out_buf[1 << 20];

static void flush_out(void) {
    fwrite(out_buf, 1, (size_t)(out_pos - out_buf), stdout);
    out_pos = out_buf;
}

static void put(const char *s, size_t n) {
    if ((size_t)(out_end - out_pos) < n) {
        flush_out();
        if (n > sizeof out_buf) { fwrite(s, 1, n, stdout); return; }
    }
    memcpy(out_pos, s, n);
    out_pos += n;
}

static void put_u32(uint32_t v) {
    char digits[10];
    int n = 0;
    do { digits[9 - n++] = (char)('0' + v % 10); v /= 10; } while (v);
    put(digits + 10 - n, (size_t)n);
}

int main(int argc, char **argv) {
    if (argc != 3 && !(argc == 5 && strcmp(argv[3], "--variants") == 0)) {
        fprintf(stderr, "usage: bucket_ref EXP SALT [--variants name=weight,...] < ids\n");
        return 2;
    }
    if (argc == 5) parse_variants(argv[4]);
    size_t prefix_len = strlen(argv[1]) + strlen(argv[2]) + 2;
    size_t key_cap = prefix_len + 256;
    char *key = malloc(key_cap);
    if (!key) return 1;
    sprintf(key, "%s.%s.", argv[1], argv[2]);

    out_pos = out_buf;
    out_end = out_buf + sizeof out_buf;
    char *line = NULL;
    size_t line_cap = 0;
    ssize_t len;
    while ((len = getline(&line, &line_cap, stdin)) != -1) {
        if (len > 0 && line[len - 1] == '\n') len--;
        if (len > 0 && line[len - 1] == '\r') len--;
        if (prefix_len + (size_t)len > key_cap) {
            key_cap = (prefix_len + (size_t)len) * 2;
            key = realloc(key, key_cap);
            if (!key) return 1;
        }
        memcpy(key + prefix_len, line, (size_t)len);
        uint32_t hash = murmur3_x86_32((const unsigned char *)key, prefix_len + (size_t)len, 0);
        uint32_t bucket = hash % 10000u;
        put(line, (size_t)len);
        put("\t", 1);
        put_u32(hash);
        put("\t", 1);
        put_u32(bucket);
        if (variant_count > 0) {
            int v = variant_count - 1;
            for (int i = 0; i < variant_count; i++) {
                if (bucket < variant_upper[i]) { v = i; break; }
            }
            put("\t", 1);
            put(variant_names[v], variant_lens[v]);
        }
        put("\n", 1);
    }
    flush_out();
    free(line);
    free(key);
    if (fflush(stdout) != 0 || ferror(stdin)) return 1;
    return 0;
}
