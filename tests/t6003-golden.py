#!/usr/bin/env python3
"""t6003: the golden regression test.

Every trace in tests/golden/kernels/ is recorded again from what it holds (the
kernel image and input files, extracted with `vxdump --extract`, and the platform
and options of its header) and compared with `vxdiff`: a change in what the
simulator or the recorder does fails here with the first difference.  When the
change is intended, `make refresh-goldens` rewrites the goldens (see
tests/refresh-goldens.sh).
"""
import glob
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
import vxtest  # noqa: E402
import t6kit  # noqa: E402

GOLDEN = os.path.join(vxtest.ROOT, "tests", "golden", "kernels")
HINT = ("\nIf this change of behaviour is intended, run `make refresh-goldens` and commit "
        "tests/golden/kernels/ with it.")


def goldens():
    return sorted(glob.glob(os.path.join(GOLDEN, "*.vxt")))


def expected_status(trace):
    end = t6kit.events(trace, "--kind", "end")
    if not end:
        return None
    e = end[0]
    return {"exit": e["exit_code"] % 256, "fault": 3, "limit": 4}.get(e["status"])


def rerecord(golden, d):
    """Extract and record again; returns (path of the new trace, vxrec result, expected status)."""
    name = os.path.splitext(os.path.basename(golden))[0]
    x = t6kit.vxdump("--extract", os.path.join(d, name), golden)
    if x.returncode:
        raise AssertionError("vxdump --extract %s: %s" % (golden, x.stderr))
    args = x.stdout.split()
    new = os.path.join(d, name + ".vxt")
    r = t6kit.record(args[-1], new, args[:-1])
    return new, r, expected_status(golden), args


class Golden(unittest.TestCase):
    def setUp(self):
        if not os.path.exists(vxtest.prog("vxrec")):
            self.skipTest("vxrec not built")
        self.dir = vxtest.tmpdir()

    def test_goldens_exist_and_are_small(self):
        """the golden set: the t6 kernels and some example kernels, each small"""
        names = {os.path.basename(g) for g in goldens()}
        self.assertTrue({"t6-regs.vxt", "t6-fault.vxt", "t6-bar.vxt", "t6-shape.vxt", "hello.vxt",
                         "vecadd.vxt", "diverge.vxt"} <= names, names)
        for g in goldens():
            self.assertLess(os.path.getsize(g), 64 * 1024, g)
            s = t6kit.summary(g)
            self.assertTrue(s["trace"]["complete"], g)

    def test_rerecord_matches(self):
        """each golden, recorded again from its own contents, has the same header and events"""
        failures = []
        for g in goldens():
            with self.subTest(golden=os.path.basename(g)):
                new, r, want, args = rerecord(g, self.dir)
                self.assertEqual(r.returncode, want, "vxrec %s: %s" % (" ".join(args), r.stderr))
                d = t6kit.vxdiff(g, new)
                if d.returncode != 0:
                    failures.append(g)
                self.assertEqual(d.returncode, 0, "vxdiff %s <new recording>:\n%s%s%s" %
                                 (g, d.stdout, d.stderr, HINT))
        self.assertEqual(failures, [])

    def test_a_change_is_caught(self):
        """the comparison is sensitive: another platform shape or input is reported"""
        g = os.path.join(GOLDEN, "t6-shape.vxt")
        name = "shape-x"
        x = t6kit.vxdump("--extract", os.path.join(self.dir, name), g)
        args = x.stdout.split()
        self.assertIn("--load", args)
        # the same kernel and input, one warp per core -> two warps per core
        other = [a for a in args[:-1]]
        other[other.index("-w") + 1] = "2"
        other[other.index("-c") + 1] = "1"
        new = os.path.join(self.dir, "shape-w2.vxt")
        t6kit.record(args[-1], new, other, expect=0)
        self.assertEqual(t6kit.vxdiff("-q", g, new).returncode, 1, "lockstep: the schedule differs")
        self.assertEqual(t6kit.vxdiff("-q", "--per-warp", g, new).returncode, 0,
                         "per warp the same computation")
        # a changed input word
        ld = args[args.index("--load") + 1]
        path, addr = ld.rsplit("@", 1)
        with open(path, "r+b") as f:
            f.seek(8)
            f.write(b"\x00\x01\x00\x00")
        new2 = os.path.join(self.dir, "shape-in.vxt")
        t6kit.record(args[-1], new2, args[:-1], expect=0)
        r = t6kit.vxdiff("--json", g, new2)
        self.assertEqual(r.returncode, 1)
        objs = [json.loads(ln) for ln in r.stdout.splitlines()]
        d = [o for o in objs if o["type"] == "difference"][0]
        self.assertEqual([(i["field"], i["lane"], i["b"]) for i in d["items"]], [("commit", 2, 0x100)],
                         "thread 2 (warp 0, lane 2) loads the changed word")


if __name__ == "__main__":
    vxtest.main(Golden)
