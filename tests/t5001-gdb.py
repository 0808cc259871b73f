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
import struct
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
import vxtest  # noqa: E402

_spec = importlib.util.spec_from_file_location("t5000", os.path.join(os.path.dirname(__file__), "t5000-rsp.py"))
rsplib = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rsplib)

HERE = os.path.dirname(os.path.abspath(__file__))
# GDB's words at either end of the history: GDB 13's, and (GDB 16, Debian trixie) newer ones'
END_OF_HISTORY = r"No more reverse-execution history|Reached end of recorded history"

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
STOPS = []
def _on_stop(ev):
    d = {"thread": tid(), "pc": pc()}
    if isinstance(ev, gdb.SignalEvent):
        d["sig"] = ev.stop_signal
    if isinstance(ev, gdb.BreakpointEvent):
        d["bps"] = [b.number for b in ev.breakpoints]
    STOPS.append(d)
gdb.events.stop.connect(_on_stop)
def stop_at(loc):
    """continue to a breakpoint at loc, then delete the breakpoints"""
    ex("break " + loc)
    st = go("continue")
    ex("delete")
    return st
def go(c):
    """A command that resumes: its stop ({} if none); what it prints is left in
    stdout after an '@@CMD c' line, for the test to read."""
    n = len(STOPS)
    print("@@CMD " + c, flush=True)
    gdb.execute(c)
    print("@@END", flush=True)
    st = dict(STOPS[-1]) if len(STOPS) > n else {}
    st["when"] = ex("monitor when")
    return st
'''


def segments(out):
    """(command, printed text) for every go() of a session, in order."""
    segs = []
    for m in re.finditer(r"@@CMD ([^\n]*)\n(.*?)@@END", out, re.S):
        segs.append((m.group(1), m.group(2)))
    return segs


def markers(path):
    """Line numbers of the /* MARKER */ comments of a kernel source."""
    lines = {}
    with open(path) as f:
        for n, text in enumerate(f, 1):
            m = re.search(r"/\* ([A-Z_]+) \*/", text)
            if m:
                lines[m.group(1)] = n
    return lines


def build_kernel(name, opt="-O0"):
    src = os.path.join(HERE, "kernels", name + ".c")
    out = os.path.join(vxtest.tmpdir(), name + ".elf")
    r = vxtest.run([vxtest.prog("vxcc"), opt, "-g", "-o", out, src])
    if r.returncode != 0:
        raise RuntimeError("vxcc failed: " + r.stderr)
    return src, out


def prerequisites():
    rsplib.prerequisites()
    if not shutil.which("gdb-multiarch"):
        vxtest.skip_all("gdb-multiarch not installed")
    if not os.path.exists(vxtest.prog("vxcc")) or not shutil.which("riscv64-unknown-elf-gcc"):
        vxtest.skip_all("vxcc or the RISC-V toolchain missing")


# where(): [line, position (monitor when: issues executed), the warp that issues next]:
# two stops of a warp in the same state differ only in the position when other warps
# issue in between
POS = r'''
def where():
    m = re.search(r"event (\d+) of .*\(gwarp (\d+),", ex("monitor when"))
    return [line(), int(m.group(1)), int(m.group(2))]
'''


class GdbCase(unittest.TestCase):
    kernel = "rrtest"
    opt = "-O0"
    rec_args = ()
    srv_args = ()

    @classmethod
    def setUpClass(cls):
        cls.src, cls.elf = build_kernel(cls.kernel, cls.opt)
        cls.lines = markers(cls.src)
        cls.trace = rsplib.record(cls.elf, *cls.rec_args)
        cls.srv = rsplib.Server(cls.trace, *cls.srv_args)

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

    def test_info_registers_names_every_register_cleanly(self):
        """'info registers NAME' prints NAME, blanks, then the value, for every register
        of the target description: GDB 13 pads names to column 15 and has no room for a
        longer one (a 15-character name ran into its value, a longer one was followed
        by bytes GDB read past its padding, different from run to run)"""
        out, R = self.gdb('''
ex("break leaf")
ex("continue")
bad = []
for reg in gdb.selected_frame().architecture().registers():
    t = ex("info registers " + reg.name)
    if not re.match(re.escape(reg.name) + r"[ \\t]+\\S", t):
        bad.append(t)
R["n"] = len(list(gdb.selected_frame().architecture().registers()))
R["bad"] = bad
''')
        self.assertGreater(R["n"], 70)
        self.assertEqual(R["bad"], [])

    def test_reverse_continue_breakpoint_many_warps(self):
        """reverse-continue walks a breakpoint's hits backward, in the right threads, mirroring forward"""
        out, R = self.gdb('''
ex("break leaf")
fwd = []
while True:
    st = go("continue")
    if "bps" not in st:
        break
    w, l = warp_lane()
    fwd.append([w, l, val("x"), pc(), st["thread"] == tid()])
back = []
while True:
    st = go("reverse-continue")
    if "bps" not in st:
        break
    w, l = warp_lane()
    back.append([w, l, val("x"), pc(), st["thread"] == tid()])
R["fwd"] = fwd
R["back"] = back
''')
        fwd, back = R["fwd"], R["back"]
        # 32 tasks on 16 lanes: each of the 4 warps enters leaf twice
        self.assertEqual(len(fwd), 8, fwd)
        self.assertEqual(back, list(reversed(fwd)))
        self.assertEqual(len({h[3] for h in fwd}), 1)          # always at the breakpoint
        self.assertEqual(len({h[0] for h in fwd}), 4)          # hit by every warp
        self.assertEqual(len({h[2] for h in fwd}), 8)          # a different task each time
        self.assertTrue(all(h[4] for h in fwd + back))         # the stop event named the thread
        segs = segments(out)
        self.assertRegex(segs[-1][1], END_OF_HISTORY)
        self.assertRegex(segs[len(fwd)][1], END_OF_HISTORY)

    def test_continue_reports_the_selected_lane(self):
        """continue and reverse-continue from a breakpoint stop with another lane selected
        (vx-thread) report the breakpoint's next hit in the selected lane, which takes part
        there (README, GDB view); they reported the lane of the thread GDB stepped over
        the breakpoint first, the last stop's (vxrr.gdb's hooks now tell the server)"""
        out, R = self.gdb('''
ex("break leaf")
go("continue")
w, l = warp_lane()
R["first"] = [w, l]
ex("vx-thread %d %d" % (w, (l + 3) % NT))
st = go("continue")
R["second"] = [warp_lane(), st.get("bps"), st["thread"] == tid()]
w2, l2 = warp_lane()
ex("vx-thread %d %d" % (w2, (l + 1) % NT))
st = go("reverse-continue")
R["back"] = [warp_lane(), st.get("bps"), st["thread"] == tid()]
''')
        w, l = R["first"]
        (w2, l2), bps, named = R["second"]
        self.assertEqual((l2, bps, named), ((l + 3) % 4, [1], True), R)
        (w3, l3), bps, named = R["back"]
        self.assertEqual(([w3, l3], bps, named), ([w, (l + 1) % 4], [1], True), R)

    def test_reverse_continue_after_until_keeps_other_warps_hits(self):
        """after a scheduler-locked `until` that stops at a breakpoint, GDB steps an
        earlier stop's thread (whose pc it believes still at a breakpoint) over that
        breakpoint before reverse-continue: the continue searches from where that step
        began, so the hits just before the until's stop are not skipped (it stopped at
        an older hit of another warp)"""
        L = self.lines
        out, R = self.gdb('''
ex("break middle")
go("continue")
ex("break rrtest.c:%d")
go("reverse-continue")
ex("vx-thread 2 1")
st = go("until")
R["until"] = [st.get("bps"), st["when"]]
st = go("reverse-continue")
R["back"] = [st.get("bps"), warp_lane()[0], st["when"]]
R["bp_pcs"] = [int(re.search(r"0x([0-9a-f]+)", ln).group(1), 16)
               for ln in ex("info breakpoints").splitlines() if re.match(r"^\\d+\\s+breakpoint", ln)]
''' % L["BODY_CALL"])
        at = lambda w: int(re.search(r"event (\d+) of", w).group(1))
        bps, when = R["until"]
        self.assertTrue(bps, "until stopped at a breakpoint: %s" % R)
        u = at(when)
        # from the trace (vxdump): the last issue before u at either breakpoint's pc
        r = vxtest.run([vxtest.prog("vxdump"), "--json", "--kind", "issue", self.trace])
        hits = [(e["index"], e["gwarp"]) for e in map(json.loads, r.stdout.splitlines())
                if e["pc"] in R["bp_pcs"] and e["index"] < u]
        bps, w, when = R["back"]
        self.assertTrue(bps, out[-2000:])
        self.assertEqual((at(when), w), hits[-1])

    def test_start_of_history(self):
        """reverse-continue without breakpoints stops at the start: 'No more reverse-execution history'"""
        out, R = self.gdb('''
stop_at("middle")
go("reverse-continue")
R["pc"] = pc()
R["entry"] = val("(unsigned)&_start")
go("reverse-stepi")
R["pc2"] = pc()
R["when"] = ex("monitor when")
''')
        segs = segments(out)
        self.assertRegex(segs[1][1], END_OF_HISTORY)
        self.assertEqual(R["pc"], R["entry"])
        self.assertRegex(segs[2][1], END_OF_HISTORY)
        self.assertEqual(R["pc2"], R["entry"])
        self.assertRegex(R["when"], r"event 0 of")

    def test_bare_line_after_connecting_is_the_kernels(self):
        """right after connecting (a stop at _start, in the runtime's crt0.S) `break N`
        names line N of main's file, the kernel's, as before connecting; it named
        crt0.S's, and the continue ran to the end of history"""
        out, R = self.gdb('''
R["bp"] = ex("break LINE")
st = go("continue")
R["stop"] = [st.get("bps"), line(), func()]
'''.replace("LINE", str(self.lines["LEAF_ADD"])))
        self.assertIn("rrtest.c, line %d." % self.lines["LEAF_ADD"], R["bp"])
        self.assertEqual(R["stop"], [[1], self.lines["LEAF_ADD"], "leaf"])

    def test_reverse_stepi_at_a_warps_first_instruction_says_why(self):
        """reverse-stepi in a warp at its first instruction (mid-trace: it was spawned
        there) stays, and the console says the lane has no instruction before this
        event; GDB said only "No more reverse-execution history" (GDB 16: "Reached end of
        recorded history"), as at the start"""
        first = json.loads(vxtest.run([vxtest.prog("vxdump"), "--json", "--kind", "issue",
                                       "--warp", "1", self.trace]).stdout.splitlines()[0])
        n = first["index"]
        out, R = self.gdb('''
go("vx-seek %d")
ex("vx-thread 1 0")
go("reverse-stepi")
R["when"] = ex("monitor when")
''' % n)
        self.assertRegex(R["when"], r"^event %d of" % n)
        seg = dict(segments(out))["reverse-stepi"]
        self.assertRegex(seg, END_OF_HISTORY)  # GDB 16: "Reached end of recorded history"
        self.assertIn("vxreplay: no more reverse-execution history: lane 0 of warp 1 has no "
                      "instruction before event %d" % n, out)

    def test_finish_of_a_parked_lane_is_refused_in_plain_words(self):
        """finish and reverse-finish in a lane with no position (parked at the start,
        pc 0) are refused with vxrr.gdb's message, which is what GDB's error (an IDE's
        ^error) says; it said "Error while executing Python code." after a traceback"""
        out, R = self.gdb('''
ex("vx-thread 0 1")
R["pc"] = pc()
R["errors"] = []
for cmd in ("finish", "reverse-finish"):
    try:
        ex(cmd)
        R["errors"].append(None)
    except gdb.error as e:
        R["errors"].append(str(e))
R["when"] = ex("monitor when")
''')
        self.assertEqual(R["pc"], 0)
        for cmd, err in zip(("finish", "reverse-finish"), R["errors"]):
            self.assertEqual(err, "%s: this lane is parked (pc 0): it has no frame of its own; "
                             "select an active lane (vx-lane)" % cmd)
        self.assertNotIn("Traceback", out)
        self.assertRegex(R["when"], r"^event 0 of")

    @staticmethod
    def product_loop_line():
        """The line of the loop in the runtime's product(dim, v, out)."""
        with open(os.path.join(HERE, "..", "kernel", "src", "vx_spawn.c")) as f:
            text = f.read().split("\n")
        start = next(i for i, t in enumerate(text) if t.startswith("static uint32_t product("))
        return next(i for i in range(start, len(text)) if text[i].lstrip().startswith("for ")) + 1

    def test_watch_on_a_global_survives_a_seek_into_a_frame_that_shadows_it(self):
        """watch out[3] (rrtest's global), then vx-seek to a position in the runtime's
        product(), whose parameter is also called out: the continue still stops at the
        global's next write (vxdump --addr), with its old and new value.  vxrr.gdb's
        re-arm after a jump enabled the watchpoint again in product's frame, where GDB
        parsed out[3] as the parameter's; every resume then failed ("No frame is
        currently executing in specified block", MI: ^running with no *stopped)"""
        out, R = self.gdb('''
