/*
 * t-dm-server.c - the VxDebug TCP transport (tools/common/dmserver.c) at protocol level.
 *
 * A child process runs vx_dmserver_run on a small hand-encoded kernel and reports
 * the port (on_listen) and the final stop through a pipe; the parent is the
 * debugger.  Covers every command, the batch limit, malformed / unknown / oversized
 * lines, pipelining, disconnect in the middle of a line, sequential and queued
 * clients, "q", running a kernel to its end under the server and the final status.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include "tap.h"
#include "dmserver.h"

#define BASE 0x80000000u

/* DCTRL bits */
#define DA     (1u << 31)
#define NT     (1u << 30)
#define AH     (1u << 29)
#define NH     (1u << 28)
#define AU     (1u << 25)
#define RR     (1u << 1)
#define RHR    (1u << 2)
#define SR     (1u << 3)
#define HC(v)  (((v) >> 9) & 7u)
#define SST(v) (((v) >> 4) & 3u)

/*
 * a0 = 3; loop: a0 += 1 (3 times, through a1); ebreak; a0 += 10; exit code a0.
 *   0x00 addi a0, x0, 3
 *   0x04 addi a1, x0, 3
 *   0x08 addi a0, a0, 1
 *   0x0c addi a1, a1, -1
 *   0x10 bne  a1, x0, -8
 *   0x14 ebreak
 *   0x18 addi a0, a0, 10
 *   0x1c sw   a0, 0x88(x0)
 *   0x20 tmc  x0
 * Exit code 3 + 3 + 10 = 16.
 */
static const uint32_t prog[] = {
    0x00300513, 0x00300593, 0x00150513, 0xfff58593, 0xfe059ce3,
    0x00100073, 0x00a50513, 0x08a02423, 0x0000000b,
};

static int port_pipe[2], final_pipe[2];
static pid_t child;

static void on_listen(void *ctx, const char *bind, unsigned port)
{
    (void)ctx, (void)bind;
    uint32_t p = port;
    if (write(port_pipe[1], &p, sizeof p) != (ssize_t)sizeof p) _exit(90);
}

static void serve_child(void)
{
    vx_sim_config cfg = VX_SIM_CONFIG_INIT;
    vx_sim *sim = NULL;
    if (vx_sim_new(&cfg, &sim) != VX_OK) _exit(91);
    uint8_t bytes[sizeof prog];
    for (size_t i = 0; i < VX_ARRAY_SIZE(prog); i++)
        vx_put_le32(bytes + 4 * i, prog[i]);
    if (vx_sim_mem_write(sim, 0, BASE, bytes, sizeof bytes) != VX_OK) _exit(92);
    vx_sim_reset(sim);
    vx_dmserver_opts opts = {"127.0.0.1", 0, on_listen, NULL, NULL, NULL};
    vx_stop final;
    char msg[256];
    vx_err e = vx_dmserver_run(sim, &opts, &final, msg, sizeof msg);
    uint32_t out[3] = {(uint32_t)-e, final.reason, final.exit_code};
    if (write(final_pipe[1], out, sizeof out) != (ssize_t)sizeof out) _exit(93);
    vx_sim_free(sim);
    _exit(0);
}

/* ---- a tiny client ----------------------------------------------------------------------- */

static unsigned port;

