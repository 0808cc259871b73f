/*
 * evfmt.c - text and JSON renderings of trace events (see evfmt.h).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "evfmt.h"
#include "vis.h"

/* ---- string buffer ------------------------------------------------------------------------- */

static bool sb_grow(vxd_sb *b, size_t extra)
{
    if (b->oom) return false;
    if (b->len + extra + 1 <= b->cap) return true;
    size_t ncap = b->cap ? b->cap : 256;
    while (ncap < b->len + extra + 1)
        ncap *= 2;
    char *p = realloc(b->s, ncap);
    if (!p) {
        b->oom = true;
        return false;
    }
    b->s = p;
    b->cap = ncap;
    return true;
}

void vxd_sb_release(vxd_sb *b)
{
    free(b->s);
    memset(b, 0, sizeof *b);
}

void vxd_sb_clear(vxd_sb *b)
{
    b->len = 0;
    b->oom = false;
    if (b->s) b->s[0] = 0;
}

void vxd_sb_putc(vxd_sb *b, char c)
{
    if (!sb_grow(b, 1)) return;
    b->s[b->len++] = c;
    b->s[b->len] = 0;
}

void vxd_sb_puts(vxd_sb *b, const char *s)
{
    size_t n = strlen(s);
    if (!sb_grow(b, n)) return;
    memcpy(b->s + b->len, s, n + 1);
    b->len += n;
}

void vxd_sb_printf(vxd_sb *b, const char *fmt, ...)
{
    va_list ap;
    char tmp[256];
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof tmp) {
        if (!sb_grow(b, (size_t)n)) return;
        memcpy(b->s + b->len, tmp, (size_t)n + 1);
        b->len += (size_t)n;
        return;
    }
    if (!sb_grow(b, (size_t)n)) return;
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void vxd_sb_pad(vxd_sb *b, size_t col)
{
    while (b->len < col && !b->oom)
        vxd_sb_putc(b, ' ');
}

/* Length of the valid UTF-8 sequence that starts s[0..n) (RFC 3629: no overlong form, no
 * surrogate, nothing above U+10FFFF), 0 when none does. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
    unsigned char c = s[0], lo = 0x80, hi = 0xBF; /* the range of the second byte */
    size_t len;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        if (c == 0xE0) lo = 0xA0; /* overlong */
        if (c == 0xED) hi = 0x9F; /* surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        if (c == 0xF0) lo = 0x90; /* overlong */
        if (c == 0xF4) hi = 0x8F; /* above U+10FFFF */
    } else {
        return 0;
    }
    if (n < len || s[1] < lo || s[1] > hi) return 0;
    for (size_t i = 2; i < len; i++)
        if ((s[i] & 0xC0) != 0x80) return 0;
    return len;
}

void vxd_sb_json_str(vxd_sb *b, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    vxd_sb_putc(b, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = u[i];
        switch (c) {
        case '"': vxd_sb_puts(b, "\\\""); break;
        case '\\': vxd_sb_puts(b, "\\\\"); break;
        case '\n': vxd_sb_puts(b, "\\n"); break;
        case '\r': vxd_sb_puts(b, "\\r"); break;
        case '\t': vxd_sb_puts(b, "\\t"); break;
        default:
            if (c < 0x20 || c == 0x7f) {
                vxd_sb_printf(b, "\\u%04x", c);
            } else if (c < 0x80) {
                vxd_sb_putc(b, (char)c);
            } else {
                /* the strings come from a file: UTF-8 (FORMAT.md §2) is passed through,
                 * any other byte becomes U+FFFD, so that the output is always UTF-8 */
                size_t k = utf8_seq(u + i, n - i);
                if (!k) {
                    vxd_sb_puts(b, "\xEF\xBF\xBD");
                    continue;
                }
                if (!sb_grow(b, k)) return;
                memcpy(b->s + b->len, u + i, k);
                b->len += k;
                b->s[b->len] = 0;
                i += k - 1;
            }
        }
    }
    vxd_sb_putc(b, '"');
}

void vxd_sb_json_source(vxd_sb *b, const vxd_symtab *syms, uint32_t pc)
{
    const vxd_line_row *row = syms ? vxd_lines_lookup(&syms->lines, pc) : NULL;
    if (!row) {
        vxd_sb_puts(b, "null");
        return;
    }
    const char *path = syms->lines.files[row->file].shown;
    vxd_sb_puts(b, "{\"file\":");
    vxd_sb_json_str(b, path, strlen(path));
    vxd_sb_printf(b, ",\"line\":%" PRIu32 "}", row->line);
}

static void lanes_hex(vxd_sb *b, vx_lanes m, int digits)
{
    uint64_t hi = (uint64_t)(m >> 64), lo = (uint64_t)m;
    if (hi)
        vxd_sb_printf(b, "%0*" PRIx64 "%016" PRIx64, digits > 16 ? digits - 16 : 1, hi, lo);
    else
        vxd_sb_printf(b, "%0*" PRIx64, digits > 16 ? 16 : (digits < 1 ? 1 : digits), lo);
    /* 17..32 digits wanted but hi == 0: pad on the left */
    if (!hi && digits > 16) {
        size_t n = (size_t)digits - 16;
        if (!sb_grow(b, n)) return;
        size_t start = b->len - 16;
        memmove(b->s + start + n, b->s + start, 17);
        memset(b->s + start, '0', n);
        b->len += n;
    }
}

