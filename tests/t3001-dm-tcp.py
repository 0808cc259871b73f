#!/usr/bin/env python3
"""t3001: a VxDebug debugger session against `vxsim --dm-port` over TCP.

The client (tests/lib/vxdbg.py) does what VxDebug's back end does: wake the DM,
reset with halt, read PLATFORM, read and write GPRs through injected
csrw/csrr dscratch, CSRs and memory through injected loads and stores, plant a
software breakpoint by storing ebreak over an instruction, resume, wait for the
halt, check hacause and DPC, restore the instruction, step, and resume to the end.
The kernel must still produce its correct output and exit code.

The kernel is hand-encoded (independent of the kernel toolchain):
    0x00 addi a0, x0, 0
    0x04 addi a1, x0, 10
    0x08 add  a0, a0, a1          loop
    0x0c addi a1, a1, -1          <- breakpoint
    0x10 bne  a1, x0, loop
    0x14 lui  a2, 0x10            a2 = 0x10000
    0x18 sw   a0, 0(a2)
    0x1c..0x30 print "OK\\n" on console slot 0
    0x34 sw   a0, 0x88(x0)        exit code
    0x38 tmc  x0
so a0 = 10 + 9 + ... + 1 = 55 is stored at 0x10000 and is the exit code.
"""
import os
import re
import struct
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
import vxtest  # noqa: E402
from vxdbg import *  # noqa: E402,F401,F403

BASE = 0x80000000
BP = BASE + 0x0C
A0, A1, A2, A3 = 10, 11, 12, 13

PROG = [
    ADDI(A0, 0, 0),
    ADDI(A1, 0, 10),
    ADD(A0, A0, A1),
    ADDI(A1, A1, -1),
    BNE(A1, 0, -8),
    LUI(A2, 0x10),
    SW(A0, A2, 0),
    ADDI(A3, 0, ord("O")),
    SB(A3, 0, 0x40),
    ADDI(A3, 0, ord("K")),
    SB(A3, 0, 0x40),
    ADDI(A3, 0, 10),
    SB(A3, 0, 0x40),
    SW(A0, 0, 0x88),
    TMC(0),
]


def write_prog(d):
    path = os.path.join(d, "sum.bin")
    with open(path, "wb") as f:
        f.write(b"".join(struct.pack("<I", w) for w in PROG))
    return path


