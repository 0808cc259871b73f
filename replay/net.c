/*
 * net.c - sockets and pipes for vxreplay (see net.h).
 *
 * While the engine replays a long motion, GDB may send 0x03 to stop it.  The
 * engine polls through gdbserver, which lands in conn_poll(): a non-blocking look
 * at the input.  Bytes that are not 0x03 are kept and handed to the protocol once
 * the motion is over, so nothing the client sent is lost; nor is a 0x03 inside a
 * packet, which is data (an escaped '#' is "}\x03"): the connection follows the
 * framing of every byte it reads to tell the two apart.
 */
#include "net.h"
#include "cli.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

int vx_net_listen(const char *bind_addr, unsigned port, unsigned *actual, char *msg, size_t cap)
{
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, bind_addr, &sa.sin_addr) != 1) {
        struct addrinfo hints, *res = NULL;
        memset(&hints, 0, sizeof hints);
        hints.ai_family = AF_INET;
        hints.ai_socktype = SOCK_STREAM;
        int rc = getaddrinfo(bind_addr, NULL, &hints, &res);
        if (rc != 0 || !res) {
            snprintf(msg, cap, "cannot resolve bind address '%s': %s", bind_addr, gai_strerror(rc));
            return -1;
        }
        sa.sin_addr = ((struct sockaddr_in *)res->ai_addr)->sin_addr;
        freeaddrinfo(res);
    }
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) {
        snprintf(msg, cap, "cannot create a socket: %s", strerror(errno));
        return -1;
    }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    /* non-blocking: accept() after poll() never waits for a client that went away */
    int fl = fcntl(fd, F_GETFL);
    if (bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(fd, 1) != 0 || fl < 0 ||
        fcntl(fd, F_SETFL, fl | O_NONBLOCK) != 0) {
        snprintf(msg, cap, "cannot listen on %s:%u: %s%s", bind_addr, port, strerror(errno),
                 errno == EADDRINUSE ? " (choose another with --port)" : "");
        close(fd);
        return -1;
    }
    socklen_t len = sizeof sa;
    if (getsockname(fd, (struct sockaddr *)&sa, &len) == 0) *actual = ntohs(sa.sin_port);
    return fd;
}

int vx_net_accept(int lfd, int wait_ms, char *peer, size_t peercap, char *msg, size_t cap, int *err)
{
    for (;;) {
        struct pollfd p = {lfd, POLLIN, 0};
        int n = poll(&p, 1, wait_ms);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            *err = errno;
            snprintf(msg, cap, "waiting for a client failed: %s", strerror(errno));
            return -1;
        }
        if (n == 0) {
            *err = EAGAIN;
            snprintf(msg, cap, "no client");
            return -1;
        }
        struct sockaddr_in sa;
        socklen_t len = sizeof sa;
        int fd = accept(lfd, (struct sockaddr *)&sa, &len);
        if (fd < 0) {
            /* gone before it was taken: look again (without waiting when not asked to) */
            if (errno == EINTR || errno == ECONNABORTED || errno == EAGAIN ||
                errno == EWOULDBLOCK) {
                if (wait_ms < 0) continue;
                *err = EAGAIN;
                snprintf(msg, cap, "no client");
                return -1;
            }
            *err = errno;
            snprintf(msg, cap, "accept failed: %s", strerror(errno));
            return -1;
        }
        /* the session blocks in its reads and writes (BSDs pass O_NONBLOCK on) */
        int fl = fcntl(fd, F_GETFL);
        if (fl >= 0 && (fl & O_NONBLOCK)) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        char ip[INET_ADDRSTRLEN] = "?";
        inet_ntop(AF_INET, &sa.sin_addr, ip, sizeof ip);
        snprintf(peer, peercap, "%s:%u", ip, ntohs(sa.sin_port));
        *err = 0;
        return fd;
    }
}

/* Where the client's byte stream stands: between packets, in one, after its '}'
 * escape, or in its checksum. */