void vxd_sb_json_lanes(vxd_sb *b, vx_lanes m)
{
    vxd_sb_puts(b, "\"0x");
    lanes_hex(b, m, 1);
    vxd_sb_putc(b, '"');
}

/* ---- names ------------------------------------------------------------------------------------ */

const char *vxd_wctl_name(unsigned k)
{
    static const char *const n[] = {"?",          "tmask",       "activate",   "deactivate",
                                    "ipdom-push", "ipdom-pop",   "ipdom-else", "spawn-wait",
                                    "bar-arrive", "bar-release", "stall",      "unstall"};
    return k < VX_ARRAY_SIZE(n) && k ? n[k] : "unknown";
}

const char *vxd_fault_name(unsigned k)
{
    static const char *const n[] = {
        "none",           "illegal",         "csr",     "misaligned", "unmapped", "divergent",
        "ipdom-overflow", "ipdom-underflow", "barrier", "wspawn",     "ecall",    "ebreak",
        "deadlock",       "console"};
    return k < VX_ARRAY_SIZE(n) ? n[k] : "unknown";
}

const char *vxd_signal_name(unsigned s)
{
    switch (s) {
    case 4: return "SIGILL";
    case 5: return "SIGTRAP";
    case 6: return "SIGABRT";
    case 7: return "SIGBUS";
    case 8: return "SIGFPE";
    case 11: return "SIGSEGV";
    case 12: return "SIGSYS"; /* the ecall fault's (GDB's number; FORMAT.md §7.6) */
    default: return "SIG?";
    }
}

const char *vxd_dm_op_name(unsigned op)
{
    static const char *const n[] = {"?",     "read",   "write",   "halt",         "resume",
                                    "reset", "set-pc", "scratch", "inject-reject"};
    return op < VX_ARRAY_SIZE(n) && op ? n[op] : "unknown";
}

const char *vxd_dm_reg_name(unsigned a)
{
    static const char *const n[] = {"platform",  "dconfig",   "dselect",  "wmask",  "wactive",
                                    "wstatus",   "dctrl",     "dpc",      "inject", "dscratch0",
                                    "dscratch1", "dscratch2", "dscratch3"};
    return a < VX_ARRAY_SIZE(n) ? n[a] : "reg?";
}

const char *vxd_end_name(unsigned s)
{
    switch (s) {
    case VX_END_EXIT: return "exit";
    case VX_END_FAULT: return "fault";
    case VX_END_LIMIT: return "limit";
    case VX_END_ABORT: return "abort";
    default: return "unknown";
    }
}

const char *vxd_hacause_name(unsigned c)
{
    static const char *const n[] = {"none", "ebreak", "haltreq", "step", "resethaltreq"};
    return c < VX_ARRAY_SIZE(n) ? n[c] : "unknown";
}

const char *vxd_image_kind_name(unsigned k)
{
    return k == 1 ? "ELF" : k == 2 ? "vxbin" : k == 3 ? "raw" : "unknown";
}

void vxd_reg_name(unsigned file, unsigned reg, char *buf, size_t cap)
{
    if (file == VX_RF_X && reg < 32)
        snprintf(buf, cap, "%s", vx_isa_xreg_name(reg));
    else if (file == VX_RF_F && reg < 32)
        snprintf(buf, cap, "%s", vx_isa_freg_name(reg));
    else if (file == VX_RF_CSR) {
        const char *n = vx_isa_csr_name(reg);
        if (n)
            snprintf(buf, cap, "%s", n);
        else
            snprintf(buf, cap, "csr0x%03x", reg);
    } else
        snprintf(buf, cap, "r%u.%u", file, reg);
}

bool vxd_is_split(uint32_t insn)
{
    vx_op op = vx_isa_op(insn);
    return op == VX_OP_VX_SPLIT || op == VX_OP_VX_SPLIT_N;
}

/* ---- set-up --------------------------------------------------------------------------------------- */

static int digits_u64(uint64_t v)
{
    int n = 1;
    while (v >= 10) {
        v /= 10;
        n++;
    }
    return n;
}

void vxd_fmt_init(vxd_fmt *f, const vx_trace_header *h, const vxd_symtab *syms, vx_disasm_ctx *dis,
                  uint64_t max_index, uint64_t max_cycle)
{
    memset(f, 0, sizeof *f);
    f->cores = h->clusters * h->cores;
    f->warps = h->warps;
    f->threads = h->threads;
    f->syms = syms;
    f->dis = dis;
    f->lane = -1;
    f->w_index = digits_u64(max_index);
    if (f->w_index < 6) f->w_index = 6; /* "#INDEX" */
    f->w_cycle = digits_u64(max_cycle);
    if (f->w_cycle < 5) f->w_cycle = 5;
    f->w_cw = digits_u64(f->cores ? f->cores - 1 : 0) + 1 + digits_u64(h->warps ? h->warps - 1 : 0);
    if (f->w_cw < 3) f->w_cw = 3;
    f->w_sym = syms && syms->n ? (int)syms->maxlen + 10 : 0;
    if (f->w_sym > 34) f->w_sym = 34;
    f->w_mask = (int)((h->threads + 3) / 4);
    if (f->w_mask < 4) f->w_mask = 4;
    f->w_dis = 30;
}

