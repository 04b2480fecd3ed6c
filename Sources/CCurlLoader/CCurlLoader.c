// See include/CCurlLoader.h. dlopen + dlsym of the handful of libcurl functions AppDNANet uses.
#define _GNU_SOURCE
#include "CCurlLoader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void *(*init_fn)(void);
typedef void (*cleanup_fn)(void *);
typedef int (*perform_fn)(void *);
typedef const char *(*strerror_fn)(int);
typedef char *(*version_fn)(void);
typedef int (*setopt_fn)(void *, int, ...);
typedef int (*getinfo_fn)(void *, int, ...);
typedef void *(*slist_append_fn)(void *, const char *);
typedef void (*slist_free_fn)(void *);
typedef int (*global_init_fn)(long);

static struct {
    init_fn easy_init;
    cleanup_fn easy_cleanup;
    cleanup_fn easy_reset;
    perform_fn easy_perform;
    strerror_fn easy_strerror;
    version_fn version;
    setopt_fn easy_setopt;
    getinfo_fn easy_getinfo;
    slist_append_fn slist_append;
    slist_free_fn slist_free_all;
    global_init_fn global_init;
} curl;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[512];
static int load_status = -1;

static const char *const candidates[] = {
#if defined(__APPLE__)
    "libcurl.4.dylib",
    "/usr/lib/libcurl.4.dylib",
#else
    "libcurl.so.4",
    "/usr/lib/x86_64-linux-gnu/libcurl.so.4",
    "/usr/lib/aarch64-linux-gnu/libcurl.so.4",
    "/usr/lib64/libcurl.so.4",
    "/usr/lib/libcurl.so.4",
    "libcurl-gnutls.so.4",
    "libcurl.so",
#endif
};

static void load(void) {
    // APPDNA_LIBCURL replaces the search with one file (see SystemLibrary.swift).
    const char *override = getenv("APPDNA_LIBCURL");
    void *library = NULL;
    if (override && *override) {
        library = dlopen(override, RTLD_NOW | RTLD_LOCAL);
        if (!library) snprintf(load_error, sizeof load_error, "%s", dlerror());
    } else {
        for (size_t i = 0; !library && i < sizeof candidates / sizeof candidates[0]; i++) {
            library = dlopen(candidates[i], RTLD_NOW | RTLD_LOCAL);
            // The first candidate's reason is the one that names the usual file.
            if (!library && i == 0) snprintf(load_error, sizeof load_error, "%s", dlerror());
        }
    }
    if (!library) return;
#define RESOLVE(field, name)                                                                   \
    do {                                                                                       \
        *(void **)(&curl.field) = dlsym(library, name);                                        \
        if (!curl.field) {                                                                     \
            snprintf(load_error, sizeof load_error, "the libcurl found has no %s", name);      \
            return;                                                                            \
        }                                                                                      \
    } while (0)
    RESOLVE(easy_init, "curl_easy_init");
    RESOLVE(easy_cleanup, "curl_easy_cleanup");
    RESOLVE(easy_reset, "curl_easy_reset");
    RESOLVE(easy_perform, "curl_easy_perform");
    RESOLVE(easy_strerror, "curl_easy_strerror");
    RESOLVE(version, "curl_version");
    RESOLVE(easy_setopt, "curl_easy_setopt");
    RESOLVE(easy_getinfo, "curl_easy_getinfo");
    RESOLVE(slist_append, "curl_slist_append");
    RESOLVE(slist_free_all, "curl_slist_free_all");
    RESOLVE(global_init, "curl_global_init");
#undef RESOLVE
    // CURL_GLOBAL_ALL (SSL | WIN32): initialise once, before any handle, as curl requires.
    if (curl.global_init(3) != 0) {
        snprintf(load_error, sizeof load_error, "curl_global_init failed");
        return;
    }
    load_status = 0;
}

int appdna_curl_load(char *message, size_t size) {
    pthread_once(&load_once, load);
    if (load_status != 0 && message && size > 0) snprintf(message, size, "%s", load_error);
    return load_status;
}

