/*
 * t-rsp.c - GDB remote protocol framing (replay/rsp.c) fed with byte strings.
 *
 * Checksums in the expected frames are computed here by hand-written sums, not
 * by the code under test.
 */
#include "../../replay/rsp.h"
#include "tap.h"

#include <stdio.h>
#include <string.h>

/* What the framing layer reported. */
static char out[8192]; /* bytes written to the "client" */
static size_t out_len;
static char pkts[16][2048];
static size_t pkt_len[16];
static vx_rsp_status pkt_st[16];
static int npkts;
static int nints;

static void w(void *ctx, const uint8_t *buf, size_t len)
{
    (void)ctx;
    if (out_len + len <= sizeof out) {
        memcpy(out + out_len, buf, len);
        out_len += len;
    }
}

static void p(void *ctx, const char *data, size_t len, vx_rsp_status st)
{
    (void)ctx;
    if (npkts < 16) {
        memcpy(pkts[npkts], data, len < 2047 ? len : 2047);
        pkts[npkts][len < 2047 ? len : 2047] = 0;
        pkt_len[npkts] = len;
        pkt_st[npkts] = st;
        if (data[len] != 0) pkt_st[npkts] = (vx_rsp_status)99; /* must be NUL-terminated */
    }
    npkts++;
}

static void intr(void *ctx)
{
    (void)ctx;
    nints++;
}

static const vx_rsp_ops ops = {w, p, intr};

static void clear(void)
{
    out_len = 0;
    npkts = 0;
    nints = 0;
    memset(out, 0, sizeof out);
}

static void feed(vx_rsp *r, const char *s, size_t n)
{
    vx_rsp_feed(r, (const uint8_t *)s, n);
}

static void feeds(vx_rsp *r, const char *s)
{
    feed(r, s, strlen(s));
}

/* "$<raw>#xx" with the checksum of raw computed the simple way. */
static void frame(char *dst, size_t cap, const char *raw, size_t n)
{
    unsigned sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += (unsigned char)raw[i];
    dst[0] = '$';
    memcpy(dst + 1, raw, n);
    snprintf(dst + 1 + n, cap - 1 - n, "#%02x", sum & 0xff);
}