void vxd_fmt_show_lines(vxd_fmt *f)
{
    if (!f->syms) return; /* no tables: no column */
    const vxd_lines *l = &f->syms->lines;
    size_t w = 6; /* "SOURCE" */
    for (size_t i = 0; i < l->nfiles; i++) {
        const size_t n = strlen(l->files[i].shown) + 5; /* ":1234" */
        if (n > w) w = n;
    }
    f->w_src = w > 40 ? 40 : (int)w;
}

void vxd_fmt_columns(const vxd_fmt *f, vxd_sb *b)
{
    size_t start = b->len;
    vxd_sb_printf(b, "#%*s %*s  %-*s  %-8s  ", f->w_index - 1, "INDEX", f->w_cycle, "CYCLE",
                  f->w_cw, "C:W", "PC");
    if (f->w_sym) vxd_sb_printf(b, "%-*s  ", f->w_sym, "SYMBOL");
    if (f->w_src) vxd_sb_printf(b, "%-*s  ", f->w_src, "SOURCE");
    vxd_sb_printf(b, "%-*s  %-*s  %s", f->w_mask, "MASK", f->w_dis, "INSTRUCTION", "EFFECTS");
    (void)start;
}

/* ---- values -------------------------------------------------------------------------------------- */

void vxd_fmt_value(vxd_sb *b, uint32_t v)
{
    int32_t s = (int32_t)v;
    if (s >= -9 && s <= 9)
        vxd_sb_printf(b, "%" PRId32, s);
    else
        vxd_sb_printf(b, "0x%" PRIx32, v);
}

size_t vxd_float_text(uint32_t bits, char *buf, size_t cap)
{
    float x;
    char t[48];
    memcpy(&x, &bits, sizeof x);
    /* a NaN other than RISC-V's canonical one (0x7fc00000, what every operation makes):
     * its bits, a signalling one (quiet bit 22 clear) named so */
    if ((bits & 0x7f800000u) == 0x7f800000u && (bits & 0x007fffffu) && bits != 0x7fc00000u)
        return (size_t)snprintf(buf, cap, "%s%snan(0x%08" PRIx32 ")", bits >> 31 ? "-" : "",
                                bits & 0x00400000u ? "" : "s", bits);
    /* the fewest digits (6 to 9) that read back as the same float */
    for (int digits = 6; digits <= 9; digits++) {
        snprintf(t, sizeof t, "%.*g", digits, (double)x);
        if (x != x || strtof(t, NULL) == x) break;
    }
    if (!strpbrk(t, ".eEna")) strcat(t, ".0"); /* not for inf / nan / exponents */
    return (size_t)snprintf(buf, cap, "%s", t);
}

/* A float register value (vxd_float_text). */
static void fmt_float(vxd_sb *b, uint32_t bits)
{
    char t[48];
    vxd_float_text(bits, t, sizeof t);
    vxd_sb_puts(b, t);
}

enum {
    COLL_NONE,
    COLL_UNIFORM,
    COLL_AFFINE,
    COLL_LIST
};

/*
 * How the values of lanes collapse: uniform (all equal), affine (v = b + s*lane
 * over >= 3 lanes, s != 0) or a list.
 */
static int collapse(const uint32_t *v, vx_lanes lanes, uint32_t nt, bool affine_ok, uint32_t *base,
                    int32_t *stride)
{
    unsigned l0 = vx_lanes_first(lanes);
    if (l0 >= nt) return COLL_NONE;
    unsigned n = vx_lanes_count(lanes);
    bool uni = true;
    for (unsigned l = l0 + 1; l < nt; l++)
        if (vx_lanes_test(lanes, l) && v[l] != v[l0]) {
            uni = false;
            break;
        }
    if (uni) {
        *base = v[l0];
        return COLL_UNIFORM;
    }
    if (!affine_ok || n < 3) return COLL_LIST;
    unsigned l1 = vx_lanes_first(lanes & ~vx_lanes_bit(l0));
    int64_t d = (int32_t)(v[l1] - v[l0]);
    int64_t dl = (int64_t)l1 - l0;
    if (d % dl) return COLL_LIST;
    int32_t s = (int32_t)(d / dl);
    uint32_t b = v[l0] - (uint32_t)s * l0;
    for (unsigned l = l1 + 1; l < nt; l++)
        if (vx_lanes_test(lanes, l) && v[l] != b + (uint32_t)s * l) return COLL_LIST;
    *base = b;
    *stride = s;
    return COLL_AFFINE;
}

static void fmt_affine(vxd_sb *b, uint32_t base, int32_t stride)
{
    uint32_t mag = stride < 0 ? (uint32_t)0 - (uint32_t)stride : (uint32_t)stride;
    if (base) {
        vxd_fmt_value(b, base);
        vxd_sb_putc(b, stride < 0 ? '-' : '+');
    } else if (stride < 0) {
        vxd_sb_putc(b, '-');
    }
    if (mag != 1) vxd_sb_printf(b, "%" PRIu32 "*", mag);
    vxd_sb_puts(b, "lane");
}

