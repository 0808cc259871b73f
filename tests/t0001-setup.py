#!/usr/bin/env python3
"""t0001: the set-up scripts and the build.

.ci/debian-mirror picks the Debian mirror (and keyring) .ci/install-deps fetches
capstone 5 from: from apt sources crafted here, the machine's own left alone.  A
machine with third-party repositories, disabled or source-only stanzas, or only a
one-line sources.list must still give Debian's mirror for its release.

The Makefile, asked with make -n (nothing is built or written): a build that is
up to date has nothing to do, and flags given on make's command line are added to
the project's own.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
import vxtest  # noqa: E402

SCRIPT = os.path.join(vxtest.ROOT, ".ci", "debian-mirror")

DEBIAN = """Types: deb
URIs: http://mirror.example/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://mirror.example/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
"""


class DebianMirror(unittest.TestCase):
    def run_it(self, files, sources_list=None, codename="bookworm"):
        with tempfile.TemporaryDirectory() as d:
            sd = os.path.join(d, "sources.list.d")
            os.mkdir(sd)
            for name, text in files.items():
                with open(os.path.join(sd, name), "w") as f:
                    f.write(text)
            sl = os.path.join(d, "sources.list")
            if sources_list is not None:
                with open(sl, "w") as f:
                    f.write(sources_list)
            r = subprocess.run(["sh", SCRIPT, sd, sl, codename], capture_output=True, text=True)
            return r.returncode, r.stdout

    def test_debian_stanza(self):
        """the release's stanza, not -security: its URI and keyring"""
        self.assertEqual(self.run_it({"debian.sources": DEBIAN}),
                         (0, "http://mirror.example/debian "
                             "/usr/share/keyrings/debian-archive-keyring.gpg\n"))

    def test_third_party_repository_first(self):
        """a repository sorted before debian.sources that names no Debian release is
        passed over (it was taken: apt.postgresql.org for Debian's trixie)"""
        pg = ("Types: deb\nURIs: https://apt.postgresql.org/pub/repos/apt\n"
              "Suites: bookworm-pgdg\nComponents: main\n"
              "Signed-By: /usr/share/postgresql-common/pgdg/apt.postgresql.org.asc\n")
        self.assertEqual(self.run_it({"apt.postgresql.org.sources": pg, "debian.sources": DEBIAN})[1],
                         "http://mirror.example/debian "
                         "/usr/share/keyrings/debian-archive-keyring.gpg\n")

    def test_disabled_and_source_stanzas(self):
        """Enabled: no and a deb-src-only stanza are passed over; deb among several
        types counts; a stanza without Signed-By gives the URI alone"""
        text = ("Types: deb\nURIs: http://disabled.example/debian\nSuites: bookworm\n"
                "Components: main\nEnabled: no\n\n"
                "Types: deb-src\nURIs: http://src.example/debian\nSuites: bookworm\n"
                "Components: main\n\n"
                "Types: deb-src deb\nURIs: http://both.example/debian\nSuites: bookworm\n"
                "Components: main\n")
        self.assertEqual(self.run_it({"a.sources": text}), (0, "http://both.example/debian\n"))

    def test_other_release_passed_over(self):
        """a stanza of another release is not this machine's mirror"""
        text = DEBIAN.replace("bookworm", "bullseye")
        self.assertEqual(self.run_it({"debian.sources": text}), (1, ""))
        self.assertEqual(self.run_it({"debian.sources": text}, codename="bullseye")[1],
                         "http://mirror.example/debian "
                         "/usr/share/keyrings/debian-archive-keyring.gpg\n")

    def test_one_line_sources_list(self):
        """no .sources file: the first deb line of sources.list for the release, its
        options in brackets skipped, security and deb-src lines passed over"""
        sl = ("# comment\n"
              "deb-src http://src.example/debian bookworm main\n"
              "deb http://security.debian.org/debian-security bookworm-security main\n"
              "deb http://old.example/debian bullseye main\n"
              "deb [arch=amd64 signed-by=/k.gpg] http://one.example/debian bookworm main\n")
        self.assertEqual(self.run_it({}, sl), (0, "http://one.example/debian\n"))

    def test_nothing_found(self):
        """no source at all: exit 1, nothing printed"""
        self.assertEqual(self.run_it({}), (1, ""))


MODES = {"build": "release", os.path.join("build", "debug"): "debug",
         os.path.join("build", "tsan"): "tsan"}


def make_n(*args):
    env = dict(os.environ)
    for k in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL"):
        env.pop(k, None)
    r = subprocess.run(["make", "-n", "-C", vxtest.ROOT] + list(args), capture_output=True,
                       text=True, env=env, timeout=300)
    return r.returncode, r.stdout


