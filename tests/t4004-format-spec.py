#!/usr/bin/env python3
"""t4004: the trace format specification is enough to read a trace.

tests/lib/vxt_spec.py is a reader written from trace-format/FORMAT.md, sim/STATE.md and
tools/vxdump/SCHEMA.md alone (a clean-room third party).  This test records traces with
vxrec and checks that it agrees with vxdump --json event for event (minus "disasm",
"symbol", "source" and the commit "name", which need a disassembler, the ELF symbols and
the DWARF line tables): the golden
traces, the example kernels at several platform shapes with many small chunks and
keyframes, uncompressed, cut off and corrupt traces, and hand-made traces holding every
code of every enumerated field and every extension point (unknown records, extension
blocks, unknown chunks, a newer minor version).  Hand-made traces also check that
vxdump --check reports, as vxt_spec does, the damage only a reading of every chunk finds
(misplaced and unlisted chunks, INDEX totals, a missing END), that a fault reason with a
newline is corruption, that vxdump and vxdiff write UTF-8 JSON, and that the programs
note a newer minor version.  With --keyframes the reader also decodes
each keyframe's state (sim/STATE.md) and checks it against the state rebuilt from the
event stream.
"""
import json
import os
import struct
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
import vxtest  # noqa: E402
import vxt_spec  # noqa: E402
from vxt_make import assemble, chunk, fix_crcs, string, sv32, sv64, varint  # noqa: E402

SPEC = os.path.join(vxtest.ROOT, "tests", "lib", "vxt_spec.py")
GOLDEN = os.path.join(vxtest.ROOT, "tests", "golden")
OPTS = ["--keyframe-interval", "500", "--chunk-size", "4096"]
A = ["-C", "1", "-c", "1", "-w", "4", "-t", "4"]
B = ["-C", "1", "-c", "2", "-w", "4", "-t", "8"]
C = ["-C", "1", "-c", "1", "-w", "2", "-t", "32"]
WIDE = ["-C", "1", "-c", "1", "-w", "4", "-t", "128"]
NARROW = ["-C", "1", "-c", "1", "-w", "4", "-t", "1"]
MULTI = ["-C", "2", "-c", "2", "-w", "2", "-t", "4"]
# T = 16 has a compact-log encoder of its own, T = 2 the lane loops of T % 4 != 0
T16 = ["-C", "1", "-c", "2", "-w", "4", "-t", "16"]
T2 = ["-C", "1", "-c", "2", "-w", "4", "-t", "2"]
# name -> (kernel file, vxrec options); every one with OPTS unless it has its own
TRACES = {
    "hello-a": ("hello.elf", A), "hello-b": ("hello.elf", B), "hello-c": ("hello.elf", C),
    "hello-t128": ("hello.elf", WIDE), "hello-t1": ("hello.elf", NARROW),
    "diverge-a": ("diverge.elf", A), "diverge-b": ("diverge.elf", B),
    "diverge-c": ("diverge.elf", C), "diverge-t128": ("diverge.elf", WIDE),
    "gbar-a": ("gbar.elf", A), "gbar-b": ("gbar.elf", B), "gbar-c": ("gbar.elf", C),
    "gbar-multi": ("gbar.elf", MULTI),
    "spawn-a": ("spawn.elf", A), "spawn-b": ("spawn.elf", B), "spawn-c": ("spawn.elf", C),
    "spawn-t1": ("spawn.elf", NARROW),
    "warpops-a": ("warpops.elf", A), "warpops-b": ("warpops.elf", B),
    "warpops-c": ("warpops.elf", C), "warpops-t128": ("warpops.elf", WIDE),
    "vecadd-a": ("vecadd.elf", A), "vecadd-b": ("vecadd.elf", B),
    "vecadd-c": ("vecadd.elf", C),
    "vecadd-vxbin": ("vecadd.vxbin", A + ["--keyframe-interval", "300"]),
    "vecadd-raw": ("vecadd.elf", A + ["--no-compress"]),
    "reduce-c": ("reduce.elf", C),
    "sgemm-c": ("sgemm.elf", C),
    # printf is long: stop it; the trace then ends with a "limit" END record
    "printf-limit": ("printf.elf", A + ["--max-cycles", "3000"]),
    "hello-kf1": ("hello.elf", A + ["--keyframe-interval", "1", "--chunk-size", "300"]),
    "cutme": ("hello.elf", A + ["--keyframe-interval", "200", "--chunk-size", "2048"]),
    "hello-t16": ("hello.elf", T16), "diverge-t16": ("diverge.elf", T16),
    "gbar-t16": ("gbar.elf", T16), "warpops-t16": ("warpops.elf", T16),
    "vecadd-t16": ("vecadd.elf", T16), "sgemm-t16": ("sgemm.elf", T16),
    "hello-t2": ("hello.elf", T2), "diverge-t2": ("diverge.elf", T2),
    "warpops-t2": ("warpops.elf", T2),
}
# the shapes whose traces test_t16_t2 also verifies and records in every thread mode
T16_T2 = [n for n in TRACES if n.endswith(("-t16", "-t2"))]
KEYFRAME_CHECKED = ["hello-a", "hello-kf1", "diverge-b", "gbar-multi", "spawn-t1",
                    "warpops-t128", "vecadd-vxbin", "vecadd-raw", "sgemm-c", "reduce-c",
                    "printf-limit", "hello-t1"]


def LUI(rd, imm):
    return (imm << 12) | (rd << 7) | 0x37


def ADDI(rd, rs, imm):
    return ((imm & 0xFFF) << 20) | (rs << 15) | (rd << 7) | 0x13


def LW(rd, rs, imm):
    return ((imm & 0xFFF) << 20) | (rs << 15) | (2 << 12) | (rd << 7) | 0x03


# misaligned load: lw a1, 0(a0) with a0 = 0x10001 -> a fault, recorded at the end
FAULT = [LUI(10, 0x10), ADDI(10, 10, 1), LW(11, 10, 0)]


def strip(obj):
    """A vxdump --json object without the keys the reader does not produce."""
    obj.pop("disasm", None)
    obj.pop("symbol", None)
    obj.pop("source", None)
    for c in obj.get("commits", ()):
        c.pop("name", None)
    return obj


def canon(line):
    return json.dumps(strip(json.loads(line)), separators=(",", ":"), ensure_ascii=False)


def first_difference(a, b):
    """Describe where two lists of JSON lines differ (a: vxdump, b: vxt_spec)."""
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            ox, oy = json.loads(x), json.loads(y)
            keys = [k for k in list(ox) + [k for k in oy if k not in ox]
                    if ox.get(k, "<missing>") != oy.get(k, "<missing>")]
            if list(ox) != list(oy) and not keys:
                keys = ["<key order>"]
            return ("event %d (line %d) differs in %s:\n  vxdump:   %s\n  vxt_spec: %s"
                    % (ox.get("index", -1), i + 1, ", ".join(keys), x, y))
    if len(a) != len(b):
        return ("vxdump printed %d events, vxt_spec %d; first extra: %s"
                % (len(a), len(b), (a[len(b)] if len(a) > len(b) else b[len(a)])))
    return None


# ---- a small trace writer, also from FORMAT.md, for hand-made traces ----

