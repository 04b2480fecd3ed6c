/* Load generator and loopback target for bench/webhook-listen.sh (C, so that neither side is
 * the bottleneck being measured).
 *
 *   webhook_load serve PORT
 *       An HTTP/1.1 keep-alive server on 127.0.0.1:PORT that reads each request (Content-Length
 *       bodies) and answers 200 "ok" at once: the "handler" deliveries are forwarded to.
 *   webhook_load send PORT COUNT SENDERS BODYFILE SIGNATURE
 *       SENDERS threads, each on one keep-alive connection, POST BODYFILE (with the signature
 *       header) COUNT/SENDERS times, one after another. Prints one line:
 *       "count=N seconds=S per_second=R p50_ms=A p99_ms=B non2xx=K".
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int write_all(int fd, const char *p, size_t n) {
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w <= 0) return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Reads one HTTP message (head + Content-Length body) from fd into buf; returns the status
 * code for a response (or 1 for a request), 0 on EOF/error. `have` carries leftover bytes. */
static int read_message(int fd, char *buf, size_t cap, size_t *have) {
    for (;;) {
        buf[*have] = 0;
        char *end = strstr(buf, "\r\n\r\n");
        if (end) {
            size_t head = (size_t)(end - buf) + 4;
            long length = 0;
            for (char *line = strstr(buf, "\r\n"); line && line < end; line = strstr(line + 2, "\r\n")) {
                if (strncasecmp(line + 2, "Content-Length:", 15) == 0) length = atol(line + 17);
            }
            while (*have < head + (size_t)length) {
                ssize_t r = recv(fd, buf + *have, cap - 1 - *have, 0);
                if (r <= 0) return 0;
                *have += (size_t)r;
            }
            int status = strncmp(buf, "HTTP/", 5) == 0 ? atoi(buf + 9) : 1;
            size_t used = head + (size_t)length;
            memmove(buf, buf + used, *have - used);
            *have -= used;
            return status;
        }
        if (*have >= cap - 1) return 0;
        ssize_t r = recv(fd, buf + *have, cap - 1 - *have, 0);
        if (r <= 0) return 0;
        *have += (size_t)r;
    }
}

static void *serve_connection(void *arg) {
    int fd = (int)(long)arg;
    static const char answer[] = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok";
    char *buf = malloc(1 << 20);
    size_t have = 0;
    while (read_message(fd, buf, 1 << 20, &have) == 1) {
        if (write_all(fd, answer, sizeof answer - 1) != 0) break;
    }
    free(buf);
    close(fd);
    return NULL;
}

static int serve(int port) {
    int s = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(s, (struct sockaddr *)&a, sizeof a) != 0 || listen(s, 256) != 0) { perror("bind"); return 1; }
    for (;;) {
        int c = accept(s, NULL, NULL);
        if (c < 0) continue;
        setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        pthread_t t;
        pthread_create(&t, NULL, serve_connection, (void *)(long)c);
        pthread_detach(t);
    }
}

static int g_port, g_per_sender;
static char *g_request;
static size_t g_request_len;
static long long *g_latencies;
static int g_non2xx;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

static void *sender(void *arg) {
    long index = (long)arg;
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((unsigned short)g_port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) { perror("connect"); exit(1); }
    char *buf = malloc(1 << 20);
    size_t have = 0;
    int bad = 0;
    for (int i = 0; i < g_per_sender; i++) {
        long long start = now_ns();
        if (write_all(fd, g_request, g_request_len) != 0) { fprintf(stderr, "send failed\n"); exit(1); }
        int status = read_message(fd, buf, 1 << 20, &have);
        if (status == 0) { fprintf(stderr, "connection closed after %d requests\n", i); exit(1); }
        if (status < 200 || status > 299) bad++;
        g_latencies[index * g_per_sender + i] = now_ns() - start;
    }
    pthread_mutex_lock(&g_lock);
    g_non2xx += bad;
    pthread_mutex_unlock(&g_lock);
    free(buf);
    close(fd);
    return NULL;
}

static int compare(const void *a, const void *b) {
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

static int send_load(int port, int count, int senders, const char *body_path, const char *signature) {
    FILE *f = fopen(body_path, "rb");
    if (!f) { perror(body_path); return 1; }
    char body[65536];
    size_t body_len = fread(body, 1, sizeof body, f);
    fclose(f);
    g_request = malloc(body_len + 1024);
    int head = snprintf(g_request, 1024,
                        "POST /webhooks HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                        "X-AppDNA-Event: subscription.renewed\r\nX-AppDNA-Signature: %s\r\nContent-Length: %zu\r\n\r\n",
                        signature, body_len);
    memcpy(g_request + head, body, body_len);
    g_request_len = (size_t)head + body_len;
    g_port = port;
    g_per_sender = count / senders;
    int total = g_per_sender * senders;
    g_latencies = calloc((size_t)total, sizeof *g_latencies);
    pthread_t threads[64];
    long long start = now_ns();
    for (long i = 0; i < senders; i++) pthread_create(&threads[i], NULL, sender, (void *)i);
    for (int i = 0; i < senders; i++) pthread_join(threads[i], NULL);
    double seconds = (double)(now_ns() - start) / 1e9;
    qsort(g_latencies, (size_t)total, sizeof *g_latencies, compare);
    printf("count=%d seconds=%.3f per_second=%.0f p50_ms=%.3f p99_ms=%.3f non2xx=%d\n", total, seconds, total / seconds,
           g_latencies[total / 2] / 1e6, g_latencies[(int)(total * 0.99)] / 1e6, g_non2xx);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "serve") == 0) return serve(atoi(argv[2]));
    if (argc == 7 && strcmp(argv[1], "send") == 0) {
        int senders = atoi(argv[4]);
        if (senders < 1 || senders > 64) { fprintf(stderr, "1 to 64 senders\n"); return 2; }
        return send_load(atoi(argv[2]), atoi(argv[3]), senders, argv[5], argv[6]);
    }
    fprintf(stderr, "usage: webhook_load serve PORT | webhook_load send PORT COUNT SENDERS BODYFILE SIGNATURE\n");
    return 2;
}
