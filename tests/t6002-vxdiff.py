#!/usr/bin/env python3
"""t6002: vxdiff - identical traces, a changed input, a changed platform shape
(--per-warp), a changed kernel, traces of different length, --ignore, --max,
context, JSON, and damaged inputs.

Where the first difference must be is computed independently from vxdump's JSON
listing of the traces (e.g. the first `lw a5` issued by warp 1) and from the
input files the test wrote.
"""
import json
import os
import struct
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
import vxtest  # noqa: E402
import t6kit  # noqa: E402
import vxt_spec  # noqa: E402


def setUpModule():
    global D, K
    if not t6kit.have_toolchain() or not os.path.exists(vxtest.prog("vxrec")):
        raise unittest.SkipTest("vxcc, riscv64-unknown-elf-ld or vxrec missing")
    D = vxtest.tmpdir()
    K = {
        "regs": t6kit.build("t6-regs", D),
        "alt": t6kit.build("t6-regs", D, ["-DT6_ALT"]),
        "altcon": t6kit.build("t6-regs", D, ["-DT6_ALT_CONSOLE"]),
        "altslot": t6kit.build("t6-regs", D, ["-DT6_ALT_SLOT"]),
        "altlane": t6kit.build("t6-regs", D, ["-DT6_ALT_LANE"]),
        "shape": t6kit.build("t6-shape", D),
        "float": t6kit.build("t6-float", D),
    }
    words1 = list(range(100, 108))
    words2 = list(words1)
    words2[5] = 999  # thread 5 = global warp 1, lane 1 (4 threads per warp)
    for name, w in (("in1.bin", words1), ("in2.bin", words2), ("f1.bin", [0x4B800000]),
                    ("f2.bin", [0x4B800001])):
        with open(os.path.join(D, name), "wb") as f:
            f.write(struct.pack("<%dI" % len(w), *w))


def rec(kernel, name, args=(), expect=None):
    path = os.path.join(D, name)
    t6kit.record(kernel, path, list(args), expect=expect)
    return path


def diff_json(*args):
    """vxdiff --json: (exit status, [objects])."""
    r = t6kit.vxdiff("--json", *args)
    return r.returncode, [json.loads(ln) for ln in r.stdout.splitlines()], r.stderr


def load(name):
    return ["--load", os.path.join(D, name) + "@0x20000", "--arg", "0x20000"]


class Identical(unittest.TestCase):
    def test_same_kernel_twice(self):
        """two recordings of the same run: exit 0, nothing printed"""
        a = rec(K["regs"], "r1.vxt", ["-w", "1"], 7)
        b = rec(K["regs"], "r2.vxt", ["-w", "1"], 7)
        r = t6kit.vxdiff(a, b)
        self.assertEqual((r.returncode, r.stdout), (0, ""), r.stderr)
        r = t6kit.vxdiff("-v", a, b)
        self.assertIn("identical", r.stdout)
        rc, objs, err = diff_json(a, b)
        self.assertEqual(rc, 0, err)
        self.assertEqual(objs[-1]["type"], "result")
        self.assertTrue(objs[-1]["identical"])
        self.assertEqual(objs[-1]["compared_a"], 30)
        self.assertEqual(t6kit.vxdiff("--per-warp", a, b).returncode, 0)

    def test_float_values(self):
        """a float register differing in its last bit: the values in as many digits as
        tell them apart (with 6, both read 1.67772e+07)"""
        a = rec(K["float"], "f1.vxt", ["-w", "1", "-t", "1"] + load("f1.bin"), 3)
        b = rec(K["float"], "f2.vxt", ["-w", "1", "-t", "1"] + load("f2.bin"), 3)
        r = t6kit.vxdiff(a, b)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("fa1 lane 0: 0x4b800000 (16777216.0) != 0x4b800001 (16777218.0)", r.stdout)
        self.assertIn("fa1=16777216.0", r.stdout)
        self.assertIn("fa1=16777218.0", r.stdout)

    def test_one_trace_on_stdin(self):
        """'-' for either trace reads standard input; both '-' is a usage error"""
        a = rec(K["regs"], "s1.vxt", ["-w", "1"], 7)
        b = rec(K["regs"], "s2.vxt", ["-w", "2"], 7)
        want = t6kit.vxdiff(a, b)
        self.assertEqual(want.returncode, 1)
        with open(b, "rb") as f:
            data = f.read()
        got = subprocess.run([vxtest.prog("vxdiff"), a, "-"], input=data, capture_output=True,
                             timeout=120)
        self.assertEqual(got.returncode, 1, got.stderr)
        self.assertEqual(got.stdout.decode().replace("standard input", b), want.stdout)
        same = subprocess.run([vxtest.prog("vxdiff"), "-", b], input=data, capture_output=True,
                              timeout=120)
        self.assertEqual((same.returncode, same.stdout), (0, b""), same.stderr)
        r = subprocess.run([vxtest.prog("vxdiff"), "-", "-"], input=data, capture_output=True,
                           timeout=120)
        self.assertEqual(r.returncode, 2)
        self.assertIn(b"only one of the traces", r.stderr)

    def test_vecadd_twice(self):
        """a real kernel, recorded twice with different chunk sizes: identical events"""
        if not os.path.exists(vxtest.kernel("vecadd")):
            self.skipTest("make kernels")
        a = rec(vxtest.kernel("vecadd"), "va.vxt", [], 0)
        b = rec(vxtest.kernel("vecadd"), "vb.vxt", ["--chunk-size", "4096", "--no-compress"], 0)
        r = t6kit.vxdiff(a, b)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_default_memory_limit(self):
        """--mem-limit 1G is the default (MEM_LIMIT 0): no difference; 2G is one"""
        a = rec(K["regs"], "m0.vxt", ["-w", "1"], 7)
        b = rec(K["regs"], "m1.vxt", ["-w", "1", "--mem-limit", "1G"], 7)
        c = rec(K["regs"], "m2.vxt", ["-w", "1", "--mem-limit", "2G"], 7)
        r = t6kit.vxdiff(a, b)
        self.assertEqual((r.returncode, r.stdout), (0, ""), r.stderr)
        r = t6kit.vxdiff(a, c)
        self.assertEqual(r.returncode, 1)
        self.assertIn("memory limit 1073741824 != 2147483648", r.stdout)


