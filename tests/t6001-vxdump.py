#!/usr/bin/env python3
"""t6001: vxdump - the listing, JSON Lines, filters, --summary, --timeline, errors.

Expectations are independent of vxdump: the hand-written kernel
tests/kernels/t6-regs.S writes known values (listed below, derived from the
assembly by hand), per-warp counts and function histograms are recomputed from
the JSON dump and from `nm`, and barrier waits from the raw effects.
"""
import collections
import json
import os
import re
import shlex
import shutil
import struct
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
import vxtest  # noqa: E402
import t6kit  # noqa: E402
import vxt_spec  # noqa: E402
import vxt_make  # noqa: E402

# t6-regs.S, one warp of 4 lanes: (thread mask, effects as vxdump shows them)
REGS = [
    (0x1, "t0=-1"),
    (0x1, "tmask=f"),
    (0xf, "a0=lane"),
    (0xf, "a1=4*lane"),
    (0xf, "a2=0x100+4*lane"),
    (0xf, "a3=5"),
    (0xf, "a4=[0,1,4,9]"),
    (0xf, "a5=0x10000"),
    (0xf, "a5=0x10000+4*lane"),
    (0xf, "mem32[0x10000+4*lane]=[0,1,4,9]"),
    (0xf, "mem32[0x10010+4*lane]=5"),
    (0xf, "fa0=[0.0,1.0,2.0,3.0]"),
    (0xf, "t1=[0,1,0,1]"),
    (0xf, "t2=0 ipdom-push depth=1 orig=f else=5 tmask=a"),
    (0xa, "s0=[-,0x65,-,0x67]"),
    (0xa, "ipdom-else depth=1 tmask=5"),
    (0x5, "s0=[0x64,-,0x66]"),
    (0x5, "ipdom-pop depth=0 tmask=f"),
    (0xf, "t0=1"),
    (0xf, "tmask=1"),
    (0x1, "t3=0x40"),
    (0x1, "t4=0x48"),
    (0x1, 'console[0]="H"'),
    (0x1, "t4=0xa"),
    (0x1, 'console[0]="\\n"'),
    (0x1, "t3=0x88"),
    (0x1, "t4=7"),
    (0x1, "mem32[0x00000088]=7"),
    (0x1, "tmask=0 deactivate"),
]
# PC of each issue: straight line, except the split's body (0x38, join 0x3c) runs twice
REGS_PC = [0x80000000 + 4 * i for i in range(16)] + [0x80000038, 0x8000003c] + \
          [0x80000040 + 4 * i for i in range(11)]

# C++ names for --pc (test_pc_cplusplus); noinline so every function is called
CXX_KERNEL = r"""
#include <vx_intrinsics.h>
#define NI __attribute__((noinline))
namespace math {
NI int square(int x) { return x * x; }
NI int over(int x) { return x + 1; }
NI float over(float x) { return x + 1.5f; }
template <typename T> NI T id3(T x) { return x * 3; }
namespace inner { NI int deep(int x) { return x - 7; } }
}
namespace { NI int cube(int x) { return x * x * x; } }
static NI int twice(int x) { return 2 * x; }
namespace math { template <typename T> NI T pick(T x) { return x + 1; } }
namespace geo {
template <typename T, int N> struct Buf { T v[N]; NI T at(int i) const { return v[i % N]; } };
struct Counter { int c; NI Counter(int x) : c(x) {} };
}
namespace std { NI int mine(int x) { return x + 4; } }
struct Point { int x; };
namespace ns {
template <typename T> NI T id(T x) { return x; }
template <bool B> NI int flag(int x) { return B ? x : -x; }
template <int N> NI int addn(int x) { return x + N; }
template <unsigned N> NI int addu(int x) { return x + (int)N; }
template <typename T, int N> struct Buf { T v[N]; NI T at(int i) const { return v[i % N]; } };
struct Counter { int c; NI Counter(int x) : c(x) {} NI ~Counter() { c = 0; asm volatile("" ::: "memory"); } };
template <typename T> struct W { template <typename U> NI static int conv(U u) { return (int)u + 1; } };
}
volatile int sink;
int main() {
    int v = vx_thread_id() + 2;
    geo::Buf<int, 4> b = {{1, 2, 3, 4}};
    geo::Counter k(v);
    sink = math::square(v) + cube(v) + twice(v) + math::id3(v) + math::inner::deep(v) +
           math::over(v) + (int)math::over(1.0f) + math::pick(v) + (int)math::pick(2.5f) +
           b.at(v) + k.c + std::mine(v);
    Point pt = {v};
    const char *s = "ab";
    ns::Buf<Point, 2> bp = {{{1}, {2}}};
    {
        ns::Counter c(v);
        sink = ns::id(pt).x + (int)(long)ns::id(s) + ns::flag<true>(v) + ns::flag<false>(v) +
               ns::addn<-5>(v) + ns::addu<7u>(v) + bp.at(v).x + ns::W<int>::conv<float>(1.5f) + c.c;
    }
    return 0;
}
"""

# overloads whose parameter lists use the mangling's substitutions, qualifiers,
# template parameters, std names and nested classes (test_overload_signatures)
OVERLOAD_KERNEL = r"""
#include <vx_intrinsics.h>
#define NI __attribute__((noinline))
struct P { int x, y; };
enum Mode { ONE = 1, TWO = 2 };
namespace std { struct tag { int v; }; }
namespace geo {
struct V { int x; NI V operator+(const V &o) const { return V{x + o.x}; }
           NI V operator+(int k) const { return V{x + k}; } };
struct Box { struct In { int v; }; NI static int get(const In &i, const In *j) { return i.v + j->v; }
             NI static int get(In i) { return i.v; } };
template <typename T> NI T mix(T a, const T &b, T *c) { return a + b + *c; }
template <typename T> NI int mix(T a, int b) { return (int)a * b; }
}
NI int f(int x) { return x + 1; }
NI int f(unsigned x) { return (int)x + 2; }
NI int f(long long x) { return (int)x + 3; }
NI int f(double x) { return (int)x + 4; }
NI int f(bool b, char c) { return b ? c : -c; }
NI int f(const char *s) { return s[0]; }
NI int f(const char *s, const char *t) { return s[0] + t[0]; }
NI int f(P p, P q) { return p.x + q.y; }
NI int f(const P &p, const P &q, P *r) { return p.x + q.y + r->x; }
NI int f(P **pp) { return (*pp)->x; }
NI int f(volatile int *v) { return *v; }
NI int f(Mode m, Mode n) { return (int)m + (int)n; }
NI int f(std::tag t, const std::tag &u) { return t.v + u.v; }
NI int f(signed char a, unsigned char b, short c, unsigned short d) { return a + b + c + d; }
NI int f(float a, float &b) { b = a; return (int)a; }
NI int g(int &r) { return r + 5; }
NI int g(int &&r) { return r + 6; }
volatile int sink;
int main() {
    int v = vx_thread_id() + 2;
    P p = {v, 1}, q = {2, v}, *pp = &p;
    volatile int vi = v;
    float fl = 0;
    std::tag t = {v};
    geo::V a = {v}, b = {3};
    geo::Box::In i1 = {v}, i2 = {4};
    int m = v;
    double dd = 1.0;
    sink = f(v) + f((unsigned)v) + f((long long)v) + f(1.5 * v) + f(true, 'a') + f("xy") +
           f("a", "b") + f(p, q) + f(p, q, &p) + f(&pp) + f(&vi) + f(ONE, TWO) + f(t, t) +
           f((signed char)1, (unsigned char)2, (short)3, (unsigned short)4) + f(2.5f, fl) +
           g(m) + g(static_cast<int &&>(m)) + (a + b).x + (a + 7).x + geo::Box::get(i1, &i2) +
           geo::Box::get(i1) + geo::mix(v, v, &m) + geo::mix(2.5f, v) + (int)geo::mix(1.0, 2.0, &dd);
    return 0;
}
"""

# member functions that differ by their qualifiers only (test_overloads_by_qualifiers)
QUALIFIER_KERNEL = r"""
#include <vx_intrinsics.h>
#define NI __attribute__((noinline))
struct R {
    int v;
    NI int get() & { return v + 1; }
    NI int get() && { return v + 2; }
    NI int h() volatile { return v + 3; }
    NI int h() const volatile { return v + 4; }
};
volatile int sink;
int main() {
    R r = {(int)vx_thread_id()};
    volatile R vr = {2};
    const volatile R cvr = {3};
    sink = r.get() + R{5}.get() + vr.h() + cvr.h();
    return 0;
}
"""

# names that only begin with "operator" (test_pc_names_that_begin_with_operator)
OPNAMES_KERNEL = r"""
#include <vx_intrinsics.h>
#define NI __attribute__((noinline))
namespace operators {
NI int run(int x) { return x * 3 + 1; }
}
struct operator_pool { NI static int get(int x) { return x + 7; } };
volatile int sink;
int main() {
    sink = operators::run(vx_thread_id()) + operator_pool::get(2);
    return 0;
}
"""

# C++ operators and a copy GCC made of a function (test_pc_operators): built with -O2
OPS_KERNEL = r"""
#include <vx_intrinsics.h>
#define NI __attribute__((noinline))
namespace geo {
struct V {
    int x;
    NI V operator+(const V &o) const { return V{x + o.x}; }
    NI V &operator+=(const V &o) { x += o.x; return *this; }
    NI V &operator++() { x++; return *this; }
    NI bool operator==(const V &o) const { return x == o.x; }
    NI int operator[](int i) const { return x * i; }
    NI explicit operator int() const { return x + 100; }
};
NI int operator<<(const V &a, int s) { return a.x << s; }
}
struct Fn { int k; NI int operator()(int i) const { return i * k; } };
static NI int twice(Fn f, int i) { return f(i) + f(i + 1); }
volatile int sink;
int main() {
    int v = vx_thread_id() + 2;
    geo::V a{v}, b{3};
    a += b;
    ++a;
    Fn f{v};
    sink = (a + b).x + (a == b) + a[2] + (int)a + (a << 2) + twice(f, v) + twice(f, 7);
    return 0;
}
"""

# a CSR write with 4 lanes active: committed on lane 0 alone (FORMAT.md section 7.2)
CSR_KERNEL = r"""
#include <vx_intrinsics.h>
int main(void)
{
    vx_tmc(0xf);
    unsigned v = vx_thread_id() + 1;
    __asm__ volatile("csrw fflags, %0" : : "r"(v));
    vx_tmc(1);
    return 0;
}
"""

ISSUE_KEYS = {"type", "index", "cycle", "core", "warp", "gwarp", "pc", "insn", "tmask", "flags",
              "disasm", "symbol", "source", "commits", "mem", "wctl", "console", "fault"}


def setUpModule():
    global D, K, T
    if not t6kit.have_toolchain() or not os.path.exists(vxtest.prog("vxrec")):
        raise unittest.SkipTest("vxcc, riscv64-unknown-elf-ld or vxrec missing")
    D = vxtest.tmpdir()
    K = {n: t6kit.build(n, D) for n in ("t6-regs", "t6-fault", "t6-bar", "t6-wide")}
    T = {}
    T["regs"] = os.path.join(D, "regs.vxt")
    t6kit.record(K["t6-regs"], T["regs"], ["-w", "1", "-t", "4"], expect=7)
    T["fault"] = os.path.join(D, "fault.vxt")
    t6kit.record(K["t6-fault"], T["fault"], ["-w", "1", "-t", "4"], expect=3)
    T["bar"] = os.path.join(D, "bar.vxt")
    t6kit.record(K["t6-bar"], T["bar"], ["-w", "2", "-t", "4"], expect=0)
    T["wide"] = os.path.join(D, "lanes128.vxt")
    t6kit.record(K["t6-wide"], T["wide"], ["-w", "1", "-t", "128"], expect=3)
    if os.path.exists(vxtest.kernel("vecadd")):
        T["vecadd"] = os.path.join(D, "vecadd.vxt")
        t6kit.record(vxtest.kernel("vecadd"), T["vecadd"], ["--chunk-size", "4096"], expect=0)


def listing(trace, *args):
    """vxdump text: (column of EFFECTS, [lines without the header])."""
    r = t6kit.vxdump(*(list(args) + [trace]))
    if r.returncode != 0:
        raise AssertionError("vxdump exit %d: %s" % (r.returncode, r.stderr))
    lines = r.stdout.splitlines()
    assert lines[0].startswith("#"), lines[0]
    return lines[0].index("EFFECTS"), lines[1:]


def check_totals(test, trace):
    """--summary --json's totals and per-warp counts against a second count over the events
    vxdump --json lists (SCHEMA.md: injected issues are in `issues`, `injected`, and the
    effects' counts, not in lane_ops, faults, steps nor the warps' counts; a split counts
    when it did not fault)"""
    ev = t6kit.events(trace)
    iss = [e for e in ev if e["type"] == "issue"]
    own = [e for e in iss if not e["flags"] & 1]
    want = {"events": len(ev), "issues": len(iss),
            "dm_events": sum(1 for e in ev if e["type"] == "dm"),
            "lane_ops": sum(t6kit.popcount_hex(e["tmask"]) for e in own),
            "mem_writes": sum(len(e["mem"]) for e in iss),
            "console_bytes": sum(len(e["console"]) for e in iss),
            "wctl": sum(len(e["wctl"]) for e in iss),
            "faults": sum(1 for e in own if e["fault"]),
            "injected": len(iss) - len(own),
            "steps": sum(1 for e in own if e["flags"] & 2)}
    s = t6kit.summary(trace)
    test.assertEqual({k: s["totals"][k] for k in want}, want, trace)
    warps = {}
    for e in own:
        w = warps.setdefault(e["gwarp"], {"issues": 0, "lane_ops": 0, "splits": 0})
        w["issues"] += 1
        w["lane_ops"] += t6kit.popcount_hex(e["tmask"])
        w["splits"] += e["disasm"].startswith("vx_split") and not e["fault"]
    got = {w["gwarp"]: {k: w[k] for k in ("issues", "lane_ops", "splits")} for w in s["warps"]}
    test.assertEqual(got, warps, trace)
    test.assertEqual(s["divergence"]["splits"], sum(w["splits"] for w in warps.values()), trace)
    return s

