#!/usr/bin/env python3
"""t5002 - vxreplay protocol semantics a debugger relies on, checked with the raw client.

- watchpoint timing (RISC-V): forward, the stop comes before the store (memory
  still old); backward, after it (memory already new) and one reverse step
  undoes it;
- --thread-per-warp: one thread per warp, 'monitor lane N' picks the lane whose
  registers are shown;
- 0x03 interrupts a long continue (and a long reverse-continue with a read
  watchpoint, which re-executes);
- a small --mem budget still rebuilds the same states (checkpoints thinned);
- a new client starts at event 0 with no breakpoints left from the last one.
"""
import bisect
import importlib.util
import json
import os
import re
import struct
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
import vxtest  # noqa: E402

_spec = importlib.util.spec_from_file_location("t5000", os.path.join(os.path.dirname(__file__), "t5000-rsp.py"))
rsplib = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rsplib)

HERE = os.path.dirname(os.path.abspath(__file__))


def elf_symbol(path, name):
    """Value of a symbol in an ELF32 file's .symtab."""
    with open(path, "rb") as f:
        d = f.read()
    shoff, = struct.unpack_from("<I", d, 32)
    shentsize, shnum = struct.unpack_from("<HH", d, 46)
    secs = [struct.unpack_from("<10I", d, shoff + i * shentsize) for i in range(shnum)]
    for s in secs:
        if s[1] != 2:  # SHT_SYMTAB
            continue
        strtab = secs[s[6]]
        for off in range(s[4], s[4] + s[5], 16):
            st_name, st_value = struct.unpack_from("<II", d, off)
            start = strtab[4] + st_name
            end = d.index(b"\0", start)
            if d[start:end].decode() == name:
                return st_value
    raise KeyError(name)


def t6kit_events(trace, *args):
    """vxdump --json's events of trace (with args)."""
    r = vxtest.run([vxtest.prog("vxdump"), "--json"] + list(args) + [trace])
    return [json.loads(ln) for ln in r.stdout.splitlines()]


def sgemm(n):
    """kernel/examples/sgemm.cpp built for N = n (vxcc -O2): its path."""
    out = os.path.join(vxtest.tmpdir(), "sgemm%d.elf" % n)
    r = vxtest.run([vxtest.prog("vxcc"), "-O2", "-DN=%d" % n, "-o", out,
                    os.path.join(vxtest.ROOT, "kernel", "examples", "sgemm.cpp")])
    if r.returncode != 0:
        raise RuntimeError(r.stderr)
    return out


def build(name, *flags):
    src = os.path.join(HERE, "kernels", name + ".c")
    out = os.path.join(vxtest.tmpdir(), name + ".elf")
    r = vxtest.run([vxtest.prog("vxcc"), "-O0", "-g"] + list(flags) + ["-o", out, src])
    if r.returncode != 0:
        raise RuntimeError(r.stderr)
    return out


def mem32(c, addr):
    return struct.unpack("<I", bytes.fromhex(c.cmds("m%x,4" % addr)))[0]


