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

# a tool of one's own, built against the installed libraries
TOOL = r"""
#include <stdio.h>
#include <vx_trace.h>
int main(int argc, char **argv)
{
    vx_trace_reader *r;
    if (argc != 2 || vx_trace_reader_new(&r) || vx_trace_reader_open(r, argv[1])) return 2;
    const vx_event *ev;
    unsigned long n = 0;
    while (vx_trace_reader_next(r, &ev) == VX_OK)
        n += ev->kind == VX_EV_ISSUE;
    printf("%lu issues, version %s\n", n, VX_VERSION_STRING);
    vx_trace_reader_free(r);
    return 0;
}
"""


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

    def trace(self):
        """A small recorded trace (hello on the default platform)."""
        out = os.path.join(self.tmp, "hello.vxt")
        r = subprocess.run([os.path.join(vxtest.ROOT, "build", "bin", "vxrec"), "-q", "-o", out,
                            vxtest.kernel("hello")], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        return out

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
        # the libraries for tools of one's own: headers, archives, pkg-config files; a C
        # program built with what pkg-config says (the staged tree, through a link
        # without the blank) reads a trace
        for f in ("include/vxrr/vx_trace.h", "include/vxrr/vx_sim.h", "include/vxrr/vx_isa.def",
                  "lib/libvxtrace.a", "lib/libvxsim.a", "lib/pkgconfig/vxtrace.pc",
                  "lib/pkgconfig/vxsim.pc"):
            self.assertIn(f, first)
        link = os.path.join(self.tmp, "prefix")
        os.symlink(root, link)
        env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(link, "lib", "pkgconfig"))
        pc = subprocess.run(["pkg-config", "--define-variable=prefix=" + link, "--cflags",
                             "--libs", "vxtrace"], capture_output=True, text=True, env=env)
        self.assertEqual(pc.returncode, 0, pc.stderr)
        self.assertIn("-I%s/include/vxrr" % link, pc.stdout)
        src, exe = os.path.join(self.tmp, "tool.c"), os.path.join(self.tmp, "tool")
        with open(src, "w") as f:
            f.write(TOOL)
        r = subprocess.run(["cc", "-std=c11", "-Wall", "-Werror", "-o", exe, src] + pc.stdout.split(),
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        r = subprocess.run([exe, self.trace()], capture_output=True, text=True)
        self.assertEqual((r.returncode, r.stderr), (0, ""))
        self.assertRegex(r.stdout, r"^[1-9]\d* issues, version [0-9.]+\n$")
        self.make("install", *args)
        self.assertEqual(self.tree(root), first)
        self.make("uninstall", *args)
        self.assertEqual(self.tree(root), {"bin", "bin/other", "share", "include", "lib"})
        self.make("uninstall", *args)  # nothing left to remove: not an error


if __name__ == "__main__":
    vxtest.main(Install)
