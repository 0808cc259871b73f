/*
 * vxdiff - compare two vxrr traces and show where they diverge.
 *
 *   vxdiff [options] A.vxt B.vxt
 *
 * Default (lockstep): the headers, then the event streams position by position
 * (event i of A against event i of B); the first difference is shown with
 * context from both sides and everything that differs in it.  With --per-warp
 * each warp's own instruction stream is compared, whatever the interleaving
 * (see usage()).  With --memory the memory the runs leave is compared instead
 * (memory.h), whatever their code layout.
 *
 * Exit status: 0 identical, 1 different, 2 error (usage, unreadable, corrupt or
 * incomplete input; differences found before the problem are still shown).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "compare.h"
#include "evfmt.h"
#include "memory.h"
#include "symtab.h"
#include "vx_isa.h"
#include "vx_trace.h"

#define EXIT_SAME   0
#define EXIT_DIFF   1
#define EXIT_ERROR  2
#define MAX_OBJECTS 64 /* --object */

static const char *prog = "vxdiff";

typedef struct opts {
    const char *path[2];
    unsigned context;
    unsigned ignore;
    bool per_warp, json, quiet, verbose, lines;
    bool memory;                      /* --memory */
    const char *objects[MAX_OBJECTS]; /* --object NAME, in the order given */
    size_t nobjects;
    bool max_given, context_given; /* (--memory takes no --context; its --max default is 10) */
    uint64_t max;                  /* 0: all */
} opts;

/* Where an event is: its index and how many events with the same index precede it. */
typedef struct pos {
    uint64_t index;
    uint32_t ord;
    bool valid;
} pos;

typedef struct side {
    const char *path;      /* as messages name it ("standard input" for "-") */
    const char *file;      /* what is read (a copy of standard input for "-") */
    vx_trace_reader *r;    /* the comparison */
    vx_trace_reader *view; /* context rendering (seeks) */
    /* lockstep: the compared events last rendered for context, consecutive, the view
     * reader standing right after the last one (so that the context of differences
     * close together is read once, not sought again for each) */
    pos *wpos;
    char **wline;
    size_t wlen, wcap;
    uint64_t vindex; /* the view's last event read, for its ord */
    uint32_t vord;
    bool vstarted, vended;
    const vx_trace_header *h;
    vx_trace_summary ts;
    vxd_symtab syms;
    vxd_symtab dsyms; /* data symbols (--memory) */
    vxd_fmt fmt;
    uint64_t last_index;
    uint32_t ord;
    bool started, ended;
    uint64_t compared;
} side;

typedef struct differ {
    opts o;
    side s[2];
    vxf_ctx ctx;
    vx_disasm_ctx *dis;
    uint64_t ndiff;   /* differences reported */
    uint64_t nfound;  /* differences found (headers, events; per warp: warps that diverge) */
    bool header_diff; /* the headers differ (shown whatever --max says) */
    uint64_t nwarps;  /* --per-warp: warps that diverge */
    bool dm_differs;  /* --per-warp: and the Debug Module's events differ */
    uint64_t skip_at; /* lockstep: the next chunk key at which to try skip_same_chunks */
    bool header_printed;
    int status;
    vxd_sb line, la, lb;
} differ;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: vxdiff [options] A.vxt B.vxt\n"
            "Compare two vxrr traces: the headers (platform, kernel image, loaded files,\n"
            "start pc, argument, limits), then the event streams.  The first difference is\n"
            "shown with its event index, the events around it on both sides (with\n"
            "disassembly) and exactly what differs: the schedule decision, the PC or\n"
            "instruction, the thread mask, which lanes committed which values, memory\n"
            "writes, warp-control effects, console bytes, faults, the exit status.  One of\n"
            "the traces may be '-', standard input.\n\n"
            "  -C, --context N     events of context before and after, 0..1000 (default 3)\n"
            "      --max N         list up to N differences of the events (default 1; 0 =\n"
            "                      all; a difference of the headers is shown besides).  In\n"
            "                      lockstep mode the later ones are often consequences of\n"
            "                      the first\n"
            "      --per-warp      compare each warp's own instruction stream and ignore how\n"
            "                      warps were interleaved.  A warp is matched by its global id\n"
            "                      (core * warps_per_core + warp), which is also what its\n"
            "                      threads see as mhartid / threads; traces recorded with\n"
            "                      different shapes can be compared when the threads per warp\n"
            "                      are equal (other clusters, cores or warps are then no\n"
            "                      header difference).  Per warp: pc, instruction, thread\n"
            "                      mask, register commits, memory writes, console bytes and\n"
            "                      faults, in order; not cycles or warp-control effects\n"
            "                      (spawns, barriers, mask changes depend on the schedule;\n"
            "                      their consequences, the masks and PCs of the following\n"
            "                      issues, are compared).  The END records are compared\n"
            "                      without their cycle.  Each warp's first difference counts\n"
            "                      once, earliest first\n"
            "      --memory        compare what the runs did to memory instead of their\n"
            "                      events, whatever the code's layout (a kernel and its fixed\n"
            "                      build): global memory and each core's local memory at the\n"
            "                      end of each trace (local memory: the cores both have).\n"
            "                      Only bytes written during a run (either side) are\n"
            "                      compared; bytes neither run wrote hold the initial memory\n"
            "                      (kernel image, loaded files) and are only counted in a\n"
            "                      closing note.  Each differing range (aligned words) is\n"
            "                      shown with both sides' values and the last write that\n"
            "                      left each value (event, cycle, core:warp, lane, pc,\n"
            "                      function, source line, instruction) or 'never written\n"
            "                      (initial image)'.  Ranges at fixed addresses come\n"
            "                      first; then those from the start pc's page up (static\n"
            "                      data, TLS blocks, heap, stacks), which a change of code\n"
            "                      moves, but the loaded files.  --max: ranges listed\n"
            "                      (default 10 here); no header or event comparison, no\n"
            "                      --per-warp, --ignore or -C.  Exit 1 only when such a\n"
            "                      range differs\n"
            "      --object NAME   --memory for the static data object NAME alone (a sized\n"
            "                      symbol of .data, .bss or .rodata: an array, a struct, a\n"
            "                      C++ name as in vxdump), each side's at its own address,\n"
            "                      so that it is compared across builds that moved it, and\n"
            "                      whole: bytes no run wrote too (a constant table)\n"
            "                      (repeatable; implies --memory)\n"
            "      --ignore F[,F]  leave fields out: cycle, schedule (= --per-warp), console,\n"
            "                      dm (Debug Module events and injected instructions),\n"
            "                      header, mem, regs (all register commits), csr (CSR commits),\n"
            "                      wctl (warp-control effects), exit (the exit code)\n"
            "      --lines         a SOURCE column (FILE:LINE, from the kernel's DWARF line\n"
            "                      tables) after the symbol in the events shown\n"
            "      --json          JSON Lines: header differences, one object per difference,\n"
            "                      a final result object (tools/vxdump/SCHEMA.md, also for\n"
            "                      --memory)\n"
            "  -q, --quiet         print no differences, only the exit status (errors\n"
            "                      still go to standard error)\n"
            "  -v, --verbose       also say so when the traces are identical\n"
            "  -h, --help          this text\n"
            "      --version       print the version\n\n"
            "SCHEMA.md is in the source tree and in PREFIX/share/vxrr/doc (installed).\n"
            "exit status: 0 identical, 1 different, 2 error (usage, unreadable, corrupt or\n"
            "incomplete trace; differences found before the problem are still shown)\n");
}

/* Report a usage error; evaluates to the usage exit status. */
#define usage_error(...) (vx_cli_usage_error(prog, __VA_ARGS__), EXIT_ERROR)

