/*
 * vx_trace.h - libvxtrace: write and read vxrr traces (.vxt).
 *
 * The format is specified byte for byte in trace-format/FORMAT.md; this library is
 * one implementation of it.  It depends on nothing but vx_base.h, vx_err.h,
 * vx_event.h and liblz4 (never on the simulator: a trace can be read without one).
 *
 * Linking: libvxtrace.a and -llz4; installed (make install), `pkg-config --cflags
 * --libs vxtrace` gives both and the include directory, PREFIX/include/vxrr.
 *
 * Object model (lz4 / SQLite style)
 *   vx_trace_writer and vx_trace_reader are opaque handles made by _new() and
 *   released by _free() (which accept NULL).  Every function that can fail returns
 *   a vx_err; the handle then keeps a detailed message (_errmsg()) naming the file,
 *   the byte offset and what was wrong.  Handles are not thread-safe; use one per
 *   thread.  The library never prints, exits, reads the clock or uses randomness.
 *
 * Writing
 *   vx_trace_writer_new(&w);
 *   vx_trace_writer_create(w, "k.vxt", &opts);     refuses an existing file unless forced
 *   vx_trace_writer_header(w, &hdr);               configuration, image, loads
 *   vx_trace_writer_keyframe_begin/page/end(...)   keyframe 0 (state + the pages that
 *                                                  differ from the prologue's memory)
 *   vx_trace_writer_event(w, ev) ...               every event, in order
 *   vx_trace_writer_keyframe_begin/page/end(...)   now and then
 *   vx_trace_writer_finish(w);                     END (if missing), index, trailer
 *   vx_trace_writer_free(w);
 *   The file is readable at every moment (up to its last complete chunk): a
 *   recorder that is killed leaves an incomplete but usable trace.  Freeing a writer
 *   without finishing it leaves such a trace too.
 *
 * Reading
 *   vx_trace_reader_new(&r);
 *   vx_trace_reader_open(r, "k.vxt");              signature, header, index (or scan)
 *   while ((e = vx_trace_reader_next(r, &ev)) == VX_OK) ...   until VX_ERR_END
 *   vx_trace_reader_seek(r, index);                random access by event index
 *   vx_trace_reader_keyframe_find / _keyframe / _keyframe_pages / _seek_keyframe
 *   vx_trace_reader_free(r);
 *   Every length read from the file is bounded; damage is reported as
 *   VX_ERR_CORRUPT with the byte offset, never a crash.
 */
#ifndef VX_TRACE_H
#define VX_TRACE_H

#include "vx_base.h"
#include "vx_err.h"
#include "vx_event.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Format version written by this library (FORMAT.md §3.1, §15). */
#define VX_TRACE_MAJOR 1
#define VX_TRACE_MINOR 2

#define VX_TRACE_SUFFIX                  ".vxt"
#define VX_TRACE_DEFAULT_CHUNK           (128u * 1024u) /* raw bytes per EVENTS chunk */
#define VX_TRACE_DEFAULT_KEYFRAME_ISSUES 1000000u       /* issues between keyframes */
#define VX_TRACE_PAGE_SIZE               4096u

/* Sanity limits on one issue (FORMAT.md §14); the writer refuses more. */
#define VX_TRACE_MAX_COMMITS 256u
#define VX_TRACE_MAX_MEM     4096u
#define VX_TRACE_MAX_WCTL    (1u << 17)
#define VX_TRACE_MAX_CONSOLE 4096u

/* ---- the header: everything needed to replay without the original files ---------- */

typedef struct vx_trace_load {
    uint32_t addr;
    const uint8_t *bytes;
    size_t len;
    const char *name; /* basename of the loaded file (the writer strips directories); may be NULL */
} vx_trace_load;

/* Does load region l lie in global memory, [0x80, 0xFFFF0000), as FORMAT.md 5.1 says it
 * MUST?  The reader does not check (a replayer or verifier refuses a region outside). */
static inline bool vx_trace_load_in_global(const vx_trace_load *l)
{
    return l->addr >= 0x80u && l->addr < 0xFFFF0000u && l->len <= 0xFFFF0000u - l->addr;
}

