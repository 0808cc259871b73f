/*
 * vis.h - text from a trace, an ELF or a kernel made safe for a terminal.
 *
 * Names and fault reasons stored in a trace, symbol names from an ELF, and a kernel's
 * console output may hold terminal escape sequences (a window title, the clipboard
 * through OSC 52, hidden or erased text): a trace from someone else must not drive
 * the user's terminal.  vx_vis shows each control character (C0 but newline and tab
 * in text of lines, DEL, and C1, as UTF-8 or as a lone byte), and each byte that is
 * not part of well-formed UTF-8, as \xNN; other text is copied as it is.
 */
#ifndef VX_VIS_H
#define VX_VIS_H

#include <stddef.h>
#include <stdint.h>

/* The length of the well-formed UTF-8 character at p (n bytes left) that is not a
 * C1 control, else 0. */
static inline size_t vx_vis_char(const uint8_t *p, size_t n)
{
    const size_t k = p[0] >= 0xf0 && p[0] <= 0xf4   ? 4
                     : p[0] >= 0xe0 && p[0] <= 0xef ? 3
                     : p[0] >= 0xc2 && p[0] <= 0xdf ? 2
                                                    : 0;
    if (!k || k > n) return 0;
    for (size_t i = 1; i < k; i++)
        if ((p[i] & 0xc0) != 0x80) return 0;
    if (p[0] == 0xc2 && p[1] < 0xa0) return 0; /* U+0080..U+009F: C1 */
    /* overlong forms, surrogates, past U+10FFFF: not well-formed (an overlong ESC) */
    if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] > 0x9f) ||
        (p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] > 0x8f))
        return 0;
    return k;
}

/* Is byte c (ASCII) shown as \xNN?  Newline and tab are kept in text of lines. */
static inline int vx_vis_ctl(uint8_t c, int lines)
{
    return (c < 0x20 && !(lines && (c == '\n' || c == '\t'))) || c == 0x7f;
}

/* Does text (n bytes) need vx_vis? */
static inline int vx_vis_needed(const char *text, size_t n, int lines)
{
    const uint8_t *p = (const uint8_t *)text;
    for (size_t i = 0; i < n;) {
        if (p[i] < 0x80) {
            if (vx_vis_ctl(p[i], lines)) return 1;
            i++;
        } else {
            const size_t k = vx_vis_char(p + i, n - i);
            if (!k) return 1;
            i += k;
        }
    }
    return 0;
}

/* text (n bytes) into out (cap >= 1 bytes, NUL-terminated; cut at a whole character or
 * escape when out is too small), newline and tab kept when lines is set (else a name:
 * shown as \x0a, \x09).  Returns the length written. */
static inline size_t vx_vis(const char *text, size_t n, char *out, size_t cap, int lines)
{
    static const char hex[] = "0123456789abcdef";
    const uint8_t *p = (const uint8_t *)text;
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        size_t k = 1;
        const int esc = p[i] < 0x80 ? vx_vis_ctl(p[i], lines) : !(k = vx_vis_char(p + i, n - i));
        if (esc) {
            k = 1;
            if (o + 4 >= cap) break;
            out[o++] = '\\';
            out[o++] = 'x';
            out[o++] = hex[p[i] >> 4];
            out[o++] = hex[p[i] & 15];
        } else {
            if (o + k >= cap) break;
            for (size_t j = 0; j < k; j++)
                out[o++] = (char)p[i + j];
        }
        i += k;
    }
    out[o] = 0;
    return o;
}

#endif
