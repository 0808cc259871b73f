/*
 * gdbserver.h - the GDB remote protocol server of vxreplay: packets in, engine
 * requests out.  It owns the framing (rsp.c) and the GDB view of the machine
 * (threads, registers, stop replies, monitor commands); the transport (net.c)
 * owns the file descriptors.
 */
#ifndef VX_GDBSERVER_H
#define VX_GDBSERVER_H

#include <stdio.h>

#include "engine.h"

typedef struct vx_gdb_io {
    /* Send bytes to the client. */
    void (*write)(void *ctx, const uint8_t *buf, size_t len);
    /*
     * Non-blocking: true when the client asked to stop (0x03) or went away.  Called
     * from long motions.  Bytes other than 0x03 must be kept and passed to
     * vx_gdbserver_input() afterwards.
     */
    bool (*poll)(void *ctx);
    void *ctx;
} vx_gdb_io;

typedef struct vx_gdbserver_opts {
    bool thread_per_warp; /* one GDB thread per warp (else one per lane) */
    FILE *log;            /* where divergence and errors are also reported (stderr), or NULL */
    bool debug;           /* log every packet to log */
    /* a continue or step (either direction) that runs longer than this many milliseconds
     * says how far it has got on GDB's console, and again each time as long after
     * (0: the default, 3000; negative: never) */
    int progress_ms;
} vx_gdbserver_opts;

typedef struct vx_gdbserver vx_gdbserver;

vx_err vx_gdbserver_new(vx_engine *e, const vx_gdbserver_opts *opts, vx_gdbserver **out);
void vx_gdbserver_free(vx_gdbserver *srv);

/* A new client: fresh protocol state, no breakpoints. */
void vx_gdbserver_begin(vx_gdbserver *srv, const vx_gdb_io *io);

/* Bytes from the client.  Returns false once the client has ended the session (k, D, vKill). */
bool vx_gdbserver_input(vx_gdbserver *srv, const uint8_t *buf, size_t n);

/* Ack mode, and the client has not acknowledged the last reply yet (after D, its
 * OK: a transport waits a moment for the '+' before it closes, so that the client's
 * write does not meet a closed pipe). */
bool vx_gdbserver_awaiting_ack(const vx_gdbserver *srv);

/* The client is gone (or the session ended): forget its breakpoints. */
void vx_gdbserver_end(vx_gdbserver *srv);

/* Thread ids (documented numbering): per lane 1 + gwarp * threads + lane; per warp 1 + gwarp. */
uint64_t vx_gdbserver_tid(const vx_gdbserver *srv, uint32_t gwarp, uint32_t lane);

#endif /* VX_GDBSERVER_H */