class Writer:
    """Writes records in their explicit forms (FORMAT.md 7: form 3, explicit schedule,
    PC, instruction word and mask; explicit commit destinations and raw values)."""

    def __init__(self, C=1, W=2, T=4, minor=1):
        self.C, self.W, self.T, self.LB, self.minor = C, W, T, (T + 7) // 8, minor
        self.ev = bytearray()
        self.cur = 0
        self.next_pc = {}
        self.mem_base = {}
        self.issues = self.records = 0
        self.end = None

    def lanes(self, m):
        return m.to_bytes(self.LB, "little")

    def fault(self, kind, sig, core, warp, pc, insn, addr, lanes, reason):
        return (bytes([kind, sig]) + b"".join(varint(x) for x in (core, warp, pc, insn, addr))
                + self.lanes(lanes) + string(reason))

    def issue(self, core, warp, cycle, pc, insn, tmask, flags=0, commits=(), mem=(), wctl=(),
              console=(), fault=None, ext=None):
        g = core * self.W + warp
        X = 0x10 | (1 if mem else 0) | (2 if wctl else 0) | (4 if console else 0) | \
            (8 if fault else 0) | (0x80 if ext is not None else 0)
        b = bytearray([0x70, X, flags]) + varint(len(commits))
        b += varint(core) + varint(warp) + sv64(cycle - self.cur)
        b += sv32(pc - self.next_pc.get(g, 0)) + struct.pack("<I", insn) + self.lanes(tmask)
        for dest, lm, vals in commits:
            b += bytes([2 | (3 << 3) if lm else 2]) + varint(dest) + self.lanes(lm)
            b += b"".join(struct.pack("<I", vals[i]) for i in range(self.T) if lm >> i & 1)
        if mem:
            b += bytes([3 | 8 | 0x20]) + varint(len(mem)) + bytes(m[0] for m in mem)
            b += bytes(m[2] for m in mem)
            prev = self.mem_base.get(g, 0)
            for lane, addr, size, value in mem:
                b += sv32(addr - prev)
                prev = addr
            self.mem_base[g] = mem[0][1]
            b += b"".join(v.to_bytes(s, "little") for _, _, s, v in mem)
        if wctl:
            b += varint(len(wctl))
            for kind, c, w, wpc, arg, arg2, m, m2 in wctl:
                b += bytes([kind, 0x7F]) + b"".join(varint(x) for x in (c, w, wpc, arg, arg2))
                b += self.lanes(m) + self.lanes(m2)
        if console:
            b += varint(len(console)) + b"".join(bytes(x) for x in console)
        if fault:
            b += self.fault(*fault)
        if ext is not None:
            b += varint(len(ext)) + ext
        self.ev += b
        self.cur = cycle
        self.issues += 1
        self.records += 1
        if not flags & 1:
            self.next_pc[g] = (pc + 4) & 0xFFFFFFFF

    def dm(self, op, addr, value, gwarp, lane, arg, cycle):
        body = bytes([op, addr]) + b"".join(varint(x) for x in (value, gwarp, lane, arg))
        body += sv64(cycle - self.cur)
        self.cur = cycle
        self.ev += b"\x80" + varint(len(body)) + body
        self.records += 1

    def unknown(self, kind, body):
        self.ev += bytes([kind]) + varint(len(body)) + body

    def finish(self, status, code, cycle, fault=None):
        body = bytes([status]) + varint(code) + sv64(cycle - self.cur)
        body += (b"\x01" + self.fault(*fault)) if fault else b"\x00"
        self.ev += b"\x81" + varint(len(body)) + body
        self.records += 1
        self.end = (status, cycle)

    def build(self, extra_header_tags=b"", after_header=b"", after_events=b"", index_tail=b"",
              pre=(), post=(), totals=None, image_name="k.bin", image_kind=3, prologue=None):
        """The trace: signature, HEADER, after_header, IMAGE, pre, the EVENTS chunk,
        after_events, post, INDEX, trailer.  pre and post are chunks (type, key, payload);
        their KEYFRAME(2) chunks are listed in the INDEX, with the PAGES(2) chunks of their
        kind and key before them (other chunks between those skipped).  totals replaces
        INDEX fields: issues, records, cycle, end_status, raw_size, kf_cycle_bias (added to
        every keyframe's cycle).  prologue (bytes) replaces HEADER, after_header and
        IMAGE."""
        def tag(t, v):
            return varint(t) + varint(len(v)) + v
        if prologue is None:
            image = struct.pack("<4I", 0x13, 0x13, 0x13, 0x13)
            hdr = tag(1, b"".join(varint(x) for x in (1, self.C, self.W, self.T)))
            hdr += tag(3, varint(0x80000000))
            hdr += tag(7, bytes([image_kind]) + varint(len(image)) + string(image_name))
            hdr += extra_header_tags
            prologue = chunk(1, 0, hdr) + after_header + chunk(2, 0, image)
        # the raw size of section 13, as the reader computes it
        dec = vxt_spec.EventDecoder(type("T", (), {"C": self.C, "W": self.W, "T": self.T,
                                                   "LB": self.LB, "skipped_unknown": 0})())
        try:
            dec.decode_chunk(bytes(self.ev), 0, "hand-made EVENTS")
        except vxt_spec.VxtError:
            pass  # records a reader refuses (no raw size to compute)
        tot = {"issues": self.issues, "records": self.records,
               "cycle": self.end[1] if self.end else self.cur,
               "end_status": self.end[0] if self.end else 0, "raw_size": dec.raw_size,
               "kf_cycle_bias": 0}
        for k, v in (totals or {}).items():
            tot[k] = v(tot[k]) if callable(v) else v
        return assemble(self.minor, [prologue] + list(pre) + [(4, 0, bytes(self.ev)),
                                                              after_events] + list(post),
                        tot, index_tail)


def bad_crc_chunk(t, key, payload):
    """A chunk whose header is sound but whose payload does not match its CRC."""
    c = bytearray(chunk(t, key, payload))
    struct.pack_into("<I", c, 20, vxt_spec.crc32c(payload) ^ 1)
    struct.pack_into("<I", c, 24, vxt_spec.crc32c(bytes(c[:24])))
    return bytes(c)


def pages_payload(*pages):
    """A PAGES(2) payload of all-zero pages (mode 1) at these page numbers."""
    return varint(len(pages)) + b"".join(varint(0) + varint(p) + b"\x01" for p in pages)


def keyframe_payload(cycle, npages, state=b"opaque"):
    return varint(cycle) + varint(npages) + varint(len(state)) + state


def small_writer(minor=1, end=True):
    """Two issues and (end) an END record at cycle 3."""
    w = Writer(minor=minor)
    w.issue(0, 0, 1, 0x80000000, 0x13, 0xF)
    w.issue(0, 1, 2, 0x80000000, 0x13, 0xF)
    if end:
        w.finish(1, 0, 3)
    return w


def patch_chunk(data, ctype, flags=None, raw=None, key=None, payload=None, ntype=None):
    """data with header fields or the (same-size) payload of its first chunk of type ctype
    replaced, both CRCs made right again."""
    d, off = bytearray(data), 16
    while d[off] != ctype:
        off += 28 + struct.unpack_from("<I", d, off + 4)[0]
    st = struct.unpack_from("<I", d, off + 4)[0]
    for fmt, at, v in (("<B", 0, ntype), ("<B", 1, flags), ("<I", 8, raw), ("<Q", 12, key)):
        if v is not None:
            struct.pack_into(fmt, d, at + off, v)
    if payload is not None:
        assert len(payload) == st
        d[off + 28:off + 28 + st] = payload
    fix_crcs(d, off)
    return bytes(d)


def trailer(io):
    t = struct.pack("<Q", io)
    return t + struct.pack("<I", vxt_spec.crc32c(t)) + b"VXTE"


