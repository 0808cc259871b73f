/*
 * dmserver.c - the VxDebug TCP transport: a debugger drives the simulator's Debug
 * Module (sim/dm.c) over a newline-terminated ASCII protocol (dmserver.h, DESIGN.md §2,
 * research §6.4), so existing VxDebug tooling (vxdbg) can attach to vxsim / vxrec.
 *
 * Behaviour
 *   - Listens on opts->bind (default 127.0.0.1; any numeric IPv4/IPv6 address or a
 *     name getaddrinfo resolves), SO_REUSEADDR, port opts->port (0 = any free port;
 *     the actual port is passed to opts->on_listen).
 *   - One client at a time: a client that connects while another is served is closed
 *     at once (it can connect again once the first has left).
 *   - Out of file descriptors (or memory): a connection that cannot be accepted waits
 *     in the backlog; the listener is left alone for VX_CLI_ACCEPT_BACKOFF_MS ms between two
 *     tries (no busy loop) while the simulation and the served client go on, and the
 *     on_note hook (vx_dmserver_opts) is told once.  Such a client is served
 *     once a descriptor is free - one that connected during a session, once that
 *     session has ended, since it could not be turned away.
 *   - The platform is held (the simulator does not run) until a client sends "s";
 *     DM accesses before that work on the reset machine.  "s" again is a no-op.
 *   - Once started, the simulator runs on its own in slices of VX_DMS_SLICE issues
 *     while any warp can issue, polling the client (zero timeout) between slices, so
 *     DM accesses are answered between instruction issues.  When nothing can issue
 *     (every warp halted, kernel over, not started yet) the server blocks in poll().
 *   - DM time while the machine is idle: after a batch of commands that wrote a DM
 *     register, if the simulator could not run, the server advances the DM clock
 *     (vx_sim_dm_tick) until ndmreset has ended, plus two cycles, so requested
 *     resets, steps and injections complete before the next command is answered -
 *     as on hardware, where thousands of cycles pass between two debugger accesses.
 *   - Replies: "p" -> "+P"; "s" -> "+"; "rAAAA" -> "+VVVVVVVV" (8 lowercase hex
 *     digits) or "-"; "wAAAA:VVVVVVVV" -> "+" or "-"; "RA,B,..." -> "+V1,V2,..."
 *     (1 to 8 addresses); "WA,B,...;V1,V2,..." -> "+" (1 to 8 pairs; ':' is accepted
 *     in place of ';' because VxDebug's own servers disagree on it); "q" -> "+" and
 *     the server closes that connection (the platform is left as it is).
 *     Addresses are 1-4 hex digits, values 1-8 (either case); a trailing '\r' is
 *     ignored.  A batch is checked completely before any access is made, so a bad
 *     batch ("-") has no effect.  Anything else - unknown command, bad hex, address
 *     beyond 0xC, 9 or more batch entries, empty line, a line longer than
 *     VX_DMS_LINE_MAX bytes - gets "-" and the connection stays usable.
 *   - A client that disconnects (even in the middle of a line) leaves the platform
 *     as it is: halted warps stay halted, running warps keep running.
 *   - When the kernel ends (exit, fault, cycle limit) while a client is connected,
 *     the server keeps answering until it disconnects, then returns *final.  Until the
 *     kernel has ended the server keeps waiting for clients.
 *   - Bounded memory: a fixed line buffer and a fixed output buffer; when a client
 *     does not read its replies the server stops reading its commands (and keeps
 *     simulating) until the replies drain.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include "dmserver.h"
#include "cli.h"

#define VX_DMS_SLICE     4096u /* issues per vx_sim_run call while the machine runs */
#define VX_DMS_LINE_MAX  255u  /* longest command line accepted (a full batch write is 112) */
#define VX_DMS_BATCH     8u
#define VX_DMS_OUT_CAP   4096u
#define VX_DMS_REPLY     96u  /* longest reply: '+' 8 x 8 digits, 7 commas, '\n' = 74 */
#define VX_DMS_SETTLE    300u /* bound on DM ticks per settle (ndmreset is at most 128) */
#define VX_DMS_STOP_LOOK 250  /* ms between two looks at opts->stop while idle */

