#!/usr/bin/env python3
"""t2003: device runtime behaviour: vx_printf formatting (against Python's own %
formatting), exit status rules (max over cores, exit() from main and from a lane,
negative codes, the word at 0x88), the kernel argument in mscratch, malloc/sbrk
and picolibc's stdio on the console, and vx_printf from more than 64 harts (shared
console slots)."""
import math
import os
import re
import struct
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
import vxtest  # noqa: E402

LINE = re.compile(r"^#(\d+): (.*)$")

FMT_C = r"""
#include <limits.h>
#include <stddef.h>
#include <vx_intrinsics.h>
#include <vx_print.h>
int main(void)
{
    if (vx_core_id() != 0)
        return 0;
    vx_printf("[%d] [%i] [%d] [%d]\n", 0, -42, INT_MIN, INT_MAX);
    vx_printf("[%5d] [%-5d] [%05d] [%+d] [% d] [%+05d] [%5.3d]\n", 42, 42, -42, 7, 7, 7, 7);
    vx_printf("[%u] [%x] [%X] [%#x] [%o]\n", 4294967295u, 0xbeefu, 0xbeefu, 255u, 8u);
    vx_printf("[%lld] [%llu] [%llx] [%ld] [%lu]\n", -1234567890123LL,
              18446744073709551615ULL, 0x123456789abcdefULL, -5L, 5UL);
    vx_printf("[%c%c] [%s] [%.3s] [%10s] [%-10s]\n", 'o', 'k', "text", "abcdef", "right", "left");
    vx_printf("[%*d] [%-*d] [%.*s] [%%]\n", 6, 1, 6, 2, 2, "xyz");
    vx_printf("[%f] [%.2f] [%8.3f] [%-8.1f] [%+.1f] [%.0f] [%f]\n", 3.25, 0.1, -1.0626, 2.74,
              1.0, 7.0, -0.0);
    vx_printf("[%e] [%.2e] [%E] [%g] [%g] [%g] [%G]\n", 12345.678, 0.00042, 1e-10, 0.0001234,
              123456789.0, 100.0, 1e20);
    vx_printf("[%f] [%f] [%F] [%f]\n", __builtin_inf(), -__builtin_inf(), __builtin_nan(""),
              1.5f);
    /* where C and Python differ: written out below */
    char *volatile null_str = 0;
    vx_printf("[%#o] [%#X] [%hhd] [%hd] [%hhu] [%zu] [%s] [%p] [%p] [%5.1f]\n", 8u, 0u, 261,
              70000, 257, (size_t)12, null_str, (void *)0x1234, (void *)0, 1e30);
    vx_putint(-255, 10);
    vx_putchar('\n');
    vx_putint(255, 16);
    vx_putchar('\n');
    vx_putfloat(2.5f, 3);
    vx_putchar('\n');
    return 0;
}
"""

FMT_PY = [
    "[%d] [%i] [%d] [%d]" % (0, -42, -2**31, 2**31 - 1),
    "[%5d] [%-5d] [%05d] [%+d] [% d] [%+05d] [%5.3d]" % (42, 42, -42, 7, 7, 7, 7),
    "[%u] [%x] [%X] [%#x] [%o]" % (4294967295, 0xbeef, 0xbeef, 255, 8),
    "[%d] [%d] [%x] [%d] [%d]" % (-1234567890123, 18446744073709551615, 0x123456789abcdef,
                                  -5, 5),
    "[%c%c] [%s] [%.3s] [%10s] [%-10s]" % ("o", "k", "text", "abcdef", "right", "left"),
    "[%*d] [%-*d] [%.*s] [%%]" % (6, 1, 6, 2, 2, "xyz"),
    "[%f] [%.2f] [%8.3f] [%-8.1f] [%+.1f] [%.0f] [%f]" % (3.25, 0.1, -1.0626, 2.74, 1.0, 7.0,
                                                          -0.0),
    "[%e] [%.2e] [%E] [%g] [%g] [%g] [%G]" % (12345.678, 0.00042, 1e-10, 0.0001234,
                                               123456789.0, 100.0, 1e20),
    "[%f] [%f] [%F] [%f]" % (float("inf"), float("-inf"), float("nan"), 1.5),
    # C: %#o adds one leading 0, %#X of 0 has no prefix, hh/h truncate, NULL %s is
    # "(null)", %p is 0x + hex; large %f values switch to exponent form (documented).
    "[010] [0] [5] [4464] [1] [12] [(null)] [0x1234] [0x0] [%5.1f]" % 1e30,
    "-255",
    "ff",
    "2.500",
]

EXIT_C = r"""
#include <stdlib.h>
#include <vx_intrinsics.h>
#include <vx_spawn.h>
#include <vx_print.h>
__attribute__((unused)) static void cb(void *arg)
{
    (void)arg;
    int tok = vx_split(blockIdx.x == 5);
    if (blockIdx.x == 5)
        exit(9);
    vx_join(tok);
}
int main(void)
{
    __attribute__((unused)) int core = vx_core_id();
#if MODE == 1
    return (core + 1) * 3;
#elif MODE == 2
    if (core == 1)
        exit(7);
    return 0;
#elif MODE == 3
    uint32_t n = 16;
    vx_spawn_threads(1, &n, 0, cb, 0);
    vx_printf("main goes on after a lane's exit\n");
    return 0;
#elif MODE == 4
    return -1;
#elif MODE == 5 /* prints the host's words at 0x80..0x8c, then core c returns CODE * c */
    uintptr_t at = IO_MPM_ADDR;
    __asm__("" : "+r"(at)); /* GCC takes a small constant address for a null pointer */
    const volatile unsigned *io = (const volatile unsigned *)at;
    if (core == 0)
        vx_printf("%x %x %x %x\n", io[0], io[1], io[2], io[3]);
    return CODE * core;
#endif
}
"""

