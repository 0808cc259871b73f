#!/usr/bin/env python3
"""t5001 - reverse debugging with the real gdb-multiarch against vxreplay.

Each test runs gdb-multiarch in batch mode with vxrr.gdb and a Python script
that drives it (the recipe of QEMU's reverse_debugging test, ported to TAP) and
prints its findings as one JSON line.  Expectations come from the kernel
source (line markers, the values each task computes) and from consistency
between directions: what reverse execution shows must be what forward
execution showed, in the opposite order.
"""
import importlib.util
import json
import os
import re
import shutil
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
import vxtest  # noqa: E402

_spec = importlib.util.spec_from_file_location("t5000", os.path.join(os.path.dirname(__file__), "t5000-rsp.py"))
rsplib = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rsplib)

HERE = os.path.dirname(os.path.abspath(__file__))

PRELUDE = r'''
import gdb, json
R = {}
XN = ["zero","ra","sp","gp","tp","t0","t1","t2","fp","s1","a0","a1","a2","a3","a4","a5","a6","a7",
      "s2","s3","s4","s5","s6","s7","s8","s9","s10","s11","t3","t4","t5","t6"]
def ex(c):
    return gdb.execute(c, to_string=True)
def val(e):
    return int(gdb.parse_and_eval(e)) & 0xffffffff
def pc():
    return val("$pc")
def line():
    return gdb.find_pc_line(pc()).line
def func():
    f = gdb.selected_frame()
    return f.name() if f else None
def tid():
    t = gdb.selected_thread()
    return t.ptid[1] or t.ptid[2]
def regs():
    return [val("$" + n) for n in XN[1:]] + [pc()]
def threads():
    gdb.execute("info threads", to_string=True)
    return {(t.ptid[1] or t.ptid[2]): t for t in gdb.selected_inferior().threads()}
NT = int(re.search(r"threads=(\d+)", ex("monitor config")).group(1)) if True else 4
def warp_lane(t=None):
    t = t if t is not None else tid()
    return (t - 1) // NT, (t - 1) % NT
def emit():
    print("RESULT " + json.dumps(R))
'''


def markers(path):
    """Line numbers of the /* MARKER */ comments of a kernel source."""
    lines = {}
    with open(path) as f:
        for n, text in enumerate(f, 1):
            m = re.search(r"/\* ([A-Z_]+) \*/", text)
            if m:
                lines[m.group(1)] = n
    return lines


def build_kernel(name):
    src = os.path.join(HERE, "kernels", name + ".c")
    out = os.path.join(vxtest.tmpdir(), name + ".elf")
    r = vxtest.run([vxtest.prog("vxcc"), "-O1", "-g", "-o", out, src])
    if r.returncode != 0:
        raise RuntimeError("vxcc failed: " + r.stderr)
    return src, out


def prerequisites():
    rsplib.prerequisites()
    if not shutil.which("gdb-multiarch"):
        vxtest.skip_all("gdb-multiarch not installed")
    if not os.path.exists(vxtest.prog("vxcc")) or not shutil.which("riscv64-unknown-elf-gcc"):
        vxtest.skip_all("vxcc or the RISC-V toolchain missing")


