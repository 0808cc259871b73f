/*
 * summary.c - vxdump --summary (see summary.h).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "evfmt.h"
#include "summary.h"
#include "vis.h"

/* A name from the trace for the text summary: "(unnamed)" when empty, vis.h. */
static const char *vis(const char *name, char *out, size_t cap)
{
    if (!name || !*name) return "(unnamed)";
    vx_vis(name, strlen(name), out, cap, 0);
    return out;
}

typedef struct warp_stat {
    uint64_t issues, lane_ops, splits, divergent;
    uint64_t first_cycle, last_cycle;
    uint64_t wait_since; /* cycle of a pending barrier arrival */
    uint32_t wait_bar;
    bool waiting;
    /* per IPDOM depth, the pc of the vx_join where the first side of a divergent split
     * ended (0: none pending); allocated at the warp's first such join */
    uint32_t *join_pc;
    /* IPDOM depth after the warp's last push or pop, and the pc of the vx_split at the
     * innermost depth still pushed (per depth, allocated at the first push) */
    uint32_t depth;
    uint32_t *split_pc;
    bool unjoined; /* counted in unjoined (a warp spawned again may finish so again) */
} warp_stat;

typedef struct bar_stat {
    uint32_t id; /* bit 31: global */
    uint64_t arrivals, releases, wait_cycles, max_wait;
} bar_stat;

#define LINES_SHOWN      20u   /* lines in the text summary */
#define LINE_CACHE       1024u /* a power of two */
#define LINES_SHOWN_TEXT "20"

typedef struct fn_stat {
    uint64_t issues, lane_ops;
} fn_stat;

struct vxd_summary {
    uint32_t ncores, nw, nt;
    const vxd_symtab *syms;
    warp_stat *w;
    size_t ngw;
    bar_stat *bars;
    size_t nbars, capbars;
    fn_stat *fn;  /* syms->n + 1 entries: the last is "no symbol" */
    fn_stat *row; /* per row of syms->lines (NULL: no line tables) */
    /* the rows of recent PCs, direct-mapped by pc: the row's index + 1 (0: empty, or
     * no line, looked up again); a lookup per issue cost 16% of a summary, and most
     * issues repeat a few PCs */
    uint32_t cache_pc[LINE_CACHE], cache_row[LINE_CACHE];
    uint64_t records, issues, dm, lane_ops, mem_writes, console, wctl, splits, divergent, faults;
    uint64_t injected, steps, first_index, last_index, first_cycle, last_cycle;
    /* divergent splits whose two sides ended at different vx_join instructions (the
     * warp goes on after the second one: code after an if that the compiler copied per
     * outcome, or hand-written), and the first of them */
    uint64_t split_joins;
    uint64_t sj_index;
    size_t sj_gwarp;
    uint32_t sj_first, sj_second;
    /* warps that finished with a split not joined, and the first of them */
    uint64_t unjoined;
    size_t uj_gwarp;
    uint32_t uj_depth, uj_split;
    bool any;
    bool has_end;
    uint8_t end_status;
    uint32_t exit_code;
    uint64_t end_cycle;
    bool end_fault;
    vx_fault fault;
};

vx_err vxd_summary_new(vxd_summary **out, const vx_trace_header *h, const vxd_symtab *syms)
{
    vxd_summary *s = calloc(1, sizeof *s);
    if (!s) return VX_ERR_NOMEM;
    s->ncores = h->clusters * h->cores;
    s->nw = h->warps;
    s->nt = h->threads;
    s->syms = syms;
    s->ngw = (size_t)s->ncores * s->nw;
    s->w = calloc(s->ngw ? s->ngw : 1, sizeof *s->w);
    s->fn = calloc(syms->n + 1, sizeof *s->fn);
    if (syms->lines.nrows) s->row = calloc(syms->lines.nrows, sizeof *s->row);
    if (!s->w || !s->fn || (syms->lines.nrows && !s->row)) {
        vxd_summary_free(s);
        return VX_ERR_NOMEM;
    }
    *out = s;
    return VX_OK;
}

void vxd_summary_free(vxd_summary *s)
{
    if (!s) return;
    for (size_t g = 0; s->w && g < s->ngw; g++) {
        free(s->w[g].join_pc);
        free(s->w[g].split_pc);
    }
    free(s->w);
    free(s->bars);
    free(s->fn);
    free(s->row);
    free(s);
}