enum {
    F_IDLE,
    F_DATA,
    F_ESC,
    F_SUM1,
    F_SUM2
};

typedef struct conn {
    int in, out;
    bool lost;
    int frame;        /* F_*, after every byte read so far */
    uint8_t *pending; /* bytes read while polling, not yet given to the protocol */
    size_t npend, cappend;
    bool in_eof; /* an input pipe ended: the client may still read replies (a socket's
                  * end ends the session) */
    int werr;    /* errno of a write that failed, 0 */
} conn;

/* Follow the framing over one byte; true for a 0x03 between packets (an interrupt). */
static bool frame_byte(conn *c, uint8_t b)
{
    switch (c->frame) {
    case F_IDLE:
        if (b == '$') c->frame = F_DATA;
        return b == 0x03;
    case F_DATA: c->frame = b == '#' ? F_SUM1 : b == '}' ? F_ESC : F_DATA; return false;
    case F_ESC: c->frame = F_DATA; return false;
    case F_SUM1: c->frame = F_SUM2; return false;
    default: c->frame = F_IDLE; return false;
    }
}

static void conn_write(void *ctx, const uint8_t *buf, size_t len)
{
    conn *c = ctx;
    while (len && !c->lost) {
        ssize_t k = write(c->out, buf, len);
        if (k < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN) {
                struct pollfd p = {c->out, POLLOUT, 0};
                poll(&p, 1, 1000);
                continue;
            }
            c->werr = errno;
            c->lost = true;
            return;
        }
        buf += k;
        len -= (size_t)k;
    }
}

/* Has the reader of fd gone (the read end of a pipe closed)? */
static bool output_gone(int fd)
{
    struct pollfd o = {fd, 0, 0};
    return poll(&o, 1, 0) > 0 && (o.revents & (POLLERR | POLLHUP));
}

static bool conn_poll(void *ctx)
{
    conn *c = ctx;
    if (c->lost) return true;
    if (c->in_eof) return c->lost = output_gone(c->out);
    struct pollfd p = {c->in, POLLIN, 0};
    if (poll(&p, 1, 0) <= 0 || !(p.revents & (POLLIN | POLLHUP | POLLERR))) return false;
    uint8_t buf[512];
    ssize_t k = read(c->in, buf, sizeof buf);
    if (k == 0) {
        /* No more input.  A client that is gone stops the motion: a socket's end (gdb
         * closes both ways; the motion's result would go nowhere), or gdb that quit
         * and closed its end of our output pipe too.  A script whose input pipe
         * ended still gets the replies to what it sent. */
        struct stat st;
        c->in_eof = true;
        c->lost = (fstat(c->out, &st) == 0 && S_ISSOCK(st.st_mode)) || output_gone(c->out);
        return c->lost;
    }
    if (k < 0 && errno != EINTR && errno != EAGAIN) {
        c->lost = true; /* the client went away: stop and let the session end */
        return true;
    }
    if (k < 0) return false;
    bool stop = false;
    for (ssize_t i = 0; i < k; i++) {
        if (frame_byte(c, buf[i])) {
            stop = true;
            continue;
        }
        if (c->npend == c->cappend) {
            size_t ncap = c->cappend ? c->cappend * 2 : 1024;
            uint8_t *nb = realloc(c->pending, ncap);
            if (!nb) continue;
            c->pending = nb;
            c->cappend = ncap;
        }
        c->pending[c->npend++] = buf[i];
    }
    return stop;
}

/* The listening socket while a client is served: others are turned away. */
typedef struct guard {
    int lfd; /* -1: none */
    void (*refused)(void *, const char *, int);
    void *ctx;
    long long rest_until; /* after an accept failed for lack of resources: the listener
                           * is not looked at before this time (ms) */
    bool told;            /* refused() heard of that failure */
} guard;

/* Take a client that connected while another is served and close its socket at
 * once: its debugger sees the connection closed instead of waiting in silence. */