class WatchTiming(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.elf = build("rrtest")
        cls.total = elf_symbol(cls.elf, "total")
        cls.trace = rsplib.record(cls.elf)
        cls.srv = rsplib.Server(cls.trace)

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()

    def test_write_watch_timing(self):
        """write watchpoint: reported before the store going forward, after it going backward"""
        c = self.srv.client()
        c.handshake()
        A = self.total
        self.assertEqual(c.cmds("Z2,%x,4" % A), "OK")
        for attempt in range(10):   # the start-up code clears it first: wait for a store that changes it
            old = mem32(c, A)
            sig, f = rsplib.parse_stop(c.cmd("vCont;c"))
            self.assertTrue(A <= int(f["watch"], 16) < A + 4)
            self.assertEqual(mem32(c, A), old)             # the store has not happened yet
            tid = int(f["thread"], 16)
            # what GDB does next: remove, step the thread, re-insert
            self.assertEqual(c.cmds("z2,%x,4" % A), "OK")
            rsplib.parse_stop(c.cmd("vCont;s:%x" % tid))
            new = mem32(c, A)
            self.assertEqual(c.cmds("Z2,%x,4" % A), "OK")
            if new != old:
                break
        self.assertNotEqual(new, old)                      # now it has
        # backward: the stop comes with the store still done, a reverse step undoes it
        sig, f = rsplib.parse_stop(c.cmd("bc"))
        self.assertTrue(A <= int(f["watch"], 16) < A + 4)
        self.assertEqual(mem32(c, A), new)
        self.assertEqual(c.cmds("z2,%x,4" % A), "OK")
        self.assertEqual(c.cmds("Hc%x" % int(f["thread"], 16)), "OK")
        rsplib.parse_stop(c.cmd("bs"))
        self.assertEqual(mem32(c, A), old)
        c.send("D")
        c.reply()
        c.close()

    def test_reverse_step_undoes_forward_step_with_watchpoints(self):
        """a reverse step right after forward steps returns to where the last one began
        (every warp as it was), whether or not a write, read or access watchpoint that
        the steps do not touch is set (a read one is checked by running the step
        again; the stepped-over access itself: test_write_watch_timing)"""
        where = lambda c: int(re.search(r"event (\d+) of", c.monitor("when")[1]).group(1))  # noqa: E731
        res = {}
        for z in (None, 2, 3, 4):
            c = self.srv.client()
            c.handshake()
            c.monitor("seek 1500")
            tid = int(rsplib.parse_stop(c.cmd("?"))[1]["thread"], 16)
            rsplib.parse_stop(c.cmd("vCont;s:%x" % tid))
            began = where(c)
            if z:
                self.assertEqual(c.cmds("Z%d,%x,4" % (z, self.total + 64)), "OK")
            rsplib.parse_stop(c.cmd("vCont;s:%x" % tid))
            c.cmds("Hc%x" % tid)
            sig, f = rsplib.parse_stop(c.cmd("bs"))
            res[z] = (where(c), f.get("watch", f.get("rwatch", f.get("awatch"))), began)
            c.send("D")
            c.reply()
            c.close()
        self.assertEqual(res[None][:2], (res[None][2], None))
        for z in (2, 3, 4):
            self.assertEqual(res[z], res[None], "Z%d" % z)

    def test_reverse_steps_search_with_a_read_watchpoint(self):
        """reverse steps with a read watchpoint set (on a word nothing reads) that have no
        forward step to undo (a seek came between) re-execute history to find where each
        ends, as a read is not recorded: each ends at the stepped lane's last issue before
        where it began (vxdump's masks), showing the registers the forward steps showed
        there (x0..x31, pc, the FPU's: the CSRs after them count every warp's cycles), in
        reverse order; without the watchpoint (the trace is scanned) the same"""
        r = vxtest.run([vxtest.prog("vxdump"), "--json", "--kind", "issue", self.trace])
        issues = [(e["index"], e["gwarp"], int(e["tmask"], 16))
                  for e in map(json.loads, r.stdout.splitlines()) if e["type"] == "issue"]
        w, lane, n = 1, 1, 30
        tid = 1 + w * 4 + lane
        where = lambda c: int(re.search(r"event (\d+) of", c.monitor("when")[1]).group(1))  # noqa: E731
        c = self.srv.client()
        c.handshake()
        c.monitor("seek 1500")
        self.assertEqual(c.cmds("Hg%x" % tid), "OK")
        fwd = []
        for _ in range(n):
            fwd.append(c.cmds("g")[:69 * 8])
            sig, f = rsplib.parse_stop(c.cmd("vCont;s:%x" % tid))
            self.assertEqual((sig, f.get("replaylog")), (5, None))
        end = where(c)
        self.assertGreater(end - 1500, 2 * n)      # other warps' issues in between
        want, p = [], end
        for _ in range(n):
            p = max(i for i, g, m in issues if g == w and m >> lane & 1 and i < p)
            want.append(p)
        back = {}
        for z in (None, 3):
            c.monitor("seek %d" % end)              # no forward step left to undo
            if z:
                self.assertEqual(c.cmds("Z3,10,4"), "OK")
            self.assertEqual(c.cmds("Hc%x" % tid), "OK")
            got = []
            for _ in range(n):
                sig, f = rsplib.parse_stop(c.cmd("bs"))
                self.assertEqual((sig, f.get("replaylog"), f.get("rwatch")), (5, None, None))
                got.append((where(c), c.cmds("g")[:69 * 8]))
            if z:
                self.assertEqual(c.cmds("z3,10,4"), "OK")
            back[z] = got
        self.assertEqual([p for p, _ in back[3]], want)
        self.assertEqual([g for _, g in back[3]], fwd[::-1])
        self.assertEqual(back[3], back[None])
        c.send("D")
        c.reply()
        c.close()

    def test_reverse_continue_to_writes_with_a_read_watchpoint(self):
        """reverse-continue to a write watchpoint while a read watchpoint (on a word nothing
        reads) is set too, so that history is re-executed rather than scanned: from the
        end, it stops right after each write of the word that vxdump lists (backward:
        after it), newest first, then at the beginning; as without the read watchpoint"""
        A = self.total
        r = vxtest.run([vxtest.prog("vxdump"), "--json", "--kind", "issue", self.trace])
        writes = [e["index"] for e in map(json.loads, r.stdout.splitlines())
                  if any(m["addr"] < A + 4 and m["addr"] + m["size"] > A for m in e["mem"])]
        self.assertGreater(len(writes), 4)
        want = [i + 1 for i in reversed(writes)]
        where = lambda c: int(re.search(r"event (\d+) of", c.monitor("when")[1]).group(1))  # noqa: E731
        got = {}
        for z in (None, 3):
            c = self.srv.client()
            c.handshake()
            c.monitor("seek 999999999")                       # the end
            self.assertEqual(c.cmds("Z2,%x,4" % A), "OK")
            if z:
                self.assertEqual(c.cmds("Z3,10,4"), "OK")
            stops = []
            for _ in range(len(want) + 1):
                sig, f = rsplib.parse_stop(c.cmd("bc"))
                if "replaylog" in f:
                    self.assertEqual(f["replaylog"], "begin")
                    break
                self.assertNotIn("rwatch", f)
                self.assertTrue(A <= int(f["watch"], 16) < A + 4, f)
                stops.append(where(c))
            got[z] = stops
            c.send("D")
            c.reply()
            c.close()
        self.assertEqual(got[3], want)
        self.assertEqual(got[None], want)

    def test_hg_pick_across_seeks(self):
        """a thread picked with Hg stays the one bs steps (Hc0) across a seek while its warp
        is live, and is dropped by a seek to where its warp does not exist"""
        r = vxtest.run([vxtest.prog("vxdump"), "--json", "--kind", "issue", self.trace])
        w1 = [json.loads(ln)["index"] for ln in r.stdout.splitlines() if json.loads(ln)["gwarp"] == 1]
        self.assertGreater(len(w1), 20)
        c = self.srv.client()
        c.handshake()
        c.monitor("seek %d" % (w1[10] + 1))
        c.cmds("Hg5")                       # warp 1 lane 0
        c.monitor("seek %d" % (w1[12] + 1))
        c.cmds("Hc0")
        sig, f = rsplib.parse_stop(c.cmd("bs"))
        self.assertEqual(int(f["thread"], 16), 5)
        self.assertRegex(c.monitor("when")[1], r"^event %d of" % w1[12])
        c.cmds("Hg5")
        c.monitor("seek 0")                 # only warp 0 exists at the start
        sig, f = rsplib.parse_stop(c.cmd("bs"))
        self.assertEqual((f.get("replaylog"), int(f["thread"], 16)), ("begin", 1))
        c.send("D")
        c.reply()
        c.close()

    def test_begin_reports_an_active_lane(self):
        """a reverse-continue of lane 2's thread that runs out of history stops in lane 0,
        the only active lane at the start"""
        c = self.srv.client()
        c.handshake()
        c.monitor("seek 300")
        c.cmds("Hc3")                       # warp 0 lane 2
        sig, f = rsplib.parse_stop(c.cmd("bc"))
        self.assertEqual((sig, f.get("replaylog")), (5, "begin"))
        self.assertEqual(int(f["thread"], 16), 1)
        c.send("D")
        c.reply()
        c.close()

    def test_range_watch_and_access(self):
        """a watchpoint on a 256-byte array fires for any element; access watchpoints see loads and stores"""
        c = self.srv.client()
        c.handshake()
        out = elf_symbol(self.elf, "out")
        self.assertEqual(c.cmds("Z2,%x,100" % out), "OK")
        sig, f = rsplib.parse_stop(c.cmd("vCont;c"))
        a = int(f["watch"], 16)
        self.assertTrue(out <= a < out + 256)
        self.assertEqual(c.cmds("z2,%x,100" % out), "OK")
        scale = elf_symbol(self.elf, "scale")
        self.assertEqual(c.cmds("Z4,%x,4" % scale), "OK")
        sig, f = rsplib.parse_stop(c.cmd("vCont;c"))
        self.assertEqual(int(f["awatch"], 16), scale)
        first = c.monitor("when")[1]
        self.assertEqual(c.cmds("Z3,%x,4" % scale), "OK")
        self.assertEqual(c.cmds("z4,%x,4" % scale), "OK")
        sig, f = rsplib.parse_stop(c.cmd("vCont;c"))       # the next load of scale
        self.assertEqual(int(f["rwatch"], 16), scale)
        sig, f = rsplib.parse_stop(c.cmd("bc"))            # back to just after the first one
        self.assertEqual(int(f["rwatch"], 16), scale)
        c.cmds("z3,%x,4" % scale)
        c.cmds("Hc%s" % f["thread"])
        rsplib.parse_stop(c.cmd("bs"))
        self.assertEqual(c.monitor("when")[1], first)
        c.send("D")
        c.reply()
        c.close()

    def test_bs_follows_selected_thread(self):
        """bs with Hc0 steps the thread GDB last selected with Hg (else the one that stopped)"""
        c = self.srv.client()
        c.handshake()
        leaf = elf_symbol(self.elf, "leaf")
        c.cmds("Z0,%x,4" % leaf)
        sig, f = rsplib.parse_stop(c.cmd("vCont;c"))
        c.cmds("z0,%x,4" % leaf)
        stopped = int(f["thread"], 16)
        other = stopped + 4 if stopped + 4 <= 16 else stopped - 4     # a lane of another warp
        self.assertEqual(c.cmds("Hg%x" % other), "OK")
        c.cmds("g")
        self.assertEqual(c.cmds("Hc0"), "OK")
        sig, f = rsplib.parse_stop(c.cmd("bs"))
        self.assertEqual(int(f["thread"], 16), other)
        self.assertEqual(c.cmds("Hc0"), "OK")                  # no Hg since that stop: its thread
        sig, f = rsplib.parse_stop(c.cmd("bs"))
        self.assertEqual(int(f["thread"], 16), other)
        c.send("D")
        c.reply()
        c.close()

    def test_new_client_starts_fresh(self):
        """each client starts at event 0 and without the previous client's breakpoints"""
        c = self.srv.client()
        c.handshake()
        leaf = elf_symbol(self.elf, "leaf")
        self.assertEqual(c.cmds("Z0,%x,4" % leaf), "OK")
        rsplib.parse_stop(c.cmd("vCont;c"))
        self.assertNotRegex(c.monitor("when")[1], r"event 0 of")
        c.close()           # vanishes without detaching
        time.sleep(0.2)
        c = self.srv.client()
        c.handshake()
        self.assertRegex(c.monitor("when")[1], r"event 0 of")
        sig, f = rsplib.parse_stop(c.cmd("vCont;c"))
        self.assertEqual(f.get("replaylog"), "end")          # the old breakpoint is gone
        c.send("D")
        c.reply()
        c.close()


class ThreadPerWarp(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.elf = build("rrtest")
        cls.srv = rsplib.Server(rsplib.record(cls.elf), "--thread-per-warp")

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()

    def test_threads_are_warps(self):
        """one thread per warp; monitor lane N selects the lane whose registers are shown"""
        c = self.srv.client()
        c.handshake()
        leaf = elf_symbol(self.elf, "leaf")
        c.cmds("Z0,%x,4" % leaf)
        sig, f = rsplib.parse_stop(c.cmd("vCont;c"))
        tid = int(f["thread"], 16)
        ids = [int(t, 16) for t in c.cmds("qfThreadInfo")[1:].split(",")]
        self.assertEqual(ids, [1, 2, 3, 4])                  # 4 warps, all alive now
        info = bytes.fromhex(c.cmds("qThreadExtraInfo,%x" % tid)).decode()
        self.assertRegex(info, r"core 0 warp %d \(gwarp %d\), \d/4 lanes active" % (tid - 1, tid - 1))
        c.cmds("Hg%x" % tid)
        tid_csr = 65 + 0xCC0
        lanes = []
        for lane in range(4):
            r, out = c.monitor("lane %d" % lane)
            self.assertIn("registers now show lane %d" % lane, out)
            lanes.append((int(c.cmds("p%x" % tid_csr)[:2], 16), c.cmds("p0a")))    # vx_thread_id, a0
        self.assertEqual([l for l, _ in lanes], [0, 1, 2, 3])
        self.assertEqual(len({a0 for _, a0 in lanes}), 4)    # each lane its own argument
        r, out = c.monitor("lane 9")
        self.assertIn("usage", out)
        c.send("D")
        c.reply()
        c.close()

    def test_condition_shows_its_lane(self):
        """with a lane picked (monitor lane 0), a conditional stop shows the lane whose condition held"""
        c = self.srv.client()
        c.handshake()
        c.monitor("lane 0")
        leaf = elf_symbol(self.elf, "leaf")
        # reg a0 (x, on entry) == 13: reg 10; const8 13; equal; end
        self.assertEqual(c.cmds("Z0,%x,4;X7,26000a220d1327" % leaf), "OK")
        sig, f = rsplib.parse_stop(c.cmd("vCont;c"))
        self.assertIn("swbreak", f)
        c.cmds("Hg%s" % f["thread"])
        self.assertEqual(int.from_bytes(bytes.fromhex(c.cmds("p0a")), "little"), 13)
        sig, f = rsplib.parse_stop(c.cmd("vCont;c"))
        self.assertEqual(f.get("replaylog"), "end")          # no other task has x == 13
        c.send("D")
        c.reply()
        c.close()

    def test_watch_shows_writer_lane(self):
        """a write watchpoint hit shows the writing lane, and still does after GDB's step of the warp"""
        c = self.srv.client()
        c.handshake()
        c.monitor("lane auto")
        # 32 tasks on 4 warps x 4 lanes: warp w runs tasks 8w + l and 8w + 4 + l in lane l,
        # so body's store to out[6] is by warp 0, lane 2 (crt0 clears it before, too)
        out6 = elf_symbol(self.elf, "out") + 6 * 4
        tid_csr = 65 + 0xCC0
        hits = []
        for _ in range(8):
            self.assertEqual(c.cmds("Z2,%x,4" % out6), "OK")
            sig, f = rsplib.parse_stop(c.cmd("vCont;c"))
            if "watch" not in f:
                break
            tid = int(f["thread"], 16)
            lane_stop = int(c.cmds("p%x" % tid_csr)[:2], 16)
            shown = c.monitor("lane")[1]
            self.assertEqual(c.cmds("z2,%x,4" % out6), "OK")
            rsplib.parse_stop(c.cmd("vCont;s:%x" % tid))     # GDB steps over the access
            c.cmds("Hg%x" % tid)
            lane_step = int(c.cmds("p%x" % tid_csr)[:2], 16)
            hits.append((tid, lane_stop, lane_step))
            self.assertIn("(warp %d, of the last stop, shows lane %d)" % (tid - 1, lane_stop), shown)
        self.assertEqual(hits[-1], (1, 2, 2))                # body: warp 0 (thread 1), lane 2
        for tid, lane_stop, lane_step in hits:
            self.assertEqual(lane_step, lane_stop)
        c.send("D")
        c.reply()
        c.close()

    def test_breakpoint_with_masked_lane_shown(self):
        """with a lane picked that divergence masks off where the breakpoint is hit, the stop
        still reports the warp's PC (the breakpoint), both ways: the thread is the warp (the
        masked lane's own PC made GDB miss every such hit)"""
        elf = build("rrdiverge")
        trace = rsplib.record(elf, "-w", "2", "-t", "4")
        twice = elf_symbol(elf, "twice")
        r = vxtest.run([vxtest.prog("vxdump"), "--json", "--pc", "0x%x" % twice, trace])
        hits = [json.loads(ln)["index"] for ln in r.stdout.splitlines()
                if json.loads(ln).get("type") == "issue"]
        self.assertEqual(len(hits), 2, "one call of twice per warp (odd lanes)")
        srv = rsplib.Server(trace, "--thread-per-warp")
        try:
            c = srv.client()
            c.handshake()
            c.monitor("lane 0")                      # an even lane: off in twice
            self.assertEqual(c.cmds("Z0,%x,4" % twice), "OK")
            got = []
            for cmd in ("vCont;c", "vCont;c", "vCont;c", "bc", "bc", "bc"):
                sig, f = rsplib.parse_stop(c.cmd(cmd))
                if "replaylog" in f:
                    got.append(f["replaylog"])
                    continue
                self.assertEqual(rsplib.le32(f["20"]), twice)
                got.append(int(re.search(r"event (\d+)", c.monitor("when")[1]).group(1)))
            c.close()
        finally:
            srv.stop()
        self.assertEqual(got, hits + ["end"] + hits[::-1] + ["begin"])


class LaneSteps(unittest.TestCase):
    def test_motions_of_one_warp_stop_at_other_warps_watched_writes(self):
        """a step of warp 0, a reverse step and a reverse-continue locked to it run or undo
        the other warps' issues too (one timeline): a watched write by warp 1 among them
        stops them, naming warp 0's thread (all three crossed it silently)"""
        trace = rsplib.record(build("rrdiverge"), "-w", "4", "-t", "4")
        r = vxtest.run([vxtest.prog("vxdump"), "--json", "--kind", "issue", trace])
        evs = [e for e in map(json.loads, r.stdout.splitlines()) if e["type"] == "issue"]
        w0 = [e["index"] for e in evs if e["gwarp"] == 0]
        k = next(e for e in evs if e["gwarp"] == 1 and e["mem"] and e["mem"][0]["addr"] < 0xFFFF0000
                 and any(i < e["index"] for i in w0) and any(i > e["index"] + 1 for i in w0))
        addr = k["mem"][0]["addr"]
        srv = rsplib.Server(trace)
        try:
            c = srv.client()
            c.handshake()
            when = lambda: int(re.search(r"event (\d+) of", c.monitor("when")[1]).group(1))
            self.assertEqual(c.cmds("Z2,%x,4" % addr), "OK")
            for setup, pkt, pos in (
                    (k["index"], "vCont;s:1", k["index"]),          # forward: before the write
                    (k["index"] + 1, "bs", k["index"] + 1),         # backward: after it
                    (k["index"] + 2, "bc", k["index"] + 1)):        # locked reverse-continue
                c.monitor("seek %d" % setup)
                c.cmds("Hc1")
                sig, f = rsplib.parse_stop(c.cmd(pkt))
                self.assertEqual(f.get("watch"), "%x" % addr, (pkt, f))
                self.assertEqual(f["thread"], "1", "the moving thread")
                self.assertEqual(when(), pos, pkt)
            c.send("D")
            c.reply()
            c.close()
        finally:
            srv.stop()

    def test_step_of_a_parked_lane_stops_at_the_breakpoint_it_wakes_at(self):
        """a lane that tmc has not enabled shows PC 0; stepping it runs its warp until the
        lane takes part in an issue.  When that issue is at a breakpoint, the step stops
        before it (the lane, with the others, arrives there): GDB, seeing the lane at PC 0,
        is not stepping over that breakpoint, and it was executed unreported"""
        trace = rsplib.record(build("rrtest"), "-w", "2", "-t", "4")
        r = vxtest.run([vxtest.prog("vxdump"), "--json", "--kind", "issue", trace])
        evs = [e for e in map(json.loads, r.stdout.splitlines()) if e["type"] == "issue"]
        w = next(e for e in evs if e["gwarp"] == 0 and int(e["tmask"], 16) == 1 and e["index"] > 0)
        wake = next(e for e in evs if e["gwarp"] == 0 and e["index"] > w["index"]
                    and int(e["tmask"], 16) & 2)
        srv = rsplib.Server(trace)
        try:
            c = srv.client()
            c.handshake()
            c.monitor("seek %d" % w["index"])
            self.assertEqual(c.cmds("Hg2"), "OK")                 # warp 0, lane 1
            self.assertEqual(rsplib.le32(c.cmds("p20")), 0)       # parked: PC 0
            self.assertEqual(c.cmds("Z0,%x,4" % wake["pc"]), "OK")
            sig, f = rsplib.parse_stop(c.cmd("vCont;s:2"))
            self.assertIn("swbreak", f)
            self.assertEqual((f["thread"], rsplib.le32(f["20"])), ("2", wake["pc"]))
            n = int(re.search(r"event (\d+) of", c.monitor("when")[1]).group(1))
            self.assertEqual(n, wake["index"])                    # before it, not after
            # GDB then steps over it: the step runs it
            self.assertEqual(c.cmds("z0,%x,4" % wake["pc"]), "OK")
            sig, f = rsplib.parse_stop(c.cmd("vCont;s:2"))
            self.assertNotIn("swbreak", f)
            n = int(re.search(r"event (\d+) of", c.monitor("when")[1]).group(1))
            self.assertEqual(n, wake["index"] + 1)
            c.send("D")
            c.reply()
            c.close()
        finally:
            srv.stop()

    def test_reverse_step_does_not_undo_another_lanes_watched_write(self):
        """a lane step of a lane the warp has not enabled yet runs the other lanes' issues;
        one of them writes a watched word (reported in the stepped thread), and GDB's step
        over it carries out that write only; the next step runs to the lane's first
        issue.  Its reverse step must not undo the watched write silently: it undid the
        whole step, and GDB, keeping the written value, later missed the write.  With a
        watchpoint there, the reverse step is a real one (the lane's last issue)"""
        trace = rsplib.record(build("rrtest"), "-w", "2", "-t", "4")
        r = vxtest.run([vxtest.prog("vxdump"), "--json", "--kind", "issue", trace])
        evs = [e for e in map(json.loads, r.stdout.splitlines()) if e["type"] == "issue"]
        # warp 0 writing with lane 0 alone (lane 1 not enabled yet), and lane 1's first
        # issue after it
        w = next(e for e in evs if e["gwarp"] == 0 and int(e["tmask"], 16) == 1 and e["mem"])
        first1 = next(e["index"] for e in evs if e["gwarp"] == 0 and e["index"] > w["index"]
                      and int(e["tmask"], 16) & 2)
        addr = w["mem"][0]["addr"]
        srv = rsplib.Server(trace)
        try:
            c = srv.client()
            c.handshake()
            c.monitor("seek %d" % w["index"])
            tid = 2  # warp 0, lane 1
            self.assertEqual(c.cmds("Z2,%x,4" % addr), "OK")
            sig, f = rsplib.parse_stop(c.cmd("vCont;s:%x" % tid))
            self.assertIn("watch", f)                          # before lane 0's write
            self.assertEqual(c.cmds("z2,%x,4" % addr), "OK")   # GDB steps over the access
            rsplib.parse_stop(c.cmd("vCont;s:%x" % tid))
            self.assertEqual(c.cmds("Z2,%x,4" % addr), "OK")
            # only the access was carried out (lane 0's: lane 1 did not make it), with the
            # watchpoint out: running on to lane 1's own issue would cross other watched
            # accesses unseen
            n = int(re.search(r"event (\d+) of", c.monitor("when")[1]).group(1))
            self.assertEqual(n, w["index"] + 1)
            written = c.cmds("m%x,4" % addr)
            sig, f = rsplib.parse_stop(c.cmd("vCont;s:%x" % tid))
            self.assertNotIn("watch", f)
            n = int(re.search(r"event (\d+) of", c.monitor("when")[1]).group(1))
            self.assertEqual(n, first1 + 1)                    # lane 1 ran its first issue
            c.cmds("Hc%x" % tid)
            # back where that step began: the write before it stays (the undo of the whole
            # step, when it began before the write, went back before it, silently)
            sig, f = rsplib.parse_stop(c.cmd("bs"))
            self.assertNotIn("watch", f)
            n = int(re.search(r"event (\d+) of", c.monitor("when")[1]).group(1))
            self.assertEqual(n, w["index"] + 1)
            self.assertEqual(c.cmds("m%x,4" % addr), written)
            # and once more: back over the write, which the watchpoint reports
            sig, f = rsplib.parse_stop(c.cmd("bs"))
            self.assertIn("watch", f)
            self.assertEqual(c.cmds("m%x,4" % addr), written)
            c.send("D")
            c.reply()
            c.close()
        finally:
            srv.stop()

    def test_reverse_step_after_a_step_into_the_end_of_history(self):
        """a step of a lane that never runs again (warp 0's lane 1 once the spawn's tmc
        has parked it) runs to the end of history; the reverse step then comes back to
        where that step began (it went to before the lane's last instruction, far back)"""
        trace = rsplib.record(build("rrtest"), "-w", "2", "-t", "4")
        r = vxtest.run([vxtest.prog("vxdump"), "--json", "--kind", "issue", trace])
        evs = [e for e in map(json.loads, r.stdout.splitlines()) if e["type"] == "issue"]
        last = max(e["index"] for e in evs if e["gwarp"] == 0 and int(e["tmask"], 16) & 2)
        srv = rsplib.Server(trace)
        try:
            c = srv.client()
            c.handshake()
            when = lambda: int(re.search(r"event (\d+) of", c.monitor("when")[1]).group(1))  # noqa
            p = last + 1 + (evs[-1]["index"] - last) // 2   # lane 1 parked from here on
            c.monitor("seek %d" % p)
            sig, f = rsplib.parse_stop(c.cmd("vCont;s:2"))
            self.assertEqual(f.get("replaylog"), "end", f)
            self.assertEqual(c.cmds("Hc2"), "OK")
            rsplib.parse_stop(c.cmd("bs"))
            self.assertEqual(when(), p)
            c.close()
        finally:
            srv.stop()

    def test_random_lane_steps_against_the_recorded_masks(self):
        """from random positions, a step of a random (warp, lane) thread ends right after the
        warp's next issue that lane takes part in, and a reverse step at the warp's last such
        issue before it (or stays, at the start of its history): the oracle is the issues'
        masks in vxdump --json, with divergence (rrdiverge) and without (rrtest).  Without
        divergence a lane the warp's next mask leaves out is parked: a step of the issue
        that parks it (tried from each such issue too) ends right after the issue that
        enables it again, or after the warp's last one"""
        import random
        rng = random.Random(4242)
        for kernel, T in (("rrdiverge", 4), ("rrtest", 4)):
            trace = rsplib.record(build(kernel), "-w", "2", "-t", str(T))
            r = vxtest.run([vxtest.prog("vxdump"), "--json", "--kind", "issue", trace])
            evs = [e for e in map(json.loads, r.stdout.splitlines()) if e["type"] == "issue"]
            issues = [(e["index"], e["gwarp"], int(e["tmask"], 16)) for e in evs]
            ends = {e["index"] for e in evs if any(x["kind"] == "deactivate" for x in e["wctl"])}
            end = issues[-1][0] + 1
            srv = rsplib.Server(trace)
            try:
                c = srv.client()
                c.handshake()
                checked = 0
                parks = []  # (position, warp, lane): the lane's issue that parks it
                if kernel == "rrtest":
                    for w in range(2):
                        mine = [(i, m) for i, g, m in issues if g == w]
                        for (i, m), (_, m2) in zip(mine, mine[1:]):
                            if i not in ends:
                                parks += [(i, w, k) for k in range(T)
                                          if m >> k & 1 and not m2 >> k & 1]
                    self.assertTrue(parks, "rrtest parks lanes (tmc 1 after the spawn)")
                tries = [(rng.randrange(0, end), rng.randrange(2), rng.randrange(T),
                          rng.random() < 0.5) for _ in range(120)]
                for p, w, lane, back in tries + [(p, w, k, False) for p, w, k in parks]:
                    c.monitor("seek %d" % p)
                    tid = 1 + w * T + lane
                    if c.cmds("Hc%x" % tid) != "OK":    # the warp does not exist here
                        continue
                    if back:
                        mine = [i for i, g, m in issues if g == w and m >> lane & 1 and i < p]
                        want = mine[-1] if mine else p
                        sig, f = rsplib.parse_stop(c.cmd("bs"))
                    else:
                        mine = [i for i, g, m in issues if g == w and m >> lane & 1 and i >= p]
                        if not mine:
                            continue                    # to the end of history: not this test
                        want = mine[0] + 1
                        warp = [(i, m) for i, g, m in issues if g == w and i > mine[0]]
                        if (kernel == "rrtest" and mine[0] not in ends and warp and
                                not warp[0][1] >> lane & 1):
                            # parked by it: on to the issue that enables it again, or that
                            # ends the warp
                            for k, (i, m) in enumerate(warp):
                                if m >> lane & 1:
                                    want = warp[k - 1][0] + 1
                                    break
                                if i in ends:
                                    want = i + 1
                                    break
                        sig, f = rsplib.parse_stop(c.cmd("vCont;s:%x" % tid))
                    at = int(re.search(r"event (\d+)", c.monitor("when")[1]).group(1))
                    self.assertEqual(at, want, "%s: %s of warp %d lane %d from %d" % (
                        kernel, "bs" if back else "s", w, lane, p))
                    checked += 1
                self.assertGreater(checked, 60)
                c.close()
            finally:
                srv.stop()


class StepOver(unittest.TestCase):
    """GDB's reverse-continue from a breakpoint: z0 at the pc, bs (the warp alone), Z0, bc."""

    @classmethod
    def setUpClass(cls):
        cls.elf = build("rrtest")
        cls.trace = rsplib.record(cls.elf)
        cls.srv = rsplib.Server(cls.trace)

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()

    def test_backward_step_over_keeps_other_warps_hits(self):
        """every warp's hit at leaf, in reverse order, although each step over goes back past others"""
        leaf = elf_symbol(self.elf, "leaf")
        r = vxtest.run([vxtest.prog("vxdump"), "--json", "--kind", "issue", "--pc", "0x%x" % leaf,
                        self.trace])
        self.assertEqual(r.returncode, 0, r.stderr)
        want = [(e["index"], e["gwarp"]) for e in map(json.loads, r.stdout.splitlines())][::-1]
        self.assertEqual(len(want), 8)                       # 4 warps, 2 runs of tasks each
        c = self.srv.client()
        c.handshake()
        c.cmd("vCont;c")                                     # to the end
        got = []
        for _ in range(len(want) + 1):
            self.assertEqual(c.cmds("Z0,%x,4" % leaf), "OK")
            c.cmds("Hc0")
            sig, f = rsplib.parse_stop(c.cmd("bc"))
            if "replaylog" in f:
                break
            n = int(re.search(r"event (\d+) of", c.monitor("when")[1]).group(1))
            t = int(f["thread"], 16)
            got.append((n, (t - 1) // 4))
            self.assertEqual(c.cmds("z0,%x,4" % leaf), "OK")  # step over it, that warp only
            c.cmds("Hc%x" % t)
            rsplib.parse_stop(c.cmd("bs"))
        c.send("D")
        c.reply()
        c.close()
        self.assertEqual(got, want)

    def test_forward_step_over_keeps_other_warps_hits(self):
        """GDB steps a warp over a breakpoint it does not stop at (a thread-specific one
        for another thread), twice when the step lands on a second breakpoint: the
        continue that follows still stops at the other warps' hits the steps ran past"""
        leaf = elf_symbol(self.elf, "leaf")
        a, b = leaf, leaf + 4
        r = vxtest.run([vxtest.prog("vxdump"), "--json", "--kind", "issue", self.trace])
        hits = [(e["index"], e["gwarp"], e["pc"]) for e in map(json.loads, r.stdout.splitlines())
                if e["pc"] in (a, b)]
        c = self.srv.client()
        c.handshake()
        c.monitor("seek 0")
        for pc in (a, b):
            self.assertEqual(c.cmds("Z0,%x,4" % pc), "OK")
        c.cmds("Hc0")
        sig, f = rsplib.parse_stop(c.cmd("vCont;c"))
        n = int(re.search(r"event (\d+) of", c.monitor("when")[1]).group(1))
        t = int(f["thread"], 16)
        w = (t - 1) // 4
        self.assertEqual((n, w, a), hits[0])
        # GDB: not this thread's breakpoint; step it over a, then over b where it lands
        for pc in (a, b):
            self.assertEqual(c.cmds("z0,%x,4" % pc), "OK")
            rsplib.parse_stop(c.cmd("vCont;s:%x" % t))
            self.assertEqual(c.cmds("Z0,%x,4" % pc), "OK")
        sig, f = rsplib.parse_stop(c.cmd("vCont;c"))
        n2 = int(re.search(r"event (\d+) of", c.monitor("when")[1]).group(1))
        # the next hit in trace order that is not the stepped warp's own two
        want = next(h for h in hits[1:] if h[1] != w)
        self.assertEqual(n2, want[0], "hits %s" % hits[:12])
        c.send("D")
        c.reply()
        c.close()

    def test_chained_step_over_does_not_repeat_hits(self):
        """a chain of GDB's step overs (the step from one breakpoint lands on the next,
        which GDB steps over too) is not stopped at again by the continue after it, in
        either direction: _start runs once, so both continues reach the edge"""
        a = elf_symbol(self.elf, "_start") + 4
        b = a + 4
        c = self.srv.client()
        c.handshake()
        c.monitor("seek 0")
        for pc in (a, b):
            self.assertEqual(c.cmds("Z0,%x,4" % pc), "OK")
        sig, f = rsplib.parse_stop(c.cmd("vCont;c"))
        self.assertEqual(rsplib.le32(f["20"]), a)
        t = int(f["thread"], 16)
        for pc in (a, b):
            self.assertEqual(c.cmds("z0,%x,4" % pc), "OK")
            rsplib.parse_stop(c.cmd("vCont;s:%x" % t))
            self.assertEqual(c.cmds("Z0,%x,4" % pc), "OK")
        sig, f = rsplib.parse_stop(c.cmd("vCont;c"))
        self.assertEqual(f.get("replaylog"), "end", f)
        # backward: from just after b, the hit at b, then GDB steps back over b and a
        c.monitor("seek 10")
        c.cmds("Hc0")
        sig, f = rsplib.parse_stop(c.cmd("bc"))
        self.assertEqual(rsplib.le32(f["20"]), b)
        for pc in (b, a):
            self.assertEqual(c.cmds("z0,%x,4" % pc), "OK")
            c.cmds("Hc%x" % t)
            rsplib.parse_stop(c.cmd("bs"))
            self.assertEqual(c.cmds("Z0,%x,4" % pc), "OK")
        c.cmds("Hc0")
        sig, f = rsplib.parse_stop(c.cmd("bc"))
        self.assertEqual(f.get("replaylog"), "begin", f)
        c.send("D")
        c.reply()
        c.close()

    def test_no_step_over_after_seek(self):
        """a seek between a breakpoint stop and a reverse step of that warp: no step over
        follows, the reverse-continue searches back from where the step ended"""
        leaf = elf_symbol(self.elf, "leaf")
        r = vxtest.run([vxtest.prog("vxdump"), "--json", "--kind", "issue", "--pc", "0x%x" % leaf,
                        self.trace])
        hits = [(e["index"], e["gwarp"]) for e in map(json.loads, r.stdout.splitlines())]
        r = vxtest.run([vxtest.prog("vxdump"), "--json", "--kind", "issue", self.trace])
        ev = [json.loads(ln) for ln in r.stdout.splitlines()]
        c = self.srv.client()
        c.handshake()
        self.assertEqual(c.cmds("Z0,%x,4" % leaf), "OK")
        first, g = hits[0]
        sig, f = rsplib.parse_stop(c.cmd("vCont;c"))        # the first hit, warp g
        t = int(f["thread"], 16)
        self.assertEqual((t - 1) // 4, g)
        # right after another warp's hit, then one reverse step of warp g (back past that
        # hit), then reverse-continue: that hit is not before where the step ended
        other = [i for i, w in hits if w != g][-1]
        c.monitor("seek %d" % (other + 1))
        c.cmds("Hc%x" % t)
        rsplib.parse_stop(c.cmd("bs"))
        at = int(re.search(r"event (\d+) of", c.monitor("when")[1]).group(1))
        mine = [e["index"] for e in ev if e["gwarp"] == g and e["index"] <= other]
        self.assertEqual(at, mine[-1], "bs goes to warp g's previous issue")
        c.cmds("Hc0")
        sig, f = rsplib.parse_stop(c.cmd("bc"))
        n = int(re.search(r"event (\d+) of", c.monitor("when")[1]).group(1))
        self.assertEqual(n, max(i for i, _ in hits if i < at), "the last hit before, searched from there")
        c.send("D")
        c.reply()
        c.close()


class Interrupts(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # a kernel long enough to interrupt: sgemm, N = 96 (about 2.3 M issues)
        out = sgemm(96)
        cls.elf = out
        cls.srv_trace = rsplib.record(out)
        cls.srv = rsplib.Server(cls.srv_trace)

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()

    def interrupt(self, c, packet, delay):
        """Send packet, then 0x03 after delay seconds (0: in the same write, so that the
        server reads both at once).  The motions take far longer than the delay (the
        whole trace), so 0x03 always arrives while the motion runs or with its packet."""
        if delay:
            c.raw_send(rsplib.frame(packet))
            time.sleep(delay)
            c.raw_send(b"\x03")
        else:
            c.raw_send(rsplib.frame(packet) + b"\x03")
        t = time.time()
        reply = c.reply()
        return rsplib.parse_stop(reply), time.time() - t

    def test_stdio_client_gone_stops_a_motion(self):
        """--stdio: a client that closes its input, then its output, during a long continue
        (every issue run: a read watchpoint) stops the motion and ends the session quietly
        (exit 0); the end of the input alone did not make the server look at its output
        again, and it ran the whole motion, then failed writing the reply (exit 2)"""
        p = subprocess.Popen([vxtest.prog("vxreplay"), "--stdio", self.srv_trace],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
        p.stdin.write(b"+" + b"".join(rsplib.frame(x) for x in ("QStartNoAckMode", "Z3,4,4",
                                                               "vCont;c")))
        p.stdin.close()
        # the replies to the first two packets, then the motion runs: gone (a fixed 50 ms
        # was too short under TSan on a loaded host, which was then still answering)
        got = b""
        while got.count(b"$OK#") < 2:
            b = p.stdout.read1(4096) if hasattr(p.stdout, "read1") else p.stdout.read(1)
            self.assertTrue(b, "vxreplay ended before answering: %r" % got)
            got += b
        p.stdout.close()
        p.wait(timeout=120)
        err = p.stderr.read().decode()
        p.stderr.close()
        self.assertEqual(p.returncode, 0, err)
        self.assertNotIn("could not be written", err)

    def test_interrupt_continue(self):
        """0x03 stops a long continue with SIGINT at a consistent position; the session goes on
        (0x03 sent with the packet, and 20 ms after it)"""
        for delay in (0, 0.02):
            with self.subTest(delay=delay):
                self.interrupt_continue(delay)

    def interrupt_continue(self, delay):
        c = self.srv.client()
        c.handshake()
        # a read watchpoint on a word nothing reads: the continue runs every issue (else it
        # jumps over the chunks that cannot stop it, and ends before the 0x03 comes)
        self.assertEqual(c.cmds("Z3,4,4"), "OK")
        (sig, f), dt = self.interrupt(c, "vCont;c", delay)
        self.assertEqual(sig, 2)
        self.assertEqual(c.cmds("z3,4,4"), "OK")
        m = re.search(r"event (\d+) of (\d+)", c.monitor("when")[1])
        self.assertTrue(0 < int(m.group(1)) < int(m.group(2)))
        g1 = c.cmds("g")
        rsplib.parse_stop(c.cmd("vCont;s:%s" % f["thread"]))
        c.cmds("Hc%s" % f["thread"])
        rsplib.parse_stop(c.cmd("bs"))
        self.assertEqual(c.cmds("g"), g1)
        c.send("D")
        c.reply()
        c.close()

    def test_interrupt_range_step(self):
        """0x03 stops a long range step (vCont;r over the whole address space: the lane's
        every instruction, to the end of history) with SIGINT, as it stops a continue;
        the range step did not look and ran to the end"""
        c = self.srv.client()
        c.handshake()
        (sig, f), dt = self.interrupt(c, "vCont;r0,100000000:1", 0)
        self.assertEqual(sig, 2)
        self.assertNotIn("replaylog", f)
        m = re.search(r"event (\d+) of (\d+)", c.monitor("when")[1])
        self.assertTrue(0 < int(m.group(1)) < int(m.group(2)) - 1000)
        c.send("D")
        c.reply()
        c.close()

    def test_continue_jumps_chunks_that_cannot_stop_it(self):
        """a forward continue to a breakpoint near the end jumps, by a keyframe, over the
        chunks whose digests rule the breakpoint out, and stops where running every issue
        (a read watchpoint on a word nothing reads keeps it from jumping) stops, with the
        same registers in every lane of the warp, and at the first such issue vxdump lists"""
        c = self.srv.client()
        c.handshake()
        when = lambda: int(re.search(r"event (\d+) of (\d+)", c.monitor("when")[1]).group(1))  # noqa: E731
        end = int(re.search(r"event \d+ of (\d+)", c.monitor("when")[1]).group(1))
        c.monitor("seek %d" % (end - 1))
        pc = rsplib.le32(rsplib.parse_stop(c.cmd("?"))[1]["20"])
        r = vxtest.run([vxtest.prog("vxdump"), "--json", "--kind", "issue", "--pc", "0x%x" % pc,
                        self.srv_trace])
        first = json.loads(r.stdout.splitlines()[0])
        self.assertGreater(first["index"], 1000000)              # late: many chunks to jump
        results = []
        for force in (False, True):
            c.monitor("seek 0")
            if force:
                self.assertEqual(c.cmds("Z3,4,4"), "OK")
            self.assertEqual(c.cmds("Z0,%x,4" % pc), "OK")
            before = int(re.search(r"skipped by the summary (\d+)", c.monitor("stats")[1]).group(1))
            sig, f = rsplib.parse_stop(c.cmd("vCont;c"))
            after = int(re.search(r"skipped by the summary (\d+)", c.monitor("stats")[1]).group(1))
            t = f["thread"]
            regs = []
            for lane in range(4):
                c.cmds("Hg%x" % ((int(t, 16) - 1) // 4 * 4 + 1 + lane))
                regs.append(c.cmds("g"))
            results.append((when(), t, regs, after - before))
            self.assertEqual(c.cmds("z0,%x,4" % pc), "OK")
            if force:
                self.assertEqual(c.cmds("z3,4,4"), "OK")
        (pos, t, regs, skipped), (pos2, t2, regs2, skipped2) = results
        self.assertEqual(pos, first["index"])
        self.assertGreater(skipped, 1000000)
        self.assertEqual(skipped2, 0)
        self.assertEqual((pos, t, regs), (pos2, t2, regs2))
        c.send("D")
        c.reply()
        c.close()

    def test_continue_from_inside_a_chunk_stops_in_it(self):
        """a continue that starts inside a chunk holding its next hit stops there: the
        chunks after it that cannot stop it must not make it jump over the rest of its own
        (it did, to a keyframe a million issues on); breakpoints at PCs run early, each
        continued to from a few issues before its first hit, as vxdump lists them"""
        c = self.srv.client()
        c.handshake()
        when = lambda: int(re.search(r"event (\d+) of", c.monitor("when")[1]).group(1))  # noqa: E731
        for at in (50, 500, 5000):
            c.monitor("seek %d" % at)
            pc = rsplib.le32(rsplib.parse_stop(c.cmd("?"))[1]["20"])
            r = vxtest.run([vxtest.prog("vxdump"), "--json", "--kind", "issue", "--pc",
                            "0x%x" % pc, "--to", "20000", self.srv_trace])
            hits = [json.loads(ln)["index"] for ln in r.stdout.splitlines()]
            start = max(0, hits[0] - 3)
            c.monitor("seek %d" % start)
            self.assertEqual(c.cmds("Z0,%x,4" % pc), "OK")
            sig, f = rsplib.parse_stop(c.cmd("vCont;c"))
            self.assertIn("swbreak", f)
            self.assertEqual(when(), min(h for h in hits if h >= start), at)
            self.assertEqual(c.cmds("z0,%x,4" % pc), "OK")
        c.send("D")
        c.reply()
        c.close()

    def test_0x03_inside_a_packet_is_data(self):
        """a packet that arrives while a continue runs, with a 0x03 in it (an escaped '#'
        is "}\\x03"), does not interrupt the continue: inside a packet 0x03 is data"""
        c = self.srv.client()
        c.handshake()
        c.raw_send(rsplib.frame("vCont;c"))
        time.sleep(0.02)
        c.raw_send(rsplib.frame(b"X80000000,1:#"))            # sent as "}\x03"
        sig, f = rsplib.parse_stop(c.reply())
        self.assertEqual((sig, f.get("replaylog")), (5, "end"))
        self.assertEqual(c.reply()[:1], b"E")                    # the write, refused
        c.send("D")
        c.reply()
        c.close()

    def test_interrupt_seek(self):
        """a 0x03 right behind 'monitor seek' to the end stops the replay towards it at a
        whole position past the last keyframe before the end (events read back as vxdump
        lists them there), said in the reply; the next continue is not interrupted.  (A
        server of its own: the shared one has checkpoints near the end by now.)"""
        srv = rsplib.Server(self.srv_trace)
        self.addCleanup(srv.stop)
        c = srv.client()
        c.handshake()
        end = int(re.search(r"events=(\d+)", c.monitor("config")[1]).group(1))
        kf = int(re.search(r"keyframes (\d+)", c.monitor("stats")[1]).group(1))
        self.assertGreater(kf, 1)
        last_kf = (kf - 1) * 1000000        # (vxrec's default: one every 1 M issues)
        self.assertGreater(end - last_kf, 100000, "a long replay from the last keyframe")
        c.console = []
        c.raw_send(rsplib.frame("qRcmd," + ("seek %d" % end).encode().hex()) + b"\x03")
        self.assertEqual(c.reply(), b"OK")
        m = re.search(r"seek to event %d interrupted at event (\d+)\n" % end, "".join(c.console))
        self.assertTrue(m, c.console)
        at = int(m.group(1))
        self.assertTrue(last_kf <= at < end, at)
        ev = t6kit_events(self.srv_trace, "--from", str(at), "--to", str(at))[0]
        self.assertRegex(c.monitor("when")[1], r"^event %d of %d, .*: core %d warp %d .*issues pc 0x%x"
                         % (at, end, ev["core"], ev["warp"], ev["pc"]))
        sig, f = rsplib.parse_stop(c.cmd("vCont;c"))
        self.assertEqual((sig, f.get("replaylog")), (5, "end"))
        c.send("D")
        c.close()

    def test_interrupt_while_stopped(self):
        """a 0x03 that arrives while stopped (GDB evaluating a condition itself, say) stops
        the next resume at once; the one after runs"""
        c = self.srv.client()
        c.handshake()
        c.monitor("seek 1000")
        before = c.monitor("when")[1]
        c.raw_send(b"\x03")
        sig, f = rsplib.parse_stop(c.cmd("vCont;c"))
        self.assertEqual(sig, 2)
        self.assertEqual(c.monitor("when")[1], before)            # it did not move
        sig, f = rsplib.parse_stop(c.cmd("vCont;s:%s" % f["thread"]))
        self.assertEqual(sig, 5)                                  # a step, not SIGINT again
        self.assertNotEqual(c.monitor("when")[1], before)
        # GDB's own resume after a breakpoint stop: a step over it, then a continue; the
        # 0x03 that came in between stops the continue
        pc = rsplib.le32(rsplib.parse_stop(c.cmd("?"))[1]["20"])
        self.assertEqual(c.cmds("Z0,%x,4" % pc), "OK")
        c.monitor("seek 0")
        sig, f = rsplib.parse_stop(c.cmd("vCont;c"))
        self.assertIn("swbreak", f)
        c.raw_send(b"\x03")
        self.assertEqual(c.cmds("z0,%x,4" % pc), "OK")
        sig, f = rsplib.parse_stop(c.cmd("vCont;s:%s" % f["thread"]))
        self.assertEqual(sig, 5)
        self.assertEqual(c.cmds("Z0,%x,4" % pc), "OK")
        stepped = c.monitor("when")[1]
        sig, f = rsplib.parse_stop(c.cmd("vCont;c"))
        self.assertEqual(sig, 2)
        self.assertEqual(c.monitor("when")[1], stepped, "the stop is where the step ended")
        c.send("D")
        c.reply()
        c.close()

    def test_stale_interrupt_does_not_cancel_a_step(self):
        """a 0x03 while stopped followed by the user's step (an IDE's pause racing a stop):
        the step moves, and the continue after it runs"""
        c = self.srv.client()
        c.handshake()
        c.monitor("seek 1000")
        before = c.monitor("when")[1]
        tid = rsplib.parse_stop(c.cmd("?"))[1]["thread"]
        c.raw_send(b"\x03")
        sig, f = rsplib.parse_stop(c.cmd("vCont;s:%s" % tid))
        self.assertEqual(sig, 5)
        self.assertNotEqual(c.monitor("when")[1], before)
        sig, f = rsplib.parse_stop(c.cmd("vCont;c"))
        self.assertNotEqual(sig, 2)
        c.send("D")
        c.reply()
        c.close()

    def test_interrupt_reverse_with_read_watch(self):
        """0x03 stops a reverse-continue that re-executes (read watchpoint) where its search
        got to, a consistent position (0x03 sent with the packet, and 20 ms after it)"""
        for delay in (0, 0.02):
            with self.subTest(delay=delay):
                self.interrupt_reverse(delay)

    def interrupt_reverse(self, delay):
        c = self.srv.client()
        c.handshake()
        c.monitor("seek 2000000")
        self.assertEqual(c.cmds("Z3,10,4"), "OK")      # an address nothing reads
        (sig, f), dt = self.interrupt(c, "bc", delay)
        self.assertEqual(sig, 2)
        # it stops where the search got to (history after it searched whole), in a
        # state that is that position's
        at = int(re.search(r"event (\d+) of", c.monitor("when")[1]).group(1))
        self.assertLessEqual(at, 2000000)
        g = c.cmds("g")
        c.monitor("seek %d" % at)
        self.assertEqual(c.cmds("g"), g)
        c.send("D")
        c.reply()
        c.close()


class SmallBudget(unittest.TestCase):
    def test_small_memory_budget(self):
        """with --mem 1M the same registers come back after steps and reverse steps"""
        elf = build("rrtest")
        srv = rsplib.Server(rsplib.record(elf), "--mem", "1M")
        try:
            c = srv.client()
            c.handshake()
            states = []
            for i in range(40):
                states.append(c.cmds("g"))
                c.cmd("vCont;s:1")
            c.cmds("Hc1")
            back = []
            for i in range(40):
                c.cmd("bs")
                back.append(c.cmds("g"))
            self.assertEqual(back, list(reversed(states)))
            c.monitor("seek 2000")
            g = c.cmds("g")
            c.monitor("seek 10")
            c.monitor("seek 2000")
            self.assertEqual(c.cmds("g"), g)
            stats = c.monitor("stats")[1]
            m = re.search(r"using ([\d.]+) MiB of ([\d.]+) MiB", stats)
            self.assertLessEqual(float(m.group(1)), float(m.group(2)))
            c.send("D")
            c.reply()
            c.close()
        finally:
            srv.stop()

    def test_budget_bounds_the_memory(self):
        """--mem bounds what the checkpoints take: the server's peak memory over a whole
        continue grows with the budget by at most the budget (pages the machine writes
        after a checkpoint become the checkpoint's and must be counted)"""
        if os.path.basename(vxtest.BUILD) == "tsan":   # (ASan's quarantine is fine here)
            self.skipTest("ThreadSanitizer's allocator and shadow memory grow with the run")
        out = os.path.join(vxtest.tmpdir(), "vecadd400k.elf")
        r = vxtest.run([vxtest.prog("vxcc"), "-O2", "-DN=400000", "-o", out,
                        os.path.join(vxtest.ROOT, "kernel", "examples", "vecadd.c")])
        self.assertEqual(r.returncode, 0, r.stderr)
        trace = rsplib.record(out)

        def peak(budget):
            srv = rsplib.Server(trace, "--mem", budget)
            try:
                c = srv.client()
                c.handshake()
                self.assertEqual(c.cmds("Z3,4,4"), "OK")        # (nothing reads it: every issue runs)
                rsplib.parse_stop(c.cmd("vCont;c"))             # 14 M issues, 3 arrays written
                with open("/proc/%d/status" % srv.p.pid) as f:
                    hwm = [int(ln.split()[1]) for ln in f if ln.startswith("VmHWM")][0]
                used = float(re.search(r"using ([\d.]+) MiB", c.monitor("stats")[1]).group(1))
                c.close()
            finally:
                srv.stop()
            return hwm * 1024, used

        low, _ = peak("1M")
        high, used = peak("16M")
        self.assertGreater(used, 8)                                # the budget was needed
        self.assertLessEqual(used, 16)
        self.assertLess(high - low, (16 + 4) << 20, "peak %d vs %d bytes" % (high, low))


    def test_budget_bounds_rewritten_memory(self):
        """a kernel that rewrites its memory (16 MiB, 16 times): every page it writes after a
        checkpoint leaves the old one to the checkpoint; --mem 8M holds the server's peak to
        the live machine + the budget (it grew by 100 MiB, measured only every 16 checkpoints)"""
        if vxtest.sanitized():
            self.skipTest("sanitizer builds keep freed memory (quarantine)")
        trace = rsplib.record(build("rrrewrite", "-O2"))
        srv = rsplib.Server(trace, "--mem", "8M")
        try:
            def hwm():
                with open("/proc/%d/status" % srv.p.pid) as f:
                    return [int(ln.split()[1]) << 10 for ln in f if ln.startswith("VmHWM")][0]
            c = srv.client()
            c.handshake()
            start = hwm()
            sig, f = rsplib.parse_stop(c.cmd("vCont;c"))
            self.assertEqual(f.get("replaylog"), "end")
            grown = hwm() - start
            used = float(re.search(r"using ([\d.]+) MiB", c.monitor("stats")[1]).group(1))
            c.close()
        finally:
            srv.stop()
        self.assertLessEqual(used, 8)
        self.assertLess(grown, (16 + 8 + 8) << 20, "grew by %d bytes" % grown)


class Deadlock(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.elf = build("rrdeadlock")
        cls.trace = os.path.join(vxtest.tmpdir(), "rrdeadlock.vxt")
        cls.rec = vxtest.run([vxtest.prog("vxrec"), "-q", "-f", cls.elf, "-o", cls.trace])

    def session(self, body):
        """body(c) with a client of a server of the trace, stopped at the fault (SIGABRT,
        the reason on the console) by its first continue; detached after."""
        srv = rsplib.Server(self.trace)
        try:
            c = srv.client()
            c.handshake()
            c.console = []
            sig, f = rsplib.parse_stop(c.cmd("vCont;c"))
            self.assertEqual((sig, f.get("replaylog")), (6, None))
            self.assertRegex("".join(c.console), r"faults at pc 0x[0-9a-f]+: deadlock")
            body(c, f)
            c.send("D")
            c.reply()
            c.close()
        finally:
            srv.stop()

    def test_deadlock_verify_and_replay(self):
        """a kernel that ends in a deadlock (found after its last issue): vxrec --verify
        accepts the trace; continuing to the end reports the fault (SIGABRT, the reason on
        the console), then the end of history; reverse-continue goes back from there"""
        self.assertEqual(self.rec.returncode, 3, self.rec.stderr)
        self.assertIn("deadlock", self.rec.stderr)
        v = vxtest.run([vxtest.prog("vxrec"), "--verify", self.trace])
        self.assertEqual(v.returncode, 0, v.stdout + v.stderr)

        def body(c, f):
            events = int(re.search(r"events=(\d+)", c.monitor("config")[1]).group(1))
            self.assertRegex(c.monitor("when")[1], r"^event %d of %d" % (events, events))
            sig, f = rsplib.parse_stop(c.cmd("vCont;c"))
            self.assertEqual((sig, f.get("replaylog")), (5, "end"))
            sig, f = rsplib.parse_stop(c.cmd("bc"))
            self.assertEqual((sig, f.get("replaylog")), (5, "begin"))
        self.session(body)

    def test_step_over_a_breakpoint_at_the_faulting_pc(self):
        """GDB steps the thread over a breakpoint at its pc, also one set after the stop
        (a tbreak on the line of the fault), passing the fault's signal on: the issue
        there faults and never executes, and "no more history" left GDB's step over
        unfinished (GDB then hung at its next command without sending a packet).  A
        plain stop (signal 0) with a note ends it; history goes on backward."""
        def body(c, f):
            addr = int.from_bytes(bytes.fromhex(f["20"]), "little")
            self.assertEqual(c.cmds("Z0,%x,4" % addr), "OK")     # the tbreak
            self.assertEqual(c.cmds("z0,%x,4" % addr), "OK")     # out for the step over
            c.console = []
            sig, f = rsplib.parse_stop(c.cmd("vCont;S06:1"))
            self.assertEqual((sig, f.get("replaylog")), (0, None))
            self.assertIn("no more history: warp 0 faults at event", "".join(c.console))
            self.assertEqual(c.cmds("Z0,%x,4" % addr), "OK")
            c.cmds("Hc1")
            sig, f = rsplib.parse_stop(c.cmd("bs"))
            self.assertEqual((sig, f.get("replaylog")), (5, None))
        self.session(body)


class DamagedTraces(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # events must dominate the file: sgemm, N = 48 (about 300 k issues)
        out = sgemm(48)
        cls.src = rsplib.record(out)
        with open(cls.src, "rb") as f:
            cls.data = f.read()

    def write(self, name, data):
        p = os.path.join(vxtest.tmpdir(), name)
        with open(p, "wb") as f:
            f.write(data)
        return p

    def test_cut_trace(self):
        """a trace cut off mid-write replays up to its last complete chunk"""
        full = rsplib.Server(self.src)
        try:
            c = full.client()
            c.handshake()
            total = int(re.search(r"events=(\d+)", c.monitor("config")[1]).group(1))
            c.close()
        finally:
            full_log = full.stop()
        # big enough to keep the prologue and keyframe 0, small enough to lose the end
        cut = self.write("cut.vxt", self.data[:len(self.data) * 2 // 3])
        srv = rsplib.Server(cut)
        try:
            c = srv.client()
            c.handshake()
            events = int(re.search(r"events=(\d+)", c.monitor("config")[1]).group(1))
            self.assertLess(events, total)
            sig, f = rsplib.parse_stop(c.cmd("vCont;c"))
            self.assertEqual(f.get("replaylog"), "end")
            self.assertRegex(c.monitor("when")[1], r"event %d of %d: end of history.*recording stopped" % (events, events))
            sig, f = rsplib.parse_stop(c.cmd("bc"))
            self.assertEqual(f.get("replaylog"), "begin")
            c.close()
        finally:
            log = srv.stop()
        # said when it starts serving, as vxdump and vxrec --verify say it
        self.assertIn("note: '%s' was cut off (it has no end record): history ends at its "
                      "last complete chunk" % cut, log)
        self.assertNotIn("cut off", full_log)

    def digests(self, c):
        m = re.search(r"trace summary: (\d+) of (\d+) chunk digests", c.monitor("stats")[1])
        self.assertTrue(m, "stats report the chunk digests")
        return int(m.group(1)), int(m.group(2))

    def test_digests(self):
        """chunk digests: stored in a 1.1 trace and usable at once; computed for a cut one"""
        trace = self.write("dg.vxt", self.data)
        srv = rsplib.Server(trace)
        try:
            c = srv.client()
            c.handshake()
            ready, total = self.digests(c)
            self.assertGreater(total, 1)
            self.assertEqual(ready, total, "every digest read from the trace at start-up")
            # a reverse-continue to a breakpoint hit only at the start skips every chunk
            c.monitor("seek 200")
            pc = rsplib.le32(rsplib.parse_stop(c.cmd("?"))[1]["20"])
            self.assertEqual(c.cmds("Z0,%x,4" % pc), "OK")
            events = int(re.search(r"events=(\d+)", c.monitor("config")[1]).group(1))
            c.monitor("seek %d" % events)
            rsplib.parse_stop(c.cmd("bc"))
            self.assertRegex(c.monitor("when")[1], r"event \d{1,3} of")
            skipped = int(re.search(r"skipped by the summary (\d+)", c.monitor("stats")[1]).group(1))
            self.assertGreater(skipped, events // 2, "most of history skipped by the digests")
            c.close()
        finally:
            srv.stop()
        self.assertFalse(os.path.exists(trace + ".sum"), "nothing written next to the trace")
        # a trace cut off before its index: the digests of complete chunks are still there
        # (each follows its EVENTS chunk); the last one may be computed
        cut = self.write("dgcut.vxt", self.data[:len(self.data) * 2 // 3])
        srv = rsplib.Server(cut)
        try:
            c = srv.client()
            c.handshake()
            for i in range(200):
                ready, total = self.digests(c)
                if ready == total:
                    break
                time.sleep(0.05)
            self.assertEqual(ready, total)
            c.close()
        finally:
            srv.stop()

    def test_cut_before_a_digest(self):
        """a trace cut off between its last complete EVENTS chunk and that chunk's digest:
        the server computes the missing digest in its second thread while it serves (the
        others are read).  Reverse-continues from the end, one while it may still be
        computing, then with every digest ready: to a breakpoint the last chunk holds,
        they stop at its last hit there (a wrong digest skips the chunk); to one hit only
        before the chunk, at that hit, the chunk skipped by its computed digest.  The
        hits and the history's length are vxdump's"""
        import vxt_spec
        tr = vxt_spec.Trace(self.data)
        last = tr.events[len(tr.events) * 2 // 3]
        self.assertIn(last.off, tr.digest_of)                  # a DIGEST chunk follows it
        cut = self.write("nodigest.vxt", self.data[:last.end])
        self.assertEqual(sorted(vxt_spec.Trace(self.data[:last.end]).digest_of),
                         [e.off for e in tr.events if e.off < last.off])   # it alone lacks one
        s = vxtest.run([vxtest.prog("vxdump"), "--summary", cut]).stdout
        end = int(re.search(r"totals\s+\d+ events: (\d+) issues", s).group(1))
        self.assertGreater(end, last.key)

        def issues(*sel):
            r = vxtest.run([vxtest.prog("vxdump"), "--json", "--kind", "issue"] + list(sel) + [cut])
            return [json.loads(ln) for ln in r.stdout.splitlines()]
        pc_in = issues("--from", str(end - 1))[0]["pc"]                # the last issue's
        pc_out = issues("--from", "200", "--to", "200")[0]["pc"]       # one run early only
        hits_in = [e["index"] for e in issues("--pc", "0x%x" % pc_in)]
        hits_out = [e["index"] for e in issues("--pc", "0x%x" % pc_out)]
        self.assertLess(hits_in[0], last.key)                           # hit before the chunk too
        self.assertLess(hits_out[-1], last.key)

        def back_to(c, pc):
            """bc from the end with a breakpoint at pc: (position, issues skipped by digests)"""
            c.monitor("seek %d" % end)
            self.assertEqual(c.cmds("Z0,%x,4" % pc), "OK")
            skipped = lambda: int(re.search(r"skipped by the summary (\d+)",  # noqa: E731
                                            c.monitor("stats")[1]).group(1))
            before = skipped()
            sig, f = rsplib.parse_stop(c.cmd("bc"))
            self.assertIn("swbreak", f)
            at = int(re.search(r"event (\d+) of %d" % end, c.monitor("when")[1]).group(1))
            self.assertEqual(c.cmds("z0,%x,4" % pc), "OK")
            return at, skipped() - before

        srv = rsplib.Server(cut)
        try:
            c = srv.client()
            c.handshake()
            self.assertIn("events=%d " % end, c.monitor("config")[1])
            self.assertEqual(back_to(c, pc_in)[0], end - 1)           # (digest maybe not ready)
            for _ in range(20000):                                    # wait on the server's replies
                ready, total = self.digests(c)
                if ready == total:
                    break
            self.assertEqual(ready, total, "the missing digest is computed")
            self.assertEqual(total, tr.events.index(last) + 1)
            self.assertEqual(back_to(c, pc_in)[0], end - 1)
            at, skipped = back_to(c, pc_out)
            self.assertEqual(at, hits_out[-1])
            self.assertGreaterEqual(skipped, end - last.key)
            c.close()
        finally:
            log = srv.stop()
        self.assertIn("note: '%s' was cut off (it has no end record): history ends at its "
                      "last complete chunk" % cut, log)

    def test_damaged_digest(self):
        """a damaged DIGEST chunk: its EVENTS chunk is searched by its events (a breakpoint
        last hit in that chunk is still found there), and monitor stats counts it as damaged
        instead of leaving the count of digests short for ever, unexplained"""
        import vxt_spec
        tr = vxt_spec.Trace(self.data)
        ev = tr.events[-2]  # (the kernel's checks end in it: PCs the last chunk has not)
        dg = tr.digest_of[ev.off]
        d = bytearray(self.data)
        d[dg.off + 28 + dg.stored // 2] ^= 0x20  # inside its payload (its CRC fails)
        bad = self.write("baddigest.vxt", bytes(d))
        nxt = tr.events[tr.events.index(ev) + 1].key
        issues = t6kit_events(bad, "--kind", "issue", "--from", str(ev.key), "--to", str(nxt - 1))
        s = vxtest.run([vxtest.prog("vxdump"), "--summary", bad]).stdout
        end = int(re.search(r"totals\s+\d+ events: (\d+) issues", s).group(1))
        after = {e["pc"] for e in t6kit_events(bad, "--kind", "issue", "--from", str(nxt))}
        only = [e for e in issues if e["pc"] not in after]
        self.assertTrue(only, "a pc issued in that chunk and never after it")
        pc = only[-1]["pc"]
        last = [e["index"] for e in issues if e["pc"] == pc][-1]
        srv = rsplib.Server(bad)
        try:
            c = srv.client()
            c.handshake()
            for _ in range(20000):
                st = c.monitor("stats")[1]
                m = re.search(r"trace summary: (\d+) of (\d+) chunk digests, 1 damaged \(searched "
                              r"by their events\)", st)
                if m and int(m.group(1)) + 1 == int(m.group(2)):
                    break
            self.assertTrue(m and int(m.group(1)) + 1 == int(m.group(2)), st)
            c.monitor("seek %d" % end)
            self.assertEqual(c.cmds("Z0,%x,4" % pc), "OK")
            rsplib.parse_stop(c.cmd("bc"))
            self.assertRegex(c.monitor("when")[1], r"^event %d of %d" % (last, end))
            c.close()
        finally:
            log = srv.stop()
        self.assertIn("searches over that chunk's events read them all", log)

    def test_corrupt_chunk(self):
        """a damaged chunk is reported through GDB when replay reaches it; the server goes on"""
        d = bytearray(self.data)
        d[len(d) // 2] ^= 0x40
        bad = self.write("bad.vxt", bytes(d))
        srv = rsplib.Server(bad)
        try:
            c = srv.client()
            c.handshake()
            c.console = []
            sig, f = rsplib.parse_stop(c.cmd("vCont;c"))
            text = "".join(c.console)
            self.assertEqual((sig, f.get("replaylog")), (5, "end"))   # history ends before it
            self.assertRegex(text, r"bad\.vxt.*(corrupt|CRC|checksum)")
            sig, f = rsplib.parse_stop(c.cmd("bc"))            # still usable
            self.assertIn(f.get("replaylog"), ("begin", None))
            c.send("D")
            self.assertEqual(c.reply(), b"OK")
            c.close()
        finally:
            log = srv.stop()
        self.assertIn("bad.vxt", log)


class ManyChunks(unittest.TestCase):
    """A trace of more EVENTS chunks than the server keeps digests for (65536): runs of
    consecutive chunks share a segment, whose digest is the union of theirs, and only
    the newest are read before the server serves (the others in its second thread)."""

    @classmethod
    def setUpClass(cls):
        # sgemm N = 56 at the smallest chunk size: about 420 k issues in 98 k chunks
        elf = sgemm(56)
        cls.trace = rsplib.record(elf, "--chunk-size", "64")
        cls.c_addr = elf_symbol(elf, "_ZN12_GLOBAL__N_11CE")  # C, in an anonymous namespace
        import vxt_spec
        with open(cls.trace, "rb") as f:
            cls.keys = [e.key for e in vxt_spec.Trace(f.read()).events]

    def test_grouped_digests(self):
        """reverse-continues to write watchpoints on elements of C, each last written in a
        chunk that is not the first of its segment (a union that dropped that chunk's
        pages would skip the write), and to a breakpoint hit only at the start, stop
        where vxdump says, before and after every digest is known"""
        s = vxtest.run([vxtest.prog("vxdump"), "--summary", self.trace]).stdout
        end = int(re.search(r"totals\s+\d+ events: (\d+) issues", s).group(1))
        keys = self.keys
        self.assertEqual(len(set(keys)), len(keys))  # every chunk holds issues
        per = -(-len(keys) // 65536)
        self.assertEqual(per, 2, "the test's premise: two chunks per segment")
        # the last write of each element of C (vxdump, one pass over the trace)
        r = vxtest.run([vxtest.prog("vxdump"), "--json", "--kind", "issue", "--addr",
                        "0x%x:%d" % (self.c_addr, 56 * 56 * 4), self.trace])
        last = {}
        for e in map(json.loads, r.stdout.splitlines()):
            for w in e["mem"]:
                if 0 <= w["addr"] - self.c_addr < 56 * 56 * 4:  # (other lanes write B)
                    last[w["addr"]] = e["index"]
        chunk = lambda t: bisect.bisect_right(keys, t) - 1  # noqa: E731
        second = sorted((t, a) for a, t in last.items() if chunk(t) % per == per - 1)
        # older than the digests read at start-up (8192 chunks), spread over history
        second = [x for x in second if chunk(x[0]) < len(keys) - 8192 * 2]
        self.assertGreater(len(second), 8)
        targets = [second[i * (len(second) - 1) // 3] for i in range(4)]
        early = vxtest.run([vxtest.prog("vxdump"), "--json", "--kind", "issue", "--from", "200",
                            "--to", "200", self.trace]).stdout
        pc_out = json.loads(early.splitlines()[0])["pc"]
        hits = [i for i, _ in rsplib.issues_at(self.trace, pc_out)]
        self.assertLess(hits[-1], end // 4)

        def back(c, z, spec):
            c.monitor("seek %d" % end)
            self.assertEqual(c.cmds("Z%d,%s" % (z, spec)), "OK")
            rsplib.parse_stop(c.cmd("bc"))
            self.assertEqual(c.cmds("z%d,%s" % (z, spec)), "OK")
            return int(re.search(r"event (\d+) of %d" % end, c.monitor("when")[1]).group(1))

        def check(c):
            for t, a in targets:
                # a write watchpoint stops after the write: at the next event of history
                self.assertEqual(back(c, 2, "%x,4" % a), t + 1, "watch 0x%x" % a)
            self.assertEqual(back(c, 0, "%x,4" % pc_out), hits[-1])

        srv = rsplib.Server(self.trace)
        try:
            c = srv.client()
            c.handshake()
            m = re.search(r"trace summary: (\d+) of (\d+) chunk digests \(of runs of up to (\d+) "
                          r"of the (\d+) chunks\)", c.monitor("stats")[1])
            self.assertEqual(int(m.group(2)), -(-len(keys) // per), "segments of two chunks")
            self.assertEqual((int(m.group(3)), int(m.group(4))), (per, len(keys)))
            check(c)                                    # digests maybe still being read
            for _ in range(20000):
                m = re.search(r"trace summary: (\d+) of (\d+)", c.monitor("stats")[1])
                if m.group(1) == m.group(2):
                    break
            self.assertEqual(m.group(1), m.group(2), "every digest known")
            check(c)
            skipped = int(re.search(r"skipped by the summary (\d+)", c.monitor("stats")[1]).group(1))
            self.assertGreater(skipped, end // 2, "the digests skip most of history")
            c.close()
        finally:
            srv.stop()


if __name__ == "__main__":
    rsplib.prerequisites()
    if not os.path.exists(vxtest.prog("vxcc")):
        vxtest.skip_all("vxcc missing")
    vxtest.main(WatchTiming, ThreadPerWarp, LaneSteps, StepOver, Interrupts, SmallBudget, Deadlock,
                DamagedTraces, ManyChunks)