typedef struct dms {
    vx_sim *sim;
    volatile sig_atomic_t *stop;                  /* opts->stop */
    void (*on_note)(void *ctx, const char *text); /* opts->on_note, ctx */
    void *note_ctx;
    int lfd, cfd;
    void (*on_slice)(void *); /* vx_dmserver_run_sliced: called after each slice */
    void *slice_ctx;
    bool started; /* a client sent "s" */
    bool idle;    /* the last vx_sim_run could not issue anything */
    bool ended;   /* the kernel ended: exit, fault or limit */
    bool limit;   /* the cycle limit was reached: the machine never runs again */
    bool settle;  /* a DM write since the last settle */
    bool hold;    /* a DM write answered: the next line waits for a slice or a settle */
    bool closing; /* "q" received: close once the replies are sent */
    /* accept() failed for lack of resources (file descriptors, memory): the listener is
     * not polled again before this time (ms, CLOCK_MONOTONIC), or it would stay
     * readable and spin the loop; the note says so once until a client is accepted */
    bool backoff, noted;
    long long backoff_until;
    vx_stop final;
    /* input: the current line, and whether it overflowed */
    char line[VX_DMS_LINE_MAX + 1];
    size_t linelen;
    bool overlong;
    /* raw bytes received but not yet consumed */
    char in[1024];
    size_t inpos, inlen;
    /* replies not yet sent */
    char out[VX_DMS_OUT_CAP];
    size_t outlen;
} dms;

static void dms_msg(char *msg, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void dms_msg(char *msg, size_t cap, const char *fmt, ...)
{
    if (!msg || !cap) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, cap, fmt, ap);
    va_end(ap);
}

static int dms_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static const char *bind_addr_of(const vx_dmserver_opts *opts)
{
    return opts && opts->bind && *opts->bind ? opts->bind : "127.0.0.1";
}

vx_err vx_dmserver_bind(const vx_dmserver_opts *opts, int *lfd, char *msg, size_t cap)
{
    if (msg && cap) msg[0] = '\0';
    *lfd = -1;
    const char *bind_addr = bind_addr_of(opts);
    unsigned port = opts ? opts->port : 0;
    char portstr[16];
    struct addrinfo hints, *res = NULL, *ai;
    int rc, err = 0;

    if (port > 65535) {
        dms_msg(msg, cap, "Debug Module port %u is out of range (0..65535)", port);
        return VX_ERR_INVAL;
    }
    snprintf(portstr, sizeof portstr, "%u", port);
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    rc = getaddrinfo(bind_addr, portstr, &hints, &res);
    if (rc != 0) {
        dms_msg(msg, cap, "cannot resolve Debug Module bind address '%s': %s", bind_addr,
                gai_strerror(rc));
        return VX_ERR_INVAL;
    }
    for (ai = res; ai; ai = ai->ai_next) {
        int fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
        if (fd < 0) {
            err = errno;
            continue;
        }
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, 8) == 0 &&
            dms_nonblock(fd) == 0) {
            *lfd = fd;
            break;
        }
        err = errno;
        close(fd);
    }
    freeaddrinfo(res);
    if (*lfd < 0) {
        dms_msg(msg, cap, "cannot listen on %s port %u for the Debug Module: %s", bind_addr, port,
                strerror(err ? err : EADDRNOTAVAIL));
        return VX_ERR_IO;
    }
    return VX_OK;
}

