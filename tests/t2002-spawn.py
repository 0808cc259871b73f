#!/usr/bin/env python3
"""t2002: vx_spawn_threads distribution edge cases.

kernel/examples/spawn.c is rebuilt with vxcc for each grid/block shape (-D...) and run
on platforms chosen so the task count hits the edges: 1 task, NT-1, NT, NT+1, one
warp short of a full core, NT*NW+1, more tasks than hardware threads (batching),
tasks spread over several cores and clusters, 2-D and 3-D grids, and group (CTA)
mode with blocks of one thread, part of a warp, several warps with a partial last
warp, a whole core, multi-dimensional blocks, and a block too large to run (must be
refused); and 1-D launches through the v2.1 API (vx_spawn_tasks,
vx_spawn_task_groups), whose callback arguments the kernel checks too.  The kernel
checks on the device that every (block, thread) ran exactly once with the right
indices, that a block's threads shared one core, its local memory and its barrier,
and that invalid launches return -1.
"""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
import vxtest  # noqa: E402

SRC = os.path.join(vxtest.ROOT, "kernel", "examples", "spawn.c")


def vxsim(kernel, shape):
    c, k, w, t = shape
    return vxtest.run([vxtest.prog("vxsim"), "-C", str(c), "-c", str(k), "-w", str(w),
                       "-t", str(t), kernel], timeout=300)


class Spawn(unittest.TestCase):
    built = {}

    def setUp(self):
        for p in ("vxsim", "vxcc"):
            if not os.path.exists(vxtest.prog(p)):
                self.skipTest(p + " not built")
        self.tmp = vxtest.tmpdir()

    def build(self, defs):
        key = tuple(sorted(defs.items()))
        if key in Spawn.built:
            return Spawn.built[key]
        out = os.path.join(self.tmp, "spawn%d.elf" % len(Spawn.built))
        args = [vxtest.prog("vxcc"), "-O2", "-Wall", "-Werror", "-o", out, SRC]
        args += ["-D%s=%d" % kv for kv in sorted(defs.items())]
        r = vxtest.run(args)
        if r.returncode != 0 and "not found" in r.stderr:
            self.skipTest("RISC-V toolchain missing: " + r.stderr.strip())
        self.assertEqual(r.returncode, 0, r.stderr)
        Spawn.built[key] = out
        return out

    def check(self, defs, shape):
        elf = self.build(defs)
        r = vxsim(elf, shape)
        self.assertEqual(r.returncode, 0, "%s on %s: exit %d\n%s%s" %
                         (defs, shape, r.returncode, r.stdout[-1500:], r.stderr))
        self.assertTrue(r.stdout.rstrip().endswith("#0: spawn: PASSED"), r.stdout[-500:])
        return r

    def test_task_counts(self):
        """tasks mode: 1, NT-1, NT, NT+1, NW*NT-1, NW*NT+1, cores*NW*NT+1, 3x+5 (batching)"""
        for shape in [(1, 1, 4, 4), (1, 2, 2, 8), (2, 2, 4, 4), (1, 3, 3, 2), (1, 1, 1, 1)]:
            c, k, w, t = shape
            nt = w * t
            counts = {1, max(1, t - 1), t, t + 1, max(1, nt - 1), nt + 1,
                      c * k * nt + 1, 3 * c * k * nt + 5}
            for n in sorted(counts):
                self.check({"GX": n}, shape)

    def test_wide_warps(self):
        """tasks mode with 32-, 64- and 128-lane warps (masks beyond 32 bits)"""
        for shape in [(1, 1, 8, 32), (1, 1, 2, 64), (1, 1, 1, 128)]:
            t = shape[3]
            for n in (t - 1, t + 3, 5 * t + 1):
                self.check({"GX": n}, shape)

    def test_grids(self):
        """2-D and 3-D grids in tasks mode"""
        for shape in [(1, 1, 4, 4), (1, 2, 2, 8), (1, 3, 3, 2)]:
            self.check({"DIM": 2, "GX": 7, "GY": 5}, shape)
            self.check({"DIM": 3, "GX": 3, "GY": 4, "GZ": 5}, shape)
            self.check({"DIM": 3, "GX": 1, "GY": 1, "GZ": 1}, shape)

    def test_blocks(self):
        """group mode: partial warps, multi-warp blocks, whole-core blocks, batching"""
        cases = [
            {"GX": 13, "BX": 1},                         # a block of one thread = tasks
            {"GX": 9, "BX": 3},                          # part of a warp
            {"GX": 9, "BX": 4},                          # exactly one warp (NT = 4)
            {"GX": 9, "BX": 5},                          # two warps, the last with 1 lane
            {"GX": 7, "BX": 16},                         # the whole 4x4 core
            {"GX": 2, "BX": 8},                          # fewer blocks than slots
            {"DIM": 2, "GX": 3, "GY": 3, "BX": 4, "BY": 3},
            {"DIM": 3, "GX": 2, "GY": 2, "GZ": 3, "BX": 2, "BY": 2, "BZ": 2},
        ]
        for shape in [(1, 1, 4, 4), (1, 2, 2, 8), (2, 2, 4, 4), (1, 1, 8, 32), (1, 3, 3, 2)]:
            for defs in cases:
                self.check(defs, shape)

    def test_block_too_large(self):
        """a block larger than warps x threads is refused (-1) and nothing runs, with
        the message Vortex's runtime prints (the v2.1 API ran nothing, silently)"""
        for defs, shape, msg in [({"GX": 4, "BX": 17}, (1, 1, 4, 4), "(17,16)"),
                                 ({"GX": 4, "BX": 2}, (1, 1, 1, 1), "(2,1)"),
                                 ({"OLDAPI": 1, "GX": 4, "BX": 9}, (1, 1, 2, 4), "(9,8)")]:
            r = self.check(defs, shape)
            self.assertIn("#0: error: group_size > threads_per_core %s\n" % msg, r.stdout)

    def test_wide_blocks(self):
        """group mode with 64-lane warps: partial last warp of more than 32 lanes"""
        self.check({"GX": 5, "BX": 100}, (1, 1, 2, 64))
        self.check({"GX": 11, "BX": 33}, (1, 1, 8, 32))

    def test_old_api(self):
        """the v2.1 API (vx_spawn_tasks, vx_spawn_task_groups) and its callback arguments"""
        cases = [
            {"OLDAPI": 1, "GX": 37},                     # tasks, batched on 4x4
            {"OLDAPI": 1, "GX": 1},
            {"OLDAPI": 1, "GX": 9, "BX": 1},             # groups of one thread
            {"OLDAPI": 1, "GX": 9, "BX": 3},             # part of a warp
            {"OLDAPI": 1, "GX": 9, "BX": 5},             # two warps, the last partial
            {"OLDAPI": 1, "GX": 7, "BX": 16},            # the whole 4x4 core
        ]
        for shape in [(1, 1, 4, 4), (1, 2, 2, 8), (2, 2, 4, 4), (1, 1, 8, 32)]:
            for defs in cases:
                self.check(defs, shape)


if __name__ == "__main__":
    vxtest.main(Spawn)