def indexes(lines):
    return [int(ln.split()[0]) for ln in lines]


def cxx_functions(test, source, shape, opt="-O1"):
    """Build the C++ kernel source with vxcc -O1 (or opt) and record it on shape: (trace, the
    issues in each function's range, by binutils' demangled name: nm -C, not vxdump's)."""
    if not os.path.exists(vxtest.prog("vxcc")) or not shutil.which("riscv64-unknown-elf-g++"):
        test.skipTest("vxcc or the RISC-V C++ compiler missing")
    d = vxtest.tmpdir()
    src, elf, trace = (os.path.join(d, n) for n in ("k.cpp", "k.elf", "k.vxt"))
    with open(src, "w") as f:
        f.write(source)
    r = vxtest.run([vxtest.prog("vxcc"), opt, "-o", elf, src])
    test.assertEqual(r.returncode, 0, r.stderr)
    t6kit.record(elf, trace, shape, expect=0)
    r = vxtest.run(["riscv64-unknown-elf-nm", "-C", "-S", "--defined-only", elf])
    fn = {}
    for line in r.stdout.splitlines():
        f = line.split(None, 3)
        if len(f) == 4 and f[2] in "tTW":
            fn[f[3]] = (int(f[0], 16), int(f[1], 16))
    issues = [e for e in t6kit.events(trace) if e["type"] == "issue"]

    def want(demangled):
        lo, size = fn[demangled]
        return [e["index"] for e in issues if lo <= e["pc"] < lo + size]
    want.names = lambda: list(fn)
    want.lo = lambda demangled: fn[demangled][0]
    return trace, want


class Listing(unittest.TestCase):
    def test_regs_text(self):
        """t6-regs: every line's mask, pc, symbol and effects (uniform, affine, lists)"""
        col, lines = listing(T["regs"])
        self.assertEqual(len(lines), len(REGS) + 1, "29 issues and the END record")
        for i, ((mask, eff), ln) in enumerate(zip(REGS, lines)):
            f = ln.split()
            self.assertEqual(int(f[0]), i, ln)
            self.assertEqual(int(f[1]), i, "one warp: one issue per cycle: " + ln)
            self.assertEqual(f[2], "0:0", ln)
            self.assertEqual(int(f[3], 16), REGS_PC[i], ln)
            off = REGS_PC[i] - 0x80000000
            self.assertEqual(f[4], "<_start+0x%x>" % off if off else "<_start>", ln)
            self.assertEqual(int(f[5], 16), mask, ln)
            self.assertEqual(ln[col:], eff, "effects of event %d: %r" % (i, ln))
        self.assertIn("end exit code 7", lines[-1])
        self.assertEqual(int(lines[-1].split()[0]), 29, "END carries the index of the next issue")

    def test_regs_json(self):
        """t6-regs JSON: exact per-lane values, writes, effects, console bytes, end"""
        ev = t6kit.events(T["regs"])
        self.assertEqual([e["type"] for e in ev], ["issue"] * 29 + ["end"])
        for e in ev[:-1]:
            self.assertEqual(set(e), ISSUE_KEYS)
            self.assertIsNone(e["source"], "assembled without -g: no line tables")
            self.assertRegex(e["tmask"], r"^0x[0-9a-f]+$")
            self.assertEqual((e["core"], e["warp"], e["gwarp"], e["flags"]), (0, 0, 0, 0))
        self.assertEqual([int(e["tmask"], 16) for e in ev[:-1]], [m for m, _ in REGS])
        self.assertEqual([e["pc"] for e in ev[:-1]], REGS_PC)

        def commit(i):
            self.assertEqual(len(ev[i]["commits"]), 1, ev[i])
            return ev[i]["commits"][0]
        self.assertEqual(commit(0)["values"], [0xFFFFFFFF, None, None, None])
        self.assertEqual((commit(2)["name"], commit(2)["file"], commit(2)["reg"]), ("a0", "x", 10))
        self.assertEqual(commit(2)["values"], [0, 1, 2, 3])
        self.assertEqual(commit(4)["values"], [0x100, 0x104, 0x108, 0x10c])
        self.assertEqual(commit(6)["values"], [0, 1, 4, 9])
        self.assertEqual(commit(11)["file"], "f")
        self.assertEqual(commit(11)["values"], [0, 0x3f800000, 0x40000000, 0x40400000],
                         "fcvt.s.w: 0.0, 1.0, 2.0, 3.0 as IEEE bits")
        self.assertEqual(commit(14)["lanes"], "0xa")
        self.assertEqual(commit(14)["values"], [None, 101, None, 103])
        self.assertEqual(commit(16)["values"], [100, None, 102, None])
        self.assertEqual(ev[9]["mem"], [{"lane": l, "addr": 0x10000 + 4 * l, "size": 4, "value": l * l}
                                        for l in range(4)])
        self.assertEqual([(m["addr"], m["value"]) for m in ev[10]["mem"]],
                         [(0x10010 + 4 * l, 5) for l in range(4)])
        self.assertEqual([w["kind"] for w in ev[13]["wctl"]], ["ipdom-push", "tmask"])
        self.assertEqual((ev[13]["wctl"][0]["mask"], ev[13]["wctl"][0]["mask2"]), ("0xf", "0x5"))
        self.assertEqual([w["kind"] for w in ev[28]["wctl"]], ["tmask", "deactivate"])
        self.assertEqual(ev[22]["console"], [{"slot": 0, "byte": ord("H")}])
        self.assertEqual(ev[22]["mem"], [], "console bytes are not memory writes")
        self.assertEqual(ev[27]["mem"], [{"lane": 0, "addr": 0x88, "size": 4, "value": 7}])
        self.assertEqual(ev[-1], {"type": "end", "index": 29, "cycle": ev[-1]["cycle"], "status": "exit",
                                  "exit_code": 7, "fault": None})
        self.assertTrue(ev[13]["disasm"].startswith("vx_split"), "custom-0 from our table")
        self.assertEqual(ev[3]["disasm"], "slli a1, a0, 2", "standard instructions from capstone")
        self.assertEqual(ev[3]["symbol"], "_start+0xc")

    def test_fault(self):
        """a faulting issue and the END record that carries the fault"""
        col, lines = listing(T["fault"])
        self.assertEqual(len(lines), 4)
        self.assertTrue(lines[2][col:].startswith("FAULT misaligned (SIGBUS, lanes 0x1)"), lines[2])
        self.assertIn("end fault misaligned (SIGBUS) at pc 0x80000008 [lw a1, 0(a0)]", lines[3])
        ev = t6kit.events(T["fault"])
        f = ev[2]["fault"]
        self.assertEqual((f["kind"], f["signal"], f["signame"], f["pc"], f["addr"], f["lanes"]),
                         ("misaligned", 7, "SIGBUS", 0x80000008, 0x10002, "0x1"))
        self.assertEqual(ev[2]["commits"], [], "a faulting instruction has no effect")
        self.assertEqual((ev[3]["type"], ev[3]["status"], ev[3]["fault"]["kind"]), ("end", "fault", "misaligned"))
        self.assertEqual(indexes(listing(T["fault"], "--kind", "fault")[1]), [2, 3])

    def test_float_values_and_unnamed_csr(self):
        """float registers in the fewest digits that give back the same float (6 digits
        showed 16777216.0 and 16777218.0 both as 1.67772e+07), a CSR without a name in
        hex (it showed 3072)"""
        k = t6kit.build("t6-float", D)
        t = os.path.join(D, "float.vxt")
        inp = os.path.join(D, "float.bin")
        with open(inp, "wb") as f:
            f.write(struct.pack("<I", 0x4B800001))
        t6kit.record(k, t, ["-w", "1", "-t", "1", "--load", inp + "@0x20000"], expect=3)
        col, lines = listing(t)
        effects = [ln[col:].strip() for ln in lines]
        for want in ("fa0=16777216.0", "fa1=16777218.0", "fa2=0.1", "fa3=1.1754944e-38",
                     # NaNs: a payload or a signalling one shows its bits (all read 'nan')
                     "fa4=nan", "fa5=nan(0x7fc00001)", "fa6=snan(0x7f800001)",
                     "fa7=-nan(0xffc00000)"):
            self.assertIn(want, effects)
        self.assertTrue(any("csrr a0, 0xc00" in ln for ln in lines), lines)

    def test_deadlock(self):
        """a deadlock: only the END record holds it, with no instruction word; vxrec names it"""
        k = t6kit.build("t6-bar", D, ["-DBAR_COUNT=3"])
        t = os.path.join(D, "deadlock.vxt")
        r = t6kit.record(k, t, ["-w", "2", "-t", "4"], expect=3)
        col, lines = listing(t)
        self.assertIn("end fault deadlock (SIGABRT) at pc 0x", lines[-1])
        self.assertNotIn("[", lines[-1].split("deadlock (SIGABRT)")[1].split(":")[0])
        end = int(lines[-1].split()[0])
        self.assertIn("recorded in the end record, event %d" % end, r.stderr)
        self.assertEqual(indexes(listing(t, "--kind", "fault")[1]), [end])


    def test_128_lanes(self):
        """t6-wide on 128 lanes: the MASK column in 32 hex digits, zero-padded; values that
        fall with the lane in affine form; the ecall of every lane, lanes 0xff..ff (32 f)
        with SIGSYS, in vxdump, vxrec and vxsim (from the coverage review)"""
        all_lanes = "f" * 32
        col, lines = listing(T["wide"])
        mask_col = lines[0].split()[5]
        self.assertEqual(mask_col, "0" * 31 + "1", "lane 0 only, before the vx_tmc")
        self.assertEqual([ln.split()[5] for ln in lines[10:18]], [all_lanes] * 8)
        eff = {int(ln.split()[0]): ln[col:] for ln in lines}
        self.assertEqual(eff[9], "tmask=" + all_lanes)
        self.assertEqual((eff[10], eff[11], eff[13], eff[14], eff[16]),
                         ("a0=lane", "a1=-lane", "a2=-3*lane", "a3=2*lane", "a3=5-2*lane"))
        self.assertTrue(eff[17].startswith("FAULT ecall (SIGSYS, lanes 0x%s)" % all_lanes), eff[17])
        self.assertIn("end fault ecall (SIGSYS) at pc 0x80000044 [ecall], core 0 warp 0, lanes 0x%s"
                      % all_lanes, lines[18])
        r = t6kit.record(K["t6-wide"], os.path.join(D, "lanes128-2.vxt"), ["-w", "1", "-t", "128"], expect=3)
        s = vxtest.run([vxtest.prog("vxsim"), "-w", "1", "-t", "128", K["t6-wide"]])
        self.assertEqual(s.returncode, 3, s.stderr)
        for err in (r.stderr, s.stderr):
            self.assertIn("kernel fault at pc 0x80000044 <_start+0x44> (core 0, warp 0, lanes 0x%s)"
                          % all_lanes, err)
            self.assertIn("[ecall] (SIGSYS)", err)


def assert_pc_selects(test, trace, cases, want):
    """vxdump --pc NAME lists, for each NAME: KEY of cases, the issues want(KEY) gives (some)."""
    for name, key in cases.items():
        got = [e["index"] for e in t6kit.events(trace, "--pc", name)]
        test.assertEqual(got, want(key), name)
        test.assertTrue(got, name)