static void fmt_lane_list(vxd_sb *b, const uint32_t *v, vx_lanes lanes, bool isfloat)
{
    unsigned last = vx_lanes_last(lanes);
    vxd_sb_putc(b, '[');
    for (unsigned l = 0; l <= last; l++) {
        if (l) vxd_sb_putc(b, ',');
        if (!vx_lanes_test(lanes, l))
            vxd_sb_putc(b, '-');
        else if (isfloat)
            fmt_float(b, v[l]);
        else
            vxd_fmt_value(b, v[l]);
    }
    vxd_sb_putc(b, ']');
}

/* Lanes to show for a set: all of them, or only the filter lane. */
static vx_lanes shown(const vxd_fmt *f, vx_lanes lanes)
{
    if (f->lane < 0) return lanes;
    return lanes & vx_lanes_bit((unsigned)f->lane);
}

void vxd_fmt_commit_values(const vxd_fmt *f, const vx_commit *c, vxd_sb *b)
{
    vx_lanes lanes = shown(f, c->lanes);
    bool isfloat = c->file == VX_RF_F;
    uint32_t base = 0;
    int32_t stride = 0;
    switch (collapse(c->values, lanes, f->threads, !isfloat, &base, &stride)) {
    case COLL_NONE: vxd_sb_puts(b, "[]"); break;
    case COLL_UNIFORM:
        if (isfloat)
            fmt_float(b, base);
        else
            vxd_fmt_value(b, base);
        break;
    case COLL_AFFINE: fmt_affine(b, base, stride); break;
    default: fmt_lane_list(b, c->values, lanes, isfloat); break;
    }
}

/* ---- effects --------------------------------------------------------------------------------------- */

static void sep(vxd_sb *b, size_t start)
{
    if (b->len > start) vxd_sb_putc(b, ' ');
}

static uint32_t size_mask(unsigned size)
{
    return size >= 4 ? 0xFFFFFFFFu : (1u << (8 * size)) - 1;
}

/*
 * Memory writes: one per shown lane, ascending, same size, addresses b + s*lane:
 * collapse to memN[b+s*lane]=values; otherwise list them as memN[addr]=v@lane.
 */
static void fmt_mem(const vxd_fmt *f, const vx_event *ev, vxd_sb *b, size_t start)
{
    const vx_memwrite *m = ev->mem;
    uint32_t n = ev->nmem;
    if (!n) return;
    bool group = f->lane < 0 && n >= 2;
    vx_lanes lanes = 0;
    uint32_t vals[VX_MAX_THREADS], addrs[VX_MAX_THREADS];
    for (uint32_t i = 0; group && i < n; i++) {
        if (m[i].size != m[0].size || m[i].lane >= f->threads || (i && m[i].lane <= m[i - 1].lane))
            group = false;
        else {
            lanes |= vx_lanes_bit(m[i].lane);
            vals[m[i].lane] = m[i].value & size_mask(m[i].size);
            addrs[m[i].lane] = m[i].addr;
        }
    }
    uint32_t abase = 0, vbase = 0;
    int32_t astride = 0, vstride = 0;
    if (group) {
        /* n >= 2 here; affine needs 3 for values but addresses of 2 lanes are fine */
        unsigned l0 = vx_lanes_first(lanes), l1 = vx_lanes_first(lanes & ~vx_lanes_bit(l0));
        int64_t d = (int32_t)(addrs[l1] - addrs[l0]), dl = (int64_t)l1 - l0;
        if (d % dl || d == 0)
            group = false;
        else {
            astride = (int32_t)(d / dl);
            abase = addrs[l0] - (uint32_t)astride * l0;
            for (unsigned l = l1 + 1; l < f->threads; l++)
                if (vx_lanes_test(lanes, l) && addrs[l] != abase + (uint32_t)astride * l)
                    group = false;
        }
    }
    if (group) {
        sep(b, start);
        vxd_sb_printf(b, "mem%u[", 8u * m[0].size);
        fmt_affine(b, abase, astride);
        vxd_sb_puts(b, "]=");
        int k = collapse(vals, lanes, f->threads, true, &vbase, &vstride);
        if (k == COLL_UNIFORM)
            vxd_fmt_value(b, vbase);
        else if (k == COLL_AFFINE)
            fmt_affine(b, vbase, vstride);
        else
            fmt_lane_list(b, vals, lanes, false);
        return;
    }
    bool one_lane = vx_lanes_count(ev->tmask) <= 1 || f->lane >= 0;
    for (uint32_t i = 0; i < n; i++) {
        if (f->lane >= 0 && m[i].lane != (unsigned)f->lane) continue;
        sep(b, start);
        vxd_sb_printf(b, "mem%u[0x%08" PRIx32 "]=", 8u * m[i].size, m[i].addr);
        vxd_fmt_value(b, m[i].value & size_mask(m[i].size));
        if (!one_lane) vxd_sb_printf(b, "@%u", m[i].lane);
    }
}

static void fmt_target(const vx_event *ev, const vx_wctl *w, vxd_sb *b)
{
    if (w->core != ev->core || w->warp != ev->warp) vxd_sb_printf(b, "[%u:%u]", w->core, w->warp);
}

