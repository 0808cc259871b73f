#!/usr/bin/env python3
"""t2001: every example kernel (build/kernels/*.elf) on several platform shapes.

Each kernel checks its own result on the device and exits with its error count;
here we also check the exact console output.  Lines printed by more than one hart
are checked per hart: which hart runs which task is computed by an independent
model of vx_spawn_threads' documented distribution (kernel/include/vx_spawn.h).
"""
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
import vxtest  # noqa: E402

# (clusters, cores, warps, threads)
SHAPES = [
    (1, 1, 4, 4),    # the Vortex default
    (1, 1, 1, 1),    # one thread in all
    (1, 2, 2, 8),
    (2, 2, 4, 4),    # clusters
    (1, 1, 8, 32),
    (1, 3, 3, 2),    # odd core and warp counts
]

LINE = re.compile(r"^#(\d+): (.*)$")


def vxsim(kernel, shape, extra=()):
    c, k, w, t = shape
    args = [vxtest.prog("vxsim"), "-C", str(c), "-c", str(k), "-w", str(w), "-t", str(t)]
    return vxtest.run(args + list(extra) + [kernel], timeout=300)


def console(stdout):
    """[(slot, text)] from vxsim's '#slot: text' lines."""
    out = []
    for ln in stdout.splitlines():
        m = LINE.match(ln)
        if m:
            out.append((int(m.group(1)), m.group(2)))
    return out


class Kernels(unittest.TestCase):
    def setUp(self):
        if not os.path.exists(vxtest.prog("vxsim")):
            self.skipTest("vxsim not built")

    def run_kernel(self, name, shape, extra=()):
        path = vxtest.kernel(name)
        if not os.path.exists(path):
            self.skipTest(path + " not built (make kernels)")
        r = vxsim(path, shape, extra)
        self.assertEqual(r.returncode, 0, "%s on %s: exit %d\n%s%s" %
                         (name, shape, r.returncode, r.stdout[-2000:], r.stderr))
        return console(r.stdout)

    def check_lines(self, name, shape, want):
        got = self.run_kernel(name, shape)
        self.assertEqual(got, [(0, s) for s in want], "%s on %s" % (name, shape))

    def test_hello(self):
        """hello prints one line from core 0 on every shape"""
        for shape in SHAPES:
            self.check_lines("hello", shape, ["Hello World!"])

    def test_vecadd(self):
        """vecadd: 200 elements, checked on the device"""
        for shape in SHAPES:
            c, k, w, t = shape
            self.check_lines("vecadd", shape, [
                "vecadd: N=200, %d cores x %d warps x %d threads" % (c * k, w, t),
                "vecadd: PASSED"])

    def test_sgemm(self):
        """sgemm (C++): 16x16 over a 2-D grid, with a global constructor"""
        for shape in SHAPES:
            self.check_lines("sgemm", shape, ["sgemm: 16x16", "sgemm: PASSED"])

    def test_reduce(self):
        """reduce: blocks spanning several warps, local memory, __syncthreads"""
        for shape in SHAPES:
            c, k, w, t = shape
            b = 64
            while b > w * t:
                b //= 2
            blocks = (1000 + b - 1) // b
            # sum of ((i % 13) - 6) * ((i % 7) - 3), computed here
            dot = sum(((i % 13) - 6) * ((i % 7) - 3) for i in range(1000))
            self.check_lines("reduce", shape, [
                "reduce: N=1000, %d blocks of %d threads" % (blocks, b),
                "reduce: dot = %d (expected %d)" % (dot, dot),
                "reduce: PASSED"])

    def test_diverge(self):
        """diverge: nested split/join, divergent loop, pred"""
        for shape in SHAPES + [(1, 1, 2, 64), (1, 1, 1, 128)]:
            self.check_lines("diverge", shape, ["diverge: PASSED"])

    def test_gbar(self):
        """gbar: global barrier rounds over all cores (and clusters), local barrier"""
        for shape in SHAPES + [(3, 2, 2, 2)]:
            c, k, w, t = shape
            self.check_lines("gbar", shape, ["gbar: %d cores, 3 rounds" % (c * k),
                                             "gbar: PASSED"])

    def test_warpops(self):
        """warpops: identity CSRs, vote, shuffle, TLS, float->double in lanes"""
        for shape in SHAPES:
            self.check_lines("warpops", shape, ["warpops: PASSED"])

    def test_spawn(self):
        """spawn: default 37-task distribution check; every core's launch of a block one
        thread larger than the core is refused with Vortex's message"""
        for shape in SHAPES:
            c, k, w, t = shape
            err = "error: group_size > threads_per_core (%d,%d)" % (w * t + 1, w * t)
            want = {0: ["spawn: dim 1, grid 37x1x1, block 0x1x1", err, "spawn: PASSED"]}
            for core in range(1, c * k):
                want[core * w * t % 64] = [err]
            got = {}
            for slot, text in self.run_kernel("spawn", shape):
                got.setdefault(slot, []).append(text)
            self.assertEqual(got, want, "spawn on %s" % (shape,))

    def test_printf_every_lane(self):
        """printf: every lane's line arrives whole, in its own hart's slot, in order"""
        n = 22
        for shape in SHAPES + [(1, 1, 2, 64), (1, 1, 1, 128)]:
            got = self.run_kernel("printf", shape)
            harts = vxtest.task_harts(n, shape)
            self.assertEqual(sorted(harts), list(range(n)))
            # expected lines of each hart, in the order it runs its tasks
            want = {}
            for i in range(n):
                parity = "odd" if i & 1 else "even"
                lines = want.setdefault(harts[i], [])
                lines.append("task %2u: %c %-4s 0x%03x %5.2f|" %
                             (i, chr(65 + i % 26), parity, i * 37, i * 0.25))
                if i & 1:
                    lines.append("task %2u is odd" % i)
            self.assertEqual(got[-1], (0, "printf: PASSED"))
            per_hart = {}
            for slot, text in got[:-1]:
                m = re.match(r"task +(\d+)", text)
                self.assertTrue(m, "unexpected line %r" % text)
                h = harts[int(m.group(1))]
                self.assertEqual(slot, h % 64, "line %r in slot %d" % (text, slot))
                per_hart.setdefault(h, []).append(text)
            self.assertEqual(per_hart, want, "shape %s" % (shape,))

    def test_vxbin(self):
        """the .vxbin image of an example runs like its ELF"""
        path = os.path.join(vxtest.KERNELS, "vecadd.vxbin")
        if not os.path.exists(path):
            self.skipTest("vecadd.vxbin not built")
        r = vxsim(path, (1, 2, 2, 4))
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(console(r.stdout)[-1], (0, "vecadd: PASSED"))

    def test_deterministic(self):
        """two runs give byte-identical output"""
        path = vxtest.kernel("printf")
        if not os.path.exists(path):
            self.skipTest("printf not built")
        a = vxsim(path, (1, 2, 2, 4))
        b = vxsim(path, (1, 2, 2, 4))
        self.assertEqual(a.stdout, b.stdout)


if __name__ == "__main__":
    vxtest.main(Kernels)
