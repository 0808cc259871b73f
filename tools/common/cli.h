/*
 * cli.h - command-line support shared by the programs that run kernels (vxsim,
 * vxrec): the platform shape, memory preloads, the kernel argument, limits, and
 * reading whole files with clear errors.
 *
 * Common options (vx_cli_run_help() prints them):
 *   -C, --clusters N        clusters (default 1)
 *   -c, --cores N           cores per cluster (default 1)
 *   -w, --warps N           warps per core (default 4)
 *   -t, --threads N         threads per warp, a power of two (default 4)
 *   --load FILE@ADDR        copy FILE into global memory at ADDR before start (repeatable)
 *   --arg ADDR              kernel argument: the reset value of mscratch (default 0)
 *   --max-cycles N          stop after N cycles (exit status 4)
 *   --mem-limit SIZE        guest memory limit, 4K..4G, suffix K, M or G (default 1G)
 * Values may be written "--opt V", "--opt=V", or for short options "-oV".
 * Numbers are decimal or 0x-hex.
 *
 * Exit statuses (DESIGN.md §7), for every program that runs a kernel.
 */
#ifndef VX_CLI_H
#define VX_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "race.h"
#include "symtab.h"
#include "vx_sim.h"

#define VX_EXIT_USAGE 2 /* usage or input error */
#define VX_EXIT_FAULT 3 /* the kernel faulted */
#define VX_EXIT_LIMIT 4 /* a limit (--max-cycles) was reached */
#define VX_EXIT_RACE  5 /* --races found a data race (in a run that otherwise ended with 0) */

typedef struct vx_cli_load {
    char *path; /* owned */
    uint32_t addr;
} vx_cli_load;

/* --dump ADDR:LEN[@CORE]=FILE: memory as core CORE (default 0) sees it, written to FILE
 * after the run. */
typedef struct vx_cli_dump {
    const char *file; /* argv's */
    uint32_t addr;
    uint64_t len;
    uint32_t core; /* global core index: whose local memory 0xFFFF0000.. is */
    FILE *f;       /* open from vx_cli_dumps_open until written or released */
} vx_cli_dump;

typedef struct vx_cli_run {
    vx_sim_config cfg; /* shape, mem_limit, arg */
    vx_cli_load *loads;
    size_t nloads;
    uint64_t max_cycles;
    vx_cli_dump *dumps;
    size_t ndumps;
} vx_cli_run;

/* A file that was put into memory (kept so that a recorder can store it). */
typedef struct vx_cli_blob {
    char *path;
    uint8_t *data;
    size_t len;
    uint32_t addr; /* --load address; for the kernel: its entry point */
} vx_cli_blob;

typedef struct vx_cli_loaded {
    vx_cli_blob kernel;
    vx_image_kind kind;
    vx_cli_blob *loads;
    size_t nloads;
} vx_cli_loaded;

void vx_cli_run_init(vx_cli_run *o);
void vx_cli_run_release(vx_cli_run *o);

/*
 * Try to parse the common option at argv[*i].  Returns 1 when it was one (and
 * *i now indexes its last word), 0 when argv[*i] is not a common option, -1 on
 * a bad value (msg says why, e.g. "--warps: '0' is not a number in 1..511").
 */
int vx_cli_run_option(vx_cli_run *o, int argc, char **argv, int *i, char *msg, size_t cap);

/* The help lines for the common options. */
const char *vx_cli_run_help(void);

/*
 * Create the simulator from the options, load KERNEL (ELF, .vxbin or raw .bin,
 * detected by vx_image_detect) and every --load file.  On error *out is NULL,
 * msg says what failed and on which file, and the status to exit with is 2.
 * loaded (may be NULL) receives the bytes that were loaded; release it with
 * vx_cli_loaded_release.
 */
vx_err vx_cli_setup(const vx_cli_run *o, const char *kernel, vx_sim **out, vx_cli_loaded *loaded,
                    char *msg, size_t cap);
void vx_cli_loaded_release(vx_cli_loaded *l);

/* Read a whole file ("-" is standard input), refusing it (VX_ERR_FORMAT) once more than
 * max bytes have been read; msg: "cannot read 'f': reason" (for one too large, "larger
 * than max bytes (limit)" where limit names the limit). */