class GdbCase(unittest.TestCase):
    kernel = "rrtest"
    rec_args = ()

    @classmethod
    def setUpClass(cls):
        cls.src, cls.elf = build_kernel(cls.kernel)
        cls.lines = markers(cls.src)
        cls.trace = rsplib.record(cls.elf, *cls.rec_args)
        cls.srv = rsplib.Server(cls.trace)

    @classmethod
    def tearDownClass(cls):
        cls.server_log = cls.srv.stop()

    def gdb(self, body, timeout=300):
        """Run a gdb session; returns (console text, results dict)."""
        d = vxtest.tmpdir()
        script = os.path.join(d, "t.py")
        with open(script, "w") as f:
            f.write("import re\n" + PRELUDE + "\ntry:\n")
            for ln in body.strip("\n").split("\n"):
                f.write("    " + ln + "\n")
            f.write("except Exception as exc:\n    R['error'] = repr(exc)\nemit()\n")
        cmd = ["gdb-multiarch", "-nx", "-batch", "-x", vxtest.prog("vxrr.gdb"),
               "-ex", "target remote :%d" % self.srv.port, "-x", script, self.elf]
        r = vxtest.run(cmd, timeout=timeout)
        out = r.stdout + r.stderr
        res = None
        for ln in r.stdout.splitlines():
            if ln.startswith("RESULT "):
                res = json.loads(ln[7:])
        if res is None:
            self.fail("gdb produced no result:\n" + out[-3000:])
        if "error" in res:
            self.fail("gdb script failed: %s\n%s" % (res["error"], out[-3000:]))
        return out, res


