// zlib's types come from <zlib.h>; its functions from the libz.so.1 every system has, looked up
// with dlsym, so the executable has no link-time dependency on libz.
#include "CZlibLoader.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

typedef int (*deflate_init2_fn)(z_streamp, int, int, int, int, int, const char *, int);
typedef int (*inflate_init2_fn)(z_streamp, int, const char *, int);
typedef int (*stream_fn)(z_streamp, int);
typedef int (*end_fn)(z_streamp);
typedef uLong (*bound_fn)(z_streamp, uLong);

static struct {
    deflate_init2_fn deflate_init2;
    stream_fn deflate;
    end_fn deflate_end;
    bound_fn deflate_bound;
    inflate_init2_fn inflate_init2;
    stream_fn inflate;
    end_fn inflate_end;
    int loaded;
    char error[256];
} zlib;

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    const char *names[] = {
#ifdef __APPLE__
        "libz.1.dylib", "/usr/lib/libz.1.dylib", "libz.dylib",
#else
        "libz.so.1", "libz.so",
#endif
    };
    // APPDNA_LIBZ replaces the search with one file (see SystemLibrary.swift).
    const char *override = getenv("APPDNA_LIBZ");
    void *handle = NULL;
    if (override && *override) {
        handle = dlopen(override, RTLD_NOW | RTLD_LOCAL);
        if (handle == NULL) snprintf(zlib.error, sizeof zlib.error, "%s", dlerror());
    } else {
        for (size_t i = 0; i < sizeof names / sizeof names[0] && handle == NULL; i++) {
            handle = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
            // The first name's reason is the one that names the usual file.
            if (handle == NULL && i == 0) snprintf(zlib.error, sizeof zlib.error, "%s", dlerror());
        }
    }
    if (handle == NULL) return;
    zlib.deflate_init2 = (deflate_init2_fn)dlsym(handle, "deflateInit2_");
    zlib.deflate = (stream_fn)dlsym(handle, "deflate");
    zlib.deflate_end = (end_fn)dlsym(handle, "deflateEnd");
    zlib.deflate_bound = (bound_fn)dlsym(handle, "deflateBound");
    zlib.inflate_init2 = (inflate_init2_fn)dlsym(handle, "inflateInit2_");
    zlib.inflate = (stream_fn)dlsym(handle, "inflate");
    zlib.inflate_end = (end_fn)dlsym(handle, "inflateEnd");
    if (!zlib.deflate_init2 || !zlib.deflate || !zlib.deflate_end || !zlib.deflate_bound ||
        !zlib.inflate_init2 || !zlib.inflate || !zlib.inflate_end) {
        snprintf(zlib.error, sizeof zlib.error, "the zlib found lacks deflateInit2_/inflateInit2_");
        return;
    }
    zlib.loaded = 1;
}

int appdna_zlib_load(char *message, size_t size) {
    pthread_once(&once, load);
    if (zlib.loaded) return 0;
    if (message && size) snprintf(message, size, "%s", zlib.error);
    return -1;
}

// One call of `step` (zlib's deflate or inflate) with Z_FINISH, reading all of `input` and
// writing into the `capacity` bytes at `output`: its result, and in *produced the bytes written.
// zlib's counts are 32-bit: each count is cast as the caller has it.
static int finish_in_one(z_streamp stream, stream_fn step, const uint8_t *input, size_t count,
                         uint8_t *output, size_t capacity, size_t *produced) {
    stream->next_in = (Bytef *)input;
    stream->avail_in = (uInt)count;
    stream->next_out = output;
    stream->avail_out = (uInt)capacity;
    int rc = step(stream, Z_FINISH);
    *produced = capacity - stream->avail_out;
    return rc;
}

int appdna_deflate_raw(const uint8_t *input, size_t count, int level, uint8_t **output, size_t *output_count) {
    if (appdna_zlib_load(NULL, 0) != 0) return -3;
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    // windowBits -15: raw DEFLATE, no zlib header or Adler-32 trailer (what the SDKs send).
    if (zlib.deflate_init2(&stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, (int)sizeof stream) != Z_OK) return -1;
    uLong bound = zlib.deflate_bound(&stream, (uLong)count) + 16;
    uint8_t *buffer = malloc(bound);
    if (!buffer) { zlib.deflate_end(&stream); return -1; }
    size_t produced;
    int rc = finish_in_one(&stream, zlib.deflate, input, count, buffer, bound, &produced);
    zlib.deflate_end(&stream);
    if (rc != Z_STREAM_END) { free(buffer); return -1; }
    *output = buffer;
    *output_count = produced;
    return 0;
}

