/*
 * rsp.c - GDB Remote Serial Protocol framing (see rsp.h).
 *
 * A byte-fed state machine, in the spirit of QEMU's gdbstub: IDLE -> DATA
 * (-> ESC / RLE) -> CSUM1 -> CSUM2 -> IDLE.  The checksum covers the raw bytes
 * between '$' and '#', escapes and repeat counts included; the decoded packet is
 * built as the bytes arrive so nothing is scanned twice.
 */
#include "rsp.h"

#include <stdlib.h>
#include <string.h>

typedef enum {
    ST_IDLE,
    ST_DATA,
    ST_ESC,
    ST_RLE,
    ST_CSUM1,
    ST_CSUM2,
} rsp_state;

struct vx_rsp {
    vx_rsp_ops ops;
    void *ctx;
    rsp_state state;
    bool noack;

    /* the packet being received */
    char *buf; /* decoded bytes, cap + 1 for the NUL */
    size_t len;
    size_t cap;
    bool too_long;
    bool bad_rle;
    uint8_t sum; /* running checksum of raw bytes */
    int csum_hi; /* first checksum digit value, -1 when not a hex digit */
    int csum_lo;

    /* the last packet sent, kept for '-' in ack mode */
    uint8_t *last;
    size_t last_len;
    size_t last_cap;

    /* scratch for framing outgoing packets */
    uint8_t *out;
    size_t out_cap;

    vx_rsp_stats stats;
};

vx_rsp *vx_rsp_new(const vx_rsp_ops *ops, void *ctx, size_t max_packet)
{
    vx_rsp *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->ops = *ops;
    r->ctx = ctx;
    r->cap = max_packet ? max_packet : 4096;
    r->buf = malloc(r->cap + 1);
    if (!r->buf) {
        free(r);
        return NULL;
    }
    r->buf[0] = 0;
    return r;
}

void vx_rsp_free(vx_rsp *rsp)
{
    if (!rsp) return;
    free(rsp->buf);
    free(rsp->last);
    free(rsp->out);
    free(rsp);
}

void vx_rsp_reset(vx_rsp *rsp)
{
    rsp->state = ST_IDLE;
    rsp->noack = false;
    rsp->len = 0;
    rsp->last_len = 0;
}

bool vx_rsp_in_packet(const vx_rsp *rsp)
{
    return rsp->state != ST_IDLE;
}

void vx_rsp_set_noack(vx_rsp *rsp, bool on)
{
    rsp->noack = on;
    if (on) rsp->last_len = 0;
}

bool vx_rsp_noack(const vx_rsp *rsp)
{
    return rsp->noack;
}

void vx_rsp_get_stats(const vx_rsp *rsp, vx_rsp_stats *out)
{
    *out = rsp->stats;
}

static void put_byte(vx_rsp *r, uint8_t c)
{
    r->ops.write(r->ctx, &c, 1);
}

static void start_packet(vx_rsp *r)
{
    r->state = ST_DATA;
    r->len = 0;
    r->too_long = false;
    r->bad_rle = false;
    r->sum = 0;
}

static void append(vx_rsp *r, uint8_t c)
{
    if (r->len < r->cap)
        r->buf[r->len++] = (char)c;
    else
        r->too_long = true;
}

static void finish_packet(vx_rsp *r)
{
    bool sum_ok = r->csum_hi >= 0 && r->csum_lo >= 0 && ((r->csum_hi << 4) | r->csum_lo) == r->sum;
    r->state = ST_IDLE;
    r->buf[r->len] = 0;
    if (!r->noack) {
        /* A damaged packet is NAKed so that the client sends it again. */
        if (!sum_ok || r->bad_rle) {
            if (!sum_ok) r->stats.bad_checksums++;
            put_byte(r, '-');
            return;
        }
        put_byte(r, '+');
    } else if (!sum_ok) {
        r->stats.bad_checksums++;
    }
    r->stats.packets++;
    vx_rsp_status st = r->too_long ? VX_RSP_TOO_LONG : r->bad_rle ? VX_RSP_BAD_RLE : VX_RSP_OK;
    r->ops.packet(r->ctx, r->buf, r->len, st);
}

