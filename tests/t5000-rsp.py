#!/usr/bin/env python3
"""t5000 - vxreplay's GDB remote protocol, spoken by a raw client.

Protocol edges a debugger rarely exercises: acknowledgements and NAKs, no-ack
mode, bad checksums, oversized, truncated and unknown packets, requests for
threads and registers that do not exist, writes (refused: history is
immutable), thread lists, stop replies, monitor commands, clients that vanish
mid-packet, the stdio transport and bad command lines.

The RspClient class and the server helpers here are also used by the other
t5xxx tests (loaded with rsplib()).
"""
import contextlib
import json
import os
import shutil
import re
import select
import shlex
import socket
import struct
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
import vxtest  # noqa: E402
import vxdbg  # noqa: E402
import t6kit  # noqa: E402


def vecadd_function(name):
    """The address of function name in the vecadd kernel (nm, an independent reader)."""
    return [a for a, _, n in t6kit.nm_functions(vxtest.kernel("vecadd")) if n == name][0]


def checksum(data):
    return sum(data) & 0xFF


def escape(payload):
    out = bytearray()
    for b in payload:
        if b in b"$#}*":
            out += bytes([0x7D, b ^ 0x20])
        else:
            out.append(b)
    return bytes(out)


def frame(payload):
    if isinstance(payload, str):
        payload = payload.encode()
    return frame_raw(escape(payload))


def frame_raw(raw):
    """$raw#cs with raw as it is, nothing escaped"""
    return b"$" + raw + b"#" + ("%02x" % checksum(raw)).encode()


class RspError(Exception):
    pass


class RspClient:
    """A minimal GDB remote protocol client over a socket or a pair of pipes."""

    def __init__(self, rfile, wfile, timeout=60):
        self.r = rfile
        self.w = wfile
        self.noack = False
        self.timeout = timeout
        self.buf = b""
        self.console = []  # text of 'O' packets received

    @classmethod
    def connect(cls, port, timeout=60):
        s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        c = cls(s, s, timeout)
        c.sock = s
        return c

    def close(self):
        if hasattr(self, "sock"):
            self.sock.close()

    def raw_send(self, data):
        if hasattr(self, "sock"):
            self.sock.sendall(data)
        else:
            self.w.write(data)
            self.w.flush()

    def _read_more(self):
        if hasattr(self, "sock"):
            d = self.sock.recv(65536)
        else:
            d = os.read(self.r.fileno(), 65536)
        if not d:
            raise RspError("connection closed")
        self.buf += d

    def read_byte(self):
        while not self.buf:
            self._read_more()
        b, self.buf = self.buf[:1], self.buf[1:]
        return b

    def read_packet(self, ack=True):
        """Next packet payload (bytes, escapes and run-length undone)."""
        while True:
            b = self.read_byte()
            if b == b"$":
                break
        raw = bytearray()
        while True:
            b = self.read_byte()
            if b == b"#":
                break
            raw += b
        cs = self.read_byte() + self.read_byte()
        if int(cs, 16) != checksum(raw):
            raise RspError("bad checksum from server: %r" % bytes(raw))
        if ack and not self.noack:
            self.raw_send(b"+")
        out = bytearray()
        i = 0
        while i < len(raw):
            c = raw[i]
            if c == 0x7D:
                out.append(raw[i + 1] ^ 0x20)
                i += 2
            elif c == 0x2A:
                out += bytes([out[-1]]) * (raw[i + 1] - 29)
                i += 2
            else:
                out.append(c)
                i += 1
        return bytes(out)

    def expect_ack(self):
        if self.noack:
            return
        b = self.read_byte()
        if b != b"+":
            raise RspError("expected '+', got %r" % b)

    def send(self, payload):
        self.raw_send(frame(payload))
        self.expect_ack()

    def reply(self):
        """The next reply, collecting 'O' console packets on the way."""
        while True:
            p = self.read_packet()
            if p.startswith(b"O") and p != b"OK" and re.fullmatch(rb"O[0-9a-f]*", p):
                self.console.append(bytes.fromhex(p[1:].decode()).decode(errors="replace"))
                continue
            return p

    def cmd(self, payload):
        self.send(payload)
        return self.reply()

    def cmds(self, payload):
        return self.cmd(payload).decode(errors="replace")

    def monitor(self, text):
        self.console = []
        r = self.cmd(b"qRcmd," + text.encode().hex().encode())
        return r, "".join(self.console)

    def handshake(self, noack=True):
        sup = self.cmds("qSupported:multiprocess+;swbreak+;hwbreak+;vContSupported+")
        if noack:
            assert self.cmds("QStartNoAckMode") == "OK"
            self.noack = True
        return sup


def stops_to_end(c):
    """Continue (vCont;c) to the end of history: the event index of every stop on the way."""
    got = []
    while "replaylog" not in parse_stop(c.cmd("vCont;c"))[1]:
        got.append(int(re.search(r"event (\d+) of", c.monitor("when")[1]).group(1)))
    return got


def parse_stop(reply):
    """'T05thread:5;swbreak:;20:...;' -> (signal, {key: value})."""
    if isinstance(reply, bytes):
        reply = reply.decode()
    m = re.match(r"T([0-9a-f]{2})(.*)", reply)
    if not m:
        raise RspError("not a stop reply: %r" % reply)
    fields = {}
    for part in m.group(2).split(";"):
        if not part:
            continue
        k, _, v = part.partition(":")
        fields[k] = v
    return int(m.group(1), 16), fields


def le32(hexstr):
    return struct.unpack("<I", bytes.fromhex(hexstr))[0]


class Server:
    """vxreplay on a free port (--port 0), stopped at the end."""

    def __init__(self, trace, *args, once=False, preexec_fn=None, env=None):
        cmd = [vxtest.prog("vxreplay"), "--port", "0", trace] + list(args)
        if once:
            cmd.append("--once")
        self.p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  preexec_fn=preexec_fn, env=env)
        self.port = None
        self.banner = []
        deadline = time.time() + 60
        while time.time() < deadline:
            line = self.p.stdout.readline()
            if not line:
                break
            self.banner.append(line)
            m = re.search(r"listening on \S+ port (\d+)", line)
            if m:
                self.port = int(m.group(1))
            if line.startswith("  gdb-multiarch"):
                break
        if self.port is None:
            self.p.kill()
            raise RuntimeError("vxreplay did not start: %s %s" % ("".join(self.banner), self.p.stderr.read()))

    def client(self, timeout=60):
        return RspClient.connect(self.port, timeout)

    def stop(self):
        if self.p.poll() is None:
            self.p.terminate()
            try:
                self.p.wait(10)
            except subprocess.TimeoutExpired:
                self.p.kill()
        err = self.p.stderr.read()
        self.p.stdout.close()
        self.p.stderr.close()
        return err


_traces = {}


def record(kernel, *args):
    """Record build/kernels/KERNEL.elf (or a path) once per test run; returns the trace path."""
    key = (kernel,) + args
    if key in _traces:
        return _traces[key]
    src = kernel if os.path.sep in kernel else vxtest.kernel(kernel)
    d = vxtest.tmpdir()
    out = os.path.join(d, os.path.basename(src).rsplit(".", 1)[0] + ".vxt")
    r = vxtest.run([vxtest.prog("vxrec"), "--quiet"] + list(args) + [src, "-o", out], timeout=600)
    if not os.path.exists(out):
        raise RuntimeError("vxrec failed (%d): %s %s" % (r.returncode, r.stdout, r.stderr))
    _traces[key] = out
    return out


def issues_at(trace, pc):
    """(index, gwarp) of every issue at pc in trace, in order (vxdump --json)."""
    r = vxtest.run([vxtest.prog("vxdump"), "--json", "--kind", "issue", trace])
    return [(e["index"], e["gwarp"]) for e in map(json.loads, r.stdout.splitlines())
            if e["type"] == "issue" and e["pc"] == pc]


@contextlib.contextmanager
def at_first_hit(trace, pc):
    """A client of a --thread-per-warp server of trace, stopped at the first hit of a
    breakpoint at pc (still inserted); yields (client, when: its position)."""
    srv = Server(trace, "--thread-per-warp")
    try:
        c = srv.client()
        c.handshake()
        when = lambda: int(re.search(r"event (\d+) of", c.monitor("when")[1]).group(1))  # noqa
        if c.cmds("Z0,%x,4" % pc) != "OK":
            raise AssertionError("Z0 refused")
        parse_stop(c.cmd("c"))
        yield c, when
        c.close()
    finally:
        srv.stop()


def thread_ids(c):
    """The thread ids client c's server lists (qfThreadInfo, qsThreadInfo)."""
    ids, r = [], c.cmds("qfThreadInfo")
    while r.startswith("m"):
        ids += [int(t, 16) for t in r[1:].split(",")]
        r = c.cmds("qsThreadInfo")
    return ids


def build_c(test, name, text):
    """Compile kernel source text with vxcc -O2; its ELF path (the test skips when vxcc
    cannot build it: no toolchain)."""
    d = vxtest.tmpdir()
    src, elf = os.path.join(d, name + ".c"), os.path.join(d, name + ".elf")
    with open(src, "w") as f:
        f.write(text)
    r = vxtest.run([vxtest.prog("vxcc"), "-O2", "-o", elf, src])
    if r.returncode != 0:
        test.skipTest("vxcc: " + r.stderr[-300:])
    return elf


def elf_entry_and_bytes(path, addr, n):
    """Entry point of an ELF32 file and n bytes at virtual address addr (from PT_LOAD segments)."""
    with open(path, "rb") as f:
        data = f.read()
    entry, phoff = struct.unpack_from("<II", data, 24)
    phentsize, phnum = struct.unpack_from("<HH", data, 42)
    for i in range(phnum):
        p_type, p_off, p_vaddr, _, p_filesz, _, _, _ = struct.unpack_from("<8I", data, phoff + i * phentsize)
        if p_type == 1 and p_vaddr <= addr and addr + n <= p_vaddr + p_filesz:
            o = p_off + addr - p_vaddr
            return entry, data[o:o + n]
    return entry, None


def prerequisites():
    if not os.path.exists(vxtest.prog("vxreplay")):
        vxtest.skip_all("vxreplay not built")
    if not os.path.exists(vxtest.prog("vxrec")):
        vxtest.skip_all("vxrec not built")
    if not os.path.exists(vxtest.kernel("vecadd")):
        vxtest.skip_all("kernels not built (make kernels)")


def detach_and_connect_again(srv, c):
    """Detach client c and close it; a new client of srv, after the handshake."""
    c.send("D")
    c.reply()
    c.close()
    time.sleep(0.2)
    c = srv.client()
    c.handshake()
    return c


class RspTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.trace = record("vecadd")
        cls.srv = Server(cls.trace)

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()

    def setUp(self):
        self.c = self.srv.client()

    def tearDown(self):
        try:
            self.c.send("D")
            self.c.reply()
        except Exception:
            pass
        self.c.close()

    def test_supported(self):
        """qSupported advertises reverse execution, features and a packet size"""
        sup = self.c.handshake(noack=False)
        for f in ["qXfer:features:read+", "qXfer:threads:read+", "swbreak+", "hwbreak+", "vContSupported+",
                  "ReverseStep+", "ReverseContinue+", "QStartNoAckMode+"]:
            self.assertIn(f, sup.split(";"))
        m = re.search(r"PacketSize=([0-9a-f]+)", sup)
        self.assertTrue(m and int(m.group(1), 16) >= 4096)

    def test_swbreak_only_when_offered(self):
        """swbreak+ is only advertised to a client that offered it"""
        sup = self.c.cmds("qSupported:multiprocess+")
        self.assertNotIn("swbreak+", sup)
        self.assertIn("ReverseStep+", sup)

    def test_target_xml(self):
        """target.xml: riscv:rv32, osabi none, cpu/fpu/csr features, GDB register numbers"""
        self.c.handshake()
        xml = b""
        off = 0
        while True:
            r = self.c.cmd("qXfer:features:read:target.xml:%x,200" % off)
            self.assertIn(r[:1], (b"m", b"l"))
            xml += r[1:]
            off += len(r) - 1
            if r[:1] == b"l":
                break
        x = xml.decode()
        self.assertIn("<architecture>riscv:rv32</architecture>", x)
        self.assertIn("<osabi>none</osabi>", x)
        for feat in ["org.gnu.gdb.riscv.cpu", "org.gnu.gdb.riscv.fpu", "org.gnu.gdb.riscv.csr"]:
            self.assertIn(feat, x)
        self.assertRegex(x, r'name="pc"[^>]*regnum="32"')
        self.assertRegex(x, r'name="ft0"[^>]*regnum="33"')
        self.assertRegex(x, r'name="fflags"[^>]*regnum="66"')
        self.assertRegex(x, r'name="frm"[^>]*regnum="67"')
        self.assertRegex(x, r'name="fcsr"[^>]*regnum="68"')
        self.assertRegex(x, r'name="mhartid"[^>]*regnum="%d"' % (65 + 0xF14))
        self.assertEqual(self.c.cmds("qXfer:features:read:other.xml:0,100")[:1], "E")

    def test_initial_stop_and_registers(self):
        """'?' reports thread 1 at the entry point with expedited registers; g and p agree"""
        self.c.handshake()
        sig, f = parse_stop(self.c.cmd("?"))
        self.assertEqual(sig, 5)
        self.assertEqual(f["thread"], "1")
        elf = self.trace + ".elf"
        entry, code = elf_entry_and_bytes(elf, 0x80000000, 16)
        self.assertEqual(le32(f["20"]), entry)
        for r in ["02", "08", "01"]:
            self.assertIn(r, f)
        g = self.c.cmds("g")
        self.assertEqual(le32(g[32 * 8:33 * 8]), entry)   # pc after x0..x31
        self.assertEqual(g[0:8], "00000000")             # x0
        self.assertEqual(le32(self.c.cmds("p20")), entry)
        self.assertEqual(self.c.cmds("p2"), g[16:24])    # sp
        self.assertEqual(self.c.cmds("p1000")[:1], "E")  # no such register
        # memory at the entry point is the ELF's code
        self.assertEqual(bytes.fromhex(self.c.cmds("m%x,10" % entry)), code)

    def test_writes_refused(self):
        """G, P, M and X are refused: the recorded history cannot change"""
        self.c.handshake()
        g = self.c.cmds("g")
        self.assertEqual(self.c.cmds("G" + g)[:1], "E")
        self.assertEqual(self.c.cmds("P1=01000000")[:1], "E")
        self.assertEqual(self.c.cmds("M80000000,4:00000000")[:1], "E")
        self.assertEqual(self.c.cmd(b"X80000000,1:\x00")[:1], b"E")
        self.assertEqual(self.c.cmds("g"), g)

    def test_acks_and_naks(self):
        """ack mode: '+' for good packets, '-' for a bad checksum, '-' from us makes the server resend"""
        self.c.raw_send(b"$qC#00")
        self.assertEqual(self.c.read_byte(), b"-")
        self.c.raw_send(frame("qC"))
        self.assertEqual(self.c.read_byte(), b"+")
        first = self.c.read_packet(ack=False)
        self.c.raw_send(b"-")                       # pretend it arrived damaged
        again = self.c.read_packet(ack=False)
        self.assertEqual(first, again)
        self.assertTrue(first.startswith(b"QC"))
        self.c.raw_send(b"+")
        self.assertTrue(self.c.cmds("qC").startswith("QC"))

    def test_star_in_a_client_packet_is_data(self):
        """run-length encoding is for responses: a '*' the client sends (here followed by a
        control byte, which would be a malformed repeat count) is data, and the packet,
        its checksum right, is acknowledged and answered"""
        self.c.raw_send(frame_raw(b"X80000000,2:*\x01"))
        self.assertEqual(self.c.read_byte(), b"+")
        self.assertEqual(self.c.read_packet()[:1], b"E")    # a write: refused, not NAKed
        self.c.raw_send(frame_raw(b"m80000000,1*\x01"))    # not "m80000000,1" repeated
        self.assertEqual(self.c.read_byte(), b"+")
        self.assertEqual(self.c.read_packet()[:1], b"E")

    def test_ack_mode_is_stop_and_wait(self):
        """in ack mode a reply of several packets (monitor output, then OK) sends each after
        the '+' of the one before, and '-' resends the one not yet acknowledged"""
        self.c.raw_send(frame(b"qRcmd," + b"when".hex().encode()))
        self.assertEqual(self.c.read_byte(), b"+")
        out = self.c.read_packet(ack=False)
        self.assertTrue(out.startswith(b"O"))
        time.sleep(0.2)                                     # the OK must not come yet
        self.c.sock.setblocking(False)
        try:
            early = self.c.sock.recv(100)
        except BlockingIOError:
            early = b""
        self.c.sock.setblocking(True)
        self.c.sock.settimeout(60)
        self.assertEqual(early, b"")
        self.c.raw_send(b"-")
        self.assertEqual(self.c.read_packet(ack=False), out)   # the output again, not OK
        self.c.raw_send(b"+")
        self.assertEqual(self.c.read_packet(ack=False), b"OK")
        self.c.raw_send(b"-")
        self.assertEqual(self.c.read_packet(ack=False), b"OK")
        self.c.raw_send(b"+")
        self.assertIn(b"event 0 of", bytes.fromhex(out[1:].decode()))

    def test_vcont_leftmost_action_applies(self):
        """vCont: each thread takes the leftmost action that names it, so in 'vCont;c;s:1'
        the step names no thread (the continue took them all) and 'vCont;c:1;s:1' continues
        thread 1"""
        self.c.handshake()
        sig, f = parse_stop(self.c.cmd("vCont;c;s:1"))
        self.assertEqual(f.get("replaylog"), "end")
        self.c.cmd("bc")
        sig, f = parse_stop(self.c.cmd("vCont;c:1;s:1"))
        self.assertEqual(f.get("replaylog"), "end")
        self.c.cmd("bc")
        sig, f = parse_stop(self.c.cmd("vCont;s:1;c"))      # GDB's form: a step
        self.assertNotIn("replaylog", f)
        self.assertEqual(f["thread"], "1")

    def test_vcont_others_continuing_stop_at_any_warp(self):
        """vCont;c:N;c continues every thread (the action without a thread id takes those
        not named): a breakpoint only warp 0 reaches stops it with N in warp 1, where a
        plain vCont;c stops, and names warp 0's thread"""
        self.c.handshake()
        entry = le32(parse_stop(self.c.cmd("?"))[1]["20"])
        nt = int(re.search(r"threads=(\d+)", self.c.monitor("config")[1]).group(1))
        when = lambda: int(re.search(r"event (\d+) of", self.c.monitor("when")[1]).group(1))  # noqa: E731
        self.assertEqual(self.c.cmds("Z0,%x,4" % (entry + 8)), "OK")
        sig, f = parse_stop(self.c.cmd("vCont;c"))
        self.assertEqual(le32(f["20"]), entry + 8)
        at = when()
        self.c.monitor("seek 0")
        sig, f = parse_stop(self.c.cmd("vCont;c:%x;c" % (1 + nt)))     # lane 0 of warp 1
        self.assertIn("swbreak", f)
        self.assertEqual(le32(f["20"]), entry + 8)
        self.assertEqual(f["thread"], "1")
        self.assertEqual(when(), at)
        self.assertEqual(self.c.cmds("z0,%x,4" % (entry + 8)), "OK")

    def test_vcont_c_reports_the_selected_lane_not_hcs(self):
        """a vCont;c names no thread: its breakpoint hits are reported in the lane GDB last
        read registers of (Hg), when the warp stops with that lane active, not in the lane
        of an earlier bs's Hc (a reverse-stepi of another lane): GDB's finish waits for its
        own thread, and took hits in another lane for someone else's, to the end of history"""
        self.c.handshake()
        nt = int(re.search(r"threads=(\d+)", self.c.monitor("config")[1]).group(1))
        add = vecadd_function("add_cb")
        self.assertEqual(self.c.cmds("Z0,%x,4" % add), "OK")
        sig, f = parse_stop(self.c.cmd("vCont;c"))
        tid = int(f["thread"], 16)
        warp, a = divmod(tid - 1, nt)
        b = (a + 1) % nt                            # another lane of that warp
        self.assertEqual(self.c.cmds("z0,%x,4" % add), "OK")
        self.assertEqual(self.c.cmds("Hc%x" % (1 + warp * nt + b)), "OK")
        parse_stop(self.c.cmd("bs"))                # lane b's last instruction, backward
        self.assertEqual(self.c.cmds("Hg%x" % tid), "OK")
        self.c.cmds("g")                            # GDB reads the selected lane's registers
        self.assertEqual(self.c.cmds("Z0,%x,4" % add), "OK")
        seen = 0
        for _ in range(8):                          # until that warp hits the breakpoint again
            sig, f = parse_stop(self.c.cmd("vCont;c"))
            if f.get("replaylog") == "end":
                break
            if (int(f["thread"], 16) - 1) // nt == warp:
                self.assertEqual(int(f["thread"], 16), tid)
                seen += 1
                break
            self.assertEqual(self.c.cmds("Hg%x" % tid), "OK")
        self.assertEqual(seen, 1)
        self.assertEqual(self.c.cmds("z0,%x,4" % add), "OK")

    def test_thread_sweep_is_no_thread_choice(self):
        """after a stop, a listing of the threads followed by an Hg for each (an IDE's
        -thread-info at every stop, `info threads`) is no choice of thread, even when it
        reads one thread only: a continue then reports its breakpoint hit in the lane of
        the stop, as with no listing, not in the last thread listed; an Hg after the stop's
        own listing (`thread N`) is a choice, and so is monitor pick (vxrr.gdb's vx-thread)
        after a sweep"""
        self.c.handshake()
        nt = int(re.search(r"threads=(\d+)", self.c.monitor("config")[1]).group(1))
        add = vecadd_function("add_cb")

        def listing():
            ids, r = [], self.c.cmds("qfThreadInfo")
            while r.startswith("m"):
                ids += [int(t, 16) for t in r[1:].split(",")]
                r = self.c.cmds("qsThreadInfo")
            return ids

        def lanes(lists, reads, pick=None):
            """stop; `lists` listings (the first is GDB's own); an Hg and g for each thread
            of reads (those of the last listing for "all"); monitor pick; continue, then
            reverse-continue: the lanes they report"""
            self.c.monitor("seek 0")
            self.assertEqual(self.c.cmds("Z0,%x,4" % add), "OK")
            sig, f = parse_stop(self.c.cmd("vCont;c"))
            first = int(f["thread"], 16)
            ids = [listing() for _ in range(lists)][-1] if lists else []
            for t in ids if reads == "all" else reads:
                if t != first:
                    self.assertEqual(self.c.cmds("Hg%x" % t), "OK")
                    self.c.cmds("g")
            if pick:
                self.assertEqual(self.c.monitor("pick %d" % pick)[1], "")
            out = []
            for cmd in ("vCont;c", "bc"):
                sig, f = parse_stop(self.c.cmd(cmd))
                out.append((int(f["thread"], 16) - 1) % nt)
            self.assertEqual(self.c.cmds("z0,%x,4" % add), "OK")
            return (first - 1) % nt, ids, out

        lane, _, plain = lanes(0, [])
        self.assertEqual(plain, [lane, lane])
        other = 1 + (lane + 1) % nt                     # warp 0's next lane
        _, ids, swept = lanes(2, "all")
        self.assertNotEqual((ids[-1] - 1) % nt, lane)   # the sweep ends in another lane
        self.assertEqual(swept, plain)
        self.assertEqual(lanes(2, [other])[2], plain)   # a sweep that reads one thread
        self.assertEqual(lanes(1, [other])[2], [(lane + 1) % nt] * 2)
        self.assertEqual(lanes(2, "all", pick=other)[2], [(lane + 1) % nt] * 2)

    def test_vcont_range_step(self):
        """vCont;r lo,hi:T (GDB's range stepping, offered in vCont?) steps thread T on while
        its PC stays in lo .. hi - 1: it ends where single steps (vCont;s:T) end, at the
        same position with the same registers; it stops at a breakpoint inside the range;
        r with lo == hi steps once; a malformed range is refused"""
        self.c.handshake()
        self.assertIn("r", self.c.cmds("vCont?").split(";"))
        when = lambda: int(re.search(r"event (\d+) of", self.c.monitor("when")[1]).group(1))  # noqa: E731
        add = vecadd_function("add_cb")
        self.assertEqual(self.c.cmds("Z0,%x,4" % add), "OK")
        sig, f = parse_stop(self.c.cmd("vCont;c"))
        self.assertEqual(self.c.cmds("z0,%x,4" % add), "OK")
        t = int(f["thread"], 16)
        lo, hi = add, add + 0x40
        at = when()
        path = []
        while True:
            sig, f = parse_stop(self.c.cmd("vCont;s:%x" % t))
            path.append(le32(f["20"]))
            if not lo <= path[-1] < hi:
                break
        self.assertGreater(len(path), 3)
        want = (path[-1], when(), self.c.cmds("Hg%x" % t) and self.c.cmds("g"))
        self.c.monitor("seek %d" % at)
        sig, f = parse_stop(self.c.cmd("vCont;r%x,%x:%x" % (lo, hi, t)))
        self.assertNotIn("swbreak", f)
        got = (le32(f["20"]), when(), self.c.cmds("Hg%x" % t) and self.c.cmds("g"))
        self.assertEqual(got, want)
        # a breakpoint inside the range: the step stops at it
        self.c.monitor("seek %d" % at)
        self.assertEqual(self.c.cmds("Z0,%x,4" % path[1]), "OK")
        sig, f = parse_stop(self.c.cmd("vCont;r%x,%x:%x" % (lo, hi, t)))
        self.assertEqual(le32(f["20"]), path[1])
        self.assertEqual(self.c.cmds("z0,%x,4" % path[1]), "OK")
        # an empty range: one step
        self.c.monitor("seek %d" % at)
        sig, f = parse_stop(self.c.cmd("vCont;r%x,%x:%x" % (lo, lo, t)))
        self.assertEqual(le32(f["20"]), path[0])
        for bad in ("vCont;r%x:%x" % (lo, t), "vCont;r%x,:%x" % (lo, t), "vCont;r,%x" % hi):
            self.assertEqual(self.c.cmds(bad)[:1], "E", bad)

    def test_resume_address_other_than_pc_is_refused(self):
        """c/s/C/S with an address: history cannot resume elsewhere, so an address that is
        not the thread's PC is refused; its own PC is accepted"""
        self.c.handshake()
        self.assertEqual(self.c.cmds("Hc1"), "OK")
        pc = le32(parse_stop(self.c.cmd("vCont;s:1"))[1]["20"])
        for pkt in ["c%x" % (pc + 4), "s%x" % (pc + 4), "C05;%x" % (pc + 4), "S05;%x" % (pc + 4)]:
            self.assertEqual(self.c.cmds(pkt)[:1], "E", pkt)
        r = self.c.monitor("when")[1]
        self.assertRegex(r, r"event 1 of")                  # nothing moved
        sig, f = parse_stop(self.c.cmd("s%x" % pc))
        self.assertNotEqual(le32(f["20"]), pc)
        pc = le32(f["20"])
        sig, f = parse_stop(self.c.cmd("S05;%x" % pc))
        self.assertNotEqual(le32(f["20"]), pc)
        pc = le32(f["20"])
        self.assertEqual(parse_stop(self.c.cmd("c%x" % pc))[1].get("replaylog"), "end")

    def test_when_names_lanes_not_thread_ids(self):
        """monitor when names the issuing warp's lanes, not a remote thread id (which read
        as GDB's own "Thread N", another lane): at reset only lane 0 of warp 0 runs, at
        the start address"""
        self.c.handshake()
        out = self.c.monitor("when")[1]
        self.assertRegex(out, r"^event 0 of \d+, cycle 0: core 0 warp 0 \(gwarp 0, lanes 0x1\) "
                              r"issues pc 0x80000000\n$")
        self.assertNotIn("thread", out)

    def test_last_issue(self):
        """monitor last-issue W: back to warp W's last issue before now (W then issues
        next, and is the thread a stop reports); nothing before event 0; W out of range
        or missing: usage"""
        self.c.handshake()
        self.assertEqual(self.c.monitor("last-issue 0")[1], "warp 0 issued nothing before event 0\n"
                         "event 0 of %s" % self.c.monitor("when")[1].split(" of ", 1)[1])
        for bad in ("last-issue", "last-issue 4", "last-issue x"):
            self.assertIn("usage: monitor last-issue W (a global warp, 0..3)",
                          self.c.monitor(bad)[1], bad)
        self.c.monitor("seek 3000")
        r = vxtest.run([vxtest.prog("vxdump"), "--warp", "2", "--kind", "issue", "--no-header",
                        self.trace])
        before = [int(w[0]) for w in (ln.split() for ln in r.stdout.splitlines())
                  if w and w[0].isdigit() and int(w[0]) < 3000]
        out = self.c.monitor("last-issue 2")[1]
        self.assertRegex(out, r"^event %d of \d+, cycle \d+: core 0 warp 2 \(gwarp 2," % before[-1])
        self.assertEqual(parse_stop(self.c.cmd("?"))[1]["thread"], "%x" % (1 + 2 * 4 + 0))

    def test_monitor_command_with_a_trailing_newline(self):
        """a monitor command's name ends at any blank, a newline too"""
        self.c.handshake()
        r, out = self.c.monitor("when\n")
        self.assertRegex(out, r"event 0 of")

    def test_noack_mode(self):
        """after QStartNoAckMode no '+' is sent"""
        self.c.cmd("QStartNoAckMode")
        self.c.noack = True
        self.c.raw_send(frame("qC"))
        p = self.c.read_packet()
        self.assertTrue(p.startswith(b"QC"))
        self.assertEqual(self.c.buf, b"")

    def test_unknown_and_malformed(self):
        """unknown packets get the empty reply; malformed known ones an error"""
        self.c.handshake()
        self.assertEqual(self.c.cmds("qNoSuchThing"), "")
        self.assertEqual(self.c.cmds("vNoSuchThing;1"), "")
        self.assertEqual(self.c.cmds("!"), "")
        self.assertEqual(self.c.cmds("mzz,4")[:1], "E")
        self.assertEqual(self.c.cmds("m80000000")[:1], "E")
        self.assertEqual(self.c.cmds("Z0,xyz,4")[:1], "E")
        self.assertEqual(self.c.cmds("vCont;q")[:1], "E")
        self.assertEqual(self.c.cmds("vMustReplyEmpty"), "")

    def test_oversized_and_truncated(self):
        """a packet bigger than PacketSize is refused; a cut packet is dropped; the session goes on"""
        self.c.handshake()
        r = self.c.cmds("m" + "0" * 70000 + ",4")
        self.assertEqual(r[:1], "E")
        self.c.raw_send(b"$m80000000,")            # cut short by the next packet
        self.assertTrue(self.c.cmds("qC").startswith("QC"))
        self.assertEqual(len(self.c.cmds("m80000000,4")), 8)

    def test_binary_and_partial_memory_reads(self):
        """x (binary) gives the bytes m gives, the ELF's code, with '#', '$', '}' and '*'
        escaped; a read running off mapped memory gives its mapped part (local memory is
        16 KiB: 0xffff4000 on is unmapped, sim/vx_sim.h), by m, x and monitor mem alike;
        one that starts unmapped (the null guard below 0x40, or past local memory) E0e"""
        self.c.handshake()
        _, code = elf_entry_and_bytes(self.trace + ".elf", 0x80000000, 0x100)
        self.assertTrue(any(b in code for b in b"#$}*"))     # (else no escape is needed)
        self.assertEqual(self.c.cmd("x80000000,100"), b"b" + code)
        self.assertEqual(bytes.fromhex(self.c.cmds("m80000000,100")), code)
        self.assertEqual(self.c.cmds("mffff3ff8,20"), "00" * 8)
        self.assertEqual(self.c.cmd("xffff3ff8,20"), b"b" + bytes(8))
        self.assertEqual(self.c.monitor("mem 0 0xffff3ff8 32")[1],
                         "0xffff3ff8: 00 00 00 00 00 00 00 00\n0xffff4000: not mapped\n")
        for pkt in ("m3f,2", "x3f,2", "mffff4000,4", "xffff4000,4"):
            self.assertEqual(self.c.cmds(pkt), "E0e", pkt)
        self.assertEqual(self.c.cmds("m40,4"), "00000000")    # the console: loads read 0

    def test_packet_edges(self):
        """a breakpoint or watchpoint beyond 32 bits or of length 0 is refused; one that
        runs past 4 GiB is clamped there alike when it is inserted and removed; reads of
        target.xml past its end are empty; a threads read with an annex, a vCont without
        an action, a C action without its signal, a bad thread id or anything else after
        the action are errors"""
        self.c.handshake()
        for pkt in ("Z0,100000000,4", "Z2,100000000,4", "Z2,80000000,0", "vCont;C", "vCont;c:zz",
                    "vCont;cX", "vCont;"):
            self.assertEqual(self.c.cmds(pkt), "E01", pkt)
        self.assertEqual(self.c.cmds("Z2,fffffffe,4"), "OK")
        self.assertEqual(self.c.cmds("z2,fffffffe,4"), "OK")
        self.assertEqual(self.c.cmds("z2,fffffffe,4")[:1], "E")     # removed: none left
        self.assertEqual(self.c.cmds("qXfer:features:read:target.xml:100000,10"), "l")
        self.assertEqual(self.c.cmds("qXfer:threads:read:x0,100"), "E00")
        self.assertRegex(self.c.monitor("when")[1], r"^event 0 of")   # nothing moved

    def test_threads(self):
        """thread list, extra info, alive checks and selections of threads that do not exist"""
        self.c.handshake()
        first = self.c.cmds("qfThreadInfo")
        self.assertTrue(first.startswith("m"))
        ids = [int(t, 16) for t in first[1:].split(",")]
        self.assertIn(1, ids)
        self.assertEqual(self.c.cmds("qsThreadInfo"), "l")
        info = bytes.fromhex(self.c.cmds("qThreadExtraInfo,1")).decode()
        self.assertRegex(info, r"core 0 warp 0 lane 0, (active|masked off)")
        self.assertEqual(self.c.cmds("T1"), "OK")
        self.assertEqual(self.c.cmds("T7fffffff")[:1], "E")
        self.assertEqual(self.c.cmds("Hg7fffffff")[:1], "E")
        self.assertEqual(self.c.cmds("qThreadExtraInfo,7fffffff")[:1], "E")
        # the last thread id (1 + gwarp * threads + lane) exists, the one after it does not
        cfg = dict(kv.split("=") for kv in self.c.monitor("config")[1].split())
        per_core = int(cfg["warps"]) * int(cfg["threads"])
        last = int(cfg["clusters"]) * int(cfg["cores"]) * per_core
        info = bytes.fromhex(self.c.cmds("qThreadExtraInfo,%x" % last)).decode()
        self.assertRegex(info, r"core %d warp %d lane %d\b" % (last // per_core - 1, int(cfg["warps"]) - 1,
                                                               int(cfg["threads"]) - 1))
        self.assertEqual(self.c.cmds("Hg%x" % last), "OK")
        for pkt in ("T%x", "Hg%x", "Hc%x", "qThreadExtraInfo,%x"):
            self.assertEqual(self.c.cmds(pkt % (last + 1))[:1], "E", pkt % (last + 1))
        self.assertEqual(self.c.cmds("Hg2"), "OK")     # lane 1 of warp 0
        self.assertEqual(self.c.cmds("Hg0"), "OK")
        self.assertEqual(self.c.cmds("Hc-1"), "OK")
        x = self.c.cmds("qXfer:threads:read::0,fff")
        self.assertIn('<thread id="1" core="0" name="warp 0 lane 0">', x)
        # warp 1 at event 0: spawned later, so "not started"; at the end "finished"
        nt = int(re.search(r"threads=(\d+)", self.c.monitor("config")[1]).group(1))
        w1 = lambda: bytes.fromhex(self.c.cmds("qThreadExtraInfo,%x" % (1 + nt))).decode()  # noqa: E731
        self.assertIn("not started", w1())
        self.assertNotIn(1 + nt, ids)                       # not listed: T says it is not alive
        self.assertEqual(self.c.cmds("T%x" % (1 + nt))[:1], "E")
        self.assertEqual(parse_stop(self.c.cmd("vCont;c"))[1].get("replaylog"), "end")
        self.assertRegex(w1(), r", finished$")

    def test_continue_with_a_signal_names_its_thread(self):
        """vCont;C06:T;c (GDB passing a signal on to thread T while all continue): the stop
        at the end of history is reported in T, not in the thread GDB last read (Hg)"""
        self.c.handshake()
        sig, f = parse_stop(self.c.cmd("vCont;s:1"))        # warp 0 spawns the others
        for _ in range(400):
            parse_stop(self.c.cmd("vCont;s:1"))
        nt = int(re.search(r"threads=(\d+)", self.c.monitor("config")[1]).group(1))
        t = 1 + nt + 1                                       # warp 1 lane 1
        self.assertEqual(self.c.cmds("Hg%x" % (1 + 2 * nt)), "OK")   # warp 2 lane 0 read last
        self.c.cmds("g")
        sig, f = parse_stop(self.c.cmd("vCont;C06:%x;c" % t))
        self.assertEqual((f.get("replaylog"), int(f["thread"], 16)), ("end", t))

    def test_step_and_reverse(self):
        """vCont;s steps thread 1's warp; bs comes back to the same registers; bc reaches the start"""
        self.c.handshake()
        g0 = self.c.cmds("g")
        sig, f = parse_stop(self.c.cmd("vCont;s:1"))
        self.assertEqual((sig, f["thread"]), (5, "1"))
        g1 = self.c.cmds("g")
        self.assertNotEqual(g0, g1)
        self.assertEqual(le32(f["20"]), le32(g1[256:264]))
        self.assertEqual(self.c.cmds("Hc1"), "OK")
        sig, f = parse_stop(self.c.cmd("bs"))
        self.assertEqual(self.c.cmds("g"), g0)
        self.assertEqual(self.c.cmds("Hc0"), "OK")
        sig, f = parse_stop(self.c.cmd("bc"))
        self.assertIn("replaylog", f)
        self.assertEqual(f["replaylog"], "begin")
        self.assertEqual(self.c.cmds("g"), g0)

    def test_step_stop_stays_off_a_respawned_warp(self):
        """A stop may move to an earlier stop that shows its warp in the same state (only
        other warps' issues between), but never across one that changes the warp: warp 1
        ends its first run with tmc 0, and warp 0's vx_wspawn starts it again.  From its
        breakpoint at the warp entry, bs undoes its last issue (the tmc 0), and vCont;s
        runs it again: the stop is right after it, the warp finished, not at the earlier
        stop where warp 0 had spawned it again (as the stop moved before)."""
        self.c.handshake()
        entry = vxdbg.elf_symbol(vxtest.kernel("vecadd"), "__vx_spawn_warp_entry")
        self.assertEqual(self.c.cmds("Z0,%x,4" % entry), "OK")
        tid = None
        for _ in range(8):
            sig, f = parse_stop(self.c.cmd("vCont;c"))
            tid = f.get("thread")
            if tid == "5" or "replaylog" in f:
                break
        self.assertEqual(tid, "5")      # warp 1 lane 0 (4 lanes a warp)
        when = lambda: int(re.search(r"event (\d+)", self.c.monitor("when")[1]).group(1))
        p1 = when()
        self.assertEqual(self.c.cmds("z0,%x,4" % entry), "OK")   # as GDB does to step over it
        self.assertEqual(self.c.cmds("Hc5"), "OK")
        parse_stop(self.c.cmd("bs"))
        p2 = when()
        self.assertEqual(self.c.cmds("Hg5"), "OK")
        self.assertNotEqual(le32(self.c.cmds("p20")), entry)      # before it was spawned again
        parse_stop(self.c.cmd("vCont;s:5"))
        p3 = when()
        self.assertNotEqual(le32(self.c.cmds("p20")), entry)
        self.assertEqual(p3, p2 + 1)
        self.assertLess(p3, p1)

    def test_reverse_step_stays_where_it_was_shown(self):
        """A stop moves to an earlier stop showing its warp in the same state only when its
        own position was not shown more recently: seek N, stepi warp A (the warp issuing
        at N), stepi warp B (the one issuing next), stepi another, reverse-stepi B: back
        where B's stepi began, with A's stepi kept (before, it went back to N)."""
        self.c.handshake()
        when = lambda: re.search(r"event (\d+) of .*\(gwarp (\d+),",
                                 self.c.monitor("when")[1]).groups()
        self.c.monitor("seek 5000")
        n, a_w = map(int, when())
        ta = 1 + 4 * a_w
        parse_stop(self.c.cmd("vCont;s:%x" % ta))
        a, b_w = map(int, when())
        self.assertEqual(a, n + 1)
        self.assertNotEqual(b_w, a_w)   # (else the test proves nothing)
        self.assertEqual(self.c.cmds("Hg%x" % ta), "OK")
        pc_a = self.c.cmds("p20")
        tb = 1 + 4 * b_w
        parse_stop(self.c.cmd("vCont;s:%x" % tb))
        c_w = next(w for w in range(4) if w != b_w)
        parse_stop(self.c.cmd("vCont;s:%x" % (1 + 4 * c_w)))
        self.assertEqual(self.c.cmds("Hc%x" % tb), "OK")
        parse_stop(self.c.cmd("bs"))
        self.assertEqual(int(when()[0]), a)
        self.assertEqual(self.c.cmds("Hg%x" % ta), "OK")
        self.assertEqual(self.c.cmds("p20"), pc_a)

    def test_step_over_a_watch_stop_named_for_a_finished_warp(self):
        """A watchpoint stop during a continue locked to one thread names that thread,
        whoever made the access (here warp 0 printing, while the resumed warp 1 has
        finished); GDB then steps that thread over the access.  The step carries the
        access out and ends; it used to run on to the end of history, waiting for an
        issue of warp 1, and GDB, its step over unfinished, hung at the next command."""
        self.c.handshake()
        when = lambda: int(re.search(r"event (\d+)", self.c.monitor("when")[1]).group(1))
        self.assertEqual(self.c.cmds("Z2,40,40"), "OK")        # the console window
        self.c.monitor("seek 999999999")                        # the end
        sig, f = parse_stop(self.c.cmd("bc"))                   # back over the last byte printed
        self.assertIn("watch", f)
        t = when() - 1                                          # that byte's issue
        self.c.monitor("seek %d" % t)
        self.c.cmds("Hg5")
        self.assertIn("finished", bytes.fromhex(self.c.cmds("qThreadExtraInfo,5")).decode())
        sig, f = parse_stop(self.c.cmd("vCont;c:5"))
        self.assertEqual((f.get("thread"), "watch" in f), ("5", True))
        self.assertEqual(when(), t)                             # before the access
        self.assertEqual(self.c.cmds("z2,40,40"), "OK")        # as GDB steps over it
        sig, f = parse_stop(self.c.cmd("vCont;s:5"))
        self.assertNotIn("replaylog", f)
        self.assertEqual((sig, f.get("thread")), (5, "5"))
        self.assertEqual(when(), t + 1)                         # the access carried out

    def test_breakpoint_and_end(self):
        """Z0 + continue stops with swbreak before the breakpoint; continue to the end gives replaylog:end"""
        self.c.handshake()
        entry = le32(parse_stop(self.c.cmd("?"))[1]["20"])
        pc = entry + 8
        self.assertEqual(self.c.cmds("Z0,%x,4" % pc), "OK")
        sig, f = parse_stop(self.c.cmd("vCont;c"))
        self.assertIn("swbreak", f)
        self.assertEqual(le32(f["20"]), pc)
        # continue again: the instruction at the breakpoint executes first (progress)
        n1 = int(re.search(r"event (\d+)", self.c.monitor("when")[1]).group(1))
        sig, f = parse_stop(self.c.cmd("vCont;c"))
        n2 = int(re.search(r"event (\d+)", self.c.monitor("when")[1]).group(1))
        self.assertGreater(n2, n1)
        self.assertEqual(self.c.cmds("z0,%x,4" % pc), "OK")
        sig, f = parse_stop(self.c.cmd("c"))
        self.assertEqual(f.get("replaylog"), "end")
        sig, f = parse_stop(self.c.cmd("c"))
        self.assertEqual(f.get("replaylog"), "end")     # still usable at the end
        self.assertEqual(self.c.cmds("z0,%x,4" % pc)[:1], "E")   # not inserted any more

    def test_hwbreak_for_z1(self):
        """a Z1 (hardware) breakpoint stop says hwbreak:, a Z0 one swbreak:"""
        self.c.handshake()
        entry = le32(parse_stop(self.c.cmd("?"))[1]["20"])
        for z, key, other in (("Z1", "hwbreak", "swbreak"), ("Z0", "swbreak", "hwbreak")):
            self.c.monitor("seek 0")
            self.assertEqual(self.c.cmds("%s,%x,4" % (z, entry + 8)), "OK")
            sig, f = parse_stop(self.c.cmd("c"))
            self.assertEqual(le32(f["20"]), entry + 8)
            self.assertIn(key, f)
            self.assertNotIn(other, f)
            self.assertEqual(self.c.cmds("z%s,%x,4" % (z[1], entry + 8)), "OK")

    def first_store(self):
        """(index, address) of the first memory write of the trace, from vxdump."""
        r = vxtest.run([vxtest.prog("vxdump"), "--json", "--kind", "mem", self.trace])
        for ln in r.stdout.splitlines():
            e = json.loads(ln)
            if e.get("mem"):
                return e["index"], e["mem"][0]["addr"]
        self.fail("no memory write in the trace")

    def test_watchpoint_idempotence(self):
        """Z2 twice then z2 once removes the watchpoint (Z/z are idempotent, as Z0 is)"""
        self.c.handshake()
        at, addr = self.first_store()
        self.assertEqual(self.c.cmds("Z2,%x,4" % addr), "OK")
        self.assertEqual(self.c.cmds("Z2,%x,4" % addr), "OK")
        self.assertEqual(self.c.cmds("z2,%x,4" % addr), "OK")
        sig, f = parse_stop(self.c.cmd("c"))
        self.assertNotIn("watch", f)
        self.assertEqual(f.get("replaylog"), "end")
        self.assertEqual(self.c.cmds("z2,%x,4" % addr)[:1], "E")     # none left
        # and one Z2 does stop there
        self.c.monitor("seek 0")
        self.assertEqual(self.c.cmds("Z2,%x,4" % addr), "OK")
        sig, f = parse_stop(self.c.cmd("c"))
        self.assertEqual(int(f.get("watch", "0"), 16), addr)
        self.assertEqual(self.c.cmds("z2,%x,4" % addr), "OK")

    def test_local_memory_watch_removed_from_another_core(self):
        """a watchpoint in local memory (per core) is removed whichever thread is current:
        z2 names no thread (it stayed armed when a stop in another core came between)"""
        srv = Server(record("vecadd", "-c", "2", "-w", "2", "-t", "4"))
        try:
            c = srv.client()
            c.handshake()
            core1 = 1 + 2 * 4           # warp 0 of core 1, lane 0 (1 + gwarp * threads + lane)
            self.assertEqual(c.cmds("Hg1"), "OK")
            self.assertEqual(c.cmds("Z2,ffff0000,4"), "OK")
            self.assertEqual(c.cmds("Hg%x" % core1), "OK")
            self.assertEqual(c.cmds("z2,ffff0000,4"), "OK")
            self.assertEqual(c.cmds("Hg1"), "OK")
            self.assertEqual(c.cmds("z2,ffff0000,4")[:1], "E")        # removed, not still armed
            c.close()
        finally:
            srv.stop()

    def test_watch_straddling_into_local_memory(self):
        """a watchpoint from global memory into local memory (per core): its local part is
        the selected thread's core's, so another core's local writes do not hit it; the
        stops are the issues vxdump shows writing the range (global part: any core)"""
        trace = record("reduce", "-c", "2", "-w", "2", "-t", "4")
        lo, hi = 0xfffefffc, 0xffff0004
        r = vxtest.run([vxtest.prog("vxdump"), "--json", "--kind", "issue", trace])
        want = []
        for e in map(json.loads, r.stdout.splitlines()):
            for m in e["mem"] or []:
                a = m["addr"]
                if a < hi and a + m["size"] > lo and (a < 0xffff0000 or e["core"] == 0):
                    want.append(e["index"])              # reported before it (RISC-V)
                    break
        self.assertTrue(want, "the kernel writes the range")
        srv = Server(trace)
        try:
            c = srv.client()
            c.handshake()
            self.assertEqual(c.cmds("Hg1"), "OK")                # core 0
            self.assertEqual(c.cmds("Z2,%x,8" % lo), "OK")
            got = stops_to_end(c)
            self.assertEqual(got, want)
            c.close()
        finally:
            srv.stop()

    def test_watch_core_moves_an_inserted_watchpoint(self):
        """a watchpoint in local memory inserted for core 0 (Hg) and inserted again after
        monitor watch-core names core 1 for it (vxrr.gdb does so; GDB inserts again at
        each resume) moves to core 1: the stops are core 1's writes, as vxdump shows them"""
        trace = record("reduce", "-c", "2", "-w", "2", "-t", "4")
        lo, hi = 0xffff0000, 0xffff0004
        r = vxtest.run([vxtest.prog("vxdump"), "--json", "--kind", "issue", trace])
        want = {0: [], 1: []}
        for e in map(json.loads, r.stdout.splitlines()):
            if any(m["addr"] < hi and m["addr"] + m["size"] > lo for m in e["mem"] or []):
                want[e["core"]].append(e["index"])
        self.assertTrue(want[0] and want[1] and want[0] != want[1], "both cores write the range")
        srv = Server(trace)
        try:
            c = srv.client()
            c.handshake()
            self.assertEqual(c.cmds("Hg1"), "OK")                # core 0
            self.assertEqual(c.cmds("Z2,%x,4" % lo), "OK")
            self.assertIn("core 1", c.monitor("watch-core 2 0x%x 4 1" % lo)[1])
            self.assertEqual(c.cmds("Z2,%x,4" % lo), "OK")
            got = stops_to_end(c)
            self.assertEqual(got, want[1])
            self.assertEqual(c.cmds("z2,%x,4" % lo), "OK")
            self.assertEqual(c.cmds("z2,%x,4" % lo)[:1], "E")        # one watchpoint, moved
            c.close()
        finally:
            srv.stop()

    def test_watch_on_the_console_window(self):
        """a byte stored to the console window (0x40..0x7f, how vx_printf prints) goes to the
        console, not to memory; a watchpoint there stops at it all the same, forward
        (before the store) and backward (after it): it was accepted and never fired"""
        trace = record("printf")
        r = vxtest.run([vxtest.prog("vxdump"), "--json", "--kind", "issue", trace])
        ev = [e for e in map(json.loads, r.stdout.splitlines())]
        slot = next(e["console"][0]["slot"] for e in ev if e["console"])
        want = [e["index"] for e in ev if any(b["slot"] == slot for b in e["console"])]
        self.assertGreater(len(want), 1)
        srv = Server(trace)
        try:
            c = srv.client()
            c.handshake()
            when = lambda: int(re.search(r"event (\d+) of", c.monitor("when")[1]).group(1))  # noqa: E731
            self.assertEqual(c.cmds("Z2,%x,1" % (0x40 + slot)), "OK")
            got = []
            while True:
                sig, f = parse_stop(c.cmd("vCont;c"))
                if "replaylog" in f:
                    break
                self.assertEqual(f.get("watch"), "%x" % (0x40 + slot))
                got.append(when())
            self.assertEqual(got, want)
            back = []
            while True:
                sig, f = parse_stop(c.cmd("bc"))
                if "replaylog" in f:
                    break
                back.append(when() - 1)
            self.assertEqual(back, want[::-1])
            c.close()
        finally:
            srv.stop()

    def test_breakpoint_conditions_and_idempotence(self):
        """Z0 with agent-expression conditions (const 0 never stops, const 1 does); Z0 twice + z0 once removes"""
        self.c.handshake()
        entry = le32(parse_stop(self.c.cmd("?"))[1]["20"])
        pc = entry + 8
        never, always = "X3,220027", "X3,220127"      # const8 0; end  /  const8 1; end
        self.assertEqual(self.c.cmds("Z0,%x,4;%s" % (pc, never)), "OK")
        sig, f = parse_stop(self.c.cmd("vCont;c"))
        self.assertEqual(f.get("replaylog"), "end")     # the condition never held
        self.assertEqual(parse_stop(self.c.cmd("bc"))[1].get("replaylog"), "begin")
        self.assertEqual(self.c.cmds("Z0,%x,4;%s;%s" % (pc, never, always)), "OK")   # replaced: any true stops
        sig, f = parse_stop(self.c.cmd("vCont;c"))
        self.assertIn("swbreak", f)
        self.assertEqual(le32(f["20"]), pc)
        self.assertEqual(self.c.cmds("Z0,%x,4" % pc), "OK")                # again, unconditional
        self.assertEqual(self.c.cmds("z0,%x,4" % pc), "OK")                # one removal is enough
        self.assertEqual(self.c.cmds("z0,%x,4" % pc)[:1], "E")
        sig, f = parse_stop(self.c.cmd("vCont;c"))
        self.assertEqual(f.get("replaylog"), "end")
        self.assertEqual(self.c.cmds("Z5,%x,4" % pc), "")      # unknown type: empty reply
        # GDB writes a list without separators: two conditions that never hold
        self.assertEqual(self.c.cmds("Z0,%x,4;%s%s" % (pc, never, never)), "OK")
        sig, f = parse_stop(self.c.cmd("vCont;c"))
        self.assertEqual(f.get("replaylog"), "end")
        self.assertEqual(self.c.cmds("z0,%x,4" % pc), "OK")
        for bad in ("X3,2200", "X0,", "Y3,220027", "X3,22zz27", "X3,220027;;X3,220027",
                    "X3,220027Y", ";X3,220027"):            # (";" separates conditions only)
            self.assertEqual(self.c.cmds("Z0,%x,4;%s" % (pc, bad))[:1], "E", bad)
        # a condition that cannot be evaluated (1 / 0: const8 1; const8 0; div_signed; end)
        # stops, as a true one does (as GDB stops on an error in testing a condition)
        self.c.monitor("seek 0")
        self.assertEqual(self.c.cmds("Z0,%x,4;X6,220122000527" % pc), "OK")
        sig, f = parse_stop(self.c.cmd("vCont;c"))
        self.assertIn("swbreak", f)
        self.assertEqual(le32(f["20"]), pc)
        self.assertEqual(self.c.cmds("z0,%x,4" % pc), "OK")

    def test_monitor(self):
        """monitor commands answer through O packets"""
        self.c.handshake()
        r, out = self.c.monitor("when")
        self.assertEqual(r, b"OK")
        self.assertRegex(out, r"event 0 of \d+, cycle \d+: core 0 warp 0")
        r, out = self.c.monitor("help")
        for cmd in ["when", "seek", "warps", "lane", "info dm", "checkpoint", "restart"]:
            self.assertIn(cmd, out)
        r, out = self.c.monitor("seek 010")             # decimal: a leading 0 is not octal
        self.assertRegex(out, r"event 10 of")
        r, out = self.c.monitor("seek 0x10")
        self.assertRegex(out, r"event 16 of")
        r, out = self.c.monitor("seek 100")
        self.assertRegex(out, r"event 100 of")
        r, out = self.c.monitor("warps")
        self.assertRegex(out, r"gwarp.*pc")
        r, out = self.c.monitor("info dm")
        self.assertIn("ebreak-halt", out)
        r, out = self.c.monitor("checkpoint")
        m = re.search(r"checkpoint (\d+) at event 100", out)
        self.assertTrue(m)
        self.c.monitor("seek 0")
        r, out = self.c.monitor("restart " + m.group(1))
        self.assertRegex(out, r"event 100 of")
        r, out = self.c.monitor("frobnicate")
        self.assertIn("unknown monitor command", out)
        r, out = self.c.monitor("seek banana")
        self.assertIn("usage", out)
        self.c.monitor("seek 0")
        # beyond 64 bits or two numbers: refused, the position stays
        end = int(re.search(r"events=(\d+)", self.c.monitor("config")[1]).group(1))
        for bad in ("99999999999999999999", "1 2", "-1"):
            r, out = self.c.monitor("seek " + bad)
            self.assertIn("usage: monitor seek N (an event index, 0..%d)" % end, out, bad)
        self.assertRegex(self.c.monitor("when")[1], r"^event 0 of")
        # past the end: to the end, and it says so
        out = self.c.monitor("seek %d" % (end + 5))[1]
        self.assertIn("event %d is past the end of history" % (end + 5), out)
        self.assertRegex(out, r"\nevent %d of %d" % (end, end))
        self.assertRegex(self.c.monitor("seek %d" % end)[1], r"^event %d of %d" % (end, end))
        # an argument to a command that takes none is an error, not ignored
        for cmd in ("when now", "warps 3", "checkpoint foo", "stats x", "config y"):
            r, out = self.c.monitor(cmd)
            self.assertIn("takes no argument", out, cmd)
        self.assertNotRegex(self.c.monitor("checkpoint foo")[1], r"checkpoint \d+ at event")
        self.c.monitor("seek 0")

    def test_random_packets(self):
        """hundreds of random well-framed packets and raw noise: the server answers each and survives"""
        import random
        rng = random.Random(5000)
        self.c.handshake()
        alphabet = "0123456789abcdef,:;-=?"
        heads = ["m", "x", "g", "p", "P", "Z", "z", "H", "T", "v", "q", "Q", "b", "c", "s", "C", "S", "?", "D1",
                 "qXfer:features:read:", "qXfer:threads:read::", "qThreadExtraInfo,", "qRcmd,", "vCont;", "Hg", "Hc"]
        for i in range(400):
            head = rng.choice(heads)
            if head in ("c", "s", "C", "S", "b", "vCont;", "D1"):
                continue        # keep the session and the position
            body = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 24)))
            r = self.c.cmd(head + body)
            self.assertIsInstance(r, bytes)
        for i in range(50):     # noise between packets, then a normal request
            self.c.raw_send(bytes(rng.randrange(0x20, 0x7f) for _ in range(rng.randrange(1, 40)))
                            .replace(b"$", b"").replace(b"\x03", b""))
            self.assertTrue(self.c.cmds("qC").startswith("QC"))

    def test_disconnect_mid_packet(self):
        """a client that vanishes mid-packet does not disturb the next one"""
        c2 = self.srv.client()
        c2.raw_send(b"$m8000")
        c2.close()
        time.sleep(0.2)
        self.assertTrue(self.c.cmds("qC").startswith("QC"))

    def test_second_client_turned_away(self):
        """a client that connects while another is served is closed at once, not left waiting;
        the first goes on, and the next client after it is served"""
        srv = Server(self.trace)
        try:
            c1 = srv.client()
            c1.handshake()
            c2 = srv.client(timeout=10)
            with self.assertRaises(RspError):   # closed, within the timeout (not left waiting)
                c2.read_packet()
            c2.close()
            self.assertTrue(c1.cmds("qC").startswith("QC"))
            c1.send("D")
            self.assertEqual(c1.reply(), b"OK")
            c1.close()
            time.sleep(0.2)
            c3 = srv.client()
            self.assertTrue(c3.cmds("qC").startswith("QC"))
            c3.close()
        finally:
            err = srv.stop()
        self.assertRegex(err, r"client 127\.0\.0\.1:\d+ turned away: 127\.0\.0\.1:\d+ is connected")

    def test_monitor_mem_of_any_core(self):
        """monitor mem CORE ADDR [LEN]: memory as that core sees it, its local memory too,
        at the end of history where no thread of it is listed; the expected bytes are the
        last writes vxdump --json records for that core's local memory"""
        trace = record("reduce", "-c", "2")
        r = vxtest.run([vxtest.prog("vxdump"), "--json", "--kind", "issue", trace])
        mem = {}
        for e in map(json.loads, r.stdout.splitlines()):
            for w in e["mem"]:
                if w["addr"] >= 0xFFFF0000 and e["core"] == 1:
                    for i in range(w["size"]):
                        mem[w["addr"] + i] = (w["value"] >> (8 * i)) & 0xFF
        self.assertTrue(mem, "reduce writes local memory on core 1")
        base = min(mem)
        want = [mem.get(base + i, 0) for i in range(32)]
        srv = Server(trace)
        try:
            c = srv.client()
            c.handshake()
            sig, f = parse_stop(c.cmd("vCont;c"))
            self.assertEqual(f.get("replaylog"), "end")
            out = c.monitor("mem 1 0x%x 32" % base)[1]
            got = [int(b, 16) for line in out.splitlines() for b in line.split(":")[1].split()]
            self.assertEqual(got, want)
            self.assertIn("usage", c.monitor("mem 2 0x%x" % base)[1])    # no core 2
            # numbers are decimal unless written 0x, as help and usage say
            self.assertEqual(c.monitor("mem 1 %d 32" % base)[1], out)
            self.assertIn("decimal, or hex as 0x80000000", c.monitor("mem 1 ffff0000")[1])
            self.assertIn("decimal or 0x hex", c.monitor("help")[1])
            self.assertIn("not mapped", c.monitor("mem 0 0xfffffff0 32")[1])
            c.close()
        finally:
            srv.stop()

    def test_monitor_warps_names_the_barrier_waited_at(self):
        """monitor warps says which barrier a warp waits at, local or global (a global id
        has bit 31 set): right after each warp's first arrival at a global and at a local
        barrier that did not release it, as vxdump --json records them, with how many
        have arrived of the count the vx_bar named (the arrivals since the barrier's last
        release: warps of the core for a local one, cores for a global one, each core of
        gbar arriving with one warp)"""
        trace = record("gbar", "-c", "2", "-w", "2", "-t", "4")
        r = vxtest.run([vxtest.prog("vxdump"), "--json", "--kind", "barrier", trace])
        cases = {}
        waiting = {}   # (core or None, barrier id) -> the cores or warps waiting there
        for e in map(json.loads, r.stdout.splitlines()):
            for w in e["wctl"]:
                key = (None if w["arg"] & 0x80000000 else w["core"], w["arg"])
                if w["kind"] == "bar-arrive":
                    waiting.setdefault(key, set()).add(w["core"] if key[0] is None else w["warp"])
                elif w["kind"] == "bar-release":
                    waiting.pop(key, None)
            arrive = [w for w in e["wctl"] if w["kind"] == "bar-arrive"]
            if not arrive or any(w["kind"] == "bar-release" for w in e["wctl"]):
                continue
            a = arrive[0]
            scope = "global" if a["arg"] & 0x80000000 else "local"
            key = (None if scope == "global" else a["core"], a["arg"])
            cases.setdefault(scope, (e["index"], e["gwarp"], a["arg"] & 0x7FFFFFFF,
                                     "(%d of %d %s)" % (len(waiting[key]), a["arg2"],
                                                        "cores" if scope == "global" else "warps")))
        self.assertEqual(sorted(cases), ["global", "local"])
        srv = Server(trace)
        try:
            c = srv.client()
            c.handshake()
            for scope, (index, gw, bid, count) in sorted(cases.items()):
                c.monitor("seek %d" % (index + 1))
                out = c.monitor("warps")[1]
                line = [ln for ln in out.splitlines() if re.match(r"\s*%d\b" % gw, ln)]
                self.assertEqual(len(line), 1, out)
                self.assertIn("waiting at %s barrier %d %s" % (scope, bid, count), line[0],
                              (scope, out))
            c.close()
        finally:
            srv.stop()

    def test_monitor_watch_core(self):
        """monitor watch-core TYPE ADDR LEN CORE names the core of a watchpoint (vxrr.gdb
        sends it as GDB makes one); bad arguments get the usage"""
        self.c.handshake()
        out = self.c.monitor("watch-core 2 0xffff0100 4 0")[1]
        self.assertEqual(out, "watchpoint Z2 0xffff0100,4: core 0\n")
        for bad in ("", "2 0xffff0100 4", "1 0xffff0100 4 0", "5 0xffff0100 4 0", "2 0xffff0100 0 0",
                    "2 0xffff0100 4 1", "2 0x1ffff0100 4 0", "2 0xffff0100 4 0 9", "2 x 4 0",
                    "2 -1 4 0"):
            self.assertIn("usage: monitor watch-core TYPE ADDR LEN CORE", self.c.monitor("watch-core " + bad)[1],
                          bad)

    def test_stop_step_is_for_a_step_only(self):
        """monitor stop-step (vxrr.gdb's seek) makes the next step answer where the server
        is; a continue in between is no step: it runs to its breakpoint, the first hit
        after the position that vxdump lists, and disarms it, so that the step after it
        is a real one (right after the issue at the breakpoint)"""
        self.c.handshake()
        when = lambda: int(re.search(r"event (\d+) of", self.c.monitor("when")[1]).group(1))  # noqa: E731
        main = vxdbg.elf_symbol(vxtest.kernel("vecadd"), "main")
        r = vxtest.run([vxtest.prog("vxdump"), "--json", "--kind", "issue", "--pc", "0x%x" % main,
                        self.trace])
        hit = min(i for i in (json.loads(ln)["index"] for ln in r.stdout.splitlines()) if i >= 100)
        self.c.monitor("seek 100")
        self.assertEqual(self.c.monitor("stop-step"), (b"OK", ""))
        sig, f = parse_stop(self.c.cmd("vCont;s:1"))                # armed: no move
        self.assertEqual((sig, f["thread"], when()), (5, "1", 100))
        self.assertEqual(self.c.monitor("stop-step"), (b"OK", ""))
        self.assertEqual(self.c.cmds("Z0,%x,4" % main), "OK")
        sig, f = parse_stop(self.c.cmd("vCont;c"))
        self.assertIn("swbreak", f)
        self.assertEqual((le32(f["20"]), when()), (main, hit))
        self.assertEqual(self.c.cmds("z0,%x,4" % main), "OK")        # as GDB steps over it
        sig, f = parse_stop(self.c.cmd("vCont;s:%s" % f["thread"]))
        self.assertEqual(when(), hit + 1)

    def test_monitor_argument_edges(self):
        """stop-step off, stop-step TID of a live thread and pick off say nothing; a thread
        not live (warp 1 at the start) is not armed, and says so; a bad argument to
        stop-step, pick, restart, info or console gets that command's usage; restart of a
        checkpoint that does not exist says so; checkpoint twice at one position gives
        one checkpoint; a command of blanks only is help; blanks around a name are none
        of it.  With a thread per lane, lane alone names the current thread and lane N
        that lane's target id (1 + gwarp * threads + lane)"""
        self.c.handshake()
        self.assertEqual(self.c.monitor("lane")[1], "current thread: warp 0 lane 0 (target id Thread 1)\n")
        self.assertTrue(self.c.monitor("lane 2")[1].startswith("lane 2 of warp 0 is target id Thread 3 in "))
        for cmd in ("stop-step off", "stop-step 1", "stop-step off", "pick off"):
            self.assertEqual(self.c.monitor(cmd), (b"OK", ""), cmd)
        self.assertEqual(self.c.monitor("stop-step 5")[1], "thread 5 is not live here: not armed\n")
        for cmd, name in (("stop-step xyz", "stop-step"), ("stop-step -1", "stop-step"),
                          ("pick xyz", "pick"), ("pick 7fffffff", "pick"), ("restart x", "restart"),
                          ("info", "info"), ("info bogus", "info"), ("console 0", "console"),
                          ("console x", "console")):
            self.assertTrue(self.c.monitor(cmd)[1].startswith("usage: monitor %s " % name), cmd)
        self.c.monitor("seek 57")
        first = self.c.monitor("checkpoint")[1]
        m = re.fullmatch(r"checkpoint (\d+) at event 57\n", first)
        self.assertTrue(m, first)
        self.assertEqual(self.c.monitor("checkpoint")[1], first)
        listed = self.c.monitor("info checkpoints")[1].splitlines()
        self.assertEqual([ln for ln in listed if ln.endswith(" at event 57")], [first.strip()])
        missing = max(int(ln.split()[1]) for ln in listed) + 1
        self.assertEqual(self.c.monitor("restart %d" % missing)[1], "no checkpoint %d\n" % missing)
        self.assertRegex(self.c.monitor("when")[1], r"^event 57 of")     # it stayed
        self.assertEqual(self.c.monitor(" \t ")[1], self.c.monitor("help")[1])
        self.assertRegex(self.c.monitor("  when \t")[1], r"^event 57 of")
        self.c.monitor("seek 0")
        self.assertRegex(self.c.monitor("restart " + m.group(1))[1], r"^event 57 of")

    def test_thread_breaks_keep_a_warp_listed_for_one_session(self):
        """monitor thread-breaks: a warp named there stays in the thread list while it is
        inactive (GDB keeps the breakpoint); the next session starts without the list"""
        srv = Server(self.trace)
        try:
            c = srv.client()
            c.handshake()
            c.monitor("seek 0")
            self.assertNotIn(5, thread_ids(c))            # warp 1 is not spawned at the start
            out = c.monitor("thread-breaks 5:80000000")[1]
            self.assertIn("1 thread-specific breakpoint location", out)
            self.assertIn(5, thread_ids(c))
            self.assertIn("usage", c.monitor("thread-breaks 5")[1])
            c = detach_and_connect_again(srv, c)
            self.assertNotIn(5, thread_ids(c))
            c.close()
        finally:
            srv.stop()

    def test_threads_stay_listed_for_the_session(self):
        """a warp's threads, once listed, stay listed for the rest of the session, the warp
        finished at the end of history or not started after a seek back (GDB deleted a
        thread that went, and gave it a new number when it came back); the next session
        lists afresh"""
        def extra(c, tid):
            return bytes.fromhex(c.cmds("qThreadExtraInfo,%x" % tid)).decode()
        srv = Server(self.trace)
        try:
            c = srv.client()
            c.handshake()
            c.monitor("seek 0")
            start = thread_ids(c)
            self.assertNotIn(5, start)                  # warp 1 is not spawned at the start
            total = int(re.search(r"event \d+ of (\d+)", c.monitor("when")[1]).group(1))
            c.monitor("seek %d" % (total // 2))
            mid = thread_ids(c)
            self.assertIn(5, mid)
            c.monitor("seek %d" % total)
            self.assertTrue(set(mid) <= set(thread_ids(c)), "at the end of history")
            self.assertIn(", finished", extra(c, 5))
            self.assertEqual(c.cmds("T5"), "OK")
            c.monitor("seek 0")
            self.assertEqual(sorted(thread_ids(c)), sorted(set(mid)))
            self.assertIn(", not started", extra(c, 5))
            c = detach_and_connect_again(srv, c)
            self.assertEqual(thread_ids(c), start)
            self.assertEqual(c.cmds("T5")[:1], "E")
            c.close()
        finally:
            srv.stop()

    def test_trace_replaced_at_its_path_is_not_read(self):
        """the file served stays the one read when another trace replaces it at its path
        (vxrec --force renames a new file there): monitor console, which opened the path
        again, said nothing was printed, or showed the new trace's output"""
        d = vxtest.tmpdir()
        live = os.path.join(d, "live.vxt")
        shutil.copyfile(record("printf"), live)
        srv = Server(live)
        try:
            c = srv.client()
            c.handshake()
            total = int(re.search(r"event \d+ of (\d+)", c.monitor("when")[1]).group(1))
            c.monitor("seek %d" % total)
            before = c.monitor("console all")[1]
            new = os.path.join(d, "new.vxt")
            shutil.copyfile(record("hello"), new)
            os.replace(new, live)
            self.assertEqual(c.monitor("console all")[1], before)
            out = vxtest.run([vxtest.prog("vxsim"), vxtest.kernel("printf")]).stdout
            self.assertIn(out.splitlines()[0].split(": ", 1)[-1], before)
            c.close()
        finally:
            srv.stop()

    def test_step_overs_of_two_warps_then_continue(self):
        """LLDB steps every thread at a breakpoint over it before it resumes: after step overs
        of two warps, the continue stops at the next hit in time (vxdump: the third issue at
        the breakpoint), not again at the first warp's (each continue came back to it: only
        the last warp stepped was left out of the search from the chain's start)"""
        add = vecadd_function("add_cb")
        hits = issues_at(self.trace, add)
        with at_first_hit(self.trace, add) as (c, when):
            self.assertEqual(when(), hits[0][0])
            for _, gw in hits[:2]:                      # each warp at the breakpoint
                self.assertNotEqual(hits[0][1], hits[1][1])
                self.assertEqual(c.cmds("z0,%x,4" % add), "OK")
                sig, f = parse_stop(c.cmd("vCont;s:%x" % (1 + gw)))
                self.assertNotIn("swbreak", f)
                self.assertEqual(c.cmds("Z0,%x,4" % add), "OK")
            for k in (2, 3):
                sig, f = parse_stop(c.cmd("c"))
                self.assertIn("swbreak", f)
                self.assertEqual((when(), int(f["thread"], 16) - 1), hits[k])

    def test_step_overs_of_every_warp_at_a_breakpoint(self):
        """as LLDB does, every warp sitting at the breakpoint is stepped over it (18 of 32
        warps: more than the 16 ranges an earlier version kept), then a continue
        stops at the first hit in time that none of those steps ran (vxdump's list)"""
        t = record("vecadd", "-w", "32", "-t", "4")
        add = vecadd_function("add_cb")
        hits = issues_at(t, add)
        with at_first_hit(t, add) as (c, when):
            start = when()
            at_break = [gw for gw in range(32)
                        if c.cmds("Hg%x" % (1 + gw)) == "OK" and le32(c.cmds("p20")) == add]
            self.assertGreater(len(at_break), 16, "warps waiting at the breakpoint")
            # in the order they reach it (each step then runs its warp's hit only), the
            # breakpoint out for each step, as LLDB does
            first = {gw: min(i for i, g in hits if g == gw and i >= start) for gw in at_break}
            for gw in sorted(at_break, key=first.get):
                self.assertEqual(c.cmds("z0,%x,4" % add), "OK")
                parse_stop(c.cmd("vCont;s:%x" % (1 + gw)))
                self.assertEqual(c.cmds("Z0,%x,4" % add), "OK")
            want = next(h for h in hits if h[0] >= start and h[0] not in first.values())
            sig, f = parse_stop(c.cmd("c"))
            self.assertIn("swbreak", f)
            self.assertEqual((when(), int(f["thread"], 16) - 1), want)

    def test_reconnect_at_once(self):
        """a client that drops its connection and connects again at once is served (its
        hang-up ends the old session; the new connection is not taken for a second client)"""
        srv = Server(self.trace)
        try:
            for _ in range(20):
                c = srv.client(timeout=10)
                self.assertTrue(c.cmds("qC").startswith("QC"))
                c.close()
        finally:
            err = srv.stop()
        self.assertNotIn("turned away", err)

    def test_user_checkpoints_belong_to_the_session(self):
        """monitor checkpoint past --mem says so (they are kept all the same); a client
        that connects later starts without the earlier client's checkpoints, numbering
        from 1 again (they stayed, listed, restartable)"""
        srv = Server(self.trace, "--mem", "256K")
        try:
            c = srv.client()
            c.handshake()
            outs = []
            for pos in range(100, 3100, 100):
                c.monitor("seek %d" % pos)
                outs.append(c.monitor("checkpoint")[1])
            self.assertTrue(outs[0].startswith("checkpoint 1 at event 100\n"), outs[0])
            self.assertNotIn("note:", outs[0])
            self.assertRegex(outs[-1], r"^checkpoint 30 at event 3000\nnote: the checkpoints "
                             r"take [0-9.]+ MiB, more than --mem \(0\.2 MiB\); the ones monitor "
                             r"checkpoint made are kept all the same")
            listed = c.monitor("info checkpoints")[1].splitlines()
            self.assertEqual(listed, ["checkpoint %d at event %d" % (i, 100 * i) for i in range(1, 31)])
            c = detach_and_connect_again(srv, c)
            self.assertEqual(c.monitor("info checkpoints")[1],
                             "no checkpoints (monitor checkpoint makes one)\n")
            self.assertEqual(c.monitor("restart 2")[1], "no checkpoint 2\n")
            c.monitor("seek 77")
            self.assertEqual(c.monitor("checkpoint")[1], "checkpoint 1 at event 77\n")
            c.close()
        finally:
            srv.stop()

    def test_removed_watchpoints_remembered_are_bounded(self):
        """the watchpoints removed (kept with their cores, for GDB inserting them again)
        are the 4096 most recent: a client making ever new ones grew the list for the
        whole session, each insertion scanning it; one inserted again leaves it"""
        self.c.handshake()
        for i in range(4200):
            self.assertEqual(self.c.cmds("Z2,%x,4" % (0x10000 + 4 * i)), "OK")
            self.assertEqual(self.c.cmds("z2,%x,4" % (0x10000 + 4 * i)), "OK")
        stats = self.c.monitor("stats")[1]
        self.assertIn("watchpoints 0 inserted, 4096 removed remembered (of 4096 at most)\n", stats)
        self.assertEqual(self.c.cmds("Z2,%x,4" % (0x10000 + 4 * 4199)), "OK")
        self.assertIn("watchpoints 1 inserted, 4095 removed remembered", self.c.monitor("stats")[1])
        self.assertEqual(self.c.cmds("z2,%x,4" % (0x10000 + 4 * 4199)), "OK")

    def test_reverse_steps_replay_little(self):
        """a run of reverse steps restores a checkpoint close behind each (a short one
        256 issues before a seek target besides the one 2048 before): 200 reverse steps
        from the end replay fewer than 512 issues each (1,947 each before)"""
        self.c.handshake()
        self.c.monitor("seek 999999999")

        def replayed():
            return int(re.search(r"issues replayed (\d+)", self.c.monitor("stats")[1]).group(1))

        before = replayed()
        self.c.cmds("Hc1")
        for _ in range(200):
            self.assertTrue(self.c.cmds("bs").startswith("T05"))
        per = (replayed() - before) / 200
        self.assertLess(per, 512)

    def test_kill_ends_session(self):
        """k ends the session; the server then serves the next client"""
        self.c.handshake()
        self.c.raw_send(frame("k"))
        time.sleep(0.2)
        c2 = self.srv.client()
        self.assertTrue(c2.cmds("qC").startswith("QC"))
        c2.close()


class HostMemory(unittest.TestCase):
    def test_out_of_host_memory_is_a_plain_stop_at_a_whole_position(self):
        """replay that runs the host out of memory (an address-space limit, a kernel that
        touches 512 MiB): the continue stops where the engine is, with signal 0 (it was a
        "replay diverged" abort, SIGABRT), at a position whose registers are those a
        server with no limit shows there (the failed issue had no effect, its cycle too)"""
        if vxtest.sanitized():
            self.skipTest("sanitizer builds reserve address space of their own")
        if not t6kit.have_toolchain():
            self.skipTest("vxcc or the RISC-V toolchain missing")
        import resource
        elf = build_c(self, "walk", "#include <stdint.h>\n"
                      "int main(void) {\n"
                      "    volatile uint32_t *p = (volatile uint32_t *)0x10000000;\n"
                      "    for (uint32_t i = 0; i < 131072; i++) p[i * 1024] = i;\n"
                      "    return 0;\n}\n")
        trace = record(elf, "-t", "1")
        limit = lambda: resource.setrlimit(resource.RLIMIT_AS, (256 << 20, 256 << 20))  # noqa
        srv, ref = Server(trace, preexec_fn=limit), Server(trace)
        try:
            c, rc = srv.client(), ref.client()
            c.handshake()
            rc.handshake()
            total = int(re.search(r"event \d+ of (\d+)", rc.monitor("when")[1]).group(1))
            c.console = []
            sig, f = parse_stop(c.cmd("vCont;c"))
            said = "".join(c.console)
            # (at the limit, even the server's console lines may find no memory)
            self.assertEqual(sig, 0, said)
            self.assertNotIn("diverged", said)
            self.assertIn("stopped at event", said)
            # where it stopped, the registers are those of that position with no limit
            n = int(re.search(r"stopped at event (\d+)", said).group(1))
            self.assertTrue(0 < n < total, (n, total, said))
            rc.monitor("seek %d" % n)
            self.assertEqual(c.cmds("g"), rc.cmds("g"))
            c.close()
            rc.close()
        finally:
            srv.stop()
            ref.stop()


class ManyThreads(unittest.TestCase):
    def test_thread_list_goes_on_across_a_qxfer(self):
        """16 cores x 32 warps x 32 threads: qfThreadInfo's list takes two replies; a
        qXfer:threads:read in between (an IDE's own query) does not restart or end it"""
        srv = Server(record("vecadd", "-c", "16", "-w", "32", "-t", "32"))
        try:
            c = srv.client()
            c.handshake()
            c.monitor("seek 30000")                         # every warp started
            first = c.cmds("qfThreadInfo")
            self.assertTrue(first.startswith("m"))
            self.assertTrue(c.cmds("qXfer:threads:read::0,100").startswith("m<?xml"))
            rest = c.cmds("qsThreadInfo")
            self.assertTrue(rest.startswith("m"), rest[:20])
            self.assertEqual(c.cmds("qsThreadInfo"), "l")
            ids = [int(t, 16) for t in first[1:].split(",") + rest[1:].split(",")]
            self.assertEqual(ids, list(range(1, 16 * 32 * 32 + 1)))
            c.send("D")
            c.reply()
            c.close()
        finally:
            srv.stop()

    def test_monitor_warps_shows_128_lane_masks(self):
        """128 lanes a warp: monitor warps prints each warp's thread mask as 32 hex digits,
        the mask of the warp's next issue (vxdump) while it runs, lanes 127..0 left to
        right; 0 when it has not started or has finished"""
        trace = record("hello", "-w", "2", "-t", "128")
        r = vxtest.run([vxtest.prog("vxdump"), "--json", "--kind", "issue", trace])
        issues = [(e["index"], e["gwarp"], int(e["tmask"], 16)) for e in map(json.loads, r.stdout.splitlines())]
        end = issues[-1][0] + 1
        wide = next(i for i, g, m in issues if m >> 64)
        srv = Server(trace, "--thread-per-warp")
        try:
            c = srv.client()
            c.handshake()
            seen = set()
            for pos in (0, wide - 1, wide, end):
                c.monitor("seek %d" % pos)
                rows = {int(m.group(1)): (m.group(2), m.group(3)) for m in re.finditer(
                    r"^(\d+)\s+\d+\s+\d+\s+0x[0-9a-f]{8}\s+(\S+)\s+\d+\s+(.*)$",
                    c.monitor("warps")[1], re.M)}
                self.assertEqual(sorted(rows), [0, 1], pos)
                for g, (mask, state) in rows.items():
                    nxt = next((m for i, w, m in issues if w == g and i >= pos), None)
                    want = 0 if state.startswith(("not started", "finished")) else nxt
                    self.assertEqual(mask, "0x%032x" % want, (pos, g, state))
                    seen.add(want)
            self.assertTrue(any(0 < m < 1 << 64 for m in seen) and any(m >> 64 for m in seen), seen)
            self.assertTrue(all(st.startswith("finished") for _, st in rows.values()), rows)
            c.close()
        finally:
            srv.stop()


class CommandLineTests(unittest.TestCase):
    def test_missing_trace(self):
        """a missing trace: exit status 2 and a message naming the file"""
        r = vxtest.run([vxtest.prog("vxreplay"), "/nonexistent/x.vxt"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("/nonexistent/x.vxt", r.stderr)

    def test_banner_counts_issues_as_vxdump(self):
        """the banner's issue count is vxdump's, a faulting last issue included (it never
        executes, so replay positions end before it) and said so"""
        # a kernel whose third issue faults: li a0, 0; li a1, 0; lw t0, 0(a0) (the null guard)
        bad = os.path.join(vxtest.tmpdir(), "fault.bin")
        with open(bad, "wb") as f:
            f.write(struct.pack("<3I", 0x00000513, 0x00000593, 0x00052283))
        for kernel, faults in (("vecadd", False), (bad, True)):
            trace = record(kernel)
            r = vxtest.run([vxtest.prog("vxdump"), "--summary", trace])
            issues = int(re.search(r"totals\s+\d+ events: (\d+) issues", r.stdout).group(1))
            r = vxtest.run([vxtest.prog("vxreplay"), "--stdio", trace], input="")
            self.assertIn("(%d issues%s) on stdin/stdout" % (issues, ", the last of which faults" if faults else ""),
                          r.stderr)

    def test_misaligned_mode_replays(self):
        """a trace recorded with --allow-misaligned replays to its end and back (the
        replay's simulator takes the mode from the header): no divergence"""
        from vxdbg import MISALIGNED
        prog = os.path.join(vxtest.tmpdir(), "mis.bin")
        with open(prog, "wb") as f:
            f.write(b"".join(struct.pack("<I", w & 0xFFFFFFFF) for w in MISALIGNED))
        trace = record(prog, "--allow-misaligned")
        srv = Server(trace)
        try:
            c = srv.client()
            c.handshake()
            sig, f = parse_stop(c.cmd("vCont;c"))
            self.assertEqual(f.get("replaylog"), "end")
            self.assertEqual(le32(c.cmds("p%x" % 11)), 0x443322, "a1: the misaligned load")
            self.assertEqual(c.cmds("m10001,4"), "11223344", "the misaligned store")
            sig, f = parse_stop(c.cmd("bc"))
            self.assertEqual(f.get("replaylog"), "begin")
            self.assertEqual(c.cmds("m10001,4"), "00000000", "undone going back")
        finally:
            log = srv.stop()
        self.assertNotIn("diverged", log)

    def test_extract_elf_not_over_the_trace(self):
        """--extract-elf naming the trace itself: refused (exit 2), the trace intact"""
        d = vxtest.tmpdir()
        t = os.path.join(d, "t.vxt")
        shutil.copy(record("vecadd"), t)
        with open(t, "rb") as f:
            data = f.read()
        r = vxtest.run([vxtest.prog("vxreplay"), "--stdio", "--extract-elf", t, t], input="")
        self.assertEqual(r.returncode, 2)
        self.assertIn("is the trace itself", r.stderr)
        with open(t, "rb") as f:
            self.assertEqual(f.read(), data)
        # elsewhere: written, and the user is told where (gdb starts vxreplay itself)
        elf = os.path.join(d, "k.elf")
        r = vxtest.run([vxtest.prog("vxreplay"), "--stdio", "--extract-elf", elf, t], input="")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("the kernel's ELF is in '%s' (in gdb: file %s)" % (elf, elf), r.stderr)
        # a name with a blank: quoted for gdb's file command
        spaced = os.path.join(d, "k é.elf")
        r = vxtest.run([vxtest.prog("vxreplay"), "--stdio", "--extract-elf", spaced, t], input="")
        self.assertEqual(r.returncode, 0, r.stderr)
        m = re.search(r"\(in gdb: file (.*)\)\n", r.stderr)
        self.assertEqual(shlex.split(m.group(1)), [spaced], r.stderr)
        with open(elf, "rb") as f:
            self.assertEqual(f.read(4), b"\x7fELF")
        # another kind of file is never replaced (a trace named by mistake); an ELF is
        other = os.path.join(d, "other.vxt")
        shutil.copy(t, other)
        r = vxtest.run([vxtest.prog("vxreplay"), "--stdio", "--extract-elf", other, t], input="")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("'%s' exists and holds something else: not overwritten" % other, r.stderr)
        with open(other, "rb") as f:
            self.assertEqual(f.read(), data)
        shutil.copy(vxtest.kernel("hello"), elf)    # an older kernel's ELF: replaced
        r = vxtest.run([vxtest.prog("vxreplay"), "--stdio", "--extract-elf", elf, t], input="")
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(elf, "rb") as f, open(vxtest.kernel("vecadd"), "rb") as g:
            self.assertEqual(f.read(), g.read())
        # an ELF that is not a kernel (this host's python) is not; /dev/null takes it (no file)
        host = os.path.join(d, "host.elf")
        shutil.copy(sys.executable, host)
        r = vxtest.run([vxtest.prog("vxreplay"), "--stdio", "--extract-elf", host, t], input="")
        self.assertEqual(r.returncode, 2, r.stderr)
        with open(host, "rb") as f, open(sys.executable, "rb") as g:
            self.assertEqual(f.read(), g.read())
        r = vxtest.run([vxtest.prog("vxreplay"), "--stdio", "--extract-elf", "/dev/null", t], input="")
        self.assertEqual(r.returncode, 0, r.stderr)
        # a FIFO is refused, not waited on; a dangling link is named as one
        fifo = os.path.join(d, "fifo")
        os.mkfifo(fifo)
        r = vxtest.run([vxtest.prog("vxreplay"), "--stdio", "--extract-elf", fifo, t], input="",
                       timeout=20)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("is not a regular file", r.stderr)
        link = os.path.join(d, "dangling.elf")
        os.symlink(os.path.join(d, "nowhere"), link)
        r = vxtest.run([vxtest.prog("vxreplay"), "--stdio", "--extract-elf", link, t], input="")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("is a symbolic link to nothing", r.stderr)
        # a link planted where the ELF goes (the trace's own ELF path, t.vxt.elf, in a
        # shared directory) is not written through: the kernel it points to was replaced
        victim = os.path.join(d, "mine.elf")
        shutil.copy(vxtest.kernel("hello"), victim)
        os.symlink(victim, t + ".elf")
        r = vxtest.run([vxtest.prog("vxreplay"), "--stdio", "--extract-elf", t + ".elf", t],
                       input="")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("is a symbolic link: not written through it", r.stderr)
        with open(victim, "rb") as f, open(vxtest.kernel("hello"), "rb") as g:
            self.assertEqual(f.read(), g.read())
        os.symlink("/dev/null", os.path.join(d, "null"))  # a device through a link is written
        r = vxtest.run([vxtest.prog("vxreplay"), "--stdio", "--extract-elf",
                        os.path.join(d, "null"), t], input="")
        self.assertEqual(r.returncode, 0, r.stderr)
        # a write that fails (a file size limit) leaves no partial file behind
        import resource
        part = os.path.join(d, "part.elf")
        limit = lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))  # noqa: E731
        r = subprocess.run([vxtest.prog("vxreplay"), "--stdio", "--extract-elf", part, t],
                           input="", capture_output=True, text=True, timeout=60, preexec_fn=limit)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("cannot write '%s'" % part, r.stderr)
        self.assertFalse(os.path.exists(part))
        # a trace of a .vxbin kernel has no ELF to give: said, not silently nothing
        vxbin = vxtest.kernel("hello")[:-4] + ".vxbin"
        if os.path.exists(vxbin):
            tv = os.path.join(d, "v.vxt")
            self.assertEqual(vxtest.run([vxtest.prog("vxrec"), "-q", vxbin, "-o", tv]).returncode, 0)
            elf2 = os.path.join(d, "none.elf")
            r = vxtest.run([vxtest.prog("vxreplay"), "--stdio", "--extract-elf", elf2, tv], input="")
            self.assertEqual(r.returncode, 2)
            self.assertIn("not an ELF", r.stderr)
            self.assertFalse(os.path.exists(elf2))

    def test_stdio_script_then_eof(self):
        """--stdio fed a script whose input ends at once (printf ... | vxreplay --stdio):
        every packet is answered, also those after a long motion, during which the input's
        end was seen (the replies after it were dropped); replies that cannot be written
        (standard output full or closed) are said, exit 2 (it was 0, silently)"""
        t = record("diverge")
        end = int(re.search(r"\((\d+) issues", vxtest.run(
            [vxtest.prog("vxreplay"), "--stdio", t], input="").stderr).group(1))
        cmds = ["QStartNoAckMode", "qRcmd," + ("seek %d" % (end - 1)).encode().hex(), "bc",
                "qRcmd," + b"when".hex(), "D"]
        script = b"+" + b"".join(frame(c) for c in cmds)
        r = subprocess.run([vxtest.prog("vxreplay"), "--stdio", t], input=script,
                           capture_output=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        replies = [bytes(m) for m in re.findall(rb"\$([^#]*)#", r.stdout)]
        when = [bytes.fromhex(x[1:].decode()) for x in replies
                if x.startswith(b"O") and x != b"OK"]
        self.assertTrue(any(w.startswith(b"event 0 of") for w in when), replies)  # bc went back
        self.assertEqual(replies[-1], b"OK", replies)                               # D answered
        self.assertTrue(any(x.startswith(b"T05") or x.startswith(b"S05") for x in replies))
        for target in ("/dev/full", None):
            if target and not os.path.exists(target):
                continue
            out = open(target, "wb") if target else subprocess.DEVNULL
            try:
                argv = [vxtest.prog("vxreplay"), "--stdio", t]
                if target is None:   # standard output closed
                    argv = ["sh", "-c", '"$0" --stdio "$1" >&-', argv[0], t]
                r = subprocess.run(argv, input=script, stdout=out, stderr=subprocess.PIPE,
                                   timeout=120)
            finally:
                if target:
                    out.close()
            self.assertEqual(r.returncode, 2, (target, r.stderr))
            self.assertIn(b"the replies could not be written to standard output", r.stderr)

    def test_stdio_refuses_socket_options(self):
        """--port, --bind or --once with --stdio: refused (exit 2), they would be ignored"""
        for opt in (["--port", "5000"], ["-p", "5000"], ["--bind", "0.0.0.0"], ["--once"]):
            r = vxtest.run([vxtest.prog("vxreplay"), "--stdio"] + opt + [record("vecadd")], input="")
            self.assertEqual(r.returncode, 2, opt)
            self.assertIn("does not go with --stdio", r.stderr)

    def test_not_a_trace(self):
        """a file that is not a trace: exit status 2"""
        d = vxtest.tmpdir()
        bad = os.path.join(d, "bad.vxt")
        with open(bad, "wb") as f:
            f.write(b"this is not a trace\n" * 10)
        r = vxtest.run([vxtest.prog("vxreplay"), bad])
        self.assertEqual(r.returncode, 2)
        self.assertIn("bad.vxt", r.stderr)

    def test_truncated_trace(self):
        """a trace cut inside its prologue: exit status 2"""
        src = record("vecadd")
        d = vxtest.tmpdir()
        cut = os.path.join(d, "cut.vxt")
        with open(src, "rb") as f:
            data = f.read()
        with open(cut, "wb") as f:
            f.write(data[:40])
        r = vxtest.run([vxtest.prog("vxreplay"), cut])
        self.assertEqual(r.returncode, 2)
        self.assertIn("cut.vxt", r.stderr)

    def many_chunks(self):
        """vecadd recorded in small chunks: (directory, trace bytes, its EVENTS chunks)"""
        sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
        import vxt_spec
        d = vxtest.tmpdir()
        good = os.path.join(d, "chunks.vxt")
        r = vxtest.run([vxtest.prog("vxrec"), "-q", "--chunk-size", "4096", vxtest.kernel("vecadd"),
                        "-o", good])
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(good, "rb") as f:
            data = f.read()
        return d, data, [c for c in vxt_spec.Trace(data).chunks if c.type == vxt_spec.CH_EVENTS]

    @staticmethod
    def flipped(d, data, chunk, name):
        """A copy of the trace with a byte of chunk's payload flipped; its path."""
        bad = bytearray(data)
        bad[chunk.off + 28 + chunk.stored // 2] ^= 0x40
        path = os.path.join(d, name)
        with open(path, "wb") as f:
            f.write(bad)
        return path

    def served_until_damage(self, path):
        """Continue, then reverse-continue: (stop, console text, when) of each."""
        srv = Server(path)
        try:
            c = srv.client()
            c.handshake()
            c.console = []
            fwd = parse_stop(c.cmd("vCont;c"))
            text = "".join(c.console)
            when = c.monitor("when")[1]
            pc = c.cmds("p20")                               # the pc there: readable
            back = parse_stop(c.cmd("bc"))
            when2 = c.monitor("when")[1]
            c.close()
        finally:
            srv.stop()
        return fwd, text, when, pc, back, when2

    def test_corrupt_chunk_ends_history(self):
        """a flipped byte in a middle EVENTS chunk: history ends before it (replaylog), named on the console"""
        d, data, events = self.many_chunks()
        self.assertGreater(len(events), 4)
        bad_chunk = events[len(events) // 2]
        bad = self.flipped(d, data, bad_chunk, "flipped.vxt")
        (sig, f), text, when, _, (sig2, f2), when2 = self.served_until_damage(bad)
        srv = Server(bad)
        try:
            c = srv.client()
            c.handshake()
            # again with a read watchpoint: backward windows are re-executed up to the edge
            parse_stop(c.cmd("vCont;c"))
            self.assertEqual(c.cmds("Z3,10,4"), "OK")            # an address nothing reads
            sig3, f3 = parse_stop(c.cmd("bc"))
            when3 = c.monitor("when")[1]
            c.close()
        finally:
            srv.stop()
        self.assertEqual((sig, f.get("replaylog")), (5, "end"))
        self.assertIn("EVENTS chunk at offset %d" % bad_chunk.off, text)
        n = int(re.search(r"event (\d+) of (\d+)", when).group(1))
        self.assertLessEqual(n, bad_chunk.key)           # stopped before the chunk's first event
        self.assertGreater(n, 0)
        self.assertIn("cannot be read past here", when)
        self.assertIn("offset %d" % bad_chunk.off, when)
        self.assertEqual((sig2, f2.get("replaylog")), (5, "begin"))   # the history before it is intact
        self.assertRegex(when2, r"event 0 of")
        self.assertEqual((sig3, f3.get("replaylog")), (5, "begin"))
        self.assertRegex(when3, r"event 0 of")

    def keyframed(self, name):
        """vecadd in small chunks with a keyframe every 1000 issues: (directory, trace
        bytes, its chunks)"""
        sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
        import vxt_spec
        d = vxtest.tmpdir()
        good = os.path.join(d, name)
        r = vxtest.run([vxtest.prog("vxrec"), "-q", "--chunk-size", "4096", "--keyframe-interval",
                        "1000", vxtest.kernel("vecadd"), "-o", good])
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(good, "rb") as f:
            data = f.read()
        return d, good, data, vxt_spec.Trace(data).chunks

    def test_continue_does_not_jump_over_damage(self):
        """a continue jumps over chunks that cannot stop it, by way of keyframes, but not
        over a damaged one: history still ends before it"""
        sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
        import vxt_spec
        d = vxtest.tmpdir()
        good = os.path.join(d, "kfjump.vxt")
        # reduce at 2 lanes: 95 K issues (the digests are read for 64 K and more)
        r = vxtest.run([vxtest.prog("vxrec"), "-q", "-t", "2", "--chunk-size", "4096",
                        "--keyframe-interval", "2000", vxtest.kernel("reduce"), "-o", good])
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(good, "rb") as f:
            data = f.read()
        events = [c for c in vxt_spec.Trace(data).chunks if c.type == vxt_spec.CH_EVENTS]
        bad_chunk = events[len(events) // 2]
        srv = Server(good)                                     # undamaged, it jumps
        try:
            c = srv.client()
            c.handshake()
            self.assertEqual(parse_stop(c.cmd("vCont;c"))[1].get("replaylog"), "end")
            skipped = int(re.search(r"skipped by the summary (\d+)", c.monitor("stats")[1]).group(1))
            self.assertGreater(skipped, bad_chunk.key)
            c.close()
        finally:
            srv.stop()
        bad = self.flipped(d, data, bad_chunk, "kfjump-flipped.vxt")
        (sig, f), text, when, _, _, _ = self.served_until_damage(bad)
        self.assertEqual((sig, f.get("replaylog")), (5, "end"))
        self.assertIn("EVENTS chunk at offset %d" % bad_chunk.off, text)
        n = int(re.search(r"event (\d+) of (\d+)", when).group(1))
        self.assertLessEqual(n, bad_chunk.key)
        self.assertGreater(n, 0)

    def test_reverse_to_the_keyframe_after_damage(self):
        """a reverse-continue from past a damaged EVENTS chunk stops at the first keyframe
        after it, where the history that can be rebuilt begins (it stayed where it was)"""
        import vxt_spec
        d, good, data, chunks = self.keyframed("kfd.vxt")
        events = [c for c in chunks if c.type == vxt_spec.CH_EVENTS]
        kf = sorted(c.key for c in chunks if c.type in (vxt_spec.CH_KEYFRAME, vxt_spec.CH_KEYFRAME2))
        i = len(events) // 2
        bad = self.flipped(d, data, events[i], "kfd-bad.vxt")
        after = [k for k in kf if k >= events[i + 1].key][0]   # the first base past the damage
        srv = Server(bad)
        try:
            c = srv.client()
            c.handshake()
            c.monitor("seek %d" % (after + 500))
            c.console = []
            sig, f = parse_stop(c.cmd("bc"))
            text = "".join(c.console)
            when = c.monitor("when")[1]
            c.close()
        finally:
            srv.stop()
        self.assertEqual((sig, f.get("replaylog")), (5, "begin"))
        self.assertRegex(when, r"^event %d of" % after)
        self.assertIn("history ends at event %d (the trace is unreadable before it)" % after, text)

    def test_corrupt_first_or_last_chunk(self):
        """a flipped byte in the first or the last EVENTS chunk: still served, history ends at it"""
        d, data, events = self.many_chunks()
        self.assertGreater(len(events), 2)
        for which, ch in (("first", events[0]), ("last", events[-1])):
            path = self.flipped(d, data, ch, which + ".vxt")
            (sig, f), text, when, pc0, (sig2, f2), _ = self.served_until_damage(path)
            self.assertEqual((sig, f.get("replaylog")), (5, "end"), which)
            self.assertIn("EVENTS chunk at offset %d" % ch.off, text)
            n = int(re.search(r"event (\d+) of", when).group(1))
            if which == "first":                             # nothing readable: the start
                self.assertEqual(n, 0)
                self.assertEqual(pc0, "00000080")            # _start, 0x80000000
                self.assertEqual((sig2, f2.get("replaylog")), (5, "begin"))
            else:                                            # up to the last chunk's first event
                self.assertEqual(n, ch.key)
                self.assertEqual((sig2, f2.get("replaylog")), (5, "begin"))

    def test_connect_line_quotes_paths(self):
        """the gdb command vxreplay prints runs as printed from a shell, also for a trace
        whose path has a space or a quote in it"""
        d = vxtest.tmpdir()
        odd = os.path.join(d, "it's a trace.vxt")
        shutil.copy(record("hello"), odd)
        srv = Server(odd)
        try:
            line = [ln for ln in srv.banner if ln.startswith("  gdb-multiarch")][0]
        finally:
            srv.stop()
        words = shlex.split(line)
        self.assertIn(odd + ".elf", words)
        self.assertTrue(os.path.exists(odd + ".elf"))
        self.assertEqual(words[-2:], ["-ex", "target remote :%d" % srv.port])

    def test_corrupt_keyframe(self):
        """a flipped byte in a middle keyframe, or in the pages stored with it: the trace is
        still served (a note names the keyframe) and every position, before and after it,
        shows the registers and memory of the intact trace"""
        import vxt_spec
        d, good, data, chunks = self.keyframed("kf.vxt")
        kfs = [i for i, c in enumerate(chunks) if c.type in (vxt_spec.CH_KEYFRAME, vxt_spec.CH_KEYFRAME2)]
        self.assertGreater(len(kfs), 4)
        mid = kfs[len(kfs) // 2]
        pages = [c for c in chunks[kfs[len(kfs) // 2 - 1] + 1:mid]
                 if c.type in (vxt_spec.CH_PAGES, vxt_spec.CH_PAGES2)]
        self.assertTrue(pages, "the keyframe stores pages")
        bad_kf = self.flipped(d, data, chunks[mid], "bad-kf.vxt")
        bad_pages = self.flipped(d, data, pages[-1], "bad-pages.vxt")
        end = None

        def look(path):
            nonlocal end
            srv = Server(path)
            try:
                c = srv.client()
                c.handshake()
                if end is None:
                    end = int(re.search(r"events=(\d+)", c.monitor("config")[1]).group(1))
                seen = []
                for pos in (end, end // 2 + 7, 5, end - 1, end * 3 // 4):
                    c.monitor("seek %d" % pos)
                    seen.append((c.monitor("when")[1], c.cmds("g"), c.cmds("m10000,40")))
                c.close()
            finally:
                err = srv.stop()
            return seen, err
        want, _ = look(good)
        for path in (bad_kf, bad_pages):
            seen, err = look(path)
            self.assertEqual(seen, want, path)
        self.assertIn("note: keyframe %d of %d is unreadable" % (len(kfs) // 2, len(kfs)),
                      look(bad_kf)[1])

    def test_damaged_digest(self):
        """a flipped byte in a DIGEST chunk: the trace is still served, a note names the
        chunk, and a reverse continue to a breakpoint whose last hit lies in that chunk's
        events stops where it does in the intact trace (those events searched one by one;
        a damaged digest used to end the index there, silently)"""
        import vxt_spec
        d = vxtest.tmpdir()
        # reduce at 2 lanes: 95 K issues with GCC 12, 117 K with GCC 14 (printf, used
        # before, ran 70 K with GCC 12 but 64 K with GCC 14: under the 64 K from which
        # vxreplay reads the digests at all, so nothing read the damaged one)
        good = record("reduce", "-t", "2", "--chunk-size", "1024")
        with open(good, "rb") as f:
            data = f.read()
        chunks = vxt_spec.Trace(data).chunks
        keys = [c.key for c in chunks if c.type == vxt_spec.CH_EVENTS]
        dgs = [c for c in chunks if c.type == vxt_spec.CH_DIGEST]
        r = vxtest.run([vxtest.prog("vxdump"), "--json", "--kind", "issue", good])
        last = {}
        issues = 0
        for e in map(json.loads, r.stdout.splitlines()):
            last[e["pc"]] = e["index"]
            issues += 1
        self.assertGreaterEqual(issues, 4 << 14, "too short a trace: vxreplay reads no digests")
        # a DIGEST chunk whose EVENTS chunk holds the last issue of some PC
        victim = pc = None
        for c in dgs[len(dgs) // 2:]:
            hi = next((k for k in keys if k > c.key), None)
            pcs = [p for p, i in last.items() if c.key <= i < (hi or c.key + 1)]
            if hi and pcs:
                victim, pc = c, pcs[0]
                break
        self.assertIsNotNone(victim)
        bad = self.flipped(d, data, victim, "dg-bad.vxt")

        def look(path):
            srv = Server(path)
            try:
                c = srv.client()
                c.handshake()
                parse_stop(c.cmd("vCont;c"))  # to the end of history
                self.assertEqual(c.cmds("Z0,%x,4" % pc), "OK")
                sig, f = parse_stop(c.cmd("bc"))
                got = (le32(f["20"]), c.monitor("when")[1])
                c.close()
            finally:
                err = srv.stop()
            return got, err
        want, err = look(good)
        self.assertEqual(want[0], pc)
        self.assertIn("event %d of" % last[pc], want[1])
        self.assertNotIn("note:", err)
        got, err = look(bad)
        self.assertEqual(got, want)
        self.assertIn("note: %s: DIGEST chunk at offset %d: payload checksum mismatch: searches "
                      "over that chunk's events read them all" % (bad, victim.off), err)

    def test_monitor_console(self):
        """monitor console: what the kernel printed before now, as vxsim printed it at the end,
        and as the recorded console bytes (vxdump) assemble into lines at a middle position"""
        kernel = vxtest.kernel("printf")
        # also with small chunks, most without console bytes (their digests skip them)
        for trace in (record("printf"), record("printf", "--chunk-size", "512")):
            with self.subTest(trace=trace):
                self.console_case(kernel, trace)

    def console_case(self, kernel, trace):
        sim = vxtest.run([vxtest.prog("vxsim"), kernel])
        self.assertEqual(sim.returncode, 0, sim.stderr)
        r = vxtest.run([vxtest.prog("vxdump"), "--json", "--kind", "console", trace])
        bytes_at = [(e["index"], c["slot"], c["byte"])
                    for e in map(json.loads, r.stdout.splitlines()) for c in e["console"]]
        mid = bytes_at[len(bytes_at) // 2][0]             # an issue that prints
        done, partial = [], {}
        for idx, slot, b in bytes_at:
            if idx >= mid:
                break
            if b == 10:
                done.append("#%d: %s" % (slot, partial.pop(slot, "")))
            else:
                partial[slot] = partial.get(slot, "") + chr(b)
        srv = Server(trace)
        try:
            c = srv.client()
            c.handshake()
            r0, at0 = c.monitor("console")
            parse_stop(c.cmd("vCont;c"))
            r1, at_end = c.monitor("console all")
            r2, tail = c.monitor("console 2")
            c.monitor("seek %d" % mid)
            r3, at_mid = c.monitor("console all")
            r4, bad = c.monitor("console 0")
            c.close()
        finally:
            srv.stop()
        self.assertEqual(at0, "nothing printed before event 0\n")
        self.assertEqual(at_end.splitlines(), sim.stdout.splitlines())
        lines = at_end.splitlines()
        self.assertEqual(tail.splitlines(), ["(%d earlier lines; monitor console all)" % (len(lines) - 2)]
                         + lines[-2:])
        want = done + ["#%d: %s   (no newline yet)" % (slot, partial[slot]) for slot in sorted(partial)]
        self.assertTrue(partial)                             # mid-line somewhere
        self.assertEqual(at_mid.splitlines(), want)
        self.assertIn("usage", bad)

    def test_extract_elf_to_a_slow_terminal(self):
        """--extract-elf to a terminal that reads slowly: the whole ELF is written (the
        file is opened not to block on a FIFO, and that made the write stop at EAGAIN)"""
        import pty
        import tty
        t = record("vecadd")
        master, slave = pty.openpty()
        tty.setraw(slave)
        p = subprocess.Popen([vxtest.prog("vxreplay"), "--stdio", "--extract-elf",
                              os.ttyname(slave), t], stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        time.sleep(1.5)                                # the terminal's buffer fills meanwhile
        got = b""
        while p.poll() is None or got == b"":
            r, _, _ = select.select([master], [], [], 1)
            if r:
                got += os.read(master, 65536)
        while select.select([master], [], [], 0.2)[0]:
            got += os.read(master, 65536)
        err = p.stderr.read().decode()
        os.close(master)
        os.close(slave)
        self.assertEqual(p.returncode, 0, err)
        with open(vxtest.kernel("vecadd"), "rb") as f:
            self.assertEqual(got, f.read())

    def test_listening_beyond_this_machine_is_warned_of(self):
        """--bind to an address other machines reach: a warning that anyone who reaches it
        can connect (there is no authentication); none on the default, 127.0.0.1"""
        t = record("hello")
        errs = []
        for args in ((), ("--bind", "0.0.0.0")):
            srv = Server(t, *args)
            c = srv.client()                          # (it serves all the same)
            c.handshake()
            c.close()
            errs.append(srv.stop())
        self.assertNotIn("warning", errs[0])
        self.assertIn("warning: listening on 0.0.0.0: anyone who can reach that address can "
                      "connect (there is no authentication)", errs[1])

    def test_monitor_console_shows_control_characters(self):
        """the kernel's console output in monitor console shows control characters other
        than newline and tab as \\xNN (a trace from someone else set GDB's terminal's
        title, or its clipboard through OSC 52); UTF-8 text is kept"""
        elf = build_c(self, "esc", "#include <vx_print.h>\n"
                      "int main(void)\n{\n"
                      "    vx_printf(\"a\\033]0;pwned\\007b\\tc \\303\\251\\n\");\n"
                      "    return 0;\n}\n")
        srv = Server(record(elf))
        try:
            c = srv.client()
            c.handshake()
            parse_stop(c.cmd("vCont;c"))
            out = c.monitor("console all")[1]
            c.close()
        finally:
            srv.stop()
        self.assertIn("a\\x1b]0;pwned\\x07b\tc \u00e9\n", out)
        self.assertNotIn("\x1b", out)

    def test_monitor_console_all_past_its_cap(self):
        """monitor console all shows the last 100,000 lines and says how many earlier
        ones it leaves out (it said to run monitor console all)"""
        elf = build_c(self, "lines", "#include <vx_print.h>\n"
                      "int main(void)\n{\n"
                      "    for (int i = 0; i < 100003; i++) {\n"
                      "        vx_putchar('a' + i % 26);\n        vx_putchar('\\n');\n    }\n"
                      "    return 0;\n}\n")
        srv = Server(record(elf))
        try:
            c = srv.client(timeout=300)
            c.handshake()
            parse_stop(c.cmd("vCont;c"))
            lines = c.monitor("console all")[1].splitlines()
            c.close()
        finally:
            srv.stop()
        self.assertEqual(lines[0], "(3 earlier lines not shown: at most the last 100000 are)")
        self.assertEqual(len(lines), 1 + 100000)
        self.assertEqual(lines[1], "#0: d")                 # line 3: 'a' + 3
        self.assertEqual(lines[-1], "#0: %s" % chr(ord("a") + 100002 % 26))

    def test_usage(self):
        """usage errors: exit 2; --help and --version: exit 0"""
        self.assertEqual(vxtest.run([vxtest.prog("vxreplay")]).returncode, 2)
        self.assertEqual(vxtest.run([vxtest.prog("vxreplay"), "--bogus", "x"]).returncode, 2)
        self.assertEqual(vxtest.run([vxtest.prog("vxreplay"), "--port", "99999", "x"]).returncode, 2)
        r = vxtest.run([vxtest.prog("vxreplay"), "--help"])
        self.assertEqual(r.returncode, 0)
        self.assertIn("--stdio", r.stdout)
        r = vxtest.run([vxtest.prog("vxreplay"), "--version"])
        self.assertEqual(r.returncode, 0)
        self.assertIn("vxreplay", r.stdout)

    def test_mem_too_large(self):
        """--mem: a bare number is MiB; one whose bytes pass 2^64 is refused (exit 2) as the
        same size with a suffix is, not wrapped (2^44 MiB became 0, then the default; 2^44 + 1
        MiB became 1 MiB); the largest that fits is taken"""
        trace = record("vecadd")
        for v in ("17592186044416", "17592186044417", "17179869184G"):
            r = vxtest.run([vxtest.prog("vxreplay"), "--stdio", "--mem", v, trace], input="")
            self.assertEqual(r.returncode, 2, v)
            self.assertIn("--mem: '%s' is not a size" % v, r.stderr)
        r = vxtest.run([vxtest.prog("vxreplay"), "--stdio", "--mem", "17592186044415", trace],
                       input="")
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_option_forms_and_usage_errors(self):
        """--port=N and --mem=SIZE take the value after '=' (the port listened on, the
        budget monitor stats shows); an option without its value, two traces and a size
        with an unknown suffix are usage errors (exit 2) that say what is wrong"""
        t = record("vecadd")
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()                                   # a port free a moment ago
        srv = Server(t, "--port=%d" % port, "--mem=16M")   # (after Server's own --port 0)
        try:
            self.assertEqual(srv.port, port)
            c = srv.client()
            c.handshake()
            self.assertIn(" of 16.0 MiB", c.monitor("stats")[1])
            c.close()
        finally:
            srv.stop()
        other = os.path.join(vxtest.tmpdir(), "other.vxt")
        shutil.copy(t, other)
        for args, msg in ((["--stdio", t, "--port"], "vxreplay: option --port needs a value"),
                          (["--stdio", t, "--mem"], "vxreplay: option --mem needs a value"),
                          (["--stdio", t, other], "vxreplay: more than one trace given ('%s' and '%s')"
                           % (t, other)),
                          (["--stdio", "--mem", "12Q", t], "vxreplay: --mem: '12Q' is not a size")):
            r = vxtest.run([vxtest.prog("vxreplay")] + args, input="")
            self.assertEqual(r.returncode, 2, args)
            self.assertIn(msg, r.stderr, args)

    def test_bind_address_in_the_connect_line(self):
        """--bind with an address other than 127.0.0.1 or localhost: the server listens
        there, and the connect line it prints names it (target remote ADDR:PORT)"""
        srv = Server(record("vecadd"), "--bind", "127.0.0.2")
        try:
            self.assertIn("vxreplay: listening on 127.0.0.2 port %d\n" % srv.port, srv.banner)
            line = [ln for ln in srv.banner if ln.startswith("  gdb-multiarch")][0]
            self.assertEqual(shlex.split(line)[-2:], ["-ex", "target remote 127.0.0.2:%d" % srv.port])
            socket.create_connection(("127.0.0.2", srv.port), timeout=30).close()
        finally:
            srv.stop()

    def test_progress_notes(self):
        """(from a review: a read watchpoint searched backward over 4.4e9 issues ran for
        minutes with nothing on GDB's console) a motion that runs longer than --progress
        MS says how far it has got in O packets before its stop reply, which is unchanged;
        --progress 0: never; a bad value: usage (exit 2)"""
        from vxdbg import ADDI, BNE, LUI, TMC
        # a loop of 2 M issues (raw binary): t4 counts up to t5 = 0x100000
        d = vxtest.tmpdir()
        k = os.path.join(d, "spin.bin")
        with open(k, "wb") as f:
            f.write(b"".join(struct.pack("<I", w & 0xFFFFFFFF) for w in [
                ADDI(29, 0, 0), LUI(30, 0x100), ADDI(29, 29, 1), BNE(29, 30, -4), TMC(0)]))
        trace = record(k, "-w", "1", "-t", "1")
        stops, notes = [], []
        for ms in ("1", "0"):
            srv = Server(trace, "--progress", ms)
            try:
                c = srv.client()
                c.handshake()
                parse_stop(c.cmd("vCont;c"))                  # to the end
                self.assertEqual(c.cmds("Z3,10,4"), "OK")     # an address nothing reads:
                for pkt in ("bc", "vCont;c"):                  # every issue run, both ways
                    c.console.clear()
                    stops.append(parse_stop(c.cmd(pkt)))
                    notes.append("".join(c.console))
                c.close()
            finally:
                srv.stop()
        self.assertEqual(stops[:2], stops[2:])
        self.assertEqual([st[1].get("replaylog") for st in stops[:2]], ["begin", "end"])
        # backward, the position is that of the windows re-executed forward: not shown
        self.assertRegex(notes[0], r"^(vxreplay: still searching back after \d+\.\d s "
                                   r"\(Ctrl-C stops it\)\n)+$")
        self.assertRegex(notes[1], r"^(vxreplay: still going after \d+\.\d s, at event \d+ of "
                                   r"\d+ \(Ctrl-C stops it\)\n)+")
        self.assertEqual(notes[2:], ["", ""])
        # a seek that replays most of a keyframe interval says so too (its reply after)
        seeks = []
        for ms in ("1", "0"):
            srv = Server(trace, "--progress", ms)
            try:
                c = srv.client()
                c.handshake()
                seeks.append(c.monitor("seek 1999999")[1])
                c.close()
            finally:
                srv.stop()
        self.assertRegex(seeks[0], r"^(vxreplay: still going after \d+\.\d s, at event \d+ of "
                                   r"\d+ \(Ctrl-C stops it\)\n)+event 1999999 of ")
        self.assertRegex(seeks[1], r"^event 1999999 of ")
        r = vxtest.run([vxtest.prog("vxreplay"), "--progress", "x", trace])
        self.assertEqual(r.returncode, 2)
        self.assertIn("--progress: 'x' is not a number of milliseconds", r.stderr)

    def unwritable_elf(self, tmpname):
        """(dir, trace, tmp): a copy of vecadd's trace whose TRACE.elf is a user's file (no
        ELF: not replaced), and an empty directory tmpname for TMPDIR, both in dir"""
        d = vxtest.tmpdir()
        t = os.path.join(d, "t.vxt")
        shutil.copy(record("vecadd"), t)
        with open(t + ".elf", "w") as f:
            f.write("my notes\n")
        tmp = os.path.join(d, tmpname)
        os.mkdir(tmp)
        return d, t, tmp

    def test_elf_next_to_the_trace_not_replaced(self):
        """TRACE.elf that cannot be written (here: it exists and is no ELF, a user's file;
        as for a read-only directory) is left as it is, and said so; the ELF goes to a
        new file in TMPDIR, named on the connect line and removed when vxreplay ends;
        with TMPDIR unwritable too, the connect line has no ELF and the user is told
        how to get one"""
        d, t, tmp = self.unwritable_elf("tmp dir")
        for tmpdir in (tmp, os.path.join(d, "nonexistent")):
            srv = Server(t, env=dict(os.environ, TMPDIR=tmpdir))
            try:
                line = [ln for ln in srv.banner if ln.startswith("  gdb-multiarch")][0]
                c = srv.client()
                c.handshake()
                self.assertEqual(parse_stop(c.cmd("?"))[1]["thread"], "1")
                c.close()
                words = shlex.split(line)
                elfs = [w for w in words if w.endswith(".elf")]
                if tmpdir == tmp:
                    self.assertEqual(len(elfs), 1, line)
                    self.assertEqual(os.path.dirname(elfs[0]), tmp)
                    self.assertEqual(os.listdir(tmp), [os.path.basename(elfs[0])])
                    with open(elfs[0], "rb") as f, open(vxtest.kernel("vecadd"), "rb") as g:
                        self.assertEqual(f.read(), g.read())
                else:
                    self.assertEqual(elfs, [], line)
            finally:
                err = srv.stop()
            self.assertIn("'%s' exists and holds something else: not overwritten" % (t + ".elf"), err)
            if tmpdir == tmp:
                self.assertIn("the kernel's ELF is in '%s' instead (removed when vxreplay ends" %
                              elfs[0], err)
                self.assertEqual(os.listdir(tmp), [], "removed when vxreplay was terminated")
            else:
                self.assertIn("gdb will have no symbols: write the ELF with --extract-elf FILE", err)
            self.assertEqual(words[-2:], ["-ex", "target remote :%d" % srv.port])
        with open(t + ".elf") as f:
            self.assertEqual(f.read(), "my notes\n")

    def test_tmp_elf_keeps_ignored_signals(self):
        """(from the whole-diff review) the handlers that remove the ELF written to TMPDIR
        leave a signal the caller ignores ignored: under nohup (SIGHUP ignored) a hangup
        ended vxreplay; a SIGTERM still removes the file"""
        import signal
        d, t, tmp = self.unwritable_elf("tmp")
        srv = Server(t, env=dict(os.environ, TMPDIR=tmp),
                     preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN))
        try:
            self.assertEqual(len(os.listdir(tmp)), 1)
            srv.p.send_signal(signal.SIGHUP)
            c = srv.client()  # still serving
            c.handshake()
            c.close()
            self.assertIsNone(srv.p.poll())
        finally:
            srv.stop()
        self.assertEqual(os.listdir(tmp), [], "removed when vxreplay was terminated")

    def test_port_in_use(self):
        """a port already in use: exit 2 with a message"""
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        r = vxtest.run([vxtest.prog("vxreplay"), "--port", str(port), record("vecadd")])
        s.close()
        self.assertEqual(r.returncode, 2)
        self.assertIn(str(port), r.stderr)
        self.assertIn("(choose another with --port)", r.stderr)
        # an address that does not resolve: said so, without the port hint
        r = vxtest.run([vxtest.prog("vxreplay"), "--bind", "no-such-host.invalid", record("vecadd")])
        self.assertEqual(r.returncode, 2)
        self.assertIn("cannot resolve bind address 'no-such-host.invalid'", r.stderr)
        self.assertNotIn("--port", r.stderr)

    def test_banner(self):
        """the banner prints the gdb command that connects"""
        srv = Server(record("vecadd"))
        try:
            text = "".join(srv.banner)
            self.assertIn("target remote :%d" % srv.port, text)
            self.assertIn("gdb-multiarch", text)
            self.assertTrue(os.path.exists(record("vecadd") + ".elf"))
        finally:
            srv.stop()

    def test_stdio(self):
        """--stdio speaks the protocol on stdin/stdout"""
        p = subprocess.Popen([vxtest.prog("vxreplay"), "--stdio", record("vecadd")], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            c = RspClient(p.stdout, p.stdin)
            c.handshake()
            sig, f = parse_stop(c.cmd("?"))
            self.assertEqual(f["thread"], "1")
            c.send("D")
            self.assertEqual(c.reply(), b"OK")
            p.stdin.close()
            self.assertEqual(p.wait(30), 0)
        finally:
            if p.poll() is None:
                p.kill()
            p.stdout.close()
            p.stderr.close()

    def test_debug_packets_log_is_text(self):
        """--debug-packets logs each packet on a line of its own in printable ASCII: the
        binary reply to x shows its bytes as \\xNN (they went to the terminal raw), and the
        line read back gives the reply's bytes; a packet over 200 bytes is cut with '...'"""
        p = subprocess.Popen([vxtest.prog("vxreplay"), "--stdio", "--debug-packets",
                              record("vecadd")], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
        try:
            c = RspClient(p.stdout, p.stdin)
            c.handshake()
            code = c.cmd("x80000000,40")
            mem = bytes.fromhex(c.cmd("m80000000,40").decode())
            self.assertEqual(code, b"b" + mem)
            self.assertTrue(any(b < 0x20 or b > 0x7e for b in mem))  # something to escape
            self.assertEqual(len(c.cmd("m80000000,100")), 512)
            c.send("D")
            self.assertEqual(c.reply(), b"OK")
            p.stdin.close()
            self.assertEqual(p.wait(30), 0)
            log = p.stderr.read()
        finally:
            if p.poll() is None:
                p.kill()
            p.stdout.close()
            p.stderr.close()
        self.assertTrue(all(0x20 <= b < 0x7f or b == 0x0a for b in log), log[:300])
        lines = log.decode().splitlines()
        self.assertIn("vxreplay: -> x80000000,40", lines)
        i = lines.index("vxreplay: -> x80000000,40")
        logged = re.sub(r"\\x([0-9a-f]{2})", lambda m: chr(int(m.group(1), 16)),
                        lines[i + 1][len("vxreplay: <- "):])
        self.assertEqual(logged.encode("latin-1"), code)
        long = [ln for ln in lines if ln.startswith("vxreplay: <- ") and ln.endswith("...")]
        self.assertTrue(long)  # the m of 256 bytes at least
        for ln in long:
            self.assertEqual(len(ln), len("vxreplay: <- ") + 200 + 3)

    def test_vkill_ends_the_stdio_session(self):
        """vKill is answered OK and ends the session: vxreplay --stdio exits with status 0,
        its input still open"""
        p = subprocess.Popen([vxtest.prog("vxreplay"), "--stdio", record("vecadd")], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            c = RspClient(p.stdout, p.stdin)
            c.handshake()
            self.assertEqual(c.cmd("vKill;1"), b"OK")
            self.assertEqual(p.wait(30), 0)
            with self.assertRaises(RspError):      # its output ended
                c.read_packet()
        finally:
            if p.poll() is None:
                p.kill()
            p.stdin.close()
            p.stdout.close()
            p.stderr.close()


if __name__ == "__main__":
    prerequisites()
    vxtest.main(RspTests, ManyThreads, CommandLineTests, HostMemory)