class Filters(unittest.TestCase):
    def test_from_to(self):
        """--from/--to: exactly that range of event indexes"""
        self.assertEqual(indexes(listing(T["regs"], "--from", "5", "--to", "9")[1]), [5, 6, 7, 8, 9])
        # numbers are decimal or 0x hex, in every program: a leading 0 is not octal
        self.assertEqual(indexes(listing(T["regs"], "--from", "010", "--to", "0x0b")[1]), [10, 11])
        self.assertEqual(indexes(listing(T["regs"], "--from", "27")[1]), [27, 28, 29])
        self.assertEqual(listing(T["regs"], "--from", "1000")[1], [])
        # an empty selection past the end is not an error, but vxdump says why it is empty
        r = vxtest.run([vxtest.prog("vxdump"), "--from", "1000", T["regs"]])
        self.assertEqual(r.returncode, 0)
        self.assertIn("no event at or after --from 1000 (the last is 29)", r.stderr)
        r = vxtest.run([vxtest.prog("vxdump"), "--from", "29", T["regs"]])
        self.assertEqual((r.returncode, r.stderr), (0, ""))
        # the summary's range: --from alone ends at the last event (index 29, the END)
        self.assertEqual(t6kit.summary(T["regs"], "--from", "27")["range"], {"from": 27, "to": 29})
        self.assertEqual(t6kit.summary(T["regs"], "--from", "5", "--to", "9")["range"],
                         {"from": 5, "to": 9})
        if "vecadd" in T:
            full = t6kit.events(T["vecadd"])
            n = len(full)
            part = t6kit.events(T["vecadd"], "--from", str(n // 2), "--to", str(n // 2 + 40))
            self.assertEqual(part, [e for e in full if n // 2 <= e["index"] <= n // 2 + 40],
                             "a window in the middle of a many-chunk trace, reached by seeking")
            # the text summary of that window names the cycles it spans
            r = vxtest.run([vxtest.prog("vxdump"), "--summary", "--from", str(n // 2), "--to",
                            str(n // 2 + 40), T["vecadd"]])
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn(" cycles %d..%d, " % (part[0]["cycle"], part[-1]["cycle"]), r.stdout)

    def test_lane(self):
        """--lane 1: events where lane 1 is active, only lane 1's values"""
        col, lines = listing(T["regs"], "--lane", "1")
        want = [i for i, (m, _) in enumerate(REGS) if m & 2] + [29]
        self.assertEqual(indexes(lines), want)
        eff = {int(ln.split()[0]): ln[col:] for ln in lines}
        self.assertEqual(eff[2], "a0=1")
        self.assertEqual(eff[6], "a4=1")
        self.assertEqual(eff[9], "mem32[0x00010004]=1")
        self.assertEqual(eff[14], "s0=0x65")
        ev = t6kit.events(T["regs"], "--lane", "1")
        self.assertEqual(ev[4]["commits"][0]["values"], [None, 1, None, None])
        self.assertEqual(ev[7]["mem"], [{"lane": 1, "addr": 0x10004, "size": 4, "value": 1}])

    def test_lane_leaves_out_commits_without_it(self):
        """SCHEMA.md: with --lane L the commits that do not write lane L are left out (a
        CSR is committed on lane 0 alone, whatever the thread mask); the others show lane
        L's value alone"""
        d = vxtest.tmpdir()
        src, elf, t = (os.path.join(d, n) for n in ("csr.c", "csr.elf", "csr.vxt"))
        with open(src, "w") as f:
            f.write(CSR_KERNEL)
        t6kit.vxcc(src, elf)
        t6kit.record(elf, t, ["-w", "1", "-t", "4"], expect=0)
        full = {e["index"]: e for e in t6kit.events(t) if e["type"] == "issue"}
        self.assertTrue([e for e in full.values() if e["tmask"] == "0xf" and
                         [c for c in e["commits"] if c["lanes"] == "0x1"]],
                        "a commit of lane 0 alone with 4 lanes active")
        for lane in range(4):
            for e in t6kit.events(t, "--lane", str(lane), "--kind", "issue"):
                want = [dict(c, values=[v if i == lane else None
                                        for i, v in enumerate(c["values"])])
                        for c in full[e["index"]]["commits"] if int(c["lanes"], 16) >> lane & 1]
                self.assertEqual(e["commits"], want, (lane, e["index"]))

    def test_kind(self):
        """--kind selects issues by what they did"""
        k = lambda kinds: indexes(listing(T["regs"], "--kind", kinds)[1])  # noqa: E731
        self.assertEqual(k("mem"), [9, 10, 27])
        self.assertEqual(k("console"), [22, 24])
        self.assertEqual(k("split"), [13])
        self.assertEqual(k("diverge"), [13])
        self.assertEqual(k("wctl"), [1, 13, 15, 17, 19, 28])
        self.assertEqual(k("end"), [29])
        self.assertEqual(k("mem,console"), [9, 10, 22, 24, 27])
        self.assertEqual(k("dm"), [])
        self.assertEqual(len(k("issue")), 29)

    def test_kind_by_effects(self):
        """--kind barrier, commit, wctl, fault: the events whose JSON effects say so"""
        for t in (T["bar"], T["regs"], T["fault"]):
            ev = t6kit.events(t)
            issues = [e for e in ev if e["type"] == "issue"]
            wk = lambda e: {w["kind"] for w in e["wctl"]}  # noqa: E731
            want = {
                "barrier": [e for e in issues if wk(e) & {"bar-arrive", "bar-release"}],
                "commit": [e for e in issues if e["commits"]],
                "wctl": [e for e in issues if e["wctl"]],
                "fault": [e for e in ev if e["fault"]],
            }
            for kind, w in want.items():
                self.assertEqual(t6kit.events(t, "--kind", kind), w, (t, kind))
        arrive = [e for e in t6kit.events(T["bar"], "--kind", "barrier")
                  if "bar-arrive" in {w["kind"] for w in e["wctl"]}]
        self.assertGreater(len(arrive), 0, "the barrier kernel's warps arrive")
        self.assertGreater(len(t6kit.events(T["fault"], "--kind", "fault")), 0)

    def test_pc(self):
        """--pc by address, by symbol+offset, and a whole function"""
        self.assertEqual(indexes(listing(T["regs"], "--pc", "0x80000038")[1]), [14, 16])
        self.assertEqual(indexes(listing(T["regs"], "--pc", "_start+0x38")[1]), [14, 16])
        # a PC copied from the listing (8 hex digits) is hex
        self.assertEqual(indexes(listing(T["regs"], "--pc", "80000038")[1]), [14, 16])
        # an offset between instructions, or other hex without 0x: refused with a reason
        for arg, why in (("_start+0x3a", "'_start+0x3a' is 0x8000003a, not an instruction's address"),
                         ("8000003c0", "no symbol '8000003c0' in the kernel of this trace (an address in hex is written 0x...)")):
            r = vxtest.run([vxtest.prog("vxdump"), "--pc", arg, T["regs"]])
            self.assertEqual(r.returncode, 2, arg)
            self.assertIn(why, r.stderr)
        spin = [f for f in t6kit.nm_functions(K["t6-bar"]) if f[2] == "spin"][0]
        ev = t6kit.events(T["bar"])
        want = [e["index"] for e in ev if e["type"] == "issue" and spin[0] <= e["pc"] < spin[0] + spin[1]]
        self.assertGreater(len(want), 40, "both warps spin: 3 and 23 iterations")
        self.assertEqual([e["index"] for e in t6kit.events(T["bar"], "--pc", "spin")], want)

    def test_addr(self):
        """--addr: the issues whose memory writes touch a byte range (t6-regs.S: event 9
        writes 0x10000 + 4*lane, event 10 0x10010 + 4*lane); with --lane, that lane's
        writes only; a bad range is refused"""
        a = lambda *args: indexes(listing(T["regs"], *args)[1])  # noqa: E731
        self.assertEqual(a("--addr", "0x10004"), [9])
        self.assertEqual(a("--addr", "0x1000f"), [9])
        self.assertEqual(a("--addr", "0x1000f:2"), [9, 10])
        self.assertEqual(a("--addr", "0x10010"), [10])
        self.assertEqual(a("--addr", "0x10020:0x1000"), [])
        self.assertEqual(a("--addr", "0x10004", "--lane", "1"), [9])
        self.assertEqual(a("--addr", "0x10004", "--lane", "2"), [])
        # up to the end of the address space: the whole of it holds every write, and the
        # console's bytes (events 22 and 24)
        self.assertEqual(a("--addr", "0:0x100000000"), [9, 10, 22, 24, 27])
        self.assertEqual(a("--addr", "0xfffffffc:4"), [])
        for bad in ("0x10000:0", "0xffffffff:2", "x", "0x10000:"):
            r = vxtest.run([vxtest.prog("vxdump"), "--addr", bad, T["regs"]])
            self.assertEqual(r.returncode, 2, bad)
            self.assertIn("--addr: '%s' is not ADDR or ADDR:LEN" % bad, r.stderr)
        # a bigger trace, against every write vxdump --json lists
        ev = t6kit.events(T["vecadd"])
        writes = [(e["index"], m) for e in ev if e["type"] == "issue" for m in e["mem"]]
        lo, n = writes[len(writes) // 2][1]["addr"] - 2, 8
        want = sorted({i for i, m in writes if m["addr"] < lo + n and m["addr"] + m["size"] > lo})
        self.assertTrue(want)
        got = [e["index"] for e in t6kit.events(T["vecadd"], "--addr", "%#x:%d" % (lo, n))]
        self.assertEqual(got, want)

    def test_pc_and_addr_jump_chunks_by_digest(self):
        """--pc and --addr jump over the chunks whose digests rule them out (a long trace
        in 1,000 small chunks): the issues listed are those a filter over every event
        vxdump --json lists selects, for PCs and byte ranges hit rarely, often and never
        (the others were jumped over: a damaged one goes unread)"""
        d = vxtest.tmpdir()
        trace = os.path.join(d, "small-chunks.vxt")
        r = vxtest.run([vxtest.prog("vxrec"), "-q", "-t", "2", "--chunk-size", "1024",
                        vxtest.kernel("reduce"), "-o", trace])
        self.assertEqual(r.returncode, 0, r.stderr)
        ev = [e for e in t6kit.events(trace) if e["type"] == "issue"]
        pcs = sorted({e["pc"] for e in ev})
        hits = {pc: [e["index"] for e in ev if e["pc"] == pc] for pc in pcs}
        rare = [pc for pc in pcs if len(hits[pc]) == 1][:3]
        common = sorted(pcs, key=lambda pc: -len(hits[pc]))[:2]
        self.assertTrue(rare)
        for pc in rare + common + [max(pcs) + 0x1000]:
            got = [e["index"] for e in t6kit.events(trace, "--pc", "%#x" % pc)]
            self.assertEqual(got, hits.get(pc, []), hex(pc))
        # functions: ranges of PCs, each of which a digest may hold (their ranges: nm -S)
        r = vxtest.run(["riscv64-unknown-elf-nm", "-S", "--defined-only", vxtest.kernel("reduce")])
        fns = [f for f in (ln.split() for ln in r.stdout.splitlines()) if len(f) == 4 and
               f[2] in "tT"]
        names = [f[3] for f in fns]
        ran = 0
        for _, lo, size, name in ((f, int(f[0], 16), int(f[1], 16), f[3]) for f in fns):
            want = [e["index"] for e in ev if lo <= e["pc"] < lo + size]
            if not want or names.count(name) > 1:
                continue
            ran += 1
            got = [e["index"] for e in t6kit.events(trace, "--pc", name)]
            self.assertEqual(got, want, name)
        self.assertGreater(ran, 2, "functions that ran")
        writes = [(e["index"], m) for e in ev for m in e["mem"]]
        for lo, n in ((writes[0][1]["addr"], 4), (writes[-1][1]["addr"], 1),
                      (writes[len(writes) // 3][1]["addr"] - 1, 6), (0x00f00000, 64)):
            want = sorted({i for i, m in writes if m["addr"] < lo + n and m["addr"] + m["size"] > lo})
            got = [e["index"] for e in t6kit.events(trace, "--addr", "%#x:%d" % (lo, n))]
            self.assertEqual(got, want, "%#x:%d" % (lo, n))

    def test_pc_and_addr_report_a_damaged_digest(self):
        """FORMAT.md section 11: --pc and --addr read the DIGEST chunks, and report damage in
        one as corruption at its offset (exit 2), as a damaged EVENTS chunk is; they took
        it for a chunk without a digest and said nothing.  A listing without a filter does
        not read the digests and still shows every event"""
        d = vxtest.tmpdir()
        trace = os.path.join(d, "dg.vxt")
        r = vxtest.run([vxtest.prog("vxrec"), "-q", "--chunk-size", "1024",
                        vxtest.kernel("reduce"), "-o", trace])
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(trace, "rb") as f:
            data = bytearray(f.read())
        dg = [c for c in vxt_spec.Trace(bytes(data)).chunks if c.type == vxt_spec.CH_DIGEST]
        self.assertGreater(len(dg), 2)
        c = dg[1]
        data[c.off + 28 + c.stored // 2] ^= 0x10
        bad = os.path.join(d, "dg-bad.vxt")
        with open(bad, "wb") as f:
            f.write(data)
        for args in (["--pc", "0x80000000"], ["--addr", "0x40:64"]):
            r = vxtest.run([vxtest.prog("vxdump")] + args + [bad])
            self.assertEqual(r.returncode, 2, args)
            self.assertIn("DIGEST chunk at offset %d: payload checksum mismatch" % c.off,
                          r.stderr, args)
        self.assertEqual(t6kit.events(bad), t6kit.events(trace))

    def test_addr_of_the_console_window(self):
        """--addr in the console window (0x40..0x7f) lists the issues that stored a byte
        there (console bytes, not memory writes, as vxreplay's watchpoints see them),
        also when it jumps chunks by their digests"""
        d = vxtest.tmpdir()
        trace = os.path.join(d, "printf.vxt")
        r = vxtest.run([vxtest.prog("vxrec"), "-q", "--chunk-size", "1024",
                        vxtest.kernel("printf"), "-o", trace])
        self.assertEqual(r.returncode, 0, r.stderr)
        ev = [e for e in t6kit.events(trace) if e["type"] == "issue"]
        slots = sorted({b["slot"] for e in ev for b in e["console"]})
        self.assertGreater(len(slots), 1)
        for lo, n in ((0x40 + slots[0], 1), (0x40 + slots[-1], 1), (0x40, 0x40), (0x3e, 3)):
            want = [e["index"] for e in ev
                    if any(lo <= 0x40 + b["slot"] < lo + n for b in e["console"])]
            got = [e["index"] for e in t6kit.events(trace, "--addr", "%#x:%d" % (lo, n))]
            self.assertEqual(got, want, "%#x:%d" % (lo, n))
        self.assertTrue(want)

    def test_overload_signatures(self):
        """overloads are shown, and selected with --pc, by their signatures as binutils
        spells them (nm -C, a second demangler): substitutions (P const&, P const&),
        pointers to pointers, volatile, enums, std classes, nested classes, rvalue
        references, const member operators, function templates with or without their
        return type; the plain name lists them all"""
        trace, want = cxx_functions(self, OVERLOAD_KERNEL, ["-w", "1", "-t", "4"])
        names = [n for n in want.names()
                 if re.search(r"(^|[ :])(f|g|get|mix|operator\+)(<[^(]*>)?\(", n)]
        self.assertEqual(len(names), 24, names)
        cases = {n: n for n in names}
        for n in names:
            ret, _, rest = n.partition(" ")
            if "<" in n and "(" not in ret:   # a template: also without its return type
                cases[rest] = n
        cases["Box::get(geo::Box::In)"] = "geo::Box::get(geo::Box::In)"   # the last components
        cases["f(char const *)"] = "f(char const*)"                        # spaces aside
        assert_pc_selects(self, trace, cases, want)
        summ = vxtest.run([vxtest.prog("vxdump"), "--summary", trace]).stdout
        for n in names:  # (function templates differ by their arguments: shown without more)
            shown = n.partition(" ")[2].split("(")[0] if "<" in n and "(" not in n.partition(" ")[0] else n
            self.assertRegex(summ, r"\s%s\n" % re.escape(shown))
        col, lines = listing(trace, "--pc", "f(P const&, P const&, P*)")
        self.assertTrue(lines and all("<f(P const&, P const&, P*)" in ln for ln in lines), lines[:2])
        r = vxtest.run([vxtest.prog("vxdump"), "--pc", "g", trace])
        self.assertEqual(r.returncode, 2)
        self.assertIn("2 functions are called 'g'; give one's signature or symbol: 'g(int&)' "
                      "(_Z1gRi) 'g(int&&)' (_Z1gOi)", r.stderr)
        for bad in ("f(int, int)", "f(P const&)", "g(int)", "f(char const*"):
            r = vxtest.run([vxtest.prog("vxdump"), "--pc", bad, trace])
            self.assertEqual(r.returncode, 2, bad)
            self.assertIn("no symbol", r.stderr)

    def test_overloads_by_qualifiers(self):
        """member functions that differ by their cv- or ref-qualifiers only are shown, and
        selected with --pc, with those qualifiers, as nm -C spells them"""
        trace, want = cxx_functions(self, QUALIFIER_KERNEL, ["-w", "1", "-t", "4"])
        names = ["R::get() &", "R::get() &&", "R::h() volatile", "R::h() const volatile"]
        self.assertEqual(sorted(n for n in want.names() if n.startswith("R::")), sorted(names))
        assert_pc_selects(self, trace, {n: n for n in names}, want)
        for n in names:
            col, lines = listing(trace, "--pc", n)
            self.assertTrue(lines and all("<%s" % n in ln for ln in lines), (n, lines[:2]))

    def test_pc_cplusplus(self):
        """--pc with a C++ function's name: qualified or not, anonymous namespace, static,
        template (type, pointer, bool and number arguments, member templates), destructor;
        several overloads are refused with their symbols listed"""
        trace, want = cxx_functions(self, CXX_KERNEL, ["-w", "1", "-t", "4"])
        cases = {
            "square": "math::square(int)",
            "math::square": "math::square(int)",
            "cube": "(anonymous namespace)::cube(int)",
            "(anonymous namespace)::cube": "(anonymous namespace)::cube(int)",
            "twice": "twice(int)",                      # internal linkage: _ZL
            "id3": "int math::id3<int>(int)",           # a function template
            "math::inner::deep": "math::inner::deep(int)",
            # the template arguments, the std namespace, constructors: as GDB spells them
            "math::pick<float>": "float math::pick<float>(float)",
            "pick<int>": "int math::pick<int>(int)",
            "geo::Buf<int, 4>::at": "geo::Buf<int, 4>::at(int) const",
            "geo::Buf<int,4>::at": "geo::Buf<int, 4>::at(int) const",
            "geo::Buf::at": "geo::Buf<int, 4>::at(int) const",
            "std::mine": "std::mine(int)",
            "geo::Counter::Counter": "geo::Counter::Counter(int)",
            # template arguments that are classes, pointers, bool, negative and unsigned
            # numbers; a destructor; a member template of a class template
            "ns::id<Point>": "Point ns::id<Point>(Point)",
            "ns::id<char const*>": "char const* ns::id<char const*>(char const*)",
            "ns::flag<true>": "int ns::flag<true>(int)",
            "flag<false>": "int ns::flag<false>(int)",
            "ns::addn<-5>": "int ns::addn<-5>(int)",
            "ns::addu<7u>": "int ns::addu<7u>(int)",
            "ns::Buf<Point, 2>::at": "ns::Buf<Point, 2>::at(int) const",
            "ns::Counter::~Counter": "ns::Counter::~Counter()",
            "ns::W<int>::conv<float>": "int ns::W<int>::conv<float>(float)",
            "conv<float>": "int ns::W<int>::conv<float>(float)",
        }
        assert_pc_selects(self, trace, cases, want)
        for bad in ("inner::square", "::square", "square::", "math::", "nosuch", "math::pick<double>"):
            r = vxtest.run([vxtest.prog("vxdump"), "--pc", bad, trace])
            self.assertEqual(r.returncode, 2, bad)
            self.assertIn("no symbol '%s'" % bad, r.stderr)
        r = vxtest.run([vxtest.prog("vxdump"), "--pc", "over", trace])
        self.assertEqual(r.returncode, 2)
        self.assertIn("2 functions are called 'over'", r.stderr)
        self.assertIn("'math::over(int)' (_ZN4math4overEi)", r.stderr)
        self.assertIn("'math::over(float)' (_ZN4math4overEf)", r.stderr)
        r = vxtest.run([vxtest.prog("vxdump"), "--pc", "ns::id", trace])   # id<Point>, id<char const*>
        self.assertEqual(r.returncode, 2)
        self.assertIn("2 functions are called 'ns::id'", r.stderr)
        r = vxtest.run([vxtest.prog("vxdump"), "--pc", "_ZN4math4overEf", trace])
        self.assertEqual(r.returncode, 0, r.stderr)
        # the listing and the summary show nm -C's names without the parameters, but for
        # the overloads, which that would confuse (nm -C's whole names); JSON the ELF names
        col, lines = listing(trace, "--pc", "math::inner::deep")
        self.assertTrue(lines and all("<math::inner::deep" in ln for ln in lines), lines[:2])
        col, lines = listing(trace, "--pc", "cube")
        self.assertTrue(lines and all("<(anonymous namespace)::cube" in ln for ln in lines))
        col, lines = listing(trace, "--pc", "_ZN4math4overEi")
        self.assertTrue(lines and all("<math::over(int)" in ln for ln in lines))
        summ = vxtest.run([vxtest.prog("vxdump"), "--summary", trace]).stdout
        for shown in ("math::square", "(anonymous namespace)::cube", "math::id3<int>", "twice",
                      "math::over(int)", "math::over(float)", "math::pick<float>", "math::pick<int>",
                      "geo::Buf<int, 4>::at", "std::mine", "geo::Counter::Counter",
                      "ns::id<Point>", "ns::id<char const*>", "ns::flag<true>", "ns::flag<false>",
                      "ns::addn<-5>", "ns::addu<7u>", "ns::Buf<Point, 2>::at", "ns::Counter::~Counter",
                      "ns::W<int>::conv<float>"):
            self.assertRegex(summ, r"\s%s\n" % re.escape(shown))
        self.assertEqual([e["symbol"] for e in t6kit.events(trace, "--pc", "twice")][:1], ["_ZL5twicei"])

    def test_branch_targets(self):
        """direct branches and jal show where they go, with the symbol (as objdump does)"""
        fn = {f[2]: f for f in t6kit.nm_functions(K["t6-bar"])}
        col, lines = listing(T["bar"], "--pc", "spin")
        bnez = [ln for ln in lines if " bnez " in ln]
        self.assertGreater(len(bnez), 20)
        self.assertIn("-> 0x%08x <spin>" % fn["spin"][0], bnez[0])   # the loop's back edge
        col, lines = listing(T["bar"], "--pc", "body")
        jal = [ln for ln in lines if " jal " in ln]
        self.assertTrue(jal and "-> 0x%08x <spin>" % fn["spin"][0] in jal[0], jal[:1])

    def test_warp(self):
        """--warp CORE:WARP or a global id"""
        ev = t6kit.events(T["bar"])
        for sel in ("0:1", "1"):
            got = t6kit.events(T["bar"], "--warp", sel, "--kind", "issue")
            self.assertEqual(got, [e for e in ev if e["type"] == "issue" and e["warp"] == 1], sel)
        both = t6kit.events(T["bar"], "--warp", "0:0,0:1", "--kind", "issue")
        self.assertEqual(len(both), sum(1 for e in ev if e["type"] == "issue"))

    def test_warp_of_other_cores(self):
        """--warp on 2 cores x 2 warps: CORE:WARP and the global id CORE * 2 + WARP select
        that warp's issues (whose they are: the JSON's core and warp); an id past the last
        is refused"""
        t = os.path.join(D, "bar-2x2.vxt")
        if not os.path.exists(t):
            t6kit.record(K["t6-bar"], t, ["-c", "2", "-w", "2", "-t", "4"], expect=0)
        ev = [e for e in t6kit.events(t) if e["type"] == "issue"]
        self.assertEqual({(e["core"], e["warp"]) for e in ev}, {(0, 0), (0, 1), (1, 0), (1, 1)})
        self.assertTrue(all(e["gwarp"] == 2 * e["core"] + e["warp"] for e in ev))
        for c in range(2):
            for w in range(2):
                want = [e for e in ev if e["core"] == c and e["warp"] == w]
                for sel in ("%d:%d" % (c, w), str(2 * c + w)):
                    got = t6kit.events(t, "--warp", sel, "--kind", "issue")
                    self.assertEqual(got, want, sel)
        for bad in ("4", "2:0", "0:2"):
            r = t6kit.vxdump("--warp", bad, t)
            self.assertEqual(r.returncode, 2, bad)
            self.assertIn("--warp: no warp", r.stderr)


class Summary(unittest.TestCase):
    def test_cycles_as_vxsim_counts(self):
        """the text summary counts cycles as vxsim --stats does (0 .. last: one more than the last)"""
        if "vecadd" not in T:
            self.skipTest("vecadd kernel not built")
        r = vxtest.run([vxtest.prog("vxsim"), "--stats", vxtest.kernel("vecadd")])
        m = re.search(r"^cycles: (\d+)$", r.stdout + r.stderr, re.M)
        self.assertTrue(m, r.stdout + r.stderr)
        n = int(m.group(1))
        r = vxtest.run([vxtest.prog("vxdump"), "--summary", T["vecadd"]])
        self.assertIn(" %d cycles (0..%d), " % (n, n - 1), r.stdout)
        # a cycle limit and a deadlock end the run at the start of the END record's cycle,
        # before anything ran in it: vxsim counts up to it, not one more (the summary said
        # 101 cycles for --max-cycles 100)
        dead = t6kit.build("t6-bar", D, ["-DBAR_COUNT=3"])
        for k, args, want in ((vxtest.kernel("vecadd"), ["--max-cycles", "100"], 100),
                              (dead, ["-w", "2", "-t", "4"], None)):
            r = vxtest.run([vxtest.prog("vxsim"), "--stats"] + args + [k])
            n = int(re.search(r"^cycles: (\d+)$", r.stdout + r.stderr, re.M).group(1))
            if want is not None:
                self.assertEqual(n, want)
            t = os.path.join(D, "cycles.vxt")
            t6kit.record(k, t, args, expect=r.returncode)
            r = vxtest.run([vxtest.prog("vxdump"), "--summary", t])
            self.assertIn(" %d cycles (0..%d), " % (n, n - 1), r.stdout, args)
            self.assertRegex(r.stdout, r"end +(limit|fault) at cycle %d\b" % n)

    def test_totals_as_the_events_count_them(self):
        """totals and per-warp counts: a second count over the JSON events"""
        for t in T.values():
            check_totals(self, t)

    def test_a_split_that_faults_is_not_counted(self):
        """a vx_split that faults (ipdom-overflow: tests/kernels/t6-ipdom.S) did not split:
        the summary counts the splits vxsim --stats counts, the faulting one left out"""
        k = t6kit.build("t6-ipdom", D)
        r = vxtest.run([vxtest.prog("vxsim"), "--stats", "-w", "1", "-t", "2", k])
        m = re.search(r"^splits: (\d+) \(divergent (\d+)\)$", r.stdout + r.stderr, re.M)
        self.assertTrue(m, r.stdout + r.stderr)
        t = os.path.join(D, "ipdom.vxt")
        t6kit.record(k, t, ["-w", "1", "-t", "2"], expect=r.returncode)
        splits = [e for e in t6kit.events(t, "--kind", "split")]
        self.assertEqual(len(splits), 2)
        self.assertEqual(splits[1]["fault"]["kind"], "ipdom-overflow")
        r = vxtest.run([vxtest.prog("vxdump"), "--summary", "--json", t])
        s = json.loads(r.stdout)
        self.assertEqual((s["divergence"]["splits"], s["divergence"]["divergent"]),
                         (int(m.group(1)), int(m.group(2))))
        self.assertEqual(s["warps"][0]["splits"], int(m.group(1)))
        self.assertEqual(int(m.group(1)), 1)
        check_totals(self, t)

    def test_loads_limit_and_no_events(self):
        """the summary lists every --load (name, size, address), a run cut by --max-cycles
        ends 'limit at cycle N', and a trace cut before its first events chunk has 0
        events and 0 cycles, exit 1 (from the coverage review)"""
        for name, data in (("sum1.bin", b"abcdefgh"), ("sum2.bin", b"xyz")):
            with open(os.path.join(D, name), "wb") as f:
                f.write(data)
        t = os.path.join(D, "sumloads.vxt")
        t6kit.record(K["t6-regs"], t, ["-w", "1", "--load", os.path.join(D, "sum1.bin") + "@0x10000",
                                       "--load", os.path.join(D, "sum2.bin") + "@0x20000"], expect=7)
        r = t6kit.vxdump("--summary", t)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("\nloads       sum1.bin: 8 bytes at 0x00010000\n"
                      "            sum2.bin: 3 bytes at 0x00020000\n", r.stdout)
        t = os.path.join(D, "sumlimit.vxt")
        t6kit.record(K["t6-regs"], t, ["-w", "1", "--max-cycles", "10"], expect=4)
        r = t6kit.vxdump("--summary", t)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("\nend         limit at cycle 10\n", r.stdout)
        with open(T["regs"], "rb") as f:
            data = f.read()
        first = [c for c in t6kit.chunks(data) if c[1] == 4][0][0]
        cut = os.path.join(D, "sumcut.vxt")
        with open(cut, "wb") as f:
            f.write(data[:first])
        r = t6kit.vxdump("--summary", cut)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("INCOMPLETE", r.stdout)
        self.assertRegex(r.stdout, r"\ntotals +0 events: 0 issues, 0 DM events, no end record\n +0 cycles, ")

    def test_split_joined_apart(self):
        """a divergent split whose sides end at different vx_join instructions (what GCC's
        jump threading made of the split/join recipe): --summary names the two joins, by
        address (from nm) and symbol, and the event where the second one reconverged; a
        split that joins where it should (t6-regs) has none"""
        k = t6kit.build("t6-join", D)
        t = os.path.join(D, "join.vxt")
        t6kit.record(k, t, ["-w", "1", "-t", "4"], expect=0)
        r = vxtest.run(["riscv64-unknown-elf-nm", k])
        sym = {ln.split()[2]: int(ln.split()[0], 16) for ln in r.stdout.splitlines()
               if len(ln.split()) == 3}
        pop = [e for e in t6kit.events(t)
               if any(c["kind"] == "ipdom-pop" for c in e.get("wctl", []))]
        self.assertEqual(len(pop), 1)
        d = t6kit.summary(t)["divergence"]
        self.assertEqual(d["joined_apart"], 1)
        self.assertEqual(d["first_joined_apart"], {"index": pop[0]["index"], "gwarp": 0,
                                                   "first_join": sym["JOIN_A"],
                                                   "second_join": sym["JOIN_B"]})
        r = vxtest.run([vxtest.prog("vxdump"), "--summary", t])
        self.assertIn("1 divergent split joined apart: the two sides ended at different vx_join "
                      "instructions, and the warp went on after the second (first: event %d, "
                      "warp 0, 0x%08x <JOIN_A> then 0x%08x <JOIN_B>)"
                      % (pop[0]["index"], sym["JOIN_A"], sym["JOIN_B"]), r.stdout)
        self.assertEqual(t6kit.summary(T["regs"])["divergence"]["joined_apart"], 0)
        self.assertNotIn("joined apart", vxtest.run([vxtest.prog("vxdump"), "--summary",
                                                     T["regs"]]).stdout)

    def test_unjoined_split_and_waits_at_the_end(self):
        """--summary says which warps finished inside a divergent split (lanes masked off
        there never ran again: t6-unjoined's odd lanes), naming the vx_split by address
        (nm) and symbol; each barrier row counts the warps still waiting at the last
        event (t6-bar with a count of 3: both warps, deadlocked); none for t6-regs"""
        k = t6kit.build("t6-unjoined", D)
        t = os.path.join(D, "unjoined.vxt")
        r = t6kit.record(k, t, ["-w", "1", "-t", "4"], expect=0)
        r = vxtest.run(["riscv64-unknown-elf-nm", k])
        split = [int(ln.split()[0], 16) for ln in r.stdout.splitlines() if ln.endswith(" SPLIT")][0]
        d = t6kit.summary(t)["divergence"]
        self.assertEqual(d["unjoined_warps"], 1)
        self.assertEqual(d["first_unjoined"], {"gwarp": 0, "depth": 1, "split_pc": split})
        text = vxtest.run([vxtest.prog("vxdump"), "--summary", t]).stdout
        self.assertIn("1 warp finished with a split not joined: lanes masked off there never ran "
                      "again (first: warp 0:0, depth 1, vx_split at 0x%08x <SPLIT>;" % split, text)
        self.assertEqual(t6kit.summary(T["regs"])["divergence"]["unjoined_warps"], 0)
        # vxsim and vxrec say so as the run ends (a note: the exit status stays the kernel's)
        note = ("note: warp 0:0 finished with 1 split not joined: lanes 0xa, divided by the "
                "vx_split at pc 0x%08x, never ran again after their side" % split)
        for prog, args in (("vxsim", []), ("vxrec", ["-q", "-f", "-o", os.path.join(D, "u2.vxt")])):
            r = vxtest.run([vxtest.prog(prog), "-w", "1", "-t", "4"] + args + [k])
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stderr.count(note), 1, (prog, r.stderr))
            r = vxtest.run([vxtest.prog(prog), "-w", "1", "-t", "4"] + args +
                           [t6kit.build("t6-join", D)])
            self.assertNotIn("note:", r.stderr, prog)
        k = t6kit.build("t6-bar", D, ["-DBAR_COUNT=3"])
        t = os.path.join(D, "bar3.vxt")
        t6kit.record(k, t, ["-w", "2", "-t", "4"], expect=3)
        bars = t6kit.summary(t)["barriers"]
        self.assertEqual([(b["id"], b["arrivals"], b["releases"], b["waiting_at_end"]) for b in bars],
                         [(0, 2, 0, 2)])
        text = vxtest.run([vxtest.prog("vxdump"), "--summary", t]).stdout
        self.assertRegex(text, r"\n +local 0 +2 +0 +\d+ +\d+ +2\n")

    def test_unjoined_counts_warps_not_finishes(self):
        """(from the whole-diff review) unjoined_warps counts warps: t6-unjoined2's warp 1,
        spawned twice, finishes inside its split both times and is one warp, as vxsim's
        note names one warp (it read '2 warps finished with a split not joined')"""
        k = t6kit.build("t6-unjoined2", D)
        t = os.path.join(D, "unjoined2.vxt")
        t6kit.record(k, t, ["-w", "2", "-t", "4"], expect=0)
        d = t6kit.summary(t)["divergence"]
        self.assertEqual(d["unjoined_warps"], 1)
        self.assertEqual(d["first_unjoined"]["gwarp"], 1)
        text = vxtest.run([vxtest.prog("vxdump"), "--summary", t]).stdout
        self.assertIn("1 warp finished with a split not joined", text)
        r = vxtest.run([vxtest.prog("vxsim"), "-w", "2", "-t", "4", k])
        self.assertEqual(r.stderr.count("note: warp "), 1, r.stderr)

    def test_vecadd_counts(self):
        """--summary numbers recomputed from the JSON dump and nm"""
        if "vecadd" not in T:
            self.skipTest("build/kernels/vecadd.elf missing (make kernels)")
        ev = t6kit.events(T["vecadd"])
        s = t6kit.summary(T["vecadd"])
        issues = [e for e in ev if e["type"] == "issue"]
        end = ev[-1]
        self.assertEqual(end["type"], "end")
        self.assertEqual(s["totals"]["issues"], len(issues))
        self.assertEqual(s["totals"]["events"], len(ev))
        self.assertEqual(s["totals"]["cycles"], end["cycle"])
        lane_ops = sum(t6kit.popcount_hex(e["tmask"]) for e in issues)
        self.assertEqual(s["totals"]["lane_ops"], lane_ops)
        self.assertAlmostEqual(s["totals"]["avg_active_lanes"], lane_ops / len(issues), places=3)
        self.assertEqual(s["totals"]["mem_writes"], sum(len(e["mem"]) for e in issues))
        per = collections.Counter((e["core"], e["warp"]) for e in issues)
        self.assertEqual({(w["core"], w["warp"]): w["issues"] for w in s["warps"]}, dict(per))
        self.assertEqual(len(per), 4, "vecadd uses the 4 warps of the default shape")
        splits = [e for e in issues if e["disasm"].startswith("vx_split")]
        self.assertEqual(s["divergence"]["splits"], len(splits))
        self.assertEqual(s["divergence"]["divergent"],
                         sum(1 for e in splits if any(w["kind"] == "ipdom-push" for w in e["wctl"])))
        self.assertEqual(s["end"]["status"], "exit")
        self.assertEqual(s["end"]["exit_code"], 0)
        self.assertEqual((s["platform"]["warps"], s["platform"]["threads"]), (4, 4))
        self.assertTrue(s["trace"]["complete"])
        # per-function histogram against nm's symbol sizes
        funcs = {name: (a, n) for a, n, name in t6kit.nm_functions(vxtest.kernel("vecadd")) if n}
        got = {f["name"]: f["issues"] for f in s["functions"]}
        self.assertEqual(sum(got.values()), len(issues))
        for name in ("main", "add_cb", "init_cb", "vx_spawn_threads"):
            a, n = funcs[name]
            self.assertEqual(got.get(name), sum(1 for e in issues if a <= e["pc"] < a + n), name)

    def test_text(self):
        """the text summary names the platform, the kernel, the end"""
        r = t6kit.vxdump("--summary", T["regs"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("platform    1 cluster x 1 core x 1 warps x 4 threads", r.stdout)
        self.assertIn("complete", r.stdout)
        self.assertIn("t6-regs.elf (ELF", r.stdout)
        self.assertIn("exit code 7 at cycle 28", r.stdout)
        self.assertIn("1 splits: 1 divergent, 0 uniform", r.stdout)
        self.assertRegex(r.stdout, r"\n\s+29\s+100\.0%\s+\d+\s+_start\n")
        # 29 issues against a whole ELF: the file outweighs the raw log, and says so
        t = t6kit.summary(T["regs"])["trace"]
        self.assertLess(t["raw_bytes"], t["file_bytes"])
        self.assertIn("%.1fx larger than the raw commit log" % (t["file_bytes"] / t["raw_bytes"]),
                      r.stdout)

    def test_regs_and_divergence(self):
        """t6-regs: 29 issues, lane-ops from the masks, one divergent split"""
        s = t6kit.summary(T["regs"])
        self.assertEqual(s["totals"]["issues"], 29)
        self.assertEqual(s["totals"]["lane_ops"], sum(bin(m).count("1") for m, _ in REGS))
        self.assertEqual(s["totals"]["console_bytes"], 2)
        self.assertEqual(s["divergence"], {"splits": 1, "divergent": 1, "uniform": 0,
                                            "joined_apart": 0, "unjoined_warps": 0})
        self.assertEqual(s["functions"], [{"name": "_start", "addr": 0x80000000, "issues": 29,
                                           "lane_ops": s["totals"]["lane_ops"]}])

    def test_barrier_waits(self):
        """t6-bar: two arrivals at barrier 0; warp 0 waits until warp 1 arrives"""
        ev = t6kit.events(T["bar"])
        arrive, release = {}, {}
        for e in ev:
            for w in e.get("wctl", []):
                if w["kind"] == "bar-arrive":
                    arrive[w["warp"]] = e["cycle"]
                if w["kind"] == "bar-release":
                    release[w["warp"]] = e["cycle"]
        self.assertEqual(set(arrive), {0, 1})
        self.assertEqual(set(release), {0, 1})
        self.assertGreaterEqual(arrive[1] - arrive[0], 40, "warp 1 spins 20 iterations more")
        s = t6kit.summary(T["bar"])
        self.assertEqual(s["barriers"], [{"id": 0, "global": False, "arrivals": 2, "releases": 2,
                                          "wait_cycles": sum(release[w] - arrive[w] for w in (0, 1)),
                                          "max_wait": max(release[w] - arrive[w] for w in (0, 1)),
                                          "waiting_at_end": 0}])

    def test_barrier_rows_name_their_scope(self):
        """gbar on 2 cores: the text summary has a row per barrier id, 'local N' adding up
        both cores' barrier N and 'global N', with the arrivals vxdump --json lists"""
        if not os.path.exists(vxtest.kernel("gbar")):
            self.skipTest("example kernels not built")
        trace = os.path.join(D, "gbar.vxt")
        t6kit.record(vxtest.kernel("gbar"), trace, ["-c", "2", "-w", "2", "-t", "4"], expect=0)
        count = collections.Counter()
        for e in t6kit.events(trace, "--kind", "barrier"):
            for w in e["wctl"]:
                if w["kind"] == "bar-arrive":
                    count[("global " if w["arg"] >> 31 else "local ") + str(w["arg"] & 0x7FFFFFFF)] += 1
        self.assertEqual({k[:6] for k in count}, {"local ", "global"})
        r = t6kit.vxdump("--summary", trace)
        rows = dict((m.group(1), int(m.group(2)))
                    for m in re.finditer(r"^ +((?:local|global) \d+) +(\d+) ", r.stdout, re.M))
        self.assertEqual(rows, dict(count), r.stdout)


def tracks(tl):
    """Chrome trace JSON checks shared by the timeline tests; returns {(pid, tid): [events]}."""
    assert set(tl) >= {"traceEvents", "displayTimeUnit"}, tl.keys()
    assert tl["displayTimeUnit"] in ("ms", "ns")
    out = collections.defaultdict(list)
    names = {}
    for e in tl["traceEvents"]:
        assert {"name", "ph", "pid", "tid"} <= set(e), e
        if e["ph"] == "M":
            if e["name"] == "thread_name":
                names[(e["pid"], e["tid"])] = e["args"]["name"]
            continue
        assert e["ph"] in ("X", "i"), e
        assert isinstance(e["ts"], int) and e["ts"] >= 0, e
        if e["ph"] == "X":
            assert isinstance(e["dur"], int) and e["dur"] > 0, e
        else:
            assert e["s"] == "t", e
        out[(e["pid"], e["tid"])].append(e)
    for k, evs in out.items():
        assert k in names, "track %s has a thread_name" % (k,)
        ts = [e["ts"] for e in evs]
        assert ts == sorted(ts), "timestamps in order on track %s" % (k,)
        end = -1
        for e in evs:
            if e["ph"] == "X":
                assert e["ts"] >= end, "slices overlap on track %s: %s" % (k, e)
                end = e["ts"] + e["dur"]
    return out


class Timeline(unittest.TestCase):
    def timeline(self, trace):
        out = os.path.join(D, os.path.basename(trace) + ".json")
        r = t6kit.vxdump("--timeline", out, trace)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out) as f:
            return json.load(f)

    def test_bar(self):
        """t6-bar: runs per function, the barrier wait of warp 0, issue counts add up"""
        tr = tracks(self.timeline(T["bar"]))
        self.assertEqual(set(tr), {(0, 0), (0, 1)})
        ev = t6kit.events(T["bar"])
        arr = [e["cycle"] for e in ev if any(w["kind"] == "bar-arrive" and w["warp"] == 0 for w in e.get("wctl", []))]
        rel = [e["cycle"] for e in ev if any(w["kind"] == "bar-release" and w["warp"] == 0 for w in e.get("wctl", []))]
        waits = [e for e in tr[(0, 0)] if e["name"] == "barrier 0"]
        self.assertEqual(len(waits), 1)
        self.assertEqual((waits[0]["ts"], waits[0]["ts"] + waits[0]["dur"]), (arr[0] + 1, rel[0]))
        self.assertEqual([e for e in tr[(0, 1)] if e["name"].startswith("barrier")], [],
                         "warp 1 arrives last: no wait")
        for w in (0, 1):
            n = sum(1 for e in ev if e["type"] == "issue" and e["warp"] == w)
            self.assertEqual(sum(e["args"]["issues"] for e in tr[(0, w)] if e.get("cat") == "exec"), n)
        self.assertIn("spin", [e["name"] for e in tr[(0, 1)]])
        self.assertIn("body", [e["name"] for e in tr[(0, 1)]])

    def test_instants(self):
        """divergent split and fault markers"""
        tr = tracks(self.timeline(T["regs"]))
        div = [e for e in tr[(0, 0)] if e["ph"] == "i"]
        self.assertEqual([(e["name"], e["ts"]) for e in div], [("divergent split", 13)])
        tr = tracks(self.timeline(T["fault"]))
        self.assertEqual([(e["name"], e["ts"]) for e in tr[(0, 0)] if e["ph"] == "i"], [("fault: misaligned", 2)])

    def test_deadlock(self):
        """a deadlock (t6-bar waiting for 3 warps on 2): an instant 'fault: deadlock' with
        the fault's pc and SIGABRT at the END record's cycle (from the coverage review)"""
        k = t6kit.build("t6-bar", D, ["-DBAR_COUNT=3"])
        t = os.path.join(D, "tl-deadlock.vxt")
        t6kit.record(k, t, ["-w", "2", "-t", "4"], expect=3)
        end = t6kit.events(t, "--kind", "end")[0]
        self.assertEqual(end["fault"]["kind"], "deadlock")
        tr = tracks(self.timeline(t))
        inst = [e for evs in tr.values() for e in evs if e["ph"] == "i"]
        self.assertEqual([(e["name"], e["ts"], e["args"]["signal"], e["args"]["pc"]) for e in inst],
                         [("fault: deadlock", end["cycle"], "SIGABRT", "0x%08x" % end["fault"]["pc"])])

    def test_vecadd(self):
        """vecadd: every warp's track adds up to its issues"""
        if "vecadd" not in T:
            self.skipTest("build/kernels/vecadd.elf missing (make kernels)")
        tr = tracks(self.timeline(T["vecadd"]))
        per = collections.Counter((e["core"], e["warp"]) for e in t6kit.events(T["vecadd"], "--kind", "issue"))
        for k, n in per.items():
            self.assertEqual(sum(e["args"]["issues"] for e in tr[k] if e.get("cat") == "exec"), n, k)


class DebugSession(unittest.TestCase):
    def test_dm_events(self):
        """a trace recorded under the Debug Module: DM records, injected and stepped issues"""
        try:
            import vxdbg
        except ImportError:
            self.skipTest("tests/lib/vxdbg.py missing")
        trace = os.path.join(D, "dm.vxt")
        s = vxdbg.Server(vxtest.prog("vxrec"), ["-q", "-f", "-w", "1", "-o", trace, K["t6-regs"]])
        try:
            self.assertIsNotNone(s.port, s.stderr)
            c = s.connect()
            c.start_halted()
            self.assertEqual(c.read_gpr(10), 0, "a0 before the first instruction")
            self.assertEqual(c.step(), 0x80000004)
            c.resume_all()
            c.poll(vxdbg.AU, vxdbg.AU)
            c.close()
            rc, out, err = s.wait()
        finally:
            s.kill()
        self.assertEqual(rc, 7, err)
        ev = t6kit.events(trace)
        dm = [e for e in ev if e["type"] == "dm"]
        ops = {e["op"] for e in dm}
        self.assertTrue({"read", "write", "halt", "resume"} <= ops, ops)
        halts = [e for e in dm if e["op"] == "halt"]
        self.assertTrue(any(e["gwarp"] == 0 for e in halts))
        # only register accesses name a register (a halt is not a PLATFORM access)
        self.assertEqual({e["reg"] for e in dm if e["op"] not in ("read", "write")}, {None})
        self.assertIn("dctrl", {e["reg"] for e in dm if e["op"] == "write"})
        inj = [e for e in ev if e["type"] == "issue" and e["flags"] & 1]
        step = [e for e in ev if e["type"] == "issue" and e["flags"] & 2]
        self.assertGreaterEqual(len(inj), 1, "read_gpr injects a csrw dscratch")
        self.assertEqual([e["pc"] for e in step], [0x80000000])
        s = check_totals(self, trace)
        self.assertEqual((s["totals"]["injected"], s["totals"]["steps"]), (len(inj), 1))
        col, lines = listing(trace)
        text = "\n".join(lines)
        self.assertIn("dm halt warp 0 [0:0] cause=", text)
        self.assertIn("[injected]", text)
        self.assertIn("[step]", text)
        self.assertEqual(len(listing(trace, "--kind", "dm")[1]), len(dm))
        self.assertEqual(len(t6kit.events(trace, "--kind", "dm", "--warp", "0")),
                         sum(1 for e in dm if e["op"] in ("halt", "resume", "set-pc", "scratch") and e["gwarp"] == 0))
        # vxdiff --per-warp against the same run without a debugger: the Debug Module
        # stream's difference has index_a / index_b too (null on the side without one)
        plain = os.path.join(D, "nodm.vxt")
        t6kit.record(K["t6-regs"], plain, ["-w", "1"], expect=7)
        r = t6kit.vxdiff("--per-warp", "--json", "--max", "0", plain, trace)
        objs = [json.loads(ln) for ln in r.stdout.splitlines()]
        dmd = [o for o in objs if o["type"] == "difference" and o["warp"] is None]
        self.assertEqual(len(dmd), 1, r.stdout[-2000:])
        self.assertEqual((dmd[0]["index_a"], dmd[0]["index_b"]), (None, dm[0]["index"]))
        # --ignore dm leaves out the debugger's events, its injected instructions and the
        # step flag: the same run as without a debugger (its cycles aside: the halts)
        r = t6kit.vxdiff("--ignore", "dm,cycle", plain, trace)
        self.assertEqual(r.returncode, 0, r.stdout[-2000:] + r.stderr)
        r = t6kit.vxdiff("--ignore", "cycle", plain, trace)
        self.assertEqual(r.returncode, 1, r.stdout[-2000:] + r.stderr)
        tr = tracks(json.loads(json.dumps(self._timeline(trace))))
        self.assertTrue(any(e["name"].startswith("halted") for e in tr[(0, 0)]))
        self.assertTrue(any(e["name"] == "step" for e in tr[(0, 0)]))

    def _timeline(self, trace):
        out = trace + ".json"
        r = t6kit.vxdump("--timeline", out, trace)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out) as f:
            return json.load(f)


class Errors(unittest.TestCase):
    def test_usage(self):
        """bad options: exit 2 with a message"""
        for args in (["--lane", "4", T["regs"]], ["--warp", "1:0", T["regs"]], ["--warp", "7", T["regs"]],
                     ["--kind", "bogus", T["regs"]], ["--pc", "nosuchfunc", T["regs"]],
                     ["--pc", "_start+0x80000000", T["regs"]],   # past 4 GiB: it wrapped
                     ["--from", "9", "--to", "3", T["regs"]], [], ["--frob", T["regs"]],
                     [T["regs"], T["regs"]]):
            r = t6kit.vxdump(*args)
            self.assertEqual(r.returncode, 2, args)
            self.assertTrue(r.stderr.startswith("vxdump: "), (args, r.stderr))
        # a list with an empty item: refused (--warp '' selected every warp)
        for opt, v in (("--warp", ""), ("--warp", "0,,1"), ("--warp", "0,"), ("--kind", ""),
                       ("--kind", "issue,,mem"), ("--kind", ",issue")):
            r = t6kit.vxdump(opt, v, T["regs"])
            self.assertEqual(r.returncode, 2, (opt, v))
            self.assertIn("vxdump: %s: an empty item in '%s'" % (opt, v), r.stderr)
            self.assertEqual(r.stdout, "", (opt, v))
        # a filter given twice: refused (the last one silently replaced the first)
        for opt, a, b in (("--pc", "0x80000000", "0x80000004"), ("--addr", "0x100", "0x200:4"),
                          ("--lane", "0", "1"), ("--warp", "0", "1"), ("--kind", "issue", "mem")):
            r = t6kit.vxdump(opt, a, opt, b, T["regs"])
            self.assertEqual(r.returncode, 2, opt)
            self.assertIn("vxdump: %s given twice" % opt, r.stderr)
            self.assertEqual(r.stdout, "", opt)
        r = t6kit.vxdump("--help")
        self.assertEqual(r.returncode, 0)
        self.assertIn("exit status", r.stdout)
        r = t6kit.vxdump("--version")
        self.assertEqual(r.returncode, 0)
        self.assertIn("vxdump", r.stdout)

    def test_options_edge_cases(self):
        """--no-header, --from=N, an option without its value, bad values, a timeline that
        cannot be written (from the coverage review)"""
        r = t6kit.vxdump("--no-header", T["regs"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines(), listing(T["regs"])[1])
        self.assertEqual(indexes(listing(T["regs"], "--from=27")[1]), [27, 28, 29])
        for args, msg in ((["--from"], "option --from needs a value"),
                          (["--from=x", T["regs"]], "--from: 'x' is not an event index"),
                          (["--lane", "128", T["wide"]], "--lane: '128' is not a lane number (0..127)"),
                          (["--pc", "_start+zz", T["regs"]], "--pc: bad offset in '_start+zz'"),
                          (["--timeline", "/nonexistent/t.json", T["regs"]],
                           "cannot create '/nonexistent/t.json': No such file or directory"),
                          (["--timeline", "/dev/full", T["regs"]],
                           "cannot write '/dev/full': No space left on device")):
            if args[1:2] == ["/dev/full"] and not os.path.exists("/dev/full"):
                continue
            r = t6kit.vxdump(*args)
            self.assertEqual(r.returncode, 2, args)
            self.assertIn("vxdump: " + msg, r.stderr)

    def test_stdin_terminal_or_no_tmpdir(self):
        """TRACE '-' on a terminal is refused (vxdump and vxdiff); a TMPDIR where standard
        input cannot be copied is an error, exit 2 (from the coverage review)"""
        import pty
        m, s = pty.openpty()
        try:
            for cmd in ([vxtest.prog("vxdump"), "-"], [vxtest.prog("vxdiff"), "-", T["regs"]]):
                r = subprocess.run(cmd, stdin=s, capture_output=True, text=True, timeout=60)
                self.assertEqual(r.returncode, 2, cmd)
                self.assertIn("the trace '-' is standard input, which is a terminal", r.stderr)
        finally:
            os.close(m)
            os.close(s)
        with open(T["regs"], "rb") as f:
            r = subprocess.run([vxtest.prog("vxdump"), "-"], stdin=f, capture_output=True, text=True,
                               timeout=60, env=dict(os.environ, TMPDIR="/nonexistent"))
        self.assertEqual((r.returncode, r.stdout), (2, ""), r.stderr)
        self.assertIn("cannot copy standard input", r.stderr)

    def test_out_of_memory(self):
        """the reader running out of memory (an address-space limit; --check decodes with
        the state of all 4096 warps of 128 lanes, 128 MiB) says so and names the trace,
        exit 2 (it printed 'no error'); the listing, which needs less, still works"""
        if vxtest.sanitized():
            self.skipTest("sanitizer builds reserve address space of their own")
        import resource
        t = os.path.join(D, "wide.vxt")
        t6kit.record(vxtest.kernel("hello"), t, ["-c", "64", "-w", "64", "-t", "128",
                                                 "--max-cycles", "5"], expect=4)
        limit = lambda: resource.setrlimit(resource.RLIMIT_AS, (100 << 20, 100 << 20))  # noqa: E731
        r = subprocess.run([vxtest.prog("vxdump"), "--check", "--summary", t], capture_output=True,
                           text=True, timeout=120, preexec_fn=limit)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(r.stderr, "vxdump: %s: out of memory\n" % t)
        r = subprocess.run([vxtest.prog("vxdump"), "--kind", "end", t], capture_output=True,
                           text=True, timeout=120, preexec_fn=limit)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("end cycle limit reached", r.stdout)

    def test_trace_on_stdin(self):
        """TRACE '-' reads standard input (a filter: cat t.vxt | vxdump -): the same
        listing and summary as from the file; a cut-off one names standard input"""
        with open(T["regs"], "rb") as f:
            data = f.read()
        for args in ([], ["--json"], ["--summary"], ["--check"]):
            want = t6kit.vxdump(*(args + [T["regs"]]))
            got = subprocess.run([vxtest.prog("vxdump")] + args + ["-"], input=data,
                                 capture_output=True, timeout=120)
            self.assertEqual(got.returncode, want.returncode, args)
            out = got.stdout.decode()
            if "--summary" in args:   # the summary names the file
                out = out.replace("standard input", T["regs"])
            self.assertEqual(out, want.stdout, args)
        cut = subprocess.run([vxtest.prog("vxdump"), "-"], input=data[:len(data) - 10],
                             capture_output=True, timeout=120)
        self.assertEqual(cut.returncode, 1)
        self.assertIn(b"standard input", cut.stderr)

    def test_unreadable(self):
        """missing file, not a trace: exit 2 naming the file"""
        missing = os.path.join(D, "nope.vxt")
        r = t6kit.vxdump(missing)
        self.assertEqual(r.returncode, 2)
        self.assertIn(missing, r.stderr)
        r = t6kit.vxdump(K["t6-regs"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("t6-regs.elf", r.stderr)

    def test_corrupt_and_truncated(self):
        """a flipped byte: exit 2 with the offset; a cut: the complete chunks, exit 1"""
        if "vecadd" not in T:
            self.skipTest("build/kernels/vecadd.elf missing (make kernels)")
        with open(T["vecadd"], "rb") as f:
            data = f.read()
        ev_chunks = [c for c in t6kit.chunks(data) if c[1] == 4]
        self.assertGreater(len(ev_chunks), 8, "recorded with small chunks")
        full = t6kit.vxdump("--json", T["vecadd"]).stdout.splitlines()
        # a flipped byte in the payload of the middle EVENTS chunk
        off, _, stored, key = ev_chunks[len(ev_chunks) // 2]
        at = off + 28 + stored // 2
        bad = os.path.join(D, "bad.vxt")
        with open(bad, "wb") as f:
            f.write(data[:at] + bytes([data[at] ^ 0x40]) + data[at + 1:])
        r = t6kit.vxdump("--json", bad)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("bad.vxt", r.stderr)
        self.assertIn("offset %d" % off, r.stderr)
        got = r.stdout.splitlines()
        self.assertEqual(got, full[:len(got)], "what was shown before the damage is correct")
        self.assertEqual(json.loads(got[-1])["index"] + 1 if got else 0, key,
                         "everything before the damaged chunk is shown")
        # cut in the middle of a later EVENTS chunk
        off, _, stored, key = ev_chunks[-3]
        cut = os.path.join(D, "cut.vxt")
        with open(cut, "wb") as f:
            f.write(data[:off + 28 + stored // 2])
        r = t6kit.vxdump("--json", cut)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("incomplete", r.stderr)
        got = r.stdout.splitlines()
        self.assertLess(len(got), len(full))
        self.assertEqual(got, full[:len(got)], "a prefix of the complete trace")
        self.assertEqual(json.loads(got[-1])["index"] + 1, key, "up to the last complete chunk")
        # a flipped byte in keyframe 0 (its pages, or since format 1.1, where it stores no
        # page, its KEYFRAME2 chunk): the listing does not read it, --check does
        off, _, stored, _ = [c for c in t6kit.chunks(data) if c[1] in (5, 6, 9, 10)][0]
        at = off + 28 + stored // 2
        kf = os.path.join(D, "kf.vxt")
        with open(kf, "wb") as f:
            f.write(data[:at] + bytes([data[at] ^ 0x10]) + data[at + 1:])
        self.assertEqual(t6kit.vxdump("--summary", kf).returncode, 0)
        r = t6kit.vxdump("--check", "--summary", kf)
        self.assertEqual(r.returncode, 2)
        self.assertIn("offset %d" % off, r.stderr)
        s = t6kit.vxdump("--summary", cut)
        self.assertEqual(s.returncode, 1)
        self.assertIn("INCOMPLETE", s.stdout)


def regs_with_start_renamed(name):
    """The t6-regs kernel's ELF with _start renamed in place to name (6 bytes; the string
    table may share its bytes with the tail of another name, which is renamed too)."""
    assert len(name) == 6
    with open(K["t6-regs"], "rb") as f:
        elf = bytearray(f.read())
    shoff, = struct.unpack_from("<I", elf, 0x20)
    shentsize, shnum = struct.unpack_from("<HH", elf, 0x2E)
    sh = [struct.unpack_from("<10I", elf, shoff + i * shentsize) for i in range(shnum)]
    symtab = [x for x in sh if x[1] == 2][0]  # SHT_SYMTAB
    strtab = sh[symtab[6]][4]  # sh_link -> its string table's offset
    at = None
    for o in range(symtab[4], symtab[4] + symtab[5], 16):
        st_name, = struct.unpack_from("<I", elf, o)
        if elf[strtab + st_name:strtab + st_name + 7] == b"_start\0":
            at = strtab + st_name
    assert at is not None, "_start in the symbol table"
    elf[at:at + 6] = name
    return elf


class Strings(unittest.TestCase):
    def test_non_ascii_names(self):
        """JSON is UTF-8: a symbol and a kernel file name holding \u00e9, \u20ac and a byte
        that is not UTF-8 show the UTF-8 as it is and that byte as U+FFFD (--json,
        --summary --json, --timeline)"""
        elf = regs_with_start_renamed("\u00e9\u20ac".encode() + b"\xff")  # as long as _start
        kern = os.path.join(os.fsencode(D), "k\u00e9rnel\u20ac".encode() + b"\xfe.elf")
        with open(kern, "wb") as f:
            f.write(elf)
        trace = os.path.join(D, "names.vxt")
        t6kit.record(os.fsdecode(kern), trace, ["-w", "1", "-t", "4"], expect=7)

        def run(*args):
            r = subprocess.run([vxtest.prog("vxdump")] + list(args) + [trace],
                               capture_output=True, timeout=300)
            self.assertEqual(r.returncode, 0, r.stderr)
            return r.stdout.decode("utf-8")  # strict: the output is valid UTF-8
        sym = "\u00e9\u20ac\ufffd"
        out = run("--json")
        self.assertNotIn("\\u00", out, "UTF-8 is not escaped byte by byte")
        self.assertIn('"symbol":"%s+0xc"' % sym, out)
        self.assertEqual(json.loads(out.splitlines()[3])["symbol"], sym + "+0xc")
        sm = json.loads(run("--summary", "--json"))
        self.assertEqual(sm["kernel"]["name"], "k\u00e9rnel\u20ac\ufffd.elf")
        self.assertIn(sym, [f["name"] for f in sm["functions"]])
        tl = json.loads(run("--timeline", "-"))
        self.assertIn(sym, json.dumps(tl, ensure_ascii=False))


    def test_terminal_escapes_in_names_are_shown_not_sent(self):
        """a kernel file name and a symbol holding terminal escape sequences (a window title
        set by OSC, the screen cleared, a C1 CSI): the text summary and listing show them as
        \\xNN, not to the terminal (a trace from someone else drove it)"""
        elf = regs_with_start_renamed(b"\x1b]0;x\x07")
        kern = os.path.join(os.fsencode(D), b"k\x1b]0;pwned\x07\x1b[2J\xc2\x9b1m\xe0\x80\x9b.elf")
        with open(kern, "wb") as f:
            f.write(elf)
        trace = os.path.join(D, "term.vxt")
        t6kit.record(os.fsdecode(kern), trace, ["-w", "1", "-t", "4"], expect=7)
        out = b""
        for args in (["--summary"], []):
            r = subprocess.run([vxtest.prog("vxdump")] + args + [trace], capture_output=True,
                               timeout=120)
            self.assertEqual(r.returncode, 0, r.stderr)
            out += r.stdout
        for bad in (b"\x1b", b"\x07", b"\xc2\x9b", b"\xe0\x80\x9b"):   # (the last: an overlong ESC)
            self.assertNotIn(bad, out)
        self.assertIn(b"k\\x1b]0;pwned\\x07\\x1b[2J\\xc2\\x9b1m\\xe0\\x80\\x9b.elf", out)
        self.assertIn(b"<\\x1b]0;x\\x07", out)                    # the symbol

    def test_terminal_escapes_in_a_fault_reason_are_shown_not_sent(self):
        """a trace whose fault reason holds terminal escape sequences (OSC 52 writing the
        clipboard, a line erased): the listing shows them as \\xNN (from a security
        review: they reached the terminal)"""
        r = vxtest.run([vxtest.prog("vxdump"), "--json", "--kind", "end", T["fault"]])
        reason = json.loads(r.stdout.splitlines()[-1])["fault"]["reason"].encode()
        evil = b"\x1b]52;c;cm0gLXJmIH4K\x07\x1b[2K\rok"
        evil += b" " * (len(reason) - len(evil))        # as long: the encoding stays right

        def edit(chunks):
            for c in chunks:
                if c[0] == vxt_spec.CH_EVENTS and reason in c[2]:
                    c[2] = c[2].replace(reason, evil)
        with open(T["fault"], "rb") as f:
            data = vxt_make.edit_recording(f.read(), edit)
        t = os.path.join(D, "evil-fault.vxt")
        with open(t, "wb") as f:
            f.write(data)
        r = subprocess.run([vxtest.prog("vxdump"), t], capture_output=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn(b"\x1b", r.stdout)
        self.assertIn(b"\\x1b]52;c;cm0gLXJmIH4K\\x07\\x1b[2K\\x0dok", r.stdout)

    def test_control_and_bad_utf8_escaped(self):
        """a kernel file name with a tab, a newline, DEL, a 4-byte UTF-8 character, a stray
        0xff and a sequence past U+10FFFF (f4 90 80 80): JSON escapes the controls, keeps
        the character and replaces each bad byte by U+FFFD (f4 cannot start a sequence
        with 90 after it, and the three continuation bytes are alone: five in all); the
        listing escapes console bytes '"', '\\', tab and 0x01 (from the coverage review)"""
        kern = os.path.join(os.fsencode(D), b"k\tx\n\x7f" + "\U0001F600".encode() +
                            b"\xff\xf4\x90\x80\x80.elf")
        shutil.copy(K["t6-regs"], kern)
        trace = os.path.join(D, "esc.vxt")
        t6kit.record(os.fsdecode(kern), trace, ["-w", "1", "-t", "4"], expect=7)
        r = subprocess.run([vxtest.prog("vxdump"), "--summary", "--json", trace],
                           capture_output=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        want = "k\tx\n\x7f\U0001F600" + "\ufffd" * 5 + ".elf"
        self.assertIn(b'"name":"k\\tx\\n\\u007f' + want[5:].encode() + b'"', r.stdout)
        self.assertEqual(json.loads(r.stdout.decode("utf-8"))["kernel"]["name"], want)
        col, lines = listing(T["wide"], "--kind", "console")
        self.assertEqual([ln[col:] for ln in lines],
                         ['console[0]="\\""', 'console[0]="\\\\"', 'console[0]="\\x09"',
                          'console[0]="\\x01"'])


class Extract(unittest.TestCase):
    def test_extract_keeps_other_files(self):
        """--extract into a directory that holds a different file of a name it would write:
        refused (exit 2), that file intact, nothing else lost (it was silently overwritten);
        extracting the same trace again is fine"""
        out = os.path.join(D, "xkeep")
        os.mkdir(out)
        mine = os.path.join(out, "t6-regs.elf")
        with open(mine, "w") as f:
            f.write("my notes\n")
        r = t6kit.vxdump("--extract", out, T["regs"])
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("'%s' exists and holds something else: not overwritten" % mine, r.stderr)
        self.assertEqual(r.stdout, "")
        with open(mine) as f:
            self.assertEqual(f.read(), "my notes\n")
        os.unlink(mine)
        for _ in range(2):
            r = t6kit.vxdump("--extract", out, T["regs"])
            self.assertEqual(r.returncode, 0, r.stderr)
        with open(mine, "rb") as f, open(K["t6-regs"], "rb") as g:
            self.assertEqual(f.read(), g.read())
        # loads whose names collide, also with a name made for another (load1.bin): every
        # file gets a name of its own (one was refused as 'exists'), and the options
        # record the same run; a refusal prints no options (half a line was printed)
        for sub, data in (("a", b"AAAA"), ("b", b"BBBB"), ("", b"CCCC")):
            os.makedirs(os.path.join(D, "ld", sub), exist_ok=True)
            with open(os.path.join(D, "ld", sub, "x.bin" if sub else "load1.bin"), "wb") as f:
                f.write(data)
        lt = os.path.join(D, "ld.vxt")
        t6kit.record(K["t6-regs"], lt, ["-w", "1", "--load", os.path.join(D, "ld/a/x.bin@0x20000"),
                                        "--load", os.path.join(D, "ld/b/x.bin@0x21000"),
                                        "--load", os.path.join(D, "ld/load1.bin@0x22000")], expect=7)
        out = os.path.join(D, "xld")
        r = t6kit.vxdump("--extract", out, lt)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(sorted(os.listdir(out)), ["load1.bin", "load2.bin", "t6-regs.elf", "x.bin"])
        args = r.stdout.split()
        again = os.path.join(D, "ld-again.vxt")
        t6kit.record(args[-1], again, args[:-1], expect=7)
        self.assertEqual(t6kit.vxdiff(lt, again).returncode, 0)
        with open(os.path.join(out, "load2.bin"), "wb") as f:
            f.write(b"mine")
        r = t6kit.vxdump("--extract", out, lt)
        self.assertEqual((r.returncode, r.stdout), (2, ""), r.stderr)

    def test_extract_name_clashes(self):
        """loads load2.bin, a/x.bin, b/x.bin: the third is named as load 2 would be, which
        the first took, so it becomes load2-2.bin; each file holds its load and the printed
        options name them; a directory under a file cannot be made (from the coverage review)"""
        src = os.path.join(D, "clash")
        for sub, name, data in (("", "load2.bin", b"LLLL"), ("a", "x.bin", b"AAAA"), ("b", "x.bin", b"BBBB")):
            os.makedirs(os.path.join(src, sub), exist_ok=True)
            with open(os.path.join(src, sub, name), "wb") as f:
                f.write(data)
        t = os.path.join(D, "clash.vxt")
        t6kit.record(K["t6-regs"], t, ["-w", "1", "--load", os.path.join(src, "load2.bin@0x20000"),
                                       "--load", os.path.join(src, "a/x.bin@0x21000"),
                                       "--load", os.path.join(src, "b/x.bin@0x22000")], expect=7)
        out = os.path.join(D, "xclash")
        r = t6kit.vxdump("--extract", out, t)
        self.assertEqual(r.returncode, 0, r.stderr)
        got = {}
        for name in sorted(os.listdir(out)):
            with open(os.path.join(out, name), "rb") as f:
                got[name] = f.read()
        self.assertEqual({k: v for k, v in got.items() if k.endswith(".bin")},
                         {"load2.bin": b"LLLL", "x.bin": b"AAAA", "load2-2.bin": b"BBBB"})
        self.assertEqual([a for a in r.stdout.split() if "@" in a],
                         [os.path.join(out, "load2.bin@0x20000"), os.path.join(out, "x.bin@0x21000"),
                          os.path.join(out, "load2-2.bin@0x22000")])
        r = t6kit.vxdump("--extract", os.path.join(t, "sub"), t)
        self.assertEqual((r.returncode, r.stdout), (2, ""))
        self.assertIn("cannot create directory '%s'" % os.path.join(t, "sub"), r.stderr)

    def test_extract_and_rerecord(self):
        """--extract writes the kernel and the loads and prints vxrec options that record the same run"""
        inp = os.path.join(D, "in.bin")
        with open(inp, "wb") as f:
            f.write(bytes(range(32)))
        orig = os.path.join(D, "ld.vxt")
        t6kit.record(K["t6-regs"], orig, ["-w", "1", "--load", inp + "@0x20000", "--arg", "0x20000"], expect=7)
        out = os.path.join(D, "x")
        r = t6kit.vxdump("--extract", out, orig)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(out, "t6-regs.elf"), "rb") as f, open(K["t6-regs"], "rb") as g:
            self.assertEqual(f.read(), g.read())
        with open(os.path.join(out, "in.bin"), "rb") as f:
            self.assertEqual(f.read(), bytes(range(32)))
        args = r.stdout.split()
        self.assertIn("--arg", args)
        if os.path.exists("/dev/full"):   # the printed options are the result: lost is an error
            with open("/dev/full", "w") as full:
                lost = subprocess.run([vxtest.prog("vxdump"), "--extract", out, orig], stdout=full,
                                      stderr=subprocess.PIPE, text=True, timeout=60)
            self.assertEqual(lost.returncode, 2, lost.stderr)
            self.assertIn("cannot write the output", lost.stderr)
        again = os.path.join(D, "again.vxt")
        t6kit.record(args[-1], again, args[:-1], expect=7)
        d = t6kit.vxdiff(orig, again)
        self.assertEqual(d.returncode, 0, d.stdout + d.stderr)
        # the misaligned mode is a run option too (vxdiff tells runs apart by it)
        mis = os.path.join(D, "mis.vxt")
        t6kit.record(K["t6-regs"], mis, ["-w", "1", "--allow-misaligned"], expect=7)
        r = t6kit.vxdump("--extract", os.path.join(D, "xm"), mis)
        self.assertIn("--allow-misaligned", r.stdout.split())
        again = os.path.join(D, "again-mis.vxt")
        args = r.stdout.split()
        t6kit.record(args[-1], again, args[:-1], expect=7)
        d = t6kit.vxdiff(mis, again)
        self.assertEqual(d.returncode, 0, d.stdout + d.stderr)
        # a keyframe interval other than the default: the same trace, byte for byte
        kf = os.path.join(D, "kf.vxt")
        t6kit.record(K["t6-regs"], kf, ["-w", "1", "--keyframe-interval", "5"], expect=7)
        r = t6kit.vxdump("--extract", os.path.join(D, "xk"), kf)
        self.assertIn("--keyframe-interval 5", r.stdout)
        again = os.path.join(D, "again-kf.vxt")
        args = r.stdout.split()
        t6kit.record(args[-1], again, args[:-1], expect=7)
        with open(kf, "rb") as f, open(again, "rb") as g:
            self.assertEqual(f.read(), g.read())
        # names a shell would split or expand are quoted: the printed words run as they are
        odd = os.path.join(D, "it's $(x) data.bin")
        with open(odd, "wb") as f:
            f.write(bytes(range(16)))
        orig = os.path.join(D, "odd.vxt")
        t6kit.record(K["t6-regs"], orig, ["-w", "1", "--load", odd + "@0x20000"], expect=7)
        r = t6kit.vxdump("--extract", os.path.join(D, "x y"), orig)
        self.assertEqual(r.returncode, 0, r.stderr)
        args = shlex.split(r.stdout)
        self.assertIn(os.path.join(D, "x y", "it's $(x) data.bin") + "@0x20000", args)
        again = os.path.join(D, "again-odd.vxt")
        t6kit.record(args[-1], again, args[:-1], expect=7)
        d = t6kit.vxdiff(orig, again)
        self.assertEqual(d.returncode, 0, d.stdout + d.stderr)

    def test_outputs_never_overwrite_the_trace(self):
        """--timeline and --extract refuse to write over the trace they read; a load named
        like the kernel is extracted under another name (re-recording works)"""
        d = vxtest.tmpdir()
        inp = os.path.join(d, "t6-regs.elf")          # a data file with the kernel's name
        with open(inp, "wb") as f:
            f.write(bytes(range(32)))
        trace = os.path.join(d, "kk.vxt")
        t6kit.record(K["t6-regs"], trace, ["-w", "1", "--load", inp + "@0x20000"], expect=7)
        with open(trace, "rb") as f:
            data = f.read()
        r = t6kit.vxdump("--timeline", trace, trace)
        self.assertEqual(r.returncode, 2)
        self.assertIn("is the trace itself", r.stderr)
        out = os.path.join(d, "x")
        r = t6kit.vxdump("--extract", out, trace)
        self.assertEqual(r.returncode, 0, r.stderr)
        args = r.stdout.split()
        loads = [a.split("@")[0] for a in args if "@" in a]
        self.assertEqual(len(set(loads + [args[-1]])), 2, args)
        with open(args[-1], "rb") as f, open(K["t6-regs"], "rb") as g:
            self.assertEqual(f.read(), g.read())
        again = os.path.join(d, "again.vxt")
        t6kit.record(args[-1], again, args[:-1], expect=7)
        self.assertEqual(t6kit.vxdiff(trace, again).returncode, 0)
        # a trace named like its kernel, extracted into its own directory
        named = os.path.join(d, "t6-regs.elf.vxt")
        shutil.copy(trace, named)
        os.rename(named, os.path.join(d, "t6-regs.elf"))
        r = t6kit.vxdump("--extract", d, os.path.join(d, "t6-regs.elf"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("would overwrite the trace itself", r.stderr)
        with open(os.path.join(d, "t6-regs.elf"), "rb") as f:
            self.assertEqual(f.read(), data)


PACK_KERNEL = r"""
#define NI __attribute__((noinline))
namespace ns {
template <typename... T> struct Pack { NI int size(int a) const { return a + (int)sizeof...(T); } };
template <int N, typename... T> struct Lit { NI int get(int a) const { return a + N; } };
}
volatile int sink;
int main() {
    ns::Pack<int, int> p;
    ns::Lit<12, int> q;
    sink = p.size((int)sink + 2) + q.get((int)sink);
    return 0;
}
"""


class Symbols(unittest.TestCase):
    def test_pc_names_an_alias(self):
        """--pc takes any function symbol at an address, not only the one vxdump shows:
        every name binutils' nm lists at one code address selects the same issues
        (__riscv_save_1 is __riscv_save_0; it said 'no symbol')"""
        if not shutil.which("riscv64-unknown-elf-nm"):
            self.skipTest("binutils for RISC-V missing")
        k = vxtest.kernel("hello")
        trace = os.path.join(vxtest.tmpdir(), "hello.vxt")
        t6kit.record(k, trace, ["-w", "1", "-t", "1"], expect=0)
        r = vxtest.run(["riscv64-unknown-elf-nm", "--defined-only", k])
        at = {}
        for line in r.stdout.splitlines():
            f = line.split()
            if len(f) == 3 and f[1] in "tTW" and not f[2].startswith("."):
                at.setdefault(int(f[0], 16), set()).add(f[2])
        groups = [sorted(n) for n in at.values() if len(n) > 1]
        self.assertIn("__riscv_save_1", {n for g in groups for n in g})
        for g in groups:
            lists = []
            for name in g:
                r = t6kit.vxdump("--json", "--kind", "issue", "--pc", name, trace)
                self.assertEqual(r.returncode, 0, "%s: %s" % (name, r.stderr))
                lists.append(r.stdout)
            self.assertEqual(len(set(lists)), 1, g)
        # (not vacuous: hello runs __riscv_save_0)
        self.assertTrue(t6kit.events(trace, "--pc", "__riscv_save_1"))

    def test_nested_symbol(self):
        """a PC of a sized function past a smaller sized symbol nested in it is the
        function's (objdump and GDB say <outer+0xc>); it had no symbol, and the summary
        counted it as code without symbols"""
        d = vxtest.tmpdir()
        k = t6kit.build("t6-nested", d)
        trace = os.path.join(d, "nested.vxt")
        t6kit.record(k, trace, ["-w", "1", "-t", "1"], expect=7)
        col, lines = listing(trace)
        sym = {int(ln.split()[0]): ln.split()[4] for ln in lines if "end " not in ln}
        self.assertEqual([sym[i] for i in range(1, 7)],
                         ["<outer>", "<outer+0x4>", "<inner>", "<outer+0xc>", "<outer+0x10>",
                          "<outer+0x14>"])
        r = t6kit.vxdump("--summary", trace)
        self.assertRegex(r.stdout, r"(?m)^ +5 +\S+ +\d+ +outer$")
        self.assertRegex(r.stdout, r"(?m)^ +1 +\S+ +\d+ +inner$")
        self.assertNotIn("no symbol", r.stdout)

    def test_pc_operators(self):
        """C++ operators are named as GDB spells them (geo::V::operator+, operator(),
        operator int), in the listing and the summary, and --pc selects them, with a '+'
        that is the operator's, not an offset; a copy GCC made of a function (at -O2 most
        small member functions are .isra.0 copies) shows its suffix, as C's
        f.constprop.0 does, and --pc selects it with or without it.  Before, operators
        and such copies showed their ELF names only and --pc knew them by no other"""
        trace, want = cxx_functions(self, OPS_KERNEL, ["-w", "1", "-t", "4"], opt="-O2")

        def nm(sig):
            """nm -C's name of the function sig, or of the one copy GCC made of it"""
            got = [f for f in want.names() if f == sig or f.startswith(sig + " [clone ")]
            self.assertEqual(len(got), 1, (sig, want.names()))
            return got[0]
        cases = {
            "geo::V::operator+": "geo::V::operator+(geo::V const&) const",
            "operator+": "geo::V::operator+(geo::V const&) const",
            "V::operator+=": "geo::V::operator+=(geo::V const&)",
            "geo::V::operator++": "geo::V::operator++()",
            "operator==": "geo::V::operator==(geo::V const&) const",
            "geo::V::operator[]": "geo::V::operator[](int) const",
            "geo::V::operator int": "geo::V::operator int() const",
            "geo::operator<<": "geo::operator<<(geo::V const&, int)",
            "operator<<": "geo::operator<<(geo::V const&, int)",
            "Fn::operator()": "Fn::operator()(int) const",
            "Fn::operator ()": "Fn::operator()(int) const",
        }
        assert_pc_selects(self, trace, cases, lambda sig: want(nm(sig)))
        inc = nm("geo::V::operator++()")
        got = [e["pc"] for e in t6kit.events(trace, "--pc", "geo::V::operator+++0x4")]
        self.assertTrue(got)
        self.assertEqual(set(got), {want.lo(inc) + 4})
        call = nm("Fn::operator()(int) const")
        suffix = call.split(" [clone ")[1].rstrip("]") if "[clone" in call else ""
        got = [e["index"] for e in t6kit.events(trace, "--pc", "Fn::operator()" + suffix)]
        self.assertEqual(got, want(call))
        # (from the whole-diff review) a copy of operator+ or operator++ by the name the
        # listing shows, its suffix after the operator's '+': no offset ('bad offset')
        for op in ("geo::V::operator+(geo::V const&) const", "geo::V::operator++()"):
            c = nm(op)
            if "[clone" not in c:
                continue
            shown = op.split("(")[0] + c.split(" [clone ")[1].rstrip("]")
            r = t6kit.vxdump("--pc", shown, trace)
            self.assertEqual(r.returncode, 0, (shown, r.stderr))
            self.assertEqual([e["index"] for e in t6kit.events(trace, "--pc", shown)], want(c))
        r = t6kit.vxdump("--pc", "geo::V::operator-", trace)
        self.assertEqual(r.returncode, 2)
        self.assertIn("no symbol 'geo::V::operator-'", r.stderr)
        summ = t6kit.vxdump("--summary", trace).stdout
        for shown in ("geo::V::operator+", "geo::V::operator+=", "geo::V::operator++",
                      "geo::V::operator==", "geo::V::operator[]", "geo::V::operator int",
                      "geo::operator<<", "Fn::operator()"):
            sig = [f for f in cases.values() if f.startswith(shown + "(")][0]
            c = nm(sig)
            sfx = c.split(" [clone ")[1].rstrip("]") if "[clone" in c else ""
            self.assertRegex(summ, r"\s%s\n" % re.escape(shown + sfx))
        col, lines = listing(trace, "--pc", "operator<<")
        self.assertTrue(lines and all("<geo::operator<<" in ln for ln in lines), lines[:2])

    def test_pc_names_that_begin_with_operator(self):
        """(from the whole-diff review) a namespace or class whose name only begins with
        'operator' (operators, operator_pool) is no operator: --pc selects
        operators::run and operator_pool::get by their qualified names, which the listing
        shows.  Since operators were named, such a name read 'no symbol'"""
        trace, want = cxx_functions(self, OPNAMES_KERNEL, ["-w", "1", "-t", "1"])
        for name, sig in (("operators::run", "operators::run(int)"), ("run", "operators::run(int)"),
                          ("operator_pool::get", "operator_pool::get(int)"),
                          ("ns::operator_pool::get", None)):
            r = t6kit.vxdump("--pc", name, trace)
            if sig is None:
                self.assertEqual(r.returncode, 2, name)
                continue
            self.assertEqual(r.returncode, 0, (name, r.stderr))
            got = [e["index"] for e in t6kit.events(trace, "--pc", name)]
            self.assertTrue(got, name)
            self.assertEqual(got, want(sig), name)

    def test_pc_member_of_a_variadic_template(self):
        """--pc names a member of a variadic class template (its mangled name has an
        argument pack, J...E): size and ns::Pack::size select its code, Pack (the class)
        selects nothing; the pack's E was taken for the name's end, so Pack selected it"""
        trace, want = cxx_functions(self, PACK_KERNEL, ["-w", "1", "-t", "1"])
        size = want("ns::Pack<int, int>::size(int) const")
        self.assertTrue(size)
        for name in ("size", "Pack::size", "ns::Pack::size"):
            self.assertEqual([e["index"] for e in t6kit.events(trace, "--pc", name)], size, name)
        # a literal argument before the pack (Li12E): its digits are no name's length
        get = want("ns::Lit<12, int>::get(int) const")
        self.assertTrue(get)
        self.assertEqual([e["index"] for e in t6kit.events(trace, "--pc", "ns::Lit::get")], get)
        r = t6kit.vxdump("--pc", "Pack", trace)
        self.assertEqual(r.returncode, 2)
        self.assertIn("no symbol 'Pack'", r.stderr)


if __name__ == "__main__":
    vxtest.main(Listing, Filters, Summary, Timeline, DebugSession, Errors, Strings, Extract,
                Symbols)