static bar_stat *bar_of(vxd_summary *s, uint32_t id)
{
    for (size_t i = 0; i < s->nbars; i++)
        if (s->bars[i].id == id) return &s->bars[i];
    if (s->nbars == s->capbars) {
        size_t ncap = s->capbars ? s->capbars * 2 : 8;
        bar_stat *p = realloc(s->bars, ncap * sizeof *p);
        if (!p) return NULL;
        s->bars = p;
        s->capbars = ncap;
    }
    bar_stat *b = &s->bars[s->nbars++];
    memset(b, 0, sizeof *b);
    b->id = id;
    return b;
}

static void on_wctl(vxd_summary *s, const vx_event *ev, const vx_wctl *c)
{
    size_t g = (size_t)c->core * s->nw + c->warp;
    if (g >= s->ngw) return;
    warp_stat *w = &s->w[g];
    bar_stat *b;
    switch (c->kind) {
    case VX_WCTL_BAR_ARRIVE:
        if ((b = bar_of(s, c->arg))) b->arrivals++;
        w->waiting = true;
        w->wait_since = ev->cycle;
        w->wait_bar = c->arg;
        break;
    case VX_WCTL_BAR_RELEASE:
        if ((b = bar_of(s, c->arg))) {
            b->releases++;
            if (w->waiting && w->wait_bar == c->arg && ev->cycle >= w->wait_since) {
                uint64_t d = ev->cycle - w->wait_since;
                b->wait_cycles += d;
                if (d > b->max_wait) b->max_wait = d;
            }
        }
        w->waiting = false;
        break;
    case VX_WCTL_IPDOM_PUSH: /* arg: the depth after it (entry arg - 1) */
        s->divergent++, w->divergent++;
        w->depth = c->arg;
        if (!w->split_pc) w->split_pc = calloc(s->nt, sizeof *w->split_pc);
        if (w->split_pc && c->arg - 1 < s->nt) w->split_pc[c->arg - 1] = ev->pc;
        if (w->join_pc && c->arg - 1 < s->nt) w->join_pc[c->arg - 1] = 0;
        break;
    case VX_WCTL_IPDOM_ELSE: /* arg: the depth (entry arg - 1); at the first side's join */
        if (!w->join_pc) w->join_pc = calloc(s->nt, sizeof *w->join_pc);
        if (w->join_pc && c->arg - 1 < s->nt) w->join_pc[c->arg - 1] = ev->pc;
        break;
    case VX_WCTL_IPDOM_POP: /* arg: the depth after it (entry arg) */
        w->depth = c->arg;
        if (w->join_pc && c->arg < s->nt && w->join_pc[c->arg]) {
            if (w->join_pc[c->arg] != ev->pc && !s->split_joins++) {
                s->sj_index = ev->index;
                s->sj_gwarp = g;
                s->sj_first = w->join_pc[c->arg];
                s->sj_second = ev->pc;
            }
            w->join_pc[c->arg] = 0;
        }
        break;
    case VX_WCTL_DEACTIVATE:
        if (w->depth && !w->unjoined && !s->unjoined++) {
            s->uj_gwarp = g;
            s->uj_depth = w->depth;
            s->uj_split = w->split_pc && w->depth - 1 < s->nt ? w->split_pc[w->depth - 1] : 0;
        }
        if (w->depth) w->unjoined = true;
        break;
    default: break;
    }
}

/* Warps waiting at barrier id at the last event summarized (their waits never ended). */
static uint64_t still_waiting(const vxd_summary *s, uint32_t id)
{
    uint64_t n = 0;
    for (size_t g = 0; g < s->ngw; g++)
        n += s->w[g].waiting && s->w[g].wait_bar == id;
    return n;
}