class ChangedInput(unittest.TestCase):
    def test_load_file(self):
        """a changed word of the input: header item, then the first commit that differs, lane 1 of warp 1"""
        a = rec(K["shape"], "ia.vxt", ["-w", "2"] + load("in1.bin"), 0)
        b = rec(K["shape"], "ib.vxt", ["-w", "2"] + load("in2.bin"), 0)
        ev = t6kit.events(a)
        first = [e for e in ev if e["type"] == "issue" and e["disasm"].startswith("lw a5") and e["gwarp"] == 1][0]
        rc, objs, err = diff_json(a, b)
        self.assertEqual(rc, 1, err)
        hdr = [o for o in objs if o["type"] == "header"]
        self.assertEqual(len(hdr), 1)
        self.assertEqual(hdr[0]["items"][0]["field"], "load")
        self.assertIn("byte 20 (address 0x00020014)", hdr[0]["items"][0]["text"])
        # which quantity a and b are: the first differing bytes of the region
        it = hdr[0]["items"][0]
        with open(os.path.join(D, "in1.bin"), "rb") as f1, open(os.path.join(D, "in2.bin"), "rb") as f2:
            self.assertEqual((it["what"], it["a"], it["b"]), ("byte", f1.read()[20], f2.read()[20]))
        d = [o for o in objs if o["type"] == "difference"]
        self.assertEqual(len(d), 1, "--max 1 by default")
        self.assertEqual((d[0]["index_a"], d[0]["index_b"]), (first["index"], first["index"]))
        self.assertEqual([(i["field"], i["lane"], i["a"], i["b"]) for i in d[0]["items"]],
                         [("commit", 1, 105, 999)])
        self.assertEqual(d[0]["a"]["index"], first["index"])
        self.assertEqual(len(d[0]["before_a"]), 3, "3 events of context by default")
        self.assertEqual([e["index"] for e in d[0]["before_a"]], [first["index"] - 3 + i for i in range(3)])
        r = t6kit.vxdiff(a, b)
        self.assertEqual(r.returncode, 1)
        self.assertIn("@@ first difference at event %d " % first["index"], r.stdout)
        self.assertIn("a5 lane 1: 0x00000069 (105) != 0x000003e7 (999)", r.stdout)
        self.assertIn("lw a5, 0(a4)", r.stdout)

    def test_arg(self):
        """a changed kernel argument: the first csrr of mscratch differs in every lane"""
        a = rec(K["shape"], "aa.vxt", ["-w", "2"] + load("in1.bin"), 0)
        b = rec(K["shape"], "ab.vxt", ["-w", "2", "--load", os.path.join(D, "in1.bin") + "@0x20000",
                                       "--arg", "0x20004"], 0)
        ev = t6kit.events(a)
        first = [e for e in ev if e["type"] == "issue" and e["disasm"] == "csrr a4, mscratch"][0]
        rc, objs, err = diff_json(a, b)
        self.assertEqual(rc, 1, err)
        self.assertEqual([i["field"] for o in objs if o["type"] == "header" for i in o["items"]], ["arg"])
        d = [o for o in objs if o["type"] == "difference"][0]
        self.assertEqual(d["index_a"], first["index"])
        self.assertEqual([(i["lane"], i["a"], i["b"]) for i in d["items"]],
                         [(lane, 0x20000, 0x20004) for lane in range(4)])


