#!/usr/bin/env python3
"""t4001: vxrec, the recorder - command line, exit statuses, output, determinism,
--verify (matching, tampered, corrupt and cut-off traces), kill and Ctrl-C.

Kernels are hand-encoded raw binaries (independent of the kernel toolchain); the
trace is parsed here from FORMAT.md where a test needs to look inside it.
"""
import json
import os
import re
import signal
import struct
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
import vxtest  # noqa: E402
from vxdbg import ADDI, ADD, BNE, CSRR, CSRRW, CSRW, LUI, LW, MISALIGNED, SB, SW, TMC  # noqa: E402
from vxdbg import enc_i, enc_r, enc_s  # noqa: E402
import vxt_make  # noqa: E402
import vxt_spec  # noqa: E402

A0, A1, A2, A3 = 10, 11, 12, 13

# sum 10..1 into a0, print "OK" on slot 0, exit with a0 (55)
SUM = [ADDI(A0, 0, 0), ADDI(A1, 0, 10), ADD(A0, A0, A1), ADDI(A1, A1, -1), BNE(A1, 0, -8),
       LUI(A2, 0x10), SW(A0, A2, 0), ADDI(A3, 0, ord("O")), SB(A3, 0, 0x40),
       ADDI(A3, 0, ord("K")), SB(A3, 0, 0x40), ADDI(A3, 0, 10), SB(A3, 0, 0x40),
       SW(A0, 0, 0x88), TMC(0)]
# misaligned load: lw a1, 0(a0) with a0 = 0x10001
FAULT = [LUI(A0, 0x10), ADDI(A0, A0, 1), LW(A1, A0, 0), TMC(0)]
# an endless loop: a0 += 1; jal x0, -4 (0xffdff06f)
LOOP = [ADDI(A0, A0, 1), 0xFFDFF06F]
# 256 passes over 512 pages (2 MiB at 0x100000), one word stored in each page: every
# stretch of a few thousand issues dirties hundreds of pages
STRIDE = [ADDI(A3, 0, 256),
          LUI(A0, 0x100), ADDI(A1, 0, 512),
          SW(A1, A0, 0), LUI(A2, 1), ADD(A0, A0, A2), ADDI(A1, A1, -1), BNE(A1, 0, -16),
          ADDI(A3, A3, -1), BNE(A3, 0, -32),
          SW(0, 0, 0x88), TMC(0)]
# one word stored every 4 KiB over 64 MiB at 0x10000000: each store takes a new host page
PAGES = [LUI(A0, 0x10000), LUI(A1, 0x4),
         SW(A1, A0, 0), LUI(A2, 1), ADD(A0, A0, A2), ADDI(A1, A1, -1), BNE(A1, 0, -16),
         SW(0, 0, 0x88), TMC(0)]
# every core's one warp meets at a global barrier (id 0x80000000, num_cores cores), then
# ends: the last one to arrive releases all of them in one issue
GBAR = [CSRR(6, 0xFC2), LUI(5, 0x80000), enc_r(0x0B, 4, 0, 0, 5, 6), TMC(0)]



def LB(rd, rs1, imm): return enc_i(0x03, 0, rd, rs1, imm)
def LH(rd, rs1, imm): return enc_i(0x03, 1, rd, rs1, imm)
def LHU(rd, rs1, imm): return enc_i(0x03, 5, rd, rs1, imm)
def SH(rs2, rs1, imm): return enc_s(0x23, 1, rs1, rs2, imm)
def JALR(rd, rs1, imm): return enc_i(0x67, 0, rd, rs1, imm)
def FMV_W_X(fd, rs1): return enc_r(0x53, 0, 0x78, fd, rs1, 0)
def FMV_X_W(rd, fs1): return enc_r(0x53, 0, 0x70, rd, fs1, 0)
def FSGNJN(fd, fa, fb): return enc_r(0x53, 1, 0x10, fd, fa, fb)
def FSGNJX(fd, fa, fb): return enc_r(0x53, 2, 0x10, fd, fa, fb)


# instructions whose recorded (traced) path no other test runs, their results stored at
# 0x10000 (from a coverage review): fabs / fneg (fsgnjx / fsgnjn) of -2.5, csrrw of misa
# (read-only: the write is ignored), medeleg / mideleg, mnstatus (reads 0), sb / sh /
# lb / lh / lhu in local memory, and a call of code stored in local memory (a0 = 42)
TRACED = [LUI(A2, 0x10),
          LUI(5, 0xC0200), FMV_W_X(1, 5), FSGNJX(2, 1, 1), FSGNJN(3, 2, 2),
          FMV_X_W(6, 2), SW(6, A2, 0), FMV_X_W(6, 3), SW(6, A2, 4),
          CSRRW(6, 0x301, 0), SW(6, A2, 8), CSRR(6, 0x301), SW(6, A2, 12),
          ADDI(7, 0, 0x55), CSRW(0x302, 7), ADDI(7, 0, 0x66), CSRW(0x303, 7),
          CSRR(6, 0x302), SW(6, A2, 16), CSRR(6, 0x303), SW(6, A2, 20),
          ADDI(7, 0, 7), CSRRW(6, 0x744, 7), SW(6, A2, 24),
          LUI(8, 0xFFFF0), ADDI(8, 8, 0x100),
          ADDI(7, 0, -127), SB(7, 8, 0), LUI(7, 8), ADDI(7, 7, 2), SH(7, 8, 2),
          LB(6, 8, 0), SW(6, A2, 28), LH(6, 8, 2), SW(6, A2, 32), LHU(6, 8, 2), SW(6, A2, 36),
          LUI(7, 0x02A00), ADDI(7, 7, 0x513), SW(7, 8, 0x100),      # addi a0, x0, 42
          LUI(7, 0x8), ADDI(7, 7, 0x67), SW(7, 8, 0x104),            # ret
          ADDI(9, 8, 0x100), JALR(1, 9, 0), SW(A0, A2, 40),
          SW(A0, 0, 0x88), TMC(0)]
TRACED_OUT = [0x40200000, 0xC0200000, 0x40001121, 0x40001121, 0x55, 0x66, 0,
              0xFFFFFF81, 0xFFFF8002, 0x8002, 42]


def read_pty(master):
    """Everything written to a pty's other side until it is closed; closes master."""
    out = b""
    while True:
        try:
            d = os.read(master, 65536)
        except OSError:  # EIO: the other side closed
            break
        if not d:
            break
        out += d
    os.close(master)
    return out


def crc32c(data, crc=0):
    crc ^= 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def chunks(data):
    """(offset, type, flags, stored, raw, key) of every chunk, from FORMAT.md section 4."""
    off, out = 16, []
    while off + 28 <= len(data) - 16:
        t, fl, _, st, raw, key = struct.unpack_from("<BBHIIQ", data, off)
        out.append((off, t, fl, st, raw, key))
        off += 28 + st
    return out


