/*
 * dmserver.h - the VxDebug TCP transport (DESIGN.md §2), shared by vxsim and vxrec.
 *
 * Line protocol, one newline-terminated ASCII command per line:
 *   p                      -> +P          (handshake)
 *   s                      -> +           (start: release the platform from reset)
 *   rAAAA                  -> +VVVVVVVV   or -
 *   wAAAA:VVVVVVVV         -> +           or -
 *   RAAAA,BBBB,...         -> +V1,V2,...  (at most 8)
 *   WAAAA,BBBB,...;V1,V2.. -> +           (at most 8)
 *   q                      -> +           (client is leaving)
 * Anything else, or a line that is too long, gets "-"; the server never dies on input.
 */
#ifndef VX_DMSERVER_H
#define VX_DMSERVER_H

#include <signal.h>
#include <stdio.h>
#include "vx_sim.h"

typedef struct vx_dmserver_opts {
    const char *bind; /* address to bind, default "127.0.0.1" */
    unsigned port;    /* TCP port (0: pick a free one and report it through on_listen) */
    /* Called once the socket listens, with the address it is bound to, numeric, in
     * brackets when IPv6 ("127.0.0.1", "[::1]": host:port reads unambiguously), and
     * the actual port (for messages / tests). */
    void (*on_listen)(void *ctx, const char *bind, unsigned port);
    void *ctx;
    /* When not NULL: a flag a signal handler sets (Ctrl-C).  Once it is set the
     * server stops within a fraction of a second, between two slices: it closes the
     * connection and returns VX_OK with final->reason VX_STOP_NONE. */
    volatile sig_atomic_t *stop;
    /* The program's channel for what the server has to tell the user while it runs
     * (the library itself prints nothing): on_note(ctx, text), one line, no newline,
     * e.g. when a client cannot be accepted for lack of file descriptors (once, until
     * a client is accepted again; the server keeps trying every 100 ms meanwhile, and
     * the simulation goes on).  NULL: such notes are dropped. */
    void (*on_note)(void *ctx, const char *text);
} vx_dmserver_opts;

/*
 * Run the simulation under debugger control.  The platform is held in reset until a
 * client sends 's'.  The simulator advances on its own while any warp is active and
 * not halted; DM accesses are answered between instruction issues.  Clients may
 * connect and disconnect one after another; a disconnect leaves the platform as it
 * is.  When the kernel ends while a client is connected, the server keeps answering
 * until that client disconnects.  Returns when the kernel has ended (or faulted) and
 * no client is connected; *final says how it ended.  Errors (cannot bind, ...) are
 * returned with a message in msg.
 */
vx_err vx_dmserver_run(vx_sim *sim, const vx_dmserver_opts *opts, vx_stop *final, char *msg,
                       size_t cap);

/*
 * The same, calling on_slice(slice_ctx) after every slice of simulation, between two
 * vx_sim_run calls (the machine is in a resumable state there): vxrec takes its
 * keyframes there.  on_slice may be NULL.
 */
vx_err vx_dmserver_run_sliced(vx_sim *sim, const vx_dmserver_opts *opts, void (*on_slice)(void *),
                              void *slice_ctx, vx_stop *final, char *msg, size_t cap);

/*
 * Bind and listen (opts->bind, opts->port) without serving yet, so that a program
 * can refuse a bad address or a busy port before it creates any output; *lfd is the
 * listening socket, for vx_dmserver_run_bound (which owns it from then on).
 */
vx_err vx_dmserver_bind(const vx_dmserver_opts *opts, int *lfd, char *msg, size_t cap);

/* vx_dmserver_run_sliced on a socket from vx_dmserver_bind (lfd < 0: bind here). */
vx_err vx_dmserver_run_bound(vx_sim *sim, const vx_dmserver_opts *opts, int lfd,
                             void (*on_slice)(void *), void *slice_ctx, vx_stop *final, char *msg,
                             size_t cap);

#endif /* VX_DMSERVER_H */