ex("watch out[3]")
R["addr"] = val("(unsigned)&out[3]")
ex("break vx_spawn.c:LOOP")  # in product(), where its parameter out is live
go("continue")
ex("delete 2")
R["local"] = val("(unsigned)&out[3]")
n = int(re.search(r"event (\\d+) of", ex("monitor when")).group(1))
go("vx-seek 0")
go("vx-seek %d" % n)  # a jump in time to there: vxrr.gdb re-arms the watchpoint
R["n"] = n
R["func"] = func()
st = go("continue")
R["stop"] = [st.get("bps"), int(re.search(r"event (\\d+) of", st["when"]).group(1))]
R["val"] = val("out[3]")
'''.replace("LOOP", str(self.product_loop_line())))
        self.assertEqual(R["func"], "product")
        self.assertNotEqual(R["local"], R["addr"], "product's out shadows the global there")
        writes = [json.loads(line) for line in vxtest.run(
            [vxtest.prog("vxdump"), "--json", "--kind", "issue", "--addr", "0x%x:4" % R["addr"],
             self.trace]).stdout.splitlines()]
        after = [w for w in writes if w["index"] >= R["n"]]
        self.assertTrue(after)
        # the first write that changes the word stops the continue, right after it
        self.assertEqual(R["stop"][0], [1], out[-2000:])
        self.assertIn(R["stop"][1] - 1, [w["index"] for w in after])
        self.assertIn("New value = %d" % R["val"], out)
        self.assertNotIn("No frame is currently executing", out)

    def test_reverse_finish(self):
        """reverse-finish out of leaf lands on the call in middle, in the same thread"""
        L = self.lines
        out, R = self.gdb('''
ex("break rrtest.c:%d")
go("continue")
R["start"] = [func(), line(), tid()]
go("reverse-finish")
R["after"] = [func(), line(), tid()]
''' % L["LEAF_ADD"])
        self.assertEqual(R["start"][:2], ["leaf", L["LEAF_ADD"]])
        self.assertEqual(R["after"], ["middle", L["MID_CALL"], R["start"][2]])

    def test_batch_script_of_until_and_advance_exits_cleanly(self):
        """a plain command file of until/advance (vxrr.gdb locks the scheduler for them)
        ends with gdb's exit status 0: GDB 13 could crash at exit (signal 11) once
        vxrr.gdb had posted an event, which it now does only under MI"""
        L = self.lines
        d = vxtest.tmpdir()
        script = os.path.join(d, "cmds.gdb")
        with open(script, "w") as f:
            f.write("break rrtest.c:%d\ncontinue\ndelete\n" % L["MID_CALL"])
            f.write(("until %d\nadvance leaf\n" % (L["MID_CALL"] + 1)) * 3)
            f.write("monitor seek 999999999\n")
            f.write(("until %d\nadvance leaf\n" % (L["MID_CALL"] + 1)) * 3)
        cmd = ["gdb-multiarch", "-nx", "-batch", "-x", vxtest.prog("vxrr.gdb"),
               "-ex", "target remote :%d" % self.srv.port, "-x", script, self.elf]
        for _ in range(3):   # the crash came in most runs, not all
            r = vxtest.run(cmd, timeout=300)
            out = r.stdout + r.stderr
            self.assertNotIn("Fatal signal", out)
            self.assertEqual(r.returncode, 0, out[-3000:])
            self.assertIn("leaf (", out)   # advance got there

    def test_ack_mode_session(self):
        """GDB with acknowledgements kept (set remote noack-packet off): replies of several
        packets (monitor output, then OK) go one after the other's '+', and the session
        ends without "Remote communication error" (vxreplay --stdio took GDB's '+' for
        its last OK before exiting; it closed the pipe under that write)"""
        L = self.lines
        cmd = ["gdb-multiarch", "-nx", "-batch", "-ex", "set remote noack-packet off",
               "-x", vxtest.prog("vxrr.gdb"),
               "-ex", "target remote | %s --stdio %s" % (vxtest.prog("vxreplay"), self.trace),
               "-ex", "monitor when", "-ex", "break rrtest.c:%d" % L["MID_CALL"],
               "-ex", "continue", "-ex", "stepi", "-ex", "reverse-stepi", "-ex", "monitor when",
               self.elf]
        for _ in range(4):   # the close raced GDB's write: not in every run
            r = vxtest.run(cmd, timeout=120)
            out = r.stdout + r.stderr
            self.assertIn("event 0 of", out)
            self.assertIn("Breakpoint 1, ", out)
            self.assertEqual(len(re.findall(r"^event \d+ of \d+", out, re.M)), 2, out[-2000:])
            self.assertNotIn("Remote communication error", out)
            self.assertEqual(r.returncode, 0, out[-2000:])

    def test_reverse_next_over_call(self):
        """reverse-next from the line after a call steps back over the whole call"""
        L = self.lines
        out, R = self.gdb('''
ex("break rrtest.c:%d")
go("continue")
R["start"] = [func(), line(), tid()]
go("reverse-next")
R["after"] = [func(), line(), tid()]
go("reverse-next")
R["after2"] = [func(), line(), tid()]
''' % L["MID_ADD"])
        self.assertEqual(R["start"][:2], ["middle", L["MID_ADD"]])
        self.assertEqual(R["after"], ["middle", L["MID_CALL"], R["start"][2]])
        # from the first line of middle, reverse-next returns to the caller's call
        self.assertIn(R["after2"][:2], (["middle", L["MID_CALL"] - 1], ["body", L["BODY_CALL"]]))

    def test_reverse_next_retraces_next(self):
        """reverse-next undoes next line by line, to the first instruction of each line
        (LEAF_MUL's expression and assignment are one row of the line table: vxcc drops
        column numbers, with which GDB 13 stopped at each row)"""
        L = self.lines
        out, R = self.gdb('''
ex("break leaf")
go("continue")
ex("delete")
R["fwd"] = [[line(), pc()]]
for i in range(2):
    go("next")
    R["fwd"].append([line(), pc()])
R["back"] = []
for i in range(2):
    go("reverse-next")
    R["back"].append([line(), pc()])
''')
        self.assertEqual([f[0] for f in R["fwd"]], [L["LEAF_MUL"], L["LEAF_ADD"], L["LEAF_RET"]])
        self.assertEqual(R["back"], R["fwd"][-2::-1])

    def test_reverse_next_returns_to_where_next_began(self):
        """next, next over a call (GDB runs it to a breakpoint of its own), then
        reverse-next twice: back at the very positions the nexts began (monitor when
        counts issues: the other warps' issues as they were), in the same thread; and
        next again retraces them.  Before, the reverse-next over the call stopped just
        before the warp's first instruction of the line, 3 other warps' issues later."""
        L = self.lines
        out, R = self.gdb(POS + '''
stop_at("rrtest.c:%d")
t0 = tid()
R["fwd"] = [where()]
for i in range(2):
    go("next")
    R["fwd"].append(where())
R["back"] = []
for i in range(2):
    go("reverse-next")
    R["back"].append(where())
for i in range(2):
    go("next")
    R["back"].append(where())
R["same"] = tid() == t0
R["warp"] = warp_lane()[0]
''' % L["BODY_I"])
        fwd = R["fwd"]
        self.assertEqual([f[0] for f in fwd], [L["BODY_I"], L["BODY_CALL"], L["BODY_OUT"]])
        # where the first next ends, another warp issues next: a stop just before the
        # warp's own next issue would be later (else the test proves nothing)
        self.assertNotEqual(fwd[1][2], R["warp"])
        self.assertEqual(R["back"], [fwd[1], fwd[0], fwd[1], fwd[2]])
        self.assertTrue(R["same"])

    def test_range_stepping_ends_where_single_steps_do(self):
        """GDB range-steps a line (vCont;r, offered since vxreplay answers vCont? with r):
        step and next end at the very positions they end at with range stepping off, in
        fewer packets (each line's instructions in one, where GDB sent a step each)"""
        L = self.lines
        runs = {}
        for mode in ("off", "on"):
            out, R = self.gdb(POS + '''
ex("set range-stepping %s")
stop_at("rrtest.c:%d")
p0 = int(re.search(r"packets (\\d+)", ex("monitor stats")).group(1))
R["path"] = [where()]
for c in ("next", "step", "next", "next", "finish", "next"):
    go(c)
    R["path"].append(where())
R["packets"] = int(re.search(r"packets (\\d+)", ex("monitor stats")).group(1)) - p0
''' % (mode, L["BODY_I"]))
            runs[mode] = R
        self.assertEqual(runs["on"]["path"], runs["off"]["path"])
        self.assertEqual([p[0] for p in runs["on"]["path"][:3]],
                         [L["BODY_I"], L["BODY_CALL"], L["MID_CALL"]])
        self.assertLess(runs["on"]["packets"], runs["off"]["packets"])

    def test_next_returns_to_where_reverse_next_began(self):
        """from a breakpoint stop, reverse-next then next: back at the breakpoint's
        position exactly (before, next stopped just after the warp's last instruction
        of the line before, short of it by the other warps' issues)"""
        L = self.lines
        out, R = self.gdb(POS + '''
stop_at("rrtest.c:%d")
R["path"] = [where()]
for c in ("reverse-next", "next"):
    go(c)
    R["path"].append(where())
R["warp"] = warp_lane()[0]
ex("monitor seek %%d" %% (R["path"][0][1] - 1))
R["before"] = where()
''' % L["MID_RET"])
        p = R["path"]
        # the issue before the breakpoint's is another warp's: a stop just after the
        # warp's own last issue would be earlier (else the test proves nothing)
        self.assertNotEqual(R["before"][2], R["warp"])
        self.assertEqual([x[0] for x in p], [L["MID_RET"], L["MID_ADD"], L["MID_RET"]])
        self.assertEqual(p[2], p[0])

    def test_vx_warps_marks_the_selected_warp(self):
        """vx-warps marks the warp of the thread GDB shows (after vx-thread), not that of
        the last stop"""
        out, R = self.gdb('''
stop_at("leaf")
R["stop"] = warp_lane()[0]
R["sel"] = (R["stop"] + 1) % 4
ex("vx-thread %d 0" % R["sel"])
R["warps"] = ex("vx-warps")
''')
        cur = [ln.split()[0] for ln in R["warps"].splitlines() if "<- current" in ln]
        self.assertEqual(cur, [str(R["sel"])], R["warps"])
        self.assertNotEqual(R["sel"], R["stop"])

    def test_lane_commands_print_the_frame_once_and_bad_moves_fail(self):
        """vx-thread prints the frame it selects once (GDB prints it on the switch; it
        was printed twice); vx-restart of a checkpoint that does not exist and vx-seek
        of no index fail as other commands do (a script stops there, an IDE gets
        ^error), with no stop shown and nothing moved (they printed the server's
        complaint, then showed a stop as if they had moved)"""
        out, R = self.gdb('''
stop_at("leaf")
w = warp_lane()[0]
R["sel"] = (w + 1) % 4
go("vx-thread %d 1" % R["sel"])
R["when"] = ex("monitor when")
R["errs"] = []
for c in ("vx-restart 7", "vx-seek -5", "vx-seek abc"):
    n = len(STOPS)
    try:
        ex(c)
        R["errs"].append([c, "accepted"])
    except gdb.error as e:
        R["errs"].append([c, str(e)])
    R["errs"][-1].append(len(STOPS) - n)
R["after"] = ex("monitor when")
''')
        seg = dict(segments(out))["vx-thread %d 1" % R["sel"]]
        self.assertEqual(len(re.findall(r"^#0 ", seg, re.M)), 1, seg)
        self.assertEqual(R["errs"], [
            ["vx-restart 7", "no checkpoint 7 (vx-checkpoint makes one)", 0],
            ["vx-seek -5", "usage: vx-seek N (an event index)", 0],
            ["vx-seek abc", "usage: vx-seek N (an event index)", 0]])
        self.assertEqual(R["after"], R["when"])

    def test_until_from_another_lane_after_a_seek(self):
        """vx-seek shows GDB a stop by a stepi of the selected thread (warp 0 lane 0),
        and GDB keeps that stepi's state in it while it resumes other threads only:
        `until LINE` from lane 3 of that warp (vxrr.gdb locks the scheduler for it),
        which never runs main, stopped where lane 0 reached LINE, as the end of that
        stepi.  It runs to the end of history, as without the seek."""
        L = self.lines
        out, R = self.gdb('''
ex("vx-seek 5")
ex("vx-thread 0 3")
go("until rrtest.c:%d")
R["when"] = ex("monitor when")
''' % L["MAIN_SPAWN"])
        self.assertIn("end of history", R["when"])

    def test_reverse_step_into_callee(self):
        """reverse-step from the line after a call enters the callee at its last line"""
        L = self.lines
        out, R = self.gdb('''
ex("break rrtest.c:%d")
go("continue")
t0 = tid()
go("reverse-step")
R["after"] = [func(), line(), tid() == t0]
go("reverse-step")
R["after2"] = [func(), line()]
''' % L["MID_ADD"])
        self.assertEqual(R["after"][0], "leaf")
        self.assertTrue(R["after"][2])
        self.assertIn(R["after"][1], (L["LEAF_RET"], L["LEAF_RET"] + 1))
        self.assertEqual(R["after2"][0], "leaf")
        self.assertLess(R["after2"][1], R["after"][1])

    def test_write_watchpoint_both_ways(self):
        """watch a global stored by every lane: forward old/new, then reverse shows them swapped"""
        L = self.lines
        out, R = self.gdb('''
ex("watch total")
vals = [val("total")]
lines = []
mine = []
for i in range(3):
    go("continue")
    vals.append(val("total"))
    lines.append(line())
    mine.append(val("v"))
R["mine"] = mine
rvals = []
for i in range(2):
    go("reverse-continue")
    rvals.append(val("total"))