static const char *optval(int argc, char **argv, int *i, const char *name, const char *shrt,
                          bool *missing)
{
    const char *a = argv[*i];
    if (shrt && !strcmp(a, shrt)) {
        if (*i + 1 >= argc) {
            *missing = true;
            return NULL;
        }
        return argv[++*i];
    }
    if (shrt && !strncmp(a, shrt, strlen(shrt)) && a[strlen(shrt)]) return a + strlen(shrt);
    size_t n = strlen(name);
    if (strncmp(a, name, n)) return NULL;
    if (a[n] == '=') return a + n + 1;
    if (a[n]) return NULL;
    if (*i + 1 >= argc) {
        *missing = true;
        return NULL;
    }
    return argv[++*i];
}

static const struct {
    const char *name;
    unsigned bit;
} fields[] = {
    {"cycle", VXF_IG_CYCLE}, {"schedule", VXF_IG_SCHEDULE}, {"console", VXF_IG_CONSOLE},
    {"dm", VXF_IG_DM},       {"header", VXF_IG_HEADER},     {"mem", VXF_IG_MEM},
    {"regs", VXF_IG_REGS},   {"csr", VXF_IG_CSR},           {"wctl", VXF_IG_WCTL},
    {"exit", VXF_IG_EXIT},
};

static int parse_ignore(const char *s, unsigned *out)
{
    if (!vx_cli_list_ok(s)) {
        vx_cli_usage_error(prog, "--ignore: an empty item in '%s'", s);
        return -1;
    }
    char *copy = strdup(s), *save = NULL;
    if (!copy) return -1;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        size_t j;
        for (j = 0; j < VX_ARRAY_SIZE(fields); j++)
            if (!strcmp(t, fields[j].name)) break;
        if (j == VX_ARRAY_SIZE(fields)) {
            vx_cli_usage_error(
                prog,
                "--ignore: unknown field '%s' (cycle, schedule, console, dm, header, mem, "
                "regs, csr, wctl, exit)",
                t);
            free(copy);
            return -1;
        }
        *out |= fields[j].bit;
    }
    free(copy);
    return 0;
}

static int parse_args(int argc, char **argv, opts *o)
{
    memset(o, 0, sizeof *o);
    o->context = 3;
    o->max = 1;
    int npaths = 0;
    bool operands = false; /* after "--": traces, whatever their names */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        bool missing = false;
        uint64_t n;
        const int operand = vx_cli_operand(a, &operands);
        if (operand < 0) {
            continue;
        } else if (operand) {
            if (npaths == 2) return usage_error("two traces, please ('%s' is a third)", a);
            o->path[npaths++] = a;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            exit(vx_cli_output_done(prog));
        } else if (!strcmp(a, "--version")) {
            printf("vxdiff (vxrr) %s\n", VX_VERSION_STRING);
            exit(vx_cli_output_done(prog));
        } else if (!strcmp(a, "--per-warp")) {
            o->per_warp = true;
        } else if (!strcmp(a, "--memory")) {
            o->memory = true;
        } else if (!strcmp(a, "--json")) {
            o->json = true;
        } else if (!strcmp(a, "--lines")) {
            o->lines = true;
        } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            o->quiet = true;
        } else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
            o->verbose = true;
        } else if ((v = optval(argc, argv, &i, "--context", "-C", &missing))) {
            if (!vx_cli_parse_u64(v, false, &n) || n > 1000)
                return usage_error("--context: '%s' is not a number in 0..1000", v);
            o->context = (unsigned)n;
            o->context_given = true;
        } else if ((v = optval(argc, argv, &i, "--max", NULL, &missing))) {
            if (!vx_cli_parse_u64(v, false, &o->max))
                return usage_error("--max: '%s' is not a number", v);
            o->max_given = true;
        } else if ((v = optval(argc, argv, &i, "--object", NULL, &missing))) {
            if (!*v) return usage_error("%s", "--object: the name of a data object, please");
            if (o->nobjects == MAX_OBJECTS)
                return usage_error("--object: at most %d objects", MAX_OBJECTS);
            o->objects[o->nobjects++] = v;
            o->memory = true;
        } else if ((v = optval(argc, argv, &i, "--ignore", NULL, &missing))) {
            if (parse_ignore(v, &o->ignore)) return EXIT_ERROR;
        } else if (missing) {
            return usage_error("option %s needs a value", a);
        } else {
            return usage_error("unknown option '%s'", a);
        }
    }
    if (npaths != 2) return usage_error("%s", "need two traces: A.vxt B.vxt");
    if (!strcmp(o->path[0], "-") && !strcmp(o->path[1], "-"))
        return usage_error("%s", "only one of the traces can be standard input ('-')");
    if (o->memory) {
        if (o->per_warp || o->ignore || o->context_given)
            return usage_error("--memory compares memory, not events: it takes no %s",
                               o->per_warp ? "--per-warp"
                               : o->ignore ? "--ignore"
                                           : "--context");
        if (!o->max_given) o->max = 10;
    }
    if (o->ignore & VXF_IG_SCHEDULE) o->per_warp = true;
    return 0;
}

/* ---- reading ------------------------------------------------------------------------------------- */

static int open_side(differ *d, int k)
{
    side *s = &d->s[k];
    char msg[256];
    vx_err e;
    s->path = vx_cli_trace_name(d->o.path[k]);
    s->file = vx_cli_trace_file(prog, d->o.path[k]);
    if (!s->file) return -1;
    if ((e = vx_trace_reader_new(&s->r)) || (e = vx_trace_reader_open_as(s->r, s->file, s->path))) {
        fprintf(stderr, "%s: %s\n", prog, s->r ? vx_trace_reader_errmsg(s->r) : vx_strerror(e));
        return -1;
    }
    s->h = vx_trace_reader_header(s->r);
    /* a newer minor version: one note per file (once when both sides are the same file) */
    if (!d->o.quiet && (k == 0 || strcmp(s->path, d->s[0].path)))
        vx_cli_trace_version_note(prog, s->path, s->h->major, s->h->minor);
    if ((e = vx_trace_reader_summary(s->r, &s->ts))) {
        fprintf(stderr, "%s: %s\n", prog, vx_trace_reader_errmsg(s->r));
        return -1;
    }
    if (vxd_symtab_load(&s->syms, s->h->image_kind, s->h->image, s->h->image_len, msg,
                        sizeof msg)) {
        fprintf(stderr, "%s: %s: %s\n", prog, s->path, msg);
        return -1;
    }
    if (msg[0] && !d->o.quiet) /* damaged symbols or line tables: what could be read is used */
        fprintf(stderr, "%s: %s: note: %s (the recorded kernel's)\n", prog, s->path, msg);
    if (d->o.memory && vxd_symtab_load_data(&s->dsyms, s->h->image_kind, s->h->image,
                                            s->h->image_len, msg, sizeof msg)) {
        fprintf(stderr, "%s: %s: %s\n", prog, s->path, msg);
        return -1;
    }
    vxd_fmt_init(&s->fmt, s->h, &s->syms, d->dis, s->ts.issues, s->ts.cycle);
    return 0;
}

static vx_trace_reader *view_of(differ *d, int k)
{
    side *s = &d->s[k];
    if (s->view) return s->view;
    if (vx_trace_reader_new(&s->view) || vx_trace_reader_open_as(s->view, s->file, s->path)) {
        vx_trace_reader_free(s->view);
        s->view = NULL;
    }
    return s->view;
}

/* The ordinal of an event among those sharing its index (0 for the first), after the
 * event read before it (*last; *started false before the first). */
static uint32_t ord_of(bool *started, uint64_t *last, uint32_t ord, uint64_t index)
{
    ord = *started && index == *last ? ord + 1 : 0;
    *started = true;
    *last = index;
    return ord;
}

/*
 * The next event that takes part in the comparison; *ev NULL at the end.  A read
 * error is reported and sets the status; it also ends the stream.
 */
