// The system libcurl, loaded with dlopen at first use instead of linked: commands that never
// touch the network (bucket, webhook) do not pay for loading it and its TLS stack.
//
// libcurl's headers are not needed to build: the few types and constants used here are
// declared below. curl keeps its ABI stable (option numbers, CURLcode values and CURLINFO
// codes never change once released), so these numbers are fixed facts, checked against
// curl/curl.h 7.81 and 8.x.
#ifndef APPDNA_CCURLLOADER_H
#define APPDNA_CCURLLOADER_H

#include <stddef.h>
#include <stdint.h>

typedef struct appdna_curl_handle appdna_curl_handle;   // CURL *
typedef struct appdna_curl_slist appdna_curl_slist;     // struct curl_slist *

// CURLoption numbers (CURLOPTTYPE_LONG = 0, OBJECTPOINT = 10000, FUNCTIONPOINT = 20000,
// OFF_T = 30000).
enum {
    APPDNA_CURLOPT_WRITEDATA = 10001,
    APPDNA_CURLOPT_URL = 10002,
    APPDNA_CURLOPT_PROXY = 10004,
    APPDNA_CURLOPT_ERRORBUFFER = 10010,
    APPDNA_CURLOPT_WRITEFUNCTION = 20011,
    APPDNA_CURLOPT_POSTFIELDS = 10015,
    APPDNA_CURLOPT_USERAGENT = 10018,
    APPDNA_CURLOPT_HTTPHEADER = 10023,
    APPDNA_CURLOPT_HEADERDATA = 10029,
    APPDNA_CURLOPT_CUSTOMREQUEST = 10036,
    APPDNA_CURLOPT_NOPROGRESS = 43,
    APPDNA_CURLOPT_NOBODY = 44,
    APPDNA_CURLOPT_FOLLOWLOCATION = 52,
    APPDNA_CURLOPT_XFERINFODATA = 10057,
    APPDNA_CURLOPT_HTTPGET = 80,
    APPDNA_CURLOPT_HEADERFUNCTION = 20079,
    APPDNA_CURLOPT_BUFFERSIZE = 98,
    APPDNA_CURLOPT_NOSIGNAL = 99,
    APPDNA_CURLOPT_ACCEPT_ENCODING = 10102,
    APPDNA_CURLOPT_TIMEOUT_MS = 155,
    APPDNA_CURLOPT_CONNECTTIMEOUT_MS = 156,
    APPDNA_CURLOPT_PROTOCOLS = 181,
    APPDNA_CURLOPT_REDIR_PROTOCOLS = 182,
    APPDNA_CURLOPT_XFERINFOFUNCTION = 20219,
    APPDNA_CURLOPT_POSTFIELDSIZE_LARGE = 30120,
    APPDNA_CURLOPT_CAINFO = 10065,
    APPDNA_CURLOPT_CAPATH = 10097,
};

// CURLPROTO_* bits.
enum { APPDNA_CURLPROTO_HTTP = 1, APPDNA_CURLPROTO_HTTPS = 2 };

// CURLINFO codes (CURLINFO_STRING = 0x100000, LONG = 0x200000).
enum {
    APPDNA_CURLINFO_RESPONSE_CODE = 0x200002,
    APPDNA_CURLINFO_REDIRECT_URL = 0x10001F,
};

// CURLcode values that are classified separately.
enum {
    APPDNA_CURLE_OK = 0,
    APPDNA_CURLE_UNSUPPORTED_PROTOCOL = 1,
    APPDNA_CURLE_URL_MALFORMAT = 3,
    APPDNA_CURLE_WEIRD_SERVER_REPLY = 8,
    APPDNA_CURLE_HTTP2 = 16,
    APPDNA_CURLE_HTTP2_STREAM = 92,
    APPDNA_CURLE_COULDNT_RESOLVE_PROXY = 5,
    APPDNA_CURLE_COULDNT_RESOLVE_HOST = 6,
    APPDNA_CURLE_COULDNT_CONNECT = 7,
    APPDNA_CURLE_PARTIAL_FILE = 18,
    APPDNA_CURLE_WRITE_ERROR = 23,
    APPDNA_CURLE_OUT_OF_MEMORY = 27,
    APPDNA_CURLE_OPERATION_TIMEDOUT = 28,
    APPDNA_CURLE_SSL_CONNECT_ERROR = 35,
    APPDNA_CURLE_ABORTED_BY_CALLBACK = 42,
    APPDNA_CURLE_GOT_NOTHING = 52,
    APPDNA_CURLE_SEND_ERROR = 55,
    APPDNA_CURLE_RECV_ERROR = 56,
    APPDNA_CURLE_SSL_CERTPROBLEM = 58,
    APPDNA_CURLE_SSL_CIPHER = 59,
    APPDNA_CURLE_PEER_FAILED_VERIFICATION = 60,
    APPDNA_CURLE_BAD_CONTENT_ENCODING = 61,
    APPDNA_CURLE_SSL_CACERT_BADFILE = 77,
};