/* Can a keyframe page at addr be in memory space `space` (0: global memory, 1 + core:
 * that core's local memory) of a platform of ncores cores, as FORMAT.md 9.1 says it
 * MUST?  The reader does not check (a replayer or verifier refuses such a page). */
static inline bool vx_trace_page_in_space(uint32_t space, uint32_t addr, uint32_t ncores)
{
    const uint32_t page = addr >> 12;
    if (space > ncores) return false;
    return space == 0 ? page < 0xFFFF0u : page >= 0xFFFF0u && page <= 0xFFFF3u;
}

/* vx_trace_header.flags */
#define VX_TRACE_HF_EBREAK_HALT 0x1u /* DCONFIG.ebreakh set from the start */
#define VX_TRACE_HF_DM_SERVER   0x2u /* recorded under a Debug Module server (vxrec --dm-port) */
#define VX_TRACE_HF_MISALIGNED \
    0x4u /* misaligned loads/stores carried out (--allow-misaligned; 1.2) */

typedef struct vx_trace_header {
    uint32_t clusters, cores, warps, threads; /* platform shape */
    uint64_t mem_limit;                       /* guest memory limit (0 = simulator default) */
    uint32_t start_pc;                        /* reset PC */
    uint32_t arg;                             /* reset mscratch (kernel argument pointer) */
    uint64_t max_cycles;                      /* cycle limit of the run (0 = none) */
    uint64_t keyframe_interval;               /* issues between keyframes (0 = keyframe 0 only) */
    uint32_t flags;                           /* VX_TRACE_HF_* */
    uint8_t image_kind;                       /* vx_image_kind: 1 ELF, 2 vxbin, 3 raw binary */
    const char *image_name;                   /* basename (the writer strips directories) */
    const uint8_t *image;                     /* the kernel file bytes */
    size_t image_len;
    uint32_t nloads;
    const vx_trace_load *loads;
    const char *sim_version; /* VX_VERSION_STRING of the recording simulator */
    /* Filled by the reader (the file's version); ignored by the writer. */
    uint16_t major, minor;
} vx_trace_header;

/* ---- statistics ------------------------------------------------------------------- */

typedef struct vx_trace_stats {
    uint64_t issues;  /* issue records */
    uint64_t records; /* all records (issues, DM events, END) */
    uint64_t dm_events;
    uint64_t cycle;         /* cycle of the last record */
    uint64_t raw_bytes;     /* raw commit-log size (FORMAT.md §13) */
    uint64_t encoded_bytes; /* record bytes before LZ4 */
    uint64_t event_bytes;   /* file bytes taken by EVENTS chunks (headers included) */
    uint64_t file_bytes;    /* bytes written to the file so far */
    uint64_t chunks;        /* EVENTS chunks written */
    uint64_t keyframes;
    uint64_t keyframe_bytes; /* file bytes taken by PAGES and KEYFRAME chunks */
} vx_trace_stats;

/* ---- writer ------------------------------------------------------------------------ */

typedef struct vx_trace_writer vx_trace_writer;

/* vx_trace_writer_opts.flags */
#define VX_TRACE_W_FORCE      0x1u /* overwrite an existing file (default: VX_ERR_EXISTS) */
#define VX_TRACE_W_NOCOMPRESS 0x2u /* store every chunk uncompressed (golden files, debugging) */

typedef struct vx_trace_writer_opts {
    unsigned flags;       /* VX_TRACE_W_* */
    uint32_t chunk_bytes; /* target raw bytes per EVENTS chunk; 0 = VX_TRACE_DEFAULT_CHUNK */
} vx_trace_writer_opts;

#define VX_TRACE_WRITER_OPTS_INIT \
    {                             \
        0, 0                      \
    }

/*
 * Errors.  A refusal (VX_ERR_INVAL, VX_ERR_STATE, VX_ERR_RANGE for a keyframe state
 * too large, ...: a bad argument or a call out of order) changes nothing: the writer
 * goes on.  A failure while writing (VX_ERR_IO, VX_ERR_NOMEM: the host ran out of
 * memory, VX_ERR_RANGE: a chunk the format cannot hold) is sticky: what was accepted
 * may be lost, so every later call returns that error and writes nothing; the file
 * then reads as cut off at its last complete chunk (finish and free still write the
 * complete chunks queued before a memory failure, never an END record or an index).
 */