class ReverseTests(GdbCase):
    def test_stepi_consistency(self):
        """stepi x25 recording registers of 4 lanes; reverse-stepi x25 retraces them; forward again"""
        out, R = self.gdb('''
ex("break leaf")
ex("continue")
me = tid()
w, _ = warp_lane()
th = threads()
lanes = [th[1 + w * NT + l] for l in range(NT)]
def snap():
    s = []
    for t in lanes:
        t.switch()
        s.append(regs())
    th[me].switch()
    return s
fwd = [snap()]
for i in range(25):
    ex("stepi")
    fwd.append(snap())
back = [fwd[-1]]
for i in range(25):
    ex("reverse-stepi")
    back.append(snap())
again = [back[-1]]
for i in range(25):
    ex("stepi")
    again.append(snap())
R["fwd"] = fwd
R["back"] = back
R["again"] = again
R["pcs"] = [s[0][-1] for s in fwd]
''')
        fwd, back, again = R["fwd"], R["back"], R["again"]
        self.assertEqual(back, list(reversed(fwd)))
        self.assertEqual(again, fwd)
        self.assertGreater(len(set(R["pcs"])), 5)       # it really moved
        self.assertNotEqual(fwd[0][0], fwd[0][1])        # lanes hold different values

    def test_reverse_continue_breakpoint_many_warps(self):
        """reverse-continue walks a breakpoint's hits backward, in the right threads, mirroring forward"""
        out, R = self.gdb('''
ex("break leaf")
fwd = []
while True:
    o = ex("continue")
    if "No more reverse-execution history" in o or "exited" in o:
        break
    w, l = warp_lane()
    fwd.append([w, val("$a0"), pc() == val("leaf")])
back = []
while True:
    o = ex("reverse-continue")
    if "No more reverse-execution history" in o:
        break
    w, l = warp_lane()
    back.append([w, val("$a0"), pc() == val("leaf")])
R["fwd"] = fwd
R["back"] = back
''')
        fwd, back = R["fwd"], R["back"]
        # 32 tasks over 16 lanes: leaf is entered by each of the 4 warps twice
        self.assertEqual(len(fwd), 8)
        self.assertEqual(back, list(reversed(fwd)))
        self.assertTrue(all(h[2] for h in fwd + back))
        self.assertEqual(len({h[0] for h in fwd}), 4)

    def test_start_of_history(self):
        """reverse-continue without breakpoints stops at the start: 'No more reverse-execution history'"""
        out, R = self.gdb('''
ex("break middle")
ex("continue")
ex("delete")
o = ex("reverse-continue")
R["msg"] = o
R["pc"] = pc()
R["entry"] = val("_start")
o2 = ex("reverse-stepi")
R["msg2"] = o2
R["pc2"] = pc()
''')
        self.assertIn("No more reverse-execution history", R["msg"])
        self.assertEqual(R["pc"], R["entry"])
        self.assertIn("No more reverse-execution history", R["msg2"])
        self.assertEqual(R["pc2"], R["entry"])

    def test_reverse_finish(self):
        """reverse-finish out of leaf lands on the call in middle"""
        L = self.lines
        out, R = self.gdb('''
ex("break %d")
ex("continue")
R["start"] = [func(), line()]
ex("reverse-finish")
R["after"] = [func(), line()]
''' % L["LEAF_ADD"])
        self.assertEqual(R["start"], ["leaf", L["LEAF_ADD"]])
        self.assertEqual(R["after"], ["middle", L["MID_CALL"]])

    def test_reverse_next_over_call(self):
        """reverse-next from the line after a call steps back over the whole call"""
        L = self.lines
        out, R = self.gdb('''
ex("break %d")
ex("continue")
R["start"] = [func(), line(), tid()]
ex("reverse-next")
R["after"] = [func(), line(), tid()]
''' % L["MID_ADD"])
        self.assertEqual(R["start"][:2], ["middle", L["MID_ADD"]])
        self.assertEqual(R["after"], ["middle", L["MID_CALL"], R["start"][2]])

    def test_reverse_step_into_callee(self):
        """reverse-step from the line after a call enters the callee at its last line"""
        L = self.lines
        out, R = self.gdb('''
ex("break %d")
ex("continue")
ex("reverse-step")
R["after"] = [func(), line()]
''' % L["MID_ADD"])
        self.assertEqual(R["after"][0], "leaf")
        self.assertIn(R["after"][1], (L["LEAF_RET"], L["LEAF_ADD"], L["LEAF_RET"] + 1))

    def test_write_watchpoint_both_ways(self):
        """watch a global stored by every lane: forward old/new, then reverse shows them swapped"""
        L = self.lines
        out, R = self.gdb('''
ex("watch total")
pairs = []
lines = []
for i in range(3):
    o = ex("continue")
    m = re.search(r"Old value = (-?\\d+)\\s+New value = (-?\\d+)", o)
    pairs.append([int(m.group(1)), int(m.group(2))] if m else o)
    lines.append(line())
rpairs = []
for i in range(2):
    o = ex("reverse-continue")
    m = re.search(r"Old value = (-?\\d+)\\s+New value = (-?\\d+)", o)
    rpairs.append([int(m.group(1)), int(m.group(2))] if m else o)
R["pairs"] = pairs
R["rpairs"] = rpairs
R["lines"] = lines
R["total"] = val("total")
''')
        pairs, rpairs = R["pairs"], R["rpairs"]
        self.assertTrue(all(isinstance(p, list) for p in pairs), pairs)
        self.assertTrue(all(isinstance(p, list) for p in rpairs), rpairs)
        self.assertEqual(pairs[0][0], 0)
        self.assertEqual(pairs[1][0], pairs[0][1])
        self.assertEqual(pairs[2][0], pairs[1][1])
        for old, new in pairs:
            self.assertEqual(new % 3, 0)              # v = 3 * i + 3 for task i
        self.assertEqual(rpairs[0], [pairs[2][1], pairs[2][0]])
        self.assertEqual(rpairs[1], [pairs[1][1], pairs[1][0]])
        self.assertEqual(R["total"], pairs[1][0])
        # forward, GDB shows the statement after the store (it stepped over it itself)
        self.assertTrue(all(ln in (L["BODY_TOTAL"], L["BODY_TOTAL"] + 1, L["BODY_TOTAL"] + 2) for ln in R["lines"]))

    def test_read_watchpoint(self):
        """rwatch a global read by every lane, forward and reverse"""
        out, R = self.gdb('''
ex("rwatch scale")
o = ex("continue")
R["fwd"] = [o, func()]
o = ex("continue")
R["fwd2"] = [o, func(), tid()]
o = ex("reverse-continue")
R["back"] = [o, func(), tid()]
''')
        for key in ("fwd", "fwd2", "back"):
            self.assertRegex(R[key][0], r"read watchpoint \d+: scale\s+Value = 3")
            self.assertEqual(R[key][1], "leaf")

    def test_end_of_history_and_back(self):
        """continue to the end of history, then reverse-stepi and reverse-continue still work"""
        out, R = self.gdb('''
o = ex("continue")
R["end"] = o
R["when"] = ex("monitor when")
p_end = pc()
o = ex("reverse-stepi")
R["rs"] = o
R["moved"] = ex("monitor when")
o = ex("continue")
R["end2"] = o
o = ex("reverse-continue")
R["begin"] = o
R["when0"] = ex("monitor when")
''')
        self.assertIn("No more reverse-execution history", R["end"])
        self.assertIn("end of history", R["when"])
        self.assertNotIn("end of history", R["moved"])
        self.assertIn("No more reverse-execution history", R["end2"])
        self.assertIn("No more reverse-execution history", R["begin"])
        self.assertRegex(R["when0"], r"event 0 of")

    def test_switch_threads(self):
        """info threads names warps and lanes; each thread shows its own lane's registers"""
        out, R = self.gdb('''
ex("break %d")
ex("continue")
info = ex("info threads")
R["info"] = info
seen = []
for (w, l) in [(0, 0), (0, 3), (2, 1), (3, 2), (1, 1)]:
    ex("vx-thread %%d %%d" %% (w, l))
    seen.append([w, l, tid(), val("$mhartid"), val("$vx_warp_id"), val("$vx_thread_id"), pc()])
R["seen"] = seen
''' % self.lines["BODY_OUT"])
        self.assertRegex(R["info"], r"warp 3 lane 3")
        self.assertRegex(R["info"], r"core 0 warp 1 lane 2, (active|masked off)")
        for w, l, t, hart, wid, lane, p in R["seen"]:
            self.assertEqual(t, 1 + w * 4 + l)
            self.assertEqual(hart, w * 4 + l)
            self.assertEqual((wid, lane), (w, l))