static void fmt_wctl(const vxd_fmt *f, const vx_event *ev, vxd_sb *b, size_t start)
{
    for (uint32_t i = 0; i < ev->nwctl; i++) {
        const vx_wctl *w = &ev->wctl[i];
        sep(b, start);
        switch (w->kind) {
        case VX_WCTL_TMASK:
            vxd_sb_puts(b, "tmask");
            fmt_target(ev, w, b);
            vxd_sb_putc(b, '=');
            lanes_hex(b, w->mask, 1);
            break;
        case VX_WCTL_ACTIVATE:
            vxd_sb_printf(b, "activate[%u:%u] pc=0x%08" PRIx32 " mask=", w->core, w->warp, w->pc);
            lanes_hex(b, w->mask, 1);
            break;
        case VX_WCTL_DEACTIVATE:
            vxd_sb_puts(b, "deactivate");
            fmt_target(ev, w, b);
            break;
        case VX_WCTL_IPDOM_PUSH:
            vxd_sb_puts(b, "ipdom-push");
            fmt_target(ev, w, b);
            vxd_sb_printf(b, " depth=%" PRIu32 " orig=", w->arg);
            lanes_hex(b, w->mask, 1);
            vxd_sb_puts(b, " else=");
            lanes_hex(b, w->mask2, 1);
            break;
        case VX_WCTL_IPDOM_POP:
        case VX_WCTL_IPDOM_ELSE:
            vxd_sb_puts(b, vxd_wctl_name(w->kind));
            fmt_target(ev, w, b);
            vxd_sb_printf(b, " depth=%" PRIu32, w->arg);
            break;
        case VX_WCTL_SPAWN_WAIT:
            vxd_sb_printf(b, "wspawn warps=%" PRIu32 " pc=0x%08" PRIx32, w->arg, w->pc);
            break;
        case VX_WCTL_BAR_ARRIVE:
            vxd_sb_printf(b, "bar-arrive %s%" PRIu32 " count=%" PRIu32, (w->arg >> 31) ? "g" : "",
                          w->arg & 0x7fffffffu, w->arg2);
            fmt_target(ev, w, b);
            break;
        case VX_WCTL_BAR_RELEASE:
            vxd_sb_printf(b, "bar-release %s%" PRIu32 "[%u:%u]", (w->arg >> 31) ? "g" : "",
                          w->arg & 0x7fffffffu, w->core, w->warp);
            break;
        case VX_WCTL_STALL:
        case VX_WCTL_UNSTALL:
            vxd_sb_puts(b, vxd_wctl_name(w->kind));
            fmt_target(ev, w, b);
            break;
        default:
            vxd_sb_printf(b, "wctl%u[%u:%u] pc=0x%08" PRIx32 " arg=%" PRIu32, w->kind, w->core,
                          w->warp, w->pc, w->arg);
            break;
        }
    }
    (void)f;
}

static void fmt_console(const vx_event *ev, vxd_sb *b, size_t start)
{
    uint32_t i = 0;
    while (i < ev->nconsole) {
        uint8_t slot = ev->console[i].slot;
        sep(b, start);
        vxd_sb_printf(b, "console[%u]=\"", slot);
        for (; i < ev->nconsole && ev->console[i].slot == slot; i++) {
            uint8_t c = ev->console[i].byte;
            if (c == '\n')
                vxd_sb_puts(b, "\\n");
            else if (c == '"' || c == '\\')
                vxd_sb_printf(b, "\\%c", c);
            else if (c >= 0x20 && c < 0x7f)
                vxd_sb_putc(b, (char)c);
            else
                vxd_sb_printf(b, "\\x%02x", c);
        }
        vxd_sb_putc(b, '"');
    }
}

/* ": REASON" of a fault, its first 96 characters: text from the trace, with control
 * characters as \xNN (vis.h) */
static void sb_reason(vxd_sb *b, const vx_fault *ft)
{
    char shown[4 * 96 + 1];
    vx_vis(ft->reason, strnlen(ft->reason, 96), shown, sizeof shown, 0);
    vxd_sb_printf(b, ": %s", shown);
}

static void fmt_fault(const vx_fault *ft, vxd_sb *b)
{
    vxd_sb_printf(b, "FAULT %s (%s, lanes 0x", vxd_fault_name(ft->kind),
                  vxd_signal_name(ft->signal));
    lanes_hex(b, ft->lanes, 1);
    vxd_sb_puts(b, ")");
    sb_reason(b, ft);
}

void vxd_fmt_effects(const vxd_fmt *f, const vx_event *ev, vxd_sb *b)
{
    size_t start = b->len;
    if (ev->flags & VX_EVF_INJECTED) vxd_sb_puts(b, "[injected]");
    if (ev->flags & VX_EVF_STEP) {
        sep(b, start);
        vxd_sb_puts(b, "[step]");
    }
    if (ev->fault) {
        sep(b, start);
        fmt_fault(ev->fault, b);
        return;
    }
    for (uint32_t i = 0; i < ev->ncommits; i++) {
        const vx_commit *c = &ev->commits[i];
        if (f->lane >= 0 && !vx_lanes_test(c->lanes, (unsigned)f->lane)) continue;
        char rn[24];
        vxd_reg_name(c->file, c->reg, rn, sizeof rn);
        sep(b, start);
        vxd_sb_printf(b, "%s=", rn);
        vxd_fmt_commit_values(f, c, b);
    }
    fmt_mem(f, ev, b, start);
    fmt_wctl(f, ev, b, start);
    fmt_console(ev, b, start);
}

