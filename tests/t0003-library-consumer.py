#!/usr/bin/env python3
"""t0003: the libraries as a third party uses them, from the public headers alone: a C++
program (the Vortex tools around vxrr are C++) includes vx_trace.h and vx_sim.h, links
the release build's libvxtrace.a and libvxsim.a, writes a trace with the simulator and
reads it back."""
import os
import shutil
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
import vxtest  # noqa: E402

PROGRAM = r"""
#include "vx_isa.h"
#include "vx_sim.h"
#include "vx_trace.h"
#include <cstdio>
#include <cstring>

static vx_trace_writer *W;
static void obs(void *, const vx_event *ev) { vx_trace_writer_event(W, ev); }

int main(int argc, char **argv)
{
    if (argc != 2) return 2;
    static const uint8_t prog[] = {0x13, 0x05, 0x70, 0x00,  /* li a0, 7 */
                                   0x0b, 0x00, 0x00, 0x00}; /* tmc zero */
    vx_sim_config cfg = VX_SIM_CONFIG_INIT;
    vx_sim *sim = nullptr;
    uint32_t entry = 0;
    if (vx_sim_new(&cfg, &sim) != VX_OK ||
        vx_sim_load_image(sim, "p.bin", VX_IMAGE_BIN, prog, sizeof prog, &entry) != VX_OK)
        return 3;
    vx_trace_header h;
    std::memset(&h, 0, sizeof h);
    h.clusters = cfg.clusters;
    h.cores = cfg.cores;
    h.warps = cfg.warps;
    h.threads = cfg.threads;
    h.start_pc = entry;
    h.image_kind = VX_IMAGE_BIN;
    h.image_name = "p.bin";
    h.image = prog;
    h.image_len = sizeof prog;
    h.sim_version = VX_VERSION_STRING;
    vx_trace_writer_opts o = VX_TRACE_WRITER_OPTS_INIT;
    if (vx_trace_writer_new(&W) != VX_OK || vx_trace_writer_create(W, argv[1], &o) != VX_OK ||
        vx_trace_writer_header(W, &h) != VX_OK) {
        std::fprintf(stderr, "%s\n", vx_trace_writer_errmsg(W));
        return 4;
    }
    vx_sim_set_observer(sim, obs, nullptr, 0);
    vx_stop stop;
    if (vx_sim_run(sim, 0, &stop) != VX_OK || vx_trace_writer_finish(W) != VX_OK) return 5;
    vx_trace_writer_free(W);
    vx_sim_free(sim);
    vx_trace_reader *r = nullptr;
    vx_trace_reader_new(&r);
    vx_err e = vx_trace_reader_open(r, argv[1]);
    if (e == VX_OK) e = vx_trace_reader_check(r);
    if (e != VX_OK) {
        std::fprintf(stderr, "%s: %s\n", vx_strerror(e), vx_trace_reader_errmsg(r));
        return 6;
    }
    const vx_event *ev;
    unsigned issues = 0;
    while (vx_trace_reader_next(r, &ev) == VX_OK)
        issues += ev->kind == VX_EV_ISSUE;
    char dis[64];
    vx_disasm(entry, 0x00700513u, dis, sizeof dis);
    std::printf("%u issues; %s; %s\n", issues, dis,
                vx_trace_reader_header(r)->image_kind == VX_IMAGE_BIN ? "raw binary" : "?");
    vx_trace_reader_free(r);
    return 0;
}
"""


class Consumer(unittest.TestCase):
    def setUp(self):
        build = os.path.join(vxtest.ROOT, "build")
        self.libs = [os.path.join(build, "libvxtrace.a"), os.path.join(build, "libvxsim.a")]
        if not all(os.path.exists(p) for p in self.libs):
            self.skipTest("release build missing")
        self.cxx = shutil.which("c++") or shutil.which("g++")
        if not self.cxx:
            self.skipTest("no C++ compiler")
        self.tmp = vxtest.tmpdir()

    def test_cxx_program(self):
        """a C++ program links the libraries (the headers declare them extern "C")"""
        src = os.path.join(self.tmp, "consumer.cc")
        exe = os.path.join(self.tmp, "consumer")
        with open(src, "w") as f:
            f.write(PROGRAM)
        r = vxtest.run([self.cxx, "-std=c++17", "-Wall", "-Wextra", "-Wpedantic", "-Werror",
                        "-I" + os.path.join(vxtest.ROOT, "sim"),
                        "-I" + os.path.join(vxtest.ROOT, "trace-format"),
                        "-o", exe, src] + self.libs + ["-llz4", "-lelf", "-lcapstone", "-lm"])
        self.assertEqual(r.returncode, 0, r.stderr[-3000:])
        r = vxtest.run([exe, os.path.join(self.tmp, "t.vxt")])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "2 issues; addi a0, zero, 7; raw binary\n")


if __name__ == "__main__":
    vxtest.main(Consumer)