class Session(unittest.TestCase):
    def setUp(self):
        if not os.path.exists(vxtest.prog("vxsim")):
            self.skipTest("vxsim not built")
        self.dir = vxtest.tmpdir()
        self.bin = write_prog(self.dir)
        self.servers = []
        self.clients = []

    def tearDown(self):
        for c in self.clients:
            c.close()
        for s in self.servers:
            s.kill()

    def server(self, args):
        s = Server(vxtest.prog("vxsim"), args)
        self.servers.append(s)
        self.assertIsNotNone(s.port, "vxsim did not report its port: %r" % s.stderr)
        return s

    def client(self, s):
        c = s.connect()
        self.clients.append(c)
        return c

    def halted_at_start(self):
        """vxsim serving the sum kernel, a client that woke the DM, reset it with warp 0
        halted at its first instruction, released the kernel and selected warp 0"""
        s = self.server([self.bin])
        c = self.client(s)
        c.start_halted()
        return s, c

    def finish(self, s, c):
        """Disconnect and collect vxsim's exit status and output."""
        c.close()
        return s.wait()

    def test_sum_no_debugger_baseline(self):
        """the kernel alone: exit 55, prints OK"""
        r = vxtest.run([vxtest.prog("vxsim"), self.bin])
        self.assertEqual(r.returncode, 55, r.stderr)
        self.assertIn("#0: OK", r.stdout)

    def test_full_session(self):
        """reset-halt, GPRs, CSRs, memory, breakpoint, step, run to the end"""
        dump = os.path.join(self.dir, "out.bin")
        s = self.server(["--dump", "0x10000:8=" + dump, self.bin])
        c = self.client(s)
        p = c.wake()
        self.assertEqual(p >> 28, 1, "platformid 1 (Vortex)")
        self.assertEqual(((p >> 21) & 0x7F, (p >> 12) & 0x1FF, (p >> 3) & 0x1FF, p & 7),
                         (1, 1, 4, 2), "PLATFORM 1 cluster, 1 core, 4 warps, log2(4 threads)")
        self.assertEqual(c.rd(DCONFIG), 0x88000000, "DCONFIG reset value")

        # reset with halt, then start: warp 0 stops before its first instruction
        d = c.reset_halt()
        self.assertTrue(d & AH, "allhalted after reset-halt")
        self.assertEqual(c.cmd("s"), "+")
        c.select(0, 0)
        d = c.rd(DCTRL)
        self.assertEqual(hacause(d), HC_RESETHALTREQ)
        self.assertEqual(c.rd(DPC), BASE)
        self.assertEqual(c.status(), [True] * 4, "all 4 warps halted (1-3 not spawned yet)")
        self.assertEqual(c.active(), [True, False, False, False])

        # GPRs: all zero after reset; write x31 and read every register back
        self.assertEqual([c.read_gpr(n) for n in range(32)], [0] * 32)
        c.write_gpr(31, 0x12345678)
        regs = [c.read_gpr(n) for n in range(32)]
        self.assertEqual(regs, [0] * 31 + [0x12345678])
        c.write_gpr(31, 0)

        # CSRs of lane 3 and lane 0 (t0 is saved and restored around each read)
        c.write_gpr(T0, 0xAAAA5555)
        c.select(0, 3)
        self.assertEqual(c.read_csr(CSR_THREAD_ID), 3)
        self.assertEqual(c.read_csr(CSR_WARP_ID), 0)
        self.assertEqual(c.read_csr(CSR_MHARTID), 3)
        c.select(0, 0)
        self.assertEqual(c.read_csr(CSR_MHARTID), 0)
        self.assertEqual(c.read_gpr(T0), 0xAAAA5555, "t0 restored after the CSR reads")
        c.write_gpr(T0, 0)

        # memory through injected loads and stores
        self.assertEqual([c.read_mem(BASE + 4 * i) for i in range(len(PROG))], PROG,
                         "the program read back word by word")
        c.write_mem(0x10004, 0xA5A5A5A5)
        self.assertEqual(c.read_mem(0x10004), 0xA5A5A5A5)

        # software breakpoint at BP
        orig = c.read_mem(BP)
        self.assertEqual(orig, PROG[3])
        c.write_mem(BP, EBREAK)
        c.wr(DCONFIG, 0x88000001)
        pc0 = c.rd(DPC)
        c.resume_all()
        d = c.poll(NH, NH)
        halted = [g for g, h in enumerate(c.status()) if h]
        self.assertEqual(halted, [0], "only warp 0 ran into the breakpoint")
        c.select(0, 0)
        d = c.rd(DCTRL)
        self.assertEqual(hacause(d), HC_EBREAK)
        self.assertEqual(c.rd(DPC), BP, "DPC = breakpoint address")
        self.assertNotEqual(pc0, BP)
        self.assertEqual((c.read_gpr(A0), c.read_gpr(A1)), (10, 10), "first hit: a0 = a1 = 10")

        # restore, step over, check
        c.write_mem(BP, orig)
        self.assertEqual(c.step(), BP + 4)
        self.assertEqual(hacause(c.rd(DCTRL)), HC_STEP)
        self.assertEqual(c.read_gpr(A1), 9)
        self.assertEqual(c.step(), BASE + 8, "bne taken back to the loop")

        # breakpoint again: second hit has a0 = 19, a1 = 9
        c.write_mem(BP, EBREAK)
        c.resume_all()
        c.poll(NH, NH)
        c.select(0, 0)
        self.assertEqual(c.rd(DPC), BP)
        self.assertEqual((c.read_gpr(A0), c.read_gpr(A1)), (19, 9), "second hit")

        # remove it and run to the end
        c.write_mem(BP, orig)
        c.resume_all()
        d = c.poll(AU, AU)
        self.assertFalse(d & (AH | NH | AR | NR), "no warp available: summary bits 0")
        self.assertEqual(c.cmd("r0"), "+%08x" % p, "still answering after the kernel ended")
        rc, out, err = self.finish(s, c)
        self.assertEqual(rc, 55, err)
        self.assertIn("#0: OK", out)
        with open(dump, "rb") as f:
            self.assertEqual(struct.unpack("<II", f.read(8)), (55, 0xA5A5A5A5),
                             "the kernel's result and the debugger's store are in memory")

    def test_change_register(self):
        """setting a1 = 1 at the breakpoint ends the loop early: exit 10"""
        s, c = self.halted_at_start()
        c.write_mem(BP, EBREAK)
        c.wr(DCONFIG, 0x88000001)
        c.resume_all()
        c.poll(NH, NH)
        c.select(0, 0)
        self.assertEqual(c.rd(DPC), BP)
        c.write_mem(BP, PROG[3])
        c.write_gpr(A1, 1)
        c.resume_all()
        c.poll(AU, AU)
        rc, out, err = self.finish(s, c)
        self.assertEqual(rc, 10, err)

    def test_dpc_write(self):
        """moving the PC of a halted warp past the loop: exit 0"""
        s, c = self.halted_at_start()
        c.wr(DPC, BASE + 0x14)
        self.assertEqual(c.rd(DPC), BASE + 0x14)
        c.resume_all()
        c.poll(AU, AU)
        rc, out, err = self.finish(s, c)
        self.assertEqual(rc, 0, err)
        self.assertIn("#0: OK", out)

    def test_pipelined_lines(self):
        """lines sent without waiting for replies: each step and injection is carried
        out before the next line is answered, as for a client that waits"""
        s, c = self.halted_at_start()
        step = "w%04x:%08x\n" % (DCTRL, DA | SR)
        # two steps and a read of DCTRL in one send: both steps done (addi, addi), no
        # steperr, the read after them sees the step idle
        c.send_raw((step + step + "r%04x\n" % DCTRL).encode())
        self.assertEqual([c.recv_line(), c.recv_line()], ["+", "+"])
        d = int(c.recv_line()[1:], 16)
        self.assertEqual((stepstate(d), d & SERR), (0, 0), hex(d))
        self.assertEqual(c.rd(DPC), BASE + 0x08)
        # two injections in one send: addi a0, a0, 7 twice; then a0 read through dscratch
        inj = "w%04x:%08x\nw%04x:%08x\n" % (INJECT, ADDI(A0, A0, 7), DCTRL, DA | IR)
        c.send_raw((inj + inj).encode())
        self.assertEqual([c.recv_line() for _ in range(4)], ["+"] * 4)
        d = c.rd(DCTRL)
        self.assertEqual((injectstate(d), d & IERR), (0, 0), hex(d))
        self.assertEqual(c.read_gpr(A0), 14)
        self.assertEqual(c.read_gpr(A1), 10)
        c.resume_all()
        c.poll(AU, AU)
        rc, out, err = self.finish(s, c)
        self.assertEqual(rc, 14 + 55, err)

    def test_batch_writes(self):
        """a W batch writes its registers in order, then carries out the requests it made
        (README): DPC then stepreq steps from the new PC; stepreq then DPC steps from the
        PC written after it; a second injectreq in one batch finds the first pending"""
        s, c = self.halted_at_start()
        W = "W%x,%x;%08x,%08x"
        self.assertEqual(c.cmd(W % (DPC, DCTRL, BASE + 8, DA | SR)), "+")
        self.assertEqual(c.rd(DPC), BASE + 12)          # one step, of the add at BASE + 8
        self.assertEqual(c.cmd(W % (DCTRL, DPC, DA | SR, BASE)), "+")
        d = c.rd(DCTRL)
        self.assertEqual((stepstate(d), d & SERR), (0, 0), hex(d))
        self.assertEqual(c.rd(DPC), BASE + 4)           # the step ran from BASE
        self.assertEqual(c.read_gpr(A0), 0)             # addi a0, x0, 0
        self.assertEqual(c.cmd("W%x,%x,%x;%08x,%08x,%08x" % (
            INJECT, DCTRL, DCTRL, ADDI(A0, A0, 7), DA | IR, DA | IR)), "+")
        d = c.rd(DCTRL)
        self.assertTrue(d & IERR, hex(d))                # the second found the first pending
        self.assertEqual(c.read_gpr(A0), 7)             # one injection ran
        c.resume_all()
        c.poll(AU, AU)
        self.finish(s, c)

    def test_batch_write_session(self):
        """README's session with its three set-up writes in one W batch (';' and the ':'
        the server also accepts): each write is carried out, in order, before the reply.
        The reply to R6,7,5 derived from sim/dm.c: DCTRL = dmactive | allhalted |
        anyhalted (warp 0, the only one available, is halted) | anyunavail (warps 1-3 not
        spawned) | hacause 3 (step) = 0xb1000600; DPC after three steps from the entry =
        0x8000000c; WSTATUS = warp 0 halted"""
        for sep in (";", ":"):
            s = self.server([self.bin])
            c = self.client(s)
            self.assertEqual(c.cmd("p"), "+P")
            self.assertEqual(c.cmd("W6,3,6%s80000000,00000001,80000001" % sep), "+", sep)
            self.assertEqual(c.cmd("s"), "+")
            self.assertEqual(c.cmd("r7"), "+%08x" % BASE, "halted at its first instruction")
            for _ in range(3):
                self.assertEqual(c.cmd("w6:80000008"), "+")
            self.assertEqual(c.cmd("R6,7,5"), "+b1000600,%08x,00000001" % (BASE + 0x0C), sep)
            self.assertEqual(c.cmd("w6:80000002"), "+")
            self.assertEqual(c.cmd("q"), "+")
            rc, out, err = self.finish(s, c)
            self.assertEqual(rc, 55, err)
            self.assertIn("#0: OK", out)

    def test_disconnect_while_halted(self):
        """a client leaves with warps halted; the next one resumes them"""
        s = self.server([self.bin])
        c = self.client(s)
        c.wake()
        c.reset_halt()
        c.cmd("s")
        c.step()
        c.close()
        c2 = self.client(s)
        c2.wake()
        c2.select(0, 0)
        self.assertEqual(c2.rd(DPC), BASE + 4, "state kept across clients")
        self.assertTrue(c2.rd(DCTRL) & AH)
        c2.resume_all()
        c2.poll(AU, AU)
        rc, out, err = self.finish(s, c2)
        self.assertEqual(rc, 55, err)

    def test_second_client_turned_away(self):
        """a client that connects while another is served is closed at once (not left waiting);
        the first client's session goes on"""
        s = self.server([self.bin])
        c = self.client(s)
        self.assertEqual(c.cmd("p"), "+P")
        c2 = Client(s.port, timeout=10)
        self.clients.append(c2)
        self.assertEqual(c2.sock.recv(16), b"", "closed without a word")
        self.assertEqual(c.cmd("p"), "+P")
        self.assertEqual(c.cmd("s"), "+")
        c.wr(DCTRL, DA)
        c.poll(AU, AU)
        rc, out, err = self.finish(s, c)
        self.assertEqual(rc, 55, err)

    def test_reconnect_at_once(self):
        """a client that drops its connection and connects again at once is served"""
        s = self.server([self.bin])
        for _ in range(20):
            c = Client(s.port, timeout=10)
            self.assertEqual(c.cmd("p"), "+P")
            c.close()
        c = self.client(s)
        self.assertEqual(c.cmd("s"), "+")
        c.wr(DCTRL, DA)
        c.poll(AU, AU)
        rc, out, err = self.finish(s, c)
        self.assertEqual(rc, 55, err)

    def test_run_without_halt(self):
        """connect, start, let it run: the kernel ends while connected"""
        s = self.server([self.bin])
        c = self.client(s)
        self.assertEqual(c.cmd("p"), "+P")
        self.assertEqual(c.cmd("s"), "+")
        c.wr(DCTRL, DA)
        c.poll(AU, AU)
        self.assertEqual(c.cmd("q"), "+")
        rc, out, err = s.wait()
        self.assertEqual(rc, 55, err)

    def test_robustness(self):
        """bad lines, batches, a disconnect mid-line; the session still works"""
        s = self.server([self.bin])
        c = self.client(s)
        for bad in ["", "hello", "r", "r000d", "r12345", "wxyz:1", "w0002:", "w2:123456789",
                    "R0,1,2,3,4,5,6,7,8", "W1,1,1,1,1,1,1,1,1;0,0,0,0,0,0,0,0,0",
                    "W2,3;1", "R,", "s1", "q1", "p1", "\x01\x02\x03", "r" * 5000]:
            self.assertEqual(c.cmd(bad), "-", "bad line %r" % bad[:40])
        self.assertEqual(c.cmd("R0,0,0,0,0,0,0,0").count(","), 7, "batch of 8 works")
        c.send_raw(b"r00")
        c.close()
        c = self.client(s)
        self.assertEqual(c.cmd("p"), "+P", "reconnected after a disconnect mid-line")
        c.wake()
        c.cmd("s")
        c.poll(AU, AU)
        rc, out, err = self.finish(s, c)
        self.assertEqual(rc, 55, err)

    def test_cycle_limit(self):
        """--max-cycles under the server: exit 4, and the machine stays stopped"""
        s = self.server(["--max-cycles", "5", self.bin])
        c = self.client(s)
        c.wake()
        self.assertEqual(c.cmd("s"), "+")
        c.select(0, 0)
        for _ in range(50):
            if c.rd(DPC) != BASE:
                break
        pc = c.rd(DPC)
        self.assertNotEqual(pc, BASE, "it ran a few instructions")
        c.wr(DCTRL, DA)  # a write does not make it run past the limit
        self.assertEqual(c.rd(DPC), pc)
        rc, out, err = self.finish(s, c)
        self.assertEqual(rc, 4, err)
        self.assertIn("cycle limit", err)

    def test_fault(self):
        """a breakpoint trap (ebreak without ebreakh) ends the run: exit 3"""
        s, c = self.halted_at_start()
        c.write_mem(BP, EBREAK)
        c.resume_all()
        d = c.poll(AU, AU)
        self.assertFalse(d & (AH | NH | AR | NR), "after a fault no warp is available")
        c.select(0, 0)
        self.assertEqual(c.rd(WACTIVE), 1, "WACTIVE: warp 0 was alive at the fault")
        self.assertEqual(c.rd(DPC), BP, "the machine is frozen at the faulting ebreak")
        c.select_warps([0])
        c.wr(DCTRL, DA | HR)
        c.select(0, 0)
        self.assertEqual((c.read_gpr(A0), c.read_gpr(A1)), (10, 10),
                         "registers of the faulting warp read by halting it and injecting")
        rc, out, err = self.finish(s, c)
        self.assertEqual(rc, 3, err)
        self.assertIn("0x8000000c", err.lower())

    def test_bind_announces_address(self):
        """--dm-bind: the banner names the address bound, numeric, an IPv6 one in brackets
        ([::1]:PORT, not the ambiguous ::1:PORT), and a client reaches the DM there"""
        cases = [("127.0.0.1", "127.0.0.1"), ("localhost", None)]
        if ipv6_loopback():
            cases.append(("::1", "[::1]"))
        for given, shown in cases:
            with self.subTest(bind=given):
                s = self.server(["--dm-bind", given, self.bin])
                banner = s.stderr.decode()
                m = re.search(r"Debug Module listening on (\S+):%d " % s.port, banner)
                self.assertIsNotNone(m, banner)
                if shown:
                    self.assertEqual(m.group(1), shown)
                else:  # a name: the address it resolved to, not the name
                    self.assertIn(m.group(1), ("127.0.0.1", "[::1]"))
                c = self.client(s)
                p = c.wake()
                self.assertEqual((p >> 3 & 0x1FF, p & 7), (4, 2), "PLATFORM read there: 4 warps of 4")
                self.assertEqual(c.cmd("s"), "+", "the kernel started from there")
                rc, _, err = self.finish(s, c)
                self.assertEqual(rc, 55, err)

    def test_bad_bind(self):
        """an address that cannot be bound: exit 2 with a message"""
        r = vxtest.run([vxtest.prog("vxsim"), "--dm-port", "0", "--dm-bind", "192.0.2.1",
                        self.bin], timeout=30)
        self.assertEqual(r.returncode, 2)
        self.assertIn("192.0.2.1", r.stderr)


