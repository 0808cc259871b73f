#!/usr/bin/env python3
"""t6004: vxdiff --memory - compare what two runs did to memory, whatever their code
layout: a buggy kernel and its fixed build (another layout, one extra output element),
identical runs, one kernel on two inputs, two builds that differ only in their code,
platforms with other core counts, and usage errors.

The expectations are computed independently: the output values from the kernel's
formula and the input files the test writes, the writer of a word from vxdump's
--addr listing of the trace (its last issue that writes the word), function
addresses with nm, and the bytes of two kernel images with a small ELF reader here.
"""
import json
import os
import struct
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
import vxtest  # noqa: E402
import t6kit  # noqa: E402

OUT = 0x30000  # tests/kernels/t6-memdiff.c writes out[] there
N = 10
IN1 = [100 + i for i in range(N)]
IN2 = list(IN1)
IN2[4] = 555


def setUpModule():
    global D, K, T
    if not t6kit.have_toolchain() or not os.path.exists(vxtest.prog("vxrec")):
        raise unittest.SkipTest("vxcc, riscv64-unknown-elf-ld or vxrec missing")
    D = vxtest.tmpdir()
    src = os.path.join(t6kit.KDIR, "t6-memdiff.c")
    K = {
        "bug": t6kit.vxcc(src, os.path.join(D, "bug.elf"), ["-DMEMDIFF_BUG"]),
        "bug_g": t6kit.vxcc(src, os.path.join(D, "bug-g.elf"), ["-DMEMDIFF_BUG", "-g"]),
        "fix": t6kit.vxcc(src, os.path.join(D, "fix.elf")),
        "img": t6kit.build("t6-memimg", D),
        "pad": t6kit.build("t6-memimg", D, ["-DT6_PAD"]),
        "local": t6kit.vxcc(os.path.join(t6kit.KDIR, "rrlocal.c"), os.path.join(D, "local.elf")),
        "obug": t6kit.vxcc(os.path.join(t6kit.KDIR, "t6-objdiff.c"), os.path.join(D, "obug.elf"),
                     ["-DOBJDIFF_BUG"]),
        "ofix": t6kit.vxcc(os.path.join(t6kit.KDIR, "t6-objdiff.c"), os.path.join(D, "ofix.elf")),
    }
    for name, words in (("in1.bin", IN1), ("in2.bin", IN2)):
        with open(os.path.join(D, name), "wb") as f:
            f.write(struct.pack("<%dI" % (N + 1), N, *words))
    T = {}
    for name, kernel, inp in (("bug", "bug", "in1"), ("bug_g", "bug_g", "in1"), ("fix", "fix", "in1"),
                              ("fix_again", "fix", "in1"),
                              ("fix_in2", "fix", "in2")):
        T[name] = rec(K[kernel], name + ".vxt",
                      ["-w", "4", "-t", "4", "--load", os.path.join(D, inp + ".bin") + "@0x20000",
                       "--arg", "0x20000"], 0)
    T["img"] = rec(K["img"], "img.vxt", ["-w", "1"], 0)
    T["pad"] = rec(K["pad"], "pad.vxt", ["-w", "1"], 0)
    T["local2"] = rec(K["local"], "local2.vxt", ["-c", "2"], 0)
    T["local1"] = rec(K["local"], "local1.vxt", ["-c", "1"], 0)
    for name in ("obug", "ofix"):
        T[name] = rec(K[name], name + ".vxt", ["-w", "4", "-t", "4"], 0)


def rec(kernel, name, args, expect):
    path = os.path.join(D, name)
    t6kit.record(kernel, path, args, expect=expect)
    return path


def diff_json(*args):
    r = t6kit.vxdiff("--memory", "--json", *args)
    return r.returncode, [json.loads(ln) for ln in r.stdout.splitlines()], r.stderr


def last_writer(trace, addr):
    """(event, core, warp, lane, value) of the last write to the word at addr, from vxdump
    --addr (None when no issue writes it)."""
    evs = [e for e in t6kit.events(trace, "--addr", "0x%x:4" % addr) if e["type"] == "issue"]
    if not evs:
        return None
    e = evs[-1]
    w = [m for m in e["mem"] if m["addr"] <= addr < m["addr"] + m["size"]][-1]
    return e["index"], e["core"], e["warp"], w["lane"], w["value"]


