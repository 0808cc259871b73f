/*
 * pipe.h - vxrec's writer thread (pipe.c): events and keyframes are copied by the
 * simulator's thread and written, in order, by another thread.
 */
#ifndef VX_REC_PIPE_H
#define VX_REC_PIPE_H

#include "vx_sim.h"
#include "vx_trace.h"

typedef struct vxrec_pipe vxrec_pipe;

/*
 * Start the writer thread for w (no event yet); threads = lanes per warp.  With hdr,
 * the writer thread writes that header first (vx_trace_writer_header; hdr and what
 * it points to must last until vxrec_pipe_finish): its image's compression then
 * overlaps the start of the run.  Without, the header is written already.  The
 * writer compresses its chunks deferred (vx_trace_writer_defer): with compressor, a
 * third thread compresses them as they come; the simulator's thread compresses some
 * of them when it would otherwise wait.
 */
vx_err vxrec_pipe_start(vxrec_pipe **out, vx_trace_writer *w, const vx_trace_header *hdr,
                        uint32_t threads, bool compressor);

/*
 * The pipe's end of the simulator's compact log (vx_sim_set_log): the simulator
 * writes the common issues straight into the batches, in order with the events
 * queued by vxrec_pipe_event and the keyframes.
 */
vx_log *vxrec_pipe_log(vxrec_pipe *p);

/* Queue a copy of an event (not END); false when the writer thread has failed. */
bool vxrec_pipe_event(vxrec_pipe *p, const vx_event *ev);

/*
 * A buffer for a keyframe's pages of at least n bytes (its size in *cap), freed with
 * free() or given to vxrec_pipe_keyframe; NULL when out of memory.  Usually the
 * previous keyframe's, handed back by the writer thread.
 */
uint8_t *vxrec_pipe_pages(vxrec_pipe *p, size_t n, size_t *cap);

/*
 * Queue a keyframe: state (len bytes, malloc'd) and pages (npages records of u32
 * space, u32 addr, 4096 bytes, in a buffer of cap bytes from vxrec_pipe_pages), both
 * owned by the pipe from now on.
 */
bool vxrec_pipe_keyframe(vxrec_pipe *p, uint64_t cycle, uint8_t *state, size_t len, uint8_t *pages,
                         size_t npages, size_t cap);

/*
 * Wait until the writer thread has written the header given to vxrec_pipe_start
 * (at once without one); false when it failed.  For a run that may wait long before
 * its first events (a Debug Module session): the trace is readable from then on.
 */
bool vxrec_pipe_header_wait(vxrec_pipe *p);

/* Has the writer thread failed (a write error)?  Then recording may stop early: the
 * error comes from vxrec_pipe_finish. */
bool vxrec_pipe_failed(vxrec_pipe *p);

/* Trace bytes written so far (for the progress line). */
uint64_t vxrec_pipe_file_bytes(vxrec_pipe *p);

/* Where the time went (vxrec --timing). */
typedef struct vxrec_pipe_times {
    double writer_cpu;          /* CPU seconds of the writer thread */
    double waited;              /* seconds the simulator's thread waited (idle) for the writer */
    uint64_t jobs;              /* EVENTS chunks the writer queued for compression */
    uint64_t helped;            /* of them, compressed by the simulator's thread */
    double compressor_cpu;      /* CPU seconds of the compressor thread */
    uint64_t compressor_chunks; /* chunks it compressed */
    bool compressor;            /* there was one */
} vxrec_pipe_times;

/*
 * Write everything queued, stop the thread and free the pipe (the writer belongs to
 * the caller again).  Returns the writer thread's first error, described in msg;
 * fills *t (may be NULL).
 */
vx_err vxrec_pipe_finish(vxrec_pipe *p, char *msg, size_t cap, vxrec_pipe_times *t);

#endif
