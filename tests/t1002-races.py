#!/usr/bin/env python3
"""t1002 - vxsim --races on real kernels: tests/kernels/rrrace.c built correct and with
one bug each (a missing __syncthreads() before a local-memory reduction reads another
warp's slot; a counter added to without its lock), and the example kernels, which are
race-free (barriers, global barriers, wspawn waits, vx_printf's lock) at several
platform shapes.

Independent expectations: which variable and memory a bug races on is known from the
source; the event numbers a report gives are checked against a recording of the same
run (vxdump shows that warp issuing that PC at that event); function and object names
against nm.  The exact kinds of conflict and the vector-clock rules are pinned by the
unit test tests/unit/t-race.c on hand-built events.
"""
import os
import re
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
import vxtest  # noqa: E402
import t6kit  # noqa: E402

VXSIM = vxtest.prog("vxsim")
SHAPE = ["-w", "4", "-t", "4"]
# one report: headline, then the earlier and the later access
REPORT = re.compile(
    r"data race \((?P<kind>[a-z ]+)\) on (?P<len>\d+) bytes? at 0x(?P<addr>[0-9a-f]{8})"
    r"(?: <(?P<obj>[^>]+)>)?(?P<local> \(core \d+'s local memory\))?:\n"
    r"  (?P<k1>write|read) +event (?P<e1>\d+), warp (?P<c1>\d+):(?P<w1>\d+) lane (?P<l1>\d+), "
    r"pc 0x(?P<pc1>[0-9a-f]{8}) <(?P<f1>[^>]+)>[^\n]*\n"
    r"  (?P<k2>write|read) +event (?P<e2>\d+), warp (?P<c2>\d+):(?P<w2>\d+) lane (?P<l2>\d+), "
    r"pc 0x(?P<pc2>[0-9a-f]{8}) <(?P<f2>[^>]+)>")


def setUpModule():
    global D, K
    if not t6kit.have_toolchain():
        raise unittest.SkipTest("vxcc or the RISC-V toolchain missing")
    D = vxtest.tmpdir()
    src = os.path.join(t6kit.KDIR, "rrrace.c")
    K = {name: t6kit.vxcc(src, os.path.join(D, name + ".elf"), defs)
         for name, defs in (("ok", []), ("nosync", ["-DRACE_NOSYNC"]),
                            ("nolock", ["-DRACE_NOLOCK"]))}


def races(kernel, *args):
    r = vxtest.run([VXSIM, "--races"] + list(args) + [kernel])
    return r, [m.groupdict() for m in REPORT.finditer(r.stderr)]


def nm_objects(elf):
    out = subprocess.run(["riscv64-unknown-elf-nm", elf], capture_output=True, text=True,
                         check=True).stdout
    return {ln.split()[2]: int(ln.split()[0], 16) for ln in out.splitlines()
            if len(ln.split()) == 3}