R["vals"] = vals
R["rvals"] = rvals
R["lines"] = lines
''')
        pairs = []
        for cmd, text in segments(out):
            m = re.search(r"Old value = (-?\d+)\s+New value = (-?\d+)", text)
            self.assertTrue(m, "no old/new values after %s:\n%s" % (cmd, text))
            pairs.append((cmd, int(m.group(1)), int(m.group(2))))
        vals, rvals = R["vals"], R["rvals"]
        self.assertEqual(vals[0], 0)
        for i in range(3):       # forward: old = before, new = after, new is 3 * task + 3
            self.assertEqual(pairs[i], ("continue", vals[i], vals[i + 1]))
            self.assertEqual(vals[i + 1] % 3, 0)
            self.assertNotEqual(vals[i], vals[i + 1])
        # backward: each reverse-continue undoes one store, GDB shows it swapped
        self.assertEqual(pairs[3], ("reverse-continue", vals[3], vals[2]))
        self.assertEqual(pairs[4], ("reverse-continue", vals[2], vals[1]))
        self.assertEqual(rvals, [vals[2], vals[1]])
        # all lanes store; the reported lane is the one whose value landed
        self.assertEqual(R["mine"], vals[1:])
        for ln in R["lines"]:     # GDB stepped over the store itself: the next statement
            self.assertIn(ln, (L["BODY_TOTAL"], L["BODY_TOTAL"] + 1))

    def test_watch_after_breakpoint_stop(self):
        """a watchpoint on what the instruction of a breakpoint stop writes fires on the next
        stepi and on the next continue (GDB steps over the breakpoint: a watch stop then)"""
        out, R = self.gdb('''
m = re.search(r"starts at address (0x[0-9a-f]+).*? and ends at (0x[0-9a-f]+)",
              ex("info line rrtest.c:LINE"), re.S)
lo, hi = int(m.group(1), 16), int(m.group(2), 16)
arch = gdb.selected_frame().architecture()
st = [i["addr"] for i in arch.disassemble(lo, hi - 4) if i["asm"].split()[0] == "sw"]
R["store"] = st[0]
for c in ("stepi", "continue"):
    ex("delete")
    ex("monitor seek 0")
    ex("maint flush register-cache")
    ex("break *%d" % st[0])
    go("continue")
    R[c + "_at"] = pc()
    R[c + "_old"] = val("total")
    ex("watch total")
    R[c + "_stop"] = go(c)
    R[c + "_new"] = val("total")
    R[c + "_pc"] = pc()
'''.replace("LINE", str(self.lines["BODY_TOTAL"])))
        segs = segments(out)
        self.assertEqual([c for c, _ in segs], ["continue", "stepi", "continue", "continue"], out[-2000:])
        for k, c in ((1, "stepi"), (3, "continue")):
            self.assertEqual(R[c + "_at"], R["store"], "the breakpoint stops at the store")
            text = segs[k][1]
            m = re.search(r"Old value = (-?\d+)\s+New value = (-?\d+)", text)
            self.assertTrue(m, "%s after the breakpoint reports no watchpoint:\n%s" % (c, text))
            self.assertEqual((int(m.group(1)), int(m.group(2))), (R[c + "_old"], R[c + "_new"]))
            self.assertNotEqual(R[c + "_old"], R[c + "_new"])
            self.assertEqual(R[c + "_new"] % 3, 0, "a value some task stores (3 * task + 3)")
            self.assertEqual(R[c + "_pc"], R["store"] + 4, "stopped right after the store")

    def test_read_watchpoint(self):
        """rwatch a global read by every lane, forward and reverse"""
        out, R = self.gdb('''
ex("rwatch scale")
st = go("continue")
R["f1"] = [func(), st.get("thread")]
st = go("continue")
R["f2"] = [func(), st.get("thread")]
st = go("reverse-continue")
R["b1"] = [func(), st.get("thread")]
''')
        segs = segments(out)
        for cmd, text in segs:
            self.assertRegex(text, r"[Rr]ead watchpoint \d+: scale\s+Value = 3", cmd)
        for key in ("f1", "f2", "b1"):
            self.assertEqual(R[key][0], "leaf")
        self.assertEqual(R["b1"][1], R["f2"][1])   # the last read is the first one undone

    def test_end_of_history_and_back(self):
        """continue to the end of history, then reverse-stepi and reverse-continue still work"""
        out, R = self.gdb('''
st = go("continue")
R["when"] = st["when"]
st = go("reverse-stepi")
R["moved"] = st["when"]
st = go("continue")
R["when2"] = st["when"]
st = go("reverse-continue")
R["when0"] = st["when"]
''')
        segs = segments(out)
        self.assertRegex(segs[0][1], END_OF_HISTORY)
        self.assertIn("end of history", R["when"])
        self.assertNotIn("end of history", R["moved"])
        self.assertRegex(segs[2][1], END_OF_HISTORY)
        self.assertIn("end of history", R["when2"])
        self.assertRegex(segs[3][1], END_OF_HISTORY)
        self.assertRegex(R["when0"], r"event 0 of")

    def test_finish_in_other_lane(self):
        """finish from a lane other than the one that stopped returns in that lane, with its value"""
        L = self.lines
        out, R = self.gdb('''
stop_at("leaf")
w, l = warp_lane()
ex("vx-thread %d %d" % (w, (l + 1) % NT))
t0 = tid()
R["x"] = val("x")
st = go("finish")
R["after"] = [func(), line(), st.get("thread") == t0, tid() == t0]
R["r"] = val("$a0")
''')
        segs = segments(out)
        self.assertEqual(R["after"], ["middle", L["MID_CALL"], True, True])
        self.assertEqual(R["r"], 3 * R["x"] + 1)
        self.assertIn("Value returned is $1 = %d" % (3 * R["x"] + 1), segs[1][1])

    def test_seek_keeps_selected_thread(self):
        """vx-seek to where another warp issues next: the stopped thread (GDB's first) shows its own warp"""
        out, R = self.gdb('''
ex("break leaf")
st = go("continue")
while tid() != 1:
    st = go("continue")
ex("delete")
now = int(re.search(r"event (\\d+)", st["when"]).group(1))
def warp_pcs():
    return {int(m.group(1)): int(m.group(2), 16)
            for m in re.finditer(r"^(\\d+)\\s+\\d+\\s+\\d+\\s+0x([0-9a-f]+)", ex("monitor warps"), re.M)}
for m in range(1, 400):
    wh = ex("vx-seek %d" % (now + m))
    g = int(re.search(r"gwarp (\\d+)", wh).group(1))
    pcs = warp_pcs()
    if g != 0 and pcs[g] != pcs[0]:
        break
R["g"] = g
R["t"] = tid()
R["pcs"] = [pc(), pcs[0]]
''')
        self.assertNotEqual(R["g"], 0)                   # another warp issues next there
        self.assertEqual(R["t"], 1)
        self.assertEqual(R["pcs"][0], R["pcs"][1])       # warp 0's pc, as monitor warps says

    def test_monitor_seek_refreshes_gdb(self):
        """a bare `monitor seek`/`monitor restart` (not vx-seek): GDB then shows the new
        position's registers, not the ones it had cached before the jump"""
        out, R = self.gdb('''
ex("break leaf")
go("continue")
ex("delete")
ex("monitor checkpoint")
me = tid()
R["leaf"] = [pc(), val("$sp")]
ex("monitor seek 0")
R["start"] = [pc(), val("$sp"), tid()]
ex("monitor restart 1")
threads()[me].switch()
R["back"] = [pc(), val("$sp")]
''')
        self.assertEqual(R["start"], [0x80000000, 0, 1])   # reset: warp 0 lane 0, sp 0
        self.assertNotEqual(R["leaf"][0], 0x80000000)
        self.assertEqual(R["back"], R["leaf"])

    def test_before_warp_exists(self):
        """vx-seek, then reverse-continue, to before the selected thread's warp was spawned: a live thread"""
        out, R = self.gdb('''
def in_spawned_warp():
    ex("break leaf")
    while warp_lane()[0] == 0:
        go("continue")
    ex("delete")
    return warp_lane()[0]
def live():
    return gdb.selected_thread().is_valid() and not gdb.selected_thread().is_exited()
R["w"] = in_spawned_warp()
ex("vx-seek 1")
R["seek"] = [live(), warp_lane()[0]]
st = go("stepi")
R["when"] = st["when"]
R["w2"] = in_spawned_warp()
st = go("reverse-continue")
R["back"] = [live(), warp_lane()[0], st.get("thread") == tid()]
R["when2"] = st["when"]
''')
        self.assertNotEqual(R["w"], 0)
        self.assertEqual(R["seek"], [True, 0])           # only warp 0 runs at event 1
        self.assertRegex(R["when"], r"event 2 of")
        self.assertNotEqual(R["w2"], 0)
        self.assertRegex(segments(out)[-1][1], END_OF_HISTORY)
        self.assertEqual(R["back"], [True, 0, True])
        self.assertRegex(R["when2"], r"event 0 of")

    def test_lane_condition_both_ways(self):
        """break leaf if x == 13: the server evaluates it per lane, stops once in that lane, and back"""
        out, R = self.gdb('''
ex("break leaf if x == 13")
R["info"] = ex("info breakpoints")
st = go("continue")
R["hit"] = [val("x"), func(), st.get("thread") == tid(), warp_lane()]
st = go("continue")
R["after"] = "bps" in st
st = go("reverse-continue")
R["back"] = [val("x"), func(), warp_lane()]
ex("delete")
ex("break leaf if $vx_thread_id == 3 && x > 20")
st = go("reverse-continue")
R["tid3"] = [val("x"), val("$vx_thread_id"), func()]
''')
        self.assertIn("target", R["info"])                  # condition-evaluation target
        x, fn, same, wl = R["hit"]
        self.assertEqual((x, fn, same), (13, "leaf", True))
        self.assertNotEqual(wl[1], 0)                       # not the first lane of its warp
        self.assertFalse(R["after"])                        # no other task has x == 13
        self.assertRegex(segments(out)[1][1], END_OF_HISTORY)
        self.assertEqual(R["back"], [13, "leaf", wl])
        x3, lane3, fn3 = R["tid3"]
        self.assertEqual((lane3, fn3), (3, "leaf"))
        self.assertGreater(x3, 20)

    def test_condition_through_pointer_cast(self):
        """a condition reading memory through a register cast to a pointer (GDB sign-extends it)"""
        out, R = self.gdb('''
stop_at("leaf")
off = int(gdb.parse_and_eval("(char *)&x - (char *)$sp"))
ex("break leaf if *(int *)((int)$sp + %d) == 13" % off)
R["info"] = ex("info breakpoints")
st = go("continue")
R["hit"] = [val("x"), func(), st.get("thread") == tid()]
''')
        self.assertIn("target", R["info"])                  # the server evaluates it
        self.assertEqual(R["hit"], [13, "leaf", True])

    def test_thread_breakpoint_other_warps(self):
        """break ... thread N from a lane other than the first: stops in that thread, both ways"""
        out, R = self.gdb('''
stop_at("leaf if x == 10")
t0 = tid()
R["start"] = [val("x"), warp_lane()]
ex("break leaf thread %d" % gdb.selected_thread().num)
st = go("continue")
R["fwd"] = [val("x"), func(), tid() == t0, st.get("thread") == t0]
st = go("reverse-continue")
R["back"] = [val("x"), func(), tid() == t0]
''')
        # 32 tasks on 4 warps of 4 lanes: warp w runs tasks 8w + l, then 8w + 4 + l, in lane l
        self.assertEqual(R["start"], [10, [1, 2]])
        self.assertEqual(R["fwd"], [14, "leaf", True, True])
        self.assertEqual(R["back"], [10, "leaf", True])

    def test_thread_breakpoint_beside_the_selected_lane(self):
        """break ... thread N while another lane of N's warp is selected: the warp reaches
        it in both lanes, and the stop is N's (vxrr.gdb tells the server the thread-
        specific breakpoints); before, the selected lane was reported and GDB went on"""
        out, R = self.gdb('''
stop_at("leaf if x == 8")
R["start"] = [val("x"), warp_lane()]
th = threads()
n = th[tid() + 2]
ex("break leaf thread %d" % n.num)
st = go("continue")
R["fwd"] = [val("x"), warp_lane(), st.get("thread") == n.ptid[1]]
st = go("reverse-continue")
R["back"] = [val("x"), warp_lane()]
''')
        # warp w runs tasks 8w + l, then 8w + 4 + l, in lane l (test above)
        self.assertEqual(R["start"], [8, [1, 0]])
        self.assertEqual(R["fwd"], [14, [1, 2], True])
        self.assertEqual(R["back"], [10, [1, 2]])

    def test_thread_breakpoint_survives_the_end_of_history(self):
        """break leaf thread N, continue to the end (N's warp has finished), reverse-continue:
        the breakpoint is still there and stops at N's last hit (GDB deleted it with the
        thread, or crashed listing it); info breakpoints still lists it"""
        out, R = self.gdb('''
stop_at("leaf if x == 10")
n = gdb.selected_thread()
ex("break leaf thread %d" % n.num)
go("continue")
go("continue")
R["end"] = ex("monitor when")
R["info"] = ex("info breakpoints")
st = go("reverse-continue")
R["back"] = [val("x"), warp_lane(), st.get("thread") == n.ptid[1]]
''')
        self.assertRegex(R["end"], r"end of history")
        self.assertRegex(R["info"], r"stop only in thread \d+")
        self.assertEqual(R["back"], [14, [1, 2], True])
        self.assertNotIn("Thread-specific breakpoint", out.split("@@CMD reverse-continue")[0])

    def test_vx_print_keeps_the_selected_lane(self):
        """vx-print visits every lane of the warp and comes back: a reverse-continue after
        it still reports the selected lane (not the last one vx-print read)"""
        out, R = self.gdb('''
ex("monitor seek 0")
ex("break middle")
go("continue")
go("continue")
R["start"] = warp_lane()
ex("vx-print x")
go("reverse-continue")
R["back"] = warp_lane()
''')
        self.assertEqual(R["start"][1], 0)
        self.assertEqual(R["back"][1], 0, "lane 0 takes part in every warp's hits at middle")

    def test_step_over_at_a_warps_first_issue(self):
        """a thread-specific breakpoint GDB steps over, backward, where the warp has no
        earlier instruction (at the very start; at a spawned warp's first issue): the
        reverse-continue ends and later commands run (GDB 13 hung when "no history"
        ended its step over)"""
        out, R = self.gdb('''
