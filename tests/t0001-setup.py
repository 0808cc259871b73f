#!/usr/bin/env python3
"""t0001: the set-up scripts.

.ci/debian-mirror picks the Debian mirror (and keyring) .ci/install-deps fetches
capstone 5 from: from apt sources crafted here, the machine's own left alone.  A
machine with third-party repositories, disabled or source-only stanzas, or only a
one-line sources.list must still give Debian's mirror for its release.
"""
import os
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


if __name__ == "__main__":
    vxtest.main(DebianMirror)