static int conn(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct timeval tv = {20, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        diag("connect: %s", strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

static void sendall(int fd, const char *s, size_t n)
{
    while (n) {
        ssize_t k = send(fd, s, n, MSG_NOSIGNAL);
        if (k <= 0) return;
        s += k;
        n -= (size_t)k;
    }
}

/* One reply line (without '\n') into buf; "" on timeout or EOF. */
static const char *getline_fd(int fd, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    while (n + 1 < cap) {
        char c;
        ssize_t k = recv(fd, &c, 1, 0);
        if (k <= 0) break;
        if (c == '\n') break;
        buf[n++] = c;
    }
    buf[n] = '\0';
    return buf;
}

static char rbuf[512];

static const char *cmd(int fd, const char *line)
{
    sendall(fd, line, strlen(line));
    sendall(fd, "\n", 1);
    return getline_fd(fd, rbuf, sizeof rbuf);
}

static uint32_t rdreg(int fd, uint32_t a)
{
    char l[32];
    snprintf(l, sizeof l, "r%04x", a);
    const char *r = cmd(fd, l);
    if (r[0] != '+') {
        diag("read %x: '%s'", a, r);
        return 0xDEADBEEF;
    }
    return (uint32_t)strtoul(r + 1, NULL, 16);
}

static int wrreg(int fd, uint32_t a, uint32_t v)
{
    char l[32];
    snprintf(l, sizeof l, "w%04x:%08x", a, v);
    return strcmp(cmd(fd, l), "+") == 0;
}

/* Poll DCTRL until (v & mask) == want, at most n times. */
static uint32_t poll_dctrl(int fd, uint32_t mask, uint32_t want, int n)
{
    uint32_t v = 0;
    while (n-- > 0) {
        v = rdreg(fd, VX_DM_DCTRL);
        if ((v & mask) == want) break;
        usleep(1000);
    }
    return v;
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    if (pipe(port_pipe) || pipe(final_pipe)) tap_bail("pipe");
    child = fork();
    if (child < 0) tap_bail("fork");
    if (child == 0) serve_child();
    alarm(120); /* never hang the suite */
    uint32_t p = 0;
    if (read(port_pipe[0], &p, sizeof p) != (ssize_t)sizeof p) tap_bail("no port from the server");
    port = p;
    ok(port > 0 && port < 65536, "server listens on a port chosen by the system (%u)", port);

    int fd = conn();
    if (fd < 0) tap_bail("cannot connect");
    is_str(cmd(fd, "p"), "+P", "p -> +P");
    is_str(cmd(fd, "r0000"), "+10201022", "r0000 -> PLATFORM of 1x1x4x4 (8 hex digits)");
    is_str(cmd(fd, "r0"), "+10201022", "1-digit address accepted");
    is_str(cmd(fd, "R0,0,0"), "+10201022,10201022,10201022", "batch read of 3");
    is_str(cmd(fd, "r0006"), "+00000000", "DCTRL reads 0 before activation");

    /* malformed input */
    is_str(cmd(fd, ""), "-", "empty line -> -");
    is_str(cmd(fd, "x"), "-", "unknown command -> -");
    is_str(cmd(fd, "pp"), "-", "p with trailing junk -> -");
    is_str(cmd(fd, "r000d"), "-", "read of address 0xD -> -");
    is_str(cmd(fd, "rffff"), "-", "read of address 0xFFFF -> -");
    is_str(cmd(fd, "r00000"), "-", "5-digit address -> -");
    is_str(cmd(fd, "rzz"), "-", "non-hex address -> -");
    is_str(cmd(fd, "r"), "-", "r without address -> -");
    is_str(cmd(fd, "w0002"), "-", "w without value -> -");
    is_str(cmd(fd, "w0002:"), "-", "w with empty value -> -");
    is_str(cmd(fd, "w0002:123456789"), "-", "9-digit value -> -");
    is_str(cmd(fd, "w0002;00000001"), "-", "w with ';' -> -");
    is_str(cmd(fd, "w0002:0000000g"), "-", "non-hex value -> -");
    is_str(cmd(fd, "R"), "-", "empty batch read -> -");
    is_str(cmd(fd, "R0,"), "-", "batch read with a trailing comma -> -");
    is_str(cmd(fd, "R0,1,2,3,4,5,6,7,8"), "-", "batch read of 9 -> -");
    is_str(cmd(fd, "R0,1,2,3,4,5,6,d"), "-", "batch read with a bad address -> -");
    is_str(cmd(fd, "W2,3,4,2,3,4,2,3,2;1,1,1,1,1,1,1,1,1"), "-", "batch write of 9 -> -");
    is_str(cmd(fd, "W2,3;1"), "-", "batch write with 2 addresses and 1 value -> -");
    char big[3000];
    memset(big, 'r', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    is_str(cmd(fd, big), "-", "oversized line (2999 bytes) -> -");
    sendall(fd, "p\0x\n", 4);
    is_str(getline_fd(fd, rbuf, sizeof rbuf), "-", "line with a NUL byte -> -");
    is_str(cmd(fd, "p\r"), "+P", "CRLF line ending accepted");
    is_str(cmd(fd, "R0000"), "+10201022", "connection still usable after bad input");

    /* activation and writes */
    is_str(cmd(fd, "w0006:80000000"), "+", "w0006:80000000 -> + (dmactive)");
    ok(rdreg(fd, VX_DM_DCTRL) & DA, "dmactive set");
    is_str(cmd(fd, "W0002,0008;00000080,00000013"), "+", "batch write of 2 (';')");
    is_str(cmd(fd, "R2,8"), "+00000080,00000013", "batch write took effect");
    is_str(cmd(fd, "W8:00000017"), "+", "batch write with ':' separator accepted");
    is_str(cmd(fd, "r8"), "+00000017", "... and took effect");
    is_str(cmd(fd, "W2,8,d;1,2,3"), "-", "batch write with a bad address -> -");
    is_str(cmd(fd, "R2,8"), "+00000080,00000017", "... and had no effect at all");
    is_str(cmd(fd, "W2,2,2,2,2,2,2,3;1,2,3,4,5,6,7,0000000F"), "+", "batch write of 8");
    is_str(cmd(fd, "R2,3"), "+00000007,0000000f", "batch of 8 applied in order");
    is_str(cmd(fd, "R0,1,2,3,4,5,6,7"),
           "+10201022,88000000,00000007,0000000f,00000001,00000000,8d000000,80000000",
           "batch read of 8: PLATFORM DCONFIG DSELECT WMASK WACTIVE WSTATUS DCTRL DPC");
    wrreg(fd, VX_DM_DSELECT, 0);

    /* pipelining: several commands in one segment, replies in order */
    sendall(fd, "p\nr0\nx\nr0008\n", 13);
    int pipe_ok = 1;
    pipe_ok &= strcmp(getline_fd(fd, rbuf, sizeof rbuf), "+P") == 0;
    pipe_ok &= strcmp(getline_fd(fd, rbuf, sizeof rbuf), "+10201022") == 0;
    pipe_ok &= strcmp(getline_fd(fd, rbuf, sizeof rbuf), "-") == 0;
    pipe_ok &= strcmp(getline_fd(fd, rbuf, sizeof rbuf), "+00000017") == 0;
    ok(pipe_ok, "4 pipelined commands answered in order");

    /* many commands without reading the replies: the server's bounded output buffer
     * must not lose or reorder any (20000 replies = 60000 bytes) */
    {
        enum {
            NCMD = 20000
        };

        char *many = malloc(2 * NCMD);
        for (int i = 0; i < NCMD; i++)
            many[2 * i] = 'p', many[2 * i + 1] = '\n';
        sendall(fd, many, 2 * NCMD);
        free(many);
        int good = 0;
        for (int i = 0; i < NCMD; i++) {
            int g = strcmp(getline_fd(fd, rbuf, sizeof rbuf), "+P") == 0;
            if (!g) diag("reply %d: '%s'", i, rbuf);
            good += g;
        }
        is_int(good, NCMD, "20000 pipelined commands, all answered");
    }

    /* random garbage: one reply per line, never a crash */
    {
        uint32_t seed = 1;
        char junk[8192];
        int lines = 0;
        for (size_t i = 0; i < sizeof junk; i++) {
            seed = seed * 1103515245u + 12345u;
            junk[i] = (char)(seed >> 16);
            if (junk[i] == '\n') lines++;
        }
        junk[sizeof junk - 1] = '\n';
        lines++;
        sendall(fd, junk, sizeof junk);
        int replies = 0, bad = 0;
        for (int i = 0; i < lines; i++) {
            const char *r = getline_fd(fd, rbuf, sizeof rbuf);
            replies++;
            if (r[0] != '-' && r[0] != '+') bad++;
        }
        ok(replies == lines && bad == 0, "8 KiB of random bytes: %d lines, each answered", lines);
        is_str(cmd(fd, "p"), "+P", "server alive after the garbage");
        wrreg(fd, VX_DM_DCTRL, DA); /* the garbage may have written anything: restore */
        wrreg(fd, VX_DM_DSELECT, 0);
        wrreg(fd, VX_DM_INJECT, 0x17);
    }

    /* disconnect in the middle of a line; reconnect */
    sendall(fd, "w0002:1234", 10);
    close(fd);
    fd = conn();
    is_str(cmd(fd, "p"), "+P", "reconnect after a disconnect mid-line");
    is_str(cmd(fd, "r2"), "+00000000", "the half line had no effect; DM state kept across clients");
    ok(rdreg(fd, VX_DM_DCTRL) & DA, "dmactive kept across clients");

    /* a second client waits until the first one leaves */
    int fd2 = conn();
    sendall(fd2, "p\n", 2);
    is_str(cmd(fd, "q"), "+", "q -> +");
    char b2[64];
    is_str(getline_fd(fd2, b2, sizeof b2), "+P", "queued client served after the first quit");
    char eof[8];
    ok(recv(fd, eof, sizeof eof, 0) == 0, "server closed the connection after q");
    close(fd);
    fd = fd2;

    /* reset with halt before start, then start */
    wrreg(fd, VX_DM_WMASK, 0xF);
    wrreg(fd, VX_DM_DCTRL, DA | RHR | NT);
    uint32_t d = poll_dctrl(fd, NT, 0, 10);
    ok(!(d & NT), "ndmreset cleared within 10 polls");
    ok((d & AH) && HC(d) == 4, "reset-halt: allhalted, hacause RESETHALTREQ");
    is_str(cmd(fd, "s"), "+", "s -> +");
    usleep(20000);
    is_u32(rdreg(fd, VX_DM_DPC), BASE, "halted at the first instruction after s");
    /* step twice: a0 = 3, a1 = 3 */
    wrreg(fd, VX_DM_DCTRL, DA | SR);
    d = poll_dctrl(fd, 3u << 4, 0, 10);
    is_u32(SST(d), 0, "step completed (stepstate NONE)");
    is_u32(rdreg(fd, VX_DM_DPC), BASE + 4, "DPC after one step");
    /* ebreak halts; run */
    wrreg(fd, VX_DM_DCONFIG, 0x88000001);
    wrreg(fd, VX_DM_DCTRL, DA | RR);
    d = poll_dctrl(fd, NH, NH, 2000);
    ok(d & NH, "anyhalted after resume (ebreak)");
    is_u32(HC(d), 1, "hacause EBREAK");
    is_u32(rdreg(fd, VX_DM_DPC), BASE + 0x14, "DPC = ebreak address");
    wrreg(fd, VX_DM_DPC, BASE + 0x18);
    wrreg(fd, VX_DM_DCTRL, DA | RR);
    d = poll_dctrl(fd, AU, AU, 2000);
    ok(d & AU, "kernel ended: allunavail");
    is_str(cmd(fd, "r0000"), "+10201022", "still answering after the kernel ended");
    close(fd);

    uint32_t fin[3] = {99, 0, 0};
    if (read(final_pipe[0], fin, sizeof fin) != (ssize_t)sizeof fin) diag("no final status");
    is_u32(fin[0], 0, "vx_dmserver_run returned VX_OK once the client left");
    is_u32(fin[1], VX_STOP_EXIT, "final: VX_STOP_EXIT");
    is_u32(fin[2], 16, "final exit code 16 (3 + 3 + 10)");
    int status = 0;
    waitpid(child, &status, 0);
    ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "server process exited cleanly");
    return tap_exit();
}