stop_at("middle")
th = threads()
ex("break _start thread %d" % th[2].num)
st = go("reverse-continue")
R["start"] = ex("monitor when")
ex("delete")
go("stepi")
R["after"] = ex("monitor when")
stop_at("middle")
th = threads()
ex("break __vx_init_warp thread %d" % th[NT + 2].num)
go("reverse-continue")
R["spawned"] = ex("monitor when")
ex("delete")
go("stepi")
R["after2"] = ex("monitor when")
''', timeout=120)
        self.assertRegex(R["start"], r"^event 0 of")
        self.assertRegex(R["after"], r"^event 1 of")
        self.assertRegex(R["spawned"], r"^event 0 of")
        self.assertRegex(R["after2"], r"^event 1 of")
        self.assertIn("warp 0 has no instruction before event 0", out)

    def test_watch_local_leaves_scope(self):
        """watch on a local in a lane other than the first: deleted when its frame returns, in that lane"""
        out, R = self.gdb('''
stop_at("leaf if x == 19")
t0 = tid()
ex("watch y")
for i in range(4):
    st = go("continue")
    if func() != "leaf":
        break
R["after"] = [func(), tid() == t0, val("$a0")]
''')
        text = "".join(t for _, t in segments(out))
        self.assertIn("left the block in\nwhich its expression is valid", text)
        # task 19: warp 2, lane 3 (warp 1 returns from leaf first, through the same address)
        self.assertEqual(R["after"], ["middle", True, 3 * 19 + 1])   # leaf's return value

    def test_seek_refreshes_watchpoints(self):
        """vx-seek back to the start: a watchpoint's "Old value" is the value there, not the one before"""
        out, R = self.gdb('''
go("continue")
ex("watch -l out[6]")
R["end"] = val("out[6]")
ex("vx-seek 0")
R["start"] = val("out[6]")
st = go("continue")
R["hit"] = [func(), val("out[6]")]
''')
        seg = segments(out)[-1][1]
        self.assertEqual([R["end"], R["start"]], [3 * 6 + 3, 0])
        self.assertEqual(R["hit"], ["body", 3 * 6 + 3])
        self.assertIn("Old value = 0\nNew value = 21", seg)

    def test_thread_local_variables(self):
        """$vx_tls("blockIdx") per lane (GDB 13 reads no TLS here), and vx-tls's condition form"""
        out, R = self.gdb('''
stop_at("leaf")
w, _ = warp_lane()
R["lanes"] = []
for l in range(NT):
    ex("vx-lane %d" % l)
    R["lanes"].append([val("x"), val("$vx_tls(\\"blockIdx\\").x")])
before = tid()
R["bad"] = []
for cmd in ("vx-lane %d" % NT, "vx-lane -1", "vx-lane x", "vx-thread 999 0", "vx-warp 1 2"):
    try:
        ex(cmd)
        R["bad"].append([cmd, "accepted"])
    except gdb.error as e:
        R["bad"].append([cmd, str(e)])
R["same"] = tid() == before
hint = ex("vx-tls blockIdx")
expr = re.search(r"blockIdx\\.x: (.*)", hint).group(1).strip()
ex("break leaf if %s == 13" % expr)
R["info"] = ex("info breakpoints")
st = go("continue")
R["hit"] = [val("x"), func(), st.get("thread") == tid()]
ex("delete")
ex("vx-seek 0")   # before the runtime set tp up
try:
    R["early"] = ex("p $vx_tls(\\"blockIdx\\")")
except gdb.error as e:
    R["early"] = str(e)
''')
        # leaf(x) is called with x = blockIdx.x (rrtest.c: body -> middle(i) -> leaf)
        self.assertEqual(len(R["lanes"]), 4)
        for x, bx in R["lanes"]:
            self.assertEqual(bx, x)
        self.assertEqual(len({x for x, _ in R["lanes"]}), 4)
        # a lane or warp that does not exist is refused with a message, nothing moves
        msgs = dict(R["bad"])
        self.assertEqual(msgs["vx-lane 4"], "no lane 4: lanes are 0..3")
        self.assertEqual(msgs["vx-lane -1"], "no lane -1: lanes are 0..3")
        self.assertEqual(msgs["vx-lane x"], "LANE must be a number, not 'x'")
        self.assertRegex(msgs["vx-thread 999 0"], r"^no warp 999: global warps are 0\.\.\d+$")
        self.assertEqual(msgs["vx-warp 1 2"], "usage: vx-warp WARP")
        self.assertTrue(R["same"], "a refused selection leaves the thread selected")
        self.assertIn("target evals", R["info"])
        self.assertEqual(R["hit"], [13, "leaf", True])
        # no block yet: said as vx-tls says it, not "Cannot access memory at 0x2c"
        self.assertRegex(R["early"], r"^blockIdx: no value here \(tp = 0x0: the runtime")

    def test_condition_gdb_cannot_compile(self):
        """a float condition (GDB tests it itself, in one lane) is flagged with the $vx_any form,
        and $vx_any tests it in every active lane and selects the lane where it holds"""
        out, R = self.gdb('''
ex("monitor seek 0")
ex("break leaf if $vx_any(\\"(float)x == 13.0\\")")
st = go("continue")
R["hit"] = [func(), val("x"), warp_lane()]
R["info"] = ex("info breakpoints")
ex("delete")
ex("monitor seek 0")
ex("break leaf if x == 13")
go("continue")
ex("delete")
ex("monitor seek 0")
ex("break leaf if (float)x == 13.0")
go("continue")
''')
        segs = segments(out)
        self.assertIn("$vx_any held first in thread", segs[0][1])
        self.assertNotIn("GDB tests the condition", segs[0][1])
        # an integer condition goes to the server: no warning (it came at creation before,
        # when GDB had not decided yet); a float one is flagged when the run starts
        self.assertNotIn("GDB tests the condition", segs[1][1])
        self.assertIn("GDB tests the condition of breakpoint", segs[2][1])
        self.assertRegex(segs[2][1], r'condition \d+ \$vx_any\("\(float\)x == 13.0"\)')
        func_, x, (warp, lane) = R["hit"]
        self.assertEqual([func_, x], ["leaf", 13])
        self.assertNotEqual(lane, 0, "13 is not the warp's first lane: GDB alone would miss it")
        self.assertIn("host evals", R["info"])

    def test_condition_warning_names_its_breakpoint(self):
        """the warning of a condition GDB tests itself names the breakpoint (or dprintf) the
        condition belongs to: after a dprintf's or a watchpoint's row of info breakpoints
        it named the breakpoint listed before them, and advised a condition for that one"""
        out, R = self.gdb('''
ex("break leaf")
ex("dprintf middle,\\"m %d\\\\n\\", x")
ex("condition 2 (float)x == 9.0")
ex("watch total")
ex("condition 3 (float)total > 1.5")
R["info"] = ex("info breakpoints")
go("continue")
''')
        self.assertRegex(R["info"], r"(?m)^2\s+dprintf")
        seg = segments(out)[0][1]
        self.assertIn("GDB tests the condition of breakpoint 2 itself", seg)
        self.assertIn('condition 2 $vx_any("(float)x == 9.0")', seg)
        self.assertNotIn("breakpoint 1 itself", seg)
        self.assertNotIn("condition 1 ", seg)
        self.assertNotIn("breakpoint 3 itself", seg)   # a watchpoint's: tested where it is

    def test_other_threads_fresh_after_step(self):
        """after next (one warp resumed, scheduler locked) other warps show where they are now"""
        out, R = self.gdb('''
stop_at("middle")
ex("info threads")
for i in range(3):
    go("next")
def warp_pcs():
    return {int(m.group(1)): int(m.group(2), 16)
            for m in re.finditer(r"^(\\d+)\\s+\\d+\\s+\\d+\\s+0x([0-9a-f]+)", ex("monitor warps"), re.M)}
want = warp_pcs()
me = tid()
got = {}
for w in want:
    t = threads().get(1 + w * NT)
    if t is None:
        continue
    t.switch()
    got[w] = pc()
threads()[me].switch()
R["want"] = {str(k): v for k, v in want.items() if k in got}
R["got"] = {str(k): v for k, v in got.items()}
''')
        self.assertGreater(len(R["got"]), 1)
        self.assertEqual(R["got"], R["want"])

    def test_two_conditions_one_address(self):
        """two breakpoints at one address with different lane conditions: both stop, in order"""
        out, R = self.gdb('''
ex("break leaf if x == 9")
ex("break leaf if x == 27")
xs = []
for i in range(3):
    st = go("continue")
    if "bps" not in st:
        break
    xs.append(val("x"))
R["xs"] = xs
''')
        self.assertEqual(sorted(R["xs"]), [9, 27])

    def test_switch_threads(self):
        """info threads names warps and lanes; each thread shows its own lane's registers"""
        out, R = self.gdb('''
stop_at("rrtest.c:%d")
R["info"] = ex("info threads")
seen = []
for (w, l) in [(1, 0), (3, 3), (2, 1), (3, 2), (1, 1), (0, 2)]:
    ex("vx-thread %%d %%d" %% (w, l))
    i = val("i") if func() == "body" else None
    seen.append([w, l, tid(), val("$mhartid"), val("$vx_warp_id"), val("$vx_thread_id"), i])
R["seen"] = seen
''' % self.lines["BODY_OUT"])
        self.assertRegex(R["info"], r"warp 3 lane 3")
        self.assertRegex(R["info"], r"core 0 warp 1 lane 2, (active|masked off)")
        for w, l, t, hart, wid, lane, i in R["seen"]:
            self.assertEqual(t, 1 + w * 4 + l)
            self.assertEqual(hart, w * 4 + l)
            self.assertEqual((wid, lane), (w, l))
        tasks = [i for *_, i in R["seen"] if i is not None]
        self.assertGreater(len(tasks), 2)
        self.assertEqual(len(set(tasks)), len(tasks))      # each lane has its own task


class PerWarpTests(GdbCase):
    srv_args = ("--thread-per-warp",)

    def test_vx_warp_keeps_the_lane_shown(self):
        """--thread-per-warp: vx-warp W keeps the lane the selected warp thread shows
        (read from its mhartid), not the lane of the last stop's warp"""
        out, R = self.gdb('''
stop_at("leaf if x == 10")
R["stop"] = [tid() - 1, val("$mhartid") % NT]
ex("thread 1")
R["w0"] = [tid() - 1, val("$mhartid") % NT]
ex("vx-warp 2")
R["w2"] = [tid() - 1, val("$mhartid") % NT]
R["lane"] = ex("monitor lane")
ex("monitor lane 3")
ex("vx-warp 1")
R["w1"] = [tid() - 1, val("$mhartid") % NT]
ex("vx-print $pc")
R["after_print"] = ex("monitor lane")
''')
        self.assertIn("every warp thread shows lane 3", R["after_print"])  # kept
        self.assertEqual(R["w1"], [1, 3])     # a bare monitor lane 3 before it
        self.assertEqual(R["stop"], [1, 2])   # task 10: warp 1, lane 2 (ReverseTests)
        self.assertEqual(R["w0"], [0, 0])     # warp 0 shows its first active lane
        self.assertEqual(R["w2"], [2, 0])     # the lane warp 0 showed, not the stop's 2
        self.assertIn("every warp thread shows lane 0", R["lane"])  # vx-warp picked it

    def test_monitor_lane_shows_that_lanes_registers_at_once(self):
        """--thread-per-warp: after `monitor lane N` GDB shows lane N's registers, with no
        `maint flush register-cache` (GDB kept the old lane's: `info threads` said lane 3,
        `p` printed lane 2's values)"""
        out, R = self.gdb('''
stop_at("leaf if x == 10")
R["before"] = val("$mhartid") % NT
ex("monitor lane 3")
R["after"] = val("$mhartid") % NT
R["threads"] = ex("info threads")
''')
        self.assertEqual(R["before"], 2)  # task 10: warp 1, lane 2
        self.assertIn("lane 3", R["threads"])
        self.assertEqual(R["after"], 3)

    def test_seek_after_an_exact_lane_shows_no_parked_frame(self):
        """monitor lane N exact (vx-print's view) lasts until the next resume or seek: a
        vx-seek's stop shows a lane with a position (it showed lane 3 parked at pc 0,
        "0x00000000 in ?? ()", before its stop)"""
        out, R = self.gdb('''
stop_at("leaf")
ex("monitor lane 3 exact")
go("vx-seek 0")
R["lane"] = ex("monitor lane")
R["pc"] = pc()
''')
        seg = dict(segments(out))["vx-seek 0"]
        self.assertNotIn("0x00000000 in ??", seg)
        self.assertNotIn("exactly", R["lane"])
        self.assertNotEqual(R["pc"], 0)


class PerWarpDivergenceTests(GdbCase):
    """--thread-per-warp on rrdiverge (2 warps of 4 lanes: odd tasks call twice() on the
    split's then side, which runs first; even ones negate() on the else side)."""
    kernel = "rrdiverge"
    rec_args = ("-w", "2", "-t", "4")
    srv_args = ("--thread-per-warp",)

    def test_lane_masked_off_gives_way_to_an_active_one(self):
        """vx-lane 0, then a stop in twice(), which lane 0 (even) never calls: the warp
        thread shows an active lane (the registers GDB builds frames from go with the
        warp's PC), so the argument is that lane's task, the backtrace passes through
        body, and finish returns to body with twice's value.  Before, it showed lane 0's
        registers at twice's PC: x = 104, no body in the backtrace, and finish ran the
        rest of body and returned to the runtime."""
        L = self.lines
        out, R = self.gdb('''