vx_err vx_trace_writer_new(vx_trace_writer **out);
/* Closes the file without finishing it (the trace is left incomplete); accepts NULL. */
void vx_trace_writer_free(vx_trace_writer *w);
const char *vx_trace_writer_errmsg(const vx_trace_writer *w);

/*
 * Create the trace file at path (opts may be NULL).  An existing file gives
 * VX_ERR_EXISTS unless VX_TRACE_W_FORCE, which replaces a regular file by a new one
 * (whoever has the old one open keeps it) and writes through a symbolic link or into
 * a device.  A directory, FIFO or socket gives VX_ERR_INVAL.  Writes nothing yet.
 */
vx_err vx_trace_writer_create(vx_trace_writer *w, const char *path,
                              const vx_trace_writer_opts *opts);

/*
 * Write the signature and the prologue (HEADER, IMAGE, LOAD chunks).  Must come
 * right after create.  The header is validated (VX_ERR_CONFIG for an impossible
 * platform shape) and copied: the caller's buffers may be freed afterwards.
 */
vx_err vx_trace_writer_header(vx_trace_writer *w, const vx_trace_header *hdr);

/*
 * Only the checks of vx_trace_writer_header: VX_OK when it would take hdr (it can
 * then fail only on memory or I/O), else its error and message (the writer then
 * fails, as it would have).  Writes nothing.  For a caller that writes the header
 * on another thread (vxrec), so that a bad header is still refused before the run.
 */
vx_err vx_trace_writer_header_check(vx_trace_writer *w, const vx_trace_header *hdr);

/*
 * Append one event (VX_EV_ISSUE, VX_EV_DM or VX_EV_END).  ev->index must be the
 * number of issues appended so far (VX_ERR_INVAL otherwise), lanes must be < the
 * thread count, core/warp in range.  Refused too (VX_ERR_INVAL, the writer goes on)
 * is what FORMAT.md says a writer never writes: a register beyond x31/f31/CSR 4095,
 * a write of a size other than 1, 2, 4 or outside [0x80, 0xFFFF4000) (7.3), a
 * faulting issue with other effects (7.6), an injected instruction in more than one
 * lane, an END with a fault but for status VX_END_FAULT or that status without one
 * (8.2), a console slot >= 64, a newline in a fault's reason.  Not checked: that the
 * events are what a Vortex would do (vxrec --verify re-simulates).  vx_event.reads
 * are not stored.  Nothing can follow a VX_EV_END event but keyframes and finish.
 * Never allocates per event (buffers grow to the largest event seen).
 */
vx_err vx_trace_writer_event(vx_trace_writer *w, const vx_event *ev);

/*
 * Append the events of a run of compact records (vx_logrec, vx_event.h; written by
 * the simulator's log), exactly as vx_trace_writer_event would append them: from
 * buf, up to len bytes or the first byte that does not start a record (< 
 * VX_LOG_ISSUE).  *cycle: the cycle of the event before the run, updated.  Returns
 * the bytes consumed; on an error, *err says which: the run stops before a record
 * it refuses (cut short, or with a commit byte no record has, or a store at more
 * than 32 threads per warp) or after one whose event the writer refuses.
 */
size_t vx_trace_writer_logrecs(vx_trace_writer *w, const uint8_t *buf, size_t len, uint64_t *cycle,
                               vx_err *err);

/*
 * A keyframe at the current position (FORMAT.md §9): begin with the simulator's
 * state encoding (copied), then its pages, then end.  Keyframe 0: the pages that
 * differ from the prologue's memory (FORMAT.md §5.3; none right after loading, as
 * vxrec takes it: vx_sim_clear_dirty after loading, then vx_sim_visit_pages(sim,
 * false, ...)); storing more is allowed, every stored page is applied.  Later
 * keyframes: exactly the pages written since the previous keyframe (§9.3; vxrec
 * --verify reports any other).  Events, finish and another keyframe are refused
 * (VX_ERR_STATE) between begin and end.
 * page points to VX_TRACE_PAGE_SIZE bytes; addr is page aligned and in memory space
 * `space` (vx_trace_page_in_space); a page (space, addr) given twice in one keyframe
 * is refused (VX_ERR_INVAL, FORMAT.md §9.1).
 */