vx_err vx_cli_read_file_max(const char *path, uint64_t max, const char *limit, uint8_t **buf,
                            size_t *len, char *msg, size_t cap);

/* Parse a number: decimal or 0x-hex; with sizes, an optional K/M/G suffix (powers of 1024). */
/* Print "PROG: message" and "Try 'PROG --help'." to stderr (a usage error). */
/*
 * At the start of every program: a file grown past the file-size limit (ulimit -f)
 * fails its write with EFBIG, which the program reports like any write error (a
 * trace stays readable up to its last chunk), instead of SIGXFSZ killing it silently;
 * and a closed standard stream (fd 0, 1 or 2) is opened on /dev/null, read-only, so
 * that no file the program opens takes its number (writes to it fail and are reported).
 */
void vx_cli_signals(void);

void vx_cli_usage_error(const char *prog, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

bool vx_cli_parse_u64(const char *s, bool size_suffix, uint64_t *out);
bool vx_cli_parse_u32(const char *s, uint32_t *out);

/*
 * One line describing a fault for the user, e.g.
 * "kernel fault at pc 0x80000010 <main+0x10> (core 0, warp 1, lanes 0x3): misaligned
 *  4-byte load at 0x10002 [lw a0, 0(a1)] (SIGBUS)": the function from syms (may be
 * NULL or empty).
 */
size_t vx_cli_fault_text(const vx_fault *f, const vxd_symtab *syms, char *buf, size_t cap);

/* The function symbols of the kernel loaded (empty for an image without them, or when
 * memory runs out: they are for messages only).  Release with vxd_symtab_release. */
void vx_cli_kernel_symbols(const vx_cli_loaded *l, vxd_symtab *syms);

/*
 * After a run: one note on stderr for each warp that finished inside a divergent
 * region (a vx_split whose vx_join it never reached: lanes masked off there never ran
 * again), "PROG: note: warp C:W finished with N split(s) not joined: ...", the first 8
 * such warps and a count of the rest.  Returns how many warps it found.
 */
uint32_t vx_cli_note_unjoined(const char *prog, const vx_sim *s);

/* Text of a lane mask as hex ("0x3"). */
size_t vx_cli_lanes_text(vx_lanes m, char *buf, size_t cap);

/*
 * FORMAT.md §3.1: a trace of a newer minor version of the trace format than this
 * program reads (major, minor: the file's, vx_trace_header) may hold fields the
 * program does not know, which its reader skips.  Says so in one note on stderr,
 * "PROG: note: PATH is trace format 1.7, newer than this program's 1.1; anything
 * added since 1.1 is skipped"; nothing for any other version.  Returns whether it
 * printed.
 */
bool vx_cli_trace_version_note(const char *prog, const char *path, unsigned major, unsigned minor);

/*
 * Programs that run a kernel: a closed standard output (`| head`) must not kill
 * them by SIGPIPE before they finish (vxrec's trace, vxsim's and vxrec's --dump
 * files); at the end a lost output is
 * reported on stderr (vx_cli_stdout_check: false if it was lost).
 */
void vx_cli_ignore_sigpipe(void);

/* Do paths a and b name one existing file (an output that would overwrite an input)? */
bool vx_cli_same_file(const char *a, const char *b);

/* "standard output" or "standard error" when path (existing) is the file that fd 1 or
 * fd 2 writes to (/dev/stdout, the file stdout was redirected to), else NULL. */
const char *vx_cli_std_stream(const char *path);

/* The file to read for the trace argument arg: arg itself, or for "-" standard input,
 * copied once to an unlinked temporary file (a trace is read with seeks and may be
 * opened more than once).  NULL, with a message printed, when that copy fails. */
const char *vx_cli_trace_file(const char *prog, const char *arg);
/* How messages name the trace argument arg ("standard input" for "-"). */
const char *vx_cli_trace_name(const char *arg);

/* Print s to f as one shell word: as it is when it is made of characters no shell
 * treats specially, else in single quotes (a ' inside as '\''). */
void vx_cli_put_word(FILE *f, const char *s);
/* Do two output paths name one file (the same file, or, for files not there yet, the
 * same canonical path)? */
bool vx_cli_same_output(const char *a, const char *b);

/*
 * POSIX's "--": for argument a, -1 when it is the "--" that ends the options (then
 * *operands is set), 1 when it is an operand (after "--", "-" for standard input, or
 * not starting with '-'), 0 when it is an option.
 */
int vx_cli_operand(const char *a, bool *operands);

/* A comma-separated option value with no empty item: not "", ",x", "x,", "x,,y". */
bool vx_cli_list_ok(const char *s);

/* Write all of buf to fd (again after EINTR); false (errno set) when a write failed. */
bool vx_cli_write_fd(int fd, const uint8_t *buf, size_t len);

/*
 * Write len bytes of buf to path, never over something else: a path that does not
 * exist is created; an existing regular file with the same bytes is left as it is;
 * one with other bytes is replaced only when replace_kernel is set and it is a RISC-V
 * ELF32 (a kernel, as one written out before), otherwise refused; a character device
 * (/dev/null) is written to; anything else is refused, and so is a symbolic link at
 * path (but to a character device): it is not written through.  Every check is made
 * on the descriptor written.  False, with msg, when refused or when writing failed (a
 * file it created or replaced is then removed).
 */
bool vx_cli_write_new_file(const char *path, const uint8_t *buf, size_t len, bool replace_kernel,
                           char *msg, size_t cap);

/*
 * accept()'s errors that pass (the servers' shared rule): a lack of resources (file
 * descriptors, buffers, memory: the client waits in the backlog; try again after
 * VX_CLI_ACCEPT_BACKOFF_MS), and Linux's network errors of one connection, passed on
 * by accept().  Any other is an error of the listening socket itself: no client can
 * be served.
 */
#define VX_CLI_ACCEPT_BACKOFF_MS 100
bool vx_cli_accept_short(int err); /* out of descriptors, buffers or memory */
bool vx_cli_accept_fatal(int err); /* neither short nor of one connection */

/* A monotonic clock in ms (the servers' waits). */
long long vx_cli_now_ms(void);

/* A server listening on addr: unless it is a loopback address, a warning on stderr
 * (prog: ...) that anyone who reaches it can use the server, which has no
 * authentication. */
void vx_cli_warn_exposed(const char *prog, const char *addr);

/* The input of a run (the kernel or a --load file) that path names, or NULL. */
const char *vx_cli_run_input(const vx_cli_run *run, const char *kernel, const char *path);

/* The --dump files: none may be an input of the run or `other` (an output such as a
 * trace; may be NULL).  Prints what is wrong; false then. */
bool vx_cli_dumps_check(const char *prog, const vx_cli_run *run, const char *kernel,
                        const char *other);
/* Before the run: check that every --dump range is readable memory, and open (create,
 * not yet empty) the files, so that a bad range or an unwritable file is reported
 * before the work.  0, or VX_EXIT_USAGE with a message printed. */
int vx_cli_dumps_open(const char *prog, vx_cli_run *run, vx_sim *s);
/* Write the --dump ranges of memory after the run and close the files.  0, or
 * VX_EXIT_USAGE (an unreadable range, a write error) with messages printed. */
int vx_cli_dumps_write(const char *prog, vx_cli_run *run, vx_sim *s);
bool vx_cli_stdout_check(const char *prog, const char *what);
/* The end of a program whose output is its result (--help, a listing): 0 when all of
 * standard output was written, else VX_EXIT_USAGE with "cannot write the output". */
int vx_cli_output_done(const char *prog);
/* Print one line of the kernel's console ("#slot: line") to standard output. */
void vx_cli_console_line(uint32_t slot, const char *line, size_t len);

/* --races' checker for the platform of s; NULL, said on stderr: a platform of more
 * than VXR_MAX_WARPS warps, or no memory. */
vxr *vx_cli_races_new(const char *prog, const vx_sim *s);

/*
 * --races' findings (race.h) on stderr, as vxsim and vxrec --verify print them: each
 * race with its two accesses (event, warp, lane, pc with the function of code and
 * the instruction read from s's memory) and the object of data; then a summary line
 * (traced: the run is a trace's, whose event numbers the reports give).  The number of
 * races reported.
 */
size_t vx_cli_races_report(const char *prog, const vx_sim *s, const vxr *race,
                           const vxd_symtab *code, const vxd_symtab *data, bool traced);

#endif /* VX_CLI_H */