class Kernels(unittest.TestCase):
    def test_correct_kernel(self):
        """the block sum with its barriers and the counter under its lock: no race, exit 0"""
        r, found = races(K["ok"], *SHAPE)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(found, [])
        self.assertRegex(r.stderr, r"--races: no data race found in \d+ issues")

    def test_missing_barrier(self):
        """without the barrier after the first store, a warp reads a slot another warp
        writes: reported in core 0's local memory, both accesses in block_cb, exit 5"""
        r, found = races(K["nosync"], *SHAPE)
        self.assertEqual(r.returncode, 5, r.stderr)
        self.assertEqual(len(found), 1, r.stderr)
        x = found[0]
        self.assertIn(x["kind"], ("write then read", "read then write"))
        self.assertTrue(x["local"], r.stderr)
        self.assertTrue(0xFFFF0000 <= int(x["addr"], 16) < 0xFFFF0000 + 16 * 4)
        self.assertNotEqual(x["w1"], x["w2"], "two warps")
        for f in ("f1", "f2"):
            self.assertTrue(x[f].startswith("block_cb+"), x[f])
        self.assertIn("1 race (pairs of instructions)", r.stderr)

    def test_missing_lock(self):
        """the counter without its lock: races on `counter` (its address per nm), and
        the lost update the race causes makes the kernel fail (exit 2, its own)"""
        r, found = races(K["nolock"], *SHAPE)
        self.assertEqual(r.returncode, 2, "the kernel's own status wins: " + r.stderr)
        self.assertTrue(found, r.stderr)
        counter = nm_objects(K["nolock"])["counter"]
        for x in found:
            self.assertEqual(int(x["addr"], 16), counter)
            self.assertEqual(x["obj"], "counter")
            self.assertFalse(x["local"])
        self.assertIn("write then write", [x["kind"] for x in found])

    def test_event_numbers_are_the_recordings(self):
        """a report's event numbers name the same issues in a recording of the run:
        vxdump shows that warp at that pc there"""
        if not os.path.exists(vxtest.prog("vxrec")):
            self.skipTest("vxrec missing")
        r, found = races(K["nosync"], *SHAPE)
        self.assertTrue(found, r.stderr)
        trace = os.path.join(D, "nosync.vxt")
        t6kit.record(K["nosync"], trace, SHAPE, expect=0)
        for x in found:
            for e, c, w, pc in (("e1", "c1", "w1", "pc1"), ("e2", "c2", "w2", "pc2")):
                evs = [ev for ev in t6kit.events(trace, "--from", x[e], "--to", x[e])
                       if ev.get("type") == "issue"]
                self.assertEqual(len(evs), 1, x[e])
                self.assertEqual(evs[0]["pc"], int(x[pc], 16))
                self.assertEqual((evs[0]["core"], evs[0]["warp"]), (int(x[c]), int(x[w])))

    def test_examples_race_free(self):
        """every example kernel is race-free (barriers, global barriers across cores,
        wspawn waits, vx_printf's lock, atomics) at three platform shapes"""
        names = ["vecadd", "sgemm", "reduce", "spawn", "gbar", "diverge", "warpops", "printf"]
        for shape in (["-w", "4", "-t", "4"], ["-c", "2", "-w", "8", "-t", "8"],
                      ["-C", "2", "-c", "2", "-w", "2", "-t", "32"]):
            for name in names:
                k = vxtest.kernel(name)
                if not os.path.exists(k):
                    continue
                r, found = races(k, *shape)
                self.assertEqual((r.returncode, found), (0, []),
                                 "%s %s: %s" % (name, " ".join(shape), r.stderr[-2000:]))


class Traces(unittest.TestCase):
    def test_verify_races(self):
        """vxrec --verify TRACE --races re-simulates a recording and reports the same
        races, at the same events, as vxsim --races on the kernel (exit 5); a race-free
        recording: 0; the trace's event numbers"""
        if not os.path.exists(vxtest.prog("vxrec")):
            self.skipTest("vxrec missing")
        _, want = races(K["nosync"], *SHAPE)
        for name, status in (("nosync", 5), ("ok", 0)):
            trace = os.path.join(D, "v-%s.vxt" % name)
            t6kit.record(K[name], trace, SHAPE, expect=0)
            r = vxtest.run([vxtest.prog("vxrec"), "--verify", trace, "--races"])
            self.assertEqual(r.returncode, status, r.stderr)
            self.assertIn("verified:", r.stderr)
            got = [m.groupdict() for m in REPORT.finditer(r.stderr)]
            self.assertEqual(got, want if name == "nosync" else [])
            if status:
                self.assertIn("'monitor seek N' or vx-seek N goes to event N", r.stderr)
                self.assertNotIn("a recording of this run", r.stderr)

    def test_races_needs_verify(self):
        """vxrec --races KERNEL (recording): refused, pointing at vxsim --races"""
        r = vxtest.run([vxtest.prog("vxrec"), "--races", "-o", os.path.join(D, "x.vxt"),
                        K["ok"]])
        self.assertEqual(r.returncode, 2)
        self.assertIn("vxsim --races KERNEL", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(D, "x.vxt")))


class Options(unittest.TestCase):
    def test_with_trace_insn(self):
        """--races and --trace-insn together: both outputs"""
        out = os.path.join(D, "insn.txt")
        r, found = races(K["nosync"], *SHAPE, "--trace-insn=" + out)
        self.assertEqual(r.returncode, 5)
        self.assertEqual(len(found), 1)
        with open(out) as f:
            lines = f.read().splitlines()
        self.assertTrue(lines and lines[0].startswith("[0] "), lines[:1])

    def test_too_many_warps(self):
        """a platform of more than 4096 warps: refused, exit 2"""
        r, found = races(vxtest.kernel("hello"), "-C", "2", "-c", "64", "-w", "64")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("--races checks platforms of up to 4096 warps (this one has 8192)",
                      r.stderr)

    def test_help(self):
        """--help names the option and exit status 5"""
        r = vxtest.run([VXSIM, "--help"])
        self.assertIn("--races", r.stdout)
        self.assertIn("5 --races found a race", r.stdout)


if __name__ == "__main__":
    vxtest.main(Kernels, Traces, Options)