vx_err vx_trace_writer_keyframe_begin(vx_trace_writer *w, uint64_t cycle, const uint8_t *state,
                                      size_t len);
vx_err vx_trace_writer_keyframe_page(vx_trace_writer *w, uint32_t space, uint32_t addr,
                                     const uint8_t *page);
vx_err vx_trace_writer_keyframe_end(vx_trace_writer *w);

/*
 * Finish the trace: append an END record with status VX_END_ABORT if no END event
 * was appended, write the last EVENTS chunk, the INDEX and the trailer, close the
 * file.  After this only _stats and _free are allowed.  After a failure: the error,
 * and the trace stays cut off (see "Errors" above).
 */
vx_err vx_trace_writer_finish(vx_trace_writer *w);

/*
 * Deferred compression, for a writer fed by one thread while other threads have
 * time to spare.  on: from now on (after create, before the first event) a full
 * EVENTS chunk is queued (at most 4) rather than compressed at once; any thread may
 * then compress the oldest queued chunk with vx_trace_writer_help (the only call
 * allowed concurrently with the writer's thread), and the writer's thread
 * compresses what nobody took when it must write it.  The file is byte for byte the
 * same.  on_job (may be NULL) is called, on the writer's thread, each time a chunk
 * is queued.  Ignored with VX_TRACE_W_NOCOMPRESS.  Not on (any time, once no other
 * thread calls vx_trace_writer_help): the queued chunks are written and chunks are
 * compressed at once again; on_job is no longer called.
 */
vx_err vx_trace_writer_defer(vx_trace_writer *w, bool on, void (*on_job)(void *ctx), void *ctx);
/* Compress one queued chunk (the oldest not yet taken): false when there is none. */
bool vx_trace_writer_help(vx_trace_writer *w);
/* Chunks compressed by vx_trace_writer_help so far. */
uint64_t vx_trace_writer_helped(const vx_trace_writer *w);

/* Issues appended so far (= the event index of the next issue). */
uint64_t vx_trace_writer_index(const vx_trace_writer *w);
void vx_trace_writer_stats(const vx_trace_writer *w, vx_trace_stats *out);

/* ---- reader ------------------------------------------------------------------------ */

typedef struct vx_trace_reader vx_trace_reader;

vx_err vx_trace_reader_new(vx_trace_reader **out);
void vx_trace_reader_free(vx_trace_reader *r); /* accepts NULL */
const char *vx_trace_reader_errmsg(const vx_trace_reader *r);
/* The byte offset in the file where the last error that vx_trace_reader_errmsg
 * describes lies, as the message names it: the damaged chunk's header ("EVENTS chunk
 * at offset N"), the signature's checksum, a cut-short read; UINT64_MAX when the
 * message names none (no error, not a trace, out of memory, a usage error). */
uint64_t vx_trace_reader_error_offset(const vx_trace_reader *r);

/*
 * Open a trace: check the signature and version (VX_ERR_FORMAT: not a trace;
 * VX_ERR_VERSION: newer major version), read the prologue (VX_ERR_TRUNC when the
 * file was cut off before its end), then load the index, or rebuild it by scanning
 * the chunks when the trace is incomplete.  A reader can be opened once: after an
 * open that failed once the file was open (a damaged or truncated trace), another
 * open gives VX_ERR_STATE; free the reader and make a new one.
 * VX_ERR_IO: the file cannot be opened or is not a regular file (a directory, a
 * device, a FIFO: the reader reads at offsets; it never waits for a FIFO's writer).
 */
vx_err vx_trace_reader_open(vx_trace_reader *r, const char *path);
/* The same, naming the file `name` in messages (a copy of standard input, say). */
vx_err vx_trace_reader_open_as(vx_trace_reader *r, const char *path, const char *name);
/* The file that reader `other` has open (a descriptor of its own on the same file,
 * not the path again: a trace replaced there since, by vxrec --force say, is not
 * read in its place), under the same name. */
vx_err vx_trace_reader_open_same(vx_trace_reader *r, const vx_trace_reader *other);

