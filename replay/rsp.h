/*
 * rsp.h - GDB Remote Serial Protocol framing, with no I/O of its own.
 *
 * A vx_rsp is fed the bytes that arrive from the client (vx_rsp_feed) and calls
 * back with what they mean: a complete packet (escapes already undone), an
 * interrupt byte (0x03), or nothing (acks are consumed here).
 * Bytes to send (packets, '+'/'-' acknowledgements, retransmissions) go out
 * through the write callback; the caller owns the socket or pipe.  This keeps the
 * state machine testable with plain byte strings (tests/unit/t-rsp.c).
 *
 * Framing (GDB manual, "Overview" of the remote protocol):
 *   $<data>#<2 hex checksum>      checksum = sum of the raw data bytes mod 256
 *   '}' escapes the next byte (byte ^ 0x20); we escape '#', '$', '}' and '*'
 *   run-length encoding ('*') is for responses, which we do not compress: a '*'
 *   from the client is data
 *   '+' / '-' acknowledge a packet (until QStartNoAckMode is agreed); in ack mode
 *   the next packet waits for the '+' of the one before
 *   0x03 outside a packet asks the target to stop
 */
#ifndef VX_RSP_H
#define VX_RSP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How a received packet ended. */
typedef enum vx_rsp_status {
    VX_RSP_OK = 0,       /* complete and intact */
    VX_RSP_TOO_LONG = 1, /* longer than the packet buffer; data holds a prefix */
} vx_rsp_status;

typedef struct vx_rsp_ops {
    /* Raw bytes to send to the client. */
    void (*write)(void *ctx, const uint8_t *buf, size_t len);
    /* One packet.  data is NUL-terminated (it may also contain NULs: use len). */
    void (*packet)(void *ctx, const char *data, size_t len, vx_rsp_status status);
    /* The client sent 0x03 between packets. */
    void (*interrupt)(void *ctx);
} vx_rsp_ops;

typedef struct vx_rsp vx_rsp;

/* max_packet: the largest decoded packet accepted (what qSupported's PacketSize says). */
vx_rsp *vx_rsp_new(const vx_rsp_ops *ops, void *ctx, size_t max_packet);
void vx_rsp_free(vx_rsp *rsp);

/* Forget any partial packet and the retransmission buffer; back to ack mode. */
void vx_rsp_reset(vx_rsp *rsp);

/* Process received bytes; calls the callbacks as packets complete. */
void vx_rsp_feed(vx_rsp *rsp, const uint8_t *bytes, size_t n);

/* True while a packet is partly received (the client is mid-packet). */
bool vx_rsp_in_packet(const vx_rsp *rsp);

/*
 * Frame and send one packet (escaping as needed).  In ack mode it goes out once
 * the client has acknowledged the packet before (until then it is queued), and a
 * copy is kept and sent again when the client answers '-'.
 */
void vx_rsp_send(vx_rsp *rsp, const void *data, size_t len);
void vx_rsp_send_str(vx_rsp *rsp, const char *s);

/*
 * No-acknowledgement mode (QStartNoAckMode): call after sending the "OK" reply.
 * Then no '+'/'-' is sent, received ones are ignored, and packets are accepted
 * whatever their checksum (the transport is reliable).
 */
void vx_rsp_set_noack(vx_rsp *rsp, bool on);
bool vx_rsp_noack(const vx_rsp *rsp);

/* Ack mode, and a packet sent that the client has not acknowledged yet. */
bool vx_rsp_awaiting_ack(const vx_rsp *rsp);

/* Counters for tests and diagnostics. */
typedef struct vx_rsp_stats {
    uint64_t packets;       /* packets delivered */
    uint64_t bad_checksums; /* packets NAKed (ack mode) or accepted with a bad sum */
    uint64_t naks;          /* '-' received */
    uint64_t resends;       /* packets sent again */
    uint64_t dropped;       /* partial packets abandoned ('$' inside a packet) */
} vx_rsp_stats;

void vx_rsp_get_stats(const vx_rsp *rsp, vx_rsp_stats *out);

/* ---- encoding helpers (bounded: they return the length written, or SIZE_MAX if cap is too small) */

/* Two lower-case hex digits per byte; a NUL is added when room remains. */
size_t vx_rsp_hex_encode(char *out, size_t cap, const void *data, size_t n);

/* Decode 2*n hex digits; returns the number of bytes, or SIZE_MAX on a bad digit or odd length. */
size_t vx_rsp_hex_decode(uint8_t *out, size_t cap, const char *hex, size_t hexlen);

/* Value of one hex digit, or -1. */
int vx_rsp_hexval(int c);

/*
 * Parse a hex number at *p (at least one digit, at most 16); advances *p.  Returns
 * false when there is no digit or the value overflows 64 bits.
 */
bool vx_rsp_parse_hex(const char **p, const char *end, uint64_t *val);

#endif /* VX_RSP_H */