int main(void)
{
    char f[4096];
    vx_rsp *r = vx_rsp_new(&ops, NULL, 64);
    ok(r != NULL, "vx_rsp_new");

    /* 1. a plain packet with the checksum GDB itself would send ("g" = 0x67) */
    clear();
    feeds(r, "$g#67");
    is_int(npkts, 1, "one packet delivered");
    is_str(pkts[0], "g", "payload is 'g'");
    is_int(out_len, 1, "one byte acknowledged");
    ok(out[0] == '+', "ack '+' sent");
    ok(!vx_rsp_in_packet(r), "idle after the packet");

    /* 2. a wrong checksum is NAKed and not delivered; the resend is accepted */
    clear();
    feeds(r, "$m80000000,4#00");
    is_int(npkts, 0, "corrupt packet not delivered");
    ok(out_len == 1 && out[0] == '-', "NAK '-' sent for a bad checksum");
    frame(f, sizeof f, "m80000000,4", 11);
    feeds(r, f);
    is_int(npkts, 1, "resent packet delivered");
    is_str(pkts[0], "m80000000,4", "resent payload");
    ok(out_len == 2 && out[1] == '+', "resend acknowledged");

    /* upper-case checksum digits are accepted */
    clear();
    feeds(r, "$qC#B4");
    is_int(npkts, 1, "upper-case checksum digits");
    /* a non-hex checksum digit is a bad checksum */
    clear();
    feeds(r, "$qC#zz");
    ok(npkts == 0 && out[0] == '-', "non-hex checksum is NAKed");

    /* 3. escapes: "}]" is '}' (0x5d ^ 0x20 = 0x7d), "}\x03" is '#', "}\x04" is '$', "}\x0a" is '*' */
    clear();
    {
        const char raw[] = "X}]}\x03}\x04}\x0a";
        frame(f, sizeof f, raw, sizeof raw - 1);
        feeds(r, f);
    }
    is_int(npkts, 1, "escaped packet delivered");
    is_int(pkt_len[0], 5, "escaped payload length");
    ok(memcmp(pkts[0], "X}#$*", 5) == 0, "escapes decoded to X } # $ *");

    /* 4. run-length encoding is for responses only: a '*' from the client is data
     * (the checksum counts it), never a repeat, whatever byte follows it */
    clear();
    frame(f, sizeof f, "0* ,a*!b", 8);
    feeds(r, f);
    ok(npkts == 1 && out[0] == '+', "packet with '*' acknowledged");
    is_str(pkts[0], "0* ,a*!b", "'*' and the byte after it kept as they are");
    clear();
    {
        const char raw[] = "X80000000,2:*\x01";
        frame(f, sizeof f, raw, sizeof raw - 1);
        feeds(r, f);
    }
    ok(npkts == 1 && out[0] == '+' && pkt_len[0] == 14 && pkts[0][12] == '*' && pkts[0][13] == 1,
       "'*' followed by a control byte is data, not a malformed repeat");

    /* 5. interrupt byte between packets; inside a packet it is data */
    clear();
    feeds(r, "\x03");
    is_int(nints, 1, "0x03 between packets is an interrupt");
    is_int(npkts, 0, "no packet from 0x03");
    clear();
    {
        const char raw[] = "a\x03z";
        frame(f, sizeof f, raw, 3);
        feeds(r, f);
    }
    ok(nints == 0 && npkts == 1 && pkts[0][1] == 0x03, "0x03 inside a packet is data");

    /* 6. byte-by-byte feeding gives the same result as one call */
    clear();
    frame(f, sizeof f, "vCont;s:1;c", 11);
    for (size_t i = 0; f[i]; i++)
        feed(r, &f[i], 1);
    ok(npkts == 1 && strcmp(pkts[0], "vCont;s:1;c") == 0, "packet fed one byte at a time");

    /* 7. sending: escapes and checksum */
    clear();
    vx_rsp_send(r, "a$b#c}d*e", 9);
    {
        const char raw[] = "a}\x04"
                           "b}\x03"
                           "c}]d}\x0a"
                           "e";
        frame(f, sizeof f, raw, sizeof raw - 1);
    }
    is_int(out_len, strlen(f), "sent frame length");
    ok(memcmp(out, f, out_len) == 0, "sent frame escaped with the right checksum");
    feeds(r, "+"); /* acknowledged: the next packet goes out at once */

    /* 8. '-' from the client makes the last packet go out again; '+' forgets it */
    clear();
    vx_rsp_send_str(r, "OK");
    size_t first = out_len;
    feeds(r, "-");
    is_int(out_len, 2 * first, "NAK triggers a retransmission");
    ok(memcmp(out, "$OK#9a", 6) == 0 && memcmp(out + first, "$OK#9a", 6) == 0,
       "retransmitted bytes are identical ($OK#9a)");
    feeds(r, "+");
    feeds(r, "-");
    is_int(out_len, 2 * first, "after '+', a '-' resends nothing");
    vx_rsp_stats st;
    vx_rsp_get_stats(r, &st);
    ok(st.naks == 2 && st.resends == 1, "NAK/resend counters");

    /* 8b. ack mode is stop-and-wait: a reply of several packets ("O" console
     * output, then "OK") sends the next only after the '+' of the one before, and
     * '-' resends the one not yet acknowledged */
    clear();
    vx_rsp_send_str(r, "O41"); /* $O41#b4: 'O' 79 + '4' 52 + '1' 49 = 180 = 0xb4 */
    vx_rsp_send_str(r, "OK");
    ok(out_len == 7 && memcmp(out, "$O41#b4", 7) == 0, "second packet waits for the first's '+'");
    feeds(r, "-");
    ok(out_len == 14 && memcmp(out + 7, "$O41#b4", 7) == 0, "'-' resends the first packet");
    feeds(r, "+");
    ok(out_len == 20 && memcmp(out + 14, "$OK#9a", 6) == 0, "'+' lets the second go");
    feeds(r, "-");
    ok(out_len == 26 && memcmp(out + 20, "$OK#9a", 6) == 0, "'-' then resends the second");
    feeds(r, "+-");
    is_int(out_len, 26, "all acknowledged: '-' resends nothing");
    /* no-ack mode agreed with packets still queued: they go at once */
    clear();
    vx_rsp_send_str(r, "OK");
    vx_rsp_send_str(r, "O41");
    is_int(out_len, 6, "queued behind OK");
    vx_rsp_set_noack(r, true);
    ok(out_len == 13 && memcmp(out + 6, "$O41#b4", 7) == 0, "no-ack mode sends what was queued");
    vx_rsp_reset(r);

    /* 9. '$' inside a packet abandons the partial one */
    clear();
    feeds(r, "$m0,");
    ok(vx_rsp_in_packet(r), "mid-packet");
    feeds(r, "$?#3f");
    ok(npkts == 1 && strcmp(pkts[0], "?") == 0, "restarted packet delivered");
    vx_rsp_get_stats(r, &st);
    is_u64(st.dropped, 1, "partial packet counted as dropped");

    /* 10. packets longer than the buffer are delivered flagged, truncated */
    clear();
    {
        char big[200];
        memset(big, 'A', sizeof big);
        frame(f, sizeof f, big, sizeof big);
        feeds(r, f);
    }
    ok(npkts == 1 && pkt_st[0] == VX_RSP_TOO_LONG && pkt_len[0] == 64, "oversized packet flagged");
    clear();
    {
        char fits[64];
        memset(fits, 'A', sizeof fits);
        frame(f, sizeof f, fits, sizeof fits);
        feeds(r, f);
    }
    ok(npkts == 1 && pkt_st[0] == VX_RSP_OK && pkt_len[0] == 64,
       "packet of exactly the buffer size");

    /* 11. no-ack mode */
    clear();
    vx_rsp_set_noack(r, true);
    ok(vx_rsp_noack(r), "no-ack mode on");
    feeds(r, "$g#67");
    ok(npkts == 1 && out_len == 0, "no '+' sent in no-ack mode");
    clear();
    feeds(r, "$g#00");
    ok(npkts == 1 && out_len == 0, "bad checksum accepted silently in no-ack mode");
    clear();
    vx_rsp_send_str(r, "OK");
    size_t one = out_len;
    feeds(r, "-+-");
    is_int(out_len, one, "'-' does not resend in no-ack mode");

    /* 12. reset returns to ack mode */
    vx_rsp_reset(r);
    clear();
    feeds(r, "$g#67");
    ok(out_len == 1 && out[0] == '+', "ack mode after reset");

    /* 13. noise between packets is ignored */
    clear();
    feeds(r, "xyz\r\n$g#67");
    ok(npkts == 1 && strcmp(pkts[0], "g") == 0, "noise before a packet ignored");

    /* 14. hex helpers */
    char hex[16];
    uint8_t bin[8];
    is_u64(vx_rsp_hex_encode(hex, sizeof hex, "\x01\xab\xff", 3), 6, "hex_encode length");
    is_str(hex, "01abff", "hex_encode digits");
    ok(vx_rsp_hex_encode(hex, 5, "\x01\xab\xff", 3) == SIZE_MAX, "hex_encode respects cap");
    ok(vx_rsp_hex_decode(bin, sizeof bin, "01AbfF", 6) == 3 && bin[0] == 1 && bin[1] == 0xab &&
           bin[2] == 0xff,
       "hex_decode mixed case");
    ok(vx_rsp_hex_decode(bin, sizeof bin, "0g", 2) == SIZE_MAX, "hex_decode rejects bad digit");
    ok(vx_rsp_hex_decode(bin, sizeof bin, "012", 3) == SIZE_MAX, "hex_decode rejects odd length");
    ok(vx_rsp_hex_decode(bin, 1, "0102", 4) == SIZE_MAX, "hex_decode respects cap");
    {
        const char *s = "80000010,4";
        const char *e = s + strlen(s);
        uint64_t v = 0;
        ok(vx_rsp_parse_hex(&s, e, &v) && v == 0x80000010 && *s == ',', "parse_hex stops at ','");
        s = "ffffffffffffffff1";
        e = s + strlen(s);
        ok(!vx_rsp_parse_hex(&s, e, &v), "parse_hex rejects 65-bit values");
        s = "000000000000000000001";
        e = s + strlen(s);
        ok(vx_rsp_parse_hex(&s, e, &v) && v == 1, "parse_hex accepts leading zeros");
        s = ",1";
        e = s + 2;
        ok(!vx_rsp_parse_hex(&s, e, &v), "parse_hex needs a digit");
    }

    vx_rsp_free(r);
    return tap_exit();
}