/* Take the listening socket (bound here unless lfd >= 0) and announce its port. */
static vx_err dms_listen(dms *s, const vx_dmserver_opts *opts, int lfd, char *msg, size_t cap)
{
    if (lfd < 0) {
        vx_err e = vx_dmserver_bind(opts, &lfd, msg, cap);
        if (e != VX_OK) return e;
    }
    s->lfd = lfd;
    unsigned port = opts ? opts->port : 0;
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    unsigned actual = port;
    char host[NI_MAXHOST], shown[NI_MAXHOST + 2];
    const char *bound = bind_addr_of(opts);
    if (getsockname(s->lfd, (struct sockaddr *)&ss, &sl) == 0) {
        if (ss.ss_family == AF_INET)
            actual = ntohs(((struct sockaddr_in *)&ss)->sin_port);
        else if (ss.ss_family == AF_INET6)
            actual = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
        /* the address bound, not the name given ("localhost" names two) */
        if (getnameinfo((struct sockaddr *)&ss, sl, host, sizeof host, NULL, 0, NI_NUMERICHOST) ==
            0) {
            snprintf(shown, sizeof shown, ss.ss_family == AF_INET6 ? "[%s]" : "%s", host);
            bound = shown;
        }
    }
    if (opts && opts->on_listen) opts->on_listen(opts->ctx, bound, actual);
    return VX_OK;
}

/* ---- protocol ------------------------------------------------------------------------------ */

static void dms_reply(dms *s, const char *text)
{
    size_t n = strlen(text);
    /* The caller made sure VX_DMS_REPLY bytes are free. */
    if (s->outlen + n + 1 > sizeof s->out) return;
    memcpy(s->out + s->outlen, text, n);
    s->outlen += n;
    s->out[s->outlen++] = '\n';
}

static int dms_hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Parse 1..maxdig hex digits at *p; advance *p.  False when there are none or too many. */
static bool dms_hex(const char **p, unsigned maxdig, uint32_t *out)
{
    const char *q = *p;
    uint32_t v = 0;
    unsigned n = 0;
    int d;
    while ((d = dms_hexval(*q)) >= 0) {
        if (++n > maxdig) return false;
        v = v << 4 | (uint32_t)d;
        q++;
    }
    if (n == 0) return false;
    *p = q;
    *out = v;
    return true;
}

/* A list of 1..VX_DMS_BATCH comma-separated hex numbers; stops at the first other char. */
static bool dms_list(const char **p, unsigned maxdig, uint32_t *vals, unsigned *n)
{
    *n = 0;
    for (;;) {
        if (*n == VX_DMS_BATCH) return false;
        if (!dms_hex(p, maxdig, &vals[*n])) return false;
        (*n)++;
        if (**p != ',') return true;
        (*p)++;
    }
}

static bool dms_addrs_ok(const uint32_t *a, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        if (a[i] >= VX_DM_NREGS) return false;
    return true;
}

static void dms_command(dms *s, char *line, size_t len)
{
    uint32_t addrs[VX_DMS_BATCH], vals[VX_DMS_BATCH], v;
    unsigned na, nv;
    char buf[VX_DMS_REPLY];
    const char *p = line + 1;

    if (len > 0 && line[len - 1] == '\r') line[--len] = '\0';
    if (len == 0 || memchr(line, '\0', len)) {
        dms_reply(s, "-");
        return;
    }
    switch (line[0]) {
    case 'p': dms_reply(s, len == 1 ? "+P" : "-"); return;
    case 's':
        if (len != 1) break;
        s->started = true;
        s->idle = false;
        dms_reply(s, "+");
        return;
    case 'q':
        if (len != 1) break;
        dms_reply(s, "+");
        s->closing = true;
        return;
    case 'r':
        if (!dms_hex(&p, 4, &addrs[0]) || *p || addrs[0] >= VX_DM_NREGS) break;
        if (vx_sim_dm_read(s->sim, addrs[0], &v) != VX_OK) break;
        snprintf(buf, sizeof buf, "+%08x", v);
        dms_reply(s, buf);
        return;
    case 'w':
        if (!dms_hex(&p, 4, &addrs[0]) || *p++ != ':' || !dms_hex(&p, 8, &v) || *p ||
            addrs[0] >= VX_DM_NREGS)
            break;
        if (vx_sim_dm_write(s->sim, addrs[0], v) != VX_OK) break;
        s->settle = s->hold = true;
        s->idle = false;
        s->ended = s->limit;
        dms_reply(s, "+");
        return;
    case 'R': {
        if (!dms_list(&p, 4, addrs, &na) || *p || !dms_addrs_ok(addrs, na)) break;
        size_t o = 0;
        buf[o++] = '+';
        for (unsigned i = 0; i < na; i++) {
            if (vx_sim_dm_read(s->sim, addrs[i], &v) != VX_OK) v = 0;
            o += (size_t)snprintf(buf + o, sizeof buf - o, i ? ",%08x" : "%08x", v);
        }
        dms_reply(s, buf);
        return;
    }
    case 'W':
        if (!dms_list(&p, 4, addrs, &na) || (*p != ';' && *p != ':')) break;
        p++;
        if (!dms_list(&p, 8, vals, &nv) || *p || nv != na || !dms_addrs_ok(addrs, na)) break;
        for (unsigned i = 0; i < na; i++)
            vx_sim_dm_write(s->sim, addrs[i], vals[i]);
        s->settle = s->hold = true;
        s->idle = false;
        s->ended = s->limit;
        dms_reply(s, "+");
        return;
    default: break;
    }
    dms_reply(s, "-");
}

