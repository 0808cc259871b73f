#!/usr/bin/env python3
"""t4003: a VxDebug debugger session recorded by `vxrec --dm-port`, then verified.

The client (tests/lib/vxdbg.py) drives the Debug Module over TCP while vxrec
records: reset with halt, register and memory accesses through injected
instructions, a software breakpoint (a store of ebreak over an instruction),
resume, the breakpoint hit, single steps, a register change, and the run to the
end.  The recording must hold the Debug Module events and the injected and
stepped issues, and `vxrec --verify` must re-create the session from the trace
alone (applying the recorded Debug Module effects) and find every event equal.

The kernel is hand-encoded (see t3001):
    0x00 addi a0, x0, 0
    0x04 addi a1, x0, 10
    0x08 add  a0, a0, a1          loop
    0x0c addi a1, a1, -1          <- breakpoint
    0x10 bne  a1, x0, loop
    ...  store a0 at 0x10000, print "OK", exit code a0
"""
import json
import os
import signal
import struct
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
import vxtest  # noqa: E402
import vxt_spec  # noqa: E402
from vxdbg import *  # noqa: E402,F401,F403

BASE = 0x80000000
BP = BASE + 0x0C
A0, A1, A2, A3 = 10, 11, 12, 13

PROG = [
    ADDI(A0, 0, 0), ADDI(A1, 0, 10), ADD(A0, A0, A1), ADDI(A1, A1, -1), BNE(A1, 0, -8),
    LUI(A2, 0x10), SW(A0, A2, 0),
    ADDI(A3, 0, ord("O")), SB(A3, 0, 0x40), ADDI(A3, 0, ord("K")), SB(A3, 0, 0x40),
    ADDI(A3, 0, 10), SB(A3, 0, 0x40), SW(A0, 0, 0x88), TMC(0),
]