ARG_C = r"""
#include <vx_intrinsics.h>
#include <vx_spawn.h>
#include <vx_print.h>
static void cb(void *arg) { (void)arg; }
int main(void)
{
    size_t before = csr_read(VX_CSR_MSCRATCH);
    uint32_t n = 40;
    vx_spawn_threads(1, &n, 0, cb, 0);
    size_t after = csr_read(VX_CSR_MSCRATCH);
    if (vx_core_id() == 0)
        vx_printf("arg=0x%x after=0x%x word=0x%x\n", (unsigned)before, (unsigned)after,
                  *(volatile unsigned *)before);
    return 0;
}
"""

MALLOC_C = r"""
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vx_intrinsics.h>
#include <vx_print.h>
extern char __vx_tls_area[], __vx_tls_block[];
int main(void)
{
    if (vx_core_id() != 0)
        return 0;
    uint32_t harts = vx_num_cores() * vx_num_warps() * vx_num_threads();
    uintptr_t lo = (uintptr_t)__vx_tls_area + harts * (uintptr_t)__vx_tls_block;
    uintptr_t hi = STACK_BASE_ADDR - (harts << STACK_LOG2_SIZE);
    char *a = malloc(1000), *b = malloc(5000);
    int errors = !a || !b;
    errors += (uintptr_t)a < lo || (uintptr_t)b + 5000 > hi;
    memset(a, 0x5a, 1000);
    memset(b, 0xa5, 5000);
    for (int i = 0; i < 1000; i++)
        errors += a[i] != 0x5a;
    free(a);
    free(b);
    errors += malloc(0x7fffffff) != 0; /* more than there is: refused */
    puts("picolibc puts");
    printf("picolibc printf %d %s\n", 42, "ok");
    vx_printf("malloc errors %d\n", errors);
    return errors;
}
"""


STARTUP_CPP = r"""
#include <vx_intrinsics.h>
#include <vx_print.h>
static unsigned ctor_runs;                 // .bss: cleared before constructors run
static unsigned early[64];                 // .bss: written by each core as main starts
static volatile unsigned ready = 1;        // .data
struct Counter { Counter() { __atomic_fetch_add(&ctor_runs, 1, __ATOMIC_RELAXED); } };
static Counter counter;
int main()
{
    unsigned core = vx_core_id(), n = vx_num_cores();
    early[core] = core + 1;                // must survive core 0's BSS clearing
    if (n > 1)
        vx_barrier(0x80000000, n);
    if (core != 0)
        return 0;
    unsigned bad = 0;
    for (unsigned c = 0; c < n; c++)
        bad += early[c] != c + 1;
    vx_printf("ctors %u early-bad %u ready %u\n", ctor_runs, bad, ready);
    return bad + (ctor_runs != 1);
}
"""


# BSS is cleared by every hart at start-up (crt0.S); the test fills memory with
# garbage over the whole BSS range first, so a word left uncleared shows.
BSS_C = r"""
#include <vx_intrinsics.h>
#include <vx_print.h>
/* external and read through volatile, so the compiler cannot assume zeros */
unsigned big[1001];            /* a word count that is no multiple of the harts */
unsigned char tail[3];         /* odd-sized object at the end */
int main(void)
{
    if (vx_core_id() != 0)
        return 0;
    unsigned bad = 0;
    for (unsigned i = 0; i < 1001; i++)
        bad += ((volatile unsigned *)big)[i] != 0;
    for (unsigned i = 0; i < 3; i++)
        bad += ((volatile unsigned char *)tail)[i] != 0;
    vx_printf("bss-bad %u\n", bad);
    return bad != 0;
}
"""


# A Vortex v2.x regression-test style kernel: the host puts a kernel_arg_t and the
# buffers in memory and passes the argument's address in mscratch.
VORTEX_CPP = r"""
#include <vx_spawn.h>
#include <VX_config.h>
typedef struct {
    uint32_t grid_dim[2];
    uint32_t size;
    uint64_t A_addr, B_addr, C_addr;
} kernel_arg_t;
void kernel_body(kernel_arg_t *__UNIFORM__ arg)
{
    auto A = reinterpret_cast<float *>(arg->A_addr);
    auto B = reinterpret_cast<float *>(arg->B_addr);
    auto C = reinterpret_cast<float *>(arg->C_addr);
    auto col = blockIdx.x;
    auto row = blockIdx.y;
    float sum = 0;
    for (uint32_t e = 0; e < arg->size; ++e)
        sum += A[row * arg->size + e] * B[e * arg->size + col];
    C[row * arg->size + col] = sum;
}
int main()
{
    kernel_arg_t *arg = (kernel_arg_t *)csr_read(VX_CSR_MSCRATCH);
    return vx_spawn_threads(2, arg->grid_dim, nullptr, (vx_kernel_func_cb)kernel_body, arg);
}
"""


SHFL_C = r"""
#include <vx_print.h>
#include <vx_spawn.h>
#define NCASE 6
static const int cases[NCASE][3] = {{1, 7, 0}, {2, 3, 4}, {1, 3, 4}, {3, 7, 0}, {5, 1, 6}, {0, 3, 12}};
static unsigned out[4][NCASE][32];
static void cb(void *arg)
{
    (void)arg;
    unsigned lane = vx_thread_id(), v = 100 + lane;
    for (int k = 0; k < NCASE; k++) {
        int b = cases[k][0], c = cases[k][1], m = cases[k][2];
        out[0][k][lane] = vx_shfl_up(v, b, c, m);
        out[1][k][lane] = vx_shfl_down(v, b, c, m);
        out[2][k][lane] = vx_shfl_bfly(v, b, c, m);
        out[3][k][lane] = vx_shfl_idx(v, b, c, m);
    }
}
int main(void)
{
    uint32_t n = NTASKS;
    vx_spawn_threads(1, &n, 0, cb, 0);
    for (int op = 0; op < 4; op++)
        for (int k = 0; k < NCASE; k++) {
            vx_printf("%d %d:", op, k);
            for (unsigned t = 0; t < NTASKS; t++)
                vx_printf(" %u", out[op][k][t]);
            vx_printf("\n");
        }
    return 0;
}
"""
SHFL_CASES = [(1, 7, 0), (2, 3, 4), (1, 3, 4), (3, 7, 0), (5, 1, 6), (0, 3, 12)]