class Shape(unittest.TestCase):
    def test_per_warp(self):
        """1 core x 2 warps against 2 cores x 1 warp: different schedules, the same warps"""
        a = rec(K["shape"], "sa.vxt", ["-c", "1", "-w", "2"], 0)
        b = rec(K["shape"], "sb.vxt", ["-c", "2", "-w", "1"], 0)
        ea, eb = t6kit.events(a, "--kind", "issue"), t6kit.events(b, "--kind", "issue")
        self.assertNotEqual([(e["core"], e["warp"]) for e in ea], [(e["core"], e["warp"]) for e in eb],
                            "the interleavings really differ")
        r = t6kit.vxdiff(a, b)
        self.assertEqual(r.returncode, 1)
        self.assertIn("platform 1x1x2x4 != 1x2x1x4", r.stdout)
        r = t6kit.vxdiff("--per-warp", a, b)
        self.assertEqual((r.returncode, r.stdout), (0, ""), r.stderr)
        self.assertEqual(t6kit.vxdiff("--ignore", "schedule", a, b).returncode, 0)

    def test_per_warp_difference(self):
        """a changed input on different shapes: warp 1's lane 1, at its own issue in each trace"""
        a = rec(K["shape"], "pa.vxt", ["-c", "1", "-w", "2"] + load("in1.bin"), 0)
        b = rec(K["shape"], "pb.vxt", ["-c", "2", "-w", "1"] + load("in2.bin"), 0)
        fa = [e for e in t6kit.events(a) if e["type"] == "issue" and e["gwarp"] == 1 and e["disasm"].startswith("lw a5")][0]
        fb = [e for e in t6kit.events(b) if e["type"] == "issue" and e["gwarp"] == 1 and e["disasm"].startswith("lw a5")][0]
        self.assertEqual((fb["core"], fb["warp"]), (1, 0))
        rc, objs, err = diff_json("--per-warp", a, b)
        self.assertEqual(rc, 1, err)
        d = [o for o in objs if o["type"] == "difference"]
        self.assertEqual(len(d), 1)
        self.assertEqual((d[0]["warp"], d[0]["index_a"], d[0]["index_b"]), (1, fa["index"], fb["index"]))
        self.assertEqual([(i["field"], i["lane"], i["a"], i["b"]) for i in d[0]["items"]], [("commit", 1, 105, 999)])
        self.assertTrue(all(e["gwarp"] == 1 for e in d[0]["before_a"] + d[0]["before_b"] + d[0]["after_a"]),
                        "the context is the same warp's stream")
        r = t6kit.vxdiff("--per-warp", a, b)
        self.assertIn("warp 1 (A 0:1, B 1:0)", r.stdout)

    def test_warp_in_one_trace(self):
        """2 cores against 1: global warp 2 (core 1, warp 0) runs only in A"""
        a = rec(K["shape"], "oa.vxt", ["-c", "2", "-w", "2"], 0)
        b = rec(K["shape"], "ob.vxt", ["-c", "1", "-w", "2"], 0)
        first = [e for e in t6kit.events(a, "--kind", "issue") if e["gwarp"] == 2][0]
        rc, objs, err = diff_json("--per-warp", a, b)
        self.assertEqual(rc, 1, err)
        d = [o for o in objs if o["type"] == "difference"]
        self.assertEqual([(x["warp"], x["index_a"], x["index_b"]) for x in d], [(2, first["index"], None)])
        self.assertEqual(d[0]["items"][0]["field"], "length")
        self.assertIsNone(d[0]["b"])
        self.assertIn("(A 1:0, B none)", t6kit.vxdiff("--per-warp", a, b).stdout)

    def test_warps_that_diverge_counted(self):
        """the closing line counts the warps that diverge; it names --max only when --max
        left some out (with --max 0, all shown, it read as if output were cut)"""
        a = rec(K["shape"], "ma.vxt", ["-c", "2", "-w", "2"], 0)
        b = rec(K["shape"], "mb.vxt", ["-c", "1", "-w", "1"], 0)
        rc, objs, err = diff_json("--per-warp", "--max", "0", a, b)
        n = len([o for o in objs if o["type"] == "difference"])
        self.assertGreaterEqual(n, 2)
        for args, tail in ((["--max", "0"], "(the first difference of each is shown)"),
                           (["--max", str(n)], "(the first difference of each is shown)"),
                           (["--max", "1"], "(the first difference of each of the first 1 is "
                                            "shown: --max)")):
            r = t6kit.vxdiff("--per-warp", *(args + [a, b]))
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertIn("vxdiff: %d warps diverge %s\n" % (n, tail), r.stdout)

    def test_threads_differ(self):
        """warps of different widths cannot be matched: exit 1 and a message"""
        a = rec(K["shape"], "ta.vxt", ["-w", "2", "-t", "4"], 0)
        b = rec(K["shape"], "tb.vxt", ["-w", "2", "-t", "8"], 0)
        r = t6kit.vxdiff("--per-warp", a, b)
        self.assertEqual(r.returncode, 1)
        self.assertIn("threads per warp", r.stderr)


