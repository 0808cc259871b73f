#!/usr/bin/env python3
"""t5003 - replaying a trace recorded under a Debug Module session (vxrec --dm-port).

The session of t4003 (halt at reset, registers and memory written through
injected instructions, a software breakpoint with ebreak-halt, single steps, a
register change, resume) is recorded, then served by vxreplay.  Replay applies
the recorded Debug Module effects (sim/vx_event.h) and must reach the end
without divergence, with the debugger's changes visible: the memory word it
injected, the loop cut short by its register write (a0 = 11), ebreak-halt on.
Going backward, the breakpoint address is found again, and the states seen
stepping forward come back stepping backward.
"""
import importlib.util
import json
import os
import re
import struct
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
import vxtest  # noqa: E402
from vxdbg import *  # noqa: E402,F401,F403

_spec = importlib.util.spec_from_file_location("t5000", os.path.join(os.path.dirname(__file__), "t5000-rsp.py"))
rsplib = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rsplib)

BASE = 0x80000000
BP = BASE + 0x0C
A0, A1, A2, A3 = 10, 11, 12, 13

PROG = [
    ADDI(A0, 0, 0), ADDI(A1, 0, 10), ADD(A0, A0, A1), ADDI(A1, A1, -1), BNE(A1, 0, -8),
    LUI(A2, 0x10), SW(A0, A2, 0),
    ADDI(A3, 0, ord("O")), SB(A3, 0, 0x40), ADDI(A3, 0, ord("K")), SB(A3, 0, 0x40),
    ADDI(A3, 0, 10), SB(A3, 0, 0x40), SW(A0, 0, 0x88), TMC(0),
]


def record_dm(drive, status, keyframes=None):
    """PROG recorded by vxrec under a Debug Module session: drive(c) with a client of
    vxrec's Debug Module; vxrec must exit with status (PROG's a0).  The trace's path."""
    d = vxtest.tmpdir()
    binf = os.path.join(d, "sum.bin")
    with open(binf, "wb") as f:
        f.write(b"".join(struct.pack("<I", w & 0xFFFFFFFF) for w in PROG))
    trace = os.path.join(d, "session.vxt")
    extra = ["--keyframe-interval", str(keyframes)] if keyframes else []
    srv = Server(vxtest.prog("vxrec"), extra + ["-o", trace, binf])
    c = srv.connect()
    try:
        drive(c)
    finally:
        c.close()
    rc, out, err = srv.wait()
    if rc != status:
        raise RuntimeError("recording failed (%d): %s" % (rc, err))
    return trace


