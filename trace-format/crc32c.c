/*
 * crc32c.c - CRC-32C (Castagnoli), slicing by 8 (FORMAT.md §2).
 *
 * Our own implementation: liblz4-dev ships no xxhash.h, and CRC-32C detects every
 * error burst of up to 32 bits, which is what "a flipped byte anywhere is
 * detected" (FORMAT.md §11) relies on.
 */
#include <string.h>

#include "vx_trace.h"
#include "crc32c_table.h"

uint32_t vx_trace_crc32c(uint32_t crc, const void *buf, size_t len)
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