stop_at("body")
R["note"] = ex("vx-lane 0")
ex("break twice")
go("continue")
R["warp"], R["lane"] = tid() - 1, val("$mhartid") % NT  # (a thread per warp)
R["x"] = val("x")
R["bt"] = [l.split(" in ")[-1].split(" (")[0] for l in ex("bt").splitlines() if l.startswith("#")]
R["threads"] = ex("info threads")
R["print"] = ex("vx-print x")
ex("delete")
go("finish")
R["fin"] = [func(), line(), val("$")]
R["after"] = ex("monitor lane")
''')
        self.assertEqual(R["lane"] % 2, 1, R)                 # an odd lane: it calls twice()
        self.assertEqual(R["x"], 4 * R["warp"] + R["lane"])   # its task (blockIdx.x)
        self.assertIn("body", R["bt"])
        self.assertIn("shows lane %d" % R["lane"], R["threads"])
        # vx-print shows every lane at its own position: lane 0 waits in body (no x there)
        self.assertRegex(R["print"], r"lane 0 \(waits\): <No symbol")
        self.assertRegex(R["print"], r"lane %d: %d" % (R["lane"], R["x"]))
        self.assertEqual(R["fin"], ["body", L["THEN"], 2 * R["x"]])
        self.assertIn("every warp thread shows lane 0 where it is active", R["after"])


    def test_vx_warp_keeps_the_lane_picked_while_masked_off(self):
        """--thread-per-warp: vx-lane L where lane L is masked off shows the warp's first active lane (the
        registers go with the warp's PC), but L stays the lane picked: vx-warp W to a
        warp where L is active shows L (it took the lane shown, and picked that)"""
        out, R = self.gdb('''
def masks():
    return {int(m.group(1)): int(m.group(2), 16) for m in
            re.finditer(r"^(\\d+)\\s+\\d+\\s+\\d+\\s+0x[0-9a-f]+\\s+0x([0-9a-f]+)",
                        ex("monitor warps"), re.M)}
# a position where a lane L is masked off in an active warp A and active in warp B:
# a warp in twice() has its odd lanes only
ex("break twice")
R["found"] = False
for p in range(8):
    if not go("continue").get("bps"):
        break
    m = masks()
    pick = [(a, b, l) for a in m for b in m for l in range(NT)
            if a != b and m[a] and not m[a] >> l & 1 and m[b] >> l & 1]
    if pick:
        R["found"] = True
        break
a, b, l = pick[0]
R["w"], R["l"] = b, l
ex("vx-thread %d 0" % a if m[a] & 1 else "vx-thread %d %d" % (a, (m[a] & -m[a]).bit_length() - 1))
R["note"] = ex("monitor lane %d" % l)
ex("maintenance flush register-cache")
R["shown0"] = val("$mhartid") % NT
ex("vx-warp %d" % R["w"])
R["shown"] = [tid() - 1, val("$mhartid") % NT]
R["lane"] = ex("monitor lane")
''')
        self.assertTrue(R["found"], "no position with a lane masked off in one warp only")
        self.assertNotEqual(R["shown0"], R["l"])
        self.assertEqual(R["shown"], [R["w"], R["l"]])
        self.assertIn("every warp thread shows lane %d" % R["l"], R["lane"])


    def test_vx_any_tries_the_lane_shown_first(self):
        """--thread-per-warp: $vx_any tests the lane the warp's thread shows first, as with a
        thread per lane, so a stop where the condition holds in the lane picked (vx-lane 3)
        keeps it; it tested the warp's lanes from 0 and switched the pick to lane 1 for
        good, saying 'held first in lane 1; selected it'"""
        out, R = self.gdb('''
stop_at("twice")
ex("vx-lane 3")
ex("monitor seek 0")
ex("break twice if $vx_any(\\"x > 0\\")")
st = go("continue")
R["any"] = [bool(st.get("bps")), val("$mhartid") % NT, val("x") % 4, ex("monitor lane")]
''')
        self.assertEqual(R["any"][:3], [True, 3, 3], R)   # lane 3 of a warp: task 4w + 3
        self.assertIn("every warp thread shows lane 3", R["any"][3])
        self.assertNotIn("held first in lane", out)


class TlsFormTests(GdbCase):
    """vx-tls's forms of a user's thread-local struct (rrtls: task t = blockIdx.x on 2 warps
    of 4 lanes stores a = t & 7, b = 31 - t in unsigned bitfields, c = 200 + t, d = t - 20
    in a signed bitfield, f = t / 2, s = -t in an anonymous member, then calls probe(t))"""
    kernel = "rrtls"
    rec_args = ("-w", "2", "-t", "4")

    def test_forms_read_every_member(self):
        """each printed form reads its member's value in the lane shown (a bitfield's own
        bits, shifted and masked or sign-extended; a float's bit pattern: GDB tests a float
        condition itself, in one lane), and as a breakpoint condition the server tests in
        every lane it stops in task 5's lane only.  A bitfield's form read the whole word
        (a, b and c together), so a condition on it never held"""
        out, R = self.gdb('''
stop_at("probe")
R["t"] = val("x")
hint = ex("vx-tls tls_s")
R["hint"] = hint
forms = dict(re.findall(r"^  (tls_s\\.\\w+): (.*?)(?: \\(its bits.*\\))?$", hint, re.M))
R["forms"] = forms
R["vals"] = {k: int(gdb.parse_and_eval(v)) for k, v in forms.items()}
R["hits"] = {}
for k, want in (("tls_s.a", 5), ("tls_s.b", 26), ("tls_s.d", -15), ("tls_s.f", 0x40200000),
                ("tls_s.s", -5)):
    ex("monitor seek 0")
    ex("break probe if %s == %d" % (forms[k], want))
    R["info_" + k] = ex("info breakpoints")
    st = go("continue")
    R["hits"][k] = [bool(st.get("bps")), val("x")]
    ex("delete")
''')
        t = R["t"]
        fbits = struct.unpack("<I", struct.pack("<f", t * 0.5))[0]
        want = {"tls_s.a": t & 7, "tls_s.b": 31 - t, "tls_s.c": 200 + t, "tls_s.d": t - 20,
                "tls_s.f": fbits, "tls_s.s": -t}
        self.assertEqual(sorted(R["forms"]), sorted(want), R["hint"])
        self.assertEqual(R["vals"], want, R["hint"])
        self.assertIn("tls_s.f: *(unsigned int *)($tp + ", R["hint"])
        for k in ("tls_s.a", "tls_s.b", "tls_s.d", "tls_s.f", "tls_s.s"):
            self.assertIn("target evals", R["info_" + k], k)
            self.assertEqual(R["hits"][k], [True, 5], k)

    def test_vx_any_reads_thread_locals(self):
        """a condition on blockIdx (GDB cannot read thread-locals here, so it tests it itself
        and fails) is flagged with the $vx_any form, and that form works: $vx_any reads
        blockIdx.x in every lane as vx-print does.  It said "cannot evaluate ... Cannot find
        thread-local variables on this target", and GDB stopped in the warp's first lane"""
        out, R = self.gdb('''
ex("break probe if blockIdx.x == 5")
go("continue")
ex("delete")
ex("monitor seek 0")
ex("break probe if $vx_any(\\"blockIdx.x == 5\\")")
st = go("continue")
R["hit"] = [bool(st.get("bps")), val("x"), val("$vx_tls(\\"blockIdx\\").x")]
''')
        segs = segments(out)
        self.assertIn("thread-locals", segs[0][1])
        self.assertIn('$vx_any("blockIdx.x == 5")', segs[0][1])
        self.assertNotIn("cannot evaluate", segs[1][1])
        self.assertEqual(R["hit"], [True, 5, 5], out[-2000:])


class DeadlockTests(GdbCase):
    """rrdeadlock: main waits at a barrier for a warp that never comes; the recording
    ends with the deadlock fault (SIGABRT) at the barrier's next instruction."""
    kernel = "rrdeadlock"

    def test_commands_after_a_step_over_at_the_fault_go_on(self):
        """until the line after the barrier (the fault stops it), a tbreak at the
        faulting pc, stepi (GDB steps over that tbreak, passing SIGABRT on), then
        vx-seek and reverse-stepi: GDB used to hang at the seek, its step over
        unfinished by the end of history"""
        L = self.lines
        line = L["DEADLOCK_BAR"] + 1
        out, R = self.gdb('''
go("until rrdeadlock.c:%d")
R["sig"] = STOPS[-1].get("sig")
ex("tbreak *$pc")
go("stepi")
go("vx-seek 26")
R["seek"] = ex("monitor when")
go("reverse-stepi")
R["back"] = ex("monitor when")
''' % line, timeout=90)
        self.assertEqual(R["sig"], "SIGABRT")
        self.assertRegex(R["seek"], r"^event 26 of")
        self.assertRegex(R["back"], r"^event 2[0-5] of")
        self.assertIn("no more history: warp 0 faults at event", out)

    def test_end_of_history_names_the_deadlocks_cycle(self):
        """at the end of history, `monitor when` names the cycle the deadlock was found
        at, as vxdump's end record does (cycles after the last issue's, which it printed
        alone: 'cycle 1299' where vxdump says 1301)"""
        r = vxtest.run([vxtest.prog("vxdump"), "--summary", "--json", self.trace])
        end = json.loads(r.stdout)["end"]
        self.assertEqual(end["status"], "fault")
        out, R = self.gdb('''
go("continue")
R["when"] = ex("monitor when")
''', timeout=90)
        m = re.search(r": end of history, cycle (\d+) \(the kernel faulted at cycle (\d+)\)",
                      R["when"])
        self.assertTrue(m, R["when"])
        self.assertEqual(int(m.group(2)), end["cycle"])
        self.assertLess(int(m.group(1)), end["cycle"])


class EarlyWarpTests(GdbCase):
    """rrearly: warp 3 returns before the barrier warps 0-2 wait at (a deadlock fault)."""
    kernel = "rrearly"
    rec_args = ("-w", "4", "-t", "4")

    def test_vx_last_reaches_a_warp_gdb_never_listed(self):
        """at the deadlock, warp 3 has finished and GDB never listed its threads:
        vx-thread says so and names vx-last; vx-last 3 goes back to warp 3's last issue
        (vxdump's last event of warp 3) and selects its first active lane; vx-last 3 2
        to the issue before that, lane 2; a warp out of range is an error"""
        d = vxtest.run([vxtest.prog("vxdump"), "--warp", "3", "--kind", "issue", "--no-header",
                        self.trace])
        idx = [int(ln.split()[0]) for ln in d.stdout.splitlines() if ln.split()[:1] and ln.split()[0].isdigit()]
        self.assertGreater(len(idx), 2, d.stdout)
        out, R = self.gdb('''
R["sig"] = go("continue").get("sig")
try:
    ex("vx-thread 3 0")
except gdb.error as e:
    R["thread_err"] = str(e)
ex("vx-last 3")
R["last"] = ex("monitor when")
R["at"] = warp_lane()
ex("vx-last 3 2")
R["before"] = ex("monitor when")
R["at2"] = warp_lane()
try:
    ex("vx-last 9")
except gdb.error as e:
    R["range_err"] = str(e)
''', timeout=90)
        self.assertEqual(R["sig"], "SIGABRT")
        self.assertIn("vx-last 3 goes back", R["thread_err"])
        self.assertRegex(R["last"], r"^event %d of .*\(gwarp 3, lanes 0xf\)" % idx[-1])
        self.assertEqual(R["at"], [3, 0])
        self.assertRegex(R["before"], r"^event %d of .*\(gwarp 3," % idx[-2])
        self.assertEqual(R["at2"], [3, 2])
        self.assertIn("usage: vx-last W (a global warp, 0..3)", R["range_err"])


class LostLaneTests(GdbCase):
    """rrlost: a join inside the odd side of a split leaves the odd lanes of each warp
    masked off for good; the kernel exits normally (no fault)."""
    kernel = "rrlost"
    rec_args = ("-w", "2", "-t", "4")

    def test_step_of_a_lane_that_never_runs_again(self):
        """stepi of a lost lane, after deleting the breakpoint at its warp's pc, runs to the
        end of history and stops in the stepped thread.  The console said "no more
        history: warp 1 faults at event N" (nothing faulted) and the stop named lane 0"""
        L = self.lines
        out, R = self.gdb('''
stop_at("rrlost.c:%d")
w, _ = warp_lane()
ex("vx-thread %%d 1" %% w)
R["want"] = tid()
st = go("stepi")
R["got"] = st.get("thread")
R["when"] = ex("monitor when")
''' % (L["LOST_STORE"] + 1))
        seg = [text for c, text in segments(out) if c == "stepi"][0]
        self.assertRegex(R["when"], r"end of history.*the kernel exited")
        # (the console's notes: on stderr in batch mode)
        self.assertNotIn("faults", out)
        self.assertIn("lane 1 of warp 1 does not run again", out)
        self.assertEqual(R["got"], R["want"], seg)


class LocalMemoryTests(GdbCase):
    """Watchpoints on local memory, which each core has at the same addresses: core c
    writes (c + 1) * 1000 + r to one word in rounds r = 1..3, the cores alternating
    (core 1 first).  On 2 cores x 2 warps, warp 0 of core c is global warp 2c."""
    kernel = "rrlocal"
    rec_args = ("-c", "2", "-w", "2", "-t", "2")

    def values(self, out):
        """(Old, New) of every watchpoint stop, with the warp of the thread reported"""
        found = []
        for cmd, text in segments(out):
            m = re.search(r'Thread \d+ "warp (\d+) lane \d+" hit Hardware watchpoint \d+.*?'
                          r'Old value = (\d+)\s+New value = (\d+)', text, re.S)
            found.append((cmd, (int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else None))
        return found

    def test_watch_keeps_its_core_after_a_stop(self):
        """a watchpoint set in a thread of core 1 watches core 1's local memory also after
        its first stop, when GDB inserts it again with a thread of core 0 selected; in
        both directions"""
        out, R = self.gdb('''