/* The header; pointers stay valid while the reader lives (before a successful open:
 * a header of zeros). */
const vx_trace_header *vx_trace_reader_header(const vx_trace_reader *r);

/* True when the trace has no valid index/trailer (cut off): events end early (and
 * before a successful open). */
bool vx_trace_reader_incomplete(const vx_trace_reader *r);

typedef struct vx_trace_summary {
    bool complete;      /* !vx_trace_reader_incomplete() */
    bool has_end;       /* an END record was found (always true when complete) */
    uint8_t end_status; /* vx_end_status of the END record, 0 without one */
    uint64_t issues;    /* issue records readable */
    uint64_t records;   /* records (complete traces; 0 when incomplete: not counted) */
    uint64_t cycle;     /* cycle of the last readable record */
    uint64_t raw_bytes; /* raw commit-log size (complete traces; else 0) */
    uint64_t file_bytes;
    uint64_t chunks;    /* EVENTS chunks */
    uint64_t keyframes; /* usable keyframes */
} vx_trace_summary;

/*
 * Summary of the trace.  For a complete trace this comes from the index; for an
 * incomplete one the last EVENTS chunk is decoded (which can report corruption).
 * Does not disturb the iteration position.
 */
vx_err vx_trace_reader_summary(vx_trace_reader *r, vx_trace_summary *out);

/*
 * The next event in the stream: VX_OK and *ev, or VX_ERR_END after the last one
 * (for an incomplete trace: after the last complete chunk), or an error
 * (VX_ERR_CORRUPT, VX_ERR_IO) with a message.  *ev and everything it points to
 * stay valid until the next call on this reader.  Lanes not written by a commit
 * read as 0 in its values array (which has `threads` entries).
 */
vx_err vx_trace_reader_next(vx_trace_reader *r, const vx_event **ev);

/*
 * Position the stream so that the next event is the first one whose index is >=
 * index (the DM events that precede issue `index` come first).  Seeking past the
 * end is allowed: next then gives VX_ERR_END.  Costs at most one chunk decode.
 */
vx_err vx_trace_reader_seek(vx_trace_reader *r, uint64_t index);

/* Event index of the next event (the index it will carry). */
uint64_t vx_trace_reader_tell(const vx_trace_reader *r);

/*
 * Position the stream at the first record of EVENTS chunk i (i < the number of
 * chunks), without decoding anything.  Unlike vx_trace_reader_seek to its key, the
 * Debug Module records that chunk i - 1 ends with (they carry the key's index) are
 * not returned: for readers that skip whole chunks by their digests.
 */
vx_err vx_trace_reader_seek_chunk(vx_trace_reader *r, size_t i);

/* ---- keyframes ---- */

typedef struct vx_trace_keyframe {
    uint64_t index; /* event index (issues before it) */
    uint64_t cycle;
    uint64_t npages; /* pages stored with this keyframe (a delta) */
    /* Which memory the pages of keyframes 0..k apply to (FORMAT.md §9.3): true (format
     * 1.1 keyframes) the memory of the prologue, i.e. the IMAGE loaded and the LOAD
     * regions written; false (format 1.0) all-zero memory. */
    bool on_image;
} vx_trace_keyframe;

/* Usable keyframes (complete ones), numbered 0.. in file order. */
size_t vx_trace_reader_num_keyframes(const vx_trace_reader *r);

/* The last keyframe whose index is <= index: *k.  VX_ERR_RANGE when there is none. */
vx_err vx_trace_reader_keyframe_find(const vx_trace_reader *r, uint64_t index, size_t *k);

/*
 * Keyframe k: its info, and the simulator state encoding (sim/STATE.md) in
 * *state / *len (may be NULL).  *state stays valid until the next call of
 * vx_trace_reader_keyframe with a state on this reader (other calls, such as
 * _keyframe_pages and _check, leave it), or until the reader is freed.
 */
vx_err vx_trace_reader_keyframe(vx_trace_reader *r, size_t k, vx_trace_keyframe *info,
                                const uint8_t **state, size_t *len);