def shfl_model(op, b, c, m, nt, active):
    """Research notes section 1.3: source lane per op, segment [minLane, maxLane]; an
    out-of-segment source keeps the lane's own value, an inactive source reads 0.
    (A clamp reaching past the last lane of the warp is undefined in Vortex: the
    cases keep c below NT.)"""
    res = []
    for t in range(nt):
        if t not in active:
            continue
        minl, maxl = t & m, (t & m) | (c & ~m)
        if op == 0:
            src, ok = t - b, t - b >= minl
        elif op == 1:
            src, ok = t + b, t + b <= maxl
        elif op == 2:
            src, ok = t ^ b, (t ^ b) <= maxl
        else:
            src = minl | (b & ~m)
            ok = src <= maxl
        if not ok:
            src = t
        res.append(100 + src if src in active else 0)
    return res


def console(stdout):
    return [(int(m.group(1)), m.group(2)) for m in map(LINE.match, stdout.splitlines()) if m]


class Runtime(unittest.TestCase):
    def setUp(self):
        for p in ("vxsim", "vxcc"):
            if not os.path.exists(vxtest.prog(p)):
                self.skipTest(p + " not built")
        self.tmp = vxtest.tmpdir()

    def build(self, name, text=None, src=None, flags=(), ext=".c"):
        """vxcc -O2 -Wall -Werror: src, or text written to NAME.c (NAME.cpp: ext)"""
        if src is None:
            src = os.path.join(self.tmp, name + ext)
            with open(src, "w") as f:
                f.write(text)
        out = os.path.join(self.tmp, name + ".elf")
        r = vxtest.run([vxtest.prog("vxcc"), "-O2", "-Wall", "-Werror", "-o", out, src] +
                       list(flags))
        if r.returncode != 0 and "not found" in r.stderr:
            self.skipTest("RISC-V toolchain missing")
        self.assertEqual(r.returncode, 0, r.stderr)
        return out

    def vxsim(self, elf, shape=(1, 1, 4, 4), extra=()):
        c, k, w, t = shape
        return vxtest.run([vxtest.prog("vxsim"), "-C", str(c), "-c", str(k), "-w", str(w),
                           "-t", str(t)] + list(extra) + [elf])

    def test_printf_formats(self):
        """vx_printf conversions, flags, widths, precisions and lengths match C"""
        elf = self.build("fmt", FMT_C)
        r = self.vxsim(elf)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(console(r.stdout), [(0, s) for s in FMT_PY])

    def test_printf_float_exact(self):
        """vx_printf of doubles: exact digits, round half to even, %g's exponent after
        rounding, huge and subnormal values (against Python's own formatting)"""
        import random
        import struct as st
        rnd = random.Random(7)
        values = [0.15, 0.5, 1.5, 2.5, 0.125, 0.375, 100.5, 9.999999, 0.9999995, 0.45, 0.05,
                  1 / 3, 2 / 3, 9.5, 99.5, 999999.5, 1e-5, 1e19, 1e22, 1e23, 123456789.125,
                  5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 0.1, 0.0, -0.0,
                  -2.5, 1e-300, 9.9999e-5, 0.00001234, 123.456, 4503599627370496.5,
                  float(st.unpack("<f", st.pack("<f", 0.1))[0]), 65504.0, 1e15 + 0.3]
        values += [rnd.uniform(-1e6, 1e6) for _ in range(12)]
        values += [st.unpack("<d", st.pack("<Q", rnd.getrandbits(63)))[0] for _ in range(8)]
        fmts = ["%.0f", "%.1f", "%.2f", "%.3f", "%f", "%.17f", "%.40f", "%e", "%.0e", "%.3e",
                "%.16e", "%g", "%.1g", "%.3g", "%.17g", "%#g", "%#.3g", "%G", "%+.2f",
                "%012.3f", "%-14.2e|", "%#.0f", "%#.0e", "%a"]
        fmt = " ".join("[" + f + "]" for f in fmts)
        words = ",".join("0x%016xull" % st.unpack("<Q", st.pack("<d", v))[0] for v in values)
        src = (
            "#include <stdint.h>\n#include <vx_print.h>\n"
            "static const uint64_t w[] = {%s};\n"
            "int main(void) {\n"
            "    for (unsigned i = 0; i < sizeof w / sizeof w[0]; i++) {\n"
            "        union { uint64_t u; double d; } x = {w[i]};\n"
            "        double d = x.d;\n"
            "        vx_printf(\"%s\\n\", %s);\n"
            "    }\n"
            "    return 0;\n}\n" % (words, fmt, ", ".join(["d"] * len(fmts))))
        elf = self.build("fexact", src)
        r = self.vxsim(elf, (1, 1, 1, 1))
        self.assertEqual(r.returncode, 0, r.stderr)
        got = [t for _, t in console(r.stdout)]
        def hexa(v):
            """C's %a (glibc): float.hex without the mantissa's trailing zeros"""
            h = float.hex(v)
            if "p" not in h:
                return h
            mant, exp = h.split("p")
            if "." in mant:
                mant = mant.rstrip("0").rstrip(".")
            return mant + "p" + exp
        want = [fmt.replace("%a", "%s") % ((v,) * (len(fmts) - 1) + (hexa(v),)) for v in values]
        self.assertEqual(len(got), len(want))
        for v, g, w_ in zip(values, got, want):
            self.assertEqual(g, w_, repr(v))

    def test_assert_and_abort(self):
        """assert links; a failing one prints its message and stops the kernel at abort
        (an ebreak fault, exit 3), in a spawned warp's lane too, also when only some
        lanes fail; raise does the same; NDEBUG removes it"""
        src = (
            "#include <assert.h>\n#include <signal.h>\n#include <vx_print.h>\n"
            "#include <vx_spawn.h>\n"
            "static volatile int three = 3;\n"
            "static void cb(void *arg) {\n"
            "    (void)arg;\n"
            "    assert(three == 3);\n"
            "    if (MODE == 2) assert(blockIdx.x * 0 + three == 2);\n"
            "    if (MODE == 4) assert(blockIdx.x != 5); /* fails in one lane only */\n"
            "}\n"
            "int main(void) {\n"
            "    uint32_t n = 8;\n"
            "    vx_spawn_threads(1, &n, 0, cb, 0);\n"
            "    vx_printf(\"spawned\\n\");\n"
            "    if (MODE == 1) assert(three == 2);\n"
            "    if (MODE == 3) raise(SIGABRT);\n"
            "    vx_printf(\"end\\n\");\n"
            "    return 0;\n}\n")
        results = {}
        for mode in (0, 1, 2, 3, 4):
            elf = self.build("assert%d" % mode, src, flags=["-DMODE=%d" % mode])
            r = vxtest.run(["riscv64-unknown-elf-nm", elf])
            abort = [int(ln.split()[0], 16) for ln in r.stdout.splitlines()
                     if ln.split()[-1] == "abort"][0]
            r = self.vxsim(elf)
            results[mode] = (r.returncode, [t for _, t in console(r.stdout)], r.stderr, abort)
        self.assertEqual(results[0][:2], (0, ["spawned", "end"]))
        for mode in (1, 2, 3, 4):
            code, lines, err, abort = results[mode]
            self.assertEqual(code, 3, err)
            self.assertIn("ebreak", err)
            m = re.search(r"fault at pc 0x([0-9a-f]+) <abort(\+0x[0-9a-f]+)?> "
                          r"in \S*vx_syscalls\.c:\d+ \(core", err)
            self.assertTrue(m and abort <= int(m.group(1), 16) < abort + 8, err)
            self.assertNotIn("end", lines)
        # vxrec names the function too (from the image it records)
        if os.path.exists(vxtest.prog("vxrec")):
            r = vxtest.run([vxtest.prog("vxrec"), "-q", "-f", "-C", "1", "-c", "1", "-w", "4",
                            "-t", "4", os.path.join(self.tmp, "assert1.elf"), "-o",
                            os.path.join(self.tmp, "assert1.vxt")])
            self.assertEqual(r.returncode, 3, r.stderr)
            self.assertRegex(r.stderr, r"fault at pc 0x[0-9a-f]+ <abort(\+0x[0-9a-f]+)?> "
                             r"in \S*vx_syscalls\.c:\d+ \(core")
        self.assertIn('assertion "three == 2" failed', " ".join(results[1][1]))
        self.assertEqual(results[1][1][0], "spawned")
        self.assertTrue(any('assertion "blockIdx.x * 0 + three == 2" failed' in t
                            for t in results[2][1]), results[2][1])
        self.assertNotIn("spawned", results[2][1])        # the kernel stopped in the callback
        self.assertEqual(results[3][1], ["spawned"])
        # a lane-dependent assert (a divergent branch for GCC): the failing lane is split
        # off and reports; 8 tasks on 4 warps x 4 lanes: task 5 is warp 1, lane 1
        self.assertEqual([t for t in results[4][1] if "assertion" in t],
                         ['assertion "blockIdx.x != 5" failed: file "%s", line 10, function: cb'
                          % os.path.join(self.tmp, "assert4.c")])
        self.assertIn("(core 0, warp 1, lanes 0x2)", results[4][2])
        # NDEBUG: no check at all
        elf = self.build("assert_nd", src, flags=["-DMODE=4", "-DNDEBUG"])
        r = self.vxsim(elf)
        self.assertEqual((r.returncode, [t for _, t in console(r.stdout)]), (0, ["spawned", "end"]))

    def test_signal_and_raise(self):
        """signal and raise: a handler runs once with its signal number, then the default
        comes back; SIG_IGN ignores; raise of a signal with the default action stops the
        kernel at abort (exit 3); signal answers SIG_ERR for a bad number"""
        src = (
            "#include <errno.h>\n#include <signal.h>\n#include <vx_print.h>\n"
            "static volatile int got;\n"
            "static void on(int sig) { got = sig; }\n"
            "int main(void) {\n"
            "    vx_printf(\"old %d\\n\", signal(SIGUSR1, on) == SIG_DFL);\n"
            "    vx_printf(\"raise %d got %d\\n\", raise(SIGUSR1), got == SIGUSR1);\n"
            "    vx_printf(\"back %d\\n\", signal(SIGUSR1, SIG_IGN) == SIG_DFL);\n"
            "    vx_printf(\"ign %d\\n\", raise(SIGUSR1));\n"
            "    vx_printf(\"bad %d %d\\n\", signal(99, on) == SIG_ERR, errno == EINVAL);\n"
            "    raise(SIGTERM);\n"
            "    vx_printf(\"end\\n\");\n"
            "    return 0;\n}\n")
        elf = self.build("signal", src)
        r = self.vxsim(elf)
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("ebreak", r.stderr)
        self.assertEqual([t for _, t in console(r.stdout)],
                         ["old 1", "raise 0 got 1", "back 1", "ign 0", "bad 1 1"])

    def test_printf_hex_float(self):
        """%a and %A with precisions (rounded to even), flags and widths; values by hand"""
        cases = [("%.0a", "1.5", "0x2p+0"), ("%.0a", "2.5", "0x1p+1"), ("%.0a", "1.0", "0x1p+0"),
                 ("%.1a", "1.0", "0x1.0p+0"), ("%.2a", "0.1", "0x1.9ap-4"),
                 ("%.1a", "1.96875", "0x2.0p+0"), ("%A", "0.1", "0X1.999999999999AP-4"),
                 ("%012a", "1.0", "0x0000001p+0"), ("%.3a", "0.0", "0x0.000p+0"),
                 ("%#.0a", "1.0", "0x1.p+0"), ("%a", "-0.0", "-0x0p+0"),
                 ("%+.1a", "-3.0", "-0x1.8p+1"), ("%.15a", "1.0", "0x1.000000000000000p+0"),
                 ("%-9a|", "2.0", "0x1p+1   |"), ("%a", "5e-324", "0x0.0000000000001p-1022"),
                 ("%.1a", "5e-324", "0x0.0p-1022"), ("%a|%d", "1.0, 7", "0x1p+0|7")]
        body = "".join('    vx_printf("%s\\n", %s);\n' % (f, a) for f, a, _ in cases)
        elf = self.build("hexa", "#include <vx_print.h>\nint main(void) {\n%s    return 0;\n}\n"
                         % body)
        r = self.vxsim(elf, (1, 1, 1, 1))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual([t for _, t in console(r.stdout)], [w for _, _, w in cases])

    def test_too_many_harts(self):
        """a platform whose 8 KiB stacks would reach the image: a message and a stop,
        not a kernel silently overwriting itself; 31 such cores still fit"""
        hello = vxtest.kernel("hello")
        r = self.vxsim(hello, (1, 32, 64, 128))        # 262144 harts x 8 KiB = 2 GiB of stack
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertEqual(len(console(r.stdout)), 1)
        self.assertIn("too many harts for this runtime's memory layout", console(r.stdout)[0][1])
        self.assertIn("ebreak", r.stderr)
        # the fault names the code that stopped, as every fault names its function
        self.assertIn("<__vx_crt0_too_many_harts+", r.stderr)
        r = self.vxsim(hello, (1, 31, 64, 128))
        self.assertEqual(r.returncode, 0, r.stderr)

    def exit_status(self, mode, shape):
        elf = self.build("exit%d" % mode, EXIT_C, flags=["-DMODE=%d" % mode])
        word = os.path.join(self.tmp, "word%d" % mode)
        r = self.vxsim(elf, shape, ["--dump", "0x88:4=" + word])
        with open(word, "rb") as f:
            return r, struct.unpack("<I", f.read())[0]

    def test_exit_word_from_the_host(self):
        """(from a run of upstream Vortex's io_addr test) start-up leaves the word at 0x88
        as the host loaded it, as Vortex's runtime does (it was zeroed before main); the
        exit status then replaces it: 0 over a loaded 7, the largest code over cores"""
        words = os.path.join(self.tmp, "io.bin")
        with open(words, "wb") as f:
            f.write(struct.pack("<4I", 0x11111111, 0x22222222, 7, 0x44444444))
        for code, shape, want in [(0, (1, 1, 4, 4), 0), (0, (1, 2, 2, 2), 0),
                                  (3, (1, 1, 2, 2), 0), (5, (1, 2, 2, 2), 5),
                                  (2, (2, 2, 2, 2), 6)]:
            with self.subTest(code=code, shape=shape):
                elf = self.build("exit5-%d" % code, EXIT_C, flags=["-DMODE=5", "-DCODE=%d" % code])
                word = os.path.join(self.tmp, "word5")
                r = self.vxsim(elf, shape, ["--load", words + "@0x80", "--dump", "0x88:4=" + word])
                self.assertEqual(console(r.stdout), [(0, "11111111 22222222 7 44444444")],
                                 r.stderr)
                with open(word, "rb") as f:
                    self.assertEqual((r.returncode, struct.unpack("<I", f.read())[0]),
                                     (want, want), r.stderr)

    def test_exit_max_over_cores(self):
        """each core returns (core+1)*3: the status is the largest, also at 0x88"""
        for shape, ncores in [((1, 1, 4, 4), 1), ((1, 3, 2, 2), 3), ((2, 2, 2, 2), 4)]:
            r, word = self.exit_status(1, shape)
            self.assertEqual(r.returncode, 3 * ncores, r.stderr)
            self.assertEqual(word, 3 * ncores)

    def test_exit_from_one_core(self):
        """exit(7) on core 1 while core 0 returns 0"""
        r, word = self.exit_status(2, (1, 2, 2, 2))
        self.assertEqual((r.returncode, word), (7, 7), r.stderr)
        r, word = self.exit_status(2, (1, 1, 2, 2))
        self.assertEqual((r.returncode, word), (0, 0), r.stderr)

    def test_exit_from_lane(self):
        """exit(9) from one lane of a spawned warp ends that warp; main still returns"""
        r, word = self.exit_status(3, (1, 1, 4, 4))
        self.assertEqual((r.returncode, word), (9, 9), r.stderr)
        self.assertEqual(console(r.stdout), [(0, "main goes on after a lane's exit")])

    def test_exit_negative(self):
        """main returning -1: the word is 0xffffffff, vxsim exits 255"""
        r, word = self.exit_status(4, (1, 2, 2, 2))
        self.assertEqual((r.returncode, word), (255, 0xffffffff), r.stderr)

    def test_bss_cleared(self):
        """every BSS word is zero at main even when memory held garbage (parallel clear)"""
        elf = self.build("bss", BSS_C)
        syms = {}
        r = vxtest.run(["riscv64-unknown-elf-nm", elf])
        for line in r.stdout.splitlines():
            parts = line.split()
            if len(parts) == 3:
                syms[parts[2]] = int(parts[0], 16)
        start, end = syms["__bss_start"], syms["_end"]
        self.assertGreater(end - start, 4004)
        junk = os.path.join(self.tmp, "junk.bin")
        with open(junk, "wb") as f:
            f.write(b"\xa5" * (end - start))
        for shape in [(1, 1, 4, 4), (1, 1, 1, 1), (1, 3, 3, 2), (2, 2, 2, 8), (1, 1, 2, 32)]:
            r = self.vxsim(elf, shape, ["--load", "%s@0x%x" % (junk, start)])
            self.assertEqual((r.returncode, console(r.stdout)), (0, [(0, "bss-bad 0")]),
                             "%s: %s" % (shape, r.stderr))

    def test_startup_once(self):
        """constructors run once, and BSS is cleared before any core's main"""
        elf = self.build("startup", text=STARTUP_CPP, ext=".cpp")
        for shape in [(1, 1, 4, 4), (1, 4, 2, 2), (2, 3, 1, 1)]:
            r = self.vxsim(elf, shape)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertEqual(console(r.stdout), [(0, "ctors 1 early-bad 0 ready 1")])

    def test_vortex_style_kernel(self):
        """a Vortex-style kernel: kernel_arg_t at mscratch, host buffers, result dumped"""
        elf = self.build("vortex_sgemm", text=VORTEX_CPP, ext=".cpp")
        n = 9
        a = [float((r * 3 + c) % 7 - 3) for r in range(n) for c in range(n)]
        b = [float((r + 2 * c) % 5 - 2) for r in range(n) for c in range(n)]
        blobs = {
            0x10000: struct.pack("<3I4x3Q", n, n, n, 0x11000, 0x12000, 0x13000),
            0x11000: struct.pack("<%df" % (n * n), *a),
            0x12000: struct.pack("<%df" % (n * n), *b),
        }
        loads = []
        for addr, data in blobs.items():
            path = os.path.join(self.tmp, "blob%x.bin" % addr)
            with open(path, "wb") as f:
                f.write(data)
            loads += ["--load", "%s@0x%x" % (path, addr)]
        out = os.path.join(self.tmp, "C.bin")
        want = [sum(a[r * n + e] * b[e * n + c] for e in range(n))
                for r in range(n) for c in range(n)]
        for shape in [(1, 1, 4, 4), (1, 2, 2, 8), (2, 1, 1, 2)]:
            r = self.vxsim(elf, shape, loads + ["--arg", "0x10000",
                                                "--dump", "0x13000:%d=%s" % (4 * n * n, out)])
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            with open(out, "rb") as f:
                got = list(struct.unpack("<%df" % (n * n), f.read()))
            self.assertEqual(got, want, "shape %s" % (shape,))

    def test_shuffle_segments(self):
        """shuffles with clamp and segment masks, full and partial warps, vs the notes"""
        for nt, ntasks in [(8, 8), (16, 16), (8, 6)]:
            elf = self.build("shfl%d_%d" % (nt, ntasks), SHFL_C, flags=["-DNTASKS=%d" % ntasks])
            r = self.vxsim(elf, (1, 1, 1, nt))
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            want = []
            for op in range(4):
                for k, (b, c, m) in enumerate(SHFL_CASES):
                    vals = shfl_model(op, b, c, m, nt, set(range(ntasks)))
                    want.append((0, "%d %d: %s" % (op, k, " ".join(map(str, vals)))))
            self.assertEqual(console(r.stdout), want, "NT %d, %d tasks" % (nt, ntasks))

    def test_tmc_one_after_a_narrower_mask(self):
        """vx_tmc_one() keeps lane 0 even where GCC set a register to 1 while fewer lanes
        were active (the lane tmc reads never wrote it: tmc 0 would end the warp)"""
        elf = self.build("tmcone", text=(
            "#include <vx_intrinsics.h>\n#include <vx_print.h>\n"
            "int buf[4];\n"
            "__attribute__((noinline)) void work(void) { buf[vx_thread_id()] = 1; }\n"
            "int main(void)\n{\n"
            "    vx_tmc(0x5);\n    work();\n    vx_tmc_one();\n"
            "    vx_tmc(0xf);\n    work();\n    vx_tmc_one();\n"
            "    vx_printf(\"reached end %d\\n\", vx_thread_id());\n    return 7;\n}\n"))
        r = self.vxsim(elf)
        self.assertEqual(r.returncode, 7, r.stdout + r.stderr)
        self.assertEqual(console(r.stdout), [(0, "reached end 0")])

    def test_constant_operands_after_a_wider_mask(self):
        """warp-control intrinsics with constant operands (vx_tmc's mask, vx_pred's
        restore mask, vx_barrier's id and count) where GCC had the constant in a
        register set while fewer lanes were active: the instruction reads its operands
        from the last active lane, which never wrote that register"""
        head = "#include <vx_intrinsics.h>\n#include <vx_print.h>\nvolatile int out[12];\n"
        cases = {
            # the -1 of the first vx_tmc(-1), set in lane 0 only, reused by the third
            "tmc": ("int main(void)\n{\n"
                    "    vx_tmc(-1);\n    out[vx_thread_id()] = 1;\n    vx_tmc(3);\n"
                    "    vx_tmc(-1);\n    out[8 + vx_thread_id()] = 2;\n    vx_tmc_one();\n"
                    "    vx_printf(\"%d%d%d%d %d%d%d%d\\n\", out[0], out[1], out[2], out[3],"
                    " out[8], out[9], out[10], out[11]);\n    return 42;\n}\n",
                    42, "1111 2222"),
            # the restore mask 3, set while lanes 0 and 1 ran, reused with 4 lanes on
            "pred": ("int main(void)\n{\n"
                     "    vx_tmc(3);\n    vx_pred(vx_thread_id() == 0, 3);\n    vx_tmc(-1);\n"
                     "    vx_pred(0, 3);\n    out[vx_thread_id()] = 1;\n    vx_tmc_one();\n"
                     "    vx_printf(\"%d%d%d%d\\n\", out[0], out[1], out[2], out[3]);\n"
                     "    return 5;\n}\n",
                     5, "1100"),
            # barrier 0 of 1 warp, id and count set in lane 0 only, whose other lanes
            # hold 7 in the registers GCC picks (barrier 7 does not exist: a fault)
            "bar": ("int main(void)\n{\n    vx_tmc(-1);\n"
                    "    __asm__ volatile(\"li a1, 7\\n\\tli a2, 7\\n\\tli a3, 7\\n\\tli a4, 7\\n\\t"
                    "li a5, 7\\n\\tli a6, 7\\n\\tli a7, 7\" ::: \"a1\", \"a2\", \"a3\", \"a4\","
                    " \"a5\", \"a6\", \"a7\");\n"
                    "    vx_tmc_one();\n    vx_barrier(0, 1);\n    vx_tmc(-1);\n"
                    "    vx_barrier(0, 1);\n    vx_tmc_one();\n"
                    "    vx_printf(\"passed\\n\");\n    return 9;\n}\n",
                    9, "passed"),
        }
        for name, (body, code, line) in cases.items():
            with self.subTest(name):
                r = self.vxsim(self.build("const_" + name, text=head + body))
                self.assertEqual(r.returncode, code, r.stdout + r.stderr)
                self.assertEqual(console(r.stdout), [(0, line)])

    def test_split_join_recipe_optimised(self):
        """kernel/README's split/join recipe, four ifs in a row, at -O1 to -O3 and -Os:
        jump threading (-O2) and path splitting (-O3) would copy the code after each if
        onto one path per outcome, and the warp went on from the copy of vx_join the
        else side reached: lanes 1 to 3 printed wrong values, with no fault"""
        text = (
            "#include <vx_spawn.h>\n#include <vx_print.h>\nstatic int out[8];\n"
            "static void body(void *arg)\n{\n    (void)arg;\n    int i = (int)blockIdx.x;\n"
            "    int v = i * 10;\n"
            "    { int t = vx_split(i == 0); if (i == 0) v += 1; vx_join(t); }\n"
            "    { int t = vx_split(i == 1); if (i == 1) v -= 1; vx_join(t); }\n"
            "    { int t = vx_split(i == 2); if (i == 2) v *= 3; vx_join(t); }\n"
            "    { int t = vx_split(i == 3); if (i == 3) v *= 5; vx_join(t); }\n"
            "    out[i] = v;\n}\n"
            "int main(void)\n{\n    uint32_t n = 8;\n    vx_spawn_threads(1, &n, 0, body, 0);\n"
            "    if (vx_core_id() == 0)\n"
            "        for (int i = 0; i < 8; i++) vx_printf(\"%d\\n\", out[i]);\n"
            "    return 0;\n}\n")
        want = [(0, str(v)) for v in (1, 9, 60, 150, 40, 50, 60, 70)]
        for opt in ("-O1", "-O2", "-O3", "-Os"):
            for shape in ((1, 1, 1, 8), (1, 1, 2, 4)):
                with self.subTest(opt=opt, shape=shape):
                    elf = self.build("splitrecipe" + opt, text=text, flags=(opt,))
                    r = self.vxsim(elf, shape=shape)
                    self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                    self.assertEqual(console(r.stdout), want)

    def test_cxx_math_h_float_overloads(self):
        """C++ with <math.h>: sqrt/fmin/fmax of floats compute in float, unqualified, as
        C++'s <math.h> declares them (the double functions branch on lane data)"""
        text = ("#include <math.h>\n#include <vx_spawn.h>\n#include <vx_print.h>\n"
                "#include <type_traits>\n"
                "template <typename T, typename U> constexpr bool same = std::is_same<T, U>::value;\n"
                "static int q;\n"
                "static_assert(same<decltype(abs(-1.5f)), float>, \"abs\");\n"
                "static_assert(same<decltype(fma(1, 1.0f, 1.0f)), double>, \"fma\");\n"
                "static_assert(same<decltype(ldexp(1, 2)), double>, \"ldexp\");\n"
                "static_assert(same<decltype(logb(1.0f)), float>, \"logb\");\n"
                "static_assert(same<decltype(remquo(1.0f, 2.0f, &q)), float>, \"remquo\");\n"
                "static_assert(same<decltype(isgreater(1.0f, 2.0f)), bool>, \"isgreater\");\n"
                "static_assert(same<decltype(sqrt(2)), double>, \"sqrt of int\");\n"
                "float in[8] = {2.0f, 9.0f, 0.25f, 1e-3f, 7.5f, 100.0f, 3.0f, 0.5f};\n"
                "float out[8];\n"
                "static void cb(void *)\n{\n    float x = in[blockIdx.x];\n"
                "    out[blockIdx.x] = sqrt(x) + fmin(x, 1.0f) + fmax(x, 8.0f);\n}\n"
                "int main()\n{\n    uint32_t n = 8;\n"
                "    vx_spawn_threads(1, &n, 0, cb, 0);\n"
                "    for (int i = 0; i < 8; i++) vx_printf(\"%d %a\\n\", i, (double)out[i]);\n"
                "    return 0;\n}\n")
        elf = self.build("cxxmath", text=text, ext=".cpp")
        r = self.vxsim(elf, (1, 1, 2, 4))
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        f32 = lambda v: struct.unpack("<f", struct.pack("<f", v))[0]
        want = []
        for i, x in enumerate([2.0, 9.0, 0.25, 1e-3, 7.5, 100.0, 3.0, 0.5]):
            x = f32(x)
            v = f32(f32(f32(math.sqrt(x)) + min(x, 1.0)) + max(x, 8.0))
            mant, exp = float.hex(v).split("p")  # C's %a: no trailing zero digits
            want.append((0, "%d %sp%s" % (i, mant.rstrip("0").rstrip("."), exp)))
        self.assertEqual(console(r.stdout), want)

    def test_cxx_upstream_kernel_idioms(self):
        """what upstream Vortex kernels (built with Vortex's clang) take for granted: int32_t
        is int (std::min(int32_t, int) compiles, %d prints it), <math.h> brings std::min and
        std::max, and min/max/clamp of lane values run without a branch, so lanes that
        choose differently do not fault at -O2"""
        text = ("#include <stdint.h>\n#include <math.h>\n#include <vx_spawn.h>\n"
                "#include <vx_print.h>\n"
                "int32_t in[8] = {5, -3, 12, 0, 7, 100, -50, 9};\n"
                "int32_t lo[8], hi[8], cl[8];\nfloat fm[8];\n"
                "static void cb(void *)\n{\n    int32_t x = in[blockIdx.x];\n"
                "    int t = (int)blockIdx.x;\n"
                "    lo[t] = std::min(x, t);\n    hi[t] = std::max(x, 6);\n"
                "    cl[t] = std::clamp(x, -4, 10);\n"
                "    fm[t] = std::max({(float)x, 1.5f, (float)t});\n}\n"
                "int main()\n{\n    uint32_t n = 8;\n"
                "    vx_spawn_threads(1, &n, 0, cb, 0);\n"
                "    for (int i = 0; i < 8; i++)\n"
                "        vx_printf(\"%d %d %d %d %d\\n\", i, lo[i], hi[i], cl[i], (int)(fm[i] * 2));\n"
                "    return 0;\n}\n")
        elf = self.build("idioms", text=text, ext=".cpp", flags=["-Wextra"])
        r = self.vxsim(elf, (1, 1, 2, 4))
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        ins = [5, -3, 12, 0, 7, 100, -50, 9]
        want = [(0, "%d %d %d %d %d" % (t, min(x, t), max(x, 6), max(-4, min(x, 10)),
                                        int(max(float(x), 1.5, float(t)) * 2)))
                for t, x in enumerate(ins)]
        self.assertEqual(console(r.stdout), want)

    def test_min_max_clamp_stay_branch_free_at_every_level(self):
        """std::min, std::max and std::clamp of lane values, of several types and at -O1,
        -O2, -O3 and -Os, run with lanes choosing differently (from the trixie review: GCC
        14 saw through <algorithm>'s mask to a select, which it made a branch, and every
        such kernel faulted with a divergent branch)"""
        for ty in ("int", "unsigned", "unsigned char", "short", "float"):
            text = ("#include <algorithm>\n#include <vx_spawn.h>\n#include <vx_print.h>\n"
                    "typedef %s T;\nT in[8] = {5, 0, 12, 1, 7, 100, 3, 9};\n"
                    "T o1[8], o2[8], o3[8];\n"
                    "static void cb(void *)\n{\n    int t = (int)blockIdx.x;\n"
                    "    T x = in[t];\n    o1[t] = std::min(x, (T)t);\n"
                    "    o2[t] = std::max(x, (T)6);\n"
                    "    o3[t] = std::clamp(x, (T)2, (T)10);\n}\n"
                    "int main()\n{\n    uint32_t n = 8;\n"
                    "    vx_spawn_threads(1, &n, 0, cb, 0);\n"
                    "    for (int i = 0; i < 8; i++)\n"
                    "        vx_printf(\"%%d %%d %%d\\n\", (int)o1[i], (int)o2[i], (int)o3[i]);\n"
                    "    return 0;\n}\n") % ty
            ins = [5, 0, 12, 1, 7, 100, 3, 9]
            want = [(0, "%d %d %d" % (min(x, t), max(x, 6), max(2, min(x, 10))))
                    for t, x in enumerate(ins)]
            for opt in ("-O1", "-O2", "-O3", "-Os"):
                with self.subTest(type=ty, opt=opt):
                    elf = self.build("mmc", text=text, ext=".cpp", flags=[opt])
                    r = self.vxsim(elf, (1, 1, 2, 4))
                    self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                    self.assertEqual(console(r.stdout), want)

    def test_divergent_branch_fault_says_what_to_do(self):
        """a lane-dependent branch without vx_split/vx_join: the fault names the lanes on
        each side and tells the user what the branch needs"""
        elf = self.build("nosplit", text=(
            "#include <vx_spawn.h>\n"
            "int out[8];\n"
            "static void cb(void *a)\n{\n    (void)a;\n    int i = (int)blockIdx.x;\n"
            "    if (i > 2)\n        out[i] = i * 3;\n    else\n        out[i] = 1;\n}\n"
            "int main(void)\n{\n    uint32_t n = 4;\n    vx_spawn_threads(1, &n, 0, cb, 0);\n"
            "    return 0;\n}\n"), flags=["-O0"])
        r = self.vxsim(elf)
        self.assertEqual(r.returncode, 3, r.stderr)
        # tasks 0..3 on warp 0: lanes 0..2 (i <= 2) go one way, lane 3 the other
        self.assertRegex(r.stderr, r"divergent branch: taken by lanes 0x(7|8), not by 0x(8|7)")
        self.assertIn("needs vx_split/vx_join around it (kernel/README.md, \"SIMT rules\")",
                      r.stderr)

    def test_kernel_argument(self):
        """mscratch holds --arg at main and again after vx_spawn_threads"""
        elf = self.build("arg", ARG_C)
        data = os.path.join(self.tmp, "arg.bin")
        with open(data, "wb") as f:
            f.write(struct.pack("<I", 0xcafe1234))
        r = self.vxsim(elf, (1, 2, 2, 4), ["--arg", "0x20000", "--load", data + "@0x20000"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(console(r.stdout), [(0, "arg=0x20000 after=0x20000 word=0xcafe1234")])

    def test_malloc_and_stdio(self):
        """malloc between the TLS blocks and the stacks; picolibc stdio on the console"""
        elf = self.build("malloc", MALLOC_C)
        for shape in [(1, 1, 4, 4), (1, 2, 8, 8)]:
            r = self.vxsim(elf, shape)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertEqual(console(r.stdout), [(0, "picolibc puts"),
                                                 (0, "picolibc printf 42 ok"),
                                                 (0, "malloc errors 0")])

    def test_printf_shared_slots(self):
        """300 tasks on 256 harts: harts h and h+64 share a slot, lines stay whole"""
        src = os.path.join(vxtest.ROOT, "kernel", "examples", "printf.c")
        elf = self.build("printf300", src=src, flags=["-DN=300"])
        shape = (1, 1, 8, 32)
        r = self.vxsim(elf, shape)
        self.assertEqual(r.returncode, 0, r.stdout[-1000:] + r.stderr)
        got = console(r.stdout)
        self.assertEqual(got[-1], (0, "printf: PASSED"))
        harts = vxtest.task_harts(300, shape)
        want = {}
        for i in range(300):
            lines = want.setdefault(harts[i], [])
            lines.append("task %2u: %c %-4s 0x%03x %5.2f|" %
                         (i, chr(65 + i % 26), "odd" if i & 1 else "even", i * 37, i * 0.25))
            if i & 1:
                lines.append("task %2u is odd" % i)
        per_hart = {}
        for slot, text in got[:-1]:
            m = re.match(r"task +(\d+)", text)
            self.assertTrue(m, "garbled line %r in slot %d" % (text, slot))
            h = harts[int(m.group(1))]
            self.assertEqual(slot, h % 64)
            per_hart.setdefault(h, []).append(text)
        self.assertEqual(per_hart, want)


if __name__ == "__main__":
    vxtest.main(Runtime)