class Vxrec(unittest.TestCase):
    def setUp(self):
        if not os.path.exists(vxtest.prog("vxrec")):
            self.skipTest("vxrec not built")
        self.dir = vxtest.tmpdir()

    def bin(self, name, words):
        p = os.path.join(self.dir, name)
        with open(p, "wb") as f:
            f.write(b"".join(struct.pack("<I", w & 0xFFFFFFFF) for w in words))
        return p

    def rec(self, args, cwd=None, timeout=120):
        return vxtest.run([vxtest.prog("vxrec")] + args, cwd=cwd or self.dir, timeout=timeout)

    def verify(self, trace):
        return vxtest.run([vxtest.prog("vxrec"), "--verify", trace], cwd=self.dir)

    def test_help_version(self):
        """--help lists the options and exit statuses; --version names the format"""
        r = self.rec(["--help"])
        self.assertEqual(r.returncode, 0)
        for opt in ("--dm-port", "--verify", "--force", "--max-cycles", "-o", "--quiet",
                    "--keyframe-interval", "compression ratio", "exit status"):
            self.assertIn(opt, r.stdout)
        r = self.rec(["--version"])
        self.assertEqual(r.returncode, 0)
        self.assertRegex(r.stdout, r"^vxrec \(vxrr\) \d+\.\d+\.\d+, trace format 1\.\d+\n$")

    def test_usage_errors(self):
        """usage errors exit 2 with a message naming the problem"""
        for args, msg in ((["--bogus", "x"], "unknown option"), ([], "no kernel"),
                          (["--warps", "0", "k"], "--warps"),
                          (["-o"], "-o needs"), (["--dm-bind", "::1", "k"], "--dm-port"),
                          (["--verify", "t.vxt", "-c", "2"], "'-c' does not apply"),
                          (["-o", "x.vxt", "--verify", "t.vxt"], "'-o' does not apply"),
                          (["--verify", "a.vxt", "--verify", "b.vxt"], "given twice"),
                          (["--verify", "-q"], "needs a trace"),
                          # (from a coverage review)
                          (["k.bin", "k2.bin"], "more than one kernel"),
                          (["--verify="], "--verify needs a trace"),
                          (["--keyframe-interval", "x", "k"], "--keyframe-interval: 'x'"),
                          (["--keyframe-interval", "-1", "k"], "--keyframe-interval: '-1'"),
                          (["--chunk-size", "63", "k"], "--chunk-size: '63'"),
                          (["--chunk-size", "65M", "k"], "--chunk-size: '65M'"),
                          (["--dm-port", "70000", "k"], "--dm-port: '70000'"),
                          (["--dm-port=", "k"], "--dm-port: ''"),
                          (["--dm-bind=", "--dm-port", "0", "k"], "--dm-bind needs"),
                          (["--verify", "t.vxt", "k.bin"], "not a kernel ('k.bin')"),
                          (["-"], "name the trace with -o"),
                          (["--discard", os.path.join(self.dir, "missing.bin")], "missing.bin"),
                          (["--discard", "--dump", "0x10000:4=" + os.path.join(
                              self.dir, "no", "d.out"), self.bin("sum.bin", SUM)], "no/d.out"),
                          ([os.path.join(self.dir, "missing.bin")], "missing.bin")):
            r = self.rec(args)
            self.assertEqual(r.returncode, 2, (args, r.stderr))
            self.assertIn(msg, r.stderr, args)

    def test_record_default_name_output_summary(self):
        """default name KERNEL.vxt here, console as vxsim, exit code, summary"""
        b = self.bin("sum.bin", SUM)
        r = self.rec([b])
        self.assertEqual(r.returncode, 55, r.stderr)
        self.assertEqual(r.stdout, "#0: OK\n")
        self.assertTrue(os.path.exists(os.path.join(self.dir, "sum.vxt")))
        s = vxtest.run([vxtest.prog("vxsim"), b])
        self.assertEqual((s.returncode, s.stdout), (r.returncode, r.stdout), "same as vxsim")
        # 2 + 10 * 3 + 10 instructions = 42 issues, all by warp 0
        self.assertRegex(r.stderr, r"43 events \(42 issues, 0 Debug Module events\)", "and END")
        self.assertRegex(r.stderr, r"1 of 4 warps ran")
        # one warp issuing every cycle: 42 cycles (0..41), as vxsim --stats counts them
        self.assertRegex(r.stderr, r"Debug Module events\), 42 cycles,")
        st = vxtest.run([vxtest.prog("vxsim"), "--stats", b])
        self.assertIn("cycles: 42\n", st.stderr)
        self.assertRegex(r.stderr, r"bytes/issue")
        self.assertRegex(r.stderr, r" 1 keyframe \(", "keyframe 0 only (singular)")
        self.assertRegex(r.stderr, r"compression ratio [0-9.]+x")
        self.assertNotIn("\r", r.stderr, "no progress line when stderr is not a terminal")
        q = self.rec(["-q", "-f", b])
        self.assertEqual((q.returncode, q.stderr), (55, ""), "--quiet: no summary")
        q = self.rec(["-q", "-oj.vxt", b])
        self.assertEqual((q.returncode, q.stderr), (55, ""), "-oFILE")
        self.assertEqual(self.verify("j.vxt").returncode, 0)

    def test_dump(self):
        """--dump as vxsim's: the memory after the run, the trace the same bytes as without
        it; never onto the trace, and an old file stays when vxrec refuses to record"""
        b = self.bin("sum.bin", SUM)
        out = os.path.join(self.dir, "sum.out")
        r = self.rec(["-q", "-o", "a.vxt", "--dump", "0x10000:8=" + out, b])
        self.assertEqual(r.returncode, 55, r.stderr)
        with open(out, "rb") as f:
            self.assertEqual(f.read(), struct.pack("<II", 55, 0), "SUM stores 55 at 0x10000")
        self.assertEqual(self.rec(["-q", "-o", "b.vxt", b]).returncode, 55)
        with open(os.path.join(self.dir, "a.vxt"), "rb") as fa, \
                open(os.path.join(self.dir, "b.vxt"), "rb") as fb:
            a_bytes = fa.read()
            self.assertEqual(a_bytes, fb.read(), "--dump changes nothing in the trace")
        r = self.rec(["-q", "-f", "-o", "a.vxt", "--dump=0x10000:4=a.vxt", b])
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("--dump 'a.vxt' is also the output 'a.vxt'", r.stderr)
        # another spelling of a trace that does not exist yet
        r = self.rec(["-q", "-o", "new.vxt", "--dump=0x10000:4=./new.vxt", b])
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("is also the output", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "new.vxt")))
        with open(os.path.join(self.dir, "a.vxt"), "rb") as f:
            self.assertEqual(f.read(), a_bytes, "the trace is untouched")
        with open(out, "wb") as f:
            f.write(b"keep")
        r = self.rec(["-q", "-o", "a.vxt", "--dump", "0x10000:4=" + out, b])
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("already exists", r.stderr)
        with open(out, "rb") as f:
            self.assertEqual(f.read(), b"keep", "not emptied by a run that did not happen")
        r = self.rec(["-q", "--discard", "--dump", "0x10000:4=" + out, b])
        self.assertEqual(r.returncode, 55, r.stderr)
        with open(out, "rb") as f:
            self.assertEqual(f.read(), struct.pack("<I", 55), "--discard dumps too")
        r = self.rec(["--verify", "a.vxt", "--dump", "0x10000:4=" + out])
        self.assertEqual(r.returncode, 2)
        self.assertIn("'--dump' does not apply", r.stderr)

    def test_allow_misaligned(self):
        """--allow-misaligned: misaligned loads and stores byte by byte (vxsim and vxrec
        alike); the trace says so (FLAGS bit 2), --verify and vxreplay re-run it so, and
        vxdiff tells it from a run without; without it the fault names the option"""
        b = self.bin("mis.bin", MISALIGNED)  # exit status 0x22: the low byte of 0x443322
        sim = vxtest.run([vxtest.prog("vxsim"), b])
        self.assertEqual(sim.returncode, 3, sim.stderr)
        self.assertIn("misaligned 4-byte store at 0x00010001", sim.stderr)
        self.assertIn("--allow-misaligned does too", sim.stderr)
        sim = vxtest.run([vxtest.prog("vxsim"), "--allow-misaligned", b])
        self.assertEqual(sim.returncode, 0x22, sim.stderr)  # bytes 22 33 44 00 at 0x10002
        r = self.rec(["-q", "--allow-misaligned", "-o", "mis.vxt", b])
        self.assertEqual(r.returncode, 0x22, r.stderr)
        t = os.path.join(self.dir, "mis.vxt")
        v = self.verify(t)
        self.assertEqual(v.returncode, 0, v.stdout + v.stderr)
        summ = json.loads(vxtest.run([vxtest.prog("vxdump"), "--summary", "--json", t]).stdout)
        self.assertIs(summ["platform"]["misaligned"], True)
        self.assertEqual(summ["trace"]["format"], "1.2")
        dump = vxtest.run([vxtest.prog("vxdump"), t]).stdout
        self.assertIn("mem32[0x00010001]=0x44332211", dump)
        self.assertRegex(dump, r"lw a1, 2\(a2\) +a1=0x443322\n")
        r = self.rec(["-q", "-o", "plain.vxt", b])
        self.assertEqual(r.returncode, 3, r.stderr)
        d = vxtest.run([vxtest.prog("vxdiff"), t, os.path.join(self.dir, "plain.vxt")])
        self.assertEqual(d.returncode, 1, d.stderr)
        self.assertIn("misaligned loads/stores carried out (--allow-misaligned) 1 != 0", d.stdout)

    def test_progress_line_and_console(self):
        """on a terminal: the progress line appears at the first slice boundary and is
        cleared before a console line is printed, so the kernel's line starts at the
        beginning of a terminal line"""
        import pty
        words = [ADDI(A3, 0, ord("G")), SB(A3, 0, 0x40), ADDI(A3, 0, 10), SB(A3, 0, 0x40),
                 LUI(A1, 0x100), ADDI(A1, A1, -1), BNE(A1, 0, -4),  # 2M issues: 8 slices
                 ADDI(A3, 0, ord("E")), SB(A3, 0, 0x40), ADDI(A3, 0, 10), SB(A3, 0, 0x40),
                 TMC(0)]
        b = self.bin("long.bin", words)
        master, slave = pty.openpty()
        env = dict(os.environ, TERM="xterm")              # (a dumb one: no ESC [ K)
        p = subprocess.Popen([vxtest.prog("vxrec"), "-f", b], cwd=self.dir, stdin=slave,
                             stdout=slave, stderr=slave, env=env)
        os.close(slave)
        out = read_pty(master)
        self.assertEqual(p.wait(timeout=300), 0)
        text = out.decode("utf-8", "replace")
        self.assertIn("#0: G", text)
        self.assertIn("#0: E", text)
        self.assertIn("recorded long.bin", text)
        # every console line starts a terminal line: right after a newline, or after
        # the sequence that clears the progress line
        for m in re.finditer(r"#0: ", text):
            before = text[:m.start()]
            self.assertTrue(before == "" or before.endswith("\n") or before.endswith("\x1b[K"),
                            "console line in the middle of the progress line: %r"
                            % text[max(0, m.start() - 80):m.end() + 4])
        # the first slice boundary (after 2^18 issues) draws the progress line, which
        # the second console line then has to clear
        self.assertIn("events/s", text, "a progress line was drawn")
        self.assertLess(text.index("events/s"), text.index("#0: E"))

    def test_progress_line_dumb_terminal(self):
        """(from a review) with TERM=dumb or no TERM the progress line uses no escape
        sequence (it wrote ESC [ K, which such a terminal shows as text): a carriage
        return, and spaces over the line to clear it before a console line"""
        import pty
        words = [ADDI(A3, 0, ord("G")), SB(A3, 0, 0x40), ADDI(A3, 0, 10), SB(A3, 0, 0x40),
                 LUI(A1, 0x100), ADDI(A1, A1, -1), BNE(A1, 0, -4),  # 2M issues: 8 slices
                 ADDI(A3, 0, ord("E")), SB(A3, 0, 0x40), ADDI(A3, 0, 10), SB(A3, 0, 0x40),
                 TMC(0)]
        b = self.bin("long.bin", words)
        for term in ("dumb", None):
            env = dict(os.environ)
            env.pop("TERM", None)
            if term:
                env["TERM"] = term
            master, slave = pty.openpty()
            p = subprocess.Popen([vxtest.prog("vxrec"), "-f", b], cwd=self.dir, stdin=slave,
                                 stdout=slave, stderr=slave, env=env)
            os.close(slave)
            out = read_pty(master)
            self.assertEqual(p.wait(timeout=300), 0, term)
            text = out.decode("utf-8", "replace")
            self.assertIn("events/s", text, term)
            self.assertNotIn("\x1b", text, term)
            for m in re.finditer(r"#0: ", text):      # at the start of a terminal line
                before = text[:m.start()]
                self.assertTrue(before == "" or before.endswith("\n") or
                                re.search(r"\r +\r$", before), (term, before[-100:]))
            # what clears the line covers the whole of it
            for m in re.finditer(r"\r( +)\r", text):
                line = text[:m.start()].rsplit("\r", 1)[-1]
                self.assertGreaterEqual(len(m.group(1)), len(line.rstrip("\n")), term)

    def test_stdout_broken_pipe_or_full(self):
        """stdout closed before the kernel prints (| head): the recording still finishes, complete"""
        import subprocess
        k = vxtest.kernel("printf")
        if not os.path.exists(k):
            self.skipTest("make kernels")
        t = os.path.join(self.dir, "closed.vxt")
        rd, wr = os.pipe()
        os.close(rd)                                     # nobody will ever read
        p = subprocess.Popen([vxtest.prog("vxrec"), "-f", k, "-o", t], stdout=wr,
                             stderr=subprocess.PIPE, text=True)
        os.close(wr)
        err = p.communicate(timeout=120)[1]
        self.assertEqual(p.returncode, 0, err)            # not killed by SIGPIPE
        self.assertIn("could not be written to standard output: Broken pipe", err)
        self.assertIn("recorded", err)
        self.assertEqual(self.verify(t).returncode, 0)
        # a full disk is reported, with why; vxsim's run is then an error (the output was
        # its only copy: exit 0 said it was fine), vxrec's trace holds the output
        for argv, status in (([vxtest.prog("vxsim"), k], 2),
                             ([vxtest.prog("vxrec"), "-q", "-f", k, "-o", t], 0)):
            with open("/dev/full", "w") as full:
                r = subprocess.run(argv, stdout=full, stderr=subprocess.PIPE, text=True,
                                   timeout=120)
            self.assertEqual(r.returncode, status, r.stderr)
            self.assertIn("could not be written to standard output: No space left on device",
                          r.stderr)

    def test_out_of_host_memory_says_so(self):
        """the host running out of memory (address-space limits at which the simulator, the
        keyframe's state encoding or the writer fails first) while recording or verifying:
        exit 2 and a message that says 'out of memory' (a keyframe's said nothing after
        its colon; --verify's simulator likewise; a writer's said 'no error')"""
        if vxtest.sanitized():
            self.skipTest("sanitizer builds reserve address space of their own")
        import resource
        k = vxtest.kernel("hello")
        shape = ["-c", "64", "-w", "64", "-t", "128", "--max-cycles", "5"]
        t = os.path.join(self.dir, "wide.vxt")
        self.assertEqual(self.rec(["-q", "-f"] + shape + [k, "-o", t]).returncode, 4)
        for mib in (200, 300, 450, 600):
            limit = lambda: resource.setrlimit(resource.RLIMIT_AS, (mib << 20, mib << 20))  # noqa
            for argv in ([vxtest.prog("vxrec"), "-q", "-f", "--no-writer-thread"] + shape +
                         [k, "-o", os.path.join(self.dir, "oom.vxt")],
                         [vxtest.prog("vxrec"), "--verify", t]):
                r = subprocess.run(argv, capture_output=True, text=True, timeout=120,
                                   preexec_fn=limit)
                self.assertEqual(r.returncode, 2, (mib, argv[1], r.stderr))
                self.assertIn("out of memory", r.stderr, (mib, argv[1]))
                self.assertNotIn("no error", r.stderr, (mib, argv[1]))
                for line in r.stderr.splitlines():
                    self.assertFalse(line.rstrip().endswith(":"), (mib, argv[1], line))

    def test_out_of_host_memory_never_loses_events_quietly(self):
        """(from a review) the host running out of memory while recording, in every thread
        mode: exit 2, and the trace either reads as cut off (vxrec and vxdump say
        incomplete) or ends with an abort record after every store the run did.  With the
        writer thread, its failure (its own arena, keyframe 0) was hidden behind the
        simulator's and the trace read as complete, 0 issues and an abort record"""
        if vxtest.sanitized():
            self.skipTest("sanitizer builds reserve address space of their own")
        import resource
        b = self.bin("pages.bin", PAGES)
        t = os.path.join(self.dir, "oom-pages.vxt")
        seen_sim_oom = 0
        for mib in (40, 50, 60, 70):
            limit = lambda: resource.setrlimit(resource.RLIMIT_AS, (mib << 20, mib << 20))  # noqa
            for mode in (["--no-writer-thread"], ["--writer-thread", "--no-compress-thread"],
                         ["--writer-thread", "--compress-thread"]):
                what = (mib, mode)
                r = subprocess.run([vxtest.prog("vxrec"), "-q", "-f"] + mode + [b, "-o", t],
                                   capture_output=True, text=True, timeout=60, preexec_fn=limit)
                self.assertEqual(r.returncode, 2, (what, r.stderr))
                self.assertIn("out of", r.stderr, what)
                m = re.search(r"no page for the write at 0x([0-9a-f]+)", r.stderr)
                stores = (int(m.group(1), 16) - 0x10000000) // 4096 if m else 0
                seen_sim_oom += bool(m)
                d = vxtest.run([vxtest.prog("vxdump"), "--summary", t])
                if "holds no readable trace: the error came before its header" in r.stderr:
                    # out of memory before the header was written (the writer's arena, as
                    # the address space falls at 40 MiB with three threads): said so
                    self.assertEqual(d.returncode, 2, what)
                    self.assertRegex(d.stderr, r"cut off in its (signature|header)", what)
                    continue
                if d.returncode == 1:                     # cut off, and said so
                    self.assertIn("last complete chunk", d.stderr, what)
                    self.assertIn("is incomplete", r.stderr, what)
                    self.assertNotIn("end record: aborted", r.stderr, what)
                    continue
                self.assertEqual(d.returncode, 0, (what, d.stderr))
                self.assertIn("its end record: aborted", r.stderr, what)
                self.assertRegex(d.stdout, r"\bend +abort\b", what)
                n = int(re.search(r"(\d+) memory writes", d.stdout).group(1))
                self.assertGreaterEqual(n, stores, (what, r.stderr))
        self.assertGreater(seen_sim_oom, 0, "no limit made the simulator run out")

    def test_out_of_host_memory_docs(self):
        """(from a review) --help and README.md say what a recording that ran out of host
        memory leaves, as test_out_of_host_memory_never_loses_events_quietly finds it: an
        abort end record when the simulator ran out, a trace cut off at its last complete
        chunk (incomplete) when the writer did; both promised an abort record always"""
        readme = open(os.path.join(vxtest.ROOT, "README.md")).read()
        for name, text in (("--help", self.rec(["--help"]).stdout), ("README.md", readme)):
            flat = " ".join(text.split())
            for want in ("when the simulator ran out, the trace ends there",
                         "when the trace writer did, events were lost",
                         "ends at its last complete chunk and reads as incomplete"):
                self.assertTrue(want in flat, (name, want))
            self.assertFalse("host out of memory (the trace ends there, its end record" in flat,
                             name)

    def test_verify_out_of_host_memory_is_an_error(self):
        """(from a review) vxrec --verify whose simulator runs out of host memory (a trace
        of 16384 stores a page apart, verified under 40 and 60 MiB address-space limits):
        exit 2, an error saying the host ran out of memory, not "trace diverges" (exit 1,
        which --help keeps for a trace the simulator disagrees with)"""
        if vxtest.sanitized():
            self.skipTest("sanitizer builds reserve address space of their own")
        import resource
        t = os.path.join(self.dir, "pages.vxt")
        b = self.bin("pages.bin", PAGES)
        self.assertEqual(self.rec(["-q", "-f", b, "-o", t]).returncode, 0)
        self.assertEqual(self.verify(t).returncode, 0)
        for mib in (40, 60):
            limit = lambda: resource.setrlimit(resource.RLIMIT_AS, (mib << 20, mib << 20))  # noqa
            r = subprocess.run([vxtest.prog("vxrec"), "--verify", t], capture_output=True,
                               text=True, timeout=60, preexec_fn=limit)
            self.assertEqual(r.returncode, 2, (mib, r.stderr))
            self.assertIn("ran out of memory", r.stderr, mib)
            self.assertNotIn("diverges", r.stderr, mib)

    def test_cut_off_check_out_of_memory(self):
        """(from a review) what vxrec says of a trace cut off by the host running out of
        memory (sgemm under address-space limits from the lowest it starts at, 100 KiB
        apart, in both thread modes) agrees with vxdump run without a limit: "holds no
        readable trace" only for a trace vxdump cannot read, "is incomplete" for one it
        reads as cut off.  vxrec's own check ran out of memory too and called readable
        traces unreadable; now it says it could not check"""
        if vxtest.sanitized():
            self.skipTest("sanitizer builds reserve address space of their own")
        import resource
        k = vxtest.kernel("sgemm")
        if not os.path.exists(k):
            self.skipTest("make kernels")
        t = os.path.join(self.dir, "cut.vxt")
        runs = 0
        for kib in range(8000, 40000, 100):
            if runs == 30:
                break
            limit = lambda: resource.setrlimit(resource.RLIMIT_AS, (kib << 10, kib << 10))  # noqa
            for mode in ("--no-writer-thread", "--writer-thread"):
                if os.path.exists(t):
                    os.unlink(t)
                r = subprocess.run([vxtest.prog("vxrec"), "-q", "-f", mode, k, "-o", t],
                                   capture_output=True, text=True, timeout=60, preexec_fn=limit)
                if r.returncode == 127 or "cannot load kernel" in r.stderr or not os.path.exists(t):
                    continue                              # too little to start or to load
                runs += mode == "--writer-thread"
                if r.returncode == 0:
                    continue
                what = (kib, mode, r.stderr)
                self.assertEqual(r.returncode, 2, what)
                d = vxtest.run([vxtest.prog("vxdump"), "--summary", t])
                if "holds no readable trace" in r.stderr:
                    self.assertEqual(d.returncode, 2, what)
                elif "could not be checked" not in r.stderr and "is incomplete" in r.stderr:
                    self.assertEqual(d.returncode, 1, what)
        self.assertGreater(runs, 0, "no limit let vxrec create the trace")

    def test_end_of_options(self):
        """'--' ends the options (POSIX): files whose names start with '-' are taken as the
        kernel or trace by every program; before it such a name is an unknown option
        (every program refused '--' itself)"""
        k = os.path.join(self.dir, "-k.bin")
        with open(k, "wb") as f:
            f.write(open(self.bin("sum.bin", SUM), "rb").read())
        run = lambda *a, **kw: vxtest.run(list(a), cwd=self.dir, **kw)  # noqa: E731
        self.assertEqual(run(vxtest.prog("vxsim"), "--", "-k.bin").returncode, 55)
        self.assertEqual(run(vxtest.prog("vxrec"), "-q", "-o", "-t.vxt", "--", "-k.bin").returncode, 55)
        self.assertEqual(run(vxtest.prog("vxrec"), "--verify", "--", "-t.vxt").returncode, 0)
        self.assertEqual(run(vxtest.prog("vxdump"), "--kind", "end", "--", "-t.vxt").returncode, 0)
        self.assertEqual(run(vxtest.prog("vxdiff"), "--", "-t.vxt", "-t.vxt").returncode, 0)
        r = run(vxtest.prog("vxreplay"), "--stdio", "--", "-t.vxt", input="")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("serving '-t.vxt'", r.stderr)
        for argv in ([vxtest.prog("vxsim"), "-k.bin"], [vxtest.prog("vxdump"), "-t.vxt"]):
            r = run(*argv)
            self.assertEqual(r.returncode, 2, argv)
            self.assertIn("unknown option", r.stderr)
        r = run(vxtest.prog("vxdump"), "--", "--summary")   # a file of that name: none here
        self.assertEqual(r.returncode, 2)
        self.assertIn("--summary", r.stderr)
        self.assertNotIn("unknown option", r.stderr)

    def test_write_error_stops_the_run(self):
        """a trace that cannot be written (a full disk) stops the recording early, with the
        writer thread as without it: exit 2 and the reason, not the whole kernel run first"""
        if not os.path.exists("/dev/full"):
            self.skipTest("no /dev/full")
        words = [ADDI(A3, 0, ord("G")), SB(A3, 0, 0x40), ADDI(A3, 0, 10), SB(A3, 0, 0x40),
                 LUI(A1, 0x100), ADDI(A1, A1, -1), BNE(A1, 0, -4),  # 2M issues: 8 slices
                 ADDI(A3, 0, ord("E")), SB(A3, 0, 0x40), ADDI(A3, 0, 10), SB(A3, 0, 0x40),
                 TMC(0)]
        b = self.bin("long.bin", words)
        for mode in ("--writer-thread", "--no-writer-thread"):
            r = self.rec(["-f", mode, b, "-o", "/dev/full"])
            self.assertEqual(r.returncode, 2, mode)
            self.assertIn("No space left on device", r.stderr, mode)
            self.assertNotIn("#0: E", r.stdout, mode + ": the kernel did not run to its end")
            # nothing readable was written: not called an incomplete trace
            self.assertIn("'/dev/full' holds no readable trace", r.stderr, mode)
            self.assertNotIn("is incomplete", r.stderr, mode)

    def test_file_size_limit(self):
        """past the file-size limit (ulimit -f) the write fails and is reported (exit 2, not
        killed by SIGXFSZ), and the trace reads up to its last complete chunk"""
        import resource
        words = [LUI(A1, 0x40), ADDI(A1, A1, -1), BNE(A1, 0, -4), TMC(0)]  # 786k issues
        b = self.bin("loop.bin", words)
        t = os.path.join(self.dir, "fsz.vxt")
        lim = lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (256 << 10, 256 << 10))  # noqa: E731
        r = subprocess.run([vxtest.prog("vxrec"), "-f", "--no-compress", b, "-o", t],
                           capture_output=True, text=True, timeout=120, preexec_fn=lim)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("File too large", r.stderr)
        self.assertIn("is incomplete", r.stderr)
        self.assertEqual(os.path.getsize(t), 256 << 10)
        d = vxtest.run([vxtest.prog("vxdump"), "--summary", t])
        self.assertEqual(d.returncode, 1, d.stderr)       # cut off: shown up to its last chunk
        self.assertIn("last complete chunk", d.stderr)

    def test_file_size_limit_mid_recording(self):
        """(from a coverage review) the file-size limit reached by a compressed recording
        with keyframes, in each thread mode: exit 2 with the write error at the limit, the
        same bytes up to it in every mode, and a trace cut there that reads up to its last
        complete chunk and verifies as incomplete"""
        import resource
        k = vxtest.kernel("sgemm")
        if not os.path.exists(k):
            self.skipTest("make kernels")
        limit = 160 << 10

        def lim():
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        traces = []
        for mode in (["--no-writer-thread"], ["--writer-thread", "--no-compress-thread"],
                     ["--writer-thread", "--compress-thread"]):
            t = os.path.join(self.dir, "fsz-%d.vxt" % len(traces))
            r = subprocess.run([vxtest.prog("vxrec"), "-q", "-f", "--keyframe-interval", "100",
                                "--chunk-size", "1K"] + mode + [k, "-o", t], capture_output=True,
                               text=True, timeout=120, preexec_fn=lim)
            self.assertEqual(r.returncode, 2, (mode, r.stderr))
            self.assertIn("write failed at offset %d: File too large" % limit, r.stderr, mode)
            self.assertIn("is incomplete", r.stderr, mode)
            with open(t, "rb") as f:
                traces.append(f.read())
            self.assertEqual(len(traces[-1]), limit, mode)
            d = vxtest.run([vxtest.prog("vxdump"), "--check", "--summary", t])
            self.assertEqual(d.returncode, 1, (mode, d.stderr))
            self.assertIn("incomplete", d.stderr, mode)
            v = self.verify(t)
            self.assertEqual(v.returncode, 0, (mode, v.stderr))
            self.assertIn("the trace is incomplete (cut off)", v.stderr, mode)
        self.assertTrue(traces[0] == traces[1] == traces[2], "the thread modes differ")

    def test_one_issue_with_32767_warp_control_effects(self):
        """(from a coverage review) 32766 cores of one warp each meet at a global barrier:
        the last to arrive records its bar-arrive and the release of every warp, 32767
        effects in one issue (the most an issue can have); one thread and three threads
        write the same trace, and it verifies"""
        b = self.bin("gbar.bin", GBAR)
        shape = ["-C", "127", "-c", "258", "-w", "1", "-t", "1"]
        traces = []
        for mode in (["--no-writer-thread"], ["--writer-thread", "--compress-thread"]):
            t = os.path.join(self.dir, "gbar-%d.vxt" % len(traces))
            r = self.rec(["-q", "-f"] + mode + shape + [b, "-o", t])
            self.assertEqual(r.returncode, 0, (mode, r.stderr))
            with open(t, "rb") as f:
                traces.append(f.read())
        self.assertEqual(traces[0], traces[1])
        v = self.verify(t)
        self.assertEqual(v.returncode, 0, v.stderr)
        # 127 x 258 = 32766 warps issue in turn (core order) at cycles 0, 1, 2: the
        # barrier's last issue is that of core 32765 at cycle 2, event 3 x 32766 - 1
        n = 127 * 258
        d = vxtest.run([vxtest.prog("vxdump"), "--json", "--from", str(3 * n - 1), "--to",
                        str(3 * n - 1), t])
        self.assertEqual(d.returncode, 0, d.stderr)
        ev = json.loads(d.stdout)
        self.assertEqual((ev["core"], ev["pc"], len(ev["wctl"])), (n - 1, 0x80000008, n + 1))
        self.assertEqual((ev["wctl"][0]["kind"], ev["wctl"][0]["arg"], ev["wctl"][0]["arg2"]),
                         ("bar-arrive", 0x80000000, n))
        self.assertEqual(sorted(x["core"] for x in ev["wctl"][1:] if x["kind"] == "bar-release"),
                         list(range(n)))

    def test_output_dash(self):
        """-o - is refused with a reason (exit 2), no file called '-' appears"""
        b = self.bin("sum.bin", SUM)
        r = self.rec([b, "-o", "-"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("not to standard output", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "-")))

    def test_force_leaves_a_reader_its_trace(self):
        """--force puts a new file in the old trace's place: a program still reading the
        old one (a vxreplay session) reads it whole, not the new recording over it"""
        b = self.bin("sum.bin", SUM)
        out = os.path.join(self.dir, "t.vxt")
        self.assertEqual(self.rec(["-q", b, "-o", out]).returncode, 55)
        with open(out, "rb") as old:
            before = old.read()
            r = self.rec(["-q", "--force", "--no-compress", b, "-o", out])
            self.assertEqual(r.returncode, 55, r.stderr)
            old.seek(0)
            self.assertEqual(old.read(), before)
        with open(out, "rb") as f:
            self.assertNotEqual(f.read(), before)          # (uncompressed this time)
        self.assertEqual(self.verify(out).returncode, 0)

    def test_output_not_a_file(self):
        """-o naming a directory, a FIFO or a socket: refused at once (exit 2), saying what
        it is, with or without --force (a FIFO blocked the open before)"""
        b = self.bin("sum.bin", SUM)
        fifo = os.path.join(self.dir, "fifo")
        os.mkfifo(fifo)
        for path, what in ((self.dir, "is a directory"), (fifo, "is a pipe or a socket")):
            for force in ([], ["--force"]):
                r = self.rec(["-q"] + force + [b, "-o", path], timeout=30)
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertIn(what, r.stderr)
                self.assertNotIn("already exists", r.stderr)

    def test_refuse_overwrite(self):
        """an existing trace is not overwritten without --force (exit 2)"""
        b = self.bin("sum.bin", SUM)
        out = os.path.join(self.dir, "t.vxt")
        with open(out, "wb") as f:
            f.write(b"precious")
        r = self.rec([b, "-o", out])
        self.assertEqual(r.returncode, 2)
        self.assertIn("already exists", r.stderr)
        self.assertIn("--force", r.stderr)
        with open(out, "rb") as f:
            self.assertEqual(f.read(), b"precious")
        r = self.rec(["--force", b, "-o", out])
        self.assertEqual(r.returncode, 55, r.stderr)
        self.assertEqual(self.verify(out).returncode, 0)
        # never an input, even with --force: the kernel or a --load file
        with open(b, "rb") as f:
            kernel = f.read()
        for args in ([b, "-o", b], ["--load", out + "@0x20000", b, "-o", out]):
            r = self.rec(["--force"] + args)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn("would overwrite the input", r.stderr)
        with open(b, "rb") as f:
            self.assertEqual(f.read(), kernel)
        self.assertEqual(self.verify(out).returncode, 0)

    def test_deterministic(self):
        """two recordings with the same options are byte-identical"""
        b = self.bin("sum.bin", SUM)
        t1, t2 = os.path.join(self.dir, "a.vxt"), os.path.join(self.dir, "b.vxt")
        self.assertEqual(self.rec(["-q", "-w", "2", "-t", "8", b, "-o", t1]).returncode, 55)
        self.assertEqual(self.rec(["-q", "-w", "2", "-t", "8", b, "-o", t2]).returncode, 55)
        with open(t1, "rb") as f1, open(t2, "rb") as f2:
            self.assertEqual(f1.read(), f2.read())

    def test_writer_thread_same_bytes(self):
        """--writer-thread writes the very same trace as --no-writer-thread (keyframes
        included), also with more cores and warps than its compact copies take"""
        b = self.bin("loop.bin", LOOP)
        for shape in ([], ["-c", "300", "-w", "1", "-t", "2"], ["-c", "1", "-w", "300", "-t", "1"]):
            t1, t2 = os.path.join(self.dir, "s.vxt"), os.path.join(self.dir, "t.vxt")
            args = ["-q", "-f", "--max-cycles", "3000", "--keyframe-interval", "7000",
                    "--chunk-size", "2000"] + shape + [b]
            self.assertEqual(self.rec(["--no-writer-thread"] + args + ["-o", t1]).returncode, 4)
            for third in ("--no-compress-thread", "--compress-thread"):
                r = self.rec(["--writer-thread", third] + args + ["-o", t2])
                self.assertEqual(r.returncode, 4, r.stderr)
                with open(t1, "rb") as f1, open(t2, "rb") as f2:
                    self.assertTrue(f1.read() == f2.read(), "traces differ at %s %s" % (shape, third))
            self.assertEqual(self.verify(t2).returncode, 0)

    def test_writer_thread_that_cannot_start(self):
        """(from a review) a writer thread that cannot be created (here: a 4 GiB thread
        stack in a 3 GiB address space) leaves the recording to the simulator's thread,
        with the same trace.  The writer kept the freed pipe as the callback of its
        deferred compression, and the first chunk queued locked a freed mutex: vxrec hung,
        SIGINT and SIGTERM caught"""
        if vxtest.sanitized():
            self.skipTest("sanitizer builds reserve address space of their own")
        import resource

        def limit():
            resource.setrlimit(resource.RLIMIT_STACK, (4 << 30, 4 << 30))
            resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
        b = self.bin("loop.bin", LOOP)
        t1, t2 = os.path.join(self.dir, "n1.vxt"), os.path.join(self.dir, "n2.vxt")
        args = ["-q", "-f", "--max-cycles", "3000", "--keyframe-interval", "700",
                "--chunk-size", "2000", b]
        self.assertEqual(self.rec(["--no-writer-thread"] + args + ["-o", t1]).returncode, 4)
        for third in ("--no-compress-thread", "--compress-thread"):
            r = subprocess.run([vxtest.prog("vxrec"), "--writer-thread", third] + args + ["-o", t2],
                               cwd=self.dir, capture_output=True, text=True, timeout=60,
                               preexec_fn=limit)
            self.assertEqual(r.returncode, 4, (third, r.stderr))
            with open(t1, "rb") as f1, open(t2, "rb") as f2:
                self.assertTrue(f1.read() == f2.read(), "traces differ (%s)" % third)

    def test_writer_thread_keyframe_memory(self):
        """--writer-thread holds a bounded amount of keyframes: their states and pages count
        towards the batches handed to the writer.  A keyframe every issue at 4x8x32 (a 290 KB
        state each, 1000 of them) took 296 MB (all of them queued), 1.6 GB over 8000, against
        8 MB in one thread; now 25 MB, and the same bytes"""
        if vxtest.sanitized():
            self.skipTest("sanitizer builds keep freed memory (quarantine)")
        b = self.bin("loop.bin", LOOP)
        t1, t2 = os.path.join(self.dir, "k1.vxt"), os.path.join(self.dir, "k2.vxt")
        args = ["-q", "-f", "-c", "4", "-w", "8", "-t", "32", "--keyframe-interval", "1",
                "--max-cycles", "250", b]
        p = subprocess.Popen([vxtest.prog("vxrec"), "--writer-thread"] + args + ["-o", t1],
                             cwd=self.dir, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        self.assertEqual(p.returncode, 4)
        self.assertLess(ru.ru_maxrss, 100 << 10, "peak %d KiB" % ru.ru_maxrss)
        self.assertEqual(self.rec(["--no-writer-thread"] + args + ["-o", t2]).returncode, 4)
        with open(t1, "rb") as f1, open(t2, "rb") as f2:
            self.assertTrue(f1.read() == f2.read(), "the threaded trace differs")

    def test_timing(self):
        """--timing: with the writer thread, both threads' CPU and how many of the chunks
        the writer queued the simulator's thread compressed (no more than there are
        EVENTS chunks in the trace); in one thread, that thread's CPU"""
        b = self.bin("loop.bin", LOOP)
        t = os.path.join(self.dir, "t.vxt")
        args = ["-q", "-f", "--timing", "--max-cycles", "3000", "--chunk-size", "1000", b, "-o", t]
        for third in ("--no-compress-thread", "--compress-thread"):
            r = self.rec(["--writer-thread", third] + args)
            self.assertEqual(r.returncode, 4, r.stderr)
            m = re.search(r"timing: wall [0-9.]+ s; simulator thread [0-9.]+ s CPU, writer thread "
                          r"[0-9.]+ s CPU; the simulator waited [0-9.]+ s for the writer and "
                          r"compressed (\d+) of its (\d+) chunks(; a compressor thread [0-9.]+ s "
                          r"CPU, (\d+) chunks)?\n", r.stderr)
            self.assertTrue(m, r.stderr)
            with open(t, "rb") as f:
                events = sum(1 for c in chunks(f.read()) if c[1] == 4)
            helped, queued = int(m.group(1)), int(m.group(2))
            third_n = int(m.group(4)) if m.group(4) else 0
            self.assertEqual(m.group(3) is not None, third == "--compress-thread", r.stderr)
            self.assertTrue(0 <= helped + third_n <= queued <= events and queued >= events - 1
                            and events > 3, "%d + %d of %d chunks, %d EVENTS chunks"
                            % (helped, third_n, queued, events))
        r = self.rec(["--no-writer-thread"] + args)
        self.assertEqual(r.returncode, 4, r.stderr)
        self.assertRegex(r.stderr, r"timing: wall [0-9.]+ s; one thread, [0-9.]+ s CPU")

    def test_discard(self):
        """--discard: the kernel runs observed, nothing is written"""
        b = self.bin("sum.bin", SUM)
        r = self.rec(["--discard", b])
        self.assertEqual(r.returncode, 55, r.stderr)
        self.assertEqual(r.stdout, "#0: OK\n")
        self.assertIn("43 events observed and discarded", r.stderr)
        # a fault and the cycle limit are said as when recording (exit 3 and 4 came with no
        # word of why)
        r = self.rec(["--discard", self.bin("fault.bin", FAULT)])
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("kernel fault at pc 0x80000008 (core 0, warp 0, lanes 0x1): misaligned "
                      "4-byte load at 0x00010001", r.stderr)
        r = self.rec(["--discard", "--max-cycles", "5", b])
        self.assertEqual(r.returncode, 4, r.stderr)
        self.assertIn("cycle limit of 5 reached (event index 5)", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "sum.vxt")))

    def test_no_host_paths(self):
        """the trace keeps basenames only"""
        b = self.bin("sum.bin", SUM)
        d = self.bin("data.bin", [0x11223344])
        t = os.path.join(self.dir, "p.vxt")
        self.assertEqual(self.rec(["-q", "--no-compress", "--load", d + "@0x20000", b, "-o", t]).returncode, 55)
        with open(t, "rb") as f:
            data = f.read()
        self.assertNotIn(self.dir.encode(), data)
        self.assertIn(b"sum.bin", data)
        self.assertIn(b"data.bin", data)
        self.assertEqual(self.verify(t).returncode, 0)

    def test_load_outside_global_memory_is_damage(self):
        """FORMAT.md 5.1: a LOAD region MUST lie in global memory [0x80, 0xFFFF0000); a
        trace whose header puts one in local memory (its checksums right) is refused by
        --verify and by vxreplay as damaged (exit 2); --verify wrote it into core 0's
        local memory and said 'verified', while the same region at 0x10 was refused"""
        b = self.bin("sum.bin", SUM)
        d = self.bin("data.bin", [0x11223344])
        t = os.path.join(self.dir, "l.vxt")
        r = self.rec(["-q", "--no-compress", "--load", d + "@0x10000000", b, "-o", t])
        self.assertEqual(r.returncode, 55, r.stderr)
        data = bytearray(open(t, "rb").read())
        off, typ, _, stored, _, _ = chunks(bytes(data))[0]
        self.assertEqual(typ, 1)                                  # the HEADER
        payload = data[off + 28:off + 28 + stored]
        at = payload.find(bytes([0x80, 0x80, 0x80, 0x80, 0x01]))  # varint 0x10000000
        self.assertGreater(at, 0)
        payload[at:at + 5] = bytes([0x80, 0x80, 0xFC, 0xFF, 0x0F])  # varint 0xFFFF0000
        data[off + 28:off + 28 + stored] = payload
        struct.pack_into("<I", data, off + 20, crc32c(bytes(payload)))
        struct.pack_into("<I", data, off + 24, crc32c(bytes(data[off:off + 24])))
        with open(t, "wb") as f:
            f.write(data)
        s = vxtest.run([vxtest.prog("vxdump"), "--summary", t])
        self.assertEqual(s.returncode, 0, s.stderr)               # the reader passes it on
        self.assertIn("4 bytes at 0xffff0000", s.stdout)
        v = self.verify(t)
        self.assertEqual(v.returncode, 2, v.stderr)
        self.assertIn("load 0 (4 bytes at 0xffff0000) lies outside global memory", v.stderr)
        r = vxtest.run([vxtest.prog("vxreplay"), "--stdio", t], input="")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("lies outside global memory", r.stderr)

    def test_empty_events_chunk_before_a_keyframe(self):
        """FORMAT.md 6: an EVENTS chunk without records is valid; one right before a keyframe
        (a trace cut off before its INDEX, so that the chunks are found by a scan) verifies:
        the reader passed the empty chunk without stopping at its end, never said the
        keyframe was here, and --verify compared it at the next keyframe's position (a
        divergence)"""
        b = self.bin("sum.bin", SUM)
        t = os.path.join(self.dir, "e.vxt")
        r = self.rec(["-q", "--no-compress", "--keyframe-interval", "10", "--chunk-size", "64", b,
                      "-o", t])
        self.assertEqual(r.returncode, 55, r.stderr)
        data = open(t, "rb").read()
        ch = chunks(data)
        index = next(c for c in ch if c[1] == 7)
        kf = next(c for c in ch if c[1] in (9, 10) and c[5] > 0)   # keyframe 1's first chunk
        hdr = bytearray(struct.pack("<BBHIIQI", 4, 0, 0, 0, 0, kf[5], crc32c(b"")))
        hdr += struct.pack("<I", crc32c(bytes(hdr)))
        cut = data[:kf[0]] + bytes(hdr) + data[kf[0]:index[0]]    # no INDEX: scanned
        with open(t, "wb") as f:
            f.write(cut)
        v = self.verify(t)
        self.assertEqual(v.returncode, 0, v.stderr)
        self.assertRegex(v.stderr, r"the trace is incomplete \(cut off\); its \d+ events match")

    def test_two_keyframes_of_one_index_with_an_empty_events_chunk_between(self):
        """FORMAT.md 6 and 9: an EVENTS chunk without records may sit between two keyframes of
        the same index (a writer's freedom; vxrec writes neither); such a trace verifies: the
        reader said only the first keyframe was here, passed the empty chunk and the second
        without a stop, and --verify compared the second at the next keyframe's position (a
        divergence)"""
        b = self.bin("sum.bin", SUM)
        self.assertEqual(self.rec(["-q", "--keyframe-interval", "10", "--chunk-size", "64", b,
                                   "-o", "two.vxt"]).returncode, 55)

        def twice(parts):
            i = [n for n, c in enumerate(parts) if c[0] == vxt_spec.CH_KEYFRAME2][1]
            key, p = parts[i][1], parts[i][2]
            cyc, q = vxt_spec.rvarint(p, 0)
            _, q = vxt_spec.rvarint(p, q)   # npages: the copy has none
            parts[i + 1:i + 1] = [[vxt_spec.CH_EVENTS, key, b""],
                                  [vxt_spec.CH_KEYFRAME2, key, vxt_make.varint(cyc) +
                                   vxt_make.varint(0) + p[q:]]]
        t = self.edited("two.vxt", twice)
        v = self.verify(t)
        self.assertEqual(v.returncode, 0, v.stderr)
        self.assertRegex(v.stderr, r"verified: \d+ events and \d+ keyframes match")

    def test_unknown_codes_cannot_be_verified(self):
        """an END status, like any code of FORMAT.md's tables that this vxrec does not know
        (a later minor version may add them, 15.1: the file is valid), cannot be verified:
        exit 2 with that reason, as for an unknown Debug Module op (t4003), not a
        divergence (exit 1)"""
        b = self.bin("sum.bin", SUM)
        self.assertEqual(self.rec(["-q", b, "-o", "st.vxt"]).returncode, 55)

        def status9(parts):
            p = bytearray([c for c in parts if c[0] == vxt_spec.CH_EVENTS][-1][2])
            i = max(i for i in range(len(p) - 1) if p[i] == 0x81 and p[i + 1] == len(p) - i - 2)
            self.assertEqual(p[i + 2], 1, "the END record says exit")
            p[i + 2] = 9
            [c for c in parts if c[0] == vxt_spec.CH_EVENTS][-1][2] = bytes(p)
        with open(os.path.join(self.dir, "st.vxt"), "rb") as f:
            tr = vxt_spec.Trace(f.read())
        parts, off = [], 16
        while off < tr.prologue_end:
            c = tr._chunk_header(off)
            parts.append([c.type, c.key, tr.payload(c)])
            off = c.end
        parts += [[c.type, c.key, tr.payload(c)] for c in tr.chunks if c.type != vxt_spec.CH_INDEX]
        status9(parts)
        totals = {k: tr.index[k] for k in ("issues", "records", "cycle", "raw_size")}
        totals["end_status"] = 9   # the INDEX says so too: a sound file
        t = os.path.join(self.dir, "st9.vxt")
        with open(t, "wb") as f:
            f.write(vxt_make.assemble(tr.minor, [tuple(p) for p in parts], totals))
        self.assertEqual(vxtest.run([vxtest.prog("vxdump"), "--check", t]).returncode, 0)
        v = self.verify(t)
        self.assertEqual(v.returncode, 2, v.stderr)
        self.assertRegex(v.stderr, r"cannot verify event \d+: END status 9 is unknown to this vxrec")

    def test_closed_stdout(self):
        """standard output closed (vxrec k >&-): the trace did get fd 1 and the kernel's
        "#0: OK" line with it (a corrupt trace, exit 0); now the trace is the one a normal
        run writes, and vxrec says the console output could not be written"""
        b = self.bin("sum.bin", SUM)
        self.assertEqual(self.rec(["-q", b, "-o", "open.vxt"]).returncode, 55)
        prog = vxtest.prog("vxrec")
        r = vxtest.run(["sh", "-c", '"$0" -q "$1" -o closed.vxt >&-', prog, b], cwd=self.dir)
        self.assertEqual(r.returncode, 55, r.stderr)
        self.assertIn("could not be written to standard output", r.stderr)
        with open(os.path.join(self.dir, "open.vxt"), "rb") as f1, \
                open(os.path.join(self.dir, "closed.vxt"), "rb") as f2:
            self.assertEqual(f1.read(), f2.read())

    def test_trace_on_a_standard_stream(self):
        """-o naming the file standard output or error writes to (/dev/stdout, the file
        stdout is redirected to): refused as -o - is (the console output would go into
        the trace); exit 2"""
        b = self.bin("sum.bin", SUM)
        prog = vxtest.prog("vxrec")
        for cmd, stream in (('"$0" -f "$1" -o /dev/stdout', "standard output"),
                            ('"$0" -f "$1" -o /dev/stderr 2>err.txt; r=$?; cat err.txt >&2; '
                             'exit $r', "standard error"),
                            ('"$0" -f "$1" -o out.vxt >out.vxt', "standard output")):
            r = vxtest.run(["sh", "-c", cmd, prog, b], cwd=self.dir)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn("is the %s: a trace goes to a file of its own" % stream, r.stderr)

    def test_traced_paths(self):
        """(from a coverage review) fsgnjx/fsgnjn, misa, medeleg/mideleg, mnstatus, byte and
        halfword accesses and code in local memory, recorded: the values expected, the
        trace verifies, and vxsim --trace-insn gives the same run"""
        b = self.bin("traced.bin", TRACED)
        out = os.path.join(self.dir, "traced.out")
        r = self.rec(["-q", "-o", "traced.vxt", "--dump", "0x10000:44=" + out, b])
        self.assertEqual(r.returncode, 42, r.stderr)
        with open(out, "rb") as f:
            self.assertEqual(list(struct.unpack("<11I", f.read())), TRACED_OUT)
        v = self.verify("traced.vxt")
        self.assertEqual(v.returncode, 0, v.stderr)
        self.assertIn("verified", v.stderr)
        log = os.path.join(self.dir, "traced.log")
        r = vxtest.run([vxtest.prog("vxsim"), "--trace-insn=" + log, b])
        self.assertEqual(r.returncode, 42, r.stderr)
        with open(log) as f:
            text = f.read()
        # the traced commits: f registers of fabs / fneg, misa unchanged by its write
        for line in (r"fabs\.s ft2, ft1 +\| ft2=\{0x40200000\}",
                     r"fneg\.s ft3, ft2 +\| ft3=\{0xc0200000\}",
                     r"csrrw t1, misa, zero +\| t1=\{0x40001121\} misa=\{0x40001121\}",
                     r"csrw medeleg, t2 +\| medeleg=\{0x55\}",
                     r"csrw mideleg, t2 +\| mideleg=\{0x66\}",
                     r"csrrw t1, mnstatus, t2 +\| t1=\{0x0\} mnstatus=\{0x0\}"):
            self.assertRegex(text, line)

    def test_fault(self):
        """a kernel fault: exit 3, reported, recorded at the end; verify matches"""
        b = self.bin("fault.bin", FAULT)
        r = self.rec([b])
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("kernel fault at pc 0x80000008", r.stderr)
        self.assertIn("recorded at event 2", r.stderr)
        v = self.verify(os.path.join(self.dir, "fault.vxt"))
        self.assertEqual(v.returncode, 0, v.stderr)

    def test_limit(self):
        """--max-cycles: exit 4; the trace ends with the limit and verifies"""
        b = self.bin("loop.bin", LOOP)
        r = self.rec(["--max-cycles", "1000", b])
        self.assertEqual(r.returncode, 4, r.stderr)
        self.assertIn("cycle limit of 1000", r.stderr)
        v = self.verify(os.path.join(self.dir, "loop.vxt"))
        self.assertEqual(v.returncode, 0, v.stderr)

    def test_keyframes_verified(self):
        """frequent keyframes: each one's state and pages are checked by --verify"""
        b = self.bin("loop.bin", LOOP)
        t = os.path.join(self.dir, "kf.vxt")
        r = self.rec(["--max-cycles", "20000", "--keyframe-interval", "1000", b, "-o", t])
        self.assertEqual(r.returncode, 4, r.stderr)
        self.assertRegex(r.stderr, r" 21 keyframes")  # at 0, 1000, ..., 20000
        v = self.verify(t)
        self.assertEqual(v.returncode, 0, v.stderr)
        self.assertIn("21 keyframes match", v.stderr)

    def test_keyframes_wait_when_much_memory_was_written(self):
        """a keyframe stores the pages written since the one before: when those exceed
        1 MiB and 8 bytes per issue since it (strided stores over 2 MiB), it waits for a
        later multiple of the interval, so keyframes grow with the run, not with working
        set x run; the trace still verifies"""
        sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
        import vxt_spec
        b = self.bin("stride.bin", STRIDE)
        t = os.path.join(self.dir, "stride.vxt")
        r = self.rec(["-q", "--keyframe-interval", "2000", b, "-o", t])
        self.assertEqual(r.returncode, 0, r.stderr)
        tr = vxt_spec.Trace(open(t, "rb").read())
        kfs = [c for c in tr.chunks if c.type in (vxt_spec.CH_KEYFRAME, vxt_spec.CH_KEYFRAME2)]
        prev = 0
        sizes = []
        for c in kfs[1:]:
            _, npages, _ = vxt_spec.parse_keyframe(tr, tr.payload(c), c)
            raw = npages * (8 + 4096)
            self.assertTrue(raw <= 1 << 20 or raw <= 8 * (c.key - prev), (c.key, prev, npages))
            sizes.append((c.key - prev, npages))
            prev = c.key
        self.assertGreaterEqual(len(kfs), 2, "keyframes were taken")
        self.assertLess(len(kfs), 10, sizes)        # not one every 2000 issues (330)
        self.assertTrue(any(n > 256 for _, n in sizes), sizes)   # big ones, after a wait
        v = self.verify(t)
        self.assertEqual(v.returncode, 0, v.stderr)

    def tamper(self, ctype, edit, args=(), which=0):
        """Record SUM uncompressed, edit the payload of chunk `which` of type ctype, fix the CRCs."""
        b = self.bin("sum.bin", SUM)
        t = os.path.join(self.dir, "sum.vxt")
        self.assertEqual(self.rec(["-q", "-f", "--no-compress"] + list(args) + [b]).returncode, 55)
        data = bytearray(open(t, "rb").read())
        c = [c for c in chunks(data) if c[1] == ctype][which]
        off, _, flags, st, raw, _ = c
        self.assertEqual(flags, 0, "stored uncompressed")
        payload = bytearray(data[off + 28:off + 28 + st])
        edit(payload)
        data[off + 28:off + 28 + st] = payload
        struct.pack_into("<I", data, off + 20, crc32c(payload))
        struct.pack_into("<I", data, off + 24, crc32c(data[off:off + 24]))
        bad = os.path.join(self.dir, "bad.vxt")
        open(bad, "wb").write(data)
        return self.verify(bad)

    def test_verify_detects_changed_value(self):
        """a recorded register value changed: divergence at that event (exit 1)"""
        def edit(p):
            # issue 1, addi a1, x0, 10: insn word, commit header (x[rd], lanes = mask,
            # uniform), value zigzag(10) = 0x14 (FORMAT.md section 7.2)
            pat = struct.pack("<I", ADDI(A1, 0, 10)) + b"\x04\x14"
            i = p.find(pat)
            self.assertGreater(i, 0, "issue 1 encoded as FORMAT.md says")
            p[i + len(pat) - 1] = 0x16  # 11
        v = self.tamper(4, edit)
        self.assertEqual(v.returncode, 1, v.stderr)
        self.assertIn("trace diverges at event 1", v.stderr)
        self.assertIn("lane 0: 0x0000000b != 0x0000000a", v.stderr)

    def test_verify_detects_changed_keyframe_pages(self):
        """a keyframe's page changed, or stored under another address: --verify names the page
        (SUM stores 55 at 0x10000 at issue 33; a keyframe at 35 stores that page)"""
        def page_of(p):
            # PAGES2 (FORMAT.md 9.1): count, then space, page number, mode 0 and 4096 bytes
            i = p.find(bytes([0, 0x10, 0]) + bytes([55, 0, 0, 0]))
            self.assertGreater(i, 0, "page 0x10 stored whole, 55 first")
            return i
        def changed(p):
            p[page_of(p) + 3] = 56
        def moved(p):
            p[page_of(p) + 1] = 0x11
        v = self.tamper(9, changed, ["--keyframe-interval", "35"], which=-1)
        self.assertEqual(v.returncode, 1, v.stderr)
        self.assertIn("memory page 0x00010000 (space 0) differs from the one recorded", v.stderr)
        v = self.tamper(9, moved, ["--keyframe-interval", "35"], which=-1)
        self.assertEqual(v.returncode, 1, v.stderr)
        self.assertIn("memory page 0x00010000 (space 0) was written but the trace does not have it",
                      v.stderr)

    def test_verify_detects_changed_keyframe_state(self):
        """(from a mutation review of vxrec --verify) a keyframe whose state encoding has
        the recorded length but one byte changed (in the middle, far from the Debug Module
        section at its end, which is not compared): --verify reports the state differs"""
        def edit(p):
            q = 0
            for _ in range(3):          # varints: cycle, page count, state length
                n = 0
                shift = 0
                while True:
                    b = p[q]
                    q += 1
                    n |= (b & 0x7F) << shift
                    shift += 7
                    if b < 0x80:
                        break
            self.assertGreater(n, 200, "a state of some size")
            p[q + n // 2] ^= 0x01
        v = self.tamper(10, edit, ["--keyframe-interval", "35"], which=-1)
        self.assertEqual(v.returncode, 1, v.stderr)
        self.assertIn("the machine state (registers, warps, scheduler) differs", v.stderr)

    def test_verify_detects_changed_image(self):
        """an image changed after recording: the changed instruction diverges where it issues

        (since format 1.1 keyframe 0 does not repeat the image's pages: the image is the
        base of memory, so the change shows as the instruction word issue 3 executes)"""
        def edit(p):
            self.assertEqual(struct.unpack_from("<I", p, 12)[0], SUM[3])
            struct.pack_into("<I", p, 12, ADDI(A1, A1, -2) & 0xFFFFFFFF)
        v = self.tamper(2, edit)
        self.assertEqual(v.returncode, 1, v.stderr)
        self.assertIn("trace diverges at event 3: insn 0x%08x != 0x%08x"
                      % (SUM[3], ADDI(A1, A1, -2) & 0xFFFFFFFF), v.stderr)

    def test_verify_detects_a_cycle_limit_the_run_passed(self):
        """a header whose MAX_CYCLES the recorded run went past (checksums made right): the
        first issue at the limit diverges (exit 1); --verify followed the recorded schedule
        past it and passed"""
        def varint(p, i):
            v = sh = 0
            while True:
                b = p[i]
                i += 1
                v |= (b & 0x7F) << sh
                sh += 7
                if b < 0x80:
                    return v, i

        def edit(p):
            i = 0
            while i < len(p):
                tag, i = varint(p, i)
                n, i = varint(p, i)
                if tag == 5:   # MAX_CYCLES (FORMAT.md 5.1), 0 as recorded: now 2
                    self.assertEqual((n, p[i]), (1, 0))
                    p[i] = 2
                    return
                i += n
            self.fail("no MAX_CYCLES field")
        v = self.tamper(1, edit)
        self.assertEqual(v.returncode, 1, v.stderr)
        self.assertIn("trace diverges at event 2: the simulator cannot replay this issue: an issue "
                      "at cycle 2 is past the cycle limit of 2", v.stderr)

    def edited(self, trace, edit):
        """The recording trace with edit(chunks) applied as vxt_make.edit_recording does (a
        sound file: every CRC and the INDEX made right), written to edited.vxt."""
        with open(os.path.join(self.dir, trace), "rb") as f:
            data = vxt_make.edit_recording(f.read(), edit)
        out = os.path.join(self.dir, "edited.vxt")
        with open(out, "wb") as f:
            f.write(data)
        self.assertEqual(vxtest.run([vxtest.prog("vxdump"), "--check", "--summary", out])
                         .returncode, 0, "a sound trace")
        return out

    @staticmethod
    def set_tag(chunks, tag, value):
        """Set (add) HEADER tag tag (FORMAT.md 5.1) in the chunk list of edited()."""
        tags = vxt_make.header_tags(chunks[0][2])
        tags = [t for t in tags if t[0] != tag] + [[tag, value]]
        chunks[0][2] = vxt_make.header_payload(tags)

    def test_load_regions_past_the_memory_limit_are_refused_from_the_header(self):
        """(from a security review) a trace whose HEADER claims LOAD regions the simulator
        could not hold (one past MEM_LIMIT, or more than 4 GiB in all) is refused from the
        HEADER, before its LOAD chunks are read: a small trace decompressed GiBs of them"""
        b = self.bin("loop.bin", LOOP)
        self.assertEqual(self.rec(["-q", b, "--max-cycles", "10", "-o", "short.vxt"]).returncode, 4)
        for sizes, limit in (([2 << 30], 0), ([1 << 20], 1 << 16), ([3 << 30, 3 << 30], 4 << 30)):
            def loads(chunks):
                tags = vxt_make.header_tags(chunks[0][2])
                tags = [t for t in tags if t[0] not in (2, 8)]
                if limit:
                    tags.append([2, vxt_make.varint(limit)])
                for i, n in enumerate(sizes):
                    tags.append([8, vxt_make.varint(0x10000000 + i * (n + 4096)) +
                                 vxt_make.varint(n) + vxt_make.string("x%d" % i)])
                chunks[0][2] = vxt_make.header_payload(tags)
                for i in range(len(sizes)):
                    chunks.insert(2 + i, [vxt_spec.CH_LOAD, i, b"\0" * 16])
            with open(os.path.join(self.dir, "short.vxt"), "rb") as f:
                data = vxt_make.edit_recording(f.read(), loads)
            t = os.path.join(self.dir, "loads.vxt")
            with open(t, "wb") as f:
                f.write(data)
            r = vxtest.run([vxtest.prog("vxdump"), "--summary", t])
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn("cannot fit the guest memory limit of %d bytes or the 4 GiB address "
                          "space" % (limit or 1 << 30), r.stderr)

    def test_verify_edited_recordings(self):
        """(from a coverage review) recordings edited into sound traces that the run does
        not match: a keyframe's cycle one lower, a keyframe with a page the run never
        wrote, a raised cycle limit (exit 1, at the keyframe's or the END's event); a
        START_PC that is not the ELF's entry, an ELF image called a .vxbin, a LOAD region
        below global memory (exit 2: the trace cannot be simulated)"""
        b = self.bin("loop.bin", LOOP)
        self.assertEqual(self.rec(["-q", "--max-cycles", "3000", "--keyframe-interval", "1000",
                                   b, "-o", "loop.vxt"]).returncode, 4)

        def kf1(chunks):
            return [c for c in chunks if c[0] == vxt_spec.CH_KEYFRAME2][1]
        with open(os.path.join(self.dir, "loop.vxt"), "rb") as f:
            tr = vxt_spec.Trace(f.read())
        c = [c for c in tr.chunks if c.type == vxt_spec.CH_KEYFRAME2][1]
        key, cycle = c.key, vxt_spec.rvarint(tr.payload(c), 0)[0]

        def lower_cycle(chunks):
            p = kf1(chunks)[2]
            kf1(chunks)[2] = vxt_make.varint(cycle - 1) + p[vxt_spec.rvarint(p, 0)[1]:]
        v = self.verify(self.edited("loop.vxt", lower_cycle))
        self.assertEqual(v.returncode, 1, v.stderr)
        self.assertIn("trace diverges at event %d: keyframe 1: recorded at cycle %d, the "
                      "simulator is at cycle %d" % (key, cycle - 1, cycle), v.stderr)

        def extra_page(chunks):
            k = kf1(chunks)
            q = vxt_spec.rvarint(k[2], 0)[1]
            npages, q2 = vxt_spec.rvarint(k[2], q)
            k[2] = k[2][:q] + vxt_make.varint(npages + 1) + k[2][q2:]
            page = vxt_make.varint(1) + vxt_make.varint(0) + vxt_make.varint(0x90000)
            chunks.insert(chunks.index(k), [vxt_spec.CH_PAGES2, key, page + b"\x01"])
        v = self.verify(self.edited("loop.vxt", extra_page))
        self.assertEqual(v.returncode, 1, v.stderr)
        self.assertIn("trace diverges at event %d: keyframe 1 has page 0x90000000 (space 0) "
                      "that the simulator did not write" % key, v.stderr)
        # (from a review) a page where FORMAT.md 9.1 says none can be (a local page in
        # global memory, a global one in a core's local memory, a core the platform does
        # not have): the file is damaged (exit 2), the run did nothing wrong (it said 1)
        for space, page in ((0, 0xFFFF1), (1, 0x90000), (2, 0xFFFF0)):
            def bad_page(chunks):
                k = kf1(chunks)
                q = vxt_spec.rvarint(k[2], 0)[1]
                npages, q2 = vxt_spec.rvarint(k[2], q)
                k[2] = k[2][:q] + vxt_make.varint(npages + 1) + k[2][q2:]
                enc = vxt_make.varint(1) + vxt_make.varint(space) + vxt_make.varint(page)
                chunks.insert(chunks.index(k), [vxt_spec.CH_PAGES2, key, enc + b"\x01"])
            v = self.verify(self.edited("loop.vxt", bad_page))
            self.assertEqual(v.returncode, 2, (space, page, v.stderr))
            self.assertIn("keyframe 1 has page 0x%08x in memory space %d, where no page can be "
                          "(FORMAT.md 9.1" % (page << 12, space), v.stderr)
        # the limit: 3000 issues (one a cycle), then END; without it the loop goes on
        for limit in (3001, 0):
            v = self.verify(self.edited("loop.vxt", lambda ch: self.set_tag(
                ch, 5, vxt_make.varint(limit))))
            self.assertEqual(v.returncode, 1, v.stderr)
            self.assertIn("trace diverges at event 3000: the trace ends here but the simulated "
                          "kernel does not", v.stderr)
        # a LOAD region at 0x10, below global memory [0x80, 0xFFFF0000) (FORMAT.md 5.1)
        self.assertEqual(self.rec(["-q", b, "--max-cycles", "10", "-o", "short.vxt"]).returncode, 4)

        def load_at_0x10(chunks):
            self.set_tag(chunks, 8, vxt_make.varint(0x10) + vxt_make.varint(4) +
                         vxt_make.string("x"))
            chunks.insert(2, [vxt_spec.CH_LOAD, 0, b"\x01\x02\x03\x04"])
        v = self.verify(self.edited("short.vxt", load_at_0x10))
        self.assertEqual(v.returncode, 2, v.stderr)
        self.assertIn("load 0 (4 bytes at 0x00000010) lies outside global memory", v.stderr)
        k = vxtest.kernel("hello")
        if not os.path.exists(k):
            self.skipTest("make kernels")
        self.assertEqual(self.rec(["-q", k, "-o", "hello.vxt"]).returncode, 0)
        v = self.verify(self.edited("hello.vxt", lambda ch: self.set_tag(
            ch, 3, vxt_make.varint(0x80000004))))
        self.assertEqual(v.returncode, 2, v.stderr)
        self.assertIn("the trace starts at pc 0x80000004 but its image's entry is 0x80000000",
                      v.stderr)

        def vxbin(chunks):
            tags = vxt_make.header_tags(chunks[0][2])
            image = [t for t in tags if t[0] == 7][0][1]
            self.assertEqual(image[0], 1, "an ELF image")
            self.set_tag(chunks, 7, b"\x02" + image[1:])
        v = self.verify(self.edited("hello.vxt", vxbin))
        self.assertEqual(v.returncode, 2, v.stderr)
        self.assertIn("the kernel image in the trace cannot be loaded: hello.elf", v.stderr)

    def test_verify_corrupt_and_missing(self):
        """a damaged trace or a missing file: exit 2 with the reason"""
        b = self.bin("sum.bin", SUM)
        t = os.path.join(self.dir, "sum.vxt")
        self.assertEqual(self.rec(["-q", b]).returncode, 55)
        data = bytearray(open(t, "rb").read())
        ev = [c for c in chunks(data) if c[1] == 4]
        data[ev[0][0] + 28 + 2] ^= 0x40
        bad = os.path.join(self.dir, "bad.vxt")
        open(bad, "wb").write(data)
        v = self.verify(bad)
        self.assertEqual(v.returncode, 2, v.stderr)
        self.assertIn("offset", v.stderr)
        v = self.verify(os.path.join(self.dir, "nope.vxt"))
        self.assertEqual(v.returncode, 2)
        self.assertIn("nope.vxt", v.stderr)
        for args in (["--verify", "-q", t], ["-q", "--verify", t], ["--verify", t, "-q"]):
            v = vxtest.run([vxtest.prog("vxrec")] + args, cwd=self.dir)
            self.assertEqual((v.returncode, v.stderr), (0, ""), args)    # -q anywhere
        # damage in a keyframe is damage too (exit 2), not a divergence (exit 1)
        data = bytearray(open(t, "rb").read())
        kf = [c for c in chunks(data) if c[1] in (6, 10)]
        self.assertTrue(kf)
        data[kf[0][0] + 28 + 2] ^= 0x40
        open(bad, "wb").write(data)
        v = self.verify(bad)
        self.assertEqual(v.returncode, 2, v.stderr)
        self.assertRegex(v.stderr, r"KEYFRAME2? chunk at offset %d: payload checksum" % kf[0][0])

    def test_verify_standard_input(self):
        """--verify - reads the trace from standard input, as vxdump and vxdiff do (it said
        "No such file or directory")"""
        b = self.bin("sum.bin", SUM)
        self.assertEqual(self.rec(["-q", b]).returncode, 55)
        with open(os.path.join(self.dir, "sum.vxt"), "rb") as f:
            data = f.read()
        # 42 issues (2, 3 x 10 in the loop, 10 after it) and the END record
        for args in (["--verify", "-"], ["--verify", "-q", "-"]):
            r = subprocess.run([vxtest.prog("vxrec")] + args, input=data, capture_output=True,
                               timeout=120)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stderr.decode(), "" if "-q" in args else
                             "vxrec: standard input: verified: 43 events and 1 keyframe match "
                             "the simulator\n")
        r = subprocess.run([vxtest.prog("vxrec"), "--verify", "-"], input=data[:100],
                           capture_output=True, timeout=120)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn(b"standard input", r.stderr)

    def test_verify_cut_trace(self):
        """a trace cut in the middle verifies up to its last complete chunk"""
        b = self.bin("loop.bin", LOOP)
        t = os.path.join(self.dir, "loop.vxt")
        self.assertEqual(self.rec(["-q", "--chunk-size", "1000", "--max-cycles", "5000", b]).returncode, 4)
        data = open(t, "rb").read()
        cut = os.path.join(self.dir, "cut.vxt")
        open(cut, "wb").write(data[:len(data) * 2 // 3])
        v = self.verify(cut)
        self.assertEqual(v.returncode, 0, v.stderr)
        self.assertIn("incomplete", v.stderr)

    def _long_run(self, sig, name="long.vxt"):
        b = self.bin("loop.bin", LOOP)
        t = os.path.join(self.dir, name)
        p = subprocess.Popen([vxtest.prog("vxrec"), "-q", "--chunk-size", "4096", b, "-o", t],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=self.dir)
        deadline = time.time() + 30
        while time.time() < deadline and (not os.path.exists(t) or os.path.getsize(t) < 200000):
            time.sleep(0.05)
        p.send_signal(sig)
        out, err = p.communicate(timeout=60)
        return p.returncode, err.decode(), t

    def test_killed_recorder_leaves_readable_trace(self):
        """SIGKILL mid-run: the trace is incomplete but readable and verifies"""
        rc, err, t = self._long_run(signal.SIGKILL)
        self.assertEqual(rc, -signal.SIGKILL)
        v = self.verify(t)
        self.assertEqual(v.returncode, 0, v.stderr)
        self.assertIn("incomplete", v.stderr)

    def test_interrupt_finishes_trace(self):
        """SIGINT, SIGTERM, SIGHUP: exit 130, the trace is complete (END = abort) and verifies"""
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            rc, err, t = self._long_run(sig, "long-%d.vxt" % sig)
            self.assertEqual(rc, 130, (sig, err))
            self.assertIn("interrupted at event", err)
            v = self.verify(t)
            self.assertEqual(v.returncode, 0, v.stderr)
            self.assertNotIn("incomplete", v.stderr)
    def test_signal_during_start_up(self):
        """SIGINT, SIGTERM, SIGHUP while vxrec is still loading its kernel (here: reading it
        from a pipe on standard input): exit 130, and a complete trace that ends at event 0
        (END = abort) and verifies; the signal used to kill vxrec (its handlers came only
        once the trace was begun)"""
        with open(vxtest.kernel("hello"), "rb") as f:
            elf = f.read()
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            t = os.path.join(self.dir, "early-%d.vxt" % sig)
            p = subprocess.Popen([vxtest.prog("vxrec"), "-f", "-", "-o", t],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, cwd=self.dir)
            # wait until it blocks reading standard input (fd 0): loading has begun
            syscall = "/proc/%d/syscall" % p.pid
            deadline = time.time() + 30
            while time.time() < deadline:
                try:
                    with open(syscall) as f:
                        fields = f.read().split()
                except OSError:
                    p.kill()
                    p.communicate()
                    self.skipTest("no /proc/PID/syscall")
                if len(fields) > 1 and fields[0] in ("0", "63") and int(fields[1], 16) == 0:
                    break  # read(0, ...): x86-64 and arm64 numbers
                time.sleep(0.01)
            p.send_signal(sig)
            out, err = p.communicate(elf, timeout=60)
            err = err.decode()
            self.assertEqual(p.returncode, 130, (sig, err))
            self.assertIn("interrupted at event 0; the trace ends there", err)
            v = self.verify(t)
            self.assertEqual(v.returncode, 0, v.stderr)
            self.assertNotIn("incomplete", v.stderr)
            s = vxtest.run([vxtest.prog("vxdump"), "--summary", "--json", t])
            self.assertEqual(json.loads(s.stdout)["totals"]["issues"], 0, s.stdout)


if __name__ == "__main__":
    vxtest.main(Vxrec)