static void turn_away(guard *g)
{
    char peer[64], msg[128];
    int err;
    int fd = vx_net_accept(g->lfd, 0, peer, sizeof peer, msg, sizeof msg, &err);
    if (fd >= 0) {
        close(fd);
        if (g->refused) g->refused(g->ctx, peer, 0);
        return;
    }
    if (err == EAGAIN) return;
    /* It cannot be taken (out of descriptors: ours may be the last): it waits until this
     * session ends.  Rest the listener meanwhile, or it stays readable and the loop
     * spins. */
    g->rest_until = vx_cli_now_ms() + VX_CLI_ACCEPT_BACKOFF_MS;
    if (vx_cli_accept_short(err)) { /* (said once; other errors are the peer's) */
        if (!g->told && g->refused) g->refused(g->ctx, NULL, err);
        g->told = true;
    }
}

/* Wait until in_fd is readable (true) or the session must end (false), turning
 * away any client that connects to the listener (when there is one) meanwhile. */
static bool wait_input(int in_fd, guard *g)
{
    if (g->lfd < 0) return true;
    for (;;) {
        struct pollfd p[2] = {{in_fd, POLLIN, 0}, {g->lfd, POLLIN, 0}};
        int timeout = -1;
        nfds_t nfds = 2;
        if (g->rest_until) {
            long long left = g->rest_until - vx_cli_now_ms();
            if (left > 0) {
                nfds = 1;
                timeout = (int)left;
            } else {
                g->rest_until = 0;
            }
        }
        int n = poll(p, nfds, timeout);
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        if (p[0].revents) return true; /* data, or a hang-up the read will see, first */
        if (nfds < 2 || !(p[1].revents & POLLIN)) continue;
        /* A client that leaves and connects again at once: its hang-up may come just
         * after the new connection; let it end this session first. */
        struct pollfd q = {in_fd, POLLIN, 0};
        if (poll(&q, 1, 200) > 0) return true;
        turn_away(g);
    }
}

int vx_net_session(vx_gdbserver *srv, int in_fd, int out_fd)
{
    return vx_net_session_guarded(srv, in_fd, out_fd, -1, NULL, NULL);
}

int vx_net_session_guarded(vx_gdbserver *srv, int in_fd, int out_fd, int lfd,
                           void (*refused)(void *ctx, const char *peer, int err), void *ctx)
{
    conn c = {in_fd, out_fd, false, F_IDLE, NULL, 0, 0, false, 0};
    guard g = {lfd, refused, ctx, 0, false};
    vx_gdb_io io = {conn_write, conn_poll, &c};
    vx_gdbserver_begin(srv, &io);
    bool ended = false;
    uint8_t buf[16384];
    while (!c.lost && !ended) {
        /* First what arrived while a motion ran, then the socket. */
        if (c.npend) {
            size_t n = c.npend < sizeof buf ? c.npend : sizeof buf;
            memcpy(buf, c.pending, n);
            memmove(c.pending, c.pending + n, c.npend - n);
            c.npend -= n;
            ended = !vx_gdbserver_input(srv, buf, n);
            continue;
        }
        if (c.in_eof || !wait_input(in_fd, &g)) break;
        ssize_t k = read(in_fd, buf, sizeof buf);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        for (ssize_t i = 0; i < k; i++)
            frame_byte(&c, buf[i]);
        ended = !vx_gdbserver_input(srv, buf, (size_t)k);
    }
    /* The client ended the session (D) in ack mode: it acknowledges our reply before
     * it closes; take that '+' (up to a second) rather than close under its write */
    if (ended && !c.lost && !c.in_eof && vx_gdbserver_awaiting_ack(srv)) {
        struct pollfd p = {in_fd, POLLIN, 0};
        if (poll(&p, 1, 1000) > 0 && read(in_fd, buf, 1) < 0) c.lost = true;
    }
    vx_gdbserver_end(srv);
    free(c.pending);
    return c.werr ? -c.werr : ended;
}