class Build(unittest.TestCase):
    def test_up_to_date_build_has_nothing_to_do(self):
        """after the build this suite runs on, make has nothing to compile or link
        (-o .flags: its stamp, remade on every run, is taken as it is): the unit tests'
        objects were deleted as intermediates, and the next make compiled all of them"""
        rel = os.path.relpath(vxtest.BUILD, vxtest.ROOT)
        if rel not in MODES:
            self.skipTest("not a build of make test's: %s" % rel)
        rc, out = make_n("MODE=" + MODES[rel], "-o", os.path.join(rel, ".flags"), "all",
                         "test-bins")
        self.assertEqual(rc, 0, out)
        work = [ln for ln in out.splitlines() if re.search(r"\s-[co]\s", ln)]
        self.assertEqual(work, [], "a stale build (make all test-bins first?), or work redone")

    def test_command_line_flags_are_added(self):
        """CPPFLAGS and LDFLAGS on make's command line come with the project's flags
        (they replaced them: no -Isim in a compile, no -fsanitize in a debug link)"""
        with tempfile.TemporaryDirectory() as d:
            for mode, link_flag in (("release", None), ("debug", "-fsanitize=address,undefined")):
                rc, out = make_n("MODE=" + mode, "BUILD=" + d, "CPPFLAGS=-DVXRR_T0001=1",
                                 "LDFLAGS=-Wl,-O1", os.path.join(d, "bin", "vxsim"))
                self.assertEqual(rc, 0, out)
                cc = [ln for ln in out.splitlines() if ln.endswith(" -o %s/sim/mem.o" % d)]
                self.assertEqual(len(cc), 1, out[-2000:])
                for flag in ("-DVXRR_T0001=1", "-Isim", "-D_POSIX_C_SOURCE=200809L"):
                    self.assertIn(" %s " % flag, cc[0], mode)
                link = [ln for ln in out.splitlines() if " -o %s/bin/vxsim " % d in ln]
                self.assertEqual(len(link), 1, out[-2000:])
                self.assertIn(" -Wl,-O1 ", link[0])
                if link_flag:
                    self.assertIn(" %s " % link_flag, link[0])

    def test_host_requirements_are_stated(self):
        """a host without unsigned __int128 (32-bit) or a big-endian one is refused by
        vx_base.h in plain words: the second would simulate and record wrong values"""
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "inc.c")
            with open(src, "w") as f:
                f.write('#include "vx_base.h"\n')
            base = ["cc", "-std=c11", "-fsyntax-only", "-I" + os.path.join(vxtest.ROOT, "sim")]
            for undo in ([], ["-U__SIZEOF_INT128__"],
                         ["-U__BYTE_ORDER__", "-D__BYTE_ORDER__=__ORDER_BIG_ENDIAN__"]):
                r = subprocess.run(base + undo + [src], capture_output=True, text=True,
                                   timeout=120)
                if not undo:
                    self.assertEqual(r.returncode, 0, r.stderr)
                else:
                    self.assertNotEqual(r.returncode, 0, undo)
                    self.assertIn("needs a 64-bit little-endian host", r.stderr, undo)

    def test_fuzz_packages_follow_the_release(self):
        """make fuzz installs clang and its fuzzer runtime by the names that follow each
        Debian release's default LLVM (from the trixie review: it named
        libclang-rt-14-dev, bookworm's, which trixie does not have, so install-deps
        failed there before building anything)"""
        r = subprocess.run(["make", "-n", "-C", vxtest.ROOT, "fuzz"], capture_output=True,
                           text=True, timeout=120)
        m = re.search(r'VXRR_EXTRA_PKGS="([^"]*)" sh \.ci/install-deps', r.stdout)
        self.assertIsNotNone(m, r.stdout[:2000] + r.stderr)
        pkgs = m.group(1).split()
        self.assertIn("clang", pkgs)
        self.assertIn("libclang-rt-dev", pkgs)
        pinned = [p for p in pkgs if re.search(r"-\d+(-dev)?$", p)]
        self.assertEqual(pinned, [], "an LLVM version one Debian release has only")

    def test_fuzz_build_is_clangs_whatever_cc_is_given(self):
        """make test builds the libFuzzer harnesses with clang also when make's command
        line names another compiler (make test CC=gcc-14): a CC given there reaches every
        sub-make, and GCC has no -fsanitize=fuzzer-no-link, so the step failed"""
        probe = subprocess.run(["clang", "-x", "c", "-fsanitize=fuzzer", "-o", os.devnull, "-"],
                               input="int LLVMFuzzerTestOneInput(const char *d, unsigned long n)"
                                     " { return 0; }\n", capture_output=True, text=True,
                               timeout=120) if shutil.which("clang") else None
        if not probe or probe.returncode:
            self.skipTest("no clang with libFuzzer: make test builds no harness")
        for target in ("test", "fuzz"):
            with tempfile.TemporaryDirectory() as d:  # (an empty build: every compile listed)
                rc, out = make_n(target, "CC=gcc", "T=", "BUILD=" + d)
            fuzz = [ln for ln in out.splitlines()
                    if "-fsanitize=fuzzer-no-link" in ln and re.search(r"\s-c\s", ln)]
            self.assertNotEqual(fuzz, [], "%s: no harness compiled:\n%s" % (target, out[-2000:]))
            self.assertEqual([ln for ln in fuzz if not ln.startswith("clang ")], [], target)

    def test_o3_compiles_under_werror(self):
        """CFLAGS=-O3 (added to the release flags, -Werror among them): the sources
        GCC 12 -O3 found a maybe-uninitialized pointer in compile (trace-format/reader.c:
        dec_next's result read after an error return it cannot see through)"""
        srcs = ["trace-format/reader.c"]
        with tempfile.TemporaryDirectory() as d:
            objs = [os.path.join(d, s[:-2] + ".o") for s in srcs]
            rc, out = make_n("MODE=release", "BUILD=" + d, "CFLAGS=-O3", *objs)
            self.assertEqual(rc, 0, out)
            for src, obj in zip(srcs, objs):
                cc = [ln for ln in out.splitlines() if ln.endswith(" -o " + obj)]
                self.assertEqual(len(cc), 1, out[-2000:])
                self.assertIn(" -Werror ", cc[0])
                self.assertIn(" -O3 ", cc[0])
                os.makedirs(os.path.dirname(obj), exist_ok=True)
                r = subprocess.run(cc[0], shell=True, cwd=vxtest.ROOT, capture_output=True,
                                   text=True, timeout=600)
                self.assertEqual(r.returncode, 0, "%s:\n%s" % (src, r.stderr[-3000:]))


if __name__ == "__main__":
    vxtest.main(DebianMirror, Build)
