/*
 * vx_base.h - base types shared by every vxrr library and program.
 *
 * This is one of the two cross-cutting headers that sim/ hosts for the whole
 * tree (the other is vx_err.h).  trace-format/ may include these two and
 * nothing else from sim/.
 */
#ifndef VX_BASE_H
#define VX_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VX_VERSION_STRING "0.1.0"

/* The kinds of kernel image (the simulator loads them; a trace's header names one). */
typedef enum vx_image_kind {
    VX_IMAGE_ELF = 1,   /* ELF32 RISC-V executable: PT_LOAD segments, entry point */
    VX_IMAGE_VXBIN = 2, /* Vortex .vxbin: u64 min_vma, u64 max_vma, then the image at min_vma */
    VX_IMAGE_BIN = 3,   /* raw binary at 0x80000000 */
} vx_image_kind;

/*
 * The host: 64-bit (vx_lanes is an unsigned __int128) and little-endian (the
 * simulator keeps guest memory and register rows in host order and the trace codec
 * stores host words as the format's little-endian bytes).  Say so here rather than
 * fail on __int128, or on a big-endian host simulate and record wrong values.
 */
#if !defined(__SIZEOF_INT128__) || !defined(__BYTE_ORDER__) || \
    __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "vxrr needs a 64-bit little-endian host (GCC or clang: unsigned __int128)"
#endif

/*
 * A set of lanes of one warp: bit t is lane t.  Vortex allows up to 128
 * threads per warp (VxDebug limit), so 128 bits.  GCC and clang provide
 * unsigned __int128 on every 64-bit host we support.
 */
__extension__ typedef unsigned __int128 vx_lanes;

#define VX_MAX_THREADS 128u   /* threads per warp (VxDebug PLATFORM.numthreads) */
#define VX_MAX_WARPS   32768u /* warps in the whole platform (DSELECT.warpsel) */

#define VX_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define VX_LIKELY(x)     __builtin_expect(!!(x), 1)
#define VX_UNLIKELY(x)   __builtin_expect(!!(x), 0)

static inline vx_lanes vx_lanes_bit(unsigned t)
{
    return (vx_lanes)1 << t;
}

/* All lanes of an n-thread warp (n in 1..128). */
static inline vx_lanes vx_lanes_all(unsigned n)
{
    return n >= 128 ? ~(vx_lanes)0 : (((vx_lanes)1 << n) - 1);
}

static inline bool vx_lanes_test(vx_lanes m, unsigned t)
{
    return (m >> t) & 1;
}

static inline unsigned vx_lanes_count(vx_lanes m)
{
    return (unsigned)__builtin_popcountll((uint64_t)m) +
           (unsigned)__builtin_popcountll((uint64_t)(m >> 64));
}

/* Lowest set lane, or 128 when empty. */
static inline unsigned vx_lanes_first(vx_lanes m)
{
    uint64_t lo = (uint64_t)m, hi = (uint64_t)(m >> 64);
    if (lo) return (unsigned)__builtin_ctzll(lo);
    if (hi) return 64u + (unsigned)__builtin_ctzll(hi);
    return 128u;
}

/* Highest set lane ("last active lane"), or 128 when empty. */
static inline unsigned vx_lanes_last(vx_lanes m)
{
    uint64_t lo = (uint64_t)m, hi = (uint64_t)(m >> 64);
    if (hi) return 127u - (unsigned)__builtin_clzll(hi);
    if (lo) return 63u - (unsigned)__builtin_clzll(lo);
    return 128u;
}

/* The base of a number as the tools write them: 0x... is hex, anything else decimal
 * (a leading 0 is not octal: 010 is ten).  For strtoull. */
static inline int vx_num_base(const char *s)
{
    return s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 16 : 10;
}

/* Explicit little-endian access (never fwrite a struct). */
static inline uint16_t vx_get_le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t vx_get_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static inline uint64_t vx_get_le64(const uint8_t *p)
{
    return (uint64_t)vx_get_le32(p) | ((uint64_t)vx_get_le32(p + 4) << 32);
}

static inline void vx_put_le16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static inline void vx_put_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static inline void vx_put_le64(uint8_t *p, uint64_t v)
{
    vx_put_le32(p, (uint32_t)v);
    vx_put_le32(p + 4, (uint32_t)(v >> 32));
}

#endif /* VX_BASE_H */