void vxd_summary_event(vxd_summary *s, const vx_event *ev)
{
    s->records++;
    if (!s->any) {
        s->any = true;
        s->first_index = ev->index;
        s->first_cycle = ev->cycle;
    }
    s->last_index = ev->index;
    s->last_cycle = ev->cycle;
    if (ev->kind == VX_EV_DM) {
        s->dm++;
        return;
    }
    if (ev->kind == VX_EV_END) {
        s->has_end = true;
        s->end_status = ev->end_status;
        s->exit_code = ev->exit_code;
        s->end_cycle = ev->cycle;
        if (ev->fault) {
            s->end_fault = true;
            s->fault = *ev->fault;
        }
        return;
    }
    if (ev->kind != VX_EV_ISSUE) return;
    unsigned lanes = vx_lanes_count(ev->tmask);
    s->issues++;
    s->mem_writes += ev->nmem;
    s->console += ev->nconsole;
    s->wctl += ev->nwctl;
    for (uint32_t i = 0; i < ev->nwctl; i++)
        on_wctl(s, ev, &ev->wctl[i]);
    /* a debugger's injected instruction is not the program's: not in the lane-ops, the
     * warp's and the function's counts nor the faults (sim/STATE.md §8.2: a warp's
     * issued count leaves it out too); a refused one "faults" without the warp */
    if (ev->flags & VX_EVF_INJECTED) {
        s->injected++;
        return;
    }
    s->lane_ops += lanes;
    if (ev->flags & VX_EVF_STEP) s->steps++;
    size_t g = (size_t)ev->core * s->nw + ev->warp;
    if (g < s->ngw) {
        warp_stat *w = &s->w[g];
        if (!w->issues) w->first_cycle = ev->cycle;
        w->issues++;
        w->lane_ops += lanes;
        w->last_cycle = ev->cycle;
        if (vxd_is_split(ev->insn) && !ev->fault) {
            w->splits++;
            s->splits++;
        }
    }
    fn_stat *f = &s->fn[vxd_symtab_index(s->syms, ev->pc)];
    f->issues++;
    f->lane_ops += lanes;
    if (s->row) {
        const size_t c = (ev->pc >> 2) & (LINE_CACHE - 1);
        if (s->cache_pc[c] != ev->pc || !s->cache_row[c]) {
            const vxd_line_row *r = vxd_lines_lookup(&s->syms->lines, ev->pc);
            s->cache_pc[c] = ev->pc;
            s->cache_row[c] = r ? (uint32_t)(r - s->syms->lines.rows) + 1 : 0;
        }
        if (s->cache_row[c]) {
            s->row[s->cache_row[c] - 1].issues++;
            s->row[s->cache_row[c] - 1].lane_ops += lanes;
        }
    }
    if (ev->fault) s->faults++;
}

/* The program's issues: the Debug Module's injected instructions left out. */
static uint64_t own_issues(const vxd_summary *s)
{
    return s->issues - s->injected;
}

/* ---- printing ---------------------------------------------------------------------------------- */

typedef struct fn_row {
    size_t i;
    uint64_t issues;
} fn_row;