class FaultTests(GdbCase):
    kernel = "rrfault"

    def test_fault_and_reverse(self):
        """a faulting kernel: SIGBUS at the load, reverse-stepi back from it, forward to it again"""
        L = self.lines
        out, R = self.gdb('''
o = ex("continue")
R["sig"] = o
R["at"] = [func(), line(), pc()]
ex("reverse-stepi")
R["back"] = [func(), pc()]
o = ex("continue")
R["again"] = [o, pc()]
o = ex("continue")
R["end"] = o
o = ex("reverse-continue")
R["begin"] = o
''')
        self.assertIn("SIGBUS", R["sig"])
        self.assertEqual(R["at"][:2], ["fetch", L["FAULT"]])
        self.assertNotEqual(R["back"][1], R["at"][2])
        self.assertIn("SIGBUS", R["again"][0])
        self.assertEqual(R["again"][1], R["at"][2])
        self.assertIn("No more reverse-execution history", R["end"])
        self.assertIn("No more reverse-execution history", R["begin"])


class DivergenceTests(unittest.TestCase):
    def test_tampered_trace(self):
        """a trace whose recorded result was changed: replay reports where it diverged"""
        helper = os.path.join(vxtest.BUILD, "tests", "t-engine")
        if not os.path.exists(helper):
            self.skipTest("t-engine not built")
        d = vxtest.tmpdir()
        bad = os.path.join(d, "tampered.vxt")
        r = vxtest.run([helper, "--write-tampered", bad])
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        at = int(re.search(r"event (\d+)", r.stdout).group(1))
        srv = rsplib.Server(bad)
        try:
            c = srv.client()
            c.handshake()
            c.console = []
            reply = c.cmd("vCont;c")
            sig, f = rsplib.parse_stop(reply)
            text = "".join(c.console)
            r2, when = c.monitor("when")
            c.close()
        finally:
            log = srv.stop()
        self.assertIn("replay diverged at event %d:" % at, text)
        self.assertEqual(sig, 6)
        self.assertRegex(when, r"event %d of" % at)
        self.assertIn("replay diverged at event %d:" % at, log)


if __name__ == "__main__":
    prerequisites()
    vxtest.main(ReverseTests, FaultTests, DivergenceTests)