/* ---- lines ------------------------------------------------------------------------------------------- */

static void line_start(const vxd_fmt *f, const vx_event *ev, vxd_sb *b)
{
    vxd_sb_printf(b, "%*" PRIu64 " %*" PRIu64 "  ", f->w_index, ev->index, f->w_cycle, ev->cycle);
}

static void fmt_dm(const vxd_fmt *f, const vx_event *ev, vxd_sb *b)
{
    const vx_dm_event *d = &ev->dm;
    uint32_t w = f->warps ? f->warps : 1;
    vxd_sb_printf(b, "%-*s  dm %s", f->w_cw, "--", vxd_dm_op_name(d->op));
    switch (d->op) {
    case VX_DM_READ:
        vxd_sb_printf(b, " %s -> 0x%08" PRIx32, vxd_dm_reg_name(d->addr), d->value);
        break;
    case VX_DM_WRITE:
        vxd_sb_printf(b, " %s = 0x%08" PRIx32, vxd_dm_reg_name(d->addr), d->value);
        break;
    case VX_DM_HALT:
        vxd_sb_printf(b, " warp %" PRIu32 " [%" PRIu32 ":%" PRIu32 "] cause=%s", d->gwarp,
                      d->gwarp / w, d->gwarp % w, vxd_hacause_name(d->arg));
        break;
    case VX_DM_RESUME:
        vxd_sb_printf(b, " warp %" PRIu32 " [%" PRIu32 ":%" PRIu32 "]", d->gwarp, d->gwarp / w,
                      d->gwarp % w);
        break;
    case VX_DM_RESET: break;
    case VX_DM_SET_PC:
        vxd_sb_printf(b, " warp %" PRIu32 " [%" PRIu32 ":%" PRIu32 "] pc=0x%08" PRIx32, d->gwarp,
                      d->gwarp / w, d->gwarp % w, d->value);
        break;
    case VX_DM_SCRATCH:
        vxd_sb_printf(b,
                      " warp %" PRIu32 " [%" PRIu32 ":%" PRIu32 "] lane %" PRIu32
                      " dscratch%" PRIu32 " = 0x%08" PRIx32,
                      d->gwarp, d->gwarp / w, d->gwarp % w, d->lane, d->arg, d->value);
        break;
    case VX_DM_INJECT_REJECT:
        vxd_sb_printf(b, " insn=0x%08" PRIx32 " reason=%" PRIu32, d->value, d->arg);
        break;
    default:
        vxd_sb_printf(
            b, " addr=0x%x value=0x%08" PRIx32 " warp=%" PRIu32 " lane=%" PRIu32 " arg=%" PRIu32,
            d->addr, d->value, d->gwarp, d->lane, d->arg);
        break;
    }
}

static void fmt_end(const vxd_fmt *f, const vx_event *ev, vxd_sb *b)
{
    vxd_sb_printf(b, "%-*s  end ", f->w_cw, "--");
    switch (ev->end_status) {
    case VX_END_EXIT: vxd_sb_printf(b, "exit code %" PRIu32, ev->exit_code); break;
    case VX_END_FAULT: vxd_sb_puts(b, "fault"); break;
    case VX_END_LIMIT: vxd_sb_puts(b, "cycle limit reached"); break;
    case VX_END_ABORT:
        vxd_sb_puts(b, "aborted (the recording stopped while the kernel ran)");
        break;
    default: vxd_sb_printf(b, "status %u", ev->end_status); break;
    }
    if (ev->fault) {
        const vx_fault *ft = ev->fault;
        char dis[96];
        if (f->dis)
            vx_disasm_ctx_insn(f->dis, ft->pc, ft->insn, dis, sizeof dis);
        else
            vx_disasm(ft->pc, ft->insn, dis, sizeof dis);
        if (ft->kind == VX_FAULT_DEADLOCK) /* no instruction faulted: no word to show */
            vxd_sb_printf(
                b, " %s (%s) at pc 0x%08" PRIx32 ", core %" PRIu32 " warp %" PRIu32 ", lanes 0x",
                vxd_fault_name(ft->kind), vxd_signal_name(ft->signal), ft->pc, ft->core, ft->warp);
        else
            vxd_sb_printf(b,
                          " %s (%s) at pc 0x%08" PRIx32 " [%s], core %" PRIu32 " warp %" PRIu32
                          ", lanes 0x",
                          vxd_fault_name(ft->kind), vxd_signal_name(ft->signal), ft->pc, dis,
                          ft->core, ft->warp);
        lanes_hex(b, ft->lanes, 1);
        sb_reason(b, ft);
    }
}

/*
 * After a direct branch or jal (whose operand is the offset, as the disassembler
 * writes it): where it goes, as objdump shows it, " -> 0x80000094 <main>".
 */