/*
 * Page visitor: page is VX_TRACE_PAGE_SIZE bytes (zero pages are passed as zeros),
 * valid during the call.  Return VX_OK to continue; any error stops the walk and
 * is returned by vx_trace_reader_keyframe_pages.
 */
typedef vx_err (*vx_trace_page_fn)(void *ctx, uint32_t space, uint32_t addr, const uint8_t *page);

#define VX_TRACE_PAGES_DELTA 0u /* only the pages stored with keyframe k */
#define VX_TRACE_PAGES_ALL   1u /* every page stored up to keyframe k (§9.3) */

/*
 * Visit the pages of keyframe k.  With VX_TRACE_PAGES_ALL each page (space, addr)
 * is visited once, with its newest copy among keyframes 0..k; applying them to the
 * base memory (vx_trace_keyframe.on_image: the prologue's memory, else all zeros)
 * gives the memory at keyframe k.  Order is unspecified.
 */
vx_err vx_trace_reader_keyframe_pages(vx_trace_reader *r, size_t k, unsigned mode,
                                      vx_trace_page_fn fn, void *ctx);

/* Position the stream right after keyframe k: the next event is the first record after it. */
vx_err vx_trace_reader_seek_keyframe(vx_trace_reader *r, size_t k);

/*
 * Whether the stream position is at a keyframe: true when keyframe *k sits
 * between the last event returned by vx_trace_reader_next and the next one (the
 * state it holds is the state at this point of the stream).  When several
 * keyframes sit there, *k is the last of them.  A reader that follows a trace from
 * the start (a verifier) calls this before each vx_trace_reader_next.
 */
bool vx_trace_reader_keyframe_here(vx_trace_reader *r, size_t *k);

/*
 * Read and verify the whole file (FORMAT.md §11, full validation): every chunk in
 * file order, its checksums, decompression and place (no prologue chunk after the
 * prologue, every EVENTS and keyframe chunk listed in the INDEX and nothing else,
 * every PAGES run followed by its KEYFRAME, unknown chunks' payload checksums),
 * every record, every keyframe (its key = the issues before it), every digest, and
 * for a complete trace an END record and INDEX totals that match the records.  The
 * first problem is returned (with its offset).  Does not disturb the iteration
 * position.
 */
vx_err vx_trace_reader_check(vx_trace_reader *r);

/* ---- chunk digests (FORMAT.md §10.3) ---------------------------------------------------- */

/*
 * What one EVENTS chunk contains, in a few bits: the PCs issued, the warps that
 * issued, the bytes and pages written and the kinds of records.  A search for
 * "the last issue at PC x" or "the last write to [a, a+n)" skips every chunk whose
 * digest says no without decoding it.  The sets are supersets (a "maybe" must be
 * checked by decoding; a "no" is certain).  Traces of format 1.1 store one per
 * chunk; for others the reader computes it by decoding the chunk.
 */
#define VX_TRACE_DG_PC_BITS   8192u /* bit ((pc >> 2) mod 8192) */
#define VX_TRACE_DG_PAGE_BITS 1024u /* bit (page * 0x9E3779B1 mod 2^32) >> 22, page = addr >> 12 */
#define VX_TRACE_DG_WARP_BITS 256u  /* bit (gwarp mod 256) */

/* vx_trace_digest.flags */
#define VX_TRACE_DG_DM      0x01u /* a Debug Module record */
#define VX_TRACE_DG_FAULT   0x02u /* an issue record with a fault */
#define VX_TRACE_DG_END     0x04u /* the END record */
#define VX_TRACE_DG_WCTL    0x08u /* warp-control effects */
#define VX_TRACE_DG_CONSOLE 0x10u /* console bytes */
#define VX_TRACE_DG_FLAGGED 0x20u /* an injected or single-stepped issue */
#define VX_TRACE_DG_WRITES  0x40u /* memory writes (wlo, whi are valid) */

typedef struct vx_trace_digest {
    uint64_t first;    /* event index of the chunk's first record (its key) */
    uint64_t issues;   /* issue records in the chunk: they are first .. first + issues - 1 */
    uint32_t flags;    /* VX_TRACE_DG_* */
    uint32_t wlo, whi; /* every byte written lies in [wlo, whi] */
    uint64_t pc[VX_TRACE_DG_PC_BITS / 64];      /* PCs of issues that are not injected */
    uint64_t page[VX_TRACE_DG_PAGE_BITS / 64];  /* pages holding a byte written */
    uint64_t warps[VX_TRACE_DG_WARP_BITS / 64]; /* warps (core * W + warp) that issued */
} vx_trace_digest;