static void next_event(differ *d, int k, const vx_event **ev, pos *p)
{
    side *s = &d->s[k];
    *ev = NULL;
    while (!s->ended) {
        const vx_event *e;
        vx_err err = vx_trace_reader_next(s->r, &e);
        if (err == VX_ERR_END) {
            s->ended = true;
            break;
        }
        if (err) {
            fflush(stdout);
            fprintf(stderr, "%s: %s\n", prog, vx_trace_reader_errmsg(s->r));
            d->status = EXIT_ERROR;
            s->ended = true;
            break;
        }
        s->ord = ord_of(&s->started, &s->last_index, s->ord, e->index);
        if (!vxf_compared(e, &d->ctx)) continue;
        s->compared++;
        *ev = e;
        p->index = e->index;
        p->ord = s->ord;
        p->valid = true;
        return;
    }
}

/* Did side k's events run out because its trace was cut off (not at its END record)?
 * What the other side has beyond that point is not a difference: the comparison is
 * incomplete (exit 2, said once the walk is over). */
static bool cut_short(const differ *d, int k)
{
    return d->s[k].ended && vx_trace_reader_incomplete(d->s[k].r);
}

/* Re-read the event at p with the side's view reader (valid until the next view call). */
static const vx_event *fetch(differ *d, int k, pos p)
{
    vx_trace_reader *v = view_of(d, k);
    const vx_event *e = NULL;
    if (!v || !p.valid || vx_trace_reader_seek(v, p.index)) return NULL;
    for (uint32_t i = 0; i <= p.ord; i++)
        if (vx_trace_reader_next(v, &e)) return NULL;
    return e;
}

/* ---- output --------------------------------------------------------------------------------------- */

static void render(differ *d, int k, const vx_event *e, vxd_sb *b)
{
    vxd_sb_clear(b);
    if (!e)
        vxd_sb_puts(b, d->o.json ? "null" : "(end of the stream)");
    else if (d->o.json)
        vxd_fmt_event_json(&d->s[k].fmt, e, b);
    else
        vxd_fmt_event(&d->s[k].fmt, e, b);
}

static void print_items_json(vxd_sb *b, const vxf_items *it)
{
    vxd_sb_puts(b, "[");
    for (size_t i = 0; i < it->n; i++) {
        const vxf_item *x = &it->v[i];
        vxd_sb_printf(b, "%s{\"field\":\"%s\",\"lane\":", i ? "," : "", x->field);
        if (x->lane >= 0)
            vxd_sb_printf(b, "%d", x->lane);
        else
            vxd_sb_puts(b, "null");
        vxd_sb_puts(b, ",\"what\":");
        if (x->what[0])
            vxd_sb_printf(b, "\"%s\"", x->what);
        else
            vxd_sb_puts(b, "null");
        if (x->has_ab) vxd_sb_printf(b, ",\"a\":%" PRIu64 ",\"b\":%" PRIu64, x->a, x->b);
        vxd_sb_puts(b, ",\"text\":");
        vxd_sb_json_str(b, x->text, strlen(x->text));
        vxd_sb_putc(b, '}');
    }
    vxd_sb_puts(b, "]");
}

static void print_file_header(differ *d)
{
    if (d->header_printed || d->o.json || d->o.quiet) return;
    d->header_printed = true;
    printf("--- A %s\n+++ B %s\n", d->s[0].path, d->s[1].path);
}

/*
 * Items for people: per-lane commit differences with the same two values are
 * merged ("gp lanes 0-3: 0x80006a68 != 0x80006a08").
 */
static void print_items_text(const vxf_items *it)
{
    size_t shown = 0;
    for (size_t i = 0; i < it->n; shown++) {
        const vxf_item *x = &it->v[i];
        size_t j = i + 1;
        while (x->subject[0] && j < it->n && !strcmp(it->v[j].subject, x->subject) &&
               it->v[j].has_ab && it->v[j].a == x->a && it->v[j].b == x->b &&
               it->v[j].lane == it->v[j - 1].lane + 1)
            j++;
        const char *pre = shown ? "          " : "differs:  ";
        if (j - i > 1) {
            const char *colon = strchr(x->text, ':');
            printf("%s%s lanes %d-%d%s\n", pre, x->subject, x->lane, it->v[j - 1].lane,
                   colon ? colon : "");
        } else {
            printf("%s%s\n", pre, x->text);
        }
        i = j;
    }
    if (it->total > it->n) printf("          ... and %zu more\n", it->total - it->n);
}

static void header_diffs(differ *d)
{
    vxf_items it = {0};
    const vx_trace_header *a = d->s[0].h, *b = d->s[1].h;
    if (!(d->o.ignore & VXF_IG_HEADER)) vxf_cmp_headers(a, b, &d->ctx, &it);
    /* --per-warp needs warps of the same width even when the headers are ignored */
    if ((d->o.ignore & VXF_IG_HEADER) && d->o.per_warp && a->threads != b->threads)
        vxf_cmp_headers(a, b, &d->ctx, &it);
    if (!it.total) return;
    d->nfound++; /* header differences are all shown and do not count against --max */
    d->header_diff = true;
    if (d->o.quiet) return;
    if (d->o.json) {
        vxd_sb_clear(&d->line);
        vxd_sb_puts(&d->line, "{\"type\":\"header\",\"items\":");
        print_items_json(&d->line, &it);
        vxd_sb_putc(&d->line, '}');
        puts(d->line.s);
        return;
    }
    print_file_header(d);
    printf("@@ headers differ @@\n");
    print_items_text(&it);
}

/* Context lines: the same text on both sides is shown once, otherwise A (-) then B (+). */
static void print_pair(const char *sa, const char *sb_)
{
    if (sa && sb_ && !strcmp(sa, sb_))
        printf("  %s\n", sa);
    else {
        if (sa) printf("- %s\n", sa);
        if (sb_) printf("+ %s\n", sb_);
    }
}

typedef struct ctxlist {
    pos *p;
    size_t n;
} ctxlist;

/* Render the events at the positions of a list (JSON: an array; text: an array of lines). */
static char **render_list(differ *d, int k, const ctxlist *l)
{
    char **out = calloc(l->n + 1, sizeof *out);
    if (!out) return NULL;
    for (size_t i = 0; i < l->n; i++) {
        const vx_event *e = fetch(d, k, l->p[i]);
        render(d, k, e, &d->line);
        out[i] = strdup(d->line.s ? d->line.s : "");
    }
    return out;
}

static void free_list(char **l)
{
    if (!l) return;
    for (size_t i = 0; l[i]; i++)
        free(l[i]);
    free(l);
}

static void json_array(vxd_sb *b, char **l, size_t n)
{
    vxd_sb_putc(b, '[');
    for (size_t i = 0; l && i < n && l[i]; i++) {
        if (i) vxd_sb_putc(b, ',');
        vxd_sb_puts(b, l[i]);
    }
    vxd_sb_putc(b, ']');
}

/*
 * Report one difference.  ea/eb: the two events (NULL: that stream ended), already
 * rendered into d->la / d->lb; before/after: positions of the context on each side.
 */
typedef struct lines {
    char **v; /* v[0..n) (NULL: could not be rendered) */
    size_t n;
} lines;

