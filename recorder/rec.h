/*
 * rec.h - vxrec internals: recording (record.c) and verification (verify.c).
 * main.c parses the command line and owns stdout, stderr and the exit status.
 */
#ifndef VX_REC_H
#define VX_REC_H

#include <stdio.h>

#include "cli.h"
#include "vx_sim.h"
#include "vx_trace.h"

extern const char *vxrec_prog;

typedef struct vxrec_opts {
    vx_cli_run run;             /* platform, --load, --arg, --max-cycles, --mem-limit, --dump */
    const char *kernel;         /* KERNEL */
    const char *output;         /* -o TRACE (NULL: KERNEL basename without extension + .vxt) */
    bool force;                 /* --force: overwrite an existing trace */
    bool quiet;                 /* --quiet: no progress line, no summary */
    bool no_compress;           /* --no-compress */
    int writer_thread;          /* encode and write in a second thread (pipe.c): 1 yes, 0 no,
                                   -1 (default) when 2 or more CPUs are online */
    int compress_thread;        /* with the writer thread, a third one compresses its chunks:
                                   1 yes, 0 no, -1 (default) when 3 or more CPUs are online */
    bool timing;                /* --timing: print where the time went */
    bool discard;               /* --discard: observe every event but record nothing (benchmarks) */
    uint64_t keyframe_interval; /* --keyframe-interval N (issues; 0 = keyframe 0 only) */
    uint32_t chunk_bytes;       /* --chunk-size (raw bytes per EVENTS chunk) */
    bool dm;                    /* --dm-port given */
    unsigned dm_port;
    const char *dm_bind;
} vxrec_opts;

/* Record a kernel (and write its --dump files); returns the process exit status
 * (DESIGN.md §7). */
int vxrec_record(vxrec_opts *o);

/* vxrec --verify TRACE [--races]: 0 when the trace matches a re-simulation, 1 when it
 * diverges, 2 on error; 5 when it matches and --races found a data race (reported on
 * stderr). */
int vxrec_verify(const char *trace, bool quiet, bool races);

/* Monotonic seconds (programs may read the clock; the libraries may not). */
double vxrec_now(void);

/* CPU seconds of the calling thread. */
double vxrec_thread_cpu(void);

#endif