ex("vx-thread 2 0")
ex("watch *(unsigned *)0xFFFF0100")
go("continue")
ex("vx-thread 0 0")
go("continue")
go("continue")
ex("vx-thread 0 0")
go("reverse-continue")
ex("vx-thread 0 0")
go("reverse-continue")
''')
        self.assertEqual(self.values(out), [
            ("continue", (2, 0, 2001)), ("continue", (2, 2001, 2002)), ("continue", (2, 2002, 2003)),
            ("reverse-continue", (2, 2003, 2002)), ("reverse-continue", (2, 2002, 2001))])

    def test_step_in_another_core_names_the_writer(self):
        """a watchpoint on core 0's local memory fires while a thread of core 1 steps:
        the stop is reported in core 0's writing thread, so GDB shows core 0's old and
        new values (core 1 has other memory there)"""
        out, R = self.gdb('''
ex("vx-thread 0 0")
ex("watch *(unsigned *)0xFFFF0100")
ex("vx-thread 2 0")
for i in range(200):
    st = go("stepi")
    if warp_lane(st["thread"])[0] != 2:
        break
go("continue")
go("reverse-continue")
''')
        found = [v for c, v in self.values(out) if v]
        self.assertEqual(found, [(0, 0, 1001), (0, 1001, 1002), (0, 1002, 1001)])

    def test_step_over_a_breakpoint_keeps_the_stepped_thread(self):
        """while GDB steps a thread over a breakpoint a stop must name that thread (GDB
        aborts otherwise): a core-0 watchpoint that fires then is reported in it, and
        the console names the writer and its core"""
        out, R = self.gdb('''
ex("vx-thread 0 0")
ex("watch *(unsigned *)0xFFFF0100")
ex("vx-thread 2 0")
for i in range(200):
    b = gdb.Breakpoint("*0x%x" % pc())
    st = go("stepi")
    b.delete()
    if 1 in st.get("bps", []):
        R["stop_warp"] = warp_lane(st["thread"])[0]
        break
R["alive"] = ex("monitor when")
''')
        self.assertEqual(R.get("stop_warp"), 2)
        self.assertIn("event ", R["alive"])
        self.assertRegex(out, r"lane 0 of warp 0 made the access, not the stepped lane 0 of warp 2 "
                              r"\(vx-thread 0 0\); GDB shows core 1's local memory, the write was core 0's")

    def test_watch_made_anew_on_another_core(self):
        """a watchpoint deleted after its stop and made again on the same address from a
        thread of another core watches that core (vxrr.gdb names it to the server)"""
        out, R = self.gdb('''
ex("vx-thread 2 0")
ex("watch *(unsigned *)0xFFFF0100")
go("continue")
ex("delete")
ex("vx-thread 0 0")
ex("watch *(unsigned *)0xFFFF0100")
go("continue")
''')
        self.assertEqual([v for c, v in self.values(out)], [(2, 0, 2001), (0, 0, 1001)])


class ParkedLaneWatchTests(GdbCase):
    kernel = "rrwatch"
    rec_args = ("-w", "4", "-t", "4")

    def test_step_over_a_watched_access_by_another_warp(self):
        """stepi of a parked lane (warp 0 lane 3, until main's WAKE) meets another warp's
        watched access (named in the stepped thread); GDB then steps that thread over the
        access with the watchpoint out: only the access is carried out (the step ran
        until the parked lane moved, crossing the other warps' accesses unseen), and each
        continue stops at the next"""
        out, R = self.gdb('''
ex("break main")
R["main"] = int(re.search(r"event (\\d+) of", go("continue")["when"]).group(1))
ex("delete")
ex("watch counter")
ex("vx-thread 0 3")
R["park"] = pc()
whens = []
for cmd in ("stepi", "continue", "continue"):
    st = go(cmd)
    whens.append([cmd, st.get("bps"), int(re.search(r"event (\\d+) of", st["when"]).group(1))])
R["whens"] = whens
R["addr"] = val("(unsigned)&counter")
''')
        self.assertEqual(R["park"], 0, "lane 3 of warp 0 is parked")
        # from the trace: the issues that write counter (one amoadd per warp)
        r = vxtest.run([vxtest.prog("vxdump"), "--json", "--kind", "issue", self.trace])
        writes = [e["index"] for e in map(json.loads, r.stdout.splitlines())
                  if any(m["addr"] == R["addr"] for m in e.get("mem", [])) and
                  e["index"] >= R["main"]]
        self.assertGreaterEqual(len(writes), 3, writes)
        got = R["whens"]
        self.assertTrue(all(bps for _, bps, _ in got), got)
        # each stop just after its write: the step over carried out the first only
        self.assertEqual([n for _, _, n in got], [w + 1 for w in writes[:3]], got)


class FaultTests(GdbCase):
    kernel = "rrfault"

    def test_fault_and_reverse(self):
        """a faulting kernel: SIGBUS at the load, reverse-stepi back from it, forward to it again"""
        L = self.lines
        out, R = self.gdb('''
st = go("continue")
R["sig"] = st.get("sig")
R["at"] = [func(), line(), pc()]
go("reverse-stepi")
R["back"] = [func(), pc()]
st = go("continue")
R["again"] = [st.get("sig"), pc()]
st = go("continue")
R["end"] = st["when"]
st = go("reverse-continue")
R["begin"] = st["when"]
''')
        segs = segments(out)
        self.assertEqual(R["sig"], "SIGBUS")
        self.assertIn("SIGBUS", segs[0][1])
        # the fault's reason, which the signal alone does not tell (GDB prints the
        # server's console output on stderr in batch mode)
        self.assertRegex(out, r"vxreplay: core 0 warp \d+ faults at pc 0x%08x: misaligned" % R["at"][2])
        self.assertEqual(R["at"][:2], ["fetch", L["FAULT"]])
        self.assertNotEqual(R["back"][1], R["at"][2])
        self.assertEqual(R["again"], ["SIGBUS", R["at"][2]])
        self.assertRegex(segs[3][1], END_OF_HISTORY)
        self.assertIn("faults", R["end"])
        self.assertRegex(segs[4][1], END_OF_HISTORY)
        self.assertRegex(R["begin"], r"event 0 of")


class BacktraceTests(GdbCase):
    kernel = "rrbt"

    def test_backtrace_through_runtime(self):
        """bt inside vx_printf reaches main; in a spawned warp it ends at the warp's entry"""
        out, R = self.gdb('''
ex("break vx_putchar")
go("continue")
R["main"] = [f.split()[-1] for f in re.findall(r"^#\\d+\\s+(?:0x[0-9a-f]+ in )?(\\S+)", ex("bt"), re.M)]
ex("delete")
ex("break report_value if v != 42")
go("continue")
R["warp"] = warp_lane()[0]
R["spawned"] = [f.split()[-1] for f in re.findall(r"^#\\d+\\s+(?:0x[0-9a-f]+ in )?(\\S+)", ex("bt"), re.M)]
ex("delete")
ex("break touch")
go("continue")
R["w0"] = {}
for l in range(NT):
    ex("vx-thread 0 %d" % l)
    bt = ex("bt")
    R["w0"][l] = [bt.count("0x00000000"), "frame did not save the PC" in bt,
                  [f.split()[-1] for f in re.findall(r"^#\\d+\\s+(?:0x[0-9a-f]+ in )?(\\S+)", bt, re.M)]]
''')
        self.assertEqual(R["main"][0], "vx_putchar")
        for f in ("vx_serial", "vx_vprintf", "vx_printf", "report_value", "work", "main"):
            self.assertIn(f, R["main"])
        self.assertNotEqual(R["warp"], 0)
        self.assertEqual(R["spawned"][:3], ["report_value", "work", "cb"])
        self.assertEqual(R["spawned"][-1], "__vx_spawn_warp_entry")   # the outermost frame
        # warp 0: lane 0 runs under main's vx_spawn_threads; the other lanes' backtraces
        # end cleanly at the warp's entry, as in a spawned warp (no zero PC)
        lanes = {int(k): v for k, v in R["w0"].items()}
        self.assertEqual(sorted(lanes), list(range(4)))
        self.assertIn("main", lanes[0][2])
        for l in range(1, 4):
            zero, stopped, frames = lanes[l]
            self.assertEqual((zero, stopped), (0, False), frames)
            self.assertEqual(frames[:2], ["touch", "cb"], frames)
            self.assertEqual(frames[-1], "__vx_spawn_warp_entry", frames)


class PredicatedLaneTests(GdbCase):
    kernel = "rrpred"
    rec_args = ("-w", "2", "-t", "4")

    def tmc_after_pred(self):
        """From vxdump (independent of vxreplay): warp 0's vx_tmc after its vx_pred in body."""
        r = vxtest.run([vxtest.prog("vxdump"), self.trace])
        pred = None
        for ln in r.stdout.splitlines():
            f = ln.split()
            if len(f) < 5 or f[2] != "0:0" or "<body+" not in f[4]:
                continue
            if "vx_pred" in ln:
                pred = int(f[3], 16)
            elif "vx_tmc" in ln and pred is not None:
                return pred, int(f[3], 16)
        self.fail("no vx_pred then vx_tmc of warp 0 in body:\n" + r.stdout[-2000:])

    def test_step_past_the_park_ends_where_the_lane_runs_again(self):
        """next over vx_pred in a lane it parks ends after the vx_tmc that enables the lane
        again (it stopped at pc 0, where GDB could step no further), stepi of vx_pred
        there too, and reverse-next and reverse-stepi come back to the vx_pred"""
        L = self.lines
        pred, tmc = self.tmc_after_pred()
        out, R = self.gdb('''
ex("break %d")
while go("continue") and warp_lane()[0] != 0:
    pass
ex("delete")
ex("vx-thread 0 0")
R["hit"] = val("hit")
go("next")
R["pred"] = [line(), pc()]
go("next")
R["next"] = line()
go("reverse-next")
R["back"] = [line(), pc()]
ex("break *%d")
go("continue")
ex("vx-thread 0 2")
R["at"] = pc()
go("stepi")
R["stepi"] = pc()
go("reverse-stepi")
R["rstepi"] = pc()
''' % (L["PRED"] - 1, pred))
        self.assertEqual(R["hit"], 0, "lane 0 is parked by the vx_pred")
        # the start of vx_pred's (inlined) line, a few instructions before the vx_pred
        self.assertTrue(pred - 16 <= R["pred"][1] <= pred, R)
        self.assertEqual(R["next"], L["AFTER"], R)
        self.assertEqual(R["back"], R["pred"], R)
        self.assertEqual([R["at"], R["stepi"], R["rstepi"]], [pred, tmc + 4, pred], R)


class MaskedLaneTests(GdbCase):
    kernel = "rrdiverge"
    rec_args = ("-w", "2", "-t", "4")

    def split_join(self, warp):
        """From vxdump (independent of vxreplay): warp's split pc and ipdom-else join (index, pc)."""
        r = vxtest.run([vxtest.prog("vxdump"), self.trace])
        split = join = None
        for ln in r.stdout.splitlines():
            f = ln.split()
            if len(f) < 4 or f[2] != "0:%d" % warp:
                continue
            if "vx_split" in ln and "ipdom-push" in ln and split is None:
                split = int(f[3], 16)
            if "vx_join" in ln and "ipdom-else" in ln and join is None:
                join = (int(f[0]), int(f[3], 16))
        return split, join

    def test_finish_of_another_lane_after_a_seek(self):
        """finish in a lane other than the one a seek's stop showed: vxrr.gdb runs it
        unlocked (GDB may keep that stop's stepi state) and names the lane to the server,
        so the return breakpoint's hit comes in this lane (it came in the seek's lane, GDB,
        waiting for this one, ran to the end of history)"""
        out, R = self.gdb('''
stop_at("twice")
w, l = warp_lane()
n = int(re.search(r"event (\\d+) of", ex("monitor when")).group(1))
ex("vx-seek %d" % n)
ex("vx-thread %d %d" % (w, 4 - l))
R["at"] = [func(), warp_lane()]
st = go("finish")
R["back"] = [func(), warp_lane(), "end of history" in st["when"] or "replaylog" in str(st)]
R["want"] = [w, 4 - l]
''')
        self.assertEqual(R["at"], ["twice", R["want"]], R)
        self.assertEqual(R["back"], ["body", R["want"], False], R)

    def test_deleted_thread_breakpoint_leaves_the_server_at_once(self):
        """a thread-specific breakpoint deleted is taken off the server's list at once (it
        stayed until the next stop, and kept its warp live: a seek to before the warp's
        spawn then left that not-started thread selected, not the one that issues next)"""
        out, R = self.gdb('''
ex("break twice")
while go("continue") and warp_lane()[0] != 1:
    pass
ex("delete")
ex("break twice thread %d" % gdb.selected_thread().num)
ex("delete")
ex("vx-seek 0")
R["w"] = warp_lane()[0]
''')
        self.assertEqual(R["w"], 0)

    def test_masked_off_lanes_stand_where_they_wait(self):
        """a lane divergence masked off shows its own position: right after the split while the
        other side runs first, right after the join once its side is done; its backtrace is
        real, and step from it (GDB crashed) runs until that lane moves"""
        out, R = self.gdb('''
stop_at("twice")
w, l = warp_lane()
R["first"] = [w, l, val("x")]
def lanes():
    d = {}
    for k in range(NT):
        ex("vx-thread %d %d" % (w, k))
        frames = [f.split()[-1] for f in re.findall(r"^#\\d+\\s+(?:0x[0-9a-f]+ in )?(\\S+)", ex("bt"), re.M)]
        d[k] = [pc(), frames]
    return d