def data_objects(elf):
    """{name: (address, size)} of an ELF's sized data symbols (nm -S)."""
    r = vxtest.run(["riscv64-unknown-elf-nm", "-S", "--defined-only", elf])
    return {f[3]: (int(f[0], 16), int(f[1], 16)) for f in map(str.split, r.stdout.splitlines())
            if len(f) == 4 and f[2] in "dDbBrRgGsS"}


def function(elf, name):
    for addr, size, n in t6kit.nm_functions(elf):
        if n == name:
            return addr, size
    raise AssertionError("no function %s in %s" % (name, elf))


def image_bytes(elf):
    """{address: byte} of an ELF32's PT_LOAD segments (p_memsz, zero-filled)."""
    with open(elf, "rb") as f:
        data = f.read()
    phoff, = struct.unpack_from("<I", data, 28)
    phentsize, phnum = struct.unpack_from("<HH", data, 42)
    mem = {}
    for i in range(phnum):
        typ, off, vaddr, _, filesz, memsz = struct.unpack_from("<IIIIII", data, phoff + i * phentsize)
        if typ != 1:
            continue
        for j in range(memsz):
            mem[vaddr + j] = data[off + j] if j < filesz else 0
    return mem


class BuggyVsFixed(unittest.TestCase):
    def test_extra_element(self):
        """the bug writes out[N] (3 * 0 + N + 1: the word after the input is 0); the fix
        never writes it: that range is the first listed, with A's writer as vxdump --addr
        finds it and B's 'never written'"""
        addr = OUT + 4 * N
        want = last_writer(T["bug"], addr)
        self.assertIsNotNone(want)
        self.assertEqual(want[4], N + 1)
        self.assertIsNone(last_writer(T["fix"], addr))  # (independently: the fix never writes it)
        rc, objs, err = diff_json("--max", "1", T["bug"], T["fix"])
        self.assertEqual(rc, 1, err)
        ranges = [o for o in objs if o["type"] == "memory"]
        self.assertEqual(len(ranges), 1)  # --max 1
        r = ranges[0]
        self.assertEqual((r["space"], r["addr"], r["len"], r["layout"]), ("global", addr, 4, False))
        self.assertEqual(r["a"]["bytes"], struct.pack("<I", N + 1).hex())
        self.assertEqual(r["b"]["bytes"], "00000000")
        (wa,) = r["a"]["writes"]
        self.assertEqual((wa["event"], wa["core"], wa["warp"], wa["lane"], wa["value"]), want)
        self.assertEqual((wa["addr"], wa["len"], wa["write_addr"], wa["size"]), (addr, 4, addr, 4))
        lo, size = function(K["bug"], "kernel_body")
        self.assertTrue(lo <= wa["pc"] < lo + size, hex(wa["pc"]))
        self.assertEqual((wa["symbol"], wa["offset"]), ("kernel_body", wa["pc"] - lo))
        self.assertIsNone(wa["source"])  # built without -g: no line tables
        (wb,) = r["b"]["writes"]
        self.assertEqual((wb["addr"], wb["len"], wb["event"]), (addr, 4, None))
        res = objs[-1]
        self.assertEqual((res["type"], res["mode"], res["status"]), ("result", "memory", 1))
        # the one range at a fixed address; the others are where the code's layout
        # places things (the moved .bss, TLS blocks, saved return addresses on the stacks)
        self.assertEqual(res["differences_found"] - res["layout_ranges"], 1)
        self.assertEqual(res["differences_shown"], 1)
        self.assertGreater(res["image_bytes"], 0)  # the code

    def test_objects_named(self):
        """each part of a range in global memory names the static object there in that
        side's ELF (nm -S: a data, bss or rodata symbol covering the address), in the JSON
        and, as <name+0xN>, in the text; a part outside every object names none"""
        rc, objs, err = diff_json("--max", "0", T["bug"], T["fix"])
        self.assertEqual(rc, 1, err)
        named = 0
        for side, elf in (("a", K["bug"]), ("b", K["fix"])):
            r = vxtest.run(["riscv64-unknown-elf-nm", "-S", "--defined-only", elf])
            data = [(int(f[0], 16), int(f[1], 16), f[3]) for f in map(str.split, r.stdout.splitlines())
                    if len(f) == 4 and f[2] in "dDbBrRgGsS"]
            for o in objs:
                if o["type"] != "memory" or o["space"] != "global":
                    continue
                for w in o[side]["writes"]:
                    covering = [(n, w["addr"] - a) for a, sz, n in data if a <= w["addr"] < a + sz]
                    if w["object"] is None:
                        self.assertEqual(covering, [], (side, hex(w["addr"])))
                    else:
                        self.assertIn((w["object"], w["object_offset"]), covering)
                        named += 1
        self.assertGreater(named, 0, "the moved .bss of the runtime is written")
        text = t6kit.vxdiff("--memory", "--max", "0", T["bug"], T["fix"]).stdout
        self.assertRegex(text, r"\n[-+] 0x[0-9a-f]{8}\.\.0x[0-9a-f]{8} <[^>]+> = ")

    def test_text(self):
        """the text form: the range, both values, the writer with its function and
        instruction; the closing lines"""
        addr = OUT + 4 * N
        ev, core, warp, lane, _ = last_writer(T["bug"], addr)
        r = t6kit.vxdiff("--memory", "--max", "1", T["bug"], T["fix"])
        self.assertEqual(r.returncode, 1, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual(lines[2], "@@ memory 0x%08x..0x%08x differs (4 bytes) @@" % (addr, addr + 3))
        self.assertRegex(lines[3], r"^- 0x%08x\.\.0x%08x = 0x%08x \(%d\)  written at event %d \(cycle \d+\) "
                         r"by warp %d:%d lane %d, pc 0x[0-9a-f]{8} <kernel_body\+0x[0-9a-f]+>: sw "
                         % (addr, addr + 3, N + 1, N + 1, ev, core, warp, lane))
        self.assertEqual(lines[4], "+ 0x%08x..0x%08x = 0x00000000  never written (initial image)"
                         % (addr, addr + 3))
        self.assertRegex(lines[5], r"^vxdiff: \d+ ranges of memory \(\d+ bytes\) written during the "
                         r"runs differ: 1 at fixed addresses, \d+ where the code's layout places "
                         r"things .* \(the first 1 shown: --max\)$")
        self.assertRegex(lines[6], r"^vxdiff: \d+ bytes of the initial memory .* not listed$")

    def test_writer_source_line(self):
        """a kernel built with -g: the writer's source line (the store statement of
        t6-memdiff.c, found in the source text), in the text and the JSON"""
        with open(os.path.join(t6kit.KDIR, "t6-memdiff.c")) as f:
            (line,) = [i + 1 for i, ln in enumerate(f) if "OUT[i] = 3 * a->in[i]" in ln]
        rc, objs, err = diff_json("--max", "1", T["bug_g"], T["fix"])
        self.assertEqual(rc, 1, err)
        (wa,) = [o for o in objs if o["type"] == "memory"][0]["a"]["writes"]
        self.assertTrue(wa["source"]["file"].endswith("/t6-memdiff.c"), wa["source"])
        self.assertEqual(wa["source"]["line"], line)
        r = t6kit.vxdiff("--memory", "--max", "1", T["bug_g"], T["fix"])
        self.assertRegex(r.stdout.splitlines()[3], r"pc 0x[0-9a-f]{8} <kernel_body\+0x[0-9a-f]+> "
                         r"in \S*t6-memdiff\.c:%d: sw " % line)

    def test_lockstep_useless_memory_useful(self):
        """(the problem: the event comparison stops in the start-up code)"""
        r = t6kit.vxdiff(T["bug"], T["fix"])
        self.assertEqual(r.returncode, 1)
        self.assertIn("_start", r.stdout)


class SameKernel(unittest.TestCase):
    def test_identical(self):
        """two recordings of one run: exit 0, nothing printed; -v says so"""
        r = t6kit.vxdiff("--memory", T["fix"], T["fix_again"])
        self.assertEqual((r.returncode, r.stdout, r.stderr), (0, "", ""))
        r = t6kit.vxdiff("--memory", "-v", T["fix"], T["fix_again"])
        self.assertEqual(r.returncode, 0)
        self.assertIn("the memory written during the runs is identical", r.stdout)
        rc, objs, err = diff_json(T["fix"], T["fix_again"])
        self.assertEqual(rc, 0, err)
        self.assertEqual(len(objs), 1)
        self.assertTrue(objs[0]["identical"])
        self.assertEqual((objs[0]["differences_found"], objs[0]["image_bytes"]), (0, 0))
        self.assertEqual(t6kit.vxdiff("--memory", "-q", T["fix"], T["fix"]).returncode, 0)

    def test_other_input(self):
        """one kernel on inputs that differ in element 4: out[4] differs, written on
        both sides by the issue vxdump --addr names; the input file's differing bytes
        are initial memory, only counted"""
        addr = OUT + 16
        rc, objs, err = diff_json("--max", "0", T["fix"], T["fix_in2"])
        self.assertEqual(rc, 1, err)
        ranges = [o for o in objs if o["type"] == "memory"]
        self.assertEqual([(r["addr"], r["len"], r["layout"]) for r in ranges], [(addr, 4, False)])
        r = ranges[0]
        va, vb = 3 * IN1[4] + 4 + 1, 3 * IN2[4] + 4 + 1
        self.assertEqual((r["a"]["bytes"], r["b"]["bytes"]),
                         (struct.pack("<I", va).hex(), struct.pack("<I", vb).hex()))
        for side, trace, v in (("a", T["fix"], va), ("b", T["fix_in2"], vb)):
            (w,) = r[side]["writes"]
            self.assertEqual((w["event"], w["core"], w["warp"], w["lane"], w["value"]),
                             last_writer(trace, addr))
            self.assertEqual(w["value"], v)
        in1 = struct.pack("<%dI" % (N + 1), N, *IN1)
        in2 = struct.pack("<%dI" % (N + 1), N, *IN2)
        res = objs[-1]
        self.assertEqual((res["differences_found"], res["layout_ranges"], res["bytes"]), (1, 0, 4))
        self.assertEqual(res["image_bytes"], sum(a != b for a, b in zip(in1, in2)))

    def test_max(self):
        """--max N lists N ranges; 0 all; the default 10"""
        count = lambda *a: t6kit.vxdiff("--memory", *a, T["bug"], T["fix"]).stdout.count("@@ memory")
        rc, objs, _ = diff_json("--max", "0", T["bug"], T["fix"])
        total = objs[-1]["differences_found"]
        self.assertGreater(total, 10)
        self.assertEqual(count(), 10)
        self.assertEqual(count("--max", "3"), 3)
        self.assertEqual(count("--max", "0"), total)
        self.assertEqual(len([o for o in objs if o["type"] == "memory"]), total)
        # the fixed-address range first, then the rest in address order
        addrs = [o["addr"] for o in objs if o["type"] == "memory"]
        self.assertEqual(addrs[0], OUT + 4 * N)
        self.assertEqual(addrs[1:], sorted(addrs[1:]))
        self.assertTrue(all(o["layout"] for o in objs[1:-1]))


class ImageOnly(unittest.TestCase):
    def test_code_moved(self):
        """two builds whose code differs (64 nops more) and whose runs write the same
        memory: exit 0, no range; the image's differing bytes counted in one note,
        as many as the two ELF images' loaded bytes differ"""
        a, b = image_bytes(K["img"]), image_bytes(K["pad"])
        differing = sum(a.get(x, 0) != b.get(x, 0) for x in set(a) | set(b))
        self.assertGreater(differing, 100)
        r = t6kit.vxdiff("--memory", T["img"], T["pad"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("@@", r.stdout)
        self.assertEqual(r.stdout.splitlines(), [
            "vxdiff: %s and %s: the memory written during the runs is identical" % (T["img"], T["pad"]),
            "vxdiff: %d bytes of the initial memory (kernel image, loaded files) differ where "
            "neither run wrote: not listed" % differing])
        rc, objs, _ = diff_json(T["img"], T["pad"])
        self.assertEqual((rc, objs[-1]["differences_found"], objs[-1]["image_bytes"]), (0, 0, differing))
        # (the event comparison sees the code)
        self.assertEqual(t6kit.vxdiff("-q", T["img"], T["pad"]).returncode, 1)
        # and what the run wrote is there: out[lane] = 7 * lane + 1 in both
        for lane in range(4):
            self.assertEqual(last_writer(T["img"], OUT + 4 * lane)[4], 7 * lane + 1)


class Platforms(unittest.TestCase):
    def test_other_core_count(self):
        """2 cores against 1: core 0's local memory is compared (the same word written
        by both), core 1's is not, and the note says so"""
        r = t6kit.vxdiff("--memory", "--max", "0", T["local2"], T["local1"])
        self.assertIn("vxdiff: A has 2 cores, B 1: the local memory of core 1 (only in A) is not "
                      "compared", r.stderr)
        self.assertNotIn("local 0x", r.stdout)
        self.assertIn(r.returncode, (0, 1))  # (core 1's stack in global memory differs)
        r = t6kit.vxdiff("--memory", T["local2"], T["local2"])
        self.assertEqual((r.returncode, r.stdout, r.stderr), (0, "", ""))


class Objects(unittest.TestCase):
    """--object NAME: one static object of each build, at its own address in each (the
    buggy build of tests/kernels/t6-objdiff.c moves every object: an extra one, a longer
    scratch[], more code)"""

    def setUp(self):
        self.a, self.b = data_objects(K["obug"]), data_objects(K["ofix"])
        for name in ("squares", "hist", "st", "scratch"):
            self.assertNotEqual(self.a[name][0], self.b[name][0], name)  # (the premise)

    def test_moved_array(self):
        """squares[7]: 7 * 7 + 1 in the buggy build, 49 in the fix, each with its writer
        (vxdump --addr on each trace) and the object and offset named on each side; the
        other 15 elements are equal; nothing else is compared"""
        rc, objs, err = diff_json("--object", "squares", T["obug"], T["ofix"])
        self.assertEqual((rc, err), (1, ""))
        (r,) = [o for o in objs if o["type"] == "memory"]
        aa, ab = self.a["squares"][0] + 28, self.b["squares"][0] + 28
        self.assertEqual((r["space"], r["addr"], r["addr_b"], r["len"], r["layout"]),
                         ("global", aa, ab, 4, False))
        self.assertEqual((r["a"]["bytes"], r["b"]["bytes"]),
                         (struct.pack("<I", 50).hex(), struct.pack("<I", 49).hex()))
        for side, trace, addr, value in (("a", T["obug"], aa, 50), ("b", T["ofix"], ab, 49)):
            (w,) = r[side]["writes"]
            want = last_writer(trace, addr)
            self.assertEqual(want[4], value)
            self.assertEqual((w["event"], w["core"], w["warp"], w["lane"], w["value"]), want)
            self.assertEqual((w["addr"], w["object"], w["object_offset"], w["symbol"]),
                             (addr, "squares", 28, "kernel_body"))
        res = objs[-1]
        self.assertEqual((res["differences_found"], res["bytes"], res["layout_ranges"]), (1, 4, 0))
        text = t6kit.vxdiff("--object", "squares", T["obug"], T["ofix"]).stdout.splitlines()
        self.assertEqual(text[2], "@@ memory 0x%08x..0x%08x (in B 0x%08x..0x%08x) differs (4 bytes) @@"
                         % (aa, aa + 3, ab, ab + 3))
        self.assertRegex(text[3], r"^- 0x%08x\.\.0x%08x <squares\+0x1c> = 0x00000032 \(50\)  written "
                         r"at event \d+ .* <kernel_body\+0x[0-9a-f]+>: sw " % (aa, aa + 3))
        self.assertRegex(text[4], r"^\+ 0x%08x\.\.0x%08x <squares\+0x1c> = 0x00000031 \(49\)  " % (ab, ab + 3))

    def test_unaligned_odd_sized(self):
        """an object of 5 bytes at an odd address whose last byte differs: that byte alone,
        nothing of the object after it (a word past the object's end was reported, read
        past the arrays of the bytes compared)"""
        src = os.path.join(D, "odd.c")
        with open(src, "w") as f:
            f.write("#include <stdint.h>\n#include <vx_intrinsics.h>\n"
                    "uint8_t odd[5] __attribute__((aligned(1)));\n"
                    "uint8_t seven[7] __attribute__((aligned(1)));\n"
                    "uint32_t after[2];\n"
                    "int main(void) {\n"
                    "    if (vx_core_id() != 0) return 0;\n"
                    "    for (int i = 0; i < 5; i++) odd[i] = (uint8_t)(i + 10 + LAST * (i == 4));\n"
                    "    seven[0] = 1;\n"
                    "    after[0] = 8;\n"
                    "    return 0;\n}\n")
        traces = []
        for last in (0, 1):
            elf = os.path.join(D, "odd%d.elf" % last)  # (-O1: -O2 aligns the arrays)
            r = vxtest.run([vxtest.prog("vxcc"), "-O1", "-DLAST=%d" % last, "-o", elf, src])
            self.assertEqual(r.returncode, 0, r.stderr)
            traces.append(rec(elf, "odd%d.vxt" % last, ["-w", "1"], 0))
            addr, size = data_objects(elf)["odd"]
            self.assertEqual((addr % 2, size), (1, 5))  # (the premise)
        rc, objs, err = diff_json("--object", "odd", *traces)
        self.assertEqual((rc, err), (1, ""))
        (r,) = [o for o in objs if o["type"] == "memory"]
        self.assertEqual((r["addr"], r["len"], r["a"]["bytes"], r["b"]["bytes"]),
                         (addr + 4, 1, "0e", "0f"))
        self.assertEqual(objs[-1]["bytes"], 1)

    def test_consequences(self):
        """what main computed from squares[]: hist[] (squares by value mod 8: 4, 8, 0, 0,
        4, 0, 0, 0 in the fix; 50 moves one from bin 1 to bin 2) and st.sum (1240 =
        0^2 + .. + 15^2, and 1241); st.count and scratch[] (100, 101, the first 8 bytes:
        the buggy build's is longer, said in a note) are equal; one object named twice
        counts once"""
        rc, objs, err = diff_json("--max", "0", "--object", "hist", "--object", "st", "--object",
                                  "scratch", "--object", "hist", T["obug"], T["ofix"])
        self.assertEqual(rc, 1, err)
        self.assertEqual(err, "vxdiff: 'scratch' has 16 bytes in A and 8 in B: the first 8 are "
                              "compared\n")
        got = [(o["addr"] - self.a[o["a"]["writes"][0]["object"]][0],
                o["a"]["writes"][0]["object"], o["a"]["bytes"], o["b"]["bytes"])
               for o in objs if o["type"] == "memory"]
        want = [(4, "st", struct.pack("<I", 1241).hex(), struct.pack("<I", 1240).hex()),
                (4, "hist", struct.pack("<II", 7, 1).hex(), struct.pack("<II", 8, 0).hex())]
        self.assertEqual(sorted(got), sorted(want))
        for o in objs[:-1]:
            name = o["a"]["writes"][0]["object"]
            self.assertEqual(o["addr_b"] - self.b[name][0], o["addr"] - self.a[name][0])
        self.assertEqual(objs[-1]["differences_found"], 2)
        rc, _, err = diff_json("--object", "scratch", T["obug"], T["ofix"])
        self.assertEqual(rc, 0, err)

    def test_constant_table(self):
        """a named object is compared whole: a .rodata table that no run writes, whose
        last weight is 5 in the buggy build and 4 in the fix, differs there, both sides
        "never written" (compared by address, such bytes are only counted in the note)"""
        rc, objs, err = diff_json("--object", "weights", T["obug"], T["ofix"])
        self.assertEqual((rc, err), (1, ""))
        (r,) = [o for o in objs if o["type"] == "memory"]
        self.assertEqual((r["addr"], r["addr_b"], r["len"]),
                         (self.a["weights"][0] + 12, self.b["weights"][0] + 12, 4))
        self.assertEqual((r["a"]["bytes"], r["b"]["bytes"]),
                         (struct.pack("<I", 5).hex(), struct.pack("<I", 4).hex()))
        for side in ("a", "b"):
            (w,) = r[side]["writes"]
            self.assertEqual((w["event"], w["object"], w["object_offset"]), (None, "weights", 12))
        self.assertEqual(objs[-1]["image_bytes"], 0)
        text = t6kit.vxdiff("--object", "weights", T["obug"], T["ofix"]).stdout.splitlines()
        self.assertTrue(text[3].endswith("= 0x00000005 (5)  never written (initial image)"), text)
        self.assertEqual(text[-1], "vxdiff: 1 range (4 bytes) of the object named differs")
        r = t6kit.vxdiff("-v", "--object", "hist", "--object", "scratch", T["ofix"], T["ofix"])
        self.assertEqual((r.returncode, r.stdout.splitlines()[-1]),
                         (0, "vxdiff: %s and %s: the objects named are identical" % (T["ofix"], T["ofix"])))

    def test_closing_line(self):
        """the closing line of --object is a whole line (it lacked its newline), and names
        the --max limit when fewer ranges are shown than differ, as --memory's does"""
        r = t6kit.vxdiff("--object", "squares", T["obug"], T["ofix"])
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertTrue(r.stdout.endswith("vxdiff: 1 range (4 bytes) of the object named differs\n"),
                        r.stdout[-80:])
        r = t6kit.vxdiff("--max", "1", "--object", "hist", "--object", "st", T["obug"], T["ofix"])
        self.assertEqual((r.returncode, r.stdout.count("@@ memory")), (1, 1), r.stderr)
        self.assertTrue(r.stdout.endswith("vxdiff: 2 ranges (12 bytes) of the objects named differ "
                                          "(the first 1 shown: --max)\n"), r.stdout[-120:])

    def test_by_address_instead(self):
        """(the problem --object solves: compared by address, the same objects show as
        differences where the code's layout places things)"""
        rc, objs, _ = diff_json("--max", "0", T["obug"], T["ofix"])
        self.assertEqual(rc, 1)
        self.assertEqual(objs[-1]["layout_ranges"], objs[-1]["differences_found"])
        self.assertGreater(objs[-1]["differences_found"], 2)

    def test_errors(self):
        """an object one build lacks, a name that is no data object, an empty name"""
        r = t6kit.vxdiff("--object", "spare", T["obug"], T["ofix"])
        self.assertEqual((r.returncode, r.stdout), (2, ""))
        self.assertEqual(r.stderr, "vxdiff: %s: its kernel has no data object 'spare' (a sized symbol "
                         "of .data, .bss or .rodata in its ELF, as nm lists them)\n" % T["ofix"])
        r = t6kit.vxdiff("--object", "kernel_body", T["obug"], T["ofix"])  # a function
        self.assertEqual(r.returncode, 2)
        self.assertIn("no data object 'kernel_body'", r.stderr)
        r = t6kit.vxdiff("--object", "", T["obug"], T["ofix"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("--object: the name of a data object", r.stderr)
        r = t6kit.vxdiff("--object", "squares", "--per-warp", T["obug"], T["ofix"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("--memory compares memory, not events", r.stderr)


class Usage(unittest.TestCase):
    def test_conflicts(self):
        for extra in (["--per-warp"], ["--ignore", "cycle"], ["-C", "2"]):
            r = t6kit.vxdiff("--memory", *extra, T["fix"], T["fix"])
            self.assertEqual(r.returncode, 2, extra)
            self.assertIn("--memory compares memory, not events", r.stderr)

    def test_damaged(self):
        """a cut-off trace: exit 2 (the comparison is incomplete)"""
        with open(T["fix"], "rb") as f:
            data = f.read()
        cut = os.path.join(D, "cut.vxt")
        with open(cut, "wb") as f:
            f.write(data[:-64])  # (the index and the trailer: cut off)
        r = t6kit.vxdiff("--memory", T["fix"], cut)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("incomplete", r.stderr)


if __name__ == "__main__":
    vxtest.main(BuggyVsFixed, SameKernel, ImageOnly, Platforms, Objects, Usage)
