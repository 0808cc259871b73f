#!/usr/bin/env python3
"""t6005 - source lines (tools/common/lines.c: the kernel's DWARF line tables) in
vxdump (the JSON "source" of each issue, --lines, --pc FILE:LINE), vxdiff --lines, and
the fault and race reports of vxsim and vxrec.

Independent expectations: binutils' addr2line (a second reader of the same tables)
for every PC the example kernels and test kernels execute, at -O2 and -O0, in DWARF 5
(GCC's default) and DWARF 4; where addr2line finds no line but vxrr does, GDB's
`info line` (a third reader) must agree with vxrr.  The lines of a fault and of the
two accesses of a race are marked in the kernels' sources (FAULT) or found with
addr2line from the report's PCs.  The table reader itself (hand-built tables of each
DWARF version, truncation, damage) is tests/unit/t-lines.c.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
import vxtest  # noqa: E402
import t6kit  # noqa: E402

ADDR2LINE = "riscv64-unknown-elf-addr2line"
GDB = shutil.which("gdb-multiarch")


def setUpModule():
    global D, K
    if not t6kit.have_toolchain() or not shutil.which(ADDR2LINE):
        raise unittest.SkipTest("vxcc, the RISC-V toolchain or addr2line missing")
    D = vxtest.tmpdir()
    K = {}


def vxcc(src, out, *flags):
    r = vxtest.run([vxtest.prog("vxcc")] + list(flags) + ["-o", out, src])
    if r.returncode:
        raise RuntimeError("vxcc %s: %s" % (src, r.stderr))
    return out


def kernel(name, src, *flags):
    if name not in K:
        K[name] = vxcc(src, os.path.join(D, name + ".elf"), *flags)
    return K[name]


def trace_of(elf, *args):
    t = os.path.join(D, os.path.basename(elf) + "".join(args).replace("-", "_") + ".vxt")
    if not os.path.exists(t):
        t6kit.record(elf, t, args)
    return t


def addr2line(elf, pcs):
    """{pc: (path, line) or None} from binutils."""
    pcs = sorted(pcs)
    r = vxtest.run([ADDR2LINE, "-e", elf] + ["0x%x" % p for p in pcs])
    out = {}
    for pc, ln in zip(pcs, r.stdout.splitlines()):
        ln = re.sub(r" \(discriminator \d+\)$", "", ln)
        path, _, num = ln.rpartition(":")
        out[pc] = (path, int(num)) if num.isdigit() and num != "0" and path != "??" else None
    return out


def gdb_lines(elf, pcs):
    """{pc: (file, line) or None} from GDB's `info line *PC`."""
    args = [GDB, "-nx", "-batch", elf]
    for p in sorted(pcs):
        args += ["-ex", "info line *0x%x" % p]
    r = vxtest.run(args)
    # one answer per command, in order
    answers = re.findall(r'Line (\d+) of "([^"]+)"|(No line number information)', r.stdout)
    assert len(answers) == len(pcs), r.stdout
    return {p: (a[1], int(a[0])) if a[0] else None for p, a in zip(sorted(pcs), answers)}


def issue_sources(trace):
    """{pc: source object or None} over the trace's issues."""
    return {e["pc"]: e["source"] for e in t6kit.events(trace, "--kind", "issue")}


def same_file(path, shown):
    return path == shown or path.endswith("/" + shown)