class ChangedKernel(unittest.TestCase):
    def setUp(self):
        self.a = rec(K["regs"], "ka.vxt", ["-w", "1"], 7)
        self.b = rec(K["alt"], "kb.vxt", ["-w", "1"], 7)

    def test_first_and_next(self):
        """the image differs; event 5 has another instruction and value; event 10 writes other values"""
        rc, objs, err = diff_json("--max", "2", self.a, self.b)
        self.assertEqual(rc, 1, err)
        hdr = [i for o in objs if o["type"] == "header" for i in o["items"]]
        self.assertEqual([(i["field"], i["what"]) for i in hdr], [("image", "offset")])
        d = [o for o in objs if o["type"] == "difference"]
        self.assertEqual([x["index_a"] for x in d], [5, 10])
        self.assertEqual(d[0]["items"][0]["field"], "insn")
        self.assertEqual([(i["lane"], i["a"], i["b"]) for i in d[0]["items"][1:]], [(l, 5, 6) for l in range(4)])
        self.assertEqual([(i["field"], i["what"], i["lane"], i["a"], i["b"]) for i in d[1]["items"]],
                         [("mem", "value", l, 5, 6) for l in range(4)])
        self.assertEqual([i["what"] for i in d[0]["items"]], [None] * 5)  # insn, commits
        self.assertEqual(objs[-1]["differences_shown"], 3)   # the header's and two events'
        self.assertGreaterEqual(objs[-1]["differences_found"], 3)
        r = t6kit.vxdiff(self.a, self.b)
        self.assertIn("[addi a3, zero, 5] != 0x00600693 [addi a3, zero, 6]", r.stdout)
        self.assertIn("a3 lanes 0-3: 0x00000005 != 0x00000006", r.stdout)

    def test_context_lines(self):
        """-C N: N events before and after"""
        r = t6kit.vxdiff("-C", "2", self.a, self.b)
        lines = r.stdout.splitlines()
        at = [i for i, ln in enumerate(lines) if ln.startswith("@@ first")][0]
        self.assertEqual([int(ln.split()[0]) for ln in lines[at + 1:at + 3]], [3, 4], lines)
        self.assertTrue(lines[at + 3].startswith("- ") and lines[at + 4].startswith("+ "), lines)
        after = [ln for ln in lines[at + 5:] if ln.startswith("  ") and ln.split()[0].isdigit()]
        self.assertEqual([int(ln.split()[0]) for ln in after], [6, 7])
        r = t6kit.vxdiff("-C", "0", self.a, self.b)
        lines = r.stdout.splitlines()
        at = [i for i, ln in enumerate(lines) if ln.startswith("@@ first")][0]
        self.assertTrue(lines[at + 1].startswith("- ") and int(lines[at + 1][2:].split()[0]) == 5, lines)
        self.assertTrue(lines[at + 2].startswith("+ ") and int(lines[at + 2][2:].split()[0]) == 5, lines)

    def test_context_of_every_difference(self):
        """--max 0: every difference's context is exactly the events around it in each trace,
        for contexts wider than the distance between differences and than 64 events"""
        src = os.path.join(D, "dense.c")
        with open(src, "w") as f:   # every iteration's sum depends on the input word
            f.write("int main(void) { volatile unsigned *in = (volatile unsigned *)0x20014;\n"
                    "  unsigned s = 0; for (int i = 0; i < 60; i++) s += *in * i;\n"
                    "  return s & 3; }\n")
        elf = os.path.join(D, "dense.elf")
        r = vxtest.run([vxtest.prog("vxcc"), "-O1", "-o", elf, src])
        self.assertEqual(r.returncode, 0, r.stderr)
        a = rec(elf, "dense-a.vxt", ["-w", "1", "-t", "1"] + load("in1.bin"))
        b = rec(elf, "dense-b.vxt", ["-w", "1", "-t", "1"] + load("in2.bin"))
        ev = {k: t6kit.events(t) for k, t in (("a", a), ("b", b))}
        for c in (1, 4, 70):
            rc, objs, err = diff_json("--max", "0", "-C", str(c), "--ignore", "header", a, b)
            self.assertEqual(rc, 1, err)
            d = [o for o in objs if o["type"] == "difference"]
            self.assertGreater(len(d), 50)
            for o in d:
                for k in ("a", "b"):
                    at = o["index_" + k]
                    idx = [e["index"] for e in ev[k]]
                    want_before = [i for i in idx if i < at][-c:]
                    want_after = [i for i in idx if i > at][:c] if o[k] else []
                    self.assertEqual([e["index"] for e in o["before_" + k]], want_before, (c, at, k))
                    self.assertEqual([e["index"] for e in o["after_" + k]], want_after, (c, at, k))
                    if o[k]:
                        self.assertEqual(o["before_" + k][-1:], [e for e in ev[k] if e["index"] == at - 1][-1:])

    def test_ignore(self):
        """--ignore header leaves the image out; regs,mem,header makes these two equal; a
        list with an empty item is refused (an empty one ignored nothing, silently)"""
        for bad in ("", "header,,regs", "header,"):
            r = t6kit.vxdiff("--ignore", bad, self.a, self.b)
            self.assertEqual(r.returncode, 2, bad)
            self.assertIn("--ignore: an empty item in '%s'" % bad, r.stderr)
        rc, objs, err = diff_json("--ignore", "header", self.a, self.b)
        self.assertEqual(rc, 1)
        self.assertEqual([o["type"] for o in objs], ["difference", "result"])
        self.assertEqual(t6kit.vxdiff("--ignore", "header,regs,mem", self.a, self.b).returncode, 1,
                         "the instruction word still differs")
        c = rec(K["altcon"], "kc.vxt", ["-w", "1"], 7)
        rc, objs, err = diff_json("--max", "0", self.a, c)
        self.assertEqual(rc, 1)
        fields = [i["field"] for o in objs if o["type"] == "difference" for i in o["items"]]
        self.assertIn("console", fields)
        self.assertEqual(t6kit.vxdiff("--ignore", "header,regs,console", self.a, c).returncode, 1,
                         "the instruction word differs")

    def test_console_only(self):
        """a trace against itself with every field ignored except the console"""
        c = rec(K["altcon"], "kc2.vxt", ["-w", "1"], 7)
        rc, objs, err = diff_json("--max", "0", "--ignore", "header", self.a, c)
        d = [o for o in objs if o["type"] == "difference"]
        self.assertEqual([x["index_a"] for x in d], [21, 22])
        self.assertEqual(d[1]["items"][0]["field"], "console")
        self.assertIn('"H"', d[1]["items"][0]["text"])
        self.assertIn('"J"', d[1]["items"][0]["text"])


    def test_console_slot(self):
        """the same byte stored to another console slot (0x41, not 0x40: sb t4, 1(t3))
        differs, besides the store's encoding"""
        c = rec(K["altslot"], "kslot.vxt", ["-w", "1"], 7)
        rc, objs, err = diff_json("--max", "0", "--ignore", "header", self.a, c)
        self.assertEqual(rc, 1, err)
        d = [o for o in objs if o["type"] == "difference"]
        self.assertEqual([x["index_a"] for x in d], [22])
        self.assertEqual([i["field"] for i in d[0]["items"]], ["insn", "console"])
        self.assertIn('"H" (slot 0)', d[0]["items"][1]["text"])
        self.assertIn('"H" (slot 1)', d[0]["items"][1]["text"])

    def test_memory_write_of_another_lane(self):
        """the same store (exit code 7 to 0x88) by lane 1 instead of lane 0: a difference
        of the write, not only of the thread mask"""
        c = rec(K["altlane"], "klane.vxt", ["-w", "1"], 7)
        ea = t6kit.events(self.a)
        st = [e for e in ea if e["type"] == "issue" and e["mem"] and e["mem"][0]["addr"] == 0x88]
        self.assertEqual(len(st), 1)
        rc, objs, err = diff_json("--max", "0", "--ignore", "header", self.a, c)
        self.assertEqual(rc, 1, err)
        (d,) = [o for o in objs if o["type"] == "difference" and o["index_a"] == st[0]["index"]]
        self.assertEqual([(i["field"], i["what"]) for i in d["items"]],
                         [("tmask", None), ("mem", "addr")])
        self.assertIn("lane 0 mem32[0x00000088] != lane 1 mem32[0x00000088]", d["items"][1]["text"])

LATE_C = r"""
#include <vx_print.h>
int main(void)
{
    volatile unsigned acc = 0;
    for (unsigned i = 0; i < 40000; i++)
        acc += i;
    const volatile unsigned *in = (const volatile unsigned *)0x10000;
    vx_printf("in %u acc %u\\n", in[0], acc);
    return 0;
}
"""


def build_c(name, text):
    """D/NAME.elf from the C source text (vxcc -O1)."""
    src = os.path.join(D, name + ".c")
    with open(src, "w") as f:
        f.write(text)
    elf = os.path.join(D, name + ".elf")
    r = vxtest.run([vxtest.prog("vxcc"), "-O1", "-o", elf, src])
    if r.returncode:
        raise RuntimeError("vxcc failed on %s: %s" % (src, r.stderr))
    return elf