R["then"] = lanes()
R["threads"] = ex("info threads")
ex("vx-thread %d 0" % w)
go("step")
R["stepped"] = [warp_lane(), pc(), int(re.search(r"event (\\d+)", ex("monitor when")).group(1))]
R["else"] = lanes()
''')
        w, l, x = R["first"]
        self.assertEqual(l % 2, 1, "odd lanes take the then side")
        self.assertEqual(x, w * 4 + l)
        split_pc, (join_at, join_pc) = self.split_join(w)
        self.assertIn("warp %d lane 0, masked off by divergence, waiting" % w, R["threads"])
        then = {int(k): v for k, v in R["then"].items()}
        for k in range(4):
            lane_pc, frames = then[k]
            if k % 2:       # on the then side: in twice, called from body
                self.assertEqual(frames[:2], ["twice", "body"], frames)
            else:           # waiting for its side: right after the split, in body
                self.assertEqual(lane_pc, split_pc + 4, "lane %d" % k)
                self.assertNotIn("twice", frames)
                self.assertIn("body", frames)
                self.assertEqual(frames[-1], "__vx_spawn_warp_entry", frames)
        # step from lane 0 (masked off): runs until lane 0 itself moves, in the else side
        (sw, sl), spc, at = R["stepped"]
        self.assertEqual((sw, sl), (w, 0))
        self.assertGreater(at, join_at, "lane 0 moves only once the else side runs")
        other = {int(k): v for k, v in R["else"].items()}
        self.assertEqual(other[0][0], spc)
        for k in (1, 3):    # their side done: right after the join that ended it
            lane_pc, frames = other[k]
            self.assertEqual(lane_pc, join_pc + 4, "lane %d" % k)
            self.assertNotIn("twice", frames)
            self.assertIn("body", frames)


    def test_waiting_lane_resumed_alone_stops_at_its_warps_breakpoint(self):
        """stepi, step and advance of a lane that waits for its side of a split (GDB
        resumes that thread only: vxrr.gdb locks the scheduler) while the warp's active
        lanes reach a breakpoint: a plain stop ("stopped") of the resumed thread, where it
        waits, and the console names the lanes at the breakpoint.  The stop was named in
        another lane, a thread GDB had not resumed: GDB 13 aborted in finish_step_over or
        skip_inline_frames (a step over, finish, advance), and a step stop would let
        `step` run past the breakpoint"""
        out, R = self.gdb('''
stop_at("rrdiverge.c:THEN_LINE")
w, l = warp_lane()
R["w"] = [w, l]
ex("break twice")
n0 = int(re.search(r"event (\\d+) of", ex("monitor when")).group(1))
R["runs"] = []
for cmd in ("stepi", "step", "advance twice"):
    ex("vx-seek %d" % n0)
    ex("vx-thread %d 0" % w)
    before = [pc(), warp_lane()]
    st = go(cmd)
    R["runs"].append([cmd, before, st.get("bps"), warp_lane(), pc(),
                      int(re.search(r"event (\\d+) of", st["when"]).group(1))])
'''.replace("THEN_LINE", str(self.lines["THEN"])))
        w, l = R["w"]
        self.assertEqual(l % 2, 1)                               # the then side runs first
        for cmd, (pc0, bl), bps, al, pc1, ev in R["runs"]:
            self.assertIsNone(bps, cmd)
            self.assertEqual((al[1], pc1), (0, pc0), cmd + ": lane 0 still waits where it did")
            self.assertEqual(al, bl, cmd)
        self.assertEqual(len(re.findall(r"vxreplay: stopped where warp \d+ reached a breakpoint "
                                        r"at 0x[0-9a-f]+ without lane 0 \(vx-thread \d+ 1 shows "
                                        r"it\)", out)), 3, out[-3000:])
        self.assertEqual(len(re.findall(r"Thread \d+ \"warp \d+ lane 0\" stopped\.", out)), 3)
        self.assertNotIn("internal-error", out)

    def test_waiting_lane_resumed_again_moves_on(self):
        """the same command again, from that stop (or from a breakpoint stop, forward or
        backward, of the lanes at it, reported in an odd lane), moves lane 0 on: the hit
        was shown (engine.c rep_bp).  Without that, each stepi, step or advance of the
        waiting lane would stop at the same event again, for ever."""
        out, R = self.gdb('''
stop_at("rrdiverge.c:THEN_LINE")
w, l = warp_lane()
ex("break twice")
n0 = int(re.search(r"event (\\d+) of", ex("monitor when")).group(1))
def ev():
    return int(re.search(r"event (\\d+) of", ex("monitor when")).group(1))
R["w"] = w
R["twice"] = int(re.search(r"starts at address (0x[0-9a-f]+)",
                           ex("info line rrdiverge.c:TWICE_LINE")).group(1), 16)
R["negate"] = int(re.search(r"starts at address (0x[0-9a-f]+)",  # past its prologue
                            ex("info line rrdiverge.c:NEGATE_LINE")).group(1), 16)
R["runs"] = []
ex("vx-thread %d 0" % w)
go("advance negate")
go("advance negate")
n1 = ev()  # lane 0 in negate, past the hit
for first in ("stepi", "step", "advance negate", "continue", "reverse-continue"):
    for cmd in ("stepi", "step", "advance negate"):
        ex("vx-seek %d" % (n1 if first == "reverse-continue" else n0))
        ex("vx-thread %d %d" % (w, 1 if "continue" in first else 0))
        go(first)
        at = [ev(), warp_lane(), pc()]
        ex("vx-thread %d 0" % warp_lane()[0])
        pc0 = pc()
        st = go(cmd)
        R["runs"].append([first, cmd, at, pc0, st.get("bps"), warp_lane(), pc(), ev()])
'''.replace("THEN_LINE", str(self.lines["THEN"])).replace("NEGATE_LINE", str(self.lines["NEGATE"]))
                               .replace("TWICE_LINE", str(self.lines["TWICE"])))
        w = R["w"]
        for first, cmd, (ev1, wl1, pc1), pc0, bps, wl2, pc2, ev2 in R["runs"]:
            what = "%s then %s" % (first, cmd)
            if "continue" in first:
                self.assertEqual(wl1[1] % 2, 1, what + ": the hit is reported in an odd lane")
                self.assertEqual(pc1, R["twice"], what)
            else:
                self.assertEqual(wl1, [w, 0], what)
            self.assertEqual(wl2, [wl1[0], 0], what + ": the resumed thread")
            self.assertGreater(ev2, ev1, what + ": moved on")
            self.assertIsNone(bps, what)
            self.assertNotEqual(pc2, pc0, what + ": lane 0 ran")
            if cmd == "advance negate":
                self.assertEqual(pc2, R["negate"], what)
        self.assertNotIn("internal-error", out)

    def test_watch_while_stepping_a_masked_off_lane(self):
        """a watchpoint that fires while GDB steps a masked-off lane names the stepped thread
        (GDB needs it) and the console names the lane that made the access"""
        out, R = self.gdb('''
stop_at("rrdiverge.c:THEN_LINE")
w, l = warp_lane()
ex("vx-thread %d 1" % w)
ex("watch -l acc")
ex("vx-thread %d 0" % w)
R["w"] = w
for i in range(80):
    st = go("stepi")
    if "bps" in st:
        break
R["stop"] = [st.get("bps"), warp_lane()]
'''.replace("THEN_LINE", str(self.lines["THEN"])))
        w = R["w"]
        bps, (sw, sl) = R["stop"]
        self.assertTrue(bps, "the watchpoint fired")
        self.assertEqual((sw, sl), (w, 0), "GDB gets the stepped thread back")
        self.assertIn("vxreplay: lane 1 of warp %d made the access, not the stepped lane 0 "
                      "of warp %d (vx-thread %d 1)" % (w, w, w), out)


    def test_stepi_of_a_waiting_lane(self):
        """stepi from a lane waiting for its side runs until that lane executes one instruction;
        reverse-stepi returns, and once more undoes the lane's own last instruction (the split),
        not the issues it sat out (positions from vxdump --json)"""
        out, R = self.gdb('''
stop_at("twice")
w, l = warp_lane()
ex("vx-thread %d 0" % w)
def when():
    return int(re.search(r"event (\\d+)", ex("monitor when")).group(1))
R["w"] = w
R["start"] = [when(), pc()]
go("stepi")
R["fwd"] = [when(), pc(), warp_lane()]
go("reverse-stepi")
R["back"] = [when(), pc(), warp_lane()]
go("reverse-stepi")
R["back2"] = [when(), pc(), warp_lane()]
''')
        w = R["w"]
        r = vxtest.run([vxtest.prog("vxdump"), "--json", "--kind", "issue", self.trace])
        mine = [e for e in map(json.loads, r.stdout.splitlines())
                if e["type"] == "issue" and e["gwarp"] == w]
        split = next(e for e in mine if e["disasm"].startswith("vx_split") and
                     any(x["kind"] == "ipdom-push" for x in e["wctl"]))
        start, start_pc = R["start"]
        # lane 0's first own issue after the stop, and the warp's issue after it
        own = next(e for e in mine if e["index"] >= start and int(e["tmask"], 16) & 1)
        after = next(e for e in mine if e["index"] > own["index"])
        self.assertEqual(start_pc, split["pc"] + 4, "lane 0 waits after the split")
        self.assertEqual(own["pc"], split["pc"] + 4, "its first own instruction is the next one")
        self.assertEqual(R["fwd"], [own["index"] + 1, after["pc"], [w, 0]])
        self.assertEqual(R["back"], [start, start_pc, [w, 0]])
        self.assertEqual(R["back2"], [split["index"], split["pc"], [w, 0]])

    def test_vx_print_every_lane(self):
        """vx-print EXPR: one line per lane of the warp, the active lanes' values (x is the task
        id: 4 * warp + lane), the lanes waiting for their side marked; the selection stays"""
        out, R = self.gdb('''
stop_at("twice")
w, l = warp_lane()
R["w"] = [w, l]
R["print"] = ex("vx-print x * 2 + 1")
R["after"] = warp_lane()
R["hex"] = ex("vx-print/x x * 2 + 1")
try:
    ex("vx-print/q x")
except gdb.error as e:
    R["badfmt"] = str(e)
''')
        w, l = R["w"]
        lines = R["print"].splitlines()
        self.assertEqual(lines[0], "warp %d, x * 2 + 1:" % w)
        hexl = R["hex"].splitlines()
        self.assertEqual(hexl[0], "warp %d, x * 2 + 1:" % w)
        for lane in range(4):
            if lane % 2:
                self.assertEqual(lines[1 + lane], "  lane %d: %d" % (lane, 2 * (4 * w + lane) + 1))
                self.assertEqual(hexl[1 + lane], "  lane %d: %#x" % (lane, 2 * (4 * w + lane) + 1))
            else:
                self.assertRegex(lines[1 + lane], r"^  lane %d \(waits\): " % lane)
        self.assertEqual(R["after"], [w, l])
        self.assertIn("FMT is one of print's format letters", R["badfmt"])

    def test_vx_print_of_a_finished_warp(self):
        """vx-print at the end of history, where every warp has finished: each lane is
        marked "finished" (as info threads says), not "waits" (for a side of a split)"""
        out, R = self.gdb('''
go("continue")
R["threads"] = ex("info threads")
R["print"] = ex("vx-print results[0]")
''')
        self.assertIn("finished", R["threads"])
        lines = R["print"].splitlines()
        self.assertEqual(len(lines), 5, R["print"])
        for lane in range(4):   # results[0] = 100 + 0 + negate(0)
            self.assertEqual(lines[1 + lane], "  lane %d (finished): 100" % lane)

    def vx_print_at_then(self, expr):
        """vx-print EXPR where the split's then side (odd lanes) runs: the warp, and
        whether each lane's line gives tid * 10 + odd for it ("waits" for even lanes);
        returns the frame selected afterwards."""
        out, R = self.gdb('''
stop_at("rrdiverge.c:THEN_LINE")
w, l = warp_lane()
R["w"] = w
R["print"] = ex("vx-print EXPR")
R["frame"] = gdb.selected_frame().name()
'''.replace("THEN_LINE", str(self.lines["THEN"])).replace("EXPR", expr))
        w = R["w"]
        lines = R["print"].splitlines()
        self.assertEqual(lines[0], "warp %d, %s:" % (w, expr))
        for lane in range(4):
            tid = 4 * w + lane
            self.assertEqual(lines[1 + lane], "  lane %d%s: %d" % (
                lane, "" if lane % 2 else " (waits)", tid * 10 + tid % 2))
        return R["frame"]

    def test_vx_print_waiting_lanes_after_a_split(self):
        """vx-print at the then side of a split: the lanes waiting for the else side stand
        right after the split, inside the inlined vx_split, where the kernel's locals are
        not in scope; they are evaluated in its caller (they printed <No symbol "tid" in
        current context.>)"""
        self.assertEqual(self.vx_print_at_then("tid * 10 + odd"), "body")

    def test_vx_print_reads_thread_locals(self):
        """vx-print of an expression naming the runtime's thread-locals (blockIdx.x, as
        the kernel writes it) reads them per lane as $vx_tls does: GDB itself cannot
        (<Cannot find thread-local variables on this target> in every lane)"""
        self.vx_print_at_then("blockIdx.x * 10 + odd")

    def test_lane_commands_fetch_the_thread_list_once(self):
        """vx-print, vx-thread and a monitor seek fetch the server's thread list once and
        read no other thread's registers (monitor stats counts): at 16K threads a list
        fetch is about 400 packets, and `info threads` reads every thread's frame; they
        fetched it once per lane, and read every frame"""
        out, R = self.gdb('''
stop_at("twice")
def counts():
    m = re.search(r"thread lists sent (\\d+), register reads (\\d+)", ex("monitor stats"))
    return int(m.group(1)), int(m.group(2))
nthreads = len(gdb.selected_inferior().threads())
w, l = warp_lane()
for cmd in ["vx-print x", "vx-thread %d %d" % (w, (l + 1) % NT), "monitor seek 100"]:
    a = counts()
    ex(cmd)
    b = counts()
    R[cmd.split()[0] + " " + cmd.split()[1] if cmd.startswith("monitor") else cmd.split()[0]] = [
        b[0] - a[0], b[1] - a[1]]