class AgainstAddr2line(unittest.TestCase):
    def compare(self, elf, trace):
        src = issue_sources(trace)
        ref = addr2line(elf, src)
        self.assertGreater(len(src), 100)
        mismatch, disputed = [], []
        with_line = 0
        for pc, s in src.items():
            r = ref[pc]
            if r is None:
                if s is not None:
                    disputed.append(pc)  # addr2line has none, vxrr one
                continue
            with_line += 1
            if s is None or s["line"] != r[1]:
                mismatch.append((hex(pc), s, r))
            elif not same_file(r[0], s["file"]):
                disputed.append(pc)  # the same line, another file
        self.assertEqual(mismatch, [], "PCs where vxrr and addr2line disagree")
        self.assertGreater(with_line, len(src) // 2, "most executed PCs have a line")
        if disputed:  # binutils 2.40 takes DWARF 5's file 0 for file 1 of some units: GDB decides
            if not GDB:
                self.skipTest("gdb-multiarch missing")
            g = gdb_lines(elf, disputed)
            for pc in disputed:
                s = src[pc]
                self.assertIsNotNone(g[pc], "0x%x: vxrr %s, neither addr2line nor GDB" % (pc, s))
                self.assertEqual(g[pc][1], s["line"], "0x%x vs GDB" % pc)
                self.assertTrue(same_file(g[pc][0], s["file"]) or same_file(s["file"], g[pc][0]),
                                (hex(pc), g[pc], s))
        return src

    def test_examples(self):
        """every PC the example kernels execute (-O2 -g, DWARF 5): the line addr2line gives"""
        for name in ("vecadd", "sgemm", "diverge", "reduce", "warpops", "printf"):
            with self.subTest(kernel=name):
                elf = vxtest.kernel(name)
                self.compare(elf, trace_of(elf))

    def test_optimisation_and_versions(self):
        """a test kernel at -O0 and -O2, in DWARF 5 and DWARF 4, C++, compressed sections"""
        cases = [("fault-o0", "rrfault.c", ["-O0", "-g"]),
                 ("race-o2", "rrrace.c", ["-O2", "-g"]),
                 ("race-o0-v4", "rrrace.c", ["-O0", "-gdwarf-4"]),
                 ("cxx-o2-v4", "cxxstd.cpp", ["-O2", "-gdwarf-4"]),
                 ("race-gz", "rrrace.c", ["-O2", "-g", "-gz=zlib",
                                          "-Wl,--compress-debug-sections=zlib"])]
        for name, src, flags in cases:
            with self.subTest(kernel=name):
                elf = kernel(name, os.path.join(t6kit.KDIR, src), *flags)
                self.compare(elf, trace_of(elf))

    def test_gnu_compressed(self):
        """.zdebug sections (-gz=zlib-gnu, which binutils 2.40's addr2line does not read):
        the same sources as the same kernel built with plain -g (the same code)"""
        src = os.path.join(t6kit.KDIR, "rrrace.c")
        plain = issue_sources(trace_of(kernel("race-o2", src, "-O2", "-g")))
        gnu = kernel("race-gz-gnu", src, "-O2", "-g", "-gz=zlib-gnu",
                     "-Wl,--compress-debug-sections=zlib-gnu")
        r = vxtest.run(["riscv64-unknown-elf-readelf", "-S", gnu])
        self.assertIn(".zdebug_line", r.stdout)
        got = issue_sources(trace_of(gnu))
        self.assertEqual(got, plain)
        self.assertGreater(sum(1 for v in got.values() if v), len(got) // 2)

    def test_no_debug_info(self):
        """a kernel built without -g: no source for its own code (the runtime's has)"""
        elf = kernel("race-nog", os.path.join(t6kit.KDIR, "rrrace.c"), "-O2")
        src = issue_sources(trace_of(elf))
        own = [s for s in src.values() if s and s["file"].endswith("rrrace.c")]
        self.assertEqual(own, [])
        runtime = [s for s in src.values() if s and s["file"].endswith("vx_spawn.c")]
        self.assertGreater(len(runtime), 10, "the runtime's own lines are still read")


class PcFilter(unittest.TestCase):
    def test_line_selects_its_issues(self):
        """--pc FILE:LINE lists exactly the issues whose source is that line"""
        elf = vxtest.kernel("vecadd")
        t = trace_of(elf)
        evs = t6kit.events(t, "--kind", "issue")
        lines = {}
        for e in evs:
            s = e["source"]
            if s and s["file"].endswith("vecadd.c"):
                lines.setdefault(s["line"], []).append(e["index"])
        self.assertGreaterEqual(len(lines), 3, "vecadd.c has several lines executed")
        for line, want in sorted(lines.items()):
            for name in ("vecadd.c", "examples/vecadd.c"):
                got = [e["index"] for e in t6kit.events(t, "--pc", "%s:%d" % (name, line))]
                self.assertEqual(got, want, "%s:%d" % (name, line))
            # a place as compilers print it, FILE:LINE:COLUMN: the line (any column)
            for col in (1, 17):
                got = [e["index"] for e in t6kit.events(t, "--pc", "vecadd.c:%d:%d" % (line, col))]
                self.assertEqual(got, want, "vecadd.c:%d:%d" % (line, col))

    def test_errors(self):
        """an unknown file, a line without code (naming the next one), two files of one name"""
        elf = vxtest.kernel("vecadd")
        t = trace_of(elf)
        r = t6kit.vxdump("--pc", "nosuch.c:3", t)
        self.assertEqual(r.returncode, 2)
        self.assertIn("no source file 'nosuch.c'", r.stderr)
        r = t6kit.vxdump("--pc", "vecadd.c:1", t)  # the comment at the top
        self.assertEqual(r.returncode, 2)
        m = re.search(r"no code at line 1 of \S*vecadd\.c \(the next line with code is (\d+)\)",
                      r.stderr)
        self.assertTrue(m, r.stderr)
        nxt = int(m.group(1))
        self.assertGreater(nxt, 1)
        r = t6kit.vxdump("--pc", "vecadd.c:%d" % nxt, t)
        self.assertEqual(r.returncode, 0, r.stderr)
        r = t6kit.vxdump("--pc", "vecadd.c:999999", t)
        self.assertIn("nor after it", r.stderr)
        for bad in ("vecadd.c:0", "vecadd.c:4294967297", "vecadd.c:0:5", "vecadd.c:4294967297:1"):
            r = t6kit.vxdump("--pc", bad, t)
            self.assertEqual(r.returncode, 2)
            self.assertIn("'%s': a line number is 1 to 4294967295" % bad, r.stderr)
        # 'file:31:' or a symbol-like 'f::31' is no place: read as a symbol, not found
        for sym in ("vecadd.c:31:", "vecadd.c::31"):
            r = t6kit.vxdump("--pc", sym, t)
            self.assertEqual(r.returncode, 2)
            self.assertIn("no symbol '%s'" % sym, r.stderr)

        # two headers called util.h in two directories
        d = os.path.join(D, "two")
        for sub, val in (("a", 3), ("b", 5)):
            os.makedirs(os.path.join(d, sub), exist_ok=True)
            with open(os.path.join(d, sub, "util.h"), "w") as f:
                f.write("static inline int f_%s(int x)\n{\n    return x * %d + 1;\n}\n" % (sub, val))
        src = os.path.join(d, "k.c")
        with open(src, "w") as f:
            f.write('#include "a/util.h"\n#include "b/util.h"\n'
                    "volatile int v = 2;\nint main(void)\n{\n    v = f_a(v) + f_b(v);\n"
                    "    return 0;\n}\n")
        elf = vxcc(src, os.path.join(d, "k.elf"), "-O2", "-g")
        t2 = trace_of(elf)
        r = t6kit.vxdump("--pc", "util.h:3", t2)
        self.assertEqual(r.returncode, 2)
        self.assertRegex(r.stderr, r"'util.h' names 2 files \(\S*a/util.h, \S*b/util.h\)")
        for sub in ("a", "b"):
            r = t6kit.vxdump("--json", "--pc", "%s/util.h:3" % sub, t2)
            self.assertEqual(r.returncode, 0, r.stderr)
        nog = kernel("race-nog", os.path.join(t6kit.KDIR, "rrrace.c"), "-O2")
        r = t6kit.vxdump("--pc", "rrrace.c:40", trace_of(nog))
        self.assertEqual(r.returncode, 2)
        self.assertIn("no source file 'rrrace.c'", r.stderr)

    def test_text_column(self):
        """--lines: a SOURCE column with the JSON's file:line; vxdiff --lines too"""
        elf = vxtest.kernel("vecadd")
        t = trace_of(elf)
        want = {e["index"]: e["source"] for e in t6kit.events(t, "--from", "700", "--to", "900")}
        r = t6kit.vxdump("--lines", "--from", "700", "--to", "900", t)
        self.assertEqual(r.returncode, 0, r.stderr)
        head, *rows = r.stdout.splitlines()
        self.assertRegex(head, r"SYMBOL +SOURCE +MASK")
        seen = 0
        for row in rows:
            f = row.split()
            idx = int(f[0])
            if idx not in want or want[idx] is None:
                continue
            src = want[idx]
            self.assertIn(" %s:%d " % (src["file"], src["line"]), row)
            seen += 1
        self.assertGreater(seen, 50)
        plain = t6kit.vxdump("--from", "700", "--to", "900", t).stdout
        self.assertNotIn("SOURCE", plain, "no column without --lines")
        # vxdiff --lines: the events around a difference show it (two builds of a kernel
        # differ first in crt0's address arithmetic)
        a = kernel("race-o2", os.path.join(t6kit.KDIR, "rrrace.c"), "-O2", "-g")
        b = kernel("race-nosync", os.path.join(t6kit.KDIR, "rrrace.c"), "-O2", "-g",
                   "-DRACE_NOSYNC")
        r = t6kit.vxdiff("--lines", trace_of(a), trace_of(b))
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertRegex(r.stdout, r"\n[-+] .*<_start\+0x[0-9a-f]+> +\S*crt0\.S:\d+ ")
        self.assertNotRegex(t6kit.vxdiff(trace_of(a), trace_of(b)).stdout, r"crt0\.S:\d")


class Summary(unittest.TestCase):
    def test_lines_histogram(self):
        """--summary counts issues and lane-ops per source line: the same as the listing's
        sources added up; the text shows the busiest 20 of the JSON's rows, in order"""
        elf = vxtest.kernel("sgemm")
        t = trace_of(elf)
        want = {}
        for e in t6kit.events(t, "--kind", "issue"):
            if e["source"] is None or e["flags"] & 1:
                continue
            k = (e["source"]["file"], e["source"]["line"])
            n = want.setdefault(k, [0, 0])
            n[0] += 1
            n[1] += t6kit.popcount_hex(e["tmask"])
        got = t6kit.summary(t)["lines"]
        self.assertEqual({(r["file"], r["line"]): [r["issues"], r["lane_ops"]] for r in got}, want)
        self.assertEqual(len(got), len(want), "one row per line")
        self.assertEqual([r["issues"] for r in got], sorted((r["issues"] for r in got), reverse=True))
        text = t6kit.vxdump("--summary", t).stdout
        part = text[text.index("\nlines "):].splitlines()[2:22]
        self.assertEqual(len(part), 20)
        for row, r in zip(part, got):
            self.assertEqual(row.split()[0], str(r["issues"]))
            self.assertTrue(row.endswith("  %s:%d" % (r["file"], r["line"])), row)
        self.assertIn("(%d more lines ran" % (len(got) - 20), text)
        # a range: only its issues
        part = t6kit.summary(t, "--from", "1000", "--to", "1999")["lines"]
        self.assertLessEqual(sum(r["issues"] for r in part), 1000)


    def test_one_file_by_two_paths(self):
        """a header two units reach by two paths (src/../common/x.h from src/a.c,
        common/x.h from common/b.c) is one file, as for --pc FILE:LINE: one row per
        line of it, holding the issues of both units (two rows each before)"""
        d = os.path.join(D, "twopaths")
        for sub in ("src", "common"):
            os.makedirs(os.path.join(d, sub), exist_ok=True)
        files = {"common/x.h": "static inline int twice(int v)\n{\n    return v * 2 + 1;\n}\n",
                 "src/a.c": '#include "../common/x.h"\nint fa(int v);\n'
                            "int fa(int v) { return twice(v) + 3; }\n",
                 "common/b.c": '#include "x.h"\nint fa(int v);\nvolatile int g = 5;\n'
                               "int main(void)\n{\n    g = twice(g) + fa(g);\n    return 0;\n}\n"}
        for name, text in files.items():
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
        elf = os.path.join(d, "twopaths.elf")
        r = vxtest.run([vxtest.prog("vxcc"), "-O0", "-g", "-o", elf, "src/a.c", "common/b.c"],
                       cwd=d)
        self.assertEqual(r.returncode, 0, r.stderr)
        t = trace_of(elf)
        names = {e["source"]["file"] for e in t6kit.events(t, "--kind", "issue")
                 if e["source"] and e["source"]["file"].endswith("x.h")}
        self.assertEqual(len(names), 2, "the header by two paths: %s" % names)
        rows = [r for r in t6kit.summary(t)["lines"] if r["file"].endswith("x.h")]
        self.assertEqual(sorted(r["line"] for r in rows), [2, 3, 4], rows)
        for r in rows:
            want = t6kit.events(t, "--pc", "x.h:%d" % r["line"])
            self.assertEqual(r["issues"], len(want), r)
            self.assertIn(r["file"], names)


class Reports(unittest.TestCase):
    def test_fault(self):
        """vxsim's and vxrec's fault report and vxdump's summary name the FAULT line of
        rrfault.c"""
        src = os.path.join(t6kit.KDIR, "rrfault.c")
        with open(src) as f:
            line = next(i for i, ln in enumerate(f, 1) if "/* FAULT */" in ln)
        elf = kernel("fault-o0", src, "-O0", "-g")
        for r in (vxtest.run([vxtest.prog("vxsim"), elf]),
                  t6kit.record(elf, os.path.join(D, "f.vxt"))):
            self.assertEqual(r.returncode, 3, r.stderr)
            m = re.search(r"kernel fault at pc 0x[0-9a-f]+ <fetch\+0x[0-9a-f]+> in (\S+):(\d+) "
                          r"\(core", r.stderr)
            self.assertTrue(m, r.stderr)
            self.assertTrue(same_file(src, m.group(1)), m.group(1))
            self.assertEqual(int(m.group(2)), line)
        # the summary of the recording says where the run ended, the same way
        text = t6kit.vxdump("--summary", os.path.join(D, "f.vxt")).stdout
        m = re.search(r"^end +fault at cycle \d+: misaligned fault at pc 0x[0-9a-f]+ "
                      r"<fetch\+0x[0-9a-f]+> in (\S+):(\d+) \(core", text, re.M)
        self.assertTrue(m, text)
        self.assertEqual((same_file(src, m.group(1)), int(m.group(2))), (True, line))
        nog = kernel("fault-nog", src, "-O0")
        r = vxtest.run([vxtest.prog("vxsim"), nog])
        self.assertRegex(r.stderr, r"kernel fault at pc 0x[0-9a-f]+ <fetch\+0x[0-9a-f]+> \(core")

    def test_race(self):
        """a race report gives each access's line: addr2line's for its PC"""
        elf = kernel("race-nosync", os.path.join(t6kit.KDIR, "rrrace.c"), "-O2", "-g",
                     "-DRACE_NOSYNC")
        r = vxtest.run([vxtest.prog("vxsim"), "--races", "-w", "4", "-t", "4", elf])
        self.assertEqual(r.returncode, 5, r.stderr)
        acc = re.findall(r"^  (?:write|read) +event \d+, warp \d+:\d+ lane \d+, pc 0x([0-9a-f]{8}) "
                         r"<[^>]+> in (\S+):(\d+) \[", r.stderr, re.M)
        self.assertEqual(len(acc), 2, r.stderr)
        ref = addr2line(elf, [int(a[0], 16) for a in acc])
        for pc, f, line in acc:
            want = ref[int(pc, 16)]
            self.assertIsNotNone(want, pc)
            self.assertEqual(want[1], int(line), pc)
            self.assertTrue(same_file(want[0], f) and f.endswith("rrrace.c"), (want, f))


    def test_damaged_tables_noted(self):
        """a kernel whose .debug_line ends in a damaged unit: vxdump and vxdiff say so on
        stderr (naming the unit's offset, the intact section's size) and still give the
        lines of the units before it (silent before)"""
        elf = vxtest.kernel("vecadd")
        sec = os.path.join(D, "line.bin")
        r = vxtest.run(["riscv64-unknown-elf-objcopy", "--dump-section", ".debug_line=" + sec,
                        elf, os.path.join(D, "scratch.elf")])
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(sec, "rb") as f:
            good = f.read()
        with open(sec, "wb") as f:  # a unit whose 32-bit length is a reserved value
            f.write(good + b"\xf0\xff\xff\xff" + bytes(28))
        bad = os.path.join(D, "vecadd-badline.elf")
        r = vxtest.run(["riscv64-unknown-elf-objcopy", "--update-section", ".debug_line=" + sec,
                        elf, bad])
        self.assertEqual(r.returncode, 0, r.stderr)
        note = "note: damaged line table at offset %d (the recorded kernel's)" % len(good)
        tg, tb = trace_of(elf), trace_of(bad)
        ok = t6kit.vxdump("--json", "--kind", "issue", tg)
        r = t6kit.vxdump("--json", "--kind", "issue", tb)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(note, r.stderr)
        self.assertNotIn("note:", ok.stderr)
        src = [json.loads(ln)["source"] for ln in r.stdout.splitlines()]
        self.assertEqual(src, [json.loads(ln)["source"] for ln in ok.stdout.splitlines()])
        self.assertGreater(sum(1 for x in src if x), 1000)
        r = t6kit.vxdiff(tg, tb)
        self.assertIn(note, r.stderr)
        self.assertEqual(t6kit.vxdiff("-q", tg, tb).stderr, "")


class FuzzSeeds(unittest.TestCase):
    def test_fuzz_lines_seeds(self):
        """make fuzz seeds fuzz-lines with the kernels' line tables, DWARF 5 and 4 (the
        objcopy -O binary of run.sh wrote them empty: .debug_line is not a loaded section)"""
        out = os.path.join(D, "seeds")
        kdir = os.path.dirname(vxtest.kernel("vecadd"))
        r = vxtest.run(["sh", "tests/fuzz/seed-lines.sh", kdir, out, vxtest.prog("vxcc")],
                       cwd=vxtest.ROOT)
        self.assertEqual(r.returncode, 0, r.stderr)
        for name, version in (("seed-vecadd", 5), ("seed-sgemm", 5), ("seed-v4", 4)):
            with open(os.path.join(out, name), "rb") as f:
                data = f.read()
            self.assertGreater(len(data), 100, name)
            unit = int.from_bytes(data[:4], "little")
            self.assertLessEqual(4 + unit, len(data), name)
            self.assertEqual(int.from_bytes(data[4:6], "little"), version, name)
        for name in ("seed-hello.elf", "seed-v4.elf"):
            with open(os.path.join(out, name), "rb") as f:
                self.assertEqual(f.read(4), b"\x7fELF", name)


if __name__ == "__main__":
    vxtest.main(AgainstAddr2line, PcFilter, Summary, Reports, FuzzSeeds)
