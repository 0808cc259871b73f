/*
 * rsp.c - GDB Remote Serial Protocol framing (see rsp.h).
 *
 * A byte-fed state machine, in the spirit of QEMU's gdbstub: IDLE -> DATA
 * (-> ESC) -> CSUM1 -> CSUM2 -> IDLE.  The checksum covers the raw bytes between
 * '$' and '#', escapes included; the decoded packet is built as the bytes arrive
 * so nothing is scanned twice.  Run-length encoding is for responses only (the
 * manual's "Overview"): a '*' from the client is data, as in gdbserver.
 *
 * In ack mode sending is stop-and-wait: a packet goes out when the client has
 * acknowledged the one before ('+'), and '-' sends the unacknowledged one again.
 * A reply of several packets (console 'O' packets, then the stop reply or "OK")
 * waits in a queue meanwhile.
 */
#include "rsp.h"

#include <stdlib.h>
#include <string.h>

/* Packets waiting for an acknowledgement: at most this many bytes. */
#define RSP_MAX_QUEUE (4u << 20)

typedef enum {
    ST_IDLE,
    ST_DATA,
    ST_ESC,
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
    uint8_t sum; /* running checksum of raw bytes */
    int csum_hi; /* first checksum digit value, -1 when not a hex digit */
    int csum_lo;

    /* ack mode: the packet sent and not yet acknowledged (kept for '-'), then the
     * framed packets waiting for its '+' (back to back in one buffer) */
    uint8_t *last;
    size_t last_len;
    size_t last_cap;
    uint8_t *queue;
    size_t qhead, qlen, qcap;

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
    /* framing room for a reply of the packet size, every byte escaped, from the start:
     * a reply (an error one at least) goes out when the host has no memory left later */
    r->out_cap = 1 + 2 * r->cap + 3;
    r->out = malloc(r->out_cap);
    if (!r->buf || !r->out) {
        free(r->buf);
        free(r->out);
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
    free(rsp->queue);
    free(rsp->out);
    free(rsp);
}

void vx_rsp_reset(vx_rsp *rsp)
{
    rsp->state = ST_IDLE;
    rsp->noack = false;
    rsp->len = 0;
    rsp->last_len = 0;
    rsp->qhead = rsp->qlen = 0;
}

bool vx_rsp_in_packet(const vx_rsp *rsp)
{
    return rsp->state != ST_IDLE;
}

/* Send and keep (as the packet awaiting '+') the next queued packet, if any. */
static void send_queued(vx_rsp *r)
{
    r->last_len = 0;
    if (r->qhead == r->qlen) {
        r->qhead = r->qlen = 0;
        return;
    }
    /* a framed packet: '$' ... '#' and two checksum digits ('#' is always escaped) */
    const uint8_t *p = r->queue + r->qhead;
    const uint8_t *h = memchr(p, '#', r->qlen - r->qhead);
    size_t k = (size_t)(h - p) + 3;
    if (k > r->last_cap) {
        uint8_t *nb = realloc(r->last, k);
        if (!nb) return; /* left queued: the next '+' or '-' tries again */
        r->last = nb;
        r->last_cap = k;
    }
    memcpy(r->last, p, k);
    r->last_len = k;
    r->qhead += k;
    r->ops.write(r->ctx, r->last, k);
}

void vx_rsp_set_noack(vx_rsp *rsp, bool on)
{
    rsp->noack = on;
    if (on) {
        /* nothing more waits for an acknowledgement */
        rsp->last_len = 0;
        if (rsp->qlen > rsp->qhead)
            rsp->ops.write(rsp->ctx, rsp->queue + rsp->qhead, rsp->qlen - rsp->qhead);
        rsp->qhead = rsp->qlen = 0;
    }
}

bool vx_rsp_noack(const vx_rsp *rsp)
{
    return rsp->noack;
}

bool vx_rsp_awaiting_ack(const vx_rsp *rsp)
{
    return !rsp->noack && rsp->last_len > 0;
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
        if (!sum_ok) {
            r->stats.bad_checksums++;
            put_byte(r, '-');
            return;
        }
        put_byte(r, '+');
    } else if (!sum_ok) {
        r->stats.bad_checksums++;
    }
    r->stats.packets++;
    r->ops.packet(r->ctx, r->buf, r->len, r->too_long ? VX_RSP_TOO_LONG : VX_RSP_OK);
}

static void feed_byte(vx_rsp *r, uint8_t c)
{
    switch (r->state) {
    case ST_IDLE:
        switch (c) {
        case '$': start_packet(r); break;
        case 0x03: r->ops.interrupt(r->ctx); break;
        case '+':
            /* The client has the last packet: the next may go. */
            if (!r->noack) send_queued(r);
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
        else
            append(r, c);
        return;
    case ST_ESC:
        r->sum = (uint8_t)(r->sum + c);
        append(r, c ^ 0x20);
        r->state = ST_DATA;
        return;
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
    if (rsp->noack) {
        rsp->ops.write(rsp->ctx, o, k);
        return;
    }
    /* ack mode: after the unacknowledged packet, in order */
    if (rsp->qhead) {
        memmove(rsp->queue, rsp->queue + rsp->qhead, rsp->qlen - rsp->qhead);
        rsp->qlen -= rsp->qhead;
        rsp->qhead = 0;
    }
    if (rsp->qlen + k > RSP_MAX_QUEUE) {
        /* a client that does not acknowledge: no longer wait for it (bounded memory) */
        rsp->ops.write(rsp->ctx, rsp->queue, rsp->qlen);
        rsp->qlen = 0;
    }
    if (rsp->qlen + k > rsp->qcap) {
        size_t ncap = rsp->qcap ? rsp->qcap : 1024;
        while (ncap < rsp->qlen + k)
            ncap *= 2;
        uint8_t *nb = realloc(rsp->queue, ncap);
        if (!nb) return; /* nothing sensible to do: the client will time out */
        rsp->queue = nb;
        rsp->qcap = ncap;
    }
    memcpy(rsp->queue + rsp->qlen, o, k);
    rsp->qlen += k;
    if (!rsp->last_len) send_queued(rsp);
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