def record_session(keyframes=None, ebreak_first=False, a1=1):
    def drive(c):
        c.wake()
        c.reset_halt()
        if ebreak_first:  # before the first issue: in the state every checkpoint holds
            c.wr(DCONFIG, 0x88000001)
        c.cmd("s")
        c.select(0, 0)
        c.write_gpr(31, 0x12345678)
        c.write_gpr(31, 0)
        c.write_mem(0x10004, 0xA5A5A5A5)
        c.run_to_breakpoint(BP, PROG[3])
        c.step()
        c.step()
        c.write_gpr(A1, a1)
        c.resume_all()
        c.poll(AU, AU)
    # the loop adds a1, a1 - 1, ..., 1 to 10
    return record_dm(drive, 10 + a1 * (a1 + 1) // 2, keyframes)


def record_set_pc():
    """Three single steps from reset (a0 = 0, a1 = 10, a0 = 10: the pc at the ADDI after
    the ADD), then the debugger writes DPC (recorded as a set-pc Debug Module event): back
    to the ADD, which runs again, so that the loop adds 10, 9, ..., 1 to a0 = 10."""
    def drive(c):
        c.start_halted()
        for _ in range(3):
            c.step()
        c.wr(DPC, BASE + 0x8)
        c.resume_all()
        c.poll(AU, AU)
    return record_dm(drive, 10 + sum(range(1, 11)))


def reg(c, n):
    return rsplib.le32(c.cmds("p%x" % n))


class ReplayDm(unittest.TestCase):
    def session(self, trace, body):
        """vxreplay on trace, a client through the handshake, body(c), detach; the
        server must not report a divergence"""
        srv = rsplib.Server(trace)
        try:
            c = srv.client()
            c.handshake()
            body(c)
            c.send("D")
            c.reply()
            c.close()
        finally:
            log = srv.stop()
        self.assertNotIn("diverged", log)

    def check_trace(self, trace):
        self.session(trace, self.check_client)

    def check_client(self, c):
        c.console = []
        sig, f = rsplib.parse_stop(c.cmd("vCont;c"))
        self.assertEqual(f.get("replaylog"), "end", "".join(c.console))
        self.assertNotIn("diverged", "".join(c.console))
        self.assertEqual(reg(c, A0), 11)                      # the debugger cut the loop short
        self.assertEqual(c.cmds("m10004,4"), "a5a5a5a5")      # ... and injected this store
        self.assertEqual(rsplib.le32(c.cmds("m10000,4")), 11)
        self.assertIn("ebreak-halt (DCONFIG.ebreakh): on", c.monitor("info dm")[1])
        # backward to the breakpoint address: the last issue there (the DM's single step)
        self.assertEqual(c.cmds("Z0,%x,4" % BP), "OK")
        sig, f = rsplib.parse_stop(c.cmd("bc"))
        self.assertIn("swbreak", f)
        self.assertEqual(rsplib.le32(f["20"]), BP)
        self.assertEqual(c.cmds("z0,%x,4" % BP), "OK")
        # forward steps and back again through the DM's changes
        seen = []
        for i in range(12):
            seen.append(c.cmds("g"))
            rsplib.parse_stop(c.cmd("vCont;s:1"))
        c.cmds("Hc1")
        back = []
        for i in range(12):
            rsplib.parse_stop(c.cmd("bs"))
            back.append(c.cmds("g"))
        self.assertEqual(back, list(reversed(seen)))
        # every position rebuilds without divergence
        end = int(re.search(r"events=(\d+)", c.monitor("config")[1]).group(1))
        for n in range(0, end + 1, max(1, end // 40)):
            out = c.monitor("seek %d" % n)[1]
            self.assertNotIn("failed", out)

    def test_dm_session(self):
        """a recorded debugger session replays to the end with its effects"""
        self.check_trace(record_session())

    def test_dm_session_keyframes(self):
        """the same with keyframes taken while the debugger worked"""
        self.check_trace(record_session(keyframes=3))

    def test_ebreak_halt_from_keyframe(self):
        """a seek that starts from a keyframe taken after the debugger turned ebreak-halt
        on reports it on (the mode is part of the keyframe's state)"""
        def body(c):
            self.assertIn("ebreak-halt (DCONFIG.ebreakh): off", c.monitor("info dm")[1])
            end = int(re.search(r"events=(\d+)", c.monitor("config")[1]).group(1))
            self.assertNotIn("failed", c.monitor("seek %d" % end)[1])
            self.assertIn("ebreak-halt (DCONFIG.ebreakh): on", c.monitor("info dm")[1])
        self.session(record_session(keyframes=3), body)

    def test_ebreak_halt_from_checkpoint(self):
        """back to a checkpoint taken after the debugger turned ebreak-halt on: the mode
        is restored with it, so the ebreak ahead still halts (no divergence)"""
        trace = record_session(ebreak_first=True)
        evs = [json.loads(line) for line in vxtest.run(
            [vxtest.prog("vxdump"), "--json", "--kind", "dm", trace]).stdout.splitlines()]
        on = next(e["index"] for e in evs
                  if e["op"] == "write" and e["reg"] == "dconfig" and e["value"] & 1)
        hit = next(e["index"] for e in evs if e["op"] == "halt" and e["index"] > on)

        def body(c):
            end = int(re.search(r"events=(\d+)", c.monitor("config")[1]).group(1))
            for n in (on + 1, end, on + 1):  # the second seek to on+1 restores a checkpoint
                self.assertNotIn("failed", c.monitor("seek %d" % n)[1], n)
                self.assertIn("ebreak-halt (DCONFIG.ebreakh): on", c.monitor("info dm")[1], n)
            self.assertNotIn("failed", c.monitor("seek %d" % (hit + 1))[1])
            self.assertNotIn("failed", c.monitor("seek %d" % end)[1])
        self.session(trace, body)

    def test_dpc_write_replays(self):
        """a recorded write of DPC (the debugger moving the pc back to the ADD after three
        single steps) is replayed: to the end without divergence, a0 = 65 (vxrec's exit
        status, stored at 0x10000); positions 2, 3 and 4 show the pc at the ADD, at the
        ADD again (the write comes before issue 3) and after it, with a0 0, 10, 20;
        reverse steps from 4 come back through 3, 2, 1, 0 to the beginning; the warp the
        Debug Module halted at reset and stepped shows so (monitor warps, info dm)"""
        trace = record_set_pc()
        dm = [json.loads(line) for line in vxtest.run(
            [vxtest.prog("vxdump"), "--json", "--kind", "dm", trace]).stdout.splitlines()]
        self.assertEqual([(e["index"], e["gwarp"], e["value"]) for e in dm if e["op"] == "set-pc"],
                         [(3, 0, BASE + 0x8)])

        def when(c):
            return int(re.search(r"event (\d+) of", c.monitor("when")[1]).group(1))

        def warp0(c):
            return [ln for ln in c.monitor("warps")[1].splitlines() if re.match(r"0\s", ln)][0]

        def body(c):
            c.console = []
            sig, f = rsplib.parse_stop(c.cmd("vCont;c"))
            self.assertEqual(f.get("replaylog"), "end", "".join(c.console))
            # the 3 steps, 10 rounds of ADD (the first: the one DPC went back to), ADDI,
            # BNE, then LUI .. TMC (10 instructions)
            self.assertIn("events=%d" % (3 + 10 * 3 + 10), c.monitor("config")[1])
            self.assertEqual(reg(c, A0), 65)
            self.assertEqual(rsplib.le32(c.cmds("m10000,4")), 65)
            for n, pc, a0 in ((2, BASE + 0x8, 0), (3, BASE + 0x8, 10), (4, BASE + 0xC, 20)):
                self.assertNotIn("failed", c.monitor("seek %d" % n)[1])
                self.assertEqual(c.cmds("Hg1"), "OK")
                self.assertEqual((reg(c, 32), reg(c, A0)), (pc, a0), n)
            self.assertIn("ready", warp0(c))
            c.cmds("Hc1")
            for n, pc in ((3, BASE + 0x8), (2, BASE + 0x8), (1, BASE + 0x4), (0, BASE)):
                sig, f = rsplib.parse_stop(c.cmd("bs"))
                self.assertEqual((sig, f.get("replaylog")), (5, None))
                self.assertEqual((when(c), rsplib.le32(f["20"])), (n, pc))
                if n <= 1:
                    self.assertIn("halted by the DM", warp0(c), n)
            self.assertIn("warp 0 halted, hacause 4 (resethaltreq), pc 0x%08x" % BASE,
                          c.monitor("info dm")[1])
            sig, f = rsplib.parse_stop(c.cmd("bs"))
            self.assertEqual(f.get("replaylog"), "begin")
            c.monitor("seek 1")
            self.assertIn("warp 0 halted, hacause 3 (step), pc 0x%08x" % (BASE + 0x4),
                          c.monitor("info dm")[1])
        self.session(trace, body)

    def test_summary_leaves_injected_instructions_out(self):
        """vxdump --summary counts the debugger's injected instructions apart: not in
        the lane-ops, the warp's or the function's issues nor the faults (sim/STATE.md
        §8.2); they were counted as the program's (a register read through the Debug
        Module injects two)"""
        trace = record_session()
        issues = [json.loads(line) for line in vxtest.run(
            [vxtest.prog("vxdump"), "--json", "--kind", "issue", trace]).stdout.splitlines()]
        own = [e for e in issues if not e["flags"] & 1]
        lanes = sum(bin(int(e["tmask"], 16)).count("1") for e in own)
        sm = json.loads(vxtest.run([vxtest.prog("vxdump"), "--summary", "--json", trace]).stdout)
        t = sm["totals"]
        self.assertEqual((t["issues"], t["injected"]), (len(issues), len(issues) - len(own)))
        self.assertGreater(t["injected"], 10)
        self.assertEqual(t["lane_ops"], lanes)
        self.assertEqual(sum(w["issues"] for w in sm["warps"]), len(own))
        self.assertEqual(sum(f["issues"] for f in sm["functions"]), len(own))
        self.assertEqual(t["faults"], sum(1 for e in own if e.get("fault")))
        text = vxtest.run([vxtest.prog("vxdump"), "--summary", trace]).stdout
        self.assertRegex(text, r"\n            0:0 +%d +%d " % (len(own), lanes))

    def test_vxdiff_per_warp_names_the_debug_modules_difference(self):
        """vxdiff --per-warp between two sessions that wrote a different value: the
        Debug Module's write comes first (recorded before the issue of its index), and
        the count says one warp diverged and the DM's events differ (it said "2 warps
        diverge", with the warp's consequence shown first)"""
        a, b = record_session(), record_session(a1=2)
        r = vxtest.run([vxtest.prog("vxdiff"), "--per-warp", a, b])
        self.assertEqual(r.returncode, 1, r.stderr)
        first = r.stdout.split("differs:", 1)[1].splitlines()[0]
        self.assertIn("DM write reg dscratch0 value 0x00000001", first)
        self.assertIn("value 0x00000002", first)
        self.assertIn("vxdiff: 1 warp diverges and the Debug Module's events differ", r.stdout)

    def test_steps_pass_over_injected_instructions(self):
        """the Debug Module's injected instructions (flags 1) leave the PC where it is:
        a step passes over them to the warp's next instruction of its own, both ways,
        and a continue from the breakpoint where the debugger worked, done as GDB does
        it (z0, a step of the thread, Z0, continue), stops there once per instruction of
        the program's, not once per injected one (each step ran one injected
        instruction, the PC did not move, and GDB took the same breakpoint again)"""
        trace = record_session()
        issues = [e for e in (json.loads(line) for line in vxtest.run(
            [vxtest.prog("vxdump"), "--json", "--kind", "issue", trace]).stdout.splitlines())]
        injected = {e["index"] for e in issues if e["flags"] & 1}
        self.assertGreater(len(injected), 10)
        own = sorted(e["index"] for e in issues if not e["flags"] & 1)
        pc = {e["index"]: e["pc"] for e in issues}

        def when(c):
            return int(re.search(r"event (\d+) of", c.monitor("when")[1]).group(1))

        def body(c):
            # forward: each stepi ends right after the warp's next own issue
            c.cmds("Hc1")
            p = 0
            while True:
                nxt = next((t for t in own if t >= p), None)
                if nxt is None:
                    break
                sig, f = rsplib.parse_stop(c.cmd("vCont;s:1"))
                q = when(c)
                self.assertEqual(q, nxt + 1, "stepi from %d" % p)
                p = q
            # backward from the end: each reverse-stepi undoes one own issue
            for t in reversed(own[-12:]):
                rsplib.parse_stop(c.cmd("bs"))
                self.assertEqual(when(c), t)
            # continue as GDB does, from the start, with a breakpoint at BP: at a hit it
            # steps the thread over the breakpoint (z0, s, Z0) and continues, unless that
            # step ended at the breakpoint's address again (then that is the next hit)
            self.assertNotIn("failed", c.monitor("seek 0")[1])
            self.assertEqual(c.cmds("Z0,%x,4" % BP), "OK")
            stops = []
            sig, f = rsplib.parse_stop(c.cmd("vCont;c"))
            while "swbreak" in f and len(stops) < 40:
                stops.append(when(c))
                self.assertEqual(c.cmds("z0,%x,4" % BP), "OK")
                rsplib.parse_stop(c.cmd("vCont;s:1"))
                self.assertEqual(c.cmds("Z0,%x,4" % BP), "OK")
                if rsplib.le32(c.cmds("p20")) == BP:
                    continue
                sig, f = rsplib.parse_stop(c.cmd("vCont;c"))
            self.assertEqual(stops, expected_stops())

        def first_own(p, at_bp=False):
            return next((t for t in own if t >= p and (not at_bp or pc[t] == BP)), None)

        def expected_stops():
            """GDB's hits on the trace: a step ends after the warp's next own issue, and
            the warp's PC is that of its next own issue (injected ones do not move it)"""
            out, p = [], first_own(0, True)
            while p is not None and len(out) < 40:
                out.append(p)
                q = first_own(p) + 1
                nxt = first_own(q)
                p = q if nxt is not None and pc[nxt] == BP else first_own(q, True)
            return out

        self.session(trace, body)

    def test_reverse_continue_passes_over_injected_instructions(self):
        """a reverse-continue with a breakpoint at BP, where the debugger worked with the
        warp halted (its injected instructions recorded at the warp's unchanged pc),
        stops at the program's own issues at BP only, latest first (vxdump)"""
        trace = record_session()
        issues = [json.loads(line) for line in vxtest.run(
            [vxtest.prog("vxdump"), "--json", "--kind", "issue", trace]).stdout.splitlines()]
        self.assertTrue(any(e["flags"] & 1 and e["pc"] == BP for e in issues))
        want = [e["index"] for e in issues if not e["flags"] & 1 and e["pc"] == BP]
        self.assertTrue(want)

        def body(c):
            end = int(re.search(r"events=(\d+)", c.monitor("config")[1]).group(1))
            self.assertNotIn("failed", c.monitor("seek %d" % end)[1])
            self.assertEqual(c.cmds("Z0,%x,4" % BP), "OK")
            got = []
            while len(got) <= len(want):
                sig, f = rsplib.parse_stop(c.cmd("bc"))
                if "replaylog" in f:
                    break
                got.append(int(re.search(r"event (\d+) of", c.monitor("when")[1]).group(1)))
            self.assertEqual(got, want[::-1])
        self.session(trace, body)


if __name__ == "__main__":
    rsplib.prerequisites()
    vxtest.main(ReplayDm)