class Platform(unittest.TestCase):
    """2 clusters x 4 cores x 8 warps = 64 warps: windows over TCP."""

    def setUp(self):
        if not os.path.exists(vxtest.prog("vxsim")):
            self.skipTest("vxsim not built")
        self.bin = write_prog(vxtest.tmpdir())

    def test_windows(self):
        """PLATFORM, WACTIVE and WSTATUS windows, reset-halt of all 64 warps"""
        s = Server(vxtest.prog("vxsim"), ["-C", "2", "-c", "4", "-w", "8", self.bin])
        try:
            c = s.connect()
            p = c.wake()
            self.assertEqual(p, (1 << 28) | (2 << 21) | (4 << 12) | (8 << 3) | 2)
            self.assertEqual(c.nw, 64)
            self.assertEqual([g for g, a in enumerate(c.active()) if a],
                             [0, 8, 16, 24, 32, 40, 48, 56], "warp 0 of each of the 8 cores")
            c.reset_halt()
            self.assertEqual(c.status(), [True] * 64)
            d = c.rd(DCTRL)
            self.assertTrue(d & AH and d & NU and not d & AR)
            c.cmd("s")
            # resume the cores of cluster 1 only (gwarps 32..63)
            c.select_warps(range(32, 64))
            c.wr(DCTRL, DA | RR)
            c.wr(DSELECT, dselect(1, 0, 0))
            self.assertEqual(c.rd(WSTATUS), 0)
            c.wr(DSELECT, dselect(0, 0, 0))
            self.assertEqual(c.rd(WSTATUS), 0xFFFFFFFF)
            c.poll(NR, 0)  # cluster 1 finished (their warps 0 ended)
            self.assertEqual(c.rd(WACTIVE), 0x01010101)
            c.wr(DSELECT, dselect(1, 0, 0))
            self.assertEqual(c.rd(WACTIVE), 0, "cluster 1 done")
            c.resume_all()
            c.poll(AU, AU)
            c.close()
            rc, out, err = s.wait()
            self.assertEqual(rc, 55, err)
        finally:
            s.kill()