#define VX_TRACE_DIGEST_STORED  0u /* only a digest stored in the trace (else VX_ERR_END) */
#define VX_TRACE_DIGEST_COMPUTE 1u /* the stored one, or compute it by decoding the chunk */

/* Number of EVENTS chunks (readable ones, for an incomplete trace), and the event
 * index of chunk i's first record (its key; i < the number of chunks). */
size_t vx_trace_reader_num_chunks(const vx_trace_reader *r);
uint64_t vx_trace_reader_chunk_key(const vx_trace_reader *r, size_t i);

/*
 * The digest of EVENTS chunk i.  VX_ERR_END when mode is VX_TRACE_DIGEST_STORED and
 * the trace has none for this chunk (a trace of format 1.0, or a chunk cut off
 * before its digest); VX_ERR_CORRUPT when the chunk or its digest is damaged.
 * Does not disturb the iteration position.
 */
vx_err vx_trace_reader_digest(vx_trace_reader *r, size_t i, unsigned mode, vx_trace_digest *out);

/*
 * Is EVENTS chunk i whole: its header and its stored payload pass their checksums?
 * (Without decompressing or decoding it.)  VX_ERR_CORRUPT, the chunk named in the
 * reader's message, when not.  Does not disturb the iteration position.
 */
vx_err vx_trace_reader_chunk_check(vx_trace_reader *r, size_t i);

/*
 * Do EVENTS chunk ia of a and chunk ib of b hold the same records?  *same is true when
 * their keys, the platforms' shapes (clusters x cores, warps, threads), the chunks'
 * flags and lengths and their stored bytes are equal: the predictors start afresh in
 * every chunk (FORMAT.md §6.1), so such chunks decode to the same records, without
 * decoding them.  An error (VX_ERR_CORRUPT: a checksum) names the chunk in that
 * reader's message.  Does not disturb either iteration.
 */
vx_err vx_trace_reader_chunks_same(vx_trace_reader *a, size_t ia, vx_trace_reader *b, size_t ib,
                                   bool *same);

/* May the chunk hold a (not injected) issue at pc / a write to a byte of [addr, addr + len) /
 * an issue of warp gwarp?  False only when it certainly does not. */
bool vx_trace_digest_may_pc(const vx_trace_digest *d, uint32_t pc);
bool vx_trace_digest_may_write(const vx_trace_digest *d, uint32_t addr, uint32_t len);
bool vx_trace_digest_may_warp(const vx_trace_digest *d, uint32_t gwarp);
/* May the chunk hold a byte stored to the console window (0x40..0x7F: console bytes,
 * not memory writes; the digest has a flag for them, not their addresses) within
 * [addr, addr + len)? */
bool vx_trace_digest_may_console(const vx_trace_digest *d, uint32_t addr, uint32_t len);

/* ---- helpers ------------------------------------------------------------------------- */

/* Raw commit-log size of one event (FORMAT.md §13) for a warp of `threads` lanes. */
uint64_t vx_trace_event_raw_size(const vx_event *ev, uint32_t threads);

/*
 * Compare two events field by field (index, cycle, schedule, pc, insn, mask, flags,
 * commits on their lanes, memory writes with values masked to their size, wctl,
 * console, fault, DM, END; never reads).  Returns true when they differ and writes
 * a description of the first difference ("commit 0 (x5) lane 3: 0x10 != 0x14") to
 * msg.
 */
bool vx_trace_event_diff(const vx_event *a, const vx_event *b, uint32_t threads, char *msg,
                         size_t cap);

/* One-line description of an event (for messages). */
void vx_trace_event_brief(const vx_event *ev, char *buf, size_t cap);

/* CRC-32C (Castagnoli), FORMAT.md §2: crc = vx_trace_crc32c(0, buf, len) for a whole buffer. */
uint32_t vx_trace_crc32c(uint32_t crc, const void *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* VX_TRACE_H */