static void report_lines(differ *d, const char *title, const vxf_items *it, const lines before[2],
                         const lines after[2], const char *warpinfo)
{
    char **bl[2] = {before[0].v, before[1].v}, **al[2] = {after[0].v, after[1].v};
    if (d->o.json) {
        vxd_sb out = {0};
        vxd_sb_printf(&out, "{\"type\":\"difference\",\"mode\":\"%s\"",
                      d->o.per_warp ? "per-warp" : "lockstep");
        if (warpinfo) vxd_sb_printf(&out, ",%s", warpinfo);
        vxd_sb_puts(&out, ",\"title\":");
        vxd_sb_json_str(&out, title, strlen(title));
        vxd_sb_puts(&out, ",\"items\":");
        print_items_json(&out, it);
        vxd_sb_printf(&out, ",\"a\":%s,\"b\":%s", d->la.s ? d->la.s : "null",
                      d->lb.s ? d->lb.s : "null");
        const char *names[4] = {"before_a", "before_b", "after_a", "after_b"};
        const lines *lists[4] = {&before[0], &before[1], &after[0], &after[1]};
        for (int i = 0; i < 4; i++) {
            vxd_sb_printf(&out, ",\"%s\":", names[i]);
            json_array(&out, lists[i]->v, lists[i]->n);
        }
        vxd_sb_putc(&out, '}');
        if (out.s) puts(out.s);
        vxd_sb_release(&out);
    } else {
        print_file_header(d);
        printf("@@ %s @@\n", title);
        size_t nb = before[0].n > before[1].n ? before[0].n : before[1].n;
        for (size_t i = 0; i < nb; i++) {
            /* align the two lists on their last entries */
            size_t ia = before[0].n + i >= nb ? before[0].n + i - nb : (size_t)-1;
            size_t ib = before[1].n + i >= nb ? before[1].n + i - nb : (size_t)-1;
            print_pair(ia != (size_t)-1 && bl[0] ? bl[0][ia] : NULL,
                       ib != (size_t)-1 && bl[1] ? bl[1][ib] : NULL);
        }
        printf("- %s\n+ %s\n", d->la.s ? d->la.s : "", d->lb.s ? d->lb.s : "");
        print_items_text(it);
        size_t na = after[0].n > after[1].n ? after[0].n : after[1].n;
        for (size_t i = 0; i < na; i++)
            print_pair(i < after[0].n && al[0] ? al[0][i] : NULL,
                       i < after[1].n && al[1] ? al[1][i] : NULL);
    }
}

/* report_lines with the context given by positions, read with the view readers. */
static void report(differ *d, const char *title, const vxf_items *it, const ctxlist before[2],
                   const ctxlist after[2], const char *warpinfo)
{
    if (d->o.quiet) return;
    lines bl[2], al[2];
    for (int k = 0; k < 2; k++) {
        bl[k] = (lines){render_list(d, k, &before[k]), before[k].n};
        al[k] = (lines){render_list(d, k, &after[k]), after[k].n};
    }
    report_lines(d, title, it, bl, al, warpinfo);
    for (int k = 0; k < 2; k++) {
        free_list(bl[k].v);
        free_list(al[k].v);
    }
}

/* ---- lockstep ---------------------------------------------------------------------------------------- */

static bool pos_eq(pos a, pos b)
{
    return a.valid && b.valid && a.index == b.index && a.ord == b.ord;
}

static void window_drop(side *s, size_t n)
{
    for (size_t i = 0; i < n && i < s->wlen; i++)
        free(s->wline[i]);
    if (n >= s->wlen) {
        s->wlen = 0;
        return;
    }
    memmove(s->wpos, s->wpos + n, (s->wlen - n) * sizeof *s->wpos);
    memmove(s->wline, s->wline + n, (s->wlen - n) * sizeof *s->wline);
    s->wlen -= n;
}

/* Read the view's next compared event into the window; false at the end or on error. */
static bool window_read(differ *d, int k)
{
    side *s = &d->s[k];
    vx_trace_reader *v = view_of(d, k);
    const vx_event *e;
    while (v && !s->vended) {
        if (vx_trace_reader_next(v, &e)) {
            s->vended = true;
            break;
        }
        s->vord = ord_of(&s->vstarted, &s->vindex, s->vord, e->index);
        if (!vxf_compared(e, &d->ctx)) continue;
        if (s->wlen == s->wcap) return false; /* sized for the context: cannot happen */
        render(d, k, e, &d->line);
        s->wpos[s->wlen] = (pos){e->index, s->vord, true};
        s->wline[s->wlen] = strdup(d->line.s ? d->line.s : "");
        s->wlen++;
        return true;
    }
    return false;
}

/* Start the window at `start` (a compared event): seek the view there. */
static void window_restart(differ *d, int k, pos start)
{
    side *s = &d->s[k];
    window_drop(s, s->wlen);
    vx_trace_reader *v = view_of(d, k);
    s->vended = true;
    if (!v || vx_trace_reader_seek(v, start.index)) return;
    s->vended = false;
    s->vstarted = false;
    /* the events of start.index before start: read and not kept */
    const vx_event *e;
    for (uint32_t i = 0; i < start.ord; i++) {
        if (vx_trace_reader_next(v, &e)) {
            s->vended = true;
            return;
        }
        s->vord = ord_of(&s->vstarted, &s->vindex, s->vord, e->index);
    }
}

/*
 * The rendered context of a difference at p on side k: the compared events at the
 * positions B[0..nb) before it (consecutive, ending right before p) and the next n
 * after it, through the window, which keeps what the last difference read.  p not
 * valid: that side has ended, B only.
 */
static void window_context(differ *d, int k, const pos *B, size_t nb, pos p, size_t n,
                           lines *before, lines *after)
{
    side *s = &d->s[k];
    const pos start = nb ? B[0] : p;
    *before = *after = (lines){NULL, 0};
    if (!start.valid) return;
    const size_t need = nb + (p.valid ? 1 + n : 0);
    size_t i = 0;
    while (i < s->wlen && !pos_eq(s->wpos[i], start))
        i++;
    if (i < s->wlen)
        window_drop(s, i);
    else
        window_restart(d, k, start);
    while (s->wlen < need && window_read(d, k))
        ;
    /* the window must hold B and p where expected; otherwise render nothing */
    bool ok = s->wlen >= nb + (p.valid ? 1 : 0) && (!p.valid || pos_eq(s->wpos[nb], p));
    for (size_t j = 0; ok && j < nb; j++)
        ok = pos_eq(s->wpos[j], B[j]);
    if (!ok) return;
    *before = (lines){s->wline, nb};
    if (p.valid) {
        size_t na = s->wlen - nb - 1;
        *after = (lines){s->wline + nb + 1, na < n ? na : n};
    }
}

/* Positions of the next n compared events after p on side k (view reader). */
static size_t after_positions(differ *d, int k, pos p, size_t n, pos *out, int64_t gwarp)
{
    vx_trace_reader *v = view_of(d, k);
    const vx_event *e;
    if (!v || !p.valid || !n || vx_trace_reader_seek(v, p.index)) return 0;
    for (uint32_t i = 0; i <= p.ord; i++)
        if (vx_trace_reader_next(v, &e)) return 0;
    size_t got = 0;
    uint64_t last = p.index, scanned = 0;
    uint32_t ord = p.ord;
    uint32_t nw = d->s[k].h->warps;
    while (got < n && scanned < 4000000 && vx_trace_reader_next(v, &e) == VX_OK) {
        scanned++;
        if (e->index == last)
            ord++;
        else
            ord = 0;
        last = e->index;
        if (!vxf_compared(e, &d->ctx)) continue;
        if (gwarp >= 0) {
            if (e->kind == VX_EV_DM) continue;
            if (e->kind == VX_EV_ISSUE && (int64_t)(e->core * nw + e->warp) != gwarp) continue;
        }
        out[got++] = (pos){e->index, ord, true};
    }
    return got;
}