enum { APPDNA_CURL_ERROR_SIZE = 256 };

/// Loads libcurl and resolves its functions, once (thread-safe). Returns 0 on success; on
/// failure writes a sentence into `message` (of `size` bytes) and returns -1.
int appdna_curl_load(char *message, size_t size);

appdna_curl_handle *appdna_curl_easy_init(void);
void appdna_curl_easy_cleanup(appdna_curl_handle *handle);
/// Forgets every option but keeps the handle's open connections for the next request.
void appdna_curl_easy_reset(appdna_curl_handle *handle);
int appdna_curl_easy_perform(appdna_curl_handle *handle);
const char *appdna_curl_easy_strerror(int code);
/// libcurl's version string ("libcurl/8.5.0 OpenSSL/3.0.13 …").
const char *appdna_curl_version(void);

// Non-variadic wrappers around curl_easy_setopt / curl_easy_getinfo.
int appdna_curl_setopt_long(appdna_curl_handle *handle, int option, long value);
int appdna_curl_setopt_int64(appdna_curl_handle *handle, int option, int64_t value);
int appdna_curl_setopt_pointer(appdna_curl_handle *handle, int option, const void *value);
int appdna_curl_getinfo_long(appdna_curl_handle *handle, int info, long *value);
int appdna_curl_getinfo_string(appdna_curl_handle *handle, int info, const char **value);

appdna_curl_slist *appdna_curl_slist_append(appdna_curl_slist *list, const char *line);
void appdna_curl_slist_free_all(appdna_curl_slist *list);

/// A growable byte buffer the write and header callbacks below append to.
typedef struct {
    uint8_t *bytes;
    size_t count;
    size_t capacity;
    /// Appending beyond this many bytes fails the transfer (CURLE_WRITE_ERROR); 0 = no limit.
    size_t limit;
    int over_limit;
    /// When set, bytes beyond `limit` are dropped as they arrive (the transfer goes on) instead
    /// of failing it: for answers of which only the first few KiB matter.
    int discard_over_limit;
} appdna_buffer;

void appdna_buffer_free(appdna_buffer *buffer);

/// Installs the C callbacks that collect the body into `body` and the raw header lines into
/// `headers` (each line as received, CRLF included).
/// Returns the CURLcode of the first refused option and that option in `failed_option`.
int appdna_curl_collect(appdna_curl_handle *handle, appdna_buffer *body, appdna_buffer *headers, int *failed_option);

/// What AppDNANet's progress callback reads and writes: the CLOCK_MONOTONIC nanoseconds by
/// which the transfer must end, and whether it was aborted for that (or for a signal).
typedef struct {
    int64_t deadline_ns;
    int expired;
} appdna_deadline;

/// curl's CURLOPT_XFERINFOFUNCTION (curl_off_t is 64 bits everywhere curl builds); a non-zero
/// return aborts the transfer with CURLE_ABORTED_BY_CALLBACK. curl calls it at least once a
/// second, even while nothing arrives.
typedef int (*appdna_progress_callback)(void *context, int64_t download_total, int64_t downloaded,
                                        int64_t upload_total, int64_t uploaded);

/// Installs `callback` with `context` as the progress callback (the clock and the signal flag
/// it looks at are in Swift, in AppDNACore's platform layer).
/// Returns the CURLcode of the first refused option and that option in `failed_option`.
int appdna_curl_progress(appdna_curl_handle *handle, appdna_progress_callback callback, void *context, int *failed_option);

#endif