class SkippedChunks(unittest.TestCase):
    """Traces the same but near their end: vxdiff skips the pairs of EVENTS chunks with equal
    bytes without decoding them; what it reports must not change."""

    @classmethod
    def setUpClass(cls):
        elf = build_c("late", LATE_C)
        for name, word in (("late1.bin", 1), ("late2.bin", 2)):
            with open(os.path.join(D, name), "wb") as f:
                f.write(struct.pack("<I", word))
        args = ["--chunk-size", "4K", "--load"]
        cls.a = rec(elf, "late-a.vxt", args + [os.path.join(D, "late1.bin") + "@0x10000"], 0)
        cls.b = rec(elf, "late-b.vxt", args + [os.path.join(D, "late2.bin") + "@0x10000"], 0)

    def test_difference_context_and_counts(self):
        """the first difference (the load of the changed word, near the end), its 5 events of
        context and the events compared, as vxdump's two listings give them"""
        ea, eb = t6kit.events(self.a), t6kit.events(self.b)
        i = next(k for k, (x, y) in enumerate(zip(ea, eb)) if x != y)
        first = ea[i]["index"]
        self.assertGreater(first, 100000, "the difference comes after many chunks")
        rc, objs, err = diff_json("-C", "5", self.a, self.b)
        self.assertEqual(rc, 1, err)
        d = [o for o in objs if o["type"] == "difference"][0]
        self.assertEqual((d["index_a"], d["index_b"]), (first, first))
        self.assertEqual([e["index"] for e in d["before_a"]], [first - 5 + k for k in range(5)])
        self.assertEqual(d["before_a"], ea[i - 5:i])     # the events themselves, as vxdump has them
        self.assertEqual(d["before_b"], eb[i - 5:i])
        res = objs[-1]
        self.assertEqual((res["compared_a"], res["compared_b"]), (i + 1, i + 1))
        # the same traces whole: every event compared
        rc, objs, err = diff_json(self.a, self.a)
        self.assertEqual(rc, 0, err)
        self.assertEqual(objs[-1]["compared_a"], len(ea))

    def test_damaged_chunk_after_identical_ones(self):
        """a flipped byte in a middle chunk of one side: reported where reading meets it, with
        the events compared up to there, as without skipping"""
        data = bytearray(open(self.a, "rb").read())
        data[len(data) // 2] ^= 0x40
        bad = os.path.join(D, "late-bad.vxt")
        with open(bad, "wb") as f:
            f.write(data)
        rc, objs, err = diff_json(bad, self.a)
        self.assertEqual(rc, 2)
        self.assertRegex(err, r"late-bad\.vxt: EVENTS chunk at offset \d+: payload checksum mismatch")
        ea = t6kit.events(self.a)
        keys = [e["index"] for e in ea]
        done = objs[-1]["compared_a"]
        self.assertGreater(done, 0)
        self.assertLess(done, len(keys))
        self.assertEqual(objs[-1]["compared_b"], done + 1, "B read one event more, then A failed")

    def test_damaged_digest(self):
        """a flipped byte in a DIGEST chunk of A, which vxdiff reads to skip identical chunks:
        reported as corruption at its offset (exit 2), as vxdump --pc reports it; vxdiff
        used to take it for a chunk without a digest and said the traces were the same"""
        data = bytearray(open(self.a, "rb").read())
        dg = [c for c in vxt_spec.Trace(bytes(data)).chunks if c.type == vxt_spec.CH_DIGEST]
        self.assertGreater(len(dg), 3)
        c = dg[len(dg) // 3]
        data[c.off + 28 + c.stored // 2] ^= 0x40
        bad = os.path.join(D, "late-dg.vxt")
        with open(bad, "wb") as f:
            f.write(data)
        self.assertEqual(diff_json(self.a, self.a)[0], 0)
        rc, objs, err = diff_json(bad, self.a)
        self.assertEqual(rc, 2, err)
        self.assertIn("late-dg.vxt: DIGEST chunk at offset %d: payload checksum mismatch" % c.off,
                      err)


SPIN_C = r"""
int main(void)
{
    __asm__ volatile("li t4, 0\n\tli t5, 4000000\n1:\n\taddi t4, t4, 1\n\tbltu t4, t5, 1b"
                     ::: "t4", "t5");
    return 0;
}
"""


class DamageAfterLongRun(unittest.TestCase):
    """Two long traces, the same but for a flipped byte in B's last chunk but one: vxdiff
    skips the identical chunks before it and reports the damage.  When the damaged chunk
    ended a run of skipped ones, vxdiff went back to the run's start and compared every
    event of it again (12 s for 20 M issues, where identical traces take 0.05 s); now it
    reads on from the run's last chunk.  How long it takes is measured by make bench
    (tests/bench/diff.sh), not here."""

    def test_damage_reported_after_a_long_run(self):
        """the damage named at its offset, every event before it compared"""
        elf = build_c("spin", SPIN_C)
        a = rec(elf, "spin-a.vxt", (), 0)
        data = bytearray(open(a, "rb").read())
        chunks, off = [], 16  # (offset, type, stored, key) of every chunk, walked by its header
        while off < len(data) - 16:
            t, _, _, stored, _, key = struct.unpack_from("<BBHIIQ", data, off)
            chunks.append((off, t, stored, key))
            off += 28 + stored
        ev = [c for c in chunks if c[1] == 4]
        self.assertGreater(len(ev), 100)
        off, _, stored, key = ev[-2]
        data[off + 28 + stored // 2] ^= 0x10
        b = os.path.join(D, "spin-b.vxt")
        with open(b, "wb") as f:
            f.write(data)
        rc, objs, err = diff_json(a, b)
        self.assertEqual(rc, 2, err)
        self.assertIn("spin-b.vxt: EVENTS chunk at offset %d: payload checksum mismatch" % off, err)
        res = objs[-1]
        self.assertEqual((res["compared_a"], res["compared_b"]), (key + 1, key),
                         "every event before the damaged chunk compared; A read one more")


class Length(unittest.TestCase):
    def test_limit(self):
        """a run cut by --max-cycles against the full run: A ends where B goes on"""
        if not os.path.exists(vxtest.kernel("vecadd")):
            self.skipTest("make kernels")
        a = rec(vxtest.kernel("vecadd"), "la.vxt", ["--max-cycles", "3000"], 4)
        b = rec(vxtest.kernel("vecadd"), "lb.vxt", [], 0)
        end = t6kit.events(a, "--kind", "end")[0]
        self.assertEqual(end["status"], "limit")
        rc, objs, err = diff_json(a, b)
        self.assertEqual(rc, 1, err)
        self.assertEqual([i["field"] for o in objs if o["type"] == "header" for i in o["items"]], ["max_cycles"])
        d = [o for o in objs if o["type"] == "difference"][0]
        self.assertEqual(d["items"][0]["field"], "length")
        self.assertEqual(d["index_a"], end["index"])
        self.assertEqual((d["a"]["type"], d["b"]["type"]), ("end", "issue"))
        rc, objs, err = diff_json(b, a)
        self.assertIn("B ends here", [o for o in objs if o["type"] == "difference"][0]["items"][0]["text"])


# Kernels of the event-stream tests (from the coverage review): KE returns the word
# at 0x10000; KT sets the thread mask to it; KD branches on it (2: returns 5 early)
KE_C = "int main(void) { return *(volatile int *)0x10000; }\n"
KT_C = r"""
#include <vx_intrinsics.h>
int main(void) {
    int m = *(volatile int *)0x10000;
    vx_tmc(m);
    int x = vx_thread_id() * 2 + 1;
    asm volatile("" :: "r"(x));
    ((volatile int *)0x20000)[vx_thread_id()] = x;
    vx_tmc(1);
    return 0;
}
"""
KD_C = r"""
#include <vx_intrinsics.h>
#include <vx_print.h>
#define NI __attribute__((noinline))
volatile int sink;
NI int fa(int x) { return x + 1; }
NI int fb(int x) { return x * 3; }
int main(void) {
    int v = *(volatile int *)0x10000;
    int r = 0;
    if (v == 1) r = fb(v); else r = fa(v);
    sink = r;
    if (v == 2) return 5;
    if (v == 3) asm volatile("ecall");
    if (v == 4) { for (int i = 0; i < 10; i++) sink += i; }
    if (v == 5) vx_printf("\"q\\\t\x01\n");
    return 0;
}
"""


class EventStreams(unittest.TestCase):
    """Differences in the exit code, the PC, the thread mask and a warp-control effect,
    a run that ends first, -q; and the header items of the loads and the image kind.
    Where each difference is comes from vxdump --json of the two traces."""

    @classmethod
    def setUpClass(cls):
        cls.k = {}
        for name, src, out in (("ke", KE_C, "ke.elf"), ("ke", KE_C, "ke.vxbin"),
                               ("kt", KT_C, "kt.elf"), ("kd", KD_C, "kd.elf")):
            path = os.path.join(D, name + ".c")
            with open(path, "w") as f:
                f.write(src)
            r = vxtest.run([vxtest.prog("vxcc"), "-O1", "-o", os.path.join(D, out), path])
            if r.returncode:
                raise RuntimeError(r.stderr)
            cls.k[out] = os.path.join(D, out)
        for v in (0, 2, 3, 7):
            with open(os.path.join(D, "v%d.bin" % v), "wb") as f:
                f.write(struct.pack("<I", v))
        with open(os.path.join(D, "v0long.bin"), "wb") as f:
            f.write(bytes(8))

    def word(self, kernel, v, name, threads=1, at="0x10000", expect=None, file=None):
        """KERNEL recorded on 1 warp with the word V (vV.bin, or FILE) loaded AT"""
        args = ["-w", "1", "-t", str(threads)]
        if at is not None:
            args += ["--load", os.path.join(D, file or "v%d.bin" % v) + "@" + at]
        return rec(self.k[kernel], name, args, expect)

    def test_exit_code(self):
        """the word returned: the events are the same up to the end records, which differ in
        the exit code (exit 1); ignoring 'exit' too leaves none; --per-warp names the end;
        -q prints nothing"""
        a = self.word("ke.elf", 0, "e0.vxt", expect=0)
        b = self.word("ke.elf", 2, "e2.vxt", expect=2)
        ea, eb = t6kit.events(a), t6kit.events(b)
        self.assertEqual((ea[-1]["exit_code"], eb[-1]["exit_code"]), (0, 2))
        end = ea[-1]["index"]
        self.assertEqual(eb[-1]["index"], end)
        rc, objs, err = diff_json("--ignore", "header,regs,mem", "-C", "0", a, b)
        self.assertEqual(rc, 1, err)
        d = [o for o in objs if o["type"] == "difference"]
        self.assertEqual([(x["index_a"], x["index_b"]) for x in d], [(end, end)])
        self.assertEqual([(i["field"], i["a"], i["b"], i["text"]) for i in d[0]["items"]],
                         [("exit", 0, 2, "exit code 0 != 2")])
        r = t6kit.vxdiff("--ignore", "header,regs,mem", "-C", "0", a, b)
        self.assertEqual(r.returncode, 1)
        self.assertIn("@@ first difference at event %d (cycle %d) @@" % (end, ea[-1]["cycle"]), r.stdout)
        self.assertIn("differs:  exit code 0 != 2", r.stdout)
        r = t6kit.vxdiff("--ignore", "header,regs,mem,exit", a, b)
        self.assertEqual((r.returncode, r.stdout), (0, ""), r.stderr)
        r = t6kit.vxdiff("--per-warp", "--ignore", "header,regs,mem", "-C", "0", a, b)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("@@ the runs end differently @@", r.stdout)
        self.assertIn("exit code 0 != 2", r.stdout)
        r = t6kit.vxdiff("-q", "--ignore", "header", a, b)
        self.assertEqual((r.returncode, r.stdout, r.stderr), (1, "", ""))

    def test_thread_mask(self):
        """vx_tmc of the loaded word (3 or 7 on 4 lanes): the load's commit, the tmask
        effect (mask 0x3 against 0x7), then the next issue's thread mask and its commit
        to lane 2, written only in B"""
        a = self.word("kt.elf", 3, "m3.vxt", threads=4, expect=0)
        b = self.word("kt.elf", 7, "m7.vxt", threads=4, expect=0)
        ea = t6kit.events(a)
        tmc = [e for e in ea if e["type"] == "issue" and e["wctl"] and e["wctl"][0]["kind"] == "tmask"
               and e["wctl"][0]["mask"] == "0x3"][0]
        i = tmc["index"]
        self.assertEqual(ea[i - 1]["disasm"].split()[0], "lw", "the load of the word comes just before")
        rc, objs, err = diff_json("--ignore", "header", "--max", "3", "-C", "0", a, b)
        self.assertEqual(rc, 1, err)
        d = [o for o in objs if o["type"] == "difference"]
        self.assertEqual([x["index_a"] for x in d], [i - 1, i, i + 1])
        self.assertEqual([(x["field"], x["lane"], x["a"], x["b"]) for x in d[0]["items"]],
                         [("commit", 0, 3, 7)])
        w = "tmask [0:0] pc 0x%08x arg 0 arg2 0 mask 0x%%x mask2 0x0" % tmc["wctl"][0]["pc"]
        self.assertEqual([(x["field"], x["text"]) for x in d[1]["items"]],
                         [("wctl", "warp-control effect 0: " + w % 3 + " != " + w % 7)])
        self.assertEqual([(x["field"], x["lane"], x["text"]) for x in d[2]["items"]],
                         [("tmask", None, "thread mask 0x3 != 0x7"),
                          ("commit", 2, "%s lane 2: written only in B" % ea[i + 1]["commits"][0]["name"])])
        # the store of x: lane 2's write only in B (no a, b)
        st = [e for e in ea if e["type"] == "issue" and e["index"] > i and e["mem"]][0]
        rc, objs, err = diff_json("--ignore", "header", "--max", "0", "-C", "0", a, b)
        (x,) = [o for o in objs if o["type"] == "difference" and o["index_a"] == st["index"]]
        self.assertEqual([(y["field"], y["what"], y["lane"], "a" in y) for y in x["items"]],
                         [("tmask", None, None, False), ("mem", "only_b", 2, False)])
        self.assertEqual(x["items"][1]["text"], "only B writes mem32[0x00020008]=0x5 (lane 2)")
        # per warp, the register values left out: the thread mask alone tells the streams
        # apart, at the issue after the vx_tmc (not at the store after it)
        rc, objs, err = diff_json("--per-warp", "--ignore", "header,regs", "--max", "0", "-C",
                                  "0", a, b)
        self.assertEqual(rc, 1, err)
        d = [o for o in objs if o["type"] == "difference"]
        self.assertEqual([(x["index_a"], x["index_b"]) for x in d], [(i + 1, i + 1)])
        self.assertEqual([x["field"] for x in d[0]["items"]], ["tmask"])

    def test_pc_and_end_of_one_run(self):
        """--ignore header,regs,mem,cycle --max 0 on a branch taken one way or the other:
        a pc item at every index where the PCs differ, then B's end against A's issue,
        then A's next issue against the end of B's events, and nothing after"""
        a = self.word("kd.elf", 0, "d0.vxt", expect=0)
        b = self.word("kd.elf", 2, "d2.vxt", expect=5)
        ea, eb = t6kit.events(a), t6kit.events(b)
        endb = eb[-1]
        self.assertEqual(endb["type"], "end")
        self.assertEqual(ea[endb["index"] + 1]["type"], "issue", "A runs longer")
        pcs = [i for i in range(endb["index"]) if ea[i]["pc"] != eb[i]["pc"]]
        self.assertGreater(len(pcs), 10)
        rc, objs, err = diff_json("--ignore", "header,regs,mem,cycle", "--max", "0", "-C", "0", a, b)
        self.assertEqual(rc, 1, err)
        d = [o for o in objs if o["type"] == "difference"]
        self.assertEqual([x["index_a"] for x in d], pcs + [endb["index"], endb["index"] + 1])
        for x in d[:-2]:
            i = x["index_a"]
            self.assertEqual((x["items"][0]["field"], x["items"][0]["text"]),
                             ("pc", "pc 0x%08x [%s] != 0x%08x [%s]" % (ea[i]["pc"], ea[i]["disasm"],
                                                                   eb[i]["pc"], eb[i]["disasm"])))
        n = endb["index"]
        self.assertEqual(d[-2]["title"], "next difference at event %d (cycle %d in A, %d in B)"
                         % (n, ea[n]["cycle"], endb["cycle"]))
        self.assertEqual([(x["field"], x["text"]) for x in d[-2]["items"]],
                         [("length", "B ends here (after %d issues) while A continues with an issue" % n)])
        self.assertEqual((d[-1]["index_a"], d[-1]["index_b"]), (n + 1, None))
        self.assertEqual(d[-1]["title"], "next difference at event %d of A / the end of B's events" % (n + 1))
        self.assertEqual([x["text"] for x in d[-1]["items"]], ["A has an issue, B has the end of the stream"])
        self.assertEqual(objs[-1]["differences_found"], len(d))

    def test_header_items(self):
        """the same events (--ignore header: exit 0) under a moved load, no load, a longer
        load file, and the kernel as a .vxbin: one header item each, exit 1"""
        a = self.word("ke.elf", 0, "h0.vxt", expect=0)
        cases = (
            (self.word("ke.elf", 0, "h-addr.vxt", at="0x20000", expect=0),
             ("load", "addr", 0x10000, 0x20000, "load 0 (v0.bin): address 0x00010000 != 0x00020000")),
            (self.word("ke.elf", 0, "h-none.vxt", at=None, expect=0),
             ("load", "count", 1, 0, "1 loaded regions != 0")),
            (self.word("ke.elf", 0, "h-long.vxt", file="v0long.bin", expect=0),
             ("load", "len", 4, 8, None)),
            (self.word("ke.vxbin", 0, "h-vxbin.vxt", expect=0),
             ("image", "kind", 1, 2, "kernel image kind ELF != vxbin")),
        )
        for b, (field, what, va, vb, text) in cases:
            rc, objs, err = diff_json(a, b)
            self.assertEqual(rc, 1, (b, err))
            items = [i for o in objs if o["type"] == "header" for i in o["items"]]
            self.assertEqual((items[0]["field"], items[0]["what"], items[0]["a"], items[0]["b"]),
                             (field, what, va, vb), b)
            if text:
                self.assertEqual(items[0]["text"], text)
            else:
                self.assertIn("4 bytes != 8 bytes", items[0]["text"])
            self.assertEqual([o["type"] for o in objs], ["header", "result"], "no event differs")
            r = t6kit.vxdiff("--ignore", "header", a, b)
            self.assertEqual((r.returncode, r.stdout), (0, ""), (b, r.stderr))


class Damaged(unittest.TestCase):
    def test_corrupt_and_truncated(self):
        """a damaged or cut-off trace is an error: exit 2 naming the file"""
        if not os.path.exists(vxtest.kernel("vecadd")):
            self.skipTest("make kernels")
        a = rec(vxtest.kernel("vecadd"), "da.vxt", ["--chunk-size", "4096"], 0)
        with open(a, "rb") as f:
            data = f.read()
        ev = [c for c in t6kit.chunks(data) if c[1] == 4]
        off, _, stored, _ = ev[len(ev) // 2]
        bad = os.path.join(D, "dbad.vxt")
        with open(bad, "wb") as f:
            at = off + 28 + stored // 2
            f.write(data[:at] + bytes([data[at] ^ 1]) + data[at + 1:])
        r = t6kit.vxdiff(a, bad)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("dbad.vxt", r.stderr)
        self.assertIn("offset", r.stderr)
        cut = os.path.join(D, "dcut.vxt")
        with open(cut, "wb") as f:
            f.write(data[:off + 10])
        r = t6kit.vxdiff(a, cut)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("dcut.vxt", r.stderr)
        self.assertIn("incomplete", r.stderr)
        # where B's events run out, A's next events are no difference (it said "first
        # difference at event N of A / the end of B's events", differences_found 1):
        # the message says where B's events end, after every event before the cut
        dump = t6kit.vxdump("--json", cut)
        self.assertEqual(dump.returncode, 1, dump.stderr)  # (incomplete)
        last = json.loads(dump.stdout.splitlines()[-1])["index"]
        self.assertIn("its events end after event %d" % last, r.stderr)
        self.assertNotIn("difference", r.stdout)
        for mode in ([], ["--per-warp"]):
            for pair in ((a, cut), (cut, a)):
                rc, objs, err = diff_json("--ignore", "header", *(mode + list(pair)))
                self.assertEqual(rc, 2, err)
                self.assertEqual([o["type"] for o in objs], ["result"], (mode, objs))
                self.assertEqual(objs[-1]["differences_found"], 0)
                self.assertGreater(objs[-1]["compared_a"], 0)
        # a difference before the cut is still found (the kernel with a3 = 6)
        alt = rec(K["alt"], "dalt.vxt", [], 7)
        with open(alt, "rb") as f:
            altdata = f.read()
        altcut = os.path.join(D, "daltcut.vxt")
        with open(altcut, "wb") as f:
            f.write(altdata[:[c for c in t6kit.chunks(altdata) if c[1] == 4][-1][0] + 10])
        rc, objs, err = diff_json(rec(K["regs"], "dreg.vxt", [], 7), altcut)
        self.assertEqual(rc, 2, err)
        self.assertEqual(objs[-1]["differences_found"], 1)
        r = t6kit.vxdiff(cut, cut)
        self.assertEqual(r.returncode, 2, "even two identical cut-off traces: the comparison is not complete")
        r = t6kit.vxdiff(a, os.path.join(D, "missing.vxt"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("missing.vxt", r.stderr)

    def test_usage(self):
        """bad command lines: exit 2"""
        a = rec(K["regs"], "u.vxt", ["-w", "1"], 7)
        for args in ([a], [a, a, a], ["--ignore", "nothing", a, a], ["-C", "x", a, a], ["--max"], ["--bogus", a, a]):
            r = t6kit.vxdiff(*args)
            self.assertEqual(r.returncode, 2, args)
            self.assertTrue(r.stderr.startswith("vxdiff: "), r.stderr)
        r = t6kit.vxdiff("--help")
        self.assertEqual(r.returncode, 0)
        self.assertIn("--per-warp", r.stdout)


class PerWarpEnd(unittest.TestCase):
    def test_end_difference_keys_and_count(self):
        """--per-warp --json: the difference of the END records ('the runs end differently')
        has the keys of every per-warp difference (warp and position null, index_a and
        index_b the END records' indexes), and differences_found counts it whether --max
        lets it be shown or not (from the JSON review: the keys were missing and the count
        was 3 with --max 1, 4 with --max 0)"""
        ok = rec(t6kit.build("t6-bar", D), "bar2.vxt", ["-w", "2", "-t", "4"], 0)
        dead = rec(t6kit.build("t6-bar", D, ["-DBAR_COUNT=3"]), "bar3.vxt", ["-w", "2", "-t", "4"], 3)
        ends = [t6kit.events(t)[-1]["index"] for t in (ok, dead)]
        found = set()
        for mx in ("1", "0"):
            rc, objs, err = diff_json("--per-warp", "--max", mx, ok, dead)
            self.assertEqual(rc, 1, err)
            found.add(objs[-1]["differences_found"])
            shown = [o for o in objs if o["type"] == "difference"]
            self.assertEqual(objs[-1]["differences_shown"], 1 + len(shown))  # + the header
            if mx == "0":
                end = shown[-1]
                self.assertEqual(end["title"], "the runs end differently")
                self.assertEqual((end["warp"], end["position"], end["index_a"], end["index_b"]),
                                 (None, None, ends[0], ends[1]))
        self.assertEqual(found, {4})  # the header, warps 0 and 1, the END records'


if __name__ == "__main__":
    vxtest.main(Identical, ChangedInput, Shape, ChangedKernel, SkippedChunks, DamageAfterLongRun,
                EventStreams, Length, Damaged, PerWarpEnd)