/* Consume received bytes into lines and answer them while there is room for replies. */
static void dms_consume(dms *s)
{
    while (s->inpos < s->inlen && !s->closing && s->outlen + VX_DMS_REPLY <= sizeof s->out) {
        char c = s->in[s->inpos++];
        if (c == '\n') {
            if (s->overlong) {
                dms_reply(s, "-");
            } else {
                s->line[s->linelen] = '\0';
                dms_command(s, s->line, s->linelen);
            }
            s->linelen = 0;
            s->overlong = false;
            /* a client that sends lines without waiting for replies: the request a
             * write made (a step, an injection) is carried out before the next line is
             * answered, as for one that waits */
            if (s->hold) break;
        } else if (s->overlong) {
            /* drop the rest of an overlong line */
        } else if (s->linelen == VX_DMS_LINE_MAX) {
            s->overlong = true;
        } else {
            s->line[s->linelen++] = c;
        }
    }
}

static void dms_drop_client(dms *s)
{
    if (s->cfd >= 0) close(s->cfd);
    s->cfd = -1;
    s->linelen = 0;
    s->overlong = false;
    s->inpos = s->inlen = 0;
    s->outlen = 0;
    s->closing = false;
}

/* Send what we can; false when the client is gone. */
static bool dms_flush(dms *s)
{
    while (s->outlen) {
        ssize_t n = send(s->cfd, s->out, s->outlen, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return true;
            return false;
        }
        memmove(s->out, s->out + n, s->outlen - (size_t)n);
        s->outlen -= (size_t)n;
    }
    return true;
}

/* Read what is available; false when the client is gone. */
static bool dms_receive(dms *s)
{
    if (s->inpos < s->inlen) return true; /* still consuming */
    s->inpos = s->inlen = 0;
    for (;;) {
        ssize_t n = recv(s->cfd, s->in, sizeof s->in, 0);
        if (n > 0) {
            s->inlen = (size_t)n;
            return true;
        }
        if (n == 0) return false;
        if (errno == EINTR) continue;
        return errno == EAGAIN || errno == EWOULDBLOCK;
    }
}

/* Serve the connected client for one round: read, answer, send. */
static void dms_serve(dms *s)
{
    if (!dms_receive(s)) {
        dms_drop_client(s);
        return;
    }
    dms_consume(s);
    if (!dms_flush(s)) {
        dms_drop_client(s);
        return;
    }
    if (s->closing && s->outlen == 0) dms_drop_client(s);
}

/* Accept a client (or turn it away when one is served).  VX_OK also when there was
 * none or it could not be accepted for the moment: then the listener rests
 * VX_CLI_ACCEPT_BACKOFF_MS ms (the connection waits in the backlog meanwhile). */