appdna_curl_handle *appdna_curl_easy_init(void) { return (appdna_curl_handle *)curl.easy_init(); }
void appdna_curl_easy_cleanup(appdna_curl_handle *handle) { curl.easy_cleanup(handle); }
void appdna_curl_easy_reset(appdna_curl_handle *handle) { curl.easy_reset(handle); }
int appdna_curl_easy_perform(appdna_curl_handle *handle) { return curl.easy_perform(handle); }
const char *appdna_curl_easy_strerror(int code) { return curl.easy_strerror(code); }
const char *appdna_curl_version(void) { return curl.version(); }

int appdna_curl_setopt_long(appdna_curl_handle *handle, int option, long value) {
    return curl.easy_setopt(handle, option, value);
}
int appdna_curl_setopt_int64(appdna_curl_handle *handle, int option, int64_t value) {
    return curl.easy_setopt(handle, option, (long long)value);   // curl_off_t
}
int appdna_curl_setopt_pointer(appdna_curl_handle *handle, int option, const void *value) {
    return curl.easy_setopt(handle, option, value);
}
int appdna_curl_getinfo_long(appdna_curl_handle *handle, int info, long *value) {
    return curl.easy_getinfo(handle, info, value);
}
int appdna_curl_getinfo_string(appdna_curl_handle *handle, int info, const char **value) {
    return curl.easy_getinfo(handle, info, value);
}

appdna_curl_slist *appdna_curl_slist_append(appdna_curl_slist *list, const char *line) {
    return (appdna_curl_slist *)curl.slist_append(list, line);
}
void appdna_curl_slist_free_all(appdna_curl_slist *list) {
    if (list) curl.slist_free_all(list);
}

// --- callbacks ---------------------------------------------------------------------------

void appdna_buffer_free(appdna_buffer *buffer) {
    free(buffer->bytes);
    buffer->bytes = NULL;
    buffer->count = buffer->capacity = 0;
}

static size_t append(char *data, size_t size, size_t count, void *context) {
    appdna_buffer *buffer = context;
    size_t n = size * count;
    if (buffer->limit && buffer->count + n > buffer->limit) {
        buffer->over_limit = 1;
        if (!buffer->discard_over_limit) return 0;   // CURLE_WRITE_ERROR
        size_t room = buffer->limit - buffer->count;
        if (room == 0) return n;   // dropped as it arrives: memory stays at `limit`
        if (append(data, 1, room, context) != room) return 0;
        return n;
    }
    if (buffer->count + n > buffer->capacity) {
        size_t capacity = buffer->capacity ? buffer->capacity : 64 * 1024;
        while (capacity < buffer->count + n) capacity *= 2;
        uint8_t *grown = realloc(buffer->bytes, capacity);
        if (!grown) return 0;
        buffer->bytes = grown;
        buffer->capacity = capacity;
    }
    memcpy(buffer->bytes + buffer->count, data, n);
    buffer->count += n;
    return n;
}

// Each option is checked on its own: the first refused one is reported in *failed_option.
#define SET_OR_FAIL(option, value)                                                             \
    do {                                                                                       \
        int code = curl.easy_setopt(handle, option, value);                                    \
        if (code != 0) {                                                                       \
            *failed_option = option;                                                           \
            return code;                                                                       \
        }                                                                                      \
    } while (0)

int appdna_curl_collect(appdna_curl_handle *handle, appdna_buffer *body, appdna_buffer *headers, int *failed_option) {
    SET_OR_FAIL(APPDNA_CURLOPT_WRITEFUNCTION, append);
    SET_OR_FAIL(APPDNA_CURLOPT_WRITEDATA, body);
    SET_OR_FAIL(APPDNA_CURLOPT_HEADERFUNCTION, append);
    SET_OR_FAIL(APPDNA_CURLOPT_HEADERDATA, headers);
    return 0;
}

int appdna_curl_progress(appdna_curl_handle *handle, appdna_progress_callback callback, void *context, int *failed_option) {
    SET_OR_FAIL(APPDNA_CURLOPT_XFERINFOFUNCTION, callback);
    SET_OR_FAIL(APPDNA_CURLOPT_XFERINFODATA, context);
    SET_OR_FAIL(APPDNA_CURLOPT_NOPROGRESS, 0L);
    return 0;
}