R["nthreads"] = nthreads
''')
        self.assertGreaterEqual(R["nthreads"], 8)
        for cmd in ["vx-print", "vx-thread", "monitor seek"]:
            lists, regs = R[cmd]
            self.assertLessEqual(lists, 1, cmd)
            # the selected thread's (and, for vx-print, each lane's own) registers only
            self.assertLess(regs, R["nthreads"], cmd)

    def test_parked_lane_has_no_position(self):
        """a lane parked by tmc (not by divergence) shows pc 0: it has no position of its own
        (warp 0's lanes 1..3 before the spawn enables them); step from it is refused by GDB,
        which crashed on the warp's PC with the lane's stale registers"""
        out, R = self.gdb('''
ex("monitor seek 0")
ex("vx-thread 0 1")
R["threads"] = ex("info threads")
R["pc"] = pc()
R["bt"] = ex("bt")
before = ex("monitor when")
try:
    ex("step")
    R["step"] = "accepted"
except gdb.error as e:
    R["step"] = str(e)
R["same"] = ex("monitor when") == before
''')
        self.assertEqual(R["pc"], 0)
        self.assertIn("core 0 warp 0 lane 1, masked off, parked", R["threads"])
        self.assertRegex(R["bt"], r"^#0  0x00000000 in \?\? \(\)")
        self.assertEqual(R["step"], "Cannot find bounds of current function")
        self.assertTrue(R["same"])

    def test_vx_any_errors_are_clear(self):
        """$vx_any with a condition it cannot evaluate names the condition, warp and lane; with
        no string it says how it is called"""
        out, R = self.gdb('''
ex("break twice if $vx_any(\\"nosuch > 1\\")")
go("continue")
ex("delete")
ex("break twice if $vx_any(5)")
go("continue")
''')
        # (GDB prints errors on stderr, after the session's stdout)
        self.assertRegex(out, r'\$vx_any: cannot evaluate "nosuch > 1" in warp \d+ lane \d+: '
                              r'No symbol "nosuch" in current context\.')
        self.assertIn('$vx_any takes the condition as a string: $vx_any("x > 0.5")', out)

    def test_command_errors_are_plain(self):
        """errors of vxrr.gdb's commands and functions are their own messages (an IDE's
        ^error), not framed as a Python exception: a number in GDB's syntax only (decimal,
        or 0x hex: 017 is 17, 1_000 and 0o17 are refused), $vx_tls of a non-string, and
        every command before connecting says so; vx-seek past 2^64 goes to the end of
        history as any index past it (it printed the server's usage and showed a stop
        where it was)"""
        out, R = self.gdb('''
stop_at("twice")
R["errs"] = {}
for c in ("vx-seek 1_000", "vx-seek 0o17", "vx-thread 1 0b1", "p $vx_tls(5)", "vx-tls"):
    try:
        ex(c)
        R["errs"][c] = "accepted"
    except gdb.error as e:
        R["errs"][c] = str(e)
ex("vx-seek 017")
R["seek17"] = ex("monitor when")
ex("vx-seek 0x11")
R["seek0x11"] = ex("monitor when")
ex("vx-seek 18446744073709551616")
R["seek_big"] = ex("monitor when")
''')
        self.assertEqual(R["errs"]["vx-seek 1_000"],
                         "usage: vx-seek N (an event index)")
        self.assertEqual(R["errs"]["vx-seek 0o17"], "usage: vx-seek N (an event index)")
        self.assertEqual(R["errs"]["vx-thread 1 0b1"], "LANE must be a number, not '0b1'")
        self.assertEqual(R["errs"]["p $vx_tls(5)"],
                         '$vx_tls takes the name as a string: $vx_tls("blockIdx")')
        self.assertEqual(R["errs"]["vx-tls"], "usage: vx-tls NAME")
        self.assertRegex(R["seek17"], r"^event 17 of ")
        self.assertRegex(R["seek0x11"], r"^event 17 of ")
        self.assertRegex(R["seek_big"], r"^event (\d+) of \1\b")   # the end
        self.assertNotIn("Python Exception", out)
        self.assertNotIn("Error occurred in Python", out)
        # before target remote
        r = vxtest.run(["gdb-multiarch", "-nx", "-batch", "-x", vxtest.prog("vxrr.gdb"),
                        "-ex", "vx-lane 1", self.elf])
        self.assertIn("vxrr: not connected to vxreplay (target remote first)", r.stderr)
        self.assertNotIn("Python Exception", r.stdout + r.stderr)

    def test_history_is_read_only(self):
        """assigning to memory or a register is refused with GDB's own explanation (vxrr.gdb)"""
        out, R = self.gdb('''
stop_at("twice")
R["errs"] = []
for cmd in ("set var results[0] = 5", "set var $a0 = 1"):
    try:
        ex(cmd)
        R["errs"].append("accepted")
    except gdb.error as e:
        R["errs"].append(str(e))
R["after"] = [val("results[0]"), val("x") == val("$a0")]
''')
        self.assertRegex(R["errs"][0], r"^Writing to memory is not allowed")
        self.assertRegex(R["errs"][1], r"^Writing to registers is not allowed")
        self.assertEqual(R["after"], [0, True])


class MiTests(unittest.TestCase):
    """GDB/MI, as IDEs drive gdb (async records, no prompt)."""

    @classmethod
    def setUpClass(cls):
        cls.src, cls.elf = build_kernel("rrdiverge")
        cls.trace = rsplib.record(cls.elf, "-w", "2", "-t", "4")

    def mi(self):
        import select
        p = subprocess.Popen(["gdb-multiarch", "--interpreter=mi3", "-nx", "-q", "-x",
                              vxtest.prog("vxrr.gdb"), self.elf],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True, bufsize=1)
        # (stdout is read from its file descriptor, below)
        self.addCleanup(p.kill)
        log, buf = [], [b""]

        def readline():
            # from the pipe itself: a buffered reader would hide lines from select()
            while b"\n" not in buf[0]:
                r, _, _ = select.select([p.stdout], [], [], 60)
                if not r:
                    self.fail("gdb/MI said nothing for 60 s:\n" + "\n".join(log[-20:]))
                chunk = os.read(p.stdout.fileno(), 65536)
                if not chunk:
                    self.fail("gdb/MI ended:\n" + "\n".join(log[-20:]))
                buf[0] += chunk
            line, buf[0] = buf[0].split(b"\n", 1)
            line = line.decode(errors="replace")
            log.append(line)
            return line

        counter = [100]

        def cmd(c):
            counter[0] += 1
            t = str(counter[0])
            p.stdin.write(t + c + "\n")
            p.stdin.flush()
            while True:
                line = readline()
                if line.startswith(t + "^"):
                    return line[len(t):]

        def until_stopped():
            seen = []
            while True:
                line = readline()
                seen.append(line)
                if line.startswith("*stopped"):
                    return seen

        cmd("-target-select remote | %s --stdio %s %s"
            % (vxtest.prog("vxreplay"), getattr(self, "mi_srv_args", ""), self.trace))
        self.log = log
        return cmd, until_stopped

    def test_scheduler_lock_undone_after_failed_and_async_commands(self):
        """vxrr.gdb locks the scheduler for until/finish: a command that fails before running
        (no stop, no prompt under MI) and one that runs (async: ^running first) both leave it
        at "step", so later continues run every warp"""
        cmd, until_stopped = self.mi()
        lock = lambda: cmd("-gdb-show scheduler-locking")  # noqa: E731
        self.assertEqual(lock(), '^done,value="step"')
        self.assertTrue(cmd("-exec-until nosuchplace").startswith("^error"))
        self.assertEqual(lock(), '^done,value="step"')
        self.assertTrue(cmd("-exec-finish").startswith("^error"))   # the outermost frame
        self.assertEqual(lock(), '^done,value="step"')
        self.assertTrue(cmd("-break-insert twice").startswith("^done"))
        self.assertEqual(cmd("-exec-continue"), "^running")
        until_stopped()
        self.assertEqual(cmd("-exec-finish"), "^running")
        stop = until_stopped()[-1]
        self.assertIn('reason="function-finished"', stop)
        self.assertEqual(lock(), '^done,value="step"')

    def test_vx_thread_and_seek_tell_the_ide(self):
        """vx-thread selects a lane as `thread N` does, with =thread-selected for the IDE;
        a seek to where the selected thread's warp does not exist yet selects a live thread
        and says so too (the IDE would keep showing a thread GDB has dropped)"""
        cmd, until_stopped = self.mi()
        self.assertTrue(cmd("-break-insert twice").startswith("^done"))
        self.assertEqual(cmd("-exec-continue"), "^running")
        until_stopped()
        n = len(self.log)
        self.assertEqual(cmd('-interpreter-exec console "vx-thread 1 2"'), "^done")
        sel = [ln for ln in self.log[n:] if ln.startswith("=thread-selected")]
        self.assertEqual(len(sel), 1, self.log[n:])
        self.assertIn('id="', sel[0])
        info = cmd("-thread-info")
        cur = re.search(r'current-thread-id="(\d+)"', info).group(1)
        self.assertIn('id="%s"' % cur, sel[0])
        self.assertRegex(info, r'id="%s",target-id="Thread 7"' % cur)   # 1 + warp 1 * 4 + lane 2
        n = len(self.log)
        # the seek ends with a real stop (vxrr.gdb steps with monitor stop-step armed):
        # ^running, as any command that resumes (front ends treat it as ^done), then
        # *stopped (t5004 checks that record)
        self.assertEqual(cmd('-interpreter-exec console "vx-seek 0"'), "^running")
        until_stopped()
        self.assertTrue([ln for ln in self.log[n:] if ln.startswith("=thread-selected")],
                        self.log[n:])
        self.assertRegex(cmd("-thread-info"), r'current-thread-id="\d+"')

    def test_vx_thread_names_the_lane_for_an_mi_continue(self):
        """after an IDE's -thread-info (GDB then holds every thread's registers and sends
        nothing when one is selected), vx-thread tells the server its lane: the next
        -exec-continue, which runs no hook and names no thread, reports its breakpoint hit
        in that lane (in the previous stop's lane before)"""
        cmd, until_stopped = self.mi()

        def stop_lane():
            stop = until_stopped()[-1]
            tid = re.search(r'thread-id="(\d+)"', stop).group(1)
            target = re.search(r'id="%s",target-id="Thread (\d+)"' % tid, cmd("-thread-info"))
            return (int(target.group(1)) - 1) % 4
        self.assertTrue(cmd("-break-insert twice").startswith("^done"))
        self.assertEqual(cmd("-exec-continue"), "^running")
        first = stop_lane()                          # twice runs in the odd lanes: 1 and 3
        self.assertIn(first, (1, 3))
        want = 4 - first
        m = re.search(r'current-thread-id="(\d+)"', cmd("-thread-info"))
        warp = (int(re.search(r'id="%s",target-id="Thread (\d+)"' % m.group(1),
                              cmd("-thread-info")).group(1)) - 1) // 4
        self.assertEqual(cmd('-interpreter-exec console "vx-thread %d %d"' % (warp, want)),
                         "^done")
        self.assertEqual(cmd("-exec-continue"), "^running")
        self.assertEqual(stop_lane(), want)

    def test_vx_any_stop_selects_its_lane_for_the_ide(self):
        """the lane $vx_any selects after a stop is announced (=thread-selected), so an IDE
        shows the lane where the condition holds"""
        cmd, until_stopped = self.mi()
        self.assertTrue(cmd('-break-insert -c "$vx_any(\\"(float)x == 3.0\\")" twice')
                        .startswith("^done"))
        self.assertEqual(cmd("-exec-continue"), "^running")
        until_stopped()
        frame = cmd("-stack-list-variables --simple-values")   # (the records after the stop)
        # x is the task id: 3 is lane 3 of warp 0, not the lane the stop reports first
        selected = [l for l in self.log if l.startswith("=thread-selected")]
        self.assertTrue(selected, "\n".join(self.log[-30:]))
        self.assertIn('name="x",arg="1",type="int",value="3"', frame)


class OptimizedTests(GdbCase):
    """rrtest built with -O2, on 3 cores of 2 warps of 4 lanes: its 32 tasks are 11, 11
    and 10 a core, and core 0 (the one that runs rrtest's) does its 11 as a run of 4 in
    each warp and a partial run of 3 in warp 0 (the runtime's tail)"""
    opt = "-O2"
    rec_args = ("-c", "3", "-w", "2", "-t", "4")

    def test_runtime_calls_the_kernel(self):
        """every run of the kernel's function has the runtime's frame (vx_spawn.c) as its
        caller, for the partial runs too, where GCC made the call a tail jump before: bt
        skipped the runtime, finish went past it and next over the call stopped inside"""
        out, R = self.gdb('''
ex("break body")
R["hits"] = []
for i in range(40):
    st = go("continue")
    if "bps" not in st:
        break
    f = gdb.selected_frame().older()
    R["hits"].append([st["thread"], f.name(), f.find_sal().symtab.filename])
''')
        self.assertEqual(sorted(t for t, _, _ in R["hits"]), [1, 1, 5], R)  # warps 0, 0, 1
        for t, fn, path in R["hits"]:
            self.assertEqual(os.path.basename(path), "vx_spawn.c", (t, fn, path))


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
    vxtest.main(ReverseTests, PerWarpTests, PerWarpDivergenceTests, TlsFormTests, DeadlockTests,
                LocalMemoryTests, EarlyWarpTests, LostLaneTests, FaultTests, ParkedLaneWatchTests, BacktraceTests,
                PredicatedLaneTests, MaskedLaneTests, MiTests, OptimizedTests, DivergenceTests)