static void feed_byte(vx_rsp *r, uint8_t c)
{
    switch (r->state) {
    case ST_IDLE:
        switch (c) {
        case '$': start_packet(r); break;
        case 0x03: r->ops.interrupt(r->ctx); break;
        case '+':
            /* The client has the last packet: no need to keep it. */
            r->last_len = 0;
            break;
        case '-':
            r->stats.naks++;
            if (!r->noack && r->last_len) {
                r->stats.resends++;
                r->ops.write(r->ctx, r->last, r->last_len);
            }
            break;
        default: break; /* line noise between packets */
        }
        return;
    case ST_DATA:
        if (c == '$') {
            /* A new packet begins inside this one: the first was cut short. */
            r->stats.dropped++;
            start_packet(r);
            return;
        }
        if (c == '#') {
            r->state = ST_CSUM1;
            return;
        }
        r->sum = (uint8_t)(r->sum + c);
        if (c == '}')
            r->state = ST_ESC;
        else if (c == '*')
            r->state = ST_RLE;
        else
            append(r, c);
        return;
    case ST_ESC:
        r->sum = (uint8_t)(r->sum + c);
        append(r, c ^ 0x20);
        r->state = ST_DATA;
        return;
    case ST_RLE: {
        r->sum = (uint8_t)(r->sum + c);
        r->state = ST_DATA;
        /* "X*c": c - 29 more copies of X.  GDB's smallest count is ' ' (3 more)
         * and it never uses '#' or '$'; accept any printable count. */
        if (r->len == 0 || c < 32 || c > 126) {
            r->bad_rle = true;
            return;
        }
        uint8_t prev = (uint8_t)r->buf[r->len - 1];
        for (int i = 0; i < c - 29; i++)
            append(r, prev);
        return;
    }
    case ST_CSUM1:
        r->csum_hi = vx_rsp_hexval(c);
        r->state = ST_CSUM2;
        return;
    case ST_CSUM2:
        r->csum_lo = vx_rsp_hexval(c);
        finish_packet(r);
        return;
    }
}

void vx_rsp_feed(vx_rsp *rsp, const uint8_t *bytes, size_t n)
{
    for (size_t i = 0; i < n; i++)
        feed_byte(rsp, bytes[i]);
}

static bool need_escape(uint8_t c)
{
    return c == '$' || c == '#' || c == '}' || c == '*';
}

void vx_rsp_send(vx_rsp *rsp, const void *data, size_t len)
{
    const uint8_t *d = data;
    size_t need = 1 + 2 * len + 3; /* worst case: every byte escaped */
    if (need > rsp->out_cap) {
        uint8_t *nb = realloc(rsp->out, need);
        if (!nb) return; /* nothing sensible to do: the client will time out */
        rsp->out = nb;
        rsp->out_cap = need;
    }
    uint8_t *o = rsp->out;
    size_t k = 0;
    uint8_t sum = 0;
    o[k++] = '$';
    for (size_t i = 0; i < len; i++) {
        uint8_t c = d[i];
        if (need_escape(c)) {
            o[k++] = '}';
            sum = (uint8_t)(sum + '}');
            c ^= 0x20;
        }
        o[k++] = c;
        sum = (uint8_t)(sum + c);
    }
    static const char hexd[] = "0123456789abcdef";
    o[k++] = '#';
    o[k++] = (uint8_t)hexd[sum >> 4];
    o[k++] = (uint8_t)hexd[sum & 15];
    if (!rsp->noack) {
        if (k > rsp->last_cap) {
            uint8_t *nb = realloc(rsp->last, k);
            if (nb) {
                rsp->last = nb;
                rsp->last_cap = k;
            }
        }
        if (k <= rsp->last_cap) {
            memcpy(rsp->last, o, k);
            rsp->last_len = k;
        }
    }
    rsp->ops.write(rsp->ctx, o, k);
}

void vx_rsp_send_str(vx_rsp *rsp, const char *s)
{
    vx_rsp_send(rsp, s, strlen(s));
}

/* ---- encoding helpers ---------------------------------------------------------- */

int vx_rsp_hexval(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

size_t vx_rsp_hex_encode(char *out, size_t cap, const void *data, size_t n)
{
    static const char hexd[] = "0123456789abcdef";
    const uint8_t *d = data;
    if (n > (SIZE_MAX - 1) / 2 || 2 * n > cap) return SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = hexd[d[i] >> 4];
        out[2 * i + 1] = hexd[d[i] & 15];
    }
    if (2 * n < cap) out[2 * n] = 0;
    return 2 * n;
}

size_t vx_rsp_hex_decode(uint8_t *out, size_t cap, const char *hex, size_t hexlen)
{
    if (hexlen % 2) return SIZE_MAX;
    size_t n = hexlen / 2;
    if (n > cap) return SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        int hi = vx_rsp_hexval((unsigned char)hex[2 * i]);
        int lo = vx_rsp_hexval((unsigned char)hex[2 * i + 1]);
        if (hi < 0 || lo < 0) return SIZE_MAX;
        out[i] = (uint8_t)((hi << 4) | lo);
    }
    return n;
}

bool vx_rsp_parse_hex(const char **p, const char *end, uint64_t *val)
{
    const char *s = *p;
    uint64_t v = 0;
    int nd = 0;
    while (s < end) {
        int d = vx_rsp_hexval((unsigned char)*s);
        if (d < 0) break;
        if (v >> 60) return false;
        v = (v << 4) | (uint64_t)d;
        s++;
        nd++;
    }
    if (nd == 0) return false;
    *p = s;
    *val = v;
    return true;
}
