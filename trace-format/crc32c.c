/*
 * crc32c.c - CRC-32C (Castagnoli), slicing by 8 (FORMAT.md §2).
 *
 * Our own implementation: liblz4-dev ships no xxhash.h, and CRC-32C detects every
 * error burst of up to 32 bits, which is what "a flipped byte anywhere is
 * detected" (FORMAT.md §11) relies on.
 */
#include <stdatomic.h>
#include <string.h>

#include "trace_int.h"
#include "crc32c_table.h"

#if defined(__x86_64__) && defined(__GNUC__)
/*
 * The SSE4.2 crc32 instruction computes exactly this CRC (Castagnoli polynomial,
 * reflected); used when the CPU has it (checked at run time, the build does not
 * assume it), about 8x faster than the tables.
 */
__attribute__((target("sse4.2"))) static uint32_t crc_hw(uint32_t c, const uint8_t *p, size_t len)
{
    uint64_t c64 = c;
    while (len && ((uintptr_t)p & 7)) {
        c64 = __builtin_ia32_crc32qi((uint32_t)c64, *p++);
        len--;
    }
    for (; len >= 8; p += 8, len -= 8) {
        uint64_t v;
        memcpy(&v, p, 8); /* x86 is little-endian: the bytes in stream order */
        c64 = __builtin_ia32_crc32di(c64, v);
    }
    while (len--)
        c64 = __builtin_ia32_crc32qi((uint32_t)c64, *p++);
    return (uint32_t)c64;
}

static _Atomic int have_hw = -1; /* -1: not checked yet (every thread finds the same) */

static bool use_hw(void)
{
    int h = atomic_load_explicit(&have_hw, memory_order_relaxed);
    if (h < 0) {
        __builtin_cpu_init();
        h = __builtin_cpu_supports("sse4.2") ? 1 : 0;
        atomic_store_explicit(&have_hw, h, memory_order_relaxed);
    }
    return h;
}
#endif

uint32_t vx_trace_crc32c(uint32_t crc, const void *buf, size_t len)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (use_hw()) return ~crc_hw(~crc, buf, len);
#endif
    return vxt_crc32c_sw(crc, buf, len);
}

uint32_t vxt_crc32c_sw(uint32_t crc, const void *buf, size_t len)
{
    const uint8_t *p = buf;
    uint32_t c = ~crc;
    while (len && ((uintptr_t)p & 7)) {
        c = vxt_crc32c_tab[0][(c ^ *p++) & 0xFF] ^ (c >> 8);
        len--;
    }
    while (len >= 8) {
        /* Assemble little-endian words by hand: no alignment or endianness assumptions. */
        uint32_t lo = vx_get_le32(p) ^ c;
        uint32_t hi = vx_get_le32(p + 4);
        c = vxt_crc32c_tab[7][lo & 0xFF] ^ vxt_crc32c_tab[6][(lo >> 8) & 0xFF] ^
            vxt_crc32c_tab[5][(lo >> 16) & 0xFF] ^ vxt_crc32c_tab[4][lo >> 24] ^
            vxt_crc32c_tab[3][hi & 0xFF] ^ vxt_crc32c_tab[2][(hi >> 8) & 0xFF] ^
            vxt_crc32c_tab[1][(hi >> 16) & 0xFF] ^ vxt_crc32c_tab[0][hi >> 24];
        p += 8;
        len -= 8;
    }
    while (len--)
        c = vxt_crc32c_tab[0][(c ^ *p++) & 0xFF] ^ (c >> 8);
    return ~c;
}
