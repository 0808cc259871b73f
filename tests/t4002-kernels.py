#!/usr/bin/env python3
"""t4002: every example kernel (build/kernels/*.elf) recorded and verified, at the
default shape and at 1x4x8x32, with keyframes often enough that --verify checks
several of them; recorded with and without the writer thread (64 and 128 lanes
too), byte for byte the same, and so is a vecadd whose keyframes hold megabytes of
pages.  Recording must not change what the kernel does: same console output and
exit status as vxsim.  Skipped when the kernels are not built.
"""
import glob
import os
import shutil
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
import vxtest  # noqa: E402

SHAPES = [[], ["-c", "4", "-w", "8", "-t", "32"], ["-C", "2", "-c", "2", "-w", "2", "-t", "8"]]
# wider warps than the writer thread's compact copies take (those go in full)
WIDE = [["-w", "2", "-t", "64"], ["-c", "2", "-w", "2", "-t", "128"]]


class Kernels(unittest.TestCase):
    def setUp(self):
        if not os.path.exists(vxtest.prog("vxrec")):
            self.skipTest("vxrec not built")
        self.dir = vxtest.tmpdir()

    def check_kernel(self, elf):
        name = os.path.splitext(os.path.basename(elf))[0]
        for shape in SHAPES:
            with self.subTest(kernel=name, shape=" ".join(shape) or "default"):
                t = os.path.join(self.dir, name + ".vxt")
                sim = vxtest.run([vxtest.prog("vxsim")] + shape + [elf])
                rec = vxtest.run([vxtest.prog("vxrec"), "-f", "--keyframe-interval", "5000"] +
                                 shape + [elf, "-o", t])
                self.assertEqual(rec.returncode, sim.returncode, rec.stderr)
                self.assertEqual(rec.stdout, sim.stdout, "console output as with vxsim")
                self.assertRegex(rec.stderr, r"bytes/issue")
                v = vxtest.run([vxtest.prog("vxrec"), "--verify", t])
                self.assertEqual(v.returncode, 0, v.stderr)
                self.assertIn("verified", v.stderr)
        for shape in SHAPES + WIDE:
            with self.subTest(kernel=name, shape=" ".join(shape) or "default", threads="1 vs 2"):
                # the writer thread (events copied compactly or in full, then encoded in
                # another thread) writes the very bytes the single-threaded path writes
                t1, t2 = (os.path.join(self.dir, name + x + ".vxt") for x in ("-1", "-2"))
                opts = ["-q", "-f", "--keyframe-interval", "3000", "--chunk-size", "4096"]
                r1 = vxtest.run([vxtest.prog("vxrec"), "--no-writer-thread"] + opts + shape +
                                [elf, "-o", t1])
                r2 = vxtest.run([vxtest.prog("vxrec"), "--writer-thread"] + opts + shape +
                                [elf, "-o", t2])
                self.assertEqual(r1.returncode, r2.returncode, r2.stderr)
                with open(t1, "rb") as f1, open(t2, "rb") as f2:
                    self.assertTrue(f1.read() == f2.read(), "traces differ")

    def test_large_keyframes(self):
        """keyframes of more than 2 MiB of written pages (the second one's copied into
        the first one's buffer, which the writer thread hands back): vecadd over 200000
        elements, byte for byte the single-threaded trace, verified"""
        vxcc = vxtest.prog("vxcc")
        src = os.path.join(vxtest.ROOT, "kernel", "examples", "vecadd.c")
        if not os.path.exists(vxcc) or shutil.which("riscv64-unknown-elf-gcc") is None:
            self.skipTest("vxcc or the RISC-V toolchain is missing")
        elf = os.path.join(self.dir, "vecadd-200000.elf")
        r = vxtest.run([vxcc, "-O2", "-DN=200000", "-o", elf, src])
        self.assertEqual(r.returncode, 0, r.stderr)
        shape = ["-c", "4", "-w", "8", "-t", "32"]
        t1, t2 = (os.path.join(self.dir, "big" + x + ".vxt") for x in ("-1", "-2"))
        opts = ["-f", "--keyframe-interval", "300000"] + shape + [elf]
        r1 = vxtest.run([vxtest.prog("vxrec"), "-q", "--no-writer-thread"] + opts + ["-o", t1])
        r2 = vxtest.run([vxtest.prog("vxrec"), "--writer-thread"] + opts + ["-o", t2])
        self.assertEqual((r1.returncode, r2.returncode), (0, 0), r1.stderr + r2.stderr)
        self.assertIn("PASSED", r2.stdout)
        with open(t1, "rb") as f1, open(t2, "rb") as f2:
            self.assertTrue(f1.read() == f2.read(), "traces differ")
        # the keyframes at 300000 and 600000 issues (of about 890000) hold the pages
        # written since the one before: about 1600 and 1500 pages (6 MiB) here
        v = vxtest.run([vxtest.prog("vxrec"), "--verify", t2])
        self.assertEqual(v.returncode, 0, v.stderr)
        self.assertIn("verified", v.stderr)

    def test_all_examples(self):
        """record + verify every example kernel at three shapes"""
        elfs = sorted(glob.glob(os.path.join(vxtest.KERNELS, "*.elf")))
        if not elfs:
            self.skipTest("no kernels in build/kernels (make kernels)")
        for elf in elfs:
            self.check_kernel(elf)


if __name__ == "__main__":
    if not os.path.isdir(vxtest.KERNELS):
        vxtest.skip_all("build/kernels is absent (make kernels)")
    vxtest.main(Kernels)