class DmRecord(unittest.TestCase):
    def setUp(self):
        if not os.path.exists(vxtest.prog("vxrec")):
            self.skipTest("vxrec not built")
        self.dir = vxtest.tmpdir()
        self.bin = os.path.join(self.dir, "sum.bin")
        self.write_bin(PROG)
        self.trace = os.path.join(self.dir, "session.vxt")
        self.server = None
        self.client = None

    def tearDown(self):
        if self.client:
            self.client.close()
        if self.server:
            self.server.kill()

    def start(self, extra=()):
        self.server = Server(vxtest.prog("vxrec"), list(extra) + ["-o", self.trace, self.bin])
        self.assertIsNotNone(self.server.port, "vxrec did not report its port: %r" % self.server.stderr)
        self.client = self.server.connect()
        return self.client

    def finish(self):
        self.client.close()
        self.client = None
        return self.server.wait()

    def verify(self):
        return vxtest.run([vxtest.prog("vxrec"), "--verify", self.trace])

    def verified_keyframes(self):
        """vxrec --verify passes on the trace; the number of keyframes it checked"""
        v = self.verify()
        self.assertEqual(v.returncode, 0, v.stderr)
        m = __import__("re").search(r"and (\d+) keyframes? match", v.stderr)
        self.assertIsNotNone(m, v.stderr)
        return int(m.group(1))

    def spec_reads(self):
        """the independent FORMAT.md reader, keyframes decoded, accepts the trace"""
        spec = os.path.join(os.path.dirname(__file__), "lib", "vxt_spec.py")
        s = vxtest.run([sys.executable, spec, "--keyframes", self.trace])
        self.assertEqual(s.returncode, 0, s.stderr)

    def write_bin(self, words):
        with open(self.bin, "wb") as f:
            f.write(b"".join(struct.pack("<I", w & 0xFFFFFFFF) for w in words))

    def test_interrupt_during_session(self):
        """SIGTERM, SIGINT or SIGHUP while a debugger drives vxrec (before it started the
        platform, while the kernel runs, with every warp halted): exit 130, the console
        kept, the trace finished (END = abort) and it verifies"""
        loop = [ADDI(A3, 0, ord("G")), SB(A3, 0, 0x40), ADDI(A3, 0, 10), SB(A3, 0, 0x40),
                ADDI(A3, 0, 1), ADDI(A0, A0, 1), BNE(A3, 0, -4)]
        self.write_bin(loop)
        for sig, phase in ((signal.SIGTERM, "held"), (signal.SIGINT, "running"),
                           (signal.SIGHUP, "halted")):
            c = self.start(["-f"])
            c.wake()
            if phase != "held":
                self.assertEqual(c.cmd("s"), "+")
                # running: the server simulates a slice (4096 issues, the console line
                # among them) before it reads the next command, so once this is answered
                c.poll(NR, NR)
            if phase == "halted":
                c.halt_all()
                c.poll(AH, AH)
            self.server.proc.send_signal(sig)
            rc, out, err = self.server.wait()
            self.client.close()
            self.client = self.server = None
            self.assertEqual(rc, 130, (phase, err))
            self.assertIn("interrupted at event", err)
            if phase != "held":
                self.assertIn("#0: G", out)
            v = self.verify()
            self.assertEqual(v.returncode, 0, (phase, v.stderr))
            self.assertNotIn("incomplete", v.stderr)

    def test_session_recorded_and_verified(self):
        """breakpoint, steps, register write: recorded, then verified from the trace"""
        c = self.start()
        c.start_halted()
        self.assertEqual(c.rd(DPC), BASE)
        c.write_gpr(31, 0x12345678)
        self.assertEqual(c.read_gpr(31), 0x12345678)
        c.write_gpr(31, 0)
        self.assertEqual(c.read_mem(BASE + 4), PROG[1])
        c.write_mem(0x10004, 0xA5A5A5A5)
        # software breakpoint at BP, with ebreak halting the warp
        c.write_mem(BP, EBREAK)
        c.wr(DCONFIG, 0x88000001)
        c.resume_all()
        c.poll(NH, NH)
        c.select(0, 0)
        self.assertEqual(hacause(c.rd(DCTRL)), HC_EBREAK)
        self.assertEqual(c.rd(DPC), BP)
        self.assertEqual((c.read_gpr(A0), c.read_gpr(A1)), (10, 10))
        # restore the instruction, step twice, make the loop end early
        c.write_mem(BP, PROG[3])
        self.assertEqual(c.step(), BP + 4)
        self.assertEqual(c.step(), BASE + 8)
        c.write_gpr(A1, 1)
        c.resume_all()
        c.poll(AU, AU)
        rc, out, err = self.finish()
        # a0 = 10 + 1 = 11 when the loop ends after a1 was set to 1
        self.assertEqual(rc, 11, err)
        self.assertIn("#0: OK", out)
        m = __import__("re").search(r"(\d+) events \((\d+) issues, (\d+) Debug Module events\)", err)
        self.assertIsNotNone(m, err)
        self.assertGreater(int(m.group(3)), 20, "the debugger's accesses are in the trace")
        v = self.verify()
        self.assertEqual(v.returncode, 0, v.stderr)
        self.assertIn("verified", v.stderr)

    def test_session_with_keyframes(self):
        """keyframes taken between slices while the debugger works are verified too"""
        c = self.start(["--keyframe-interval", "3"])
        c.wake()
        c.reset_halt()
        c.cmd("s")
        c.run_to_breakpoint(BP, PROG[3])
        c.step()
        c.resume_all()
        c.poll(AU, AU)
        rc, out, err = self.finish()
        self.assertEqual(rc, 55, err)
        self.assertGreaterEqual(self.verified_keyframes(), 3,
                                "keyframes between the slices were checked")

    def test_restart_after_fault_keyframes(self):
        """a Debug Module reset after the kernel faulted starts it again, and the
        recording goes on: keyframes are taken again after the restart (they stopped
        at the fault for good), and the trace verifies and reads (vxt_spec)"""
        prog = [LW(A3, 0, 0x10),  # the null guard: a fault
                ADDI(A0, 0, 0), ADDI(A1, 0, 2000), ADD(A0, A0, A1), ADDI(A1, A1, -1),
                BNE(A1, 0, -8), ADDI(A0, 0, 5), SW(A0, 0, 0x88), TMC(0)]
        self.write_bin(prog)
        c = self.start(["-f", "--keyframe-interval", "1000"])
        c.wake()
        self.assertEqual(c.cmd("s"), "+")
        c.poll(AU, AU)
        c.reset_halt()
        c.select(0, 0)
        c.wr(DPC, BASE + 4)
        c.resume_all()
        c.poll(AU, AU)
        rc, out, err = self.finish()
        self.assertEqual(rc, 5, err)
        self.spec_reads()
        self.assertGreaterEqual(self.verified_keyframes(), 2, "keyframes after the restart")

    def test_stopped_after_a_restart_ends_with_abort(self):
        """(from a mutation review of the recorder) the kernel faults, a Debug Module reset
        starts it again, and the recording is stopped while it runs (SIGINT), or right
        after the reset with every warp halted (SIGTERM): the trace ends with END = abort
        (FORMAT.md 8.2: the machine was still running), not with the first run's fault
        at cycle 2, which vxrec held back and wrote as the end; --verify agrees"""
        prog = [LW(A3, 0, 0x10),  # the null guard: a fault
                ADDI(A0, 0, 0), ADDI(A0, A0, 1), BNE(A0, 0, -4)]  # then a loop without end
        self.write_bin(prog)
        for sig, running in ((signal.SIGINT, True), (signal.SIGTERM, False)):
            c = self.start(["-f"])
            c.wake()
            self.assertEqual(c.cmd("s"), "+")
            c.poll(AU, AU)  # the fault ended the kernel
            c.reset_halt()
            if running:
                c.select(0, 0)
                c.wr(DPC, BASE + 4)
                c.resume_all()
                c.poll(NR, NR)
            self.server.proc.send_signal(sig)
            rc, out, err = self.server.wait()
            self.client.close()
            self.client = self.server = None
            self.assertEqual(rc, 130, err)
            ev = [json.loads(ln) for ln in vxtest.run(
                [vxtest.prog("vxdump"), "--json", "--kind", "end", self.trace]).stdout.splitlines()]
            self.assertEqual(len(ev), 1, ev)
            self.assertEqual((ev[0]["status"], ev[0]["fault"]), ("abort", None), (running, ev))
            if running:
                self.assertGreater(ev[0]["cycle"], 2, "the end is where the recording stopped")
            v = self.verify()
            self.assertEqual(v.returncode, 0, (running, v.stderr))

    def test_keyframes_at_multiples_under_the_server(self):
        """(from a mutation review of the recorder) FORMAT.md 9: under a Debug Module server
        a keyframe is taken at the first boundary between the server's slices (4096 issues,
        VX_DMS_SLICE, while nothing stops the run) where the issues reached the next
        multiple of the interval, the multiple after the previous keyframe's key, not the
        interval counted from that key; the header says the interval and that a server
        drove the run (FLAGS bit 1)"""
        sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
        import vxt_spec
        prog = [LUI(A1, 0x6), ADDI(A1, A1, -1), BNE(A1, 0, -4),  # 2 x 24576 issues
                SW(0, 0, 0x88), TMC(0)]
        self.write_bin(prog)
        interval, slice_ = 5000, 4096
        c = self.start(["-f", "--keyframe-interval", str(interval)])
        c.wake()
        self.assertEqual(c.cmd("s"), "+")
        c.poll(AU, AU)
        rc, out, err = self.finish()
        self.assertEqual(rc, 0, err)
        tr = vxt_spec.Trace(open(self.trace, "rb").read())
        self.assertEqual(tr.kf_interval, interval)
        self.assertEqual(tr.hflags & 2, 2, "FLAGS bit 1: driven by a Debug Module server")
        keys = [k.key for k in tr.chunks if k.type in (vxt_spec.CH_KEYFRAME, vxt_spec.CH_KEYFRAME2)]
        self.assertGreaterEqual(len(keys), 5, keys)
        self.assertEqual(keys[0], 0)
        for a, b in zip(keys, keys[1:]):
            due = (a // interval + 1) * interval
            self.assertEqual(b % slice_, 0, (keys, "a keyframe between two slices"))
            self.assertTrue(due <= b < due + slice_, (keys, "the first boundary at or after", due))
        self.assertEqual(self.verified_keyframes(), len(keys))

    def test_dconfig_without_ebreakh_verified(self):
        """(from a mutation review of vxrec --verify) a DCONFIG write with ebreakh 0 is
        applied as such when the trace is verified: the kernel's ebreak is then a
        breakpoint fault (END = fault at the ebreak), and --verify finds the same, where
        a verifier that turned ebreak-halt on would see the warp halt instead"""
        self.write_bin([ADDI(A0, 0, 1), EBREAK, SW(A0, 0, 0x88), TMC(0)])
        c = self.start(["-f"])
        c.wake()
        c.wr(DCONFIG, 0x88000000)
        self.assertEqual(c.rd(DCONFIG), 0x88000000)
        self.assertEqual(c.cmd("s"), "+")
        c.poll(AU, AU)
        rc, out, err = self.finish()
        self.assertEqual(rc, 3, err)
        ev = [json.loads(ln) for ln in vxtest.run(
            [vxtest.prog("vxdump"), "--json", "--kind", "end", self.trace]).stdout.splitlines()]
        self.assertEqual(ev[0]["status"], "fault", ev)
        self.assertEqual(ev[0]["fault"]["pc"], BASE + 4, ev)
        v = self.verify()
        self.assertEqual(v.returncode, 0, v.stderr)

    def test_faulting_injected_store_leaves_pages(self):
        """(from the keyframe review) an injected store that faults has no effect, and the
        kernel goes on: in the misaligned mode a word store whose first bytes are writable
        and a later one is not (past the end of local memory; a second new page over
        --mem-limit) made the first bytes' page writable before the fault: the next
        keyframe stored a page no event wrote (FORMAT.md 9.3; vxt_spec --keyframes exit 3)
        and the new page counted against the limit (the kernel's own store of its exit
        code then faulted: exit 3, not 5).  The kernel loops past a 4096-issue slice so
        that keyframes follow the injection."""
        loop = [ADDI(A0, 0, 0), ADDI(A1, 0, 2000), ADD(A0, A0, A1), ADDI(A1, A1, -1), BNE(A1, 0, -8),
                ADDI(A0, 0, 5), SW(A0, 0, 0x88), TMC(0)]
        self.write_bin(loop)
        for name, addr, extra in (("local memory end", 0xFFFF3FFE, []),
                                  ("memory limit", 0x20000FFE, ["--mem-limit", "8K"])):
            with self.subTest(name):
                c = self.start(["-f", "--allow-misaligned", "--keyframe-interval", "1"] + extra)
                c.start_halted()
                c.write_gpr(T0, addr)
                c.write_gpr(T1, 0x11223344)
                with self.assertRaisesRegex(DmError, "injecterr"):
                    c.inject(SW(T1, T0, 0))
                c.resume_all()
                c.poll(AU, AU)
                rc, out, err = self.finish()
                self.server = None
                self.assertEqual(rc, 5, err)
                self.spec_reads()
                self.assertGreaterEqual(self.verified_keyframes(), 2,
                                        "keyframes follow the injection")

    def test_step_ends_the_kernel(self):
        """a single step that ends the kernel (from a coverage review): over the final
        tmc 0 the session exits with the code stored (7) and steperr stays clear; over a
        load from address 0 the step reports steperr and the session ends with that fault
        (exit 3); both recordings verify"""
        for name, prog, rc_want in (
                ("exit", [ADDI(A0, 0, 7), SW(A0, 0, 0x88), TMC(0)], 7),
                ("fault", [ADDI(A0, 0, 7), LW(5, 0, 0), TMC(0)], 3)):
            with self.subTest(name):
                self.write_bin(prog)
                c = self.start(["-f"])
                c.start_halted()
                self.assertEqual(c.step(), BASE + 4)
                if name == "exit":
                    self.assertEqual(c.step(), BASE + 8)
                    c.step()                            # the tmc 0: no steperr
                else:
                    with self.assertRaisesRegex(DmError, "steperr"):
                        c.step()                        # the lw from 0 faults
                self.assertEqual(c.rd(DCTRL) & (AU | NH), AU, "no warp is left")
                rc, out, err = self.finish()
                self.server = None
                self.assertEqual(rc, rc_want, err)
                if name == "fault":
                    self.assertIn("kernel fault at pc 0x80000004", err)
                v = self.verify()
                self.assertEqual(v.returncode, 0, v.stderr)
                self.assertIn("verified", v.stderr)

    def plain(self):
        """the same kernel recorded without a debugger"""
        path = os.path.join(self.dir, "plain.vxt")
        r = vxtest.run([vxtest.prog("vxrec"), "-q", "-o", path, self.bin])
        self.assertEqual(r.returncode, 55, r.stderr)
        return path

    def test_quiet_session_against_plain_run(self):
        """a session that does not change the run (halt before the start, 3 steps, a0 read
        by injection, resume) against the run without one: vxdiff sees the DM events;
        --ignore dm leaves only the first issue's cycle (the halted start delays it), and
        --ignore dm,cycle or --per-warp --ignore dm nothing (from the coverage review)"""
        c = self.start()
        self.assertEqual(c.cmd("p"), "+P")
        c.wr(DCTRL, DA)
        c.wr(WMASK, 1)
        c.wr(DCTRL, DA | HR)
        self.assertEqual(c.cmd("s"), "+")
        c.select(0, 0)
        self.assertEqual([c.step() for _ in range(3)], [BASE + 4, BASE + 8, BASE + 0x0C])
        self.assertEqual(c.read_gpr(A0), 10, "a0 = 0 + a1 (10) after the first add")
        c.wr(DCTRL, DA | RR)
        c.poll(AU, AU)
        rc, out, err = self.finish()
        self.assertEqual(rc, 55, err)
        plain = self.plain()
        ev = [json.loads(ln) for ln in vxtest.run([vxtest.prog("vxdump"), "--json", self.trace]).stdout.splitlines()]
        self.assertEqual(ev[0]["type"], "dm")
        first = [e for e in ev if e["type"] == "issue"][0]
        self.assertEqual((first["pc"], first["flags"]), (BASE, 2), "the first step")
        self.assertGreater(first["cycle"], 0)
        diff = lambda *args: vxtest.run([vxtest.prog("vxdiff"), "--json", "-C", "0"] +  # noqa: E731
                                        list(args) + [plain, self.trace])
        r = diff()
        self.assertEqual(r.returncode, 1, r.stderr)
        d = [json.loads(ln) for ln in r.stdout.splitlines()][0]
        self.assertEqual((d["index_a"], d["index_b"]), (0, 0))
        self.assertEqual([i["text"] for i in d["items"]], ["A has an issue, B has a DM event"])
        r = diff("--ignore", "dm")
        self.assertEqual(r.returncode, 1, r.stderr)
        d = [json.loads(ln) for ln in r.stdout.splitlines()]
        self.assertEqual((d[0]["index_a"], d[0]["index_b"]), (0, first["index"]))
        self.assertEqual([i["text"] for i in d[0]["items"]], ["cycle 0 != %d" % first["cycle"]])
        self.assertEqual(d[-1]["differences_found"], 1)
        for args in (["--ignore", "dm,cycle"], ["--per-warp", "--ignore", "dm"]):
            r = diff(*args)
            self.assertEqual(r.returncode, 0, (args, r.stdout, r.stderr))

    def test_dm_listing(self):
        """vxdump lists a DSCRATCH0 write on lane 1, a DPC write and a rejected injection
        (jal: reason 1, VX_DM_REJ_CLASS in sim/dm.c); --lane 0 hides the lane-1 scratch
        and inject-reject events (from the coverage review)"""
        c = self.start()
        c.start_halted(0, 1)
        c.wr(DSCRATCH0, 0x1234)
        c.wr(DPC, BASE)
        with self.assertRaises(DmError):
            c.inject(0x0000006F)  # jal x0, 0
        c.resume_all()
        c.poll(AU, AU)
        rc, out, err = self.finish()
        self.assertEqual(rc, 55, err)
        dump = lambda *args: vxtest.run([vxtest.prog("vxdump"), "--kind", "dm"] +  # noqa: E731
                                        list(args) + [self.trace])
        r = dump()
        self.assertEqual(r.returncode, 0, r.stderr)
        for want in ("dm scratch warp 0 [0:0] lane 1 dscratch0 = 0x00001234",
                     "dm set-pc warp 0 [0:0] pc=0x%08x" % BASE,
                     "dm inject-reject insn=0x0000006f reason=1"):
            self.assertEqual(sum(1 for ln in r.stdout.splitlines() if ln.endswith(want)), 1, want)
        # --lane 0 hides lane 1's events (the refused injection too: it showed), not the
        # DPC write, which names no lane
        lane0, lane1 = dump("--lane", "0").stdout, dump("--lane", "1").stdout
        self.assertNotIn("dm scratch", lane0)
        self.assertNotIn("dm inject-reject", lane0)
        self.assertIn("dm set-pc", lane0)
        self.assertIn("dm scratch warp 0 [0:0] lane 1", lane1)
        self.assertIn("dm inject-reject insn=0x0000006f reason=1", lane1)
        # --warp selects the events that name a warp: the refused injection names warp 0
        # (FORMAT.md 8.1) as the scratch and set-pc events do (from the JSON review)
        warp0, warp1 = dump("--warp", "0").stdout, dump("--warp", "1").stdout
        for want in ("dm scratch", "dm set-pc", "dm inject-reject insn=0x0000006f reason=1"):
            self.assertIn(want, warp0)
            self.assertNotIn(want, warp1)
        v = self.verify()
        self.assertEqual(v.returncode, 0, v.stderr)

    def test_pc_filter_lists_injected_issues(self):
        """vxdump --pc lists the instructions a debugger injected at that pc also when
        an EVENTS chunk holds nothing else: the digests' PC sets leave injected issues
        out (FORMAT.md 10.3), so such a chunk cannot be skipped by its PC set (from the
        JSON review: small chunks made --pc miss three of ten issues)"""
        c = self.start(["--chunk-size", "256"])
        c.start_halted()
        for v in range(6):
            c.write_mem(0x10000 + 4 * v, v)
        c.resume_all()
        c.poll(AU, AU)
        rc, out, err = self.finish()
        self.assertEqual(rc, 55, err)
        full = vxtest.run([vxtest.prog("vxdump"), "--json", self.trace])
        self.assertEqual(full.returncode, 0, full.stderr)
        want = [e["index"] for e in map(json.loads, full.stdout.splitlines())
                if e["type"] == "issue" and e["pc"] == BASE]
        self.assertGreater(len(want), 20, "the injected issues run at the halted pc")
        for pc in ("0x%08x" % BASE, "%08x" % BASE):
            r = vxtest.run([vxtest.prog("vxdump"), "--json", "--pc", pc, self.trace])
            self.assertEqual(r.returncode, 0, r.stderr)
            got = [e["index"] for e in map(json.loads, r.stdout.splitlines())]
            self.assertEqual(got, want, pc)

    def test_timeline_of_stepped_split(self):
        """a divergent vx_split taken by a single step is a 'divergent split' marker in
        vxdump --timeline, as the summary counts it (from the JSON review: the timeline
        left the warp-control effects of stepped issues out)"""
        self.write_bin([ADDI(5, 0, -1), TMC(5),                     # all lanes on
                        CSRR(A0, CSR_THREAD_ID), enc_i(0x13, 7, 6, A0, 1),  # t1 = lane & 1
                        enc_r(0x0B, 2, 0, 7, 6, 0),                   # vx_split t2, t1
                        ADDI(8, A0, 100), enc_r(0x0B, 3, 0, 0, 7, 0),  # vx_join t2
                        ADDI(5, 0, 1), TMC(5), ADDI(A0, 0, 3), SW(A0, 0, 0x88), TMC(0)])
        c = self.start()
        c.start_halted()
        for _ in range(8):
            c.step()
        c.resume_all()
        c.poll(AU, AU)
        rc, out, err = self.finish()
        self.assertEqual(rc, 3, err)
        s = json.loads(vxtest.run([vxtest.prog("vxdump"), "--summary", "--json",
                                   self.trace]).stdout)
        self.assertEqual(s["divergence"]["divergent"], 1)
        self.assertEqual(s["totals"]["steps"], 8)
        tl = os.path.join(self.dir, "tl.json")
        r = vxtest.run([vxtest.prog("vxdump"), "--timeline", tl, self.trace])
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(tl) as f:
            ev = json.load(f)["traceEvents"]
        split = [e for e in ev if e["name"] == "divergent split"]
        self.assertEqual(len(split), 1, ev)
        self.assertEqual((split[0]["args"]["pc"], split[0]["args"]["else"]),
                         ("0x%08x" % (BASE + 16), "0x5"))
        self.assertEqual(sum(1 for e in ev if e["name"] == "step"), 8)

    def test_timeline_of_refused_injection(self):
        """an injected load that faults (refused: no fault of the warp's, which goes on) is
        an 'injection refused: unmapped' marker of cat debug in vxdump --timeline, not a
        'fault: unmapped' one (from the JSON review); the kernel's own end is no fault"""
        loop = [ADDI(A0, 0, 0), ADDI(A1, 0, 20), ADD(A0, A0, A1), ADDI(A1, A1, -1), BNE(A1, 0, -8),
                ADDI(A0, 0, 5), SW(A0, 0, 0x88), TMC(0)]
        self.write_bin(loop)
        c = self.start()
        c.start_halted()
        c.write_gpr(T0, 0xFFFFFFF0)          # past every mapped address
        with self.assertRaisesRegex(DmError, "injecterr"):
            c.inject(LW(T1, T0, 0))
        c.resume_all()
        c.poll(AU, AU)
        rc, out, err = self.finish()
        self.assertEqual(rc, 5, err)
        tl = os.path.join(self.dir, "tl.json")
        r = vxtest.run([vxtest.prog("vxdump"), "--timeline", tl, self.trace])
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(tl) as f:
            ev = json.load(f)["traceEvents"]
        marks = [(e["name"], e["cat"]) for e in ev if e.get("ph") == "i"]
        self.assertIn(("injection refused: unmapped", "debug"), marks)
        self.assertFalse([m for m in marks if m[1] == "fault"], marks)

    def test_timeline_of_stepped_barrier(self):
        """a warp single-stepped into a barrier waits there once resumed: vxdump
        --timeline shows that wait (a 'barrier 0' slice from the resume to the release by
        the other warp) after the halt slice (from the JSON review: it had none)"""
        self.write_bin([ADDI(5, 0, 2), LUI(6, 0x80000), ADDI(6, 6, 16),
                        enc_r(0x0B, 1, 0, 0, 5, 6),                   # vx_wspawn t0, t1
                        ADDI(7, 0, 0), ADDI(28, 0, 2),
                        enc_r(0x0B, 4, 0, 0, 7, 28),                  # vx_bar t2, t3 (2 warps)
                        CSRR(A0, CSR_WARP_ID), BNE(A0, 0, 12),
                        ADDI(A1, 0, 3), SW(A1, 0, 0x88), TMC(0)])
        c = self.start()
        c.start_halted()
        for _ in range(7):  # warp 0 up to its barrier arrival
            c.step()
        c.resume_all()
        c.poll(AU, AU)
        rc, out, err = self.finish()
        self.assertEqual(rc, 3, err)
        evs = [json.loads(ln) for ln in vxtest.run([vxtest.prog("vxdump"), "--json",
                                                    self.trace]).stdout.splitlines()]
        resume = [e["cycle"] for e in evs if e.get("op") == "resume" and e["gwarp"] == 0]
        release = [e["cycle"] for e in evs if e["type"] == "issue" and
                   any(w["kind"] == "bar-release" and w["warp"] == 0 for w in e["wctl"])]
        self.assertEqual((len(resume), len(release)), (1, 1))
        tl = os.path.join(self.dir, "tl.json")
        r = vxtest.run([vxtest.prog("vxdump"), "--timeline", tl, self.trace])
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(tl) as f:
            ev = json.load(f)["traceEvents"]
        waits = [(e["tid"], e["ts"], e["dur"]) for e in ev if e.get("cat") == "wait"]
        self.assertEqual(waits, [(0, resume[0], release[0] - resume[0])])

    def test_cut_between_a_breakpoint_and_its_halt(self):
        """a trace cut right after the EVENTS chunk whose last record is an ebreak issue,
        before the chunk with the halt record the same issue produced (a recorder killed
        there): --verify says it is incomplete and its events match (exit 0, as --help
        says); it reported the halt the simulator made as a divergence after the last
        event (exit 1).  The session's poll reads vary, so chunk sizes are tried until
        one puts a chunk boundary there."""
        cut = None
        for cs in range(64, 640, 3):
            c = self.start(["-f", "--no-compress", "--chunk-size", str(cs)])
            c.wake()
            c.reset_halt()
            self.assertEqual(c.cmd("s"), "+")
            c.run_to_breakpoint(BP, PROG[3])
            c.resume_all()
            c.poll(AU, AU)
            rc, out, err = self.finish()
            self.assertEqual(rc, 55, err)
            with open(self.trace, "rb") as f:
                data = f.read()
            events = [ch for ch in vxt_spec.Trace(data).chunks if ch.type == vxt_spec.CH_EVENTS]
            for ch in events[1:]:
                # a chunk that begins with a DM record (0x80, length): op 3 halt, addr 0,
                # value 0, warp 0, lane 0, cause 1 ebreak (FORMAT.md 8.1)
                p = data[ch.off + 28:ch.off + 36]
                if p[0] == 0x80 and p[2:] == bytes([3, 0, 0, 0, 0, 1]):
                    cut = ch.off
                    break
            if cut:
                break
        self.assertIsNotNone(cut, "no chunk size put a boundary between the ebreak and its halt")
        with open(self.trace, "wb") as f:
            f.write(data[:cut])
        ev = vxtest.run([vxtest.prog("vxdump"), "--json", self.trace])
        self.assertEqual(ev.returncode, 1, ev.stderr)             # incomplete
        last = __import__("json").loads(ev.stdout.splitlines()[-1])
        self.assertEqual((last["type"], last.get("insn")), ("issue", EBREAK), last)
        v = self.verify()
        self.assertEqual(v.returncode, 0, v.stderr)
        self.assertIn("the trace is incomplete (cut off); its %d events match"
                      % len(ev.stdout.splitlines()), v.stderr)

    def test_unknown_dm_op_cannot_be_verified(self):
        """a Debug Module record of an op this vxrec does not know (a code a later minor
        version may add, FORMAT.md 15.1: the file is valid) cannot be verified: exit 2
        with that reason, not a divergence (exit 1)"""
        c = self.start(["-f", "--no-compress"])
        c.wake()
        c.reset_halt()
        self.assertEqual(c.cmd("s"), "+")
        c.resume_all()
        c.poll(AU, AU)
        rc, out, err = self.finish()
        self.assertEqual(rc, 55, err)
        data = bytearray(open(self.trace, "rb").read())
        ch = next(c for c in vxt_spec.Trace(bytes(data)).chunks if c.type == vxt_spec.CH_EVENTS)
        p = ch.off + 28
        self.assertEqual(data[p], 0x80, "the session's first record is a DM record")
        data[p + 2] = 9  # its op (FORMAT.md 8.1): 9 is unknown
        struct.pack_into("<I", data, ch.off + 20, vxt_spec.crc32c(bytes(data[p:ch.end])))
        struct.pack_into("<I", data, ch.off + 24, vxt_spec.crc32c(bytes(data[ch.off:ch.off + 24])))
        with open(self.trace, "wb") as f:
            f.write(data)
        d = vxtest.run([vxtest.prog("vxdump"), "--check", self.trace])
        self.assertEqual(d.returncode, 0, d.stderr)
        v = self.verify()
        self.assertEqual(v.returncode, 2, v.stderr)
        self.assertIn("cannot verify event 0: Debug Module op 9 is unknown to this vxrec", v.stderr)

    def test_no_start_leaves_incomplete_but_valid_trace(self):
        """the recorder killed before the platform starts: a readable trace"""
        c = self.start()
        c.wake()
        c.reset_halt()
        self.server.kill()
        v = self.verify()
        self.assertEqual(v.returncode, 0, v.stderr)
        self.assertIn("incomplete", v.stderr)

    def test_ipv6_bind(self):
        """--dm-bind ::1: the banner says [::1]:PORT (host:port unambiguous), a session
        there is recorded and verifies"""
        if not ipv6_loopback():
            self.skipTest("no IPv6 loopback here")
        c = self.start(["--dm-bind", "::1"])
        self.assertIn("Debug Module listening on [::1]:%d (VxDebug protocol); recording"
                      % self.server.port, self.server.stderr.decode())
        c.start_halted()
        self.assertEqual(c.rd(DPC), BASE)
        c.resume_all()
        rc, out, err = self.finish()
        self.assertEqual(rc, 55, err)
        v = self.verify()
        self.assertEqual(v.returncode, 0, v.stderr)
        self.assertIn("verified", v.stderr)

    def test_bad_bind_creates_no_trace(self):
        """an address that cannot be bound, or a busy port: exit 2 before any trace is written"""
        import socket
        rec = vxtest.prog("vxrec")
        r = vxtest.run([rec, "--dm-port", "0", "--dm-bind", "192.0.2.1", "-o", self.trace, self.bin])
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("cannot listen", r.stderr)
        self.assertNotIn("recorded", r.stderr)
        self.assertFalse(os.path.exists(self.trace))
        # an existing trace survives a failed --force recording
        r = vxtest.run([rec, "-q", "-o", self.trace, self.bin])
        self.assertEqual(r.returncode, 55, r.stderr)             # the kernel's exit code: 1+..+10
        with open(self.trace, "rb") as f:
            before = f.read()
        busy = socket.socket()
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        try:
            port = busy.getsockname()[1]
            r = vxtest.run([rec, "-f", "--dm-port", str(port), "-o", self.trace, self.bin])
        finally:
            busy.close()
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("port %d" % port, r.stderr)
        with open(self.trace, "rb") as f:
            self.assertEqual(f.read(), before)


if __name__ == "__main__":
    vxtest.main(DmRecord)