static void branch_target_text(const vxd_fmt *f, uint32_t pc, uint32_t insn, vxd_sb *b)
{
    const uint32_t opcode = insn & 0x7f;
    if (opcode != 0x63 && opcode != 0x6f) return; /* B-type, JAL */
    vx_insn di;
    vx_isa_decode(insn, &di);
    if (di.op == VX_OP_INVALID) return;
    const uint32_t target = pc + (uint32_t)di.imm;
    char sym[160] = "";
    if (f->syms) vxd_symtab_format(f->syms, target, sym, sizeof sym);
    vxd_sb_printf(b, " -> 0x%08" PRIx32 "%s%s", target, sym[0] ? " " : "", sym);
}

void vxd_fmt_event(const vxd_fmt *f, const vx_event *ev, vxd_sb *b)
{
    line_start(f, ev, b);
    if (ev->kind == VX_EV_DM) {
        fmt_dm(f, ev, b);
        return;
    }
    if (ev->kind == VX_EV_END) {
        fmt_end(f, ev, b);
        return;
    }
    if (ev->kind != VX_EV_ISSUE) {
        vxd_sb_printf(b, "%-*s  event of unknown kind %u", f->w_cw, "--", ev->kind);
        return;
    }
    char cw[24], dis[96];
    snprintf(cw, sizeof cw, "%u:%u", ev->core, ev->warp);
    vxd_sb_printf(b, "%-*s  %08" PRIx32 "  ", f->w_cw, cw, ev->pc);
    if (f->w_sym) {
        size_t col = b->len + (size_t)f->w_sym;
        char sym[160];
        vxd_symtab_format(f->syms, ev->pc, sym, sizeof sym);
        vxd_sb_puts(b, sym);
        vxd_sb_pad(b, col);
        vxd_sb_puts(b, "  ");
    }
    if (f->w_src) {
        size_t col = b->len + (size_t)f->w_src;
        char src[300];
        if (!f->syms || !vxd_lines_format(&f->syms->lines, ev->pc, src, sizeof src))
            strcpy(src, "-");
        vxd_sb_puts(b, src);
        vxd_sb_pad(b, col);
        vxd_sb_puts(b, "  ");
    }
    size_t col = b->len + (size_t)f->w_mask;
    lanes_hex(b, ev->tmask, (int)((f->threads + 3) / 4));
    vxd_sb_pad(b, col);
    vxd_sb_puts(b, "  ");
    if (f->dis)
        vx_disasm_ctx_insn(f->dis, ev->pc, ev->insn, dis, sizeof dis);
    else
        vx_disasm(ev->pc, ev->insn, dis, sizeof dis);
    size_t before = b->len;
    vxd_sb_puts(b, dis);
    branch_target_text(f, ev->pc, ev->insn, b);
    size_t mark = b->len;
    vxd_sb_pad(b, before + (size_t)f->w_dis);
    vxd_sb_puts(b, "  ");
    size_t eff = b->len;
    vxd_fmt_effects(f, ev, b);
    if (b->len == eff && !b->oom) { /* no effects: no trailing blanks */
        b->len = mark;
        b->s[mark] = 0;
    }
}

/* ---- JSON ---------------------------------------------------------------------------------------------- */

static void json_fault(vxd_sb *b, const vx_fault *ft)
{
    vxd_sb_printf(b,
                  "{\"kind\":\"%s\",\"signal\":%u,\"signame\":\"%s\",\"core\":%" PRIu32
                  ",\"warp\":%" PRIu32 ",\"pc\":%" PRIu32 ",\"insn\":%" PRIu32 ",\"addr\":%" PRIu32
                  ",\"lanes\":",
                  vxd_fault_name(ft->kind), ft->signal, vxd_signal_name(ft->signal), ft->core,
                  ft->warp, ft->pc, ft->insn, ft->addr);
    vxd_sb_json_lanes(b, ft->lanes);
    vxd_sb_puts(b, ",\"reason\":");
    vxd_sb_json_str(b, ft->reason, strnlen(ft->reason, sizeof ft->reason));
    vxd_sb_putc(b, '}');
}

static const char *file_name(unsigned file)
{
    return file == VX_RF_X ? "x" : file == VX_RF_F ? "f" : file == VX_RF_CSR ? "csr" : "?";
}