static int fn_row_cmp(const void *pa, const void *pb)
{
    const fn_row *a = pa, *b = pb;
    if (a->issues != b->issues) return a->issues > b->issues ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

static int bar_cmp(const void *pa, const void *pb)
{
    const bar_stat *a = pa, *b = pb;
    return a->id < b->id ? -1 : a->id > b->id;
}

/* Functions that ran, most issues first; *n rows. */
static fn_row *fn_rows(const vxd_summary *s, size_t *n)
{
    fn_row *rows = calloc(s->syms->n + 1, sizeof *rows);
    *n = 0;
    if (!rows) return NULL;
    for (size_t i = 0; i <= s->syms->n; i++)
        if (s->fn[i].issues) rows[(*n)++] = (fn_row){i, s->fn[i].issues};
    qsort(rows, *n, sizeof *rows, fn_row_cmp);
    return rows;
}

/* A source line that ran: the rows of every unit for the same file and line merged (one
 * file by two paths, sub/../x.h and x.h, is one, as for --pc FILE:LINE: lines.h's norm). */
typedef struct line_row {
    const char *norm, *path, *shown;
    uint32_t line;
    uint64_t issues, lane_ops;
} line_row;

static int line_key_cmp(const void *pa, const void *pb)
{
    const line_row *a = pa, *b = pb;
    int c = strcmp(a->norm, b->norm);
    if (c) return c;
    return a->line < b->line ? -1 : a->line > b->line;
}

/* The same, then by path: of one file's paths, the first in order names the row. */
static int line_path_cmp(const void *pa, const void *pb)
{
    const int c = line_key_cmp(pa, pb);
    return c ? c : strcmp(((const line_row *)pa)->path, ((const line_row *)pb)->path);
}

static int line_issues_cmp(const void *pa, const void *pb)
{
    const line_row *a = pa, *b = pb;
    if (a->issues != b->issues) return a->issues > b->issues ? -1 : 1;
    return line_key_cmp(pa, pb);
}

/* Source lines that ran, most issues first; *n rows (NULL: none, or no memory). */
static line_row *line_rows(const vxd_summary *s, size_t *n)
{
    const vxd_lines *t = &s->syms->lines;
    *n = 0;
    if (!s->row) return NULL;
    line_row *rows = calloc(t->nrows, sizeof *rows);
    if (!rows) return NULL;
    for (size_t i = 0; i < t->nrows; i++)
        if (s->row[i].issues) {
            const vxd_line_file *f = &t->files[t->rows[i].file];
            rows[(*n)++] = (line_row){f->norm,         f->path,          f->shown,
                                      t->rows[i].line, s->row[i].issues, s->row[i].lane_ops};
        }
    qsort(rows, *n, sizeof *rows, line_path_cmp);
    size_t k = 0;
    for (size_t i = 0; i < *n; i++) {
        if (k && !line_key_cmp(&rows[k - 1], &rows[i])) {
            rows[k - 1].issues += rows[i].issues;
            rows[k - 1].lane_ops += rows[i].lane_ops;
        } else {
            rows[k++] = rows[i];
        }
    }
    *n = k;
    qsort(rows, *n, sizeof *rows, line_issues_cmp);
    return rows;
}

static const char *fn_name(const vxd_summary *s, size_t i)
{
    return i < s->syms->n ? s->syms->syms[i].shown : "(no symbol)";
}

static double ratio(uint64_t a, uint64_t b)
{
    return b ? (double)a / (double)b : 0.0;
}

static void print_json(const vxd_summary *s, const vx_trace_header *h, const vxd_summary_file *f,
                       FILE *out)
{
    vxd_sb b = {0};
    const vx_trace_summary *ts = f->ts;
    vxd_sb_puts(&b, "{\"trace\":{\"path\":");
    vxd_sb_json_str(&b, f->path, strlen(f->path));
    vxd_sb_printf(
        &b, ",\"file_bytes\":%" PRIu64 ",\"complete\":%s,\"format\":\"%u.%u\",\"sim_version\":",
        ts->file_bytes, ts->complete ? "true" : "false", h->major, h->minor);
    const char *sv = h->sim_version ? h->sim_version : "";
    vxd_sb_json_str(&b, sv, strlen(sv));
    vxd_sb_printf(&b,
                  ",\"chunks\":%" PRIu64 ",\"keyframes\":%" PRIu64 ",\"raw_bytes\":%" PRIu64 "}",
                  ts->chunks, ts->keyframes, ts->raw_bytes);
    if (f->range)
        vxd_sb_printf(&b, ",\"range\":{\"from\":%" PRIu64 ",\"to\":%" PRIu64 "}", f->from, f->to);
    vxd_sb_printf(&b,
                  ",\"platform\":{\"clusters\":%u,\"cores\":%u,\"warps\":%u,\"threads\":%u,"
                  "\"misaligned\":%s}",
                  h->clusters, h->cores, h->warps, h->threads,
                  (h->flags & VX_TRACE_HF_MISALIGNED) ? "true" : "false");
    vxd_sb_puts(&b, ",\"kernel\":{\"name\":");
    const char *in = h->image_name ? h->image_name : "";
    vxd_sb_json_str(&b, in, strlen(in));
    vxd_sb_printf(&b,
                  ",\"kind\":\"%s\",\"size\":%zu,\"start_pc\":%" PRIu32 ",\"arg\":%" PRIu32
                  ",\"symbols\":%zu}",
                  vxd_image_kind_name(h->image_kind), h->image_len, h->start_pc, h->arg,
                  s->syms->n);
    vxd_sb_puts(&b, ",\"loads\":[");
    for (uint32_t i = 0; i < h->nloads; i++) {
        const char *ln = h->loads[i].name ? h->loads[i].name : "";
        vxd_sb_puts(&b, i ? ",{\"name\":" : "{\"name\":");
        vxd_sb_json_str(&b, ln, strlen(ln));
        vxd_sb_printf(&b, ",\"addr\":%" PRIu32 ",\"size\":%zu}", h->loads[i].addr, h->loads[i].len);
    }
    vxd_sb_puts(&b, "],\"end\":");
    if (s->has_end) {
        vxd_sb_printf(
            &b, "{\"status\":\"%s\",\"exit_code\":%" PRIu32 ",\"cycle\":%" PRIu64 ",\"fault\":",
            vxd_end_name(s->end_status), s->exit_code, s->end_cycle);
        if (s->end_fault) {
            vxd_sb_printf(&b,
                          "{\"kind\":\"%s\",\"core\":%" PRIu32 ",\"warp\":%" PRIu32
                          ",\"pc\":%" PRIu32 ",\"reason\":",
                          vxd_fault_name(s->fault.kind), s->fault.core, s->fault.warp, s->fault.pc);
            vxd_sb_json_str(&b, s->fault.reason, strnlen(s->fault.reason, sizeof s->fault.reason));
            vxd_sb_putc(&b, '}');
        } else {
            vxd_sb_puts(&b, "null");
        }
        vxd_sb_putc(&b, '}');
    } else {
        vxd_sb_puts(&b, "null");
    }
    vxd_sb_printf(
        &b,
        ",\"totals\":{\"events\":%" PRIu64 ",\"issues\":%" PRIu64 ",\"dm_events\":%" PRIu64
        ",\"cycles\":%" PRIu64 ",\"lane_ops\":%" PRIu64 ",\"avg_active_lanes\":%.4f"
        ",\"mem_writes\":%" PRIu64 ",\"console_bytes\":%" PRIu64 ",\"wctl\":%" PRIu64
        ",\"faults\":%" PRIu64 ",\"injected\":%" PRIu64 ",\"steps\":%" PRIu64 "}",
        s->records, s->issues, s->dm, s->last_cycle, s->lane_ops, ratio(s->lane_ops, own_issues(s)),
        s->mem_writes, s->console, s->wctl, s->faults, s->injected, s->steps);
    vxd_sb_puts(&b, ",\"warps\":[");
    bool first = true;
    for (size_t g = 0; g < s->ngw; g++) {
        const warp_stat *w = &s->w[g];
        if (!w->issues) continue;
        vxd_sb_printf(&b,
                      "%s{\"core\":%zu,\"warp\":%zu,\"gwarp\":%zu,\"issues\":%" PRIu64
                      ",\"lane_ops\":%" PRIu64 ",\"avg_active_lanes\":%.4f,\"splits\":%" PRIu64
                      ",\"divergent_splits\":%" PRIu64 ",\"first_cycle\":%" PRIu64
                      ",\"last_cycle\":%" PRIu64 "}",
                      first ? "" : ",", g / s->nw, g % s->nw, g, w->issues, w->lane_ops,
                      ratio(w->lane_ops, w->issues), w->splits, w->divergent, w->first_cycle,
                      w->last_cycle);
        first = false;
    }
    vxd_sb_printf(&b,
                  "],\"divergence\":{\"splits\":%" PRIu64 ",\"divergent\":%" PRIu64
                  ",\"uniform\":%" PRIu64 ",\"joined_apart\":%" PRIu64,
                  s->splits, s->divergent, s->splits >= s->divergent ? s->splits - s->divergent : 0,
                  s->split_joins);
    if (s->split_joins)
        vxd_sb_printf(&b,
                      ",\"first_joined_apart\":{\"index\":%" PRIu64
                      ",\"gwarp\":%zu,\"first_join\":%" PRIu32 ",\"second_join\":%" PRIu32 "}",
                      s->sj_index, s->sj_gwarp, s->sj_first, s->sj_second);
    vxd_sb_printf(&b, ",\"unjoined_warps\":%" PRIu64, s->unjoined);
    if (s->unjoined)
        vxd_sb_printf(&b,
                      ",\"first_unjoined\":{\"gwarp\":%zu,\"depth\":%" PRIu32
                      ",\"split_pc\":%" PRIu32 "}",
                      s->uj_gwarp, s->uj_depth, s->uj_split);
    vxd_sb_puts(&b, "}");
    vxd_sb_puts(&b, ",\"barriers\":[");
    for (size_t i = 0; i < s->nbars; i++) {
        const bar_stat *br = &s->bars[i];
        vxd_sb_printf(
            &b,
            "%s{\"id\":%" PRIu32 ",\"global\":%s,\"arrivals\":%" PRIu64 ",\"releases\":%" PRIu64
            ",\"wait_cycles\":%" PRIu64 ",\"max_wait\":%" PRIu64 ",\"waiting_at_end\":%" PRIu64 "}",
            i ? "," : "", br->id & 0x7fffffffu, (br->id >> 31) ? "true" : "false", br->arrivals,
            br->releases, br->wait_cycles, br->max_wait, still_waiting(s, br->id));
    }
    vxd_sb_puts(&b, "],\"functions\":[");
    size_t n;
    fn_row *rows = fn_rows(s, &n);
    for (size_t i = 0; rows && i < n; i++) {
        size_t k = rows[i].i;
        vxd_sb_puts(&b, i ? ",{\"name\":" : "{\"name\":");
        if (k < s->syms->n) {
            vxd_sb_json_str(&b, s->syms->syms[k].name, strlen(s->syms->syms[k].name));
            vxd_sb_printf(&b, ",\"addr\":%" PRIu32, s->syms->syms[k].addr);
        } else {
            vxd_sb_puts(&b, "null,\"addr\":null");
        }
        vxd_sb_printf(&b, ",\"issues\":%" PRIu64 ",\"lane_ops\":%" PRIu64 "}", s->fn[k].issues,
                      s->fn[k].lane_ops);
    }
    free(rows);
    vxd_sb_puts(&b, "],\"lines\":[");
    line_row *lr = line_rows(s, &n);
    for (size_t i = 0; lr && i < n; i++) {
        vxd_sb_puts(&b, i ? ",{\"file\":" : "{\"file\":");
        vxd_sb_json_str(&b, lr[i].shown, strlen(lr[i].shown));
        vxd_sb_printf(&b, ",\"line\":%" PRIu32 ",\"issues\":%" PRIu64 ",\"lane_ops\":%" PRIu64 "}",
                      lr[i].line, lr[i].issues, lr[i].lane_ops);
    }
    free(lr);
    vxd_sb_puts(&b, "]}");
    if (b.s) fprintf(out, "%s\n", b.s);
    vxd_sb_release(&b);
}

static void print_text(const vxd_summary *s, const vx_trace_header *h, const vxd_summary_file *f,
                       FILE *out)
{
    const vx_trace_summary *ts = f->ts;
    uint32_t ncores = h->clusters * h->cores;
    char version[4 * 256 + 1];
    vx_vis(h->sim_version ? h->sim_version : "?", strlen(h->sim_version ? h->sim_version : "?"),
           version, sizeof version, 0);
    fprintf(out, "trace       %s: %" PRIu64 " bytes, %s, format %u.%u, recorded by vxrr %s\n",
            f->path, ts->file_bytes, ts->complete ? "complete" : "INCOMPLETE (cut off)", h->major,
            h->minor, version);
    fprintf(out, "            %" PRIu64 " event chunk%s, %" PRIu64 " keyframe%s", ts->chunks,
            ts->chunks == 1 ? "" : "s", ts->keyframes, ts->keyframes == 1 ? "" : "s");
    if (ts->raw_bytes && ts->file_bytes) {
        /* a short run of a big platform: the keyframe outweighs its commits */
        const double q = (double)ts->raw_bytes / (double)ts->file_bytes;
        if (q >= 1.0)
            fprintf(out, ", %.1fx smaller than the raw commit log", q);
        else
            fprintf(out, ", %.1fx larger than the raw commit log", 1.0 / q);
    }
    fputc('\n', out);
    if (f->range)
        fprintf(out, "range       events %" PRIu64 "..%" PRIu64 " only\n", f->from, f->to);
    fprintf(out,
            "platform    %u cluster%s x %u core%s x %u warps x %u threads (%u warps, %" PRIu64
            " threads)%s\n",
            h->clusters, h->clusters == 1 ? "" : "s", h->cores, h->cores == 1 ? "" : "s", h->warps,
            h->threads, ncores * h->warps, (uint64_t)ncores * h->warps * h->threads,
            (h->flags & VX_TRACE_HF_MISALIGNED) ? ", misaligned loads/stores carried out" : "");
    char shown[4 * 4096 + 1]; /* (names from the trace: vis.h) */
    fprintf(out,
            "kernel      %s (%s, %zu bytes, %zu symbols), start pc 0x%08" PRIx32 ", arg 0x%" PRIx32
            "\n",
            vis(h->image_name, shown, sizeof shown), vxd_image_kind_name(h->image_kind),
            h->image_len, s->syms->n, h->start_pc, h->arg);
    if (!h->nloads) fprintf(out, "loads       none\n");
    for (uint32_t i = 0; i < h->nloads; i++)
        fprintf(out, "%s %s: %zu bytes at 0x%08" PRIx32 "\n", i ? "           " : "loads      ",
                vis(h->loads[i].name, shown, sizeof shown), h->loads[i].len, h->loads[i].addr);
    if (!s->has_end)
        fprintf(out, "end         none (%s)\n",
                ts->complete ? "outside the range" : "the trace was cut off");
    else if (s->end_status == VX_END_EXIT)
        fprintf(out, "end         exit code %" PRIu32 " at cycle %" PRIu64 "\n", s->exit_code,
                s->end_cycle);
    else if (s->end_fault) {
        /* where: the function and the source line (a deadlock is at no instruction) */
        char where[400] = "";
        if (s->fault.kind != VX_FAULT_DEADLOCK)
            vxd_symtab_where(s->syms, s->fault.pc, where, sizeof where);
        fprintf(out,
                "end         %s at cycle %" PRIu64 ": %s fault at pc 0x%08" PRIx32
                "%s (core %" PRIu32 ", warp %" PRIu32 "): %.96s\n",
                vxd_end_name(s->end_status), s->end_cycle, vxd_fault_name(s->fault.kind),
                s->fault.pc, where, s->fault.core, s->fault.warp, s->fault.reason);
    } else
        fprintf(out, "end         %s at cycle %" PRIu64 "\n", vxd_end_name(s->end_status),
                s->end_cycle);

    fprintf(out,
            "\ntotals      %" PRIu64 " events: %" PRIu64 " issues, %" PRIu64
            " DM events, %s end record\n",
            s->records, s->issues, s->dm, s->has_end ? "1" : "no");
    if (f->range) /* the cycles the range spans, not a count from cycle 0 */
        fprintf(out, "            cycles %" PRIu64 "..%" PRIu64 ", ", s->first_cycle,
                s->last_cycle);
    else if (s->records) { /* cycles 0 .. last: as many as vxsim --stats counts */
        /* a cycle limit or a deadlock ends the run at the start of END's cycle, before
         * anything ran in it; an exit or another fault, in the cycle of its issue */
        const bool at_start =
            s->has_end && s->end_cycle == s->last_cycle && s->last_cycle > 0 &&
            (s->end_status == VX_END_LIMIT ||
             (s->end_status == VX_END_FAULT && s->fault.kind == VX_FAULT_DEADLOCK));
        const uint64_t n = s->last_cycle + (at_start ? 0 : 1);
        fprintf(out, "            %" PRIu64 " cycles (0..%" PRIu64 "), ", n, n - 1);
    } else
        fprintf(out, "            0 cycles, ");
    fprintf(out, "%" PRIu64 " lane-ops, %.2f active lanes per issue (%.1f%% of %u)\n", s->lane_ops,
            ratio(s->lane_ops, own_issues(s)),
            100.0 * ratio(s->lane_ops, own_issues(s) * h->threads), h->threads);
    fprintf(out,
            "            %" PRIu64 " memory writes, %" PRIu64 " console bytes, %" PRIu64
            " warp-control effects, %" PRIu64 " faulting issues\n",
            s->mem_writes, s->console, s->wctl, s->faults);
    if (s->injected || s->steps)
        fprintf(out,
                "            %" PRIu64 " injected instructions (the debugger's: of the issues,"
                " not in the\n            lane-ops, faults, warps or functions), %" PRIu64
                " single steps\n",
                s->injected, s->steps);

    fprintf(out, "\nper warp    %-9s %10s %10s %9s %8s %10s  %s\n", "core:warp", "issues",
            "lane-ops", "avg-lanes", "splits", "divergent", "cycles");
    for (size_t g = 0; g < s->ngw; g++) {
        const warp_stat *w = &s->w[g];
        if (!w->issues) continue;
        char cw[32];
        snprintf(cw, sizeof cw, "%zu:%zu", g / s->nw, g % s->nw);
        fprintf(out,
                "            %-9s %10" PRIu64 " %10" PRIu64 " %9.2f %8" PRIu64 " %10" PRIu64
                "  %" PRIu64 "-%" PRIu64 "\n",
                cw, w->issues, w->lane_ops, ratio(w->lane_ops, w->issues), w->splits, w->divergent,
                w->first_cycle, w->last_cycle);
    }

    fprintf(out, "\ndivergence  %" PRIu64 " splits: %" PRIu64 " divergent, %" PRIu64 " uniform",
            s->splits, s->divergent, s->splits >= s->divergent ? s->splits - s->divergent : 0);
    fprintf(out, "; %.2f active lanes per issue on average\n", ratio(s->lane_ops, own_issues(s)));
    if (s->split_joins) {
        char a[160], bb[160];
        vxd_symtab_format(s->syms, s->sj_first, a, sizeof a);
        vxd_symtab_format(s->syms, s->sj_second, bb, sizeof bb);
        fprintf(out,
                "            %" PRIu64 " divergent split%s joined apart: the two sides ended at "
                "different vx_join instructions, and the warp went on after the second (first: "
                "event %" PRIu64 ", warp %zu, 0x%08" PRIx32 " %s then 0x%08" PRIx32
                " %s); from C, the compiler copied the code after an if for each outcome "
                "(kernel/README.md, \"SIMT rules\")\n",
                s->split_joins, s->split_joins == 1 ? "" : "s", s->sj_index, s->sj_gwarp,
                s->sj_first, a, s->sj_second, bb);
    }

    if (s->unjoined) {
        char a[160];
        vxd_symtab_format(s->syms, s->uj_split, a, sizeof a);
        fprintf(out,
                "            %" PRIu64 " warp%s finished with a split not joined: lanes masked "
                "off there never ran again (first: warp %zu:%zu, depth %" PRIu32
                ", vx_split at 0x%08" PRIx32 " %s; a vx_join missing or misplaced?)\n",
                s->unjoined, s->unjoined == 1 ? "" : "s", s->uj_gwarp / s->nw, s->uj_gwarp % s->nw,
                s->uj_depth, s->uj_split, a);
    }

    if (!s->nbars) {
        fprintf(out, "barriers    none\n");
    } else {
        bar_stat *sorted = malloc(s->nbars * sizeof *sorted);
        if (sorted) {
            memcpy(sorted, s->bars, s->nbars * sizeof *sorted);
            qsort(sorted, s->nbars, sizeof *sorted, bar_cmp);
            fprintf(out, "barriers    %-9s %10s %10s %12s %10s %10s\n", "id", "arrivals",
                    "releases", "wait-cycles", "max-wait", "at-end");
            for (size_t i = 0; i < s->nbars; i++) {
                char id[24];
                snprintf(id, sizeof id, "%s %" PRIu32, (sorted[i].id >> 31) ? "global" : "local",
                         sorted[i].id & 0x7fffffffu);
                fprintf(out,
                        "            %-9s %10" PRIu64 " %10" PRIu64 " %12" PRIu64 " %10" PRIu64
                        " %10" PRIu64 "\n",
                        id, sorted[i].arrivals, sorted[i].releases, sorted[i].wait_cycles,
                        sorted[i].max_wait, still_waiting(s, sorted[i].id));
            }
            free(sorted);
        }
    }

    size_t n;
    fn_row *rows = fn_rows(s, &n);
    if (rows && n) {
        fprintf(out, "\nfunctions   %10s %7s %10s  %s\n", "issues", "share", "lane-ops",
                "function");
        for (size_t i = 0; i < n; i++) {
            size_t k = rows[i].i;
            fprintf(out, "            %10" PRIu64 " %6.1f%% %10" PRIu64 "  %s\n", s->fn[k].issues,
                    100.0 * ratio(s->fn[k].issues, own_issues(s)), s->fn[k].lane_ops,
                    vis(fn_name(s, k), shown, sizeof shown));
        }
    }
    free(rows);
    line_row *lr = line_rows(s, &n);
    if (lr && n) {
        fprintf(out, "\nlines       %10s %7s %10s  %s\n", "issues", "share", "lane-ops",
                "source line (the busiest " LINES_SHOWN_TEXT ")");
        for (size_t i = 0; i < n && i < LINES_SHOWN; i++) {
            char text[600];
            snprintf(text, sizeof text, "%s:%" PRIu32, lr[i].shown, lr[i].line);
            fprintf(out, "            %10" PRIu64 " %6.1f%% %10" PRIu64 "  %s\n", lr[i].issues,
                    100.0 * ratio(lr[i].issues, own_issues(s)), lr[i].lane_ops,
                    vis(text, shown, sizeof shown));
        }
        if (n > LINES_SHOWN)
            fprintf(out, "            (%zu more lines ran: --summary --json lists them all)\n",
                    n - LINES_SHOWN);
    }
    free(lr);
}

void vxd_summary_print(const vxd_summary *s, const vx_trace_header *h, const vxd_summary_file *f,
                       bool json, FILE *out)
{
    if (json)
        print_json(s, h, f, out);
    else
        print_text(s, h, f, out);
}
