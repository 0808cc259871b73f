#!/usr/bin/env python3
"""t0002: make install and make uninstall (release build, staged with DESTDIR into a
PREFIX with a space and a non-ASCII letter): a second install over the first works,
and uninstall removes what install put there and nothing else."""
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
import vxtest  # noqa: E402

PROGRAMS = ("vxsim", "vxrec", "vxreplay", "vxdump", "vxdiff", "vxcc")


class Install(unittest.TestCase):
    def setUp(self):
        if not os.path.exists(os.path.join(vxtest.ROOT, "build", "bin", "vxreplay")):
            self.skipTest("release build missing")
        self.tmp = vxtest.tmpdir()

    def make(self, *args):
        env = dict(os.environ)
        env.pop("MAKEFLAGS", None)
        env.pop("MFLAGS", None)
        r = subprocess.run(["make", "-s", "-C", vxtest.ROOT] + list(args), capture_output=True,
                           text=True, env=env, timeout=900)
        self.assertEqual(r.returncode, 0, r.stdout[-2000:] + r.stderr[-2000:])

    def tree(self, root):
        out = set()
        for d, dirs, files in os.walk(root):
            for n in dirs + files:
                out.add(os.path.relpath(os.path.join(d, n), root))
        return out

    def test_install_uninstall(self):
        """install, install again, uninstall: an unrelated file in PREFIX/bin stays"""
        stage = os.path.join(self.tmp, "stage")
        prefix = "/opt/vx rr é"
        root = stage + prefix
        os.makedirs(os.path.join(root, "bin"))
        with open(os.path.join(root, "bin", "other"), "w") as f:
            f.write("another package's\n")
        args = ["DESTDIR=" + stage, "PREFIX=" + prefix]
        self.make("install", *args)
        first = self.tree(root)
        for p in PROGRAMS:
            self.assertTrue(os.access(os.path.join(root, "bin", p), os.X_OK), p)
        for f in ("share/vxrr/vxrr.gdb", "share/vxrr/kernel/link32.ld",
                  "share/vxrr/kernel/include/vx_spawn.h", "share/vxrr/kernel/src/crt0.S"):
            self.assertIn(f, first)
        # the documents --help names, at the paths it names them by (under share/vxrr/doc)
        # (sim/STATE.md too: FORMAT.md is the specification with it, and cites its sections)
        for f in ("README.md", "replay/README.md", "trace-format/FORMAT.md", "sim/STATE.md",
                  "tools/vxdump/SCHEMA.md", "kernel/README.md"):
            with open(os.path.join(vxtest.ROOT, f), "rb") as a, \
                    open(os.path.join(root, "share/vxrr/doc", f), "rb") as b:
                self.assertEqual(a.read(), b.read(), f)
        # no README among the C++ headers (it was on every C++ kernel's include path)
        self.assertNotIn("share/vxrr/kernel/include/c++/README.md", first)
        self.assertIn("share/vxrr/kernel/include/c++/cmath", first)
        self.make("install", *args)
        self.assertEqual(self.tree(root), first)
        self.make("uninstall", *args)
        self.assertEqual(self.tree(root), {"bin", "bin/other", "share"})
        self.make("uninstall", *args)  # nothing left to remove: not an error


if __name__ == "__main__":
    vxtest.main(Install)