static void json_issue(const vxd_fmt *f, const vx_event *ev, vxd_sb *b)
{
    char dis[96], sym[160];
    uint32_t off;
    vxd_sb_printf(b,
                  ",\"core\":%" PRIu32 ",\"warp\":%" PRIu32 ",\"gwarp\":%" PRIu32 ",\"pc\":%" PRIu32
                  ",\"insn\":%" PRIu32 ",\"tmask\":",
                  ev->core, ev->warp, ev->core * f->warps + ev->warp, ev->pc, ev->insn);
    vxd_sb_json_lanes(b, ev->tmask);
    vxd_sb_printf(b, ",\"flags\":%u,\"disasm\":", ev->flags);
    if (f->dis)
        vx_disasm_ctx_insn(f->dis, ev->pc, ev->insn, dis, sizeof dis);
    else
        vx_disasm(ev->pc, ev->insn, dis, sizeof dis);
    vxd_sb_json_str(b, dis, strlen(dis));
    vxd_sb_puts(b, ",\"symbol\":");
    const vxd_sym *s = f->syms ? vxd_symtab_lookup(f->syms, ev->pc, &off) : NULL;
    if (s) {
        if (off)
            snprintf(sym, sizeof sym, "%s+0x%" PRIx32, s->name, off);
        else
            snprintf(sym, sizeof sym, "%s", s->name);
        vxd_sb_json_str(b, sym, strlen(sym));
    } else {
        vxd_sb_puts(b, "null");
    }
    vxd_sb_puts(b, ",\"source\":");
    vxd_sb_json_source(b, f->syms, ev->pc);
    vxd_sb_puts(b, ",\"commits\":[");
    bool first = true;
    for (uint32_t i = 0; i < ev->ncommits; i++) {
        const vx_commit *c = &ev->commits[i];
        if (f->lane >= 0 && !vx_lanes_test(c->lanes, (unsigned)f->lane)) continue;
        char rn[24];
        vxd_reg_name(c->file, c->reg, rn, sizeof rn);
        vxd_sb_printf(b,
                      "%s{\"file\":\"%s\",\"reg\":%u,\"name\":\"%s\",\"lanes\":", first ? "" : ",",
                      file_name(c->file), c->reg, rn);
        first = false;
        vxd_sb_json_lanes(b, c->lanes);
        vxd_sb_puts(b, ",\"values\":[");
        vx_lanes sh = shown(f, c->lanes);
        for (uint32_t l = 0; l < f->threads; l++) {
            if (l) vxd_sb_putc(b, ',');
            if (vx_lanes_test(sh, l))
                vxd_sb_printf(b, "%" PRIu32, c->values[l]);
            else
                vxd_sb_puts(b, "null");
        }
        vxd_sb_puts(b, "]}");
    }
    vxd_sb_puts(b, "],\"mem\":[");
    first = true;
    for (uint32_t i = 0; i < ev->nmem; i++) {
        const vx_memwrite *m = &ev->mem[i];
        if (f->lane >= 0 && m->lane != (unsigned)f->lane) continue;
        vxd_sb_printf(b, "%s{\"lane\":%u,\"addr\":%" PRIu32 ",\"size\":%u,\"value\":%" PRIu32 "}",
                      first ? "" : ",", m->lane, m->addr, m->size, m->value & size_mask(m->size));
        first = false;
    }
    vxd_sb_puts(b, "],\"wctl\":[");
    for (uint32_t i = 0; i < ev->nwctl; i++) {
        const vx_wctl *w = &ev->wctl[i];
        vxd_sb_printf(b,
                      "%s{\"kind\":\"%s\",\"core\":%" PRIu32 ",\"warp\":%" PRIu32 ",\"pc\":%" PRIu32
                      ",\"arg\":%" PRIu32 ",\"arg2\":%" PRIu32 ",\"mask\":",
                      i ? "," : "", vxd_wctl_name(w->kind), w->core, w->warp, w->pc, w->arg,
                      w->arg2);
        vxd_sb_json_lanes(b, w->mask);
        vxd_sb_puts(b, ",\"mask2\":");
        vxd_sb_json_lanes(b, w->mask2);
        vxd_sb_putc(b, '}');
    }
    vxd_sb_puts(b, "],\"console\":[");
    for (uint32_t i = 0; i < ev->nconsole; i++)
        vxd_sb_printf(b, "%s{\"slot\":%u,\"byte\":%u}", i ? "," : "", ev->console[i].slot,
                      ev->console[i].byte);
    vxd_sb_puts(b, "],\"fault\":");
    if (ev->fault)
        json_fault(b, ev->fault);
    else
        vxd_sb_puts(b, "null");
}

void vxd_fmt_event_json(const vxd_fmt *f, const vx_event *ev, vxd_sb *b)
{
    const char *type = ev->kind == VX_EV_ISSUE ? "issue"
                       : ev->kind == VX_EV_DM  ? "dm"
                       : ev->kind == VX_EV_END ? "end"
                                               : "unknown";
    vxd_sb_printf(b, "{\"type\":\"%s\",\"index\":%" PRIu64 ",\"cycle\":%" PRIu64, type, ev->index,
                  ev->cycle);
    if (ev->kind == VX_EV_ISSUE) {
        json_issue(f, ev, b);
    } else if (ev->kind == VX_EV_DM) {
        const vx_dm_event *d = &ev->dm;
        /* Only a register access names a register (the other ops carry addr 0). */
        const bool access = d->op == VX_DM_READ || d->op == VX_DM_WRITE;
        vxd_sb_printf(b, ",\"op\":\"%s\",\"addr\":%u,\"reg\":%s%s%s", vxd_dm_op_name(d->op),
                      d->addr, access ? "\"" : "", access ? vxd_dm_reg_name(d->addr) : "null",
                      access ? "\"" : "");
        vxd_sb_printf(
            b, ",\"value\":%" PRIu32 ",\"gwarp\":%" PRIu32 ",\"lane\":%" PRIu32 ",\"arg\":%" PRIu32,
            d->value, d->gwarp, d->lane, d->arg);
    } else if (ev->kind == VX_EV_END) {
        vxd_sb_printf(b, ",\"status\":\"%s\",\"exit_code\":%" PRIu32 ",\"fault\":",
                      vxd_end_name(ev->end_status), ev->exit_code);
        if (ev->fault)
            json_fault(b, ev->fault);
        else
            vxd_sb_puts(b, "null");
    }
    vxd_sb_putc(b, '}');
}