class Kernel(unittest.TestCase):
    """An example kernel from build/kernels under the debugger."""

    def test_vecadd_breakpoint(self):
        """breakpoint in add_cb of vecadd on 2x2x4x4, then finish: same output as alone"""
        path = vxtest.kernel("vecadd")
        if not os.path.exists(vxtest.prog("vxsim")) or not os.path.exists(path):
            self.skipTest("vxsim or vecadd.elf not built")
        bp = elf_symbol(path, "add_cb")
        if bp is None:
            self.skipTest("add_cb not in vecadd.elf")
        shape = ["-C", "2", "-c", "2", "-w", "4", "-t", "4"]
        alone = vxtest.run([vxtest.prog("vxsim")] + shape + [path])
        s = Server(vxtest.prog("vxsim"), shape + [path])
        try:
            c = s.connect()
            c.start_halted()
            orig = c.read_mem(bp)
            c.write_mem(bp, EBREAK)
            c.wr(DCONFIG, 0x88000001)
            c.resume_all()
            c.poll(NH, NH)
            c.halt_all()
            hits = []
            for g, h in enumerate(c.status()):
                if not h:
                    continue
                c.select(g, 0)
                d = c.rd(DCTRL)
                if hacause(d) == HC_EBREAK:
                    hits.append(g)
                    self.assertEqual(c.rd(DPC), bp, "warp %d stopped at add_cb" % g)
            self.assertTrue(hits, "some warp hit the breakpoint")
            c.select(hits[0], 0)
            c.write_mem(bp, orig)
            c.resume_all()
            c.poll(AU, AU)
            c.close()
            rc, out, err = s.wait(timeout=300)
        finally:
            s.kill()
        self.assertEqual(rc, alone.returncode, err)
        self.assertEqual(rc, 0)
        self.assertEqual(out, alone.stdout, "same console output as without the debugger")


if __name__ == "__main__":
    vxtest.main(Session, Platform, Kernel)