/* Index of the first EVENTS chunk whose key is at least t (the number of chunks: none). */
static size_t chunk_from(const vx_trace_reader *r, uint64_t t)
{
    size_t lo = 0, hi = vx_trace_reader_num_chunks(r);
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (vx_trace_reader_chunk_key(r, mid) < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Index of the EVENTS chunk whose key is t, or SIZE_MAX. */
static size_t chunk_at(const vx_trace_reader *r, uint64_t t)
{
    size_t i = chunk_from(r, t);
    return i < vx_trace_reader_num_chunks(r) && vx_trace_reader_chunk_key(r, i) == t ? i : SIZE_MAX;
}

/*
 * Lockstep, both sides at the start of an EVENTS chunk with the same key: skip the run
 * of chunk pairs that hold the same records (vx_trace_reader_chunks_same: equal stored
 * bytes, no decoding), as if their events had been compared.  Only chunks of issues
 * alone (their digest: no Debug Module record, no injected or stepped issue, no END),
 * so that the compared events are exactly the digest's issues, with consecutive
 * indexes; never a side's last chunk.  The context ring gets the last positions.
 */
static void skip_same_chunks(differ *d, pos *ring[2], size_t n, size_t *rlen, size_t *rhead)
{
    side *A = &d->s[0], *B = &d->s[1];
    if (A->ended || B->ended) return;
    uint64_t t = vx_trace_reader_tell(A->r);
    if (t < d->skip_at) return; /* (once per chunk of A, not per event) */
    size_t na = vx_trace_reader_num_chunks(A->r), nb = vx_trace_reader_num_chunks(B->r);
    size_t ia = chunk_at(A->r, t), ib = chunk_at(B->r, t);
    size_t after = chunk_from(A->r, t + 1);
    d->skip_at = after < na ? vx_trace_reader_chunk_key(A->r, after) : UINT64_MAX;
    if (ia == SIZE_MAX || ib == SIZE_MAX || t != vx_trace_reader_tell(B->r)) return;
    uint64_t end = t, last = t; /* last: the key of the run's last chunk */
    while (ia + 1 < na && ib + 1 < nb) {
        vx_trace_digest dg;
        bool same = false;
        const vx_err de = vx_trace_reader_digest(A->r, ia, VX_TRACE_DIGEST_STORED, &dg);
        if (de != VX_OK && de != VX_ERR_END) { /* a damaged digest: reported, as any damage read */
            fflush(stdout);
            fprintf(stderr, "%s: %s\n", prog, vx_trace_reader_errmsg(A->r));
            d->status = EXIT_ERROR;
            return;
        }
        if (de || (dg.flags & (VX_TRACE_DG_DM | VX_TRACE_DG_END | VX_TRACE_DG_FLAGGED))) break;
        uint64_t next = vx_trace_reader_chunk_key(A->r, ia + 1);
        if (next != dg.first + dg.issues || vx_trace_reader_chunk_key(B->r, ib + 1) != next ||
            vx_trace_reader_chunks_same(A->r, ia, B->r, ib, &same) || !same)
            break; /* (damage is reported when the chunk is read) */
        last = end;
        end = next;
        ia++;
        ib++;
    }
    if (end == t) return;
    d->skip_at = end;
    if (vx_trace_reader_seek(A->r, end) || vx_trace_reader_seek(B->r, end)) {
        /* the chunk after the run cannot be read: read up to it as without skipping, so
         * that the damage is met and reported at the same event.  From the start of the
         * run's last chunk, whose bytes were read (seeking there decodes the chunk before
         * it), not from t: a run can span the whole trace, and reading it again took as
         * long as comparing every event (minutes for 10^9 events) */
        d->skip_at = UINT64_MAX;
        if (last == t || vx_trace_reader_seek(A->r, last) || vx_trace_reader_seek(B->r, last)) {
            for (int k = 0; k < 2; k++)
                if (vx_trace_reader_seek(d->s[k].r, t)) {
                    fflush(stdout);
                    fprintf(stderr, "%s: %s\n", prog, vx_trace_reader_errmsg(d->s[k].r));
                    d->status = EXIT_ERROR;
                    d->s[k].ended = true;
                }
            return;
        }
        end = last;
    }
    for (int k = 0; k < 2; k++) {
        side *s = &d->s[k];
        s->compared += end - t;
        s->started = true;
        s->last_index = end - 1;
        s->ord = 0;
    }
    uint64_t from = end - t > n ? end - n : t;
    for (uint64_t i = from; i < end; i++) {
        ring[0][*rhead] = ring[1][*rhead] = (pos){i, 0, true};
        *rhead = (*rhead + 1) % (n + 1);
        if (*rlen < n) (*rlen)++;
    }
}

static void run_lockstep(differ *d)
{
    size_t n = d->o.context;
    pos *ring[2] = {calloc(n + 1, sizeof(pos)), calloc(n + 1, sizeof(pos))};
    pos *tmp[2] = {calloc(n + 1, sizeof(pos)), calloc(n + 1, sizeof(pos))};
    size_t rlen = 0, rhead = 0;
    bool oom = !ring[0] || !ring[1] || !tmp[0] || !tmp[1];
    for (int k = 0; k < 2 && !oom; k++) {
        side *s = &d->s[k];
        s->wcap = 2 * n + 2; /* before, the event, after */
        s->wpos = calloc(s->wcap, sizeof *s->wpos);
        s->wline = calloc(s->wcap, sizeof *s->wline);
        oom = !s->wpos || !s->wline;
    }
    if (oom) {
        fprintf(stderr, "%s: out of memory\n", prog);
        d->status = EXIT_ERROR;
        goto out;
    }
    for (;;) {
        const vx_event *ea, *eb;
        pos pa = {0}, pb = {0};
        skip_same_chunks(d, ring, n, &rlen, &rhead);
        if (d->status == EXIT_ERROR) break;
        next_event(d, 0, &ea, &pa);
        next_event(d, 1, &eb, &pb);
        if (d->status == EXIT_ERROR) break;
        if ((!ea && !eb) || (!ea && cut_short(d, 0)) || (!eb && cut_short(d, 1))) break;
        vxf_items it = {0};
        vxf_cmp_events(ea, eb, &d->ctx, &it);
        if (it.total && d->o.quiet) { /* counted, not shown: no context to gather */
            d->nfound++;
            d->ndiff++;
            if (d->o.max && d->ndiff >= d->o.max) break;
        } else if (it.total) {
            d->nfound++;
            d->ndiff++;
            render(d, 0, ea, &d->la);
            render(d, 1, eb, &d->lb);
            lines before[2], after[2];
            for (int k = 0; k < 2; k++) {
                /* the ring in order, oldest first */
                for (size_t i = 0; i < rlen; i++)
                    tmp[k][i] = ring[k][(rhead + (n + 1) - rlen + i) % (n + 1)];
                /* the view readers render the context, so ea / eb (main readers) stay valid */
                pos p = (k ? eb : ea) ? (k ? pb : pa) : (pos){0, 0, false};
                if (n)
                    window_context(d, k, tmp[k], rlen, p, n, &before[k], &after[k]);
                else
                    before[k] = after[k] = (lines){NULL, 0};
            }
            char title[160];
            if (ea && eb && ea->index == eb->index && ea->cycle == eb->cycle)
                snprintf(title, sizeof title,
                         "%s difference at event %" PRIu64 " (cycle %" PRIu64 ")",
                         d->ndiff == 1 ? "first" : "next", ea->index, ea->cycle);
            else if (ea && eb && ea->index == eb->index)
                snprintf(title, sizeof title,
                         "%s difference at event %" PRIu64 " (cycle %" PRIu64 " in A, %" PRIu64
                         " in B)",
                         d->ndiff == 1 ? "first" : "next", ea->index, ea->cycle, eb->cycle);
            else {
                /* a side whose events have run out (after its END record) has no index there */
                char sa[48] = "the end of A's events", sb2[48] = "the end of B's events";
                if (ea) snprintf(sa, sizeof sa, "event %" PRIu64 " of A", ea->index);
                if (eb) snprintf(sb2, sizeof sb2, "event %" PRIu64 " of B", eb->index);
                snprintf(title, sizeof title, "%s difference at %s / %s",
                         d->ndiff == 1 ? "first" : "next", sa, sb2);
            }
            char warpinfo[160], ja[24] = "null", jb[24] = "null";
            if (ea) snprintf(ja, sizeof ja, "%" PRIu64, ea->index);
            if (eb) snprintf(jb, sizeof jb, "%" PRIu64, eb->index);
            snprintf(warpinfo, sizeof warpinfo, "\"index_a\":%s,\"index_b\":%s", ja, jb);
            report_lines(d, title, &it, before, after, warpinfo);
            if (d->o.max && d->ndiff >= d->o.max) break;
        }
        if (!ea || !eb) break;
        if (n) {
            ring[0][rhead] = pa;
            ring[1][rhead] = pb;
            rhead = (rhead + 1) % (n + 1);
            if (rlen < n) rlen++;
        }
    }
out:
    for (int k = 0; k < 2; k++) {
        side *s = &d->s[k];
        window_drop(s, s->wlen);
        free(s->wpos);
        free(s->wline);
        free(ring[k]);
        free(tmp[k]);
    }
}

/* ---- per warp ------------------------------------------------------------------------------------------ */

typedef struct qitem {
    uint64_t digest;
    pos p;
} qitem;

typedef struct unit {
    qitem *q;
    size_t head, len, cap;
    uint8_t qside;
    bool done;
    uint64_t matched;
    pos *ring[2]; /* the last `context` matched positions on each side */
    size_t rlen, rhead;
} unit;

typedef struct mismatch {
    size_t unit;
    bool dm;    /* the Debug Module's stream (its events at index i come before issue i) */
    uint64_t k; /* position in the warp's stream */
    pos a, b;   /* a missing side: !valid */
    pos *before[2];
    size_t nbefore;
} mismatch;

typedef struct pw {
    differ *d;
    unit *u;
    size_t nunits; /* warps + 1 (the Debug Module's stream) */
    mismatch *m;
    size_t nm, capm;
    bool oom;
} pw;

static bool q_push(unit *u, qitem it)
{
    if (u->len == u->cap) {
        size_t ncap = u->cap ? u->cap * 2 : 16;
        qitem *p = malloc(ncap * sizeof *p);
        if (!p) return false;
        for (size_t i = 0; i < u->len; i++)
            p[i] = u->q[(u->head + i) % u->cap];
        free(u->q);
        u->q = p;
        u->head = 0;
        u->cap = ncap;
    }
    u->q[(u->head + u->len) % u->cap] = it;
    u->len++;
    return true;
}

static qitem q_pop(unit *u)
{
    qitem it = u->q[u->head];
    u->head = (u->head + 1) % u->cap;
    u->len--;
    return it;
}

static void add_mismatch(pw *w, size_t ui, pos a, pos b)
{
    unit *u = &w->u[ui];
    size_t n = w->d->o.context;
    u->done = true;
    if (w->nm == w->capm) {
        size_t ncap = w->capm ? w->capm * 2 : 16;
        mismatch *p = realloc(w->m, ncap * sizeof *p);
        if (!p) {
            w->oom = true;
            return;
        }
        w->m = p;
        w->capm = ncap;
    }
    mismatch *m = &w->m[w->nm++];
    memset(m, 0, sizeof *m);
    m->unit = ui;
    m->dm = ui == w->nunits - 1;
    m->k = u->matched;
    m->a = a;
    m->b = b;
    for (int k = 0; k < 2; k++) {
        m->before[k] = calloc(n + 1, sizeof(pos));
        if (!m->before[k]) continue;
        for (size_t i = 0; i < u->rlen; i++)
            m->before[k][i] = u->ring[k][(u->rhead + (n + 1) - u->rlen + i) % (n + 1)];
    }
    m->nbefore = u->rlen;
    free(u->q);
    u->q = NULL;
    u->len = u->cap = u->head = 0;
}

static void pw_item(pw *w, int side_, size_t ui, uint64_t digest, pos p)
{
    unit *u = &w->u[ui];
    if (u->done) return;
    if (u->len && u->qside != side_) {
        qitem f = q_pop(u);
        pos pa = side_ == 0 ? p : f.p, pb = side_ == 0 ? f.p : p;
        if (f.digest != digest) {
            add_mismatch(w, ui, pa, pb);
            return;
        }
        u->matched++;
        size_t n = w->d->o.context;
        if (n && u->ring[0] && u->ring[1]) {
            u->ring[0][u->rhead] = pa;
            u->ring[1][u->rhead] = pb;
            u->rhead = (u->rhead + 1) % (n + 1);
            if (u->rlen < n) u->rlen++;
        }
        return;
    }
    u->qside = (uint8_t)side_;
    if (!q_push(u, (qitem){digest, p})) w->oom = true;
}

static uint64_t dm_digest(const vx_event *e)
{
    uint64_t v[6] = {e->dm.op, e->dm.addr, e->dm.value, e->dm.gwarp, e->dm.lane, e->dm.arg};
    uint64_t h = 0xcbf29ce484222325ull;
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 8; j++)
            h = (h ^ ((v[i] >> (8 * j)) & 0xFF)) * 0x100000001b3ull;
    return h;
}

static int mismatch_cmp(const void *pa, const void *pb)
{
    const mismatch *a = pa, *b = pb;
    uint64_t ka = a->a.valid ? a->a.index : a->b.index, kb = b->a.valid ? b->a.index : b->b.index;
    if (ka != kb) return ka < kb ? -1 : 1;
    if (a->dm != b->dm) return a->dm ? -1 : 1; /* recorded before the issue of its index */
    return a->unit < b->unit ? -1 : a->unit > b->unit;
}

/* A copy of an END event (the reader's storage is reused). */
typedef struct endcopy {
    bool have;
    vx_event ev;
    vx_fault fault;
    pos p;
} endcopy;

static void run_per_warp(differ *d)
{
    pw w = {0};
    w.d = d;
    uint32_t ga = d->s[0].h->clusters * d->s[0].h->cores * d->s[0].h->warps;
    uint32_t gb = d->s[1].h->clusters * d->s[1].h->cores * d->s[1].h->warps;
    size_t nw = ga > gb ? ga : gb;
    w.nunits = nw + 1;
    w.u = calloc(w.nunits, sizeof *w.u);
    endcopy end[2] = {0};
    size_t n = d->o.context;
    if (!w.u) goto oom;
    for (size_t i = 0; i < w.nunits && n; i++) {
        w.u[i].ring[0] = calloc(n + 1, sizeof(pos));
        w.u[i].ring[1] = calloc(n + 1, sizeof(pos));
        if (!w.u[i].ring[0] || !w.u[i].ring[1]) goto oom;
    }
    bool more[2] = {true, true};
    while (more[0] || more[1]) {
        for (int k = 0; k < 2; k++) {
            if (!more[k]) continue;
            const vx_event *e;
            pos p = {0};
            next_event(d, k, &e, &p);
            if (!e) {
                more[k] = false;
                continue;
            }
            if (e->kind == VX_EV_ISSUE) {
                size_t g = (size_t)e->core * d->s[k].h->warps + e->warp;
                pw_item(&w, k, g, vxf_digest(e, &d->ctx), p);
            } else if (e->kind == VX_EV_DM) {
                pw_item(&w, k, nw, dm_digest(e), p);
            } else if (e->kind == VX_EV_END) {
                end[k].have = true;
                end[k].ev = *e;
                end[k].p = p;
                if (e->fault) {
                    end[k].fault = *e->fault;
                    end[k].ev.fault = &end[k].fault;
                }
            }
            if (w.oom) goto oom;
        }
        if (d->status == EXIT_ERROR) break;
    }
    /* streams of different lengths: the first extra item of each unfinished warp */
    for (size_t i = 0; i < w.nunits; i++) {
        unit *u = &w.u[i];
        if (u->done || !u->len || cut_short(d, 1 - u->qside)) continue;
        qitem f = q_pop(u);
        pos none = {0};
        add_mismatch(&w, i, u->qside == 0 ? f.p : none, u->qside == 1 ? f.p : none);
        if (w.oom) goto oom;
    }
    if (w.nm) qsort(w.m, w.nm, sizeof *w.m, mismatch_cmp);
    d->nfound += w.nm;
    d->nwarps = w.nm;
    for (size_t i = 0; i < w.nm; i++)
        if (w.m[i].dm) {
            d->nwarps--;
            d->dm_differs = true;
        }
    for (size_t i = 0; i < w.nm; i++) {
        if (d->o.max && d->ndiff >= d->o.max) break;
        mismatch *m = &w.m[i];
        d->ndiff++;
        vxf_items it = {0};
        /* fetch both (different readers) and compare them in detail */
        const vx_event *ea = m->a.valid ? fetch(d, 0, m->a) : NULL;
        const vx_event *eb = m->b.valid ? fetch(d, 1, m->b) : NULL;
        char title[200], warpinfo[240];
        if (m->unit == nw) {
            snprintf(title, sizeof title,
                     "the Debug Module event streams differ at their event %" PRIu64, m->k);
            char ja[32] = "null", jb[32] = "null";
            if (m->a.valid) snprintf(ja, sizeof ja, "%" PRIu64, m->a.index);
            if (m->b.valid) snprintf(jb, sizeof jb, "%" PRIu64, m->b.index);
            snprintf(warpinfo, sizeof warpinfo,
                     "\"warp\":null,\"position\":%" PRIu64 ",\"index_a\":%s,\"index_b\":%s", m->k,
                     ja, jb);
        } else {
            char wa[40], wb[40], ia[32], ib[32], ja[32], jb[32];
            for (int k = 0; k < 2; k++) {
                const vx_trace_header *h = d->s[k].h;
                size_t total = (size_t)h->clusters * h->cores * h->warps;
                char *wn = k ? wb : wa, *in = k ? ib : ia, *jn = k ? jb : ja;
                pos at = k ? m->b : m->a;
                if (m->unit < total)
                    snprintf(wn, 40, "%zu:%zu", m->unit / h->warps, m->unit % h->warps);
                else
                    snprintf(wn, 40, "none");
                if (at.valid) {
                    snprintf(in, 32, "event %" PRIu64, at.index);
                    snprintf(jn, 32, "%" PRIu64, at.index);
                } else {
                    snprintf(in, 32, "no more issues");
                    snprintf(jn, 32, "null");
                }
            }
            snprintf(title, sizeof title,
                     "warp %zu (A %s, B %s): first difference at its issue %" PRIu64
                     " (A %s, B %s)",
                     m->unit, wa, wb, m->k, ia, ib);
            snprintf(warpinfo, sizeof warpinfo,
                     "\"warp\":%zu,\"position\":%" PRIu64 ",\"index_a\":%s,\"index_b\":%s", m->unit,
                     m->k, ja, jb);
        }
        if (ea && eb)
            vxf_cmp_events(ea, eb, &d->ctx, &it);
        else if (m->unit == nw)
            vxf_cmp_events(ea, eb, &d->ctx, &it);
        else {
            const vx_event *e = ea ? ea : eb;
            (void)e;
            vxf_items *o = &it;
            o->total++;
            vxf_item *x = &o->v[o->n++];
            memset(x, 0, sizeof *x);
            snprintf(x->field, sizeof x->field, "length");
            x->lane = -1;
            snprintf(x->text, sizeof x->text,
                     "warp %zu issues more instructions in %s: the other trace has only %" PRIu64,
                     m->unit, ea ? "A" : "B", m->k);
        }
        if (!it.total) { /* equal digests for unequal events cannot happen; equal events with unequal digests neither */
            it.total = it.n = 1;
            memset(&it.v[0], 0, sizeof it.v[0]);
            snprintf(it.v[0].field, sizeof it.v[0].field, "digest");
            it.v[0].lane = -1;
            snprintf(it.v[0].text, sizeof it.v[0].text,
                     "the events differ in a field that is not shown");
        }
        render(d, 0, ea, &d->la);
        render(d, 1, eb, &d->lb);
        pos *aft[2] = {calloc(n + 1, sizeof(pos)), calloc(n + 1, sizeof(pos))};
        ctxlist before[2], after[2];
        for (int k = 0; k < 2; k++) {
            before[k] = (ctxlist){m->before[k], m->before[k] ? m->nbefore : 0};
            pos at = k == 0 ? m->a : m->b;
            after[k] =
                (ctxlist){aft[k], aft[k] && at.valid && m->unit < nw
                                      ? after_positions(d, k, at, n, aft[k], (int64_t)m->unit)
                                      : 0};
        }
        report(d, title, &it, before, after, warpinfo);
        free(aft[0]);
        free(aft[1]);
    }
    /* the END records, without their cycles (none to compare where one was cut off); a
     * difference counts whether --max lets it be shown or not */
    if (d->status != EXIT_ERROR && !cut_short(d, 0) && !cut_short(d, 1)) {
        vxf_items it = {0};
        if (end[0].have || end[1].have) {
            vxf_cmp_events(end[0].have ? &end[0].ev : NULL, end[1].have ? &end[1].ev : NULL,
                           &d->ctx, &it);
        }
        if (it.total) d->nfound++;
        if (it.total && (!d->o.max || d->ndiff < d->o.max)) {
            d->ndiff++;
            render(d, 0, end[0].have ? &end[0].ev : NULL, &d->la);
            render(d, 1, end[1].have ? &end[1].ev : NULL, &d->lb);
            ctxlist none[2] = {{NULL, 0}, {NULL, 0}};
            char endinfo[128], ja[24] = "null", jb[24] = "null";
            if (end[0].have) snprintf(ja, sizeof ja, "%" PRIu64, end[0].ev.index);
            if (end[1].have) snprintf(jb, sizeof jb, "%" PRIu64, end[1].ev.index);
            snprintf(endinfo, sizeof endinfo,
                     "\"warp\":null,\"position\":null,\"index_a\":%s,\"index_b\":%s", ja, jb);
            report(d, "the runs end differently", &it, none, none, endinfo);
        }
    }
    goto out;
oom:
    fprintf(stderr, "%s: out of memory\n", prog);
    d->status = EXIT_ERROR;
out:
    for (size_t i = 0; w.u && i < w.nunits; i++) {
        free(w.u[i].q);
        free(w.u[i].ring[0]);
        free(w.u[i].ring[1]);
    }
    for (size_t i = 0; i < w.nm; i++) {
        free(w.m[i].before[0]);
        free(w.m[i].before[1]);
    }
    free(w.m);
    free(w.u);
}

/* ---- memory --------------------------------------------------------------------------------------------- */

/* Is either trace cut off?  Says so (the comparison is then incomplete: exit 2). */
static bool incomplete_note(differ *d)
{
    bool incomplete = false;
    for (int k = 0; k < 2; k++)
        if (vx_trace_reader_incomplete(d->s[k].r)) {
            char upto[64] = "";
            if (cut_short(d, k) && d->s[k].started)
                snprintf(upto, sizeof upto, "; its events end after event %" PRIu64,
                         d->s[k].last_index);
            fprintf(stderr,
                    "%s: %s: the trace is incomplete (cut off while it was recorded%s): the "
                    "comparison is not complete\n",
                    prog, d->s[k].path, upto);
            incomplete = true;
        }
    return incomplete;
}

/* --memory: what the two runs left in memory (memory.h), whatever their code layout. */
static void run_memory(differ *d)
{
    vxf_mem_side ms[2];
    for (int k = 0; k < 2; k++)
        ms[k] = (vxf_mem_side){d->s[k].path, d->s[k].r, d->s[k].h, &d->s[k].syms, &d->s[k].dsyms};
    vxf_mem_opts mo = {prog, d->o.max, d->o.json, d->o.quiet, d->dis, d->o.objects, d->o.nobjects};
    vxf_mem_result res;
    if (vxf_mem_compare(ms, &mo, &res)) d->status = EXIT_ERROR;
    const uint32_t cores = res.cores_a < res.cores_b ? res.cores_a : res.cores_b;
    if (d->status != EXIT_ERROR && res.cores_a != res.cores_b && !d->o.quiet) {
        const uint32_t more = res.cores_a > res.cores_b ? res.cores_a : res.cores_b;
        char which[48];
        if (more == cores + 1)
            snprintf(which, sizeof which, "core %" PRIu32, cores);
        else
            snprintf(which, sizeof which, "cores %" PRIu32 "..%" PRIu32, cores, more - 1);
        fflush(stdout);
        fprintf(stderr,
                "%s: A has %" PRIu32 " core%s, B %" PRIu32 ": the local memory of %s (only in %s) "
                "is not compared\n",
                prog, res.cores_a, res.cores_a == 1 ? "" : "s", res.cores_b, which,
                res.cores_a > res.cores_b ? "A" : "B");
    }
    if (incomplete_note(d)) d->status = EXIT_ERROR;
    if (d->status != EXIT_ERROR) d->status = res.ranges ? EXIT_DIFF : EXIT_SAME;
    d->nfound = res.ranges;
    d->ndiff = res.shown;
    if (d->o.quiet) return;
    if (d->o.json) {
        printf("{\"type\":\"result\",\"status\":%d,\"identical\":%s,\"differences_found\":%" PRIu64
               ",\"differences_shown\":%" PRIu64 ",\"mode\":\"memory\",\"bytes\":%" PRIu64
               ",\"layout_ranges\":%" PRIu64 ",\"image_bytes\":%" PRIu64
               ",\"local_memories\":%" PRIu32 "}\n",
               d->status, d->status == EXIT_SAME ? "true" : "false", res.ranges, res.shown,
               res.bytes, res.layout_ranges, res.image_bytes, cores);
        return;
    }
    if (res.ranges && d->o.nobjects) {
        printf("%s: %" PRIu64 " range%s (%" PRIu64 " bytes) of the object%s named differ%s", prog,
               res.ranges, res.ranges == 1 ? "" : "s", res.bytes, d->o.nobjects == 1 ? "" : "s",
               res.ranges == 1 ? "s" : "");
        if (res.shown < res.ranges) printf(" (the first %" PRIu64 " shown: --max)", res.shown);
        printf("\n");
    } else if (res.ranges) {
        printf("%s: %" PRIu64 " range%s of memory (%" PRIu64 " bytes) written during the runs "
               "differ%s",
               prog, res.ranges, res.ranges == 1 ? "" : "s", res.bytes, res.ranges == 1 ? "s" : "");
        if (res.layout_ranges)
            printf(": %" PRIu64 " at fixed addresses, %" PRIu64
                   " where the code's layout places things (static data, TLS blocks, heap, stacks: "
                   "listed last)",
                   res.ranges - res.layout_ranges, res.layout_ranges);
        if (res.shown < res.ranges) printf(" (the first %" PRIu64 " shown: --max)", res.shown);
        printf("\n");
    }
    if (d->status == EXIT_SAME && d->o.nobjects && d->o.verbose)
        printf("%s: %s and %s: the object%s named are identical\n", prog, d->s[0].path,
               d->s[1].path, d->o.nobjects == 1 ? "" : "s");
    else if (d->status == EXIT_SAME && (d->o.verbose || res.image_bytes))
        printf("%s: %s and %s: the memory written during the runs is identical\n", prog,
               d->s[0].path, d->s[1].path);
    if (res.image_bytes)
        printf("%s: %" PRIu64 " byte%s of the initial memory (kernel image, loaded files) differ "
               "where neither run wrote: not listed\n",
               prog, res.image_bytes, res.image_bytes == 1 ? "" : "s");
}

/* ---- main ------------------------------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    differ d;
    memset(&d, 0, sizeof d);
    vx_cli_signals();
    int rc = parse_args(argc, argv, &d.o);
    if (rc) return rc;
    if (vx_disasm_new(&d.dis)) d.dis = NULL;
    d.status = EXIT_SAME;
    for (int k = 0; k < 2; k++)
        if (open_side(&d, k)) {
            d.status = EXIT_ERROR;
            goto out;
        }
    if (d.o.lines) { /* one SOURCE column width for both sides */
        vxd_fmt_show_lines(&d.s[0].fmt);
        vxd_fmt_show_lines(&d.s[1].fmt);
        const int w = d.s[0].fmt.w_src > d.s[1].fmt.w_src ? d.s[0].fmt.w_src : d.s[1].fmt.w_src;
        d.s[0].fmt.w_src = d.s[1].fmt.w_src = w;
    }
    d.ctx.ignore = d.o.ignore;
    d.ctx.per_warp = d.o.per_warp;
    d.ctx.threads = d.s[0].h->threads < d.s[1].h->threads ? d.s[0].h->threads : d.s[1].h->threads;
    d.ctx.warps_a = d.s[0].h->warps;
    d.ctx.warps_b = d.s[1].h->warps;
    d.ctx.dis = d.dis;

    if (d.o.memory) {
        run_memory(&d);
        goto out;
    }
    header_diffs(&d);
    bool shapes_differ =
        d.s[0].h->clusters * d.s[0].h->cores != d.s[1].h->clusters * d.s[1].h->cores ||
        d.s[0].h->warps != d.s[1].h->warps;
    if (d.s[0].h->threads != d.s[1].h->threads) {
        if (!d.o.quiet)
            fprintf(
                stderr,
                "%s: the traces have %u and %u threads per warp: their events cannot be compared\n",
                prog, d.s[0].h->threads, d.s[1].h->threads);
        if (!d.nfound) d.nfound = 1;
    } else if (!d.o.per_warp && shapes_differ) {
        if (!d.o.quiet && !d.o.json)
            fprintf(stderr,
                    "%s: the platform shapes differ: the schedules cannot match (try --per-warp)\n",
                    prog);
        if (!d.nfound) d.nfound = 1;
    } else if (d.o.per_warp) {
        run_per_warp(&d);
    } else {
        run_lockstep(&d);
    }

    const bool incomplete = incomplete_note(&d);
    if (d.status != EXIT_ERROR)
        d.status = incomplete ? EXIT_ERROR : d.nfound ? EXIT_DIFF : EXIT_SAME;
    if (d.o.json && !d.o.quiet) {
        printf("{\"type\":\"result\",\"status\":%d,\"identical\":%s,\"differences_found\":%" PRIu64
               ",\"differences_shown\":%" PRIu64 ",\"mode\":\"%s\",\"compared_a\":%" PRIu64
               ",\"compared_b\":%" PRIu64 "}\n",
               d.status, d.status == EXIT_SAME ? "true" : "false", d.nfound,
               d.ndiff + (d.header_diff ? 1 : 0), d.o.per_warp ? "per-warp" : "lockstep",
               d.s[0].compared, d.s[1].compared);
    } else if (!d.o.quiet) {
        if (d.status == EXIT_SAME && d.o.verbose)
            printf("%s: %s and %s are identical (%" PRIu64 " events compared%s)\n", prog,
                   d.s[0].path, d.s[1].path, d.s[0].compared, d.o.per_warp ? ", per warp" : "");
        else if (d.status == EXIT_DIFF && d.o.per_warp && d.nwarps + d.dm_differs > 1) {
            const uint64_t n = d.nwarps + d.dm_differs; /* streams that differ */
            if (d.o.max && d.o.max < n)
                printf("%s: %" PRIu64 " warp%s diverge%s%s (the first difference of each of the "
                       "first %" PRIu64 " is shown: --max)\n",
                       prog, d.nwarps, d.nwarps == 1 ? "" : "s", d.nwarps == 1 ? "s" : "",
                       d.dm_differs ? " and the Debug Module's events differ" : "", d.o.max);
            else
                printf("%s: %" PRIu64 " warp%s diverge%s%s (the first difference of each is "
                       "shown)\n",
                       prog, d.nwarps, d.nwarps == 1 ? "" : "s", d.nwarps == 1 ? "s" : "",
                       d.dm_differs ? " and the Debug Module's events differ" : "");
        }
    }
out:
    if (vx_cli_output_done(prog)) d.status = EXIT_ERROR;
    for (int k = 0; k < 2; k++) {
        vx_trace_reader_free(d.s[k].r);
        vx_trace_reader_free(d.s[k].view);
        vxd_symtab_release(&d.s[k].syms);
        vxd_symtab_release(&d.s[k].dsyms);
    }
    vx_disasm_free(d.dis);
    vxd_sb_release(&d.line);
    vxd_sb_release(&d.la);
    vxd_sb_release(&d.lb);
    return d.status;
}