static vx_err dms_accept(dms *s, char *msg, size_t cap)
{
    int fd = accept(s->lfd, NULL, NULL);
    if (fd < 0) {
        int err = errno;
        if (err == EAGAIN || err == EWOULDBLOCK || err == EINTR || err == ECONNABORTED)
            return VX_OK;
        if (vx_cli_accept_fatal(err)) {
            dms_msg(msg, cap, "accept failed in the Debug Module server: %s", strerror(err));
            return VX_ERR_IO;
        }
        s->backoff = true;
        s->backoff_until = vx_cli_now_ms() + VX_CLI_ACCEPT_BACKOFF_MS;
        if (!s->noted && vx_cli_accept_short(err)) {
            s->noted = true;
            if (s->on_note) {
                char text[256];
                if (s->cfd >= 0)
                    snprintf(text, sizeof text,
                             "cannot accept another Debug Module client to turn it away: %s "
                             "(it waits, and is served once this one has left)",
                             strerror(err));
                else
                    snprintf(text, sizeof text,
                             "cannot accept a Debug Module client: %s (it waits, and is "
                             "served once a file descriptor is free; trying every %d ms)",
                             strerror(err), VX_CLI_ACCEPT_BACKOFF_MS);
                s->on_note(s->note_ctx, text);
            }
        }
        return VX_OK;
    }
    s->noted = false;
    if (s->cfd >= 0) { /* one client at a time: another is closed at once, not left waiting */
        close(fd);
        return VX_OK;
    }
    if (dms_nonblock(fd) != 0) {
        close(fd);
        return VX_OK;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    s->cfd = fd;
    return VX_OK;
}

/* ---- the simulator side -------------------------------------------------------------------- */

/* Let the DM's timed requests (reset hold, step, injection) finish while nothing issues. */
static void dms_settle(dms *s)
{
    unsigned n = 0;
    while (vx_sim_in_reset(s->sim) && n++ < VX_DMS_SETTLE)
        vx_sim_dm_tick(s->sim);
    vx_sim_dm_tick(s->sim);
    vx_sim_dm_tick(s->sim);
    s->settle = s->hold = false;
}

static bool dms_can_run(const dms *s)
{
    return s->started && !s->idle && !s->ended;
}

static vx_err dms_run_slice(dms *s)
{
    vx_stop st;
    if (vx_sim_finished(s->sim)) {
        s->ended = true;
        return VX_OK;
    }
    memset(&st, 0, sizeof st);
    vx_err e = vx_sim_run(s->sim, VX_DMS_SLICE, &st);
    if (e != VX_OK) return e;
    s->hold = false;
    if (s->on_slice) s->on_slice(s->slice_ctx);
    switch (st.reason) {
    case VX_STOP_NONE:
    case VX_STOP_HALT: break;
    case VX_STOP_IDLE: s->idle = true; break;
    case VX_STOP_LIMIT: s->limit = true; /* fall through */
    case VX_STOP_EXIT:
    case VX_STOP_FAULT:
        s->ended = true;
        s->final = st;
        break;
    }
    return VX_OK;
}

vx_err vx_dmserver_run(vx_sim *sim, const vx_dmserver_opts *opts, vx_stop *final, char *msg,
                       size_t cap)
{
    return vx_dmserver_run_sliced(sim, opts, NULL, NULL, final, msg, cap);
}

vx_err vx_dmserver_run_sliced(vx_sim *sim, const vx_dmserver_opts *opts, void (*on_slice)(void *),
                              void *slice_ctx, vx_stop *final, char *msg, size_t cap)
{
    return vx_dmserver_run_bound(sim, opts, -1, on_slice, slice_ctx, final, msg, cap);
}

vx_err vx_dmserver_run_bound(vx_sim *sim, const vx_dmserver_opts *opts, int lfd,
                             void (*on_slice)(void *), void *slice_ctx, vx_stop *final, char *msg,
                             size_t cap)
{
    static dms zero;
    dms *s = malloc(sizeof *s);
    vx_err e;

    if (msg && cap) msg[0] = '\0';
    if (!s) {
        dms_msg(msg, cap, "out of memory starting the Debug Module server");
        if (lfd >= 0) close(lfd);
        return VX_ERR_NOMEM;
    }
    *s = zero;
    s->sim = sim;
    s->lfd = s->cfd = -1;
    s->on_slice = on_slice;
    s->slice_ctx = slice_ctx;
    s->stop = opts->stop;
    s->on_note = opts->on_note;
    s->note_ctx = opts->ctx;
    e = dms_listen(s, opts, lfd, msg, cap);
    if (e != VX_OK) {
        free(s);
        return e;
    }

    for (;;) {
        if (s->cfd < 0 && s->ended) break;
        if (s->stop && *s->stop) break; /* interrupted: final stays "none" */

        /* While the machine can run, simulate a slice between two looks at the socket. */
        if (dms_can_run(s)) {
            e = dms_run_slice(s);
            if (e != VX_OK) {
                dms_msg(msg, cap, "simulation failed under the Debug Module server: %s",
                        vx_sim_errmsg(sim));
                break;
            }
        }
        if (!dms_can_run(s) && s->settle) {
            /* Nothing issues: give the DM the cycles it needs, then try to run again
             * (a reset without halt, or a resume, makes warps runnable). */
            dms_settle(s);
            if (s->started) s->idle = false;
            s->ended = s->limit;
            continue;
        }
        if (s->cfd < 0 && s->ended) break;

        /* pfd[0]: the client (or the listener when there is none); pfd[1]: the
         * listener while a client is served, to turn others away */
        struct pollfd pfd[2] = {{s->lfd, POLLIN, 0}, {s->lfd, POLLIN, 0}}, *pf = &pfd[0];
        bool room = s->outlen + VX_DMS_REPLY <= sizeof s->out;
        bool buffered = s->inpos < s->inlen;
        /* Bytes received but not consumed yet, and room to answer them: no sleeping. */
        bool pending_in = s->cfd >= 0 && buffered && room && !s->closing;
        if (s->cfd >= 0) {
            pf->fd = s->cfd;
            pf->events = 0;
            /* Ask for input only when it could be consumed, or poll() would spin. */
            if (!buffered && room && !s->closing) pf->events |= POLLIN;
            if (s->outlen) pf->events |= POLLOUT;
        }
        /* (with a stop flag, a signal that comes just before poll() is seen within
         * STOP_LOOK ms: poll() returns EINTR only for one that comes during it) */
        int timeout = dms_can_run(s) || pending_in ? 0 : s->stop ? VX_DMS_STOP_LOOK : -1;
        /* The listener rests after accept() failed for lack of fds: it is not polled
         * (it would stay readable), and the wait ends when it may be tried again. */
        nfds_t nfds = s->cfd >= 0 ? 2 : 1;
        if (s->backoff) {
            long long left = s->backoff_until - vx_cli_now_ms();
            if (left <= 0) {
                s->backoff = false;
            } else {
                nfds--; /* the listener is the last one polled */
                if (timeout < 0 || timeout > left) timeout = (int)left;
            }
        }
        int rc = poll(pfd, nfds, timeout);
        if (rc < 0 && errno != EINTR) {
            dms_msg(msg, cap, "poll failed in the Debug Module server: %s", strerror(errno));
            e = VX_ERR_IO;
            break;
        }
        if (s->cfd < 0) {
            if (rc > 0 && (e = dms_accept(s, msg, cap)) != VX_OK) break;
            continue;
        }
        if (rc > 0 && nfds == 2 && (pfd[1].revents & POLLIN) && !pf->revents && !pending_in) {
            /* A client that leaves and connects again at once: its hang-up may come
             * just after the new connection; let it end this session first. */
            struct pollfd q = {s->cfd, POLLIN, 0};
            if (poll(&q, 1, 200) <= 0 && (e = dms_accept(s, msg, cap)) != VX_OK) break;
        }
        if ((rc > 0 && pf->revents) || pending_in) {
            if (pf->revents & (POLLERR | POLLNVAL)) {
                dms_drop_client(s);
                continue;
            }
            dms_serve(s);
        }
    }

    if (s->cfd >= 0) close(s->cfd);
    close(s->lfd);
    if (final) {
        if (e == VX_OK)
            *final = s->final;
        else
            memset(final, 0, sizeof *final);
    }
    free(s);
    return e;
}