class FormatSpec(unittest.TestCase):
    traces = {}

    @classmethod
    def setUpClass(cls):
        cls.dir = vxtest.tmpdir()
        if not os.path.exists(vxtest.prog("vxrec")) or not os.path.exists(vxtest.kernel("hello")):
            return
        for name, (kern, opts) in TRACES.items():
            out = os.path.join(cls.dir, name + ".vxt")
            r = vxtest.run([vxtest.prog("vxrec"), "-q", "-f"] + OPTS + opts +
                           [os.path.join(vxtest.KERNELS, kern), "-o", out], cwd=cls.dir)
            if r.returncode not in (0, 4):
                raise RuntimeError("vxrec %s: exit %d: %s" % (name, r.returncode, r.stderr))
            cls.traces[name] = out

    def setUp(self):
        for p in ("vxrec", "vxdump"):
            if not os.path.exists(vxtest.prog(p)):
                self.skipTest("%s not built" % p)
        if not self.traces:
            self.skipTest("example kernels not built (make kernels)")

    # ---- helpers

    def spec(self, path, keyframes=False):
        return vxtest.run([sys.executable, SPEC] + (["--keyframes"] if keyframes else []) +
                          [path])

    def dump(self, path, check=False):
        return vxtest.run([vxtest.prog("vxdump")] + (["--check"] if check else []) +
                          ["--json", path])

    def same(self, path, status=0, what=None):
        """vxdump --json and vxt_spec print the same events and exit with status."""
        what = what or os.path.basename(path)
        d, s = self.dump(path), self.spec(path)
        self.assertEqual(d.returncode, status, "%s: vxdump: %s" % (what, d.stderr))
        self.assertEqual(s.returncode, status, "%s: vxt_spec: %s" % (what, s.stderr))
        a = [canon(line) for line in d.stdout.splitlines()]
        b = s.stdout.splitlines()
        diff = first_difference(a, b)
        self.assertIsNone(diff, "%s: %s" % (what, diff))
        return len(a)

    def write(self, name, data):
        p = os.path.join(self.dir, name)
        with open(p, "wb") as f:
            f.write(data)
        return p

    def read(self, name):
        with open(self.traces[name], "rb") as f:
            return f.read()

    # ---- tests

    def test_golden(self):
        """the golden traces (1.0 and 1.1, every record kind) read the same"""
        for v in ("1.0", "1.1"):
            n = self.same(os.path.join(GOLDEN, "small-v%s.vxt" % v))
            self.assertEqual(n, 41)

    def test_golden_kernels(self):
        """the pinned recordings of tests/golden/kernels read the same, and their
        keyframes agree with their event streams"""
        d = os.path.join(GOLDEN, "kernels")
        names = sorted(f for f in os.listdir(d) if f.endswith(".vxt"))
        self.assertGreaterEqual(len(names), 5)
        for f in names:
            with self.subTest(trace=f):
                self.same(os.path.join(d, f))
                r = self.spec(os.path.join(d, f), keyframes=True)
                self.assertEqual(r.returncode, 0, r.stderr)

    def test_kernels(self):
        """the example kernels at several shapes, small chunks, many keyframes"""
        total = 0
        for name in sorted(self.traces):
            with self.subTest(trace=name):
                total += self.same(self.traces[name], what=name)
        self.assertGreater(total, 50000)

    def test_t16_t2(self):
        """(from a coverage review) 16 and 2 threads per warp: besides reading the same
        (test_kernels), each trace re-simulates (vxrec --verify exits 0, so what the
        encoder wrote is what the kernel did) and is the same bytes in one thread, with
        the writer thread, and with a third thread compressing (FORMAT.md 12)"""
        for name in T16_T2:
            with self.subTest(trace=name):
                v = vxtest.run([vxtest.prog("vxrec"), "--verify", self.traces[name]])
                self.assertEqual(v.returncode, 0, "%s: %s" % (name, v.stderr))
                self.assertIn("verified", v.stderr)
                kern, opts = TRACES[name]
                data = []
                for mode in (["--no-writer-thread"], ["--writer-thread", "--no-compress-thread"],
                             ["--writer-thread", "--compress-thread"]):
                    out = os.path.join(self.dir, "mode.vxt")
                    r = vxtest.run([vxtest.prog("vxrec"), "-q", "-f"] + mode + OPTS + opts +
                                   [os.path.join(vxtest.KERNELS, kern), "-o", out])
                    self.assertEqual(r.returncode, 0, "%s %s: %s" % (name, mode, r.stderr))
                    with open(out, "rb") as f:
                        data.append(f.read())
                self.assertEqual(data[0], self.read(name), name)
                self.assertTrue(data[0] == data[1] == data[2], "%s: the modes differ" % name)

    def test_fault_kernel(self):
        """a kernel fault: the END record carries it"""
        b = self.write("fault.bin", b"".join(struct.pack("<I", w) for w in FAULT))
        t = os.path.join(self.dir, "fault.vxt")
        r = vxtest.run([vxtest.prog("vxrec"), "-q", "-f", b, "-o", t], cwd=self.dir)
        self.assertEqual(r.returncode, 3, r.stderr)
        self.same(t)
        end = json.loads(self.spec(t).stdout.splitlines()[-1])
        self.assertEqual((end["status"], end["fault"]["kind"], end["fault"]["pc"]),
                         ("fault", "misaligned", 0x80000008))

    def test_failed_sc_keyframe(self):
        """(from the QEMU differential review) a sc.w that fails writes nothing, and the
        next keyframe stores no page for it (a page stored but not written since the
        previous keyframe breaks FORMAT.md 9.3)"""
        sc = (0x03 << 27) | (7 << 20) | (5 << 15) | (2 << 12) | (6 << 7) | 0x2F  # sc.w t1, t2, (t0)
        prog = [LUI(5, 0x10), ADDI(0, 0, 0), ADDI(0, 0, 0), ADDI(0, 0, 0), sc, ADDI(0, 0, 0),
                ADDI(0, 0, 0), 0x0000000B]  # tmc zero: the warp ends
        b = self.write("sc.bin", b"".join(struct.pack("<I", w) for w in prog))
        t = os.path.join(self.dir, "sc.vxt")
        r = vxtest.run([vxtest.prog("vxrec"), "-q", "-f", "--keyframe-interval", "2", b, "-o", t],
                       cwd=self.dir)
        self.assertEqual(r.returncode, 0, r.stderr)
        s = self.spec(t, keyframes=True)
        self.assertEqual(s.returncode, 0, s.stdout + s.stderr)
        issues = [json.loads(x) for x in s.stdout.splitlines() if '"issue"' in x]
        sc_issue = [e for e in issues if e["insn"] == sc]
        self.assertEqual(len(sc_issue), 1, s.stdout)
        self.assertEqual(sc_issue[0]["commits"][0]["values"][0], 1, "the sc.w failed (t1 = 1)")

    def test_limit_and_uncompressed(self):
        """--max-cycles ends with a limit record; --no-compress stores every chunk as is"""
        s = self.spec(self.traces["printf-limit"])
        self.assertEqual(json.loads(s.stdout.splitlines()[-1])["status"], "limit")
        tr = vxt_spec.Trace(self.read("vecadd-raw"))
        self.assertTrue(all(c.flags == 0 for c in tr.chunks))
        tr = vxt_spec.Trace(self.read("vecadd-a"))
        self.assertTrue(any(c.flags & 1 for c in tr.chunks), "compressed chunks exist")
        for c in tr.chunks:
            if c.flags & 1:
                self.assertLess(c.stored, c.raw, "compressed only when smaller (%s)" % c.where())

    def test_chunking_rule(self):
        """section 12: an EVENTS chunk closes after the record reaching the chunk size, or
        before a keyframe or the INDEX; its DIGEST follows right away"""
        for name in ("diverge-a", "gbar-multi", "hello-t128"):
            tr = vxt_spec.Trace(self.read(name))
            dec = vxt_spec.EventDecoder(tr)
            ch = tr.chunks
            for i, c in enumerate(ch):
                if c.type != vxt_spec.CH_EVENTS:
                    continue
                dec.decode_chunk(tr.payload(c), c.key, c.where())
                self.assertEqual(ch[i + 1].type, vxt_spec.CH_DIGEST, c.where())
                nxt = ch[i + 2]
                self.assertLess(dec.last_record_start, 4096, c.where())
                if nxt.type == vxt_spec.CH_EVENTS:
                    self.assertGreaterEqual(c.raw, 4096, "%s %s closed early" % (name, c.where()))
                else:
                    self.assertIn(nxt.type, (vxt_spec.CH_PAGES2, vxt_spec.CH_KEYFRAME2,
                                             vxt_spec.CH_INDEX), c.where())

    def test_keyframes(self):
        """every keyframe's state matches the state rebuilt from the event stream"""
        for name in KEYFRAME_CHECKED:
            with self.subTest(trace=name):
                r = self.spec(self.traces[name], keyframes=True)
                self.assertEqual(r.returncode, 0, "%s: %s" % (name, r.stderr))

    def _keyframe_chunks(self, data, ctype):
        tr = vxt_spec.Trace(data)
        return tr, [c for c in tr.chunks if c.type == ctype]

    def test_keyframes_detect_tampering(self):
        """a changed register in a keyframe state, or a changed page byte, is found (exit 3;
        vxrec --verify, which re-simulates, agrees that the trace is wrong)"""
        data = bytearray(self.read("vecadd-raw"))
        tr, kfs = self._keyframe_chunks(bytes(data), vxt_spec.CH_KEYFRAME2)
        k = kfs[len(kfs) // 2]
        p = tr.payload(k)
        cycle, q = vxt_spec.rvarint(p, 0)
        npages, q = vxt_spec.rvarint(p, q)
        sl, q = vxt_spec.rvarint(p, q)
        st = vxt_spec.decode_state(tr, p[q:q + sl], k.where())
        x5 = k.off + 28 + q + st["warps"][0]["x1_off"] + 4 * tr.T * 4  # x5, lane 0
        bad = bytearray(data)
        bad[x5] ^= 0x01
        fix_crcs(bad, k.off)
        t = self.write("kf-reg.vxt", bytes(bad))
        r = self.spec(t, keyframes=True)
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("x5 lane 0", r.stderr)
        self.assertEqual(self.spec(t).returncode, 0, "without --keyframes: readable")
        v = vxtest.run([vxtest.prog("vxrec"), "--verify", t], cwd=self.dir)
        self.assertEqual(v.returncode, 1, v.stderr)
        # a byte of a stored page
        tr, pcs = self._keyframe_chunks(bytes(data), vxt_spec.CH_PAGES2)
        for c in pcs:
            pages = vxt_spec.parse_pages(tr, tr.payload(c), c)
            if c.key > 0 and any(d is not None for _, _, d in pages):
                break
        p = tr.payload(c)
        n, q = vxt_spec.rvarint(p, 0)
        for _ in range(n):
            _, q = vxt_spec.rvarint(p, q)
            _, q = vxt_spec.rvarint(p, q)
            q += 1
            if p[q - 1] == 0:
                break
        bad = bytearray(data)
        bad[c.off + 28 + q + 100] ^= 0x20
        fix_crcs(bad, c.off)
        r = self.spec(self.write("kf-page.vxt", bytes(bad)), keyframes=True)
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("page", r.stderr)

    def test_cut(self):
        """a trace cut off: both exit 1 and show the same events (up to the last complete
        EVENTS chunk); cut in the prologue or the signature: both exit 2"""
        data = self.read("cutme")
        tr = vxt_spec.Trace(data)
        ev = [c for c in tr.chunks if c.type == vxt_spec.CH_EVENTS]
        dg = [c for c in tr.chunks if c.type == vxt_spec.CH_DIGEST]
        kf = [c for c in tr.chunks if c.type == vxt_spec.CH_KEYFRAME2]
        cuts = {"mid EVENTS": ev[2].off + 28 + ev[2].stored // 2,
                "in an EVENTS header": ev[2].off + 10,
                "right after EVENTS": ev[2].end,
                "mid DIGEST": dg[2].off + 40,
                "right after DIGEST": dg[2].end,
                "mid KEYFRAME2": kf[1].off + 40,
                "right after the last EVENTS": ev[-1].end,
                "in the trailer": len(data) - 5,
                "right after INDEX": len(data) - 16}
        seen = set()
        for what, off in cuts.items():
            with self.subTest(cut=what):
                n = self.same(self.write("cut.vxt", data[:off]), status=1, what=what)
                seen.add(n)
                r = self.spec(os.path.join(self.dir, "cut.vxt"), keyframes=True)
                self.assertEqual(r.returncode, 1, "%s --keyframes: %s" % (what, r.stderr))
        self.assertGreater(len(seen), 2, "cuts at different places show different events")
        for what, off in (("in the prologue", tr.prologue_end - 7), ("in the signature", 9)):
            with self.subTest(cut=what):
                self.same(self.write("cut.vxt", data[:off]), status=2, what=what)

    def test_corrupt(self):
        """a flipped byte: in an EVENTS chunk both readers exit 2 (printing no wrong event);
        anywhere else vxt_spec, which checks the whole file, exits 2 as vxdump --check does"""
        data = self.read("cutme")
        full = [canon(line) for line in self.dump(self.traces["cutme"]).stdout.splitlines()]
        tr = vxt_spec.Trace(data)
        for c in tr.chunks:
            if c.type != vxt_spec.CH_EVENTS or c.key == 0:
                continue
            for where in (28, 28 + c.stored // 2, 28 + c.stored - 1, 5, 22):
                bad = bytearray(data)
                bad[c.off + where] ^= 0x04
                t = self.write("flip.vxt", bytes(bad))
                d, s = self.dump(t), self.spec(t)
                msg = "flip at %d (%s +%d)" % (c.off + where, c.where(), where)
                self.assertEqual((d.returncode, s.returncode), (2, 2),
                                 "%s: %s / %s" % (msg, d.stderr, s.stderr))
                self.assertIn(str(c.off), s.stderr, msg + ": the message names the chunk")
                a = [canon(line) for line in d.stdout.splitlines()]
                b = s.stdout.splitlines()
                self.assertEqual(a, full[:len(a)], msg + ": vxdump prints only good events")
                self.assertEqual(b, full[:len(b)], msg + ": vxt_spec prints only good events")
                if where >= 28:
                    self.assertEqual(a, b, msg + ": the same events before the bad chunk")
            break
        prologue, off = [], 16
        while off < tr.prologue_end:
            c = tr._chunk_header(off)
            prologue.append(c)
            off = c.end
        others = [c for c in tr.chunks if c.type != vxt_spec.CH_EVENTS]
        kinds = {c.type for c in prologue + others}
        self.assertTrue({1, 2, 7, 8, 9, 10} <= kinds, kinds)
        for c in prologue + others[:12] + others[-1:]:
            for where in (3, 28 + c.stored // 2):
                bad = bytearray(data)
                bad[c.off + where] ^= 0x04
                t = self.write("flip.vxt", bytes(bad))
                d, s = self.dump(t, check=True), self.spec(t)
                self.assertEqual((d.returncode, s.returncode), (2, 2),
                                 "flip in %s +%d: %s / %s"
                                 % (c.where(), where, d.stderr, s.stderr))
        for off in (2, 10, 14, 20, len(data) - 10, len(data) - 3, len(data) - 14):
            bad = bytearray(data)
            bad[off] ^= 0x04
            t = self.write("flip.vxt", bytes(bad))
            d, s = self.dump(t), self.spec(t)
            self.assertEqual((d.returncode, s.returncode), (2, 2), "flip at %d" % off)

    def test_skipped_chunk_sizes(self):
        """sections 4, 11, 14: a chunk header with impossible sizes is corrupt whatever its
        type, also for a chunk that is skipped unread (an unknown one after the prologue, a
        DIGEST that is ignored), and also when its payload is cut off: a full validation,
        and a scan, report corruption at its offset (they passed it by)"""
        w = small_writer()
        good = w.build()
        io = struct.unpack_from("<Q", good, len(good) - 16)[0]
        for ctype in (99, vxt_spec.CH_DIGEST):
            for flags, raw in ((0, 11), (0, 0x7E000001), (1, 255 * 10 + 1025)):
                what = "type %d, flags %d, %d bytes stored, %d raw" % (ctype, flags, 10, raw)
                odd = bytearray(chunk(ctype, 0, b"x" * 10))
                odd[1] = flags
                struct.pack_into("<I", odd, 8, raw)
                fix_crcs(odd, 0)
                at = io  # where the odd chunk goes: after the EVENTS chunk
                data = w.build(after_events=odd)
                err = self.both_corrupt(what, data)
                self.assertIn("chunk at offset %d has impossible sizes" % at, err, what)
                # a scan (no INDEX, no trailer) reads every chunk header
                ix = struct.unpack_from("<Q", data, len(data) - 16)[0]
                t = self.write("scan.vxt", data[:ix])
                d, s = self.dump(t), self.spec(t)
                self.assertEqual((d.returncode, s.returncode), (2, 2),
                                 "%s: %s / %s" % (what, d.stderr, s.stderr))
                self.assertIn("offset %d" % at, d.stderr, what)
                # its header whole, its payload cut off: corrupt, not a cut
                t = self.write("scan.vxt", data[:at + 28 + 3])
                d, s = self.dump(t), self.spec(t)
                self.assertEqual((d.returncode, s.returncode), (2, 2),
                                 "%s, cut: %s / %s" % (what, d.stderr, s.stderr))

    def test_prologue_unknown_chunk_decompressed(self):
        """section 5.2: a reader reads the prologue whole and checks it, an unknown chunk
        there included: one whose LZ4 block does not decompress is corruption for
        vxdump, vxrec --verify and vxt_spec alike (vxt_spec checked only its CRC)"""
        odd = bytearray(chunk(200, 0, b"\xf0" + b"\x00" * 9))
        odd[1] = 1  # LZ4: a literal run longer than the block
        struct.pack_into("<I", odd, 8, 50)
        fix_crcs(odd, 0)
        err = self.both_corrupt("prologue", small_writer().build(after_header=bytes(odd)))
        self.assertIn("LZ4 data does not decompress to 50 bytes", err)
        good = bytearray(chunk(200, 0, b"\x50hello"))  # a valid block of 5 literals
        good[1] = 1
        struct.pack_into("<I", good, 8, 5)
        fix_crcs(good, 0)
        self.both_accept("prologue", small_writer().build(after_header=bytes(good)))

    def test_unknown_image_kind(self):
        """section 15.1: an unknown IMAGE kind is passed on, not corruption: the events
        read the same, vxdump --check accepts the file and names the kind unknown"""
        t = self.write("kind9.vxt", small_writer().build(image_kind=9))
        self.same(t)
        self.assertEqual(self.dump(t, check=True).returncode, 0)
        r = vxtest.run([vxtest.prog("vxdump"), "--summary", "--json", t])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout)["kernel"]["kind"], "unknown")

    def test_code_tables(self):
        """hand-made traces: every wctl kind, fault kind, signal, DM op and register, END
        status; unknown record kinds, extension blocks, unknown chunks and header tags,
        longer INDEX and DIGEST payloads, a newer minor version"""
        w = Writer(C=2, W=2, T=4)
        cyc = 1
        for k in range(256):
            w.issue(k & 1, k >> 1 & 1, cyc, 0x80000000 + 4 * (k % 7), 0x13 + (k << 7), 0xF,
                    flags=k & 3 if k % 5 == 0 else 0,
                    commits=[(k % 64, 0x5, [k, 0, k * 3, 0]), (64 + 0x300 + k, 0xF, [1, 2, 3, k])],
                    mem=[(1, 0x1000 + k, 1, k), (3, 0xFFF + 8 * k, 4, 0xDEAD0000 + k),
                         (0, 0xFFFFFFFE, 2, 0xBEEF)] if k % 3 == 0 else (),
                    wctl=[(k, 1, 1, 0x100 + k, k, 2 * k, 0x5, 0xA)],
                    console=[(k % 64, k)] if k % 4 == 0 else (),
                    fault=(k, k, 1, 0, 0x80 + k, 0x13, 4 * k, 3,
                           "kind %d \"%c\"" % (k, 33 + k % 90)),
                    ext=b"future" if k % 6 == 0 else None)
            cyc += k % 3
            if k % 16 == 0:
                w.unknown(0x82 + k % 126, bytes(k % 9))
        for op in range(256):
            w.dm(op, 255 - op, op * 1000, op % 4, op % 4, op, cyc)
        w.unknown(0xFF, b"")
        w.finish(7, 12345, cyc + 2, fault=(13, 11, 0, 1, 0x80000010, 0x13, 0x40, 1, "console"))
        self.same(self.write("codes.vxt", w.build()), what="every code")
        for status in range(6):
            w = Writer()
            w.issue(0, 1, 3, 0x80000000, 0x00100093, 0x3, commits=[(1, 0x3, [1, 1, 0, 0])])
            w.finish(status, status * 7, 9)
            self.same(self.write("end.vxt", w.build()), what="END status %d" % status)
        # a newer minor version with every extension point
        w = Writer(minor=7)
        w.issue(0, 0, 1, 0x80000000, 0x13, 0xF, ext=b"\x01\x02")
        w.unknown(0x90, b"abc")
        w.finish(1, 0, 2)
        t = self.write("minor.vxt", w.build(
            extra_header_tags=varint(99) + varint(3) + b"new",
            after_header=chunk(42, 0, b"a future chunk"),
            after_events=chunk(200, 0, b"another") + chunk(11, 5, b""),
            index_tail=b"\x01\x02\x03"))
        self.same(t, what="minor version 7")
        d = self.dump(t, check=True)
        self.assertEqual(d.returncode, 0, d.stderr)

    # ---- vxdump --check reads every chunk (FORMAT.md 4, 9, 10.1, 11)

    def both_corrupt(self, what, data):
        """vxt_spec and vxdump --check both exit 2; vxdump names a byte offset"""
        t = self.write("bad.vxt", data)
        d, s = self.dump(t, check=True), self.spec(t)
        self.assertEqual((d.returncode, s.returncode), (2, 2),
                         "%s: vxdump --check: %s / vxt_spec: %s" % (what, d.stderr, s.stderr))
        self.assertRegex(d.stderr, r"offset \d+", what + ": vxdump names the offset")
        # vxrec --verify checks the file as vxdump --check does before it simulates
        v = vxtest.run([vxtest.prog("vxrec"), "--verify", t])
        self.assertEqual((v.returncode, v.stderr.splitlines()[-1:]),
                         (2, d.stderr.replace("vxdump:", "vxrec:").splitlines()[-1:]), what)
        return d.stderr

    def both_accept(self, what, data):
        t = self.write("good.vxt", data)
        self.same(t, what=what)
        d = self.dump(t, check=True)
        self.assertEqual(d.returncode, 0, "%s: vxdump --check: %s" % (what, d.stderr))

    def test_check_whole_file(self):
        """a complete trace: vxdump --check, like vxt_spec, finds a prologue chunk after the
        prologue, keyframe chunks the INDEX does not list, PAGES chunks without their
        KEYFRAME, an unknown chunk whose CRC fails, INDEX totals that do not match the
        records, a keyframe at the wrong place, a stream without END; it accepts DIGEST
        chunks that are misplaced or not listed, unknown chunks inside a keyframe, a
        keyframe after END"""
        n = 2  # issues of small_writer()
        kf0 = [(9, 0, pages_payload(0x10)), (10, 0, keyframe_payload(0, 1))]
        bad = {
            "HEADER after the prologue": dict(post=[(1, 0, b"\x01\x00")]),
            "IMAGE after the prologue": dict(pre=[(2, 0, b"\x13\x00\x00\x00")]),
            "LOAD after the prologue": dict(post=[(3, 0, b"data")]),
            "KEYFRAME2 not in the INDEX": dict(after_events=chunk(10, n, keyframe_payload(3, 0))),
            "PAGES2 and KEYFRAME2 not in the INDEX": dict(
                after_events=chunk(9, n, pages_payload(1)) + chunk(10, n, keyframe_payload(3, 1))),
            "KEYFRAME not in the INDEX": dict(after_events=chunk(6, n, keyframe_payload(3, 0))),
            "PAGES2 without KEYFRAME2 before the events": dict(pre=[(9, 0, pages_payload(1))]),
            "PAGES2 without KEYFRAME2 before the INDEX": dict(post=[(9, n, pages_payload(1))]),
            "PAGES without KEYFRAME before the INDEX": dict(post=[(5, n, pages_payload(1))]),
            "PAGES2 of another key before a keyframe": dict(pre=[(9, 5, pages_payload(1))] + kf0),
            "PAGES before a KEYFRAME2": dict(pre=[(5, 0, pages_payload(1)),
                                                  (10, 0, keyframe_payload(0, 0))]),
            "PAGES2 before a KEYFRAME": dict(pre=[(9, 0, pages_payload(1)),
                                                  (6, 0, keyframe_payload(0, 0))]),
            "unknown chunk with a bad CRC after the events": dict(
                after_events=bad_crc_chunk(42, 0, b"future")),
            "an ignored DIGEST chunk with a bad CRC": dict(
                after_events=bad_crc_chunk(8, 0, b"not a digest")),
            "a DIGEST chunk of another key with a bad CRC": dict(
                after_events=bad_crc_chunk(8, 7, b"not a digest")),
            "unknown chunk with a bad CRC in the prologue": dict(
                after_header=bad_crc_chunk(42, 0, b"future")),
            "INDEX issues": dict(totals={"issues": n + 1}),
            "INDEX records": dict(totals={"records": lambda v: v + 1}),
            "INDEX cycle": dict(totals={"cycle": lambda v: v + 1}),
            "INDEX end status": dict(totals={"end_status": 2}),
            "INDEX raw size": dict(totals={"raw_size": lambda v: v + 1}),
            "INDEX keyframe cycle": dict(pre=kf0, totals={"kf_cycle_bias": 1}),
            "a page twice in one keyframe": dict(
                pre=[(9, 0, pages_payload(1)), (9, 0, pages_payload(1)),
                     (10, 0, keyframe_payload(0, 2))]),
            "keyframe key is not the issues before it": dict(
                post=[(10, n - 1, keyframe_payload(3, 0))]),
            "a keyframe claiming 2^40 pages": dict(pre=[(9, 0, pages_payload(0x10)),
                                                          (10, 0, keyframe_payload(0, 1 << 40))]),
            "a PAGES2 payload with a byte after its pages": dict(
                pre=[(9, 0, pages_payload(0x10) + b"\x00"), (10, 0, keyframe_payload(0, 1))]),
        }
        for what, kw in bad.items():
            with self.subTest(case=what):
                self.both_corrupt(what, small_writer().build(**kw))
        with self.subTest(case="no END record"):
            err = self.both_corrupt("no END record", small_writer(end=False).build())
            self.assertIn("END", err)
        # section 6: the END record is the last record; an issue after it in its chunk
        w = small_writer()
        w.issue(0, 0, 4, 0x80000004, 0x13, 0xF)
        with self.subTest(case="an issue after the END record in its chunk"):
            # reading the events (not --check, which would also find the INDEX totals of
            # the hand-made file wrong) stops at that record
            t = self.write("after-end.vxt", w.build())
            d, s = self.dump(t), self.spec(t)
            self.assertEqual((d.returncode, s.returncode), (2, 2), "%s / %s" % (d.stderr, s.stderr))
            self.assertIn("record after the END record", d.stderr)
        # section 4: the 16-bit field after the flags is reserved and MUST be 0 (the header
        # CRC recomputed: only the reserved field is wrong)
        res = bytearray(chunk(42, 0, b"future"))
        res[2] = 1
        struct.pack_into("<I", res, 24, vxt_spec.crc32c(bytes(res[:24])))
        with self.subTest(case="reserved chunk header field set"):
            self.both_corrupt("reserved chunk header field set",
                              small_writer().build(after_events=bytes(res)))
        # section 10: the INDEX chunk ends where the trailer starts; 4 bytes between them
        # (the trailer still names the INDEX chunk's offset)
        data = small_writer().build()
        with self.subTest(case="bytes between the INDEX chunk and the trailer"):
            self.both_corrupt("bytes between the INDEX chunk and the trailer",
                              data[:-16] + b"junk" + data[-16:])
        good = {
            "keyframe 0 with a page": dict(pre=kf0),
            "a keyframe after the END record": dict(
                post=[(9, n, pages_payload(2)), (10, n, keyframe_payload(3, 1))]),
            "a DIGEST chunk not after its EVENTS chunk": dict(pre=kf0 + [(8, 7, b"not a digest")]),
            "a DIGEST chunk the INDEX does not list": dict(
                after_events=chunk(8, 0, b"not a digest")),
            "unknown and DIGEST chunks between PAGES2 chunks": dict(
                pre=[(9, 0, pages_payload(1)), (42, 0, b"x"), (8, 0, b"y"),
                     (9, 0, pages_payload(2)), (10, 0, keyframe_payload(0, 2))]),
        }
        for what, kw in good.items():
            with self.subTest(case=what):
                self.both_accept(what, small_writer().build(**kw))
        # cut off (no INDEX): a keyframe whose KEYFRAME2 chunk is missing is a cut, not damage
        data = small_writer().build(post=[(9, n, pages_payload(1))])
        t = self.write("cut.vxt", data[:struct.unpack_from("<Q", data, len(data) - 16)[0]])
        self.same(t, status=1, what="cut after a PAGES2 chunk")
        d = self.dump(t, check=True)
        self.assertEqual(d.returncode, 1, d.stderr)

    def test_check_damage(self):
        """(from a coverage review) damage in chunk headers, the HEADER, the records, PAGES2
        payloads and the file layout: vxt_spec, vxdump --check and vxrec --verify all call
        the file corrupt (exit 2) and name a byte offset"""
        def tag(t, v):
            return varint(t) + varint(len(v)) + v
        image = struct.pack("<4I", 0x13, 0x13, 0x13, 0x13)
        kimage = tag(7, b"\x03" + varint(16) + string("k.bin"))

        def with_prologue(plat=(1, 1, 2, 4), start=True, img=kimage, image_bytes=image):
            """small_writer's trace with this HEADER (default: Writer's) and IMAGE"""
            hdr = tag(1, b"".join(varint(x) for x in plat))
            hdr += tag(3, varint(0x80000000)) if start else b""
            return small_writer().build(prologue=chunk(1, 0, hdr + img) +
                                        chunk(2, 0, image_bytes))

        def kf0(pages, npages):
            return small_writer().build(pre=[(9, 0, pages), (10, 0, keyframe_payload(0, npages))])
        good = small_writer().build()
        evb = bytes(small_writer().ev)
        io = struct.unpack_from("<Q", good, len(good) - 16)[0]
        hlen = struct.unpack_from("<I", good, 16 + 4)[0]     # the HEADER's stored_len
        ev = 16 + 28 + hlen + 28 + len(image)    # the first chunk after HEADER and IMAGE
        w_after_end = small_writer()
        w_after_end.issue(0, 0, 4, 0x80000004, 0x13, 0xF)
        w_unknown_after_end = small_writer()
        w_unknown_after_end.unknown(0x90, b"x")
        w_fault2 = Writer()
        w_fault2.issue(0, 0, 1, 0x80000000, 0x13, 0xF)
        body = bytes([1]) + varint(0) + sv64(1) + b"\x02"          # has_fault 2 (0 or 1)
        w_fault2.ev += b"\x81" + varint(len(body)) + body
        w_fault2.records += 1
        w_fault2.end = (1, 2)
        w_pcmode3 = Writer()
        w_pcmode3.ev += bytes([0x1F])   # form 0, S, I, M, pcmode 3 (section 7: reserved)
        w_pcmode3.issues = w_pcmode3.records = 1
        w_pcmode3.finish(1, 0, 3)
        w_ext = Writer()
        w_ext.issue(0, 0, 1, 0x80000000, 0x13, 0xF, ext=b"")
        w_ext.ev[-1:] = varint(200)     # an extension block of 200 bytes in a short record
        w_ext.finish(1, 0, 2)
        bad = {
            # chunk headers (section 4)
            "the listed EVENTS chunk has another type": (patch_chunk(good, 4, ntype=42), io),
            "the listed EVENTS chunk has another key": (patch_chunk(good, 4, key=5), ev),
            "uncompressed, raw_len != stored_len": (patch_chunk(good, 4, raw=len(evb) + 1), ev),
            "LZ4, raw_len > 255 x stored_len + 1024": (
                patch_chunk(good, 4, flags=1, raw=255 * len(evb) + 1025), ev),
            "an EVENTS payload that is no LZ4 block": (patch_chunk(
                good, 4, flags=1, raw=2 * len(evb), payload=b"\xff" * len(evb)), ev),
            "a HEADER payload that is no LZ4 block": (patch_chunk(
                good, 1, flags=1, raw=200, payload=b"\xf0" + bytes(hlen - 1)), 16),
            # the HEADER (section 5.1)
            "HEADER without START_PC": (with_prologue(start=False), 16),
            "HEADER with 3 threads": (with_prologue(plat=(1, 1, 2, 3)), 16),
            "HEADER with 0 warps": (with_prologue(plat=(1, 1, 0, 4)), 16),
            "HEADER with clusters x cores x warps > 32768": (
                with_prologue(plat=(2, 128, 129, 4)), 16),
            "HEADER with an image of more than 0x7E000000 bytes": (with_prologue(
                img=tag(7, b"\x03" + varint(0x7E000001) + string("k.bin"))), 16),
            "an IMAGE chunk smaller than its tag": (with_prologue(image_bytes=image[:12]),
                                                    16 + 28 + hlen),
            # records (sections 7, 8)
            "an issue record after END": (w_after_end.build(), ev),
            "an unknown record after END": (w_unknown_after_end.build(), ev),
            "END with has_fault 2": (w_fault2.build(), ev),
            "an issue with pcmode 3": (w_pcmode3.build(), ev),
            "an extension block longer than the record": (w_ext.build(), ev),
            # PAGES2 payloads (section 9.1)
            "PAGES2 page mode 2": (kf0(varint(1) + varint(0) + varint(0x10) + b"\x02", 1), ev),
            "PAGES2 page number > 0xFFFFF": (
                kf0(varint(1) + varint(0) + varint(0x100000) + b"\x01", 1), ev),
            "PAGES2 page cut short": (
                kf0(varint(1) + varint(0) + varint(0x10) + b"\x00" + bytes(100), 1), ev),
            "PAGES2 bytes after the last page": (kf0(pages_payload(0x10) + b"zz", 1), ev),
            "PAGES2 count > payload / 3": (
                kf0(varint(5) + varint(0) + varint(0x10) + b"\x01", 5), ev),
            # layout (sections 10, 11)
            "10 bytes before the INDEX": (small_writer().build(after_events=bytes(10)), io),
            "a trailer pointing into the prologue": (good[:-16] + trailer(20), 20),
            "a trailer pointing past the end": (good[:-16] + trailer(len(good) + 100),
                                                len(good) + 100),
            "4 bytes between the INDEX and the trailer": (good[:-16] + bytes(4) + trailer(io), io),
            "an empty INDEX": (good[:io] + chunk(7, 0, b"") + trailer(io), io),
        }
        self.assertEqual((good[16], good[io]), (1, 7), "the HEADER and INDEX chunks")
        for what, (data, off) in bad.items():
            with self.subTest(case=what):
                err = self.both_corrupt(what, data)
                self.assertIn("offset %d" % off, err, what)

    def test_record_field_ranges(self):
        """sections 7.2-7.6, 8: a field one past its range is corruption for both readers:
        a commit destination of 4160, a commit without lanes that
        has a value mode, 4097 memory writes, a memory write on lane T, console slot 64,
        a cached instruction word whose cache slot holds another pc, END has_fault 2
        (before a well-formed fault body), a fault reason of 96 bytes"""
        f = (1, 4, 0, 0, 0x80000000, 0x13, 0, 1, "misaligned")
        cases = {}
        w = Writer()
        w.issue(0, 0, 1, 0x80000000, 0x13, 0xF, commits=[(64 + 4096, 0xF, [1, 2, 3, 4])])
        cases["commit destination 64 + 4096"] = w
        w = Writer()
        w.issue(0, 0, 1, 0x80000000, 0x13, 0xF, commits=[(5, 0, [0, 0, 0, 0])])
        self.assertEqual(bytes(w.ev[-3:]), b"\x02\x05\x00")  # K, x5, no lanes
        w.ev[-3] = 2 | 3 << 3  # value mode raw
        cases["commit without lanes with value mode 3"] = w
        w = Writer()
        w.issue(0, 0, 1, 0x80000000, 0x13, 0xF,
                mem=[(i % 4, 0x1000 + 4 * i, 4, i) for i in range(4097)])
        cases["4097 memory writes"] = w
        w = Writer()
        w.issue(0, 0, 1, 0x80000000, 0x13, 0xF, mem=[(4, 0x1000, 4, 1)])
        cases["a memory write on lane 4 of 4"] = w
        w = Writer()
        w.issue(0, 0, 1, 0x80000000, 0x13, 0xF, console=[(64, 65)])
        cases["console slot 64"] = w
        # the insn cache has 8192 slots by pc >> 2 (section 7.1): pc + 0x8000 shares one
        w = Writer()
        w.issue(0, 0, 1, 0x80000000, 0x13, 0xF)
        pc = 0x80008000
        w.ev += bytes([0x70 | 2, 0x10, 0]) + varint(0) + varint(0) + varint(1) + sv64(1)
        w.ev += sv32(pc - w.next_pc.get(1, 0)) + w.lanes(0xF)  # H.I: no insn word
        w.issues, w.records, w.cur = w.issues + 1, w.records + 1, 2
        cases["a cached instruction word of another pc"] = w
        w = Writer()
        w.issue(0, 0, 1, 0x80000000, 0x13, 0xF)
        at = len(w.ev)
        w.finish(2, 0, 2, fault=f)
        self.assertEqual(w.ev[at + 5], 1)  # 81, length, status, exit code, cycle, has_fault
        w.ev[at + 5] = 2
        cases["END has_fault 2"] = w
        w = Writer()
        w.issue(0, 0, 1, 0x80000000, 0x13, 0xF, fault=f[:8] + ("r" * 96,))
        cases["a fault reason of 96 bytes"] = w
        for what, w in cases.items():
            with self.subTest(case=what):
                if w.end is None:
                    w.finish(1, 0, w.cur + 1)
                # reading the events (not --check: the INDEX raw size of a record the
                # decoder refuses is wrong too) must stop at the record
                t = self.write("range.vxt", w.build())
                d, s = self.dump(t), self.spec(t)
                self.assertEqual((d.returncode, s.returncode), (2, 2),
                                 "%s: vxdump: %s / vxt_spec: %s" % (what, d.stderr, s.stderr))
                self.assertRegex(d.stderr, r"offset \d+: corrupt record at byte \d+", what)
        # one less is accepted by both
        w = Writer()
        w.issue(0, 0, 1, 0x80000000, 0x13, 0xF, commits=[(64 + 4095, 0xF, [1, 2, 3, 4])],
                mem=[(3, 0x1000, 4, 1)], console=[(63, 65)], fault=f[:8] + ("r" * 95,))
        w.finish(1, 0, 2)
        self.both_accept("fields at the end of their ranges", w.build())

    def test_varint_too_long_or_too_big(self):
        """section 2: a varint longer than 10 bytes and one whose tenth byte is above 1 are
        both refused, each with its own reason (the first read as 'exceeds 64 bits')"""
        for what, v in (("longer than 10 bytes", b"\x80" * 10 + b"\x00"),
                        ("exceeds 64 bits", b"\x80" * 9 + b"\x02")):
            w = Writer()
            w.issue(0, 0, 1, 0x80000000, 0x13, 0xF)
            w.finish(1, 0, 2)
            t = self.write("varint.vxt", w.build(extra_header_tags=varint(4) + varint(len(v)) + v))
            d = self.dump(t)
            self.assertEqual(d.returncode, 2, d.stderr)
            self.assertIn("HEADER chunk at offset 16: varint %s" % what, d.stderr)

    def test_check_finds_a_wrong_digest(self):
        """section 10.3: a DIGEST chunk that is well formed but not exact for its EVENTS
        chunk (one PC set bit flipped) is corruption for vxdump --check, vxt_spec and
        vxrec --verify; reading the events alone does not look at it"""
        data = bytearray(self.read("vecadd-raw"))  # uncompressed: payload bytes in place
        tr = vxt_spec.Trace(bytes(data))
        c = next(c for c in tr.chunks if c.type == vxt_spec.CH_DIGEST)
        p = tr.payload(c)
        _, q = vxt_spec.rvarint(p, 0)  # issues
        flags, q = vxt_spec.rvarint(p, q)
        if flags & 0x40:
            _, q = vxt_spec.rvarint(p, q)  # wlo
            _, q = vxt_spec.rvarint(p, q)  # whi
        self.assertEqual(p[q], 13, "a 1.2 writer's PC set has 2^13 bits")
        data[c.off + 28 + q + 1 + 5] ^= 0x10  # a bit of byte 5 of the PC set
        fix_crcs(data, c.off)
        err = self.both_corrupt("a PC set bit flipped", bytes(data))
        self.assertIn("DIGEST chunk at offset %d does not match" % c.off, err)
        self.assertEqual(self.dump(self.write("dg.vxt", bytes(data))).returncode, 0)

    def test_index_digest_offset_at_the_next_chunk(self):
        """section 10.1: a DIGEST chunk listed in the INDEX lies before the next EVENTS
        chunk; an offset that is the next EVENTS chunk's own makes the INDEX inconsistent,
        found when the trace is opened (reading the events fails, not only --check)"""
        data = self.read("vecadd-raw")  # uncompressed: the INDEX payload is in place
        tr = vxt_spec.Trace(data)
        ev = [c for c in tr.chunks if c.type == vxt_spec.CH_EVENTS]
        self.assertGreater(len(ev), 1)
        io = struct.unpack_from("<Q", data, len(data) - 16)[0]
        p = data[io + 28:len(data) - 16]
        q = 0
        for _ in range(3):
            _, q = vxt_spec.rvarint(p, q)  # issues, records, cycle
        q += 1  # end status
        n, q = vxt_spec.rvarint(p, q)
        for _ in range(2 * n):
            _, q = vxt_spec.rvarint(p, q)  # chunk keys and offsets

        def skip_keyframes(q):
            k, q = vxt_spec.rvarint(p, q)
            for _ in range(4 * k):
                _, q = vxt_spec.rvarint(p, q)
            return q
        q = skip_keyframes(q)  # format 1.0's list
        _, q = vxt_spec.rvarint(p, q)  # raw_size
        q = skip_keyframes(q)  # format 1.1's list
        k, q = vxt_spec.rvarint(p, q)
        self.assertEqual(k, len(ev), "one DIGEST offset per EVENTS chunk")
        _, r = vxt_spec.rvarint(p, q)  # chunk 0's DIGEST offset, relative to the chunk
        ix = p[:q] + varint(ev[1].off - ev[0].off) + p[r:]
        t = struct.pack("<Q", io)
        bad = data[:io] + chunk(7, 0, ix) + t + struct.pack("<I", vxt_spec.crc32c(t)) + b"VXTE"
        t = self.write("dg-off.vxt", bad)
        d, s = self.dump(t), self.spec(t)
        self.assertEqual((d.returncode, s.returncode), (2, 2), "%s / %s" % (d.stderr, s.stderr))
        self.assertIn("INDEX chunk at offset %d is inconsistent: a DIGEST chunk not between its "
                      "EVENTS chunk and the next" % io, d.stderr)

    def test_fault_reason_newline(self):
        """section 7.6: a fault reason holds no newline; one that does is corruption"""
        f = (1, 4, 0, 0, 0x80000000, 0x13, 0, 1, "two\nlines")
        for where in ("issue", "END"):
            with self.subTest(record=where):
                w = Writer()
                w.issue(0, 0, 1, 0x80000000, 0x13, 0xF, fault=f if where == "issue" else None)
                w.finish(2, 0, 2, fault=f if where == "END" else None)
                t = self.write("newline.vxt", w.build())
                d, s = self.dump(t), self.spec(t)
                self.assertEqual((d.returncode, s.returncode), (2, 2),
                                 "%s / %s" % (d.stderr, s.stderr))
                self.assertIn("newline", d.stderr)
                self.assertRegex(d.stderr, r"offset \d+")

    def run_bytes(self, args):
        r = subprocess.run(args, capture_output=True, timeout=300)
        return r.returncode, r.stdout.decode("utf-8")  # strict: the output is UTF-8

    def test_json_utf8(self):
        """JSON strings are UTF-8: UTF-8 in a fault reason or a kernel name is written as it
        is, each byte that is not UTF-8 as U+FFFD (vxdump --json, --summary --json,
        --timeline; vxdiff --json)"""
        def trace(name, reason, image_name=b"k.bin"):
            w = Writer()
            w.issue(0, 0, 1, 0x80000000, 0x13, 0xF, fault=(1, 4, 0, 0, 0x80000000, 0x13, 0, 1,
                                                            reason))
            w.finish(2, 0, 2, fault=(1, 4, 0, 0, 0x80000000, 0x13, 0, 1, reason))
            return self.write(name, w.build(image_name=image_name))
        reason = "caf\u00e9 \u20ac ".encode() + b"\xff!"
        shown = "caf\u00e9 \u20ac \ufffd!"
        t = trace("utf8.vxt", reason, "k\u00e9rnel\u20ac".encode() + b"\xfe.bin")
        self.same(t, what="a reason with UTF-8 and a byte that is not")
        dump = vxtest.prog("vxdump")
        rc, out = self.run_bytes([dump, "--json", t])
        self.assertEqual(rc, 0)
        self.assertIn('"reason":"%s"' % shown, out)
        self.assertNotIn("\\u00", out)
        self.assertEqual([json.loads(line)["fault"]["reason"] for line in out.splitlines()],
                         [shown, shown])
        rc, out = self.run_bytes([dump, "--summary", "--json", t])
        self.assertEqual(rc, 0)
        self.assertEqual(json.loads(out)["kernel"]["name"], "k\u00e9rnel\u20ac\ufffd.bin")
        rc, out = self.run_bytes([dump, "--timeline", "-", t])
        self.assertEqual(rc, 0)
        self.assertIn(shown, json.dumps(json.loads(out), ensure_ascii=False))
        # a cut UTF-8 sequence: one U+FFFD per byte
        rc, out = self.run_bytes([dump, "--json", "--kind", "end", trace("cut.vxt", b"\xe2\x82x")])
        self.assertEqual(json.loads(out)["fault"]["reason"], "\ufffd\ufffdx")
        # vxdiff: the reasons differ
        other = trace("other.vxt", "caf\u00e9 \u20ac ".encode() + b"\xff?")
        rc, out = self.run_bytes([vxtest.prog("vxdiff"), "--json", t, other])
        self.assertEqual(rc, 1)
        self.assertIn(shown, out)
        for line in out.splitlines():
            json.loads(line)

    def rebuilt(self, name, edit):
        """Trace `name` (uncompressed) rebuilt from its chunks as [type, key, payload] lists
        that edit may change, without its DIGEST chunks (the INDEX lists none)."""
        data = self.read(name)
        tr = vxt_spec.Trace(data)
        parts, off = [], 16
        while off < tr.prologue_end:
            c = tr._chunk_header(off)
            parts.append([c.type, c.key, tr.payload(c)])
            off = c.end
        parts += [[c.type, c.key, tr.payload(c)] for c in tr.chunks
                  if c.type not in (vxt_spec.CH_INDEX, vxt_spec.CH_DIGEST)]
        edit(parts)
        totals = {k: tr.index[k] for k in ("issues", "records", "cycle", "end_status", "raw_size")}
        return assemble(tr.minor, [tuple(x) for x in parts], totals)

    def test_unknown_records_before_a_keyframe(self):
        """section 8.3: records of unknown kinds are no events, also where they are the last
        records of the EVENTS chunk before a keyframe, or the only ones of an EVENTS chunk
        there: vxrec --verify checks the keyframe where it sits (it took them for events and
        checked the keyframe at the next event, one chunk later) and the simulator agrees"""
        def first_keyframe_part(parts):
            return next(i for i, x in enumerate(parts) if x[0] in (vxt_spec.CH_PAGES, vxt_spec.CH_PAGES2) and x[1])

        def at_end(parts):
            i = first_keyframe_part(parts)
            self.assertEqual(parts[i - 1][0], vxt_spec.CH_EVENTS)
            parts[i - 1][2] += b"\x90\x02hi" + b"\xff\x00"

        def alone(parts):
            i = first_keyframe_part(parts)
            parts.insert(i, [vxt_spec.CH_EVENTS, parts[i][1], b"\x82\x01x"])

        for what, edit in (("at the end of a chunk", at_end), ("alone in a chunk", alone)):
            t = self.write("unknown-kf.vxt", self.rebuilt("vecadd-raw", edit))
            s = self.spec(t, keyframes=True)
            self.assertEqual(s.returncode, 0, what + ": " + s.stderr)
            v = vxtest.run([vxtest.prog("vxrec"), "--verify", t])
            self.assertEqual(v.returncode, 0, what + ": " + v.stderr)
            self.assertIn("verified", v.stderr)

    def test_newer_minor_note(self):
        """section 3.1: a trace of a newer minor version reads, and vxdump, vxdiff,
        vxreplay and vxrec --verify say once on stderr that what they do not know is
        skipped; the exit status is unchanged"""
        note = r"^%s: note: %s is trace format 1\.7, newer than this program's 1\.(\d+); " \
               r"anything added since 1\.\1 is skipped$"
        t = self.write("minor7.vxt", small_writer(minor=7).build(
            after_events=chunk(42, 0, b"future"), index_tail=b"\x01"))
        old = self.write("minor1.vxt", small_writer().build())
        for check in (False, True):
            d = self.dump(t, check=check)
            self.assertEqual(d.returncode, 0, d.stderr)
            self.assertRegex(d.stderr, note % ("vxdump", t))
            self.assertEqual(len(d.stderr.splitlines()), 1, d.stderr)
            d = self.dump(old, check=check)
            self.assertEqual((d.returncode, d.stderr), (0, ""))
        diff = vxtest.prog("vxdiff")
        for a, b, notes in ((t, t, 1), (t, old, 1), (old, old, 0)):
            r = vxtest.run([diff, a, b])
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(len(r.stderr.splitlines()), notes, r.stderr)
            if notes:
                self.assertRegex(r.stderr, note % ("vxdiff", t))
        r = vxtest.run([diff, "-q", t, t])
        self.assertEqual((r.returncode, r.stderr), (0, ""))
        # a recorded trace given a newer minor version replays, with the note
        data = bytearray(self.read("hello-a"))
        struct.pack_into("<H", data, 10, 7)
        struct.pack_into("<I", data, 12, vxt_spec.crc32c(bytes(data[:12])))
        t = self.write("hello-minor7.vxt", bytes(data))
        self.assertEqual(self.dump(t).stdout, self.dump(self.traces["hello-a"]).stdout)
        r = vxtest.run([vxtest.prog("vxreplay"), "--stdio", t], input="")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(len([x for x in r.stderr.splitlines() if "note:" in x]), 1, r.stderr)
        self.assertRegex(r.stderr.splitlines()[0], note % ("vxreplay", t))
        r = vxtest.run([vxtest.prog("vxrec"), "--verify", t])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stderr.splitlines()[0], note % ("vxrec", t))
        self.assertIn("verified", r.stderr)

    def test_errors(self):
        """a missing file and a file that is not a trace: exit 2 with a message"""
        for p in (os.path.join(self.dir, "missing.vxt"),
                  self.write("x.vxt", b"not a trace at all")):
            d, s = self.dump(p), self.spec(p)
            self.assertEqual((d.returncode, s.returncode), (2, 2))
            self.assertTrue(s.stderr)


if __name__ == "__main__":
    vxtest.main(FormatSpec)
