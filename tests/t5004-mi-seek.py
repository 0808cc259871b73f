#!/usr/bin/env python3
"""t5004 - a seek through vxrr.gdb (vx-seek, vx-restart, a `monitor seek` typed by
the user) is a real stop for GDB: an IDE (GDB/MI) gets *stopped with the frame and
thread, the CLI prints the location, and GDB's next resume starts from there.

vxrr.gdb arms the server (`monitor stop-step TID`) and steps the selected thread;
the server answers that step at once, without moving.  Expectations come from the
server (`monitor when`, `monitor warps`), from the kernel source's line markers and
from the breakpoints' hit counts, never from the output being tested.
"""
import importlib.util
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
import vxtest  # noqa: E402

_spec = importlib.util.spec_from_file_location("t5001", os.path.join(os.path.dirname(__file__), "t5001-gdb.py"))
gdblib = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gdblib)
rsplib = gdblib.rsplib


def mi_fields(record):
    """The top-level name="value" fields of an MI record (frame={...} kept whole)."""
    return dict(re.findall(r'(?:^|,)([\w-]+)="([^"]*)"', re.sub(r"\{[^{}]*\}", "", record)))


class MiSeekTests(unittest.TestCase):
    """An IDE's view: MI records after a seek."""

    mi = gdblib.MiTests.mi  # the MI session of t5001 (self.elf, self.trace)

    @classmethod
    def setUpClass(cls):
        cls.src, cls.elf = gdblib.build_kernel("rrtest")
        cls.lines = gdblib.markers(cls.src)
        cls.trace = rsplib.record(cls.elf)

    def console(self, c, cmd):
        """Run CLI command c; the MI records it printed, up to its result and, when it
        resumed, up to the *stopped record (None if none)."""
        n = len(self.log)
        res = cmd('-interpreter-exec console "%s"' % c)
        recs = self.log[n:]
        stop = None
        if res == "^running":
            recs += self.until_stopped()
            stop = recs[-1]
        return res, recs, stop

    def when(self, cmd):
        n = len(self.log)
        cmd('-interpreter-exec console "monitor when"')
        text = "".join(self.log[n:])
        return int(re.search(r"event (\d+) of", text).group(1))

    def warp_pc(self, cmd, gwarp):
        n = len(self.log)
        cmd('-interpreter-exec console "monitor warps"')
        text = "".join(ln[2:-1] for ln in self.log[n:] if ln.startswith('@"')).replace("\\n", "\n")
        for m in re.finditer(r"^\s*(\d+)\s+\d+\s+\d+\s+0x([0-9a-f]+)", text, re.M):
            if int(m.group(1)) == gwarp:
                return int(m.group(2), 16)
        self.fail("no warp %d in monitor warps: %s" % (gwarp, self.log[n:]))

    def current(self, cmd):
        """(GDB's thread id, its remote id) of the selected thread."""
        info = cmd("-thread-info")
        cur = re.search(r'current-thread-id="(\d+)"', info).group(1)
        remote = re.search(r'id="%s",target-id="Thread (\d+)"' % cur, info).group(1)
        return cur, int(remote)

    def setUp(self):
        cmd, self.until_stopped = self.mi()
        self.cmd = cmd
        self.assertTrue(cmd("-break-insert leaf").startswith("^done"))
        self.assertEqual(cmd("-exec-continue"), "^running")
        self.until_stopped()
        self.hit = self.when(cmd)              # warp 1 (thread 5) reaches leaf first

    def test_vx_seek_stops_for_the_ide(self):
        """vx-seek N: *stopped (end-stepping-range) with the selected thread and its frame
        at the warp's pc there, the position N; the breakpoint's hit count is unchanged"""
        cmd = self.cmd
        target = self.hit - 400
        res, recs, stop = self.console("vx-seek %d" % target, cmd)
        self.assertEqual(res, "^running")
        self.assertIsNotNone(stop, recs)
        f = mi_fields(stop)
        self.assertEqual(f.get("reason"), "end-stepping-range", stop)
        self.assertEqual(self.when(cmd), target)
        cur, remote = self.current(cmd)
        self.assertEqual(f.get("thread-id"), cur)
        addr = int(re.search(r'frame=\{addr="(0x[0-9a-f]+)"', stop).group(1), 16)
        self.assertEqual(addr, self.warp_pc(cmd, (remote - 1) // 4))
        self.assertIn('times="1"', cmd("-break-info 1"))

    def test_seek_onto_a_breakpoint_is_no_hit(self):
        """a seek that lands the selected thread on its breakpoint: a plain stop there
        (the line of leaf's marker), not a second hit; the next continue goes on to the
        next warp's hit"""
        cmd = self.cmd
        res, recs, stop = self.console("vx-seek %d" % self.hit, cmd)
        self.assertIsNotNone(stop, recs)
        f = mi_fields(stop)
        self.assertEqual(f.get("reason"), "end-stepping-range", stop)
        self.assertIn('line="%d"' % self.lines["LEAF_MUL"], stop)
        self.assertIn('times="1"', cmd("-break-info 1"))
        self.assertEqual(cmd("-exec-continue"), "^running")
        stop = self.until_stopped()[-1]
        self.assertIn('reason="breakpoint-hit"', stop)
        self.assertEqual(self.when(cmd), self.hit + 1)   # warp 2, the issue after warp 1's

    def test_monitor_seek_and_restart_stop_too(self):
        """a `monitor seek` typed in the IDE's console, and vx-restart: *stopped as well; a
        monitor command that does not move (when) resumes nothing"""
        cmd = self.cmd
        n = len(self.log)
        cmd('-interpreter-exec console "monitor checkpoint"')
        self.assertTrue(any("checkpoint 1 at event" in ln for ln in self.log[n:]), self.log[n:])
        res, recs, stop = self.console("monitor seek 100", cmd)
        self.assertIsNotNone(stop, recs)
        self.assertEqual(self.when(cmd), 100)
        res, recs, stop = self.console("vx-restart 1", cmd)
        self.assertIsNotNone(stop, recs)
        self.assertEqual(self.when(cmd), self.hit)
        self.assertIn('line="%d"' % self.lines["LEAF_MUL"], stop)
        res, recs, stop = self.console("monitor when", cmd)
        self.assertEqual(res, "^done")
        self.assertFalse([r for r in recs if r.startswith("*running")], recs)

    def test_seek_to_the_ends_and_in_reverse(self):
        """past the end: the end of history, stopped there; to 0 with exec-direction
        reverse (the step GDB sends is bs): event 0, thread 1 at the entry point"""
        cmd = self.cmd
        res, recs, stop = self.console("vx-seek 99999999", cmd)
        self.assertIsNotNone(stop, recs)
        end = self.when(cmd)
        self.assertTrue(any("end of history" in r for r in recs), recs)
        self.assertEqual(cmd("-gdb-set exec-direction reverse"), "^done")
        res, recs, stop = self.console("vx-seek 0", cmd)
        self.assertIsNotNone(stop, recs)
        self.assertEqual(self.when(cmd), 0)
        self.assertEqual(mi_fields(stop).get("reason"), "end-stepping-range", stop)
        self.assertIn('addr="0x80000000"', stop)
        self.assertEqual(self.current(cmd)[1], 1)
        self.assertGreater(end, self.hit)


class CliSeekTests(gdblib.GdbCase):
    """The CLI's view of the same."""

    def test_vx_seek_prints_the_location_and_resumes_from_there(self):
        """vx-seek back to warp 1's hit of leaf while warp 2's thread (at leaf there too) is
        selected: the location is printed; continue then reports warp 1's hit at that very
        position (GDB steps warp 2 over its breakpoint first: the hits that step passes
        come first), not the next one further on"""
        out, R = self.gdb('''
ex("break leaf")
go("continue")
R["hit"] = int(re.search(r"event (\\d+)", ex("monitor when")).group(1))
R["t1"] = warp_lane()
go("continue")
R["t2"] = warp_lane()
st = go("vx-seek %d" % R["hit"])
R["seek"] = st
R["seek_when"] = st["when"]
st = go("continue")
R["cont"] = [st.get("bps"), warp_lane(), st["when"]]
R["hits"] = gdb.breakpoints()[0].hit_count
''')
        self.assertEqual(R["t1"], [1, 0])
        self.assertEqual(R["t2"], [2, 0])
        self.assertRegex(R["seek_when"], r"^event %d of" % R["hit"])
        self.assertNotIn("bps", R["seek"])                   # a stop, not a hit
        seg = gdblib.segments(out)[2][1]
        self.assertRegex(seg, r"leaf \(x=\d+\) at .*rrtest\.c:%d\n" % self.lines["LEAF_MUL"])
        self.assertEqual(R["cont"][:2], [[1], [1, 0]])
        self.assertRegex(R["cont"][2], r"^event %d of" % R["hit"])
        self.assertEqual(R["hits"], 3)


class PerWarpMiTests(unittest.TestCase):
    """--thread-per-warp under GDB/MI: the thread is the warp, so choosing a lane changes
    no thread GDB knows of."""

    mi = gdblib.MiTests.mi
    mi_srv_args = "--thread-per-warp"

    @classmethod
    def setUpClass(cls):
        cls.src, cls.elf = gdblib.build_kernel("rrtest")
        cls.trace = rsplib.record(cls.elf)

    def test_vx_lane_refreshes_the_ide(self):
        """vx-lane L gives the IDE a stop (there is no =thread-selected: the thread is the
        same), and the registers and variables it then reads are lane L's: leaf's x is
        that lane's task (rrtest: leaf(blockIdx.x))"""
        cmd, until_stopped = self.mi()
        self.assertTrue(cmd("-break-insert leaf").startswith("^done"))
        self.assertEqual(cmd("-exec-continue"), "^running")
        until_stopped()
        info = cmd("-thread-info")
        cur = re.search(r'current-thread-id="(\d+)"', info).group(1)
        ev = lambda e: int(re.search(r'value="(-?\d+)"', cmd("-data-evaluate-expression " + e)).group(1))  # noqa: E731
        lane0, x0 = ev("$mhartid") % 4, ev("x")   # the stop's lane and its task
        n = len(self.log)
        res = cmd('-interpreter-exec console "vx-lane 2"')
        self.assertEqual(res, "^running")
        stop = until_stopped()[-1]
        self.assertEqual(mi_fields(stop).get("thread-id"), cur, stop)
        self.assertFalse([ln for ln in self.log[n:] if ln.startswith("=thread-selected")])
        self.assertEqual(ev("$mhartid") % 4, 2)
        # a warp's lanes run consecutive tasks (blockIdx.x): lane 2's is lane0's + 2 - lane0
        self.assertNotEqual(lane0, 2)
        self.assertEqual(ev("x"), x0 + 2 - lane0)


if __name__ == "__main__":
    gdblib.prerequisites()
    vxtest.main(MiSeekTests, CliSeekTests, PerWarpMiTests)