int appdna_inflate_raw(const uint8_t *input, size_t count, size_t limit, uint8_t **output, size_t *output_count) {
    if (appdna_zlib_load(NULL, 0) != 0) return -3;
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    if (zlib.inflate_init2(&stream, -15, ZLIB_VERSION, (int)sizeof stream) != Z_OK) return -1;
    size_t capacity = count * 4 + 1024, produced = 0;
    uint8_t *buffer = malloc(capacity);
    if (!buffer) { zlib.inflate_end(&stream); return -1; }
    stream.next_in = (Bytef *)input;
    stream.avail_in = (uInt)count;
    int rc;
    do {
        if (produced == capacity) {
            if (capacity >= limit) { free(buffer); zlib.inflate_end(&stream); return -2; }
            capacity = capacity * 2 > limit ? limit : capacity * 2;
            uint8_t *grown = realloc(buffer, capacity);
            if (!grown) { free(buffer); zlib.inflate_end(&stream); return -1; }
            buffer = grown;
        }
        stream.next_out = buffer + produced;
        stream.avail_out = (uInt)(capacity - produced);
        rc = zlib.inflate(&stream, Z_NO_FLUSH);
        produced = capacity - stream.avail_out;
    } while (rc == Z_OK);
    // Bytes after the end of the stream, or a stream that stops short, are corrupt.
    int ok = rc == Z_STREAM_END && stream.avail_in == 0;
    zlib.inflate_end(&stream);
    if (!ok) { free(buffer); return -1; }
    *output = buffer;
    *output_count = produced;
    return 0;
}

int appdna_inflate_raw_measure(const uint8_t *input, size_t count, size_t limit, size_t *size, size_t *structural) {
    if (appdna_zlib_load(NULL, 0) != 0) return -3;
    if (count > 0xFFFFFFFFu) return -1;
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    if (zlib.inflate_init2(&stream, -15, ZLIB_VERSION, (int)sizeof stream) != Z_OK) return -1;
    // 16 KiB on the stack: the servers' workers have 512 KiB.
    uint8_t chunk[16384];
    size_t produced = 0, marks = 0;
    stream.next_in = (Bytef *)input;
    stream.avail_in = (uInt)count;
    int rc;
    do {
        stream.next_out = chunk;
        stream.avail_out = (uInt)sizeof chunk;
        rc = zlib.inflate(&stream, Z_NO_FLUSH);
        size_t n = sizeof chunk - stream.avail_out;
        for (size_t i = 0; i < n; i++) {
            uint8_t b = chunk[i];
            marks += b == ',' || b == ':' || b == '[' || b == '{';
        }
        produced += n;
        if (produced > limit) { zlib.inflate_end(&stream); return -2; }
        // Z_BUF_ERROR with output room left: the input ended before the stream did.
    } while (rc == Z_OK && (stream.avail_out == 0 || stream.avail_in > 0));
    int ok = rc == Z_STREAM_END && stream.avail_in == 0;
    zlib.inflate_end(&stream);
    if (!ok) return -1;
    *size = produced;
    *structural = marks;
    return 0;
}

int appdna_inflate_raw_into(const uint8_t *input, size_t count, uint8_t *output, size_t capacity, size_t *output_count) {
    if (appdna_zlib_load(NULL, 0) != 0) return -3;
    if (count > 0xFFFFFFFFu || capacity > 0xFFFFFFFFu) return -1;
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    if (zlib.inflate_init2(&stream, -15, ZLIB_VERSION, (int)sizeof stream) != Z_OK) return -1;
    // zlib may need room for one more byte to see the end of the stream when the output is
    // exactly `capacity`: callers give one spare byte (RawDeflate.inflate).
    size_t produced;
    int rc = finish_in_one(&stream, zlib.inflate, input, count, output, capacity, &produced);
    int ended = rc == Z_STREAM_END && stream.avail_in == 0;
    int full = stream.avail_out == 0;
    zlib.inflate_end(&stream);
    if (!ended) return full && rc != Z_DATA_ERROR ? -2 : -1;
    *output_count = produced;
    return 0;
}

void appdna_zlib_free(uint8_t *buffer) { free(buffer); }
