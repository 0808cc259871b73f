/*
 * index.h - a summary of the trace, built in the background, that lets backward
 * searches skip the parts of history where no breakpoint or watchpoint can stop.
 *
 * History is cut into blocks of VX_INDEX_BLOCK issues.  For each block the index
 * keeps a small Bloom filter of the PCs issued and of the pages written, and the
 * range of addresses written.  A block whose filters say "no" for every
 * breakpoint and write watchpoint cannot contain a stop and is skipped without
 * decoding it; a "maybe" is checked by reading the block's events (filters
 * give false positives, never false negatives).
 *
 * A thread reads the trace once with its own reader while the server already
 * runs; blocks become usable in order as it goes (vx_index_ready).
 */
#ifndef VX_INDEX_H
#define VX_INDEX_H

#include "vx_base.h"
#include "vx_err.h"

#define VX_INDEX_BLOCK_SHIFT 14u
#define VX_INDEX_BLOCK       (1u << VX_INDEX_BLOCK_SHIFT)

typedef struct vx_index vx_index;

/*
 * Summarise the trace at path (nissues issues, W warps per core).  If save_path
 * names a summary saved by an earlier run for this very file (same size, same
 * last bytes), it is loaded and ready at once; otherwise a thread builds it and,
 * when it has read the whole trace, saves it there (best effort: a directory we
 * cannot write to only costs the rebuild next time).  NULL when out of memory.
 */
vx_index *vx_index_start(const char *path, uint64_t nissues, uint32_t warps_per_core,
                         const char *save_path);
void vx_index_free(vx_index *ix); /* stops the thread */

/* Number of blocks fully summarised (0 .. nblocks); blocks below it may be queried. */
uint64_t vx_index_ready(const vx_index *ix);

/* May block b contain an issue at pc (not injected)? */
bool vx_index_may_pc(const vx_index *ix, uint64_t b, uint32_t pc);

/* May block b write a byte of [addr, addr + len)? */
bool vx_index_may_write(const vx_index *ix, uint64_t b, uint32_t addr, uint32_t len);

/* May warp gwarp issue in block b? */
bool vx_index_may_warp(const vx_index *ix, uint64_t b, uint32_t gwarp);

#endif /* VX_INDEX_H */
