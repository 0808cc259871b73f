#!/usr/bin/env python3
"""vxt_spec - a clean-room reader of vxrr traces (.vxt), written from the documents only:
trace-format/FORMAT.md (format 1.1), sim/STATE.md (keyframe state) and
tools/vxdump/SCHEMA.md (the JSON shape of `vxdump --json`).

No project source was read to write it.  The places where the documents first did not
say enough (the "SPEC GAP" notes of its first version, settled then by looking at the
bytes vxrec writes and at what vxdump prints for them) are now specified; each is marked
with a comment naming the section that specifies it (e.g. `# FORMAT.md §7.4 (table)`).

Usage: python3 vxt_spec.py [--keyframes] TRACE
  prints one JSON object per event, as `vxdump --json` does, without the keys
  "disasm", "symbol", "source" and the commit "name".
  --keyframes  also decode every keyframe's state (sim/STATE.md) and cross-check it with
               the state rebuilt from the event stream.
exit status: 0 complete trace; 1 cut off (every event up to the last complete EVENTS
chunk was printed); 2 unreadable or corrupt (message on stderr); 3 a keyframe does not
match the event stream (--keyframes).

Python 3.11 standard library only; LZ4 through ctypes on the system liblz4.
"""
import ctypes
import ctypes.util
import json
import struct
import sys

# --------------------------------------------------------------------------------------
# errors


class VxtError(Exception):
    """A trace that cannot be read.  kind: FORMAT, VERSION, CORRUPT, TRUNC."""
    status = 2

    def __init__(self, kind, msg):
        super().__init__(msg)
        self.kind = kind


class Mismatch(Exception):
    """A keyframe that disagrees with the event stream (--keyframes)."""
    status = 3


def corrupt(msg):
    return VxtError("CORRUPT", msg)


# --------------------------------------------------------------------------------------
# CRC-32C (FORMAT.md section 2): reflected polynomial 0x82F63B78, init and final XOR
# 0xFFFFFFFF.  Slicing-by-4 tables for speed (plain Python).


def _crc_tables():
    t0 = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ (0x82F63B78 if c & 1 else 0)
        t0.append(c)
    t1 = [(t0[c & 0xFF] ^ (c >> 8)) for c in t0]
    t2 = [(t0[c & 0xFF] ^ (c >> 8)) for c in t1]
    t3 = [(t0[c & 0xFF] ^ (c >> 8)) for c in t2]
    return t0, t1, t2, t3


_T0, _T1, _T2, _T3 = _crc_tables()


def crc32c(data):
    t0, t1, t2, t3 = _T0, _T1, _T2, _T3
    crc = 0xFFFFFFFF
    n = len(data)
    n4 = n & ~3
    if n4:
        for (w,) in struct.iter_unpack("<I", memoryview(data)[:n4]):
            crc ^= w
            crc = t3[crc & 0xFF] ^ t2[(crc >> 8) & 0xFF] ^ t1[(crc >> 16) & 0xFF] ^ t0[crc >> 24]
    for i in range(n4, n):
        crc = t0[(crc ^ data[i]) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


assert crc32c(b"123456789") == 0xE3069283

# --------------------------------------------------------------------------------------
# LZ4 block decompression through the system liblz4

_lz4 = None


def lz4_block_decompress(src, raw_len):
    global _lz4
    if _lz4 is None:
        name = ctypes.util.find_library("lz4")
        if not name:
            raise VxtError("CORRUPT", "liblz4 not found: cannot decompress")
        _lz4 = ctypes.CDLL(name)
        _lz4.LZ4_decompress_safe.restype = ctypes.c_int
        _lz4.LZ4_decompress_safe.argtypes = [ctypes.c_char_p, ctypes.c_char_p,
                                             ctypes.c_int, ctypes.c_int]
    dst = ctypes.create_string_buffer(max(raw_len, 1))
    n = _lz4.LZ4_decompress_safe(bytes(src), dst, len(src), raw_len)
    if n != raw_len:
        return None
    return dst.raw[:raw_len]


# --------------------------------------------------------------------------------------
# primitive encodings (FORMAT.md section 2).  The decoders work on a bytes object and a
# position; reading past its end raises IndexError, which the callers turn into a
# corruption report naming the chunk.

M32 = 0xFFFFFFFF
M64 = (1 << 64) - 1


def rvarint(b, p):
    x = b[p]
    if x < 0x80:
        return x, p + 1
    v = x & 0x7F
    shift = 7
    p += 1
    while True:
        x = b[p]
        p += 1
        v |= (x & 0x7F) << shift
        if x < 0x80:
            break
        shift += 7
        if shift >= 70:
            raise ValueError("varint longer than 10 bytes")
    if v > M64:
        raise ValueError("varint does not fit 64 bits")
    # FORMAT.md §2 (varint): a longer form than the shortest (e.g. 0x80 0x00) is not an
    # error in itself; a reader MAY reject it.  This reader accepts it, as libvxtrace
    # does (only length > 10 bytes and range are errors).
    return v, p


def utf8_lossy(b):
    """bytes -> str as SCHEMA.md (Strings) says: valid UTF-8 (RFC 3629) kept, every
    other byte replaced by one U+FFFD."""
    s = bytes(b).decode("utf-8", "surrogateescape")
    return "".join("\ufffd" if "\udc80" <= ch <= "\udcff" else ch for ch in s)


def rvar32(b, p):
    v, p = rvarint(b, p)
    if v > M32:
        raise ValueError("varint exceeds 32 bits")
    return v, p


def rsv32(b, p):
    """svarint32 difference -> signed int (-2^31 .. 2^31-1)."""
    z, p = rvarint(b, p)
    if z > M32:
        raise ValueError("svarint32 exceeds 32 bits")
    return (z >> 1) ^ -(z & 1), p


def rsv64(b, p):
    z, p = rvarint(b, p)
    return (z >> 1) ^ -(z & 1), p


# --------------------------------------------------------------------------------------
# names used by vxdump --json
#
# The codes and the names the JSON gives them: FORMAT.md §7.4 (table: warp-control
# kinds), §7.6 (table: fault kinds and their signals), §8.1 (tables: DM ops, DM
# registers), §8.2 (table: END statuses); SCHEMA.md ("Names of codes").  (First learnt
# by feeding vxdump hand-made traces with every code, tests/t4004-format-spec.py,
# test_code_tables, which still checks them.)

WCTL_KINDS = {1: "tmask", 2: "activate", 3: "deactivate", 4: "ipdom-push", 5: "ipdom-pop",
              6: "ipdom-else", 7: "spawn-wait", 8: "bar-arrive", 9: "bar-release",
              10: "stall", 11: "unstall"}
FAULT_KINDS = {0: "none", 1: "illegal", 2: "csr", 3: "misaligned", 4: "unmapped",
               5: "divergent", 6: "ipdom-overflow", 7: "ipdom-underflow", 8: "barrier",
               9: "wspawn", 10: "ecall", 11: "ebreak", 12: "deadlock", 13: "console"}
DM_OPS = {1: "read", 2: "write", 3: "halt", 4: "resume", 5: "reset", 6: "set-pc",
          7: "scratch", 8: "inject-reject"}
# FORMAT.md §8.1 (register table); SCHEMA.md (dm: "reg").
DM_REGS = {0: "platform", 1: "dconfig", 2: "dselect", 3: "wmask", 4: "wactive",
           5: "wstatus", 6: "dctrl", 7: "dpc", 8: "inject", 9: "dscratch0",
           10: "dscratch1", 11: "dscratch2", 12: "dscratch3"}
END_STATUS = {1: "exit", 2: "fault", 3: "limit", 4: "abort"}
# SCHEMA.md (issue: "fault", signame): these signal numbers have a name (12, the
# ecall fault's, is GDB's SIGSYS; FORMAT.md §7.6), every other one is "SIG?".
SIGNALS = {4: "SIGILL", 5: "SIGTRAP", 6: "SIGABRT", 7: "SIGBUS", 8: "SIGFPE", 11: "SIGSEGV",
           12: "SIGSYS"}
# SCHEMA.md ("Names of codes"): "unknown" for a code outside the tables (wctl kinds,
# fault kinds, with "none" for fault kind 0, DM ops, END statuses), "reg?" for a DM
# register address above 12, "SIG?" for a signal without a name.
UNKNOWN = "unknown"


# --------------------------------------------------------------------------------------
# chunks (FORMAT.md section 4)

CH_HEADER, CH_IMAGE, CH_LOAD, CH_EVENTS, CH_PAGES, CH_KEYFRAME, CH_INDEX, CH_DIGEST, \
    CH_PAGES2, CH_KEYFRAME2 = range(1, 11)
CHUNK_NAMES = {1: "HEADER", 2: "IMAGE", 3: "LOAD", 4: "EVENTS", 5: "PAGES", 6: "KEYFRAME",
               7: "INDEX", 8: "DIGEST", 9: "PAGES2", 10: "KEYFRAME2"}
MAGIC = b"\x89VXT\r\n\x1a\n"
TRAILER_MAGIC = b"VXTE"


class Chunk:
    __slots__ = ("off", "type", "flags", "stored", "raw", "key", "pcrc", "end")

    def __init__(self, off, t, flags, stored, raw, key, pcrc):
        self.off, self.type, self.flags, self.stored, self.raw, self.key, self.pcrc = \
            off, t, flags, stored, raw, key, pcrc
        self.end = off + 28 + stored

    def name(self):
        return CHUNK_NAMES.get(self.type, "type %d" % self.type)

    def where(self):
        return "%s chunk at offset %d" % (self.name(), self.off)


class Trace:
    """A parsed trace: prologue, chunk lists, and lazily decoded payloads."""

    def __init__(self, data, path="trace"):
        self.data = data
        self.path = path
        self.notes = []
        self.incomplete = False
        self.cut_reason = None
        self._open()

    # ---- low level

    def _chunk_header(self, off, what=None):
        """Parse the chunk header at off.  Returns a Chunk, or None when the header is cut
        off by the end of the file."""
        d = self.data
        if off + 28 > len(d):
            return None
        t, flags, res, stored, raw, key, pcrc, hcrc = struct.unpack_from("<BBHIIQII", d, off)
        if crc32c(d[off:off + 24]) != hcrc:
            raise corrupt("chunk header at offset %d: bad header CRC" % off)
        if t == 0:
            raise corrupt("chunk header at offset %d: chunk type 0" % off)
        if flags & 0xFE or res:
            raise corrupt("chunk header at offset %d: reserved bits set" % off)
        if raw > 0x7E000000:
            raise corrupt("chunk at offset %d: raw_len %d too large" % (off, raw))
        if flags & 1:
            if raw > 255 * stored + 1024:
                raise corrupt("chunk at offset %d: raw_len %d impossible for LZ4 block of "
                              "%d bytes" % (off, raw, stored))
        elif stored != raw:
            raise corrupt("chunk at offset %d: uncompressed but stored_len %d != raw_len %d"
                          % (off, stored, raw))
        # FORMAT.md §14, §11: stored_len has no limit of its own; a payload that runs past
        # the end of the file is a cut (checked by the callers), not corruption.
        return Chunk(off, t, flags, stored, raw, key, pcrc)

    def payload(self, c):
        d = self.data
        if c.end > len(d):
            raise VxtError("TRUNC", "%s: payload cut off" % c.where())
        st = d[c.off + 28:c.end]
        if crc32c(st) != c.pcrc:
            raise corrupt("%s: payload CRC mismatch" % c.where())
        if c.flags & 1:
            out = lz4_block_decompress(st, c.raw)
            if out is None:
                raise corrupt("%s: LZ4 block does not decompress to %d bytes"
                              % (c.where(), c.raw))
            return out
        return bytes(st)

    # ---- opening

    def _open(self):
        d = self.data
        if len(d) < 16:
            # FORMAT.md §3.1: a file shorter than the signature is a cut (VX_ERR_TRUNC)
            # when its first min(n, 8) bytes begin the magic (an empty file too), else
            # not a vxrr trace.  Both exit 2.
            if MAGIC.startswith(bytes(d[:8])) or d[:8] == MAGIC:
                raise VxtError("TRUNC", "cut off in the signature (%d bytes)" % len(d))
            raise VxtError("FORMAT", "not a vxrr trace")
        if d[:8] != MAGIC:
            raise VxtError("FORMAT", "not a vxrr trace (bad magic at offset 0)")
        major, minor, crc = struct.unpack_from("<HHI", d, 8)
        if crc32c(d[:12]) != crc:
            raise corrupt("signature at offset 0: bad CRC")
        if major != 1:
            raise VxtError("VERSION", "format version %d.%d not supported (major 1 only)"
                           % (major, minor))
        self.major, self.minor = major, minor
        self.skipped_unknown = False
        # prologue: HEADER first, then IMAGE, then the LOADs (unknown chunk types may
        # appear anywhere after the HEADER)
        off = 16
        c = self._prologue_chunk(off)
        if c.type != CH_HEADER:
            raise corrupt("%s: the first chunk must be HEADER" % c.where())
        if c.key != 0:
            raise corrupt("%s: key must be 0" % c.where())
        self._parse_header(self.payload(c), c)
        off = c.end
        c = self._prologue_skip_unknown(off)
        if c.type != CH_IMAGE or c.key != 0:
            raise corrupt("%s: expected the IMAGE chunk (key 0)" % c.where())
        self.image = self.payload(c)
        if len(self.image) != self.image_size:
            raise corrupt("%s: %d bytes, the IMAGE tag says %d"
                          % (c.where(), len(self.image), self.image_size))
        off = c.end
        self.load_data = []
        for i, (addr, size, name) in enumerate(self.loads):
            c = self._prologue_skip_unknown(off)
            if c.type != CH_LOAD or c.key != i:
                raise corrupt("%s: expected LOAD chunk %d" % (c.where(), i))
            p = self.payload(c)
            if len(p) != size:
                raise corrupt("%s: %d bytes, the LOAD tag says %d" % (c.where(), len(p), size))
            self.load_data.append(p)
            off = c.end
        self.prologue_end = off
        self._locate()

    def _prologue_chunk(self, off):
        c = self._chunk_header(off)
        if c is None or c.end > len(self.data):
            # section 5.2: a file cut off before the end of the prologue cannot be opened
            raise VxtError("TRUNC", "cut off in the prologue (offset %d)" % off)
        return c

    def _prologue_skip_unknown(self, off):
        while True:
            c = self._prologue_chunk(off)
            if c.type <= 10:
                return c
            # FORMAT.md §5.2: the prologue is read whole, unknown chunks included, and
            # checked (CRCs, decompression)
            self._check_unknown(c)
            self.payload(c)
            off = c.end

    def _check_ignored(self, c):
        # FORMAT.md §4, §11.1: a DIGEST chunk that is ignored is not an error, but a full
        # validation checks its payload CRC.
        if c.end <= len(self.data) and crc32c(self.data[c.off + 28:c.end]) != c.pcrc:
            raise corrupt("%s: payload CRC mismatch" % c.where())

    def _check_unknown(self, c):
        # FORMAT.md §4: unknown chunk types are skipped; their CRCs SHOULD still be
        # checked, and a CRC that fails is corruption (a full validation, §11.1, MUST
        # report it).  This reader checks every one.
        self.skipped_unknown = True
        if c.end <= len(self.data) and crc32c(self.data[c.off + 28:c.end]) != c.pcrc:
            raise corrupt("%s: payload CRC mismatch" % c.where())

    def _parse_header(self, p, c):
        seen = set()
        self.platform = None
        self.mem_limit = 0
        self.start_pc = None
        self.arg = 0
        self.max_cycles = 0
        self.kf_interval = None
        self.image_kind = self.image_size = self.image_name = None
        self.loads = []
        self.sim_version = None
        self.hflags = 0
        pos = 0
        try:
            while pos < len(p):
                tag, pos = rvarint(p, pos)
                ln, pos = rvarint(p, pos)
                if pos + ln > len(p):
                    raise corrupt("%s: tag %d runs past the payload" % (c.where(), tag))
                v = p[pos:pos + ln]
                pos += ln
                if tag in seen and 1 <= tag <= 10 and tag != 8:
                    # FORMAT.md §5.1: a tag of the table (but LOAD) that appears twice is
                    # corruption; an unknown tag may repeat.
                    raise corrupt("%s: tag %d repeated" % (c.where(), tag))
                seen.add(tag)
                q = 0
                # FORMAT.md §5.1: bytes after the known fields of a tag's value are
                # ignored; known fields that run past the value are corruption.
                if tag == 1:
                    cl, q = rvarint(v, q)
                    co, q = rvarint(v, q)
                    wa, q = rvarint(v, q)
                    th, q = rvarint(v, q)
                    # FORMAT.md §5.1 (PLATFORM) and §14: clusters 1..127, cores 1..511,
                    # warps 1..511, threads a power of two in 1..128, clusters x cores x
                    # warps <= 32768; any other shape is corruption.
                    if not (1 <= cl <= 127 and 1 <= co <= 511 and 1 <= wa <= 511 and
                            1 <= th <= 128 and th & (th - 1) == 0 and cl * co * wa <= 32768):
                        raise corrupt("%s: bad PLATFORM %dx%dx%dx%d" % (c.where(), cl, co, wa, th))
                    self.platform = (cl, co, wa, th)
                elif tag == 2:
                    self.mem_limit, q = rvarint(v, q)
                elif tag == 3:
                    self.start_pc, q = rvar32(v, q)
                elif tag == 4:
                    self.arg, q = rvar32(v, q)
                elif tag == 5:
                    self.max_cycles, q = rvarint(v, q)
                elif tag == 6:
                    self.kf_interval, q = rvarint(v, q)
                elif tag == 7:
                    self.image_kind = v[0]
                    q = 1
                    self.image_size, q = rvarint(v, q)
                    self.image_name, q = self._string(v, q, c)
                    # FORMAT.md §15.1: an unknown code (here an IMAGE kind) is passed on,
                    # never reported as corruption; the image cannot then be loaded
                    # (--keyframes says so).
                    if self.image_kind not in (1, 2, 3):
                        self.notes.append("%s: unknown image kind %d"
                                          % (c.where(), self.image_kind))
                elif tag == 8:
                    a, q = rvar32(v, q)
                    s, q = rvarint(v, q)
                    nm, q = self._string(v, q, c)
                    self.loads.append((a, s, nm))
                elif tag == 9:
                    self.sim_version, q = self._string(v, q, c)
                elif tag == 10:
                    self.hflags, q = rvarint(v, q)
                else:
                    self.skipped_unknown = True
                if q > len(v):
                    raise IndexError
        except IndexError:
            raise corrupt("%s: a field runs past its value" % c.where())
        except ValueError as e:
            raise corrupt("%s: %s" % (c.where(), e))
        if self.platform is None or self.start_pc is None or self.image_kind is None:
            raise corrupt("%s: a required tag (PLATFORM, START_PC, IMAGE) is missing"
                          % c.where())
        cl, co, wa, th = self.platform
        self.C = cl * co
        self.W = wa
        self.T = th
        self.LB = (th + 7) // 8

    def _string(self, v, q, c):
        n, q = rvarint(v, q)
        if n > 4096 or q + n > len(v):
            raise corrupt("%s: bad string length %d" % (c.where(), n))
        s = bytes(v[q:q + n])
        if b"\0" in s:
            raise corrupt("%s: NUL in a string" % c.where())
        return utf8_lossy(s), q + n

    # ---- chunk list: scan (section 11), and the index when there is a trailer

    def _locate(self):
        d = self.data
        self.index = None
        trailer_ok = False
        if len(d) >= self.prologue_end + 16 + 28:
            io, tcrc = struct.unpack_from("<QI", d, len(d) - 16)
            if d[-4:] == TRAILER_MAGIC and crc32c(d[len(d) - 16:len(d) - 8]) == tcrc:
                trailer_ok = True
                # section 11: complete when the trailer's offset designates a valid INDEX
                # chunk ending at the trailer; "a file with a trailer whose INDEX chunk is
                # damaged is corrupt, not incomplete".
                if io < self.prologue_end or io + 28 > len(d) - 16:
                    raise corrupt("trailer: INDEX offset %d out of range" % io)
                c = self._chunk_header(io)
                if c.type != CH_INDEX or c.end != len(d) - 16:
                    raise corrupt("trailer: the chunk at offset %d is not an INDEX chunk "
                                  "ending at the trailer" % io)
                self.index = self._parse_index(self.payload(c), c)
                self.index_chunk = c
        # The reader scans every file, complete or not, and (for a complete one)
        # cross-checks what it found with the INDEX: the INDEX is trusted for nothing.
        self._scan(trailer_ok)
        if self.index is not None:
            self._check_index()

    def _scan(self, trailer_ok):
        d = self.data
        n = len(d)
        off = self.prologue_end
        self.chunks = []          # every chunk after the prologue, in file order
        self.events = []          # EVENTS chunks
        self.digest_of = {}       # EVENTS chunk offset -> DIGEST chunk
        self.keyframes = []       # (KEYFRAME chunk, [PAGES chunks], kind 1 or 2)
        pending_pages = []
        kf_kind = None
        index_chunk = None
        prev = None
        while True:
            if off == n:
                self._cut("the file ends after the chunk at offset %d without an INDEX" % off
                          if prev else "the file ends after the prologue")
                break
            if off + 28 > n:
                # a partial chunk header at the very end of the file is a cut
                self._cut("a chunk header at offset %d is cut off" % off)
                break
            c = self._chunk_header(off)
            if c.end > n:
                self._cut("%s runs past the end of the file" % c.where())
                break
            t = c.type
            if t == CH_INDEX:
                index_chunk = c
                rest = n - c.end
                if rest < 16:
                    self._cut("the trailer after the INDEX chunk at offset %d is cut off"
                              % c.off)
                    self._partial_index = c
                    break
                if rest > 16 or not trailer_ok:
                    raise corrupt("%s: not followed by a valid trailer" % c.where())
                if pending_pages:
                    # FORMAT.md §9, §11.1: PAGES chunks without their KEYFRAME only count as
                    # nothing at the cut of an incomplete trace; anywhere else they are
                    # corruption, which a full validation MUST report (this reader
                    # validates every file it reads).
                    raise corrupt("%s: PAGES chunks at offset %d without their KEYFRAME"
                                  % (c.where(), pending_pages[0].off))
                self.chunks.append(c)
                break
            if t > 10 or (self.minor == 0 and t >= CH_DIGEST):
                # FORMAT.md §4 (last paragraph): a 1.1 reader MAY skip chunk types 8..10
                # in a 1.0 file as unknown, as a 1.0 reader does; this reader does
                # (libvxtrace reads them as in 1.1 instead).
                self._check_unknown(c)
            elif t == CH_EVENTS:
                if pending_pages:
                    # FORMAT.md §9, §11.1 (PAGES chunks not followed by their KEYFRAME)
                    raise corrupt("%s: PAGES chunks at offset %d without their KEYFRAME"
                                  % (c.where(), pending_pages[0].off))
                self.events.append(c)
            elif t == CH_DIGEST:
                # FORMAT.md §10.3: attached to the EVENTS chunk immediately before it when
                # the keys are equal, ignored otherwise; an ignored DIGEST chunk is not an
                # error wherever it sits (FORMAT.md §4, the exception to misplaced chunk
                # types).  In a complete trace the INDEX decides (_check_index).
                if prev is not None and prev.type == CH_EVENTS and prev.key == c.key:
                    self.digest_of[prev.off] = c
                else:
                    self._check_ignored(c)
                    self.notes.append("%s ignored (no EVENTS chunk with its key before it)"
                                      % c.where())
            elif t in (CH_PAGES, CH_PAGES2):
                kind = 1 if t == CH_PAGES else 2
                if pending_pages and (pending_pages[0].type != t or pending_pages[0].key != c.key):
                    raise corrupt("%s: does not continue the PAGES chunks before it" % c.where())
                if kf_kind is not None and kf_kind != kind:
                    raise corrupt("%s: keyframes of both kinds (1.0 and 1.1) in one file"
                                  % c.where())
                pending_pages.append(c)
            elif t in (CH_KEYFRAME, CH_KEYFRAME2):
                kind = 1 if t == CH_KEYFRAME else 2
                if kf_kind is not None and kf_kind != kind:
                    raise corrupt("%s: keyframes of both kinds (1.0 and 1.1) in one file"
                                  % c.where())
                kf_kind = kind
                want = CH_PAGES if kind == 1 else CH_PAGES2
                for pc in pending_pages:
                    if pc.type != want or pc.key != c.key:
                        raise corrupt("%s: PAGES chunk at offset %d does not belong to it"
                                      % (c.where(), pc.off))
                self.keyframes.append((c, pending_pages, kind))
                pending_pages = []
            else:
                # HEADER, IMAGE, LOAD after the prologue
                raise corrupt("%s: not allowed after the prologue" % c.where())
            self.chunks.append(c)
            prev = c
            off = c.end
        self.kf_kind = kf_kind
        self.index_chunk_scanned = index_chunk
        if self.incomplete and pending_pages:
            self.notes.append("keyframe at index %d lost (cut before its KEYFRAME chunk)"
                              % pending_pages[0].key)
        # EVENTS chunk keys must chain (checked while decoding, against the index reached)

    def _cut(self, why):
        self.incomplete = True
        self.cut_reason = why

    def _parse_index(self, p, c):
        ix = {}
        try:
            q = 0
            ix["issues"], q = rvarint(p, q)
            ix["records"], q = rvarint(p, q)
            ix["cycle"], q = rvarint(p, q)
            ix["end_status"] = p[q]
            q += 1
            n, q = rvarint(p, q)
            if n > len(p):
                raise corrupt("%s: chunk count %d too large" % (c.where(), n))
            chunks, key, offv = [], 0, 0
            for _ in range(n):
                dk, q = rvarint(p, q)
                do, q = rvarint(p, q)
                key += dk
                offv += do
                chunks.append((key, offv))
            ix["chunks"] = chunks

            def kflist(q):
                n, q = rvarint(p, q)
                if n > len(p):
                    raise corrupt("%s: keyframe count %d too large" % (c.where(), n))
                out, idx, offv = [], 0, 0
                for _ in range(n):
                    di, q = rvarint(p, q)
                    do, q = rvarint(p, q)
                    first, q = rvarint(p, q)
                    cyc, q = rvarint(p, q)
                    idx += di
                    offv += do
                    out.append((idx, offv, first, cyc))
                return out, q
            ix["keyframes"], q = kflist(q)
            ix["raw_size"], q = rvarint(p, q)
            ix["keyframes2"] = []
            ix["digests"] = None
            # FORMAT.md §10.1 (after the table): the payload may end here in a file of
            # any minor version, and both 1.1 lists are then empty.  In a 1.0 file the
            # bytes after raw_size are not defined and this reader ignores them (MAY).
            if self.minor >= 1 and q < len(p):
                ix["keyframes2"], q = kflist(q)
                nd, q = rvarint(p, q)
                if nd not in (0, n):
                    raise corrupt("%s: %d digest offsets for %d EVENTS chunks"
                                  % (c.where(), nd, n))
                ds = []
                for _ in range(nd):
                    v, q = rvarint(p, q)
                    ds.append(v)
                ix["digests"] = ds
            if q > len(p):
                raise IndexError
            if q < len(p):
                self.skipped_unknown = True
        except IndexError:
            raise corrupt("%s: the index runs past its payload" % c.where())
        except ValueError as e:
            raise corrupt("%s: %s" % (c.where(), e))
        if ix["keyframes"] and ix["keyframes2"]:
            raise corrupt("%s: keyframes in both lists" % c.where())
        return ix

    def _check_index(self):
        ix = self.index
        c = self.index_chunk

        def bad(what):
            raise corrupt("%s: %s does not match the chunks in the file" % (c.where(), what))
        if [(e.key, e.off) for e in self.events] != ix["chunks"]:
            bad("the EVENTS chunk list")
        kfs = [(k.key, k.off, (k.off - pg[0].off) if pg else 0) for k, pg, kind in self.keyframes]
        if self.minor >= 1 and self.kf_kind == 1 or self.minor == 0:
            listed, other = ix["keyframes"], ix["keyframes2"]
        else:
            listed, other = ix["keyframes2"], ix["keyframes"]
        if other:
            bad("the keyframe list of the other kind")
        # FORMAT.md §11.1: keyframe chunks the INDEX does not list, and listed ones that
        # are missing, are corruption, which a full validation MUST report (a reader that
        # trusts the INDEX never sees unlisted ones, §11).
        if [(i, o, f) for i, o, f, cy in listed] != kfs:
            bad("the keyframe list")
        self.index_kf_cycles = [cy for i, o, f, cy in listed]
        # FORMAT.md §10.1 (last paragraph), §10.3: in a complete trace the INDEX decides
        # which DIGEST chunks are used: one it does not list is ignored, even right after
        # its EVENTS chunk, and one it lists must be a DIGEST chunk with the EVENTS
        # chunk's key before the next EVENTS chunk.
        listed = ix["digests"] or [0] * len(self.events)
        by_off = {c.off: c for c in self.chunks}
        digest_of = {}
        for i, (e, d) in enumerate(zip(self.events, listed)):
            if d == 0:
                if e.off in self.digest_of:
                    self._check_ignored(self.digest_of[e.off])
                    self.notes.append("%s not listed in the INDEX: ignored"
                                      % self.digest_of[e.off].where())
                continue
            dc = by_off.get(e.off + d)
            nxt = self.events[i + 1].off if i + 1 < len(self.events) else c.off
            if dc is None or dc.type != CH_DIGEST or dc.key != e.key or not e.off < dc.off < nxt:
                bad("the DIGEST offset of the EVENTS chunk at offset %d" % e.off)
            digest_of[e.off] = dc
        self.digest_of = digest_of


# --------------------------------------------------------------------------------------
# the record stream (FORMAT.md sections 6-8)


def branch_target(insn, pc):
    op = insn & 0x7F
    if op == 0x63:
        imm = (((insn >> 31) & 1) << 12) | (((insn >> 7) & 1) << 11) | \
              (((insn >> 25) & 0x3F) << 5) | (((insn >> 8) & 0xF) << 1)
        if imm & 0x1000:
            imm -= 0x2000
        return (pc + imm) & M32
    if op == 0x6F:
        imm = (((insn >> 31) & 1) << 20) | (((insn >> 12) & 0xFF) << 12) | \
              (((insn >> 20) & 1) << 11) | (((insn >> 21) & 0x3FF) << 1)
        if imm & 0x100000:
            imm -= 0x200000
        return (pc + imm) & M32
    return None


class Digest:
    """What section 10.3 records about one EVENTS chunk, computed from its records."""
    __slots__ = ("issues", "flags", "wlo", "whi", "pcs", "pages", "warps")

    def __init__(self):
        self.issues = 0
        self.flags = 0
        self.wlo = M32 + 1
        self.whi = -1
        self.pcs = set()
        self.pages = set()
        self.warps = set()


class EventDecoder:
    """Decodes EVENTS chunk payloads into vxdump-shaped event dicts."""

    def __init__(self, tr):
        self.tr = tr
        self.C, self.W, self.T, self.LB = tr.C, tr.W, tr.T, tr.LB
        self.all_lanes = (1 << tr.T) - 1
        self.lane_bits = [1 << i for i in range(tr.T)]
        self.raw_size = 0
        self.issues = 0
        self.records = 0
        self.end = None
        self.observers = []

    def lanes_of(self, m):
        return [i for i in range(self.T) if m >> i & 1]

    def decode_chunk(self, payload, key, where):
        """Yield the events of one EVENTS chunk; self.digest is its computed digest."""
        C, W, T, LB = self.C, self.W, self.T, self.LB
        allm = self.all_lanes
        b = payload
        n = len(b)
        # predictor state, reset for every chunk (section 6.1); sparse dicts with the
        # documented reset values as defaults
        cur_cycle = 0
        last_core = C - 1
        next_core = {}
        last_warp = {}
        next_warp = {}
        next_pc = {}
        target = {}
        mask = {}
        regs = {}
        mem_base = {}
        mem_stride = {}
        icache = {}
        index = key
        dg = Digest()
        self.digest = dg
        raw = 0
        p = 0
        out_events = []
        try:
            while p < n:
                rec_at = p
                self.last_record_start = p
                H = b[p]
                p += 1
                if H >= 0x80:
                    ln, p = rvarint(b, p)
                    if p + ln > n:
                        raise corrupt("%s: record at payload offset %d runs past the chunk"
                                      % (where, rec_at))
                    body = b[p:p + ln]
                    p += ln
                    self.records += 1
                    if H == 0x80:
                        ev, cur_cycle = self._dm(body, index, cur_cycle, where)
                        dg.flags |= 1
                        raw += 26
                        out_events.append(ev)
                    elif H == 0x81:
                        ev = self._end(body, index, cur_cycle, where)
                        dg.flags |= 4
                        raw += 13 + (118 + LB if ev["fault"] is not None else 0)
                        out_events.append(ev)
                        if p != n:
                            raise corrupt("%s: records after the END record" % where)
                        self.end = ev
                    else:
                        self.records -= 1  # unknown record: skipped (section 8.3)
                        # FORMAT.md §6, §10.1 (records): an unknown record is not an event
                        # and does not count in the INDEX "records" total.
                        self.tr.skipped_unknown = True
                    continue
                # ---- issue record (section 7)
                S = H & 1
                pcmode = (H >> 3) & 3
                form = (H >> 5) & 3
                X = 0
                F = 0
                if form == 3:
                    X = b[p]
                    p += 1
                    if X & 0x60:
                        raise corrupt("%s: issue X byte 0x%02x has reserved bits"
                                      % (where, X))
                    if X & 0x10:
                        F = b[p]
                        p += 1
                    ncommits, p = rvarint(b, p)
                    if ncommits > 256:
                        raise corrupt("%s: %d commits" % (where, ncommits))
                elif form == 1:
                    ncommits = 1
                else:
                    ncommits = 0
                    if form == 2:
                        X = 1
                if S:
                    core = next_core.get(last_core)
                    if core is None:
                        core = (last_core + 1) % C
                    lw = last_warp.get(core, W - 1)
                    warp = next_warp.get(core * W + lw)
                    if warp is None:
                        warp = (lw + 1) % W
                    cycle = cur_cycle + (1 if core <= last_core else 0)
                else:
                    core, p = rvarint(b, p)
                    warp, p = rvarint(b, p)
                    d, p = rsv64(b, p)
                    # FORMAT.md §2 (svarint64), §6 (Cycles): the difference is added
                    # modulo 2^64; a reader MAY report as corruption a sum that leaves
                    # 0..2^64-1, as this reader does (libvxtrace accepts it).
                    cycle = cur_cycle + d
                    if cycle < 0 or cycle > M64:
                        raise corrupt("%s: cycle out of range" % where)
                    if core >= C or warp >= W:
                        raise corrupt("%s: issue of core %d warp %d outside the platform"
                                      % (where, core, warp))
                g = core * W + warp
                if pcmode == 0:
                    pc = next_pc.get(g, 0)
                elif pcmode == 1:
                    pc = target.get(g)
                    if pc is None:
                        raise corrupt("%s: pc = target but warp %d has none" % (where, g))
                elif pcmode == 2:
                    d, p = rsv32(b, p)
                    pc = (next_pc.get(g, 0) + d) & M32
                else:
                    raise corrupt("%s: issue record with pc mode 3" % where)
                if H & 2:
                    e = icache.get((pc >> 2) & 8191)
                    if e is None or e[0] != pc:
                        raise corrupt("%s: insn cache miss for pc 0x%x" % (where, pc))
                    insn = e[1]
                else:
                    insn = b[p] | b[p + 1] << 8 | b[p + 2] << 16 | b[p + 3] << 24
                    if p + 4 > n:
                        raise IndexError
                    p += 4
                if H & 4:
                    tmask = mask.get(g, allm)
                else:
                    tmask = int.from_bytes(b[p:p + LB], "little")
                    if p + LB > n:
                        raise IndexError
                    p += LB
                    if tmask > allm:
                        raise corrupt("%s: tmask has lanes >= %d" % (where, T))
                raw += 25 + LB
                commits = []
                rd = (insn >> 7) & 31
                for _ in range(ncommits):
                    K = b[p]
                    p += 1
                    if K & 0xE0:
                        raise corrupt("%s: commit K byte 0x%02x has reserved bits" % (where, K))
                    dm = K & 3
                    if dm == 0:
                        dest = rd
                    elif dm == 1:
                        dest = 32 + rd
                    elif dm == 2:
                        dest, p = rvarint(b, p)
                        if dest > 4159:
                            raise corrupt("%s: commit destination %d" % (where, dest))
                    else:
                        raise corrupt("%s: commit destination mode 3" % where)
                    if K & 4:
                        lm = tmask
                    else:
                        lm = int.from_bytes(b[p:p + LB], "little")
                        if p + LB > n:
                            raise IndexError
                        p += LB
                        if lm > allm:
                            raise corrupt("%s: commit lanes >= %d" % (where, T))
                    mode = (K >> 3) & 3
                    if dest < 64:
                        key_r = g * 64 + dest
                        prev = regs.get(key_r)
                        if prev is None:
                            prev = [0] * T
                            regs[key_r] = prev
                    else:
                        prev = None
                    vals = [None] * T
                    if lm == 0:
                        if mode != 0:
                            raise corrupt("%s: empty commit with value mode %d" % (where, mode))
                    elif mode == 0:
                        l0 = (lm & -lm).bit_length() - 1
                        d, p = rsv32(b, p)
                        v = ((prev[l0] if prev else 0) + d) & M32
                        for l in range(T):
                            if lm >> l & 1:
                                vals[l] = v
                    elif mode == 1:
                        if prev:
                            pb = prev[0]
                            ps = (prev[1] - prev[0]) & M32 if T > 1 else 0
                        else:
                            pb = ps = 0
                        d, p = rsv32(b, p)
                        bb = (pb + d) & M32
                        d, p = rsv32(b, p)
                        s = (ps + d) & M32
                        for l in range(T):
                            if lm >> l & 1:
                                vals[l] = (bb + l * s) & M32
                    elif mode == 2:
                        for l in range(T):
                            if lm >> l & 1:
                                d, p = rsv32(b, p)
                                vals[l] = ((prev[l] if prev else 0) + d) & M32
                    else:
                        for l in range(T):
                            if lm >> l & 1:
                                if p + 4 > n:
                                    raise IndexError
                                vals[l] = b[p] | b[p + 1] << 8 | b[p + 2] << 16 | b[p + 3] << 24
                                p += 4
                    if prev is not None:
                        for l in range(T):
                            if lm >> l & 1:
                                prev[l] = vals[l]
                    if dest < 32:
                        f, r = "x", dest
                    elif dest < 64:
                        f, r = "f", dest - 32
                    else:
                        f, r = "csr", dest - 64
                    # FORMAT.md §7.2: the record has no value for lanes outside `lanes`
                    # (libvxtrace holds 0 there); the JSON shows them as null (SCHEMA.md).
                    commits.append({"file": f, "reg": r, "lanes": "0x%x" % lm, "values": vals})
                    raw += 3 + LB + 4 * bin(lm).count("1")
                mem = []
                if X & 1:
                    p, mem = self._mem(b, p, g, tmask, mem_base, mem_stride, where)
                    raw += 10 * len(mem)
                    dg.flags |= 0x40
                    for w in mem:
                        a = w["addr"]
                        e = a + w["size"] - 1
                        if e > M32:
                            e = M32
                        if a < dg.wlo:
                            dg.wlo = a
                        if e > dg.whi:
                            dg.whi = e
                        for pg in range(a >> 12, (e >> 12) + 1):
                            dg.pages.add(pg)
                wctl = []
                if X & 2:
                    p, wctl = self._wctl(b, p, core, warp, where)
                    raw += (21 + 2 * LB) * len(wctl)
                    dg.flags |= 8
                console = []
                if X & 4:
                    cnt, p = rvarint(b, p)
                    if cnt < 1 or cnt > 4096 or p + 2 * cnt > n:
                        raise corrupt("%s: %d console bytes" % (where, cnt))
                    for i in range(cnt):
                        s = b[p]
                        if s >= 64:
                            raise corrupt("%s: console slot %d" % (where, s))
                        console.append({"slot": s, "byte": b[p + 1]})
                        p += 2
                    raw += 2 * cnt
                    dg.flags |= 0x10
                fault = None
                if X & 8:
                    fault, p = self._fault(b, p, where)
                    raw += 118 + LB
                    dg.flags |= 2
                if X & 0x80:
                    ln, p = rvarint(b, p)
                    if p + ln > n:
                        raise corrupt("%s: extension block runs past the chunk" % where)
                    p += ln
                    self.tr.skipped_unknown = True
                ev = {"type": "issue", "index": index, "cycle": cycle, "core": core,
                      "warp": warp, "gwarp": g, "pc": pc, "insn": insn, "tmask": "0x%x" % tmask,
                      "flags": F, "commits": commits, "mem": mem, "wctl": wctl,
                      "console": console, "fault": fault}
                out_events.append(ev)
                # predictor updates (section 7.1)
                cur_cycle = cycle
                if not F & 3:
                    next_core[last_core] = core
                    last_core = core
                    next_warp[core * W + last_warp.get(core, W - 1)] = warp
                    last_warp[core] = warp
                if not F & 1:
                    next_pc[g] = (pc + 4) & M32
                    t = branch_target(insn, pc)
                    if t is None:
                        target.pop(g, None)
                    else:
                        target[g] = t
                    mask[g] = tmask
                    icache[(pc >> 2) & 8191] = (pc, insn)
                    dg.pcs.add(pc >> 2)
                else:
                    dg.flags |= 0x20
                if F & 2:
                    dg.flags |= 0x20
                dg.warps.add(g)
                dg.issues += 1
                index += 1
                self.issues += 1
                self.records += 1
        except IndexError:
            raise corrupt("%s: a record runs past the end of the chunk" % where)
        except ValueError as e:
            raise corrupt("%s: %s" % (where, e))
        self.raw_size += raw
        self.index = index
        return out_events

    def _mem(self, b, p, g, tmask, mem_base, mem_stride, where):
        T = self.T
        G = b[p]
        p += 1
        if G & 0xC0:
            raise corrupt("%s: memory group G byte 0x%02x has reserved bits" % (where, G))
        sz = G & 3
        vmode = (G >> 4) & 3
        if vmode == 3:
            raise corrupt("%s: memory value mode 3" % where)
        if G & 4:
            lanes = [l for l in range(T) if tmask >> l & 1]
            # FORMAT.md §7.3 (G bit 2): with an empty tmask the count would be 0, which is
            # corruption.
            if not lanes:
                raise corrupt("%s: memory writes on the lanes of an empty tmask" % where)
        else:
            cnt, p = rvarint(b, p)
            if cnt < 1 or cnt > 4096 or p + cnt > len(b):
                raise corrupt("%s: %d memory writes" % (where, cnt))
            lanes = list(b[p:p + cnt])
            p += cnt
            for l in lanes:
                if l >= T:
                    raise corrupt("%s: memory write lane %d >= %d" % (where, l, T))
        cnt = len(lanes)
        if sz == 3:
            sizes = list(b[p:p + cnt])
            if p + cnt > len(b):
                raise IndexError
            p += cnt
            for s in sizes:
                if s not in (1, 2, 4):
                    raise corrupt("%s: memory write size %d" % (where, s))
        else:
            sizes = [(1, 2, 4)[sz]] * cnt
        if G & 8:
            d, p = rsv32(b, p)
            a = (mem_base.get(g, 0) + d) & M32
            addrs = [a]
            for _ in range(cnt - 1):
                d, p = rsv32(b, p)
                a = (a + d) & M32
                addrs.append(a)
            if cnt:
                mem_base[g] = addrs[0]
        else:
            d, p = rsv32(b, p)
            base = (mem_base.get(g, 0) + d) & M32
            d, p = rsv32(b, p)
            s = (mem_stride.get(g, 0) + d) & M32
            addrs = [(base + l * s) & M32 for l in lanes]
            mem_base[g] = base
            mem_stride[g] = s
        if vmode == 0:
            v, p = rvar32(b, p)
            vals = [v & ((1 << (8 * sizes[i])) - 1) for i in range(cnt)]
        elif vmode == 1:
            vb, p = rvar32(b, p)
            s, p = rsv32(b, p)
            vals = [((vb + lanes[i] * s) & M32) & ((1 << (8 * sizes[i])) - 1)
                    for i in range(cnt)]
        else:
            vals = []
            for i in range(cnt):
                s = sizes[i]
                if p + s > len(b):
                    raise IndexError
                vals.append(int.from_bytes(b[p:p + s], "little"))
                p += s
        return p, [{"lane": lanes[i], "addr": addrs[i], "size": sizes[i], "value": vals[i]}
                   for i in range(cnt)]

    def _wctl(self, b, p, core, warp, where):
        LB = self.LB
        allm = self.all_lanes
        cnt, p = rvarint(b, p)
        if cnt < 1 or cnt > 131072 or p + 2 * cnt > len(b):
            raise corrupt("%s: %d warp-control effects" % (where, cnt))
        out = []
        for _ in range(cnt):
            k = b[p]
            P = b[p + 1]
            p += 2
            if P & 0x80:
                raise corrupt("%s: warp-control P byte has bit 7" % where)
            c, w, pc, a, a2, m, m2 = core, warp, 0, 0, 0, 0, 0
            if P & 1:
                c, p = rvar32(b, p)
            if P & 2:
                w, p = rvar32(b, p)
            if P & 4:
                pc, p = rvar32(b, p)
            if P & 8:
                a, p = rvar32(b, p)
            if P & 16:
                a2, p = rvar32(b, p)
            if P & 32:
                if p + LB > len(b):
                    raise IndexError
                m = int.from_bytes(b[p:p + LB], "little")
                p += LB
            if P & 64:
                if p + LB > len(b):
                    raise IndexError
                m2 = int.from_bytes(b[p:p + LB], "little")
                p += LB
            if m > allm or m2 > allm:
                raise corrupt("%s: warp-control mask has lanes >= %d" % (where, self.T))
            # FORMAT.md §7.4: a writer writes core < C and warp < W only; a reader MAY
            # reject others.  Not checked here (nor by libvxtrace).
            out.append({"kind": WCTL_KINDS.get(k, UNKNOWN), "core": c, "warp": w,
                        "pc": pc, "arg": a, "arg2": a2, "mask": "0x%x" % m,
                        "mask2": "0x%x" % m2, "_kind": k})
        return p, out

    def _fault(self, b, p, where):
        kind = b[p]
        sig = b[p + 1]
        p += 2
        core, p = rvar32(b, p)
        warp, p = rvar32(b, p)
        pc, p = rvar32(b, p)
        insn, p = rvar32(b, p)
        addr, p = rvar32(b, p)
        LB = self.LB
        if p + LB > len(b):
            raise IndexError
        lm = int.from_bytes(b[p:p + LB], "little")
        p += LB
        if lm > self.all_lanes:
            raise corrupt("%s: fault lanes >= %d" % (where, self.T))
        n, p = rvarint(b, p)
        if n > 95 or p + n > len(b):
            raise corrupt("%s: fault reason of %d bytes" % (where, n))
        r = bytes(b[p:p + n])
        p += n
        # FORMAT.md §7.6: a decoder MUST report a reason longer than 95 bytes or holding a
        # NUL or a newline as corruption.
        if b"\0" in r or b"\n" in r:
            raise corrupt("%s: NUL or newline in a fault reason" % where)
        # SCHEMA.md (Strings): valid UTF-8 is kept, every other byte becomes one U+FFFD
        # (not Python's "replace", which gives one per ill-formed subsequence).
        return {"kind": FAULT_KINDS.get(kind, UNKNOWN), "signal": sig,
                "signame": SIGNALS.get(sig, "SIG?"),
                "core": core, "warp": warp, "pc": pc, "insn": insn, "addr": addr,
                "lanes": "0x%x" % lm, "reason": utf8_lossy(r)}, p

    def _dm(self, body, index, cur_cycle, where):
        try:
            op = body[0]
            addr = body[1]
            q = 2
            value, q = rvar32(body, q)
            gwarp, q = rvar32(body, q)
            lane, q = rvar32(body, q)
            arg, q = rvar32(body, q)
            d, q = rsv64(body, q)
        except IndexError:
            raise corrupt("%s: DM record fields run past its body" % where)
        cycle = cur_cycle + d
        if cycle < 0 or cycle > M64:
            raise corrupt("%s: cycle out of range" % where)
        # SCHEMA.md (dm): "reg" is present for every op: the name of addr for read (1) and
        # write (2), null for the others.
        return {"type": "dm", "index": index, "cycle": cycle,
                "op": DM_OPS.get(op, UNKNOWN), "addr": addr,
                "reg": DM_REGS.get(addr, "reg?") if op in (1, 2) else None,
                "value": value, "gwarp": gwarp,
                "lane": lane, "arg": arg}, cycle

    def _end(self, body, index, cur_cycle, where):
        try:
            status = body[0]
            q = 1
            code, q = rvar32(body, q)
            d, q = rsv64(body, q)
            hf = body[q]
            q += 1
            if hf > 1:
                raise corrupt("%s: END has_fault %d" % (where, hf))
            fault = None
            if hf:
                fault, q = self._fault(body, q, where)
        except IndexError:
            raise corrupt("%s: END record fields run past its body" % where)
        cycle = cur_cycle + d
        if cycle < 0 or cycle > M64:
            raise corrupt("%s: cycle out of range" % where)
        # FORMAT.md §8.2, §15.1: an unknown status (not 1..4) is passed on, and the JSON
        # names it "unknown" (SCHEMA.md).
        self.end_status = status
        return {"type": "end", "index": index, "cycle": cycle,
                "status": END_STATUS.get(status, UNKNOWN), "exit_code": code,
                "fault": fault}


# --------------------------------------------------------------------------------------
# DIGEST (section 10.3)


def digest_set(p, q, c, what):
    """A bit set of a DIGEST payload at p[q]: u8 size exponent, then 2^size bits;
    returns (exponent, bytes, next q)."""
    e = p[q]
    q += 1
    if not 3 <= e <= 24:
        # FORMAT.md §10.3: a P or Q outside 3..24 is corruption.  Sizes in 3..24 other
        # than 1.1's are used as they are (a reader that does not use them treats the
        # chunk as having no digest).
        raise corrupt("%s: %s set of 2^%d bits" % (c.where(), what, e))
    n = (1 << e) // 8
    return e, p[q:q + n], q + n


def parse_digest(tr, p, c):
    C, W = tr.C, tr.W
    try:
        q = 0
        issues, q = rvarint(p, q)
        flags, q = rvarint(p, q)
        wlo = whi = None
        if flags & 0x40:
            wlo, q = rvar32(p, q)
            whi, q = rvar32(p, q)
            if wlo > whi:
                raise corrupt("%s: wlo > whi" % c.where())
        P, pcset, q = digest_set(p, q, c, "PC")
        Q, pgset, q = digest_set(p, q, c, "page")
        nw = (C * W + 7) // 8
        wset = p[q:q + nw]
        q += nw
        if q > len(p):
            raise IndexError
    except IndexError:
        raise corrupt("%s: digest runs past its payload" % c.where())
    wint = int.from_bytes(wset, "little")
    if wint >> (C * W):
        raise corrupt("%s: warp set has bits >= %d" % (c.where(), C * W))
    return {"issues": issues, "flags": flags, "wlo": wlo, "whi": whi, "P": P,
            "pcset": int.from_bytes(pcset, "little"), "Q": Q,
            "pgset": int.from_bytes(pgset, "little"), "wset": wint}


def check_digest(stored, dg, where):
    if stored is None:
        return
    P, Q = stored["P"], stored["Q"]
    pcset = 0
    for x in dg.pcs:
        pcset |= 1 << (x & ((1 << P) - 1))
    pgset = 0
    for pg in dg.pages:
        pgset |= 1 << (((pg * 0x9E3779B1) & M32) >> (32 - Q))
    wset = 0
    for g in dg.warps:
        wset |= 1 << g
    known = stored["flags"] & 0x7F
    problems = []
    if stored["issues"] != dg.issues:
        problems.append("issues %d, records have %d" % (stored["issues"], dg.issues))
    if known != dg.flags:
        problems.append("flags 0x%x, records give 0x%x" % (known, dg.flags))
    if dg.flags & 0x40 and (stored["wlo"], stored["whi"]) != (dg.wlo, dg.whi):
        problems.append("write range 0x%x..0x%x, records give 0x%x..0x%x"
                        % (stored["wlo"] or 0, stored["whi"] or 0, dg.wlo, dg.whi))
    if stored["pcset"] != pcset:
        problems.append("PC set differs")
    if stored["pgset"] != pgset:
        problems.append("page set differs")
    if stored["wset"] != wset:
        problems.append("warp set differs")
    if problems:
        raise corrupt("%s: stored digest does not match the records: %s"
                      % (where, "; ".join(problems)))


# --------------------------------------------------------------------------------------
# keyframes: PAGES (9.1), KEYFRAME (9.2), state (sim/STATE.md)


def parse_pages(tr, p, c):
    pages = []
    try:
        q = 0
        n, q = rvarint(p, q)
        if n > len(p):
            raise corrupt("%s: %d pages" % (c.where(), n))
        for _ in range(n):
            space, q = rvarint(p, q)
            page, q = rvarint(p, q)
            mode = p[q]
            q += 1
            if space > tr.C:
                # FORMAT.md §9.1: space MUST be at most C; a reader MAY report another
                # as corruption (this one does; libvxtrace passes it on).  The page
                # ranges of each space (MAY) are not checked here.
                raise corrupt("%s: memory space %d" % (c.where(), space))
            if page > 0xFFFFF:
                raise corrupt("%s: page 0x%x does not fit 32 bits" % (c.where(), page))
            if mode == 0:
                if q + 4096 > len(p):
                    raise IndexError
                pages.append((space, page, p[q:q + 4096]))
                q += 4096
            elif mode == 1:
                pages.append((space, page, None))
            else:
                raise corrupt("%s: page mode %d" % (c.where(), mode))
        # FORMAT.md §9.1: bytes after the last page are corruption.
        if q != len(p):
            raise corrupt("%s: %d bytes after the pages" % (c.where(), len(p) - q))
    except IndexError:
        raise corrupt("%s: pages run past the payload" % c.where())
    except ValueError as e:
        raise corrupt("%s: %s" % (c.where(), e))
    return pages


def parse_keyframe(tr, p, c):
    try:
        q = 0
        cycle, q = rvarint(p, q)
        npages, q = rvarint(p, q)
        sl, q = rvarint(p, q)
        if q + sl > len(p):
            raise IndexError
        state = p[q:q + sl]
        q += sl
        # FORMAT.md §9.2: bytes after the state are ignored.
    except IndexError:
        raise corrupt("%s: fields run past the payload" % c.where())
    except ValueError as e:
        raise corrupt("%s: %s" % (c.where(), e))
    return cycle, npages, state


class StateReader:
    def __init__(self, b, where):
        self.b = b
        self.p = 0
        self.where = where

    def take(self, n):
        if self.p + n > len(self.b):
            raise Mismatch("%s: state encoding runs past its %d bytes" % (self.where, len(self.b)))
        v = self.b[self.p:self.p + n]
        self.p += n
        return v

    def u8(self):
        return self.take(1)[0]

    def u32(self):
        return struct.unpack("<I", self.take(4))[0]

    def u64(self):
        return struct.unpack("<Q", self.take(8))[0]

    def lanes(self):
        lo, hi = struct.unpack("<QQ", self.take(16))
        return lo | hi << 64

    def u32s(self, n):
        return list(struct.unpack("<%dI" % n, self.take(4 * n)))


def decode_state(tr, b, where):
    """sim/STATE.md -> dict.  Raises Mismatch when the bytes do not follow STATE.md."""
    r = StateReader(b, where)
    st = {}
    if r.take(4) != b"VXST":
        # NOTE: the golden traces tests/golden/small-v1.*.vxt hold placeholder states
        # ("state0", "state16"), not STATE.md encodings, although FORMAT.md 9.2 makes
        # STATE.md part of the specification.
        raise Mismatch("%s: state magic is not VXST" % where)
    ver = r.u32()
    if ver != 1:
        raise Mismatch("%s: state version %d" % (where, ver))
    cl, co, nw, nt = r.u32s(4)
    st["shape"] = (cl, co, nw, nt)
    if st["shape"] != tr.platform:
        raise Mismatch("%s: state shape %s, header PLATFORM %s"
                       % (where, st["shape"], tr.platform))
    st["start_pc"], st["arg"] = r.u32s(2)
    NC = cl * co
    NW, NT = nw, nt
    NB = max(1, NW // 2)
    st["next_index"] = r.u64()
    st["cycle"] = r.u64()
    st["core_pos"] = r.u32()
    st["issued_in_cycle"] = r.u8()
    st["finished"] = r.u8()
    st["end_kind"] = r.u8()
    st["ebreakh"] = r.u8()
    st["exit_code"] = r.u32()
    st["fault_kind"] = r.u8()
    st["fault_signal"] = r.u8()
    st["fault"] = r.u32s(5)
    st["fault_lanes"] = r.lanes()
    R = r.u8()
    if R > 95:
        raise Mismatch("%s: fault reason length %d" % (where, R))
    st["fault_reason"] = r.take(R)
    st["stats"] = struct.unpack("<8Q", r.take(64))
    cores = []
    for c in range(NC):
        cd = {"last_warp": r.u32(), "mscratch": r.u32(), "minstret": r.u64(),
              "spawn_pending": r.u8(), "spawn": r.u32s(3), "lbar": r.u32s(NB),
              "gbar": r.u32s(NB), "gbar_reported": list(r.take(NB))}
        cores.append(cd)
    st["cores"] = cores
    st["gbars"] = [r.u32s(2) for _ in range(NB)]
    warps = []
    for g in range(NC * NW):
        w = {"pc": r.u32(), "tmask": r.lanes(), "flags": r.u8(), "hacause": r.u8(),
             "bar": r.u32(), "fcsr": r.u8(), "issued": r.u64(), "csrs": r.u32s(30)}
        D = r.u32()
        w["depth_off"] = r.p - 4
        if D > max(1, NT - 1):
            raise Mismatch("%s: warp %d IPDOM depth %d" % (where, g, D))
        w["ipdom"] = [(r.lanes(), r.lanes(), r.u32(), r.u8()) for _ in range(D)]
        w["x1_off"] = r.p
        x = [[0] * NT] + [r.u32s(NT) for _ in range(31)]
        f = [r.u32s(NT) for _ in range(32)]
        w["regs"] = x + f
        w["dscratch"] = [r.u32s(NT) for _ in range(4)]
        w["lr"] = [(r.u8(), r.u32()) for _ in range(NT)]
        if w["flags"] & 0xF0:
            raise Mismatch("%s: warp %d flags 0x%x" % (where, g, w["flags"]))
        warps.append(w)
    st["warps"] = warps
    cons = []
    for s in range(64):
        L = r.u32()
        if L > 4096:
            raise Mismatch("%s: console slot %d line of %d bytes" % (where, s, L))
        cons.append(bytes(r.take(L)))
    st["console"] = cons
    L = r.u32()
    # STATE.md §7 (the Debug Module state): L is 0 or 48 + 4 * max(1, ceil(NGW / 32)),
    # then version, NGW, flags, DCONFIG, DSELECT, INJECT, step/inject states, hold,
    # step warp, inject warp, lane and word, and the warp-select mask.  This reader
    # checks the length and decodes the fields; it has no other use for them.
    nwin = max(1, (NC * NW + 31) // 32)
    if L not in (0, 48 + 4 * nwin):
        raise Mismatch("%s: Debug Module state of %d bytes (STATE.md 7: 0 or %d)"
                       % (where, L, 48 + 4 * nwin))
    blob = r.take(L)
    st["dm"] = None
    if L:
        f = struct.unpack_from("<12I", blob, 0)
        st["dm"] = {"version": f[0], "warps": f[1], "flags": f[2], "dconfig": f[3],
                    "dselect": f[4], "inject": f[5], "stepstate": f[6] & 0xFF,
                    "injectstate": (f[6] >> 8) & 0xFF, "hold": f[7], "step_warp": f[8],
                    "inj_warp": f[9], "inj_lane": f[10], "inj_insn": f[11],
                    "mask": list(struct.unpack_from("<%dI" % nwin, blob, 48))}
    if r.p != len(b):
        raise Mismatch("%s: %d bytes after the end of the state" % (where, len(b) - r.p))
    return st


def base_memory(tr, notes):
    """The prologue's memory (FORMAT.md §5.3, §9.3): zeros, the IMAGE loaded as its kind
    says, then the LOAD regions.  Returns None when the image cannot be loaded here.

    FORMAT.md §5.3: ELF32 little-endian RISC-V executable, every PT_LOAD segment with a
    p_memsz other than 0 in program header order, its p_filesz bytes at p_vaddr (fixed:
    this reader used to take p_paddr) and zeros up to p_memsz; .vxbin = u64 min_vma,
    u64 max_vma, then the bytes at min_vma and zeros up to max_vma; raw = the bytes at
    0x80000000.  Every issued instruction word is checked against this memory."""
    img = tr.image
    mem = {}

    def put(addr, data):
        for i in range(0, len(data)):
            a = addr + i
            if a > M32:
                break
            key = (0, a >> 12)
            pg = mem.get(key)
            if pg is None:
                pg = mem[key] = bytearray(4096)
            pg[a & 4095] = data[i]
    if tr.image_kind == 1:
        if img[:4] != b"\x7fELF" or len(img) < 52 or img[4] != 1 or img[5] != 1 or \
                struct.unpack_from("<HH", img, 16) != (2, 243):
            notes.append("IMAGE is not a little-endian ELF32 RISC-V executable: memory not "
                         "modelled")
            return None
        phoff, = struct.unpack_from("<I", img, 28)
        phentsize, phnum = struct.unpack_from("<HH", img, 42)
        for i in range(phnum):
            o = phoff + i * phentsize
            if o + 32 > len(img):
                return None
            ptype, poff, vaddr, paddr, filesz, memsz = struct.unpack_from("<6I", img, o)
            if ptype != 1 or memsz == 0:
                continue
            put(vaddr, img[poff:poff + filesz])
            if memsz > filesz:
                put(vaddr + filesz, bytes(memsz - filesz))
    elif tr.image_kind == 2:
        if len(img) < 16:
            return None
        lo, hi = struct.unpack_from("<QQ", img, 0)
        put(lo, img[16:])  # [lo + n, hi) is zero already: nothing was written before
    elif tr.image_kind == 3:
        put(0x80000000, img)
    else:  # an unknown kind (FORMAT.md §15.1): the image cannot be loaded
        return None
    for (addr, size, name), data in zip(tr.loads, tr.load_data):
        put(addr, data)
    return mem


def space_of(core, addr):
    """The memory space a write of `core` at `addr` changes (FORMAT.md §7.3)."""
    return 1 + core if 0xFFFF0000 <= addr < 0xFFFF4000 else 0


MACHINE_CSRS = [0x300, 0x302, 0x303, 0x304, 0x305, 0x341, 0x342, 0x343, 0x344, 0x180,
                0x3A0, 0x3A1, 0x3A2, 0x3A3] + list(range(0x3B0, 0x3C0))
MACHINE_CSR_INDEX = {a: i for i, a in enumerate(MACHINE_CSRS)}


class KeyframeChecker:
    """Rebuilds register, console and memory state from the event stream and compares it
    with every keyframe (sim/STATE.md, FORMAT.md section 9)."""

    def __init__(self, tr):
        self.tr = tr
        self.T = tr.T
        self.errors = []
        self.state = None        # rebuilt state: per warp regs etc.
        self.mem_since = {}      # byte address -> value, written since the previous keyframe
        self.seq = 0
        self.expect_next = {}
        self.inactive = set()
        self.nkeyframes = 0
        self.dm_touched = set()
        self.dm_since = False
        self.notes = []
        # memory model: (space, page) -> bytearray(4096); None until a base is known
        self.mem = None
        self.base_known = False
        if tr.kf_kind == 1:
            self.mem = {}
            self.base_known = True
        elif tr.kf_kind == 2:
            self.mem = base_memory(tr, self.notes)
            self.base_known = self.mem is not None
        self.insn_checked = 0

    def err(self, msg):
        self.errors.append(msg)
        raise Mismatch(msg)

    # --- keyframe

    def keyframe(self, c, pages_chunks, kind, index, after_end):
        tr = self.tr
        where = c.where()
        cycle, npages, state = parse_keyframe(tr, tr.payload(c), c)
        pages = []
        for pc in pages_chunks:
            pages += parse_pages(tr, tr.payload(pc), pc)
        if npages != len(pages):
            raise corrupt("%s: npages %d, its PAGES chunks hold %d" % (where, npages, len(pages)))
        if c.key != index:
            raise corrupt("%s: key %d but %d issues precede it" % (where, c.key, index))
        st = decode_state(tr, state, where)
        k = self.nkeyframes
        self.nkeyframes += 1
        if st["next_index"] != c.key:
            self.err("%s: state's next event index %d != key %d"
                     % (where, st["next_index"], c.key))
        if st["cycle"] != cycle:
            self.err("%s: state's cycle %d != KEYFRAME cycle %d" % (where, st["cycle"], cycle))
        if st["start_pc"] != tr.start_pc or st["arg"] != tr.arg:
            self.err("%s: state's start pc/arg 0x%x/0x%x != header 0x%x/0x%x"
                     % (where, st["start_pc"], st["arg"], tr.start_pc, tr.arg))
        # memory: every byte written since the previous keyframe must be in this
        # keyframe's pages with the last value written (section 9.3: keyframe k > 0 holds
        # the pages written since keyframe k-1, whole)
        pmap = {}
        for space, page, data in pages:
            if (space, page) in pmap:
                # FORMAT.md §9.1: a page MUST NOT appear twice in one keyframe; a full
                # validation reports it.
                self.err("%s: page %d:0x%x listed twice" % (where, space, page))
            pmap[(space, page)] = data
        if k > 0:
            # FORMAT.md §7.3 (Memory spaces): an address in [0xFFFF0000, 0xFFFF4000) is in
            # the local memory of the issuing core (space 1 + core, pages 0xFFFF0..3), any
            # other in global memory (space 0).
            last_global = {}
            for (core, a), (v, seq) in self.mem_since.items():
                pg = a >> 12
                sp = space_of(core, a)
                if sp:
                    data = pmap.get((sp, pg), False)
                    if data is False:
                        self.err("%s: local memory page 0x%x of core %d written since the "
                                 "previous keyframe is not stored" % (where, pg, core))
                    got = data[a & 4095] if data is not None else 0
                    if got != v:
                        self.err("%s: local memory byte 0x%x of core %d is 0x%02x, the last "
                                 "write stored 0x%02x" % (where, a, core, got, v))
                else:
                    o = last_global.get(a)
                    if o is None or o[1] < seq:
                        last_global[a] = (v, seq)
            written = set()
            for (core, a) in self.mem_since:
                written.add((space_of(core, a), a >> 12))
            # FORMAT.md §9.3: "Keyframe k > 0 holds the pages written since keyframe k-1"
            # (read as: exactly those), and §7.3: memory changes only through the memory
            # writes of issue records, DM records never write memory.  (The first version
            # skipped this check after DM records.)
            for key in sorted(pmap):
                if key not in written:
                    self.err("%s: page %d:0x%x is stored but was not written since the "
                             "previous keyframe" % (where, key[0], key[1]))
            for a, (v, seq) in last_global.items():
                data = pmap.get((0, a >> 12), False)
                if data is False:
                    self.err("%s: page 0x%x written since the previous keyframe is not stored"
                             % (where, a >> 12))
                got = data[a & 4095] if data is not None else 0
                if got != v:
                    self.err("%s: memory byte 0x%x is 0x%02x, the last write stored 0x%02x"
                             % (where, a, got, v))
        if self.mem is not None:
            for (space, page), data in sorted(pmap.items()):
                cur = self.mem.get((space, page))
                if k > 0:
                    # keyframe 0 is the starting point: in 1.0 it holds every non-zero
                    # page, in 1.1 the pages that differ from the prologue's memory
                    want = bytes(cur) if cur is not None else bytes(4096)
                    got = bytes(data) if data is not None else bytes(4096)
                    if got != want:
                        i = next(i for i in range(4096) if got[i] != want[i])
                        self.err("%s: page %d:0x%x byte 0x%x is 0x%02x, the prologue, earlier "
                                 "keyframes and the stream's writes give 0x%02x"
                                 % (where, space, page, page * 4096 + i, got[i], want[i]))
                self.mem[(space, page)] = bytearray(data) if data is not None else bytearray(4096)
        self.mem_since = {}
        self.dm_since = False
        if self.state is None:
            self.start(st)
        else:
            self.compare(st, where, c.key)
        self.last_kf = (st, where, c.key)
        # the next issue of each active warp that does not wait must be at the state's PC
        # with the state's thread mask (a halted warp too: STATE.md §8.4, only a set-pc
        # or a reset moves a halted warp)
        self.expect_next = {}
        self.inactive = set()
        for g, w in enumerate(st["warps"]):
            if w["flags"] & 1 == 0:
                self.inactive.add(g)
            elif w["flags"] & 0xC == 0:
                self.expect_next[g] = (w["pc"], w["tmask"], where + " (state)")

    def dm_reset(self, ev):
        """A Debug Module reset (STATE.md §8.1, §8.4)."""
        s = self.state
        tr = self.tr
        W, T = tr.W, tr.T
        for g in range(tr.C * W):
            s["regs"][g] = [[0] * T for _ in range(64)]
            s["dscratch"][g] = [[0] * T for _ in range(4)]
            s["issued"][g] = 0
            s["fcsr"][g] = 0
            s["wflags"][g] = 1 if g % W == 0 else 0
            s["bar"][g] = 0
            s["ipdom"][g] = []
            s["csrs"][g] = [0] * 30
        s["console"] = [b""] * 64
        s["last_warp"] = [W - 1] * tr.C
        s["mscratch"] = [tr.arg] * tr.C
        where = "reset event %d" % ev["index"]
        self.expect_next = {c * W: (tr.start_pc, 1, where) for c in range(tr.C)}
        self.inactive = {g for g in range(tr.C * W) if g % W}

    def start(self, st):
        self.state = {"regs": [[list(r) for r in w["regs"]] for w in st["warps"]],
                      "dscratch": [[list(r) for r in w["dscratch"]] for w in st["warps"]],
                      "issued": [w["issued"] for w in st["warps"]],
                      "console": list(st["console"]),
                      "stats_issues": st["stats"][0], "lane_ops": st["stats"][1],
                      "last_warp": [c["last_warp"] for c in st["cores"]],
                      "mscratch": [c["mscratch"] for c in st["cores"]],
                      "fcsr": [w["fcsr"] for w in st["warps"]],
                      "wflags": [w["flags"] & 0xD for w in st["warps"]],
                      "bar": [w["bar"] for w in st["warps"]],
                      "ipdom": [[list(e) for e in w["ipdom"]] for w in st["warps"]],
                      "csrs": [list(w["csrs"]) for w in st["warps"]]}

    def compare(self, st, where, key):
        s = self.state
        T = self.T
        for g, w in enumerate(st["warps"]):
            for r in range(1, 64):
                if w["regs"][r] != s["regs"][g][r]:
                    name = ("x%d" % r) if r < 32 else ("f%d" % (r - 32))
                    lanes = [l for l in range(T) if w["regs"][r][l] != s["regs"][g][r][l]]
                    l = lanes[0]
                    self.err("%s: warp %d %s lane %d is 0x%08x in the keyframe, 0x%08x from "
                             "the commits%s" % (where, g, name, l, w["regs"][r][l],
                                                s["regs"][g][r][l],
                                                " (DM events touched this warp)"
                                                if g in self.dm_touched else ""))
            for i in range(4):
                if w["dscratch"][i] != s["dscratch"][g][i]:
                    self.err("%s: warp %d DSCRATCH%d differs from the commits" % (where, g, i))
            if w["issued"] != s["issued"][g]:
                self.err("%s: warp %d issued %d instructions per the keyframe, %d per the "
                         "stream" % (where, g, w["issued"], s["issued"][g]))
        if st["stats"][0] != s["stats_issues"]:
            self.err("%s: issue statistic %d, stream gives %d"
                     % (where, st["stats"][0], s["stats_issues"]))
        if st["stats"][1] != s["lane_ops"]:
            self.err("%s: lane-op statistic %d, stream gives %d"
                     % (where, st["stats"][1], s["lane_ops"]))
        for c, cd in enumerate(st["cores"]):
            if cd["last_warp"] != s["last_warp"][c]:
                self.err("%s: core %d last warp %d, stream gives %d"
                         % (where, c, cd["last_warp"], s["last_warp"][c]))
            mi = sum(st["warps"][c * self.tr.W + w]["issued"] for w in range(self.tr.W))
            if cd["minstret"] != mi:
                self.err("%s: core %d minstret %d != sum of its warps' counts %d"
                         % (where, c, cd["minstret"], mi))
        for g, w in enumerate(st["warps"]):
            if w["fcsr"] != s["fcsr"][g]:
                self.err("%s: warp %d fcsr 0x%02x, the fflags/frm/fcsr commits give 0x%02x"
                         % (where, g, w["fcsr"], s["fcsr"][g]))
            if w["flags"] & 0xD != s["wflags"][g]:
                self.err("%s: warp %d flags 0x%x (active/spawn-wait/barrier), the warp-control "
                         "effects give 0x%x" % (where, g, w["flags"] & 0xD, s["wflags"][g]))
            if w["flags"] & 8 and w["bar"] != s["bar"][g]:
                self.err("%s: warp %d waits at barrier 0x%x, the effects give 0x%x"
                         % (where, g, w["bar"], s["bar"][g]))
            if w["csrs"] != s["csrs"][g]:
                i = next(i for i in range(30) if w["csrs"][i] != s["csrs"][g][i])
                self.err("%s: warp %d CSR 0x%03x is 0x%x, the commits give 0x%x"
                         % (where, g, MACHINE_CSRS[i], w["csrs"][i], s["csrs"][g][i]))
            if [list(e) for e in w["ipdom"]] != s["ipdom"][g]:
                self.err("%s: warp %d IPDOM stack %s, the ipdom effects give %s"
                         % (where, g, w["ipdom"], s["ipdom"][g]))
        for c, cd in enumerate(st["cores"]):
            if cd["mscratch"] != s["mscratch"][c]:
                self.err("%s: core %d mscratch 0x%x, the commits give 0x%x"
                         % (where, c, cd["mscratch"], s["mscratch"][c]))
            NB = len(cd["lbar"])
            for b in range(NB):
                n = sum(1 for w in range(self.tr.W)
                        if s["wflags"][c * self.tr.W + w] & 8 and
                        s["bar"][c * self.tr.W + w] == b)
                if cd["lbar"][b] != n:
                    self.err("%s: core %d local barrier %d has %d warps arrived, the effects "
                             "give %d" % (where, c, b, cd["lbar"][b], n))
        for slot in range(64):
            if st["console"][slot] != s["console"][slot]:
                self.err("%s: console slot %d pending line %r, stream gives %r"
                         % (where, slot, st["console"][slot], s["console"][slot]))

    # --- events

    def event(self, ev):
        if self.state is None:
            # FORMAT.md §9, STATE.md §8.1: without keyframe 0 the state at event 0 is the
            # reset state; this checker still starts at the first keyframe.
            return
        s = self.state
        if ev["type"] == "dm":
            # STATE.md §8.4: how each DM op changes the state.  (First written as "a DM
            # event may change anything": expectations were dropped.)  read, write,
            # halt, resume and inject-reject change nothing this checker follows (the
            # halted flag and ebreak-halt are not compared).
            op = ev["op"]
            g = ev["gwarp"]
            self.dm_since = True
            if op == "reset":
                self.dm_reset(ev)
            elif op == "set-pc":
                self.dm_touched.add(g)
                e = self.expect_next.get(g)
                self.expect_next[g] = (ev["value"], e[1] if e else None,
                                       "set-pc event %d" % ev["index"])
            elif op == "scratch":
                self.dm_touched.add(g)
                s["dscratch"][g][ev["arg"] & 3][ev["lane"]] = ev["value"]
            return
        if ev["type"] != "issue":
            return
        g = ev["gwarp"]
        W = self.tr.W
        tmask = int(ev["tmask"], 16)
        if not ev["flags"] & 1:
            exp = self.expect_next.pop(g, None)
            if g in self.inactive:
                self.err("%s: warp %d is inactive in the keyframe but issues (event %d) "
                         "without an activate effect before" % (self.last_kf[1], g, ev["index"]))
            if exp is not None:
                pc, m, where = exp
                if pc != ev["pc"]:
                    self.err("%s: warp %d PC 0x%x, its next issue (event %d) is at 0x%x"
                             % (where, g, pc, ev["index"], ev["pc"]))
                if m is not None and m != tmask:
                    self.err("%s: warp %d thread mask 0x%x, its next issue (event %d) has 0x%x"
                             % (where, g, m, ev["index"], tmask))
        for w in ev["wctl"]:
            tg = w["core"] * W + w["warp"]
            self.inactive.discard(tg)
            if w["_kind"] == 2 and tg != g:
                # FORMAT.md §7.4 (table), STATE.md §8.3: an activate effect's pc and mask
                # are the activated warp's PC and thread mask.
                self.expect_next[tg] = (w["pc"], int(w["mask"], 16),
                                        "activate effect of event %d" % ev["index"])
            else:
                self.expect_next.pop(tg, None)
        # STATE.md §8.2 (Injected, Counted): an injected issue is not counted, nor is an
        # issue whose fetch faulted (fault kind misaligned or unmapped with insn 0).
        f = ev["fault"]
        fetch_fault = f is not None and f["kind"] in ("misaligned", "unmapped") and \
            f["insn"] == 0
        if not ev["flags"] & 1 and not fetch_fault:
            s["issued"][g] += 1
            s["stats_issues"] += 1
            s["lane_ops"] += bin(tmask).count("1")
        if not ev["flags"] & 3:
            s["last_warp"][ev["core"]] = ev["warp"]
        regs = s["regs"][g]
        # STATE.md §8.2 (Commits; FORMAT.md §7.2: a CSR other than DSCRATCH0..3 is
        # committed on lane 0, the lowest lane written) and §8.3 (table): fflags (CSR 1) /
        # frm (2) / fcsr (3) are the warp's fcsr byte, mscratch (0x340) the core's;
        # activate / deactivate set / clear flag bit 0, spawn-wait / unstall set / clear
        # bit 2, bar-arrive (arg = barrier id) / bar-release set / clear bit 3;
        # ipdom-push pushes (mask, mask2, pc, 0), ipdom-else sets the top entry's
        # fallthrough, ipdom-pop pops.  (These were assumptions of the first version.)
        for w in ev["wctl"]:
            k = w["_kind"]
            tg = w["core"] * W + w["warp"]
            if k == 2:
                s["wflags"][tg] |= 1
            elif k == 3:
                s["wflags"][tg] &= ~1
            elif k == 7:
                s["wflags"][tg] |= 4
            elif k == 11:
                s["wflags"][tg] &= ~4
            elif k == 8:
                s["wflags"][tg] |= 8
                s["bar"][tg] = w["arg"]
            elif k == 9:
                s["wflags"][tg] &= ~8
            elif k == 4:
                s["ipdom"][tg].append([int(w["mask"], 16), int(w["mask2"], 16), w["pc"], 0])
            elif k == 6:
                if s["ipdom"][tg]:
                    s["ipdom"][tg][-1][3] = 1
            elif k == 5:
                if s["ipdom"][tg]:
                    s["ipdom"][tg].pop()
        for cm in ev["commits"]:
            f = cm["file"]
            if f == "csr":
                r = cm["reg"]
                v = next((x for x in cm["values"] if x is not None), None)
                if v is None:
                    continue
                if r == 1:
                    s["fcsr"][g] = (s["fcsr"][g] & 0xE0) | (v & 0x1F)
                elif r == 2:
                    s["fcsr"][g] = (s["fcsr"][g] & 0x1F) | ((v & 7) << 5)
                elif r == 3:
                    s["fcsr"][g] = v & 0xFF
                elif r == 0x340:
                    s["mscratch"][ev["core"]] = v
                elif r in MACHINE_CSR_INDEX:
                    s["csrs"][g][MACHINE_CSR_INDEX[r]] = v
                if 0x7B2 <= r <= 0x7B5:
                    row = s["dscratch"][g][r - 0x7B2]
                else:
                    continue
            else:
                r = cm["reg"] + (32 if f == "f" else 0)
                if r == 0:
                    continue
                row = regs[r]
            for l, v in enumerate(cm["values"]):
                if v is not None:
                    row[l] = v
        core = ev["core"]
        mem = self.mem
        if mem is not None and self.base_known and not ev["flags"] & 1 and not fetch_fault:
            pc = ev["pc"]
            pg = mem.get((space_of(core, pc), pc >> 12))
            o = pc & 4095
            if o <= 4092:
                word = int.from_bytes(pg[o:o + 4], "little") if pg is not None else 0
                if word != ev["insn"]:
                    self.err("event %d: insn 0x%08x, memory at pc 0x%x holds 0x%08x"
                             % (ev["index"], ev["insn"], pc, word))
                self.insn_checked += 1
        for w in ev["mem"]:
            if mem is None:
                break
            a, v = w["addr"], w["value"]
            for i in range(w["size"]):
                ai = a + i
                if ai > M32:
                    break
                key = (space_of(core, ai), ai >> 12)
                pg = mem.get(key)
                if pg is None:
                    pg = mem[key] = bytearray(4096)
                pg[ai & 4095] = (v >> (8 * i)) & 0xFF
        for w in ev["mem"]:
            a, v = w["addr"], w["value"]
            for i in range(w["size"]):
                if a + i > M32:
                    break
                self.seq += 1
                self.mem_since[(core, a + i)] = ((v >> (8 * i)) & 0xFF, self.seq)
        for cb in ev["console"]:
            slot, byte = cb["slot"], cb["byte"]
            if byte == 10:
                s["console"][slot] = b""
            else:
                # STATE.md §6, §8.2 (Console bytes): a pending line of 4096 bytes goes to
                # the console before the next byte, which starts a new pending line.
                if len(s["console"][slot]) == 4096:
                    s["console"][slot] = b""
                s["console"][slot] += bytes([byte])


# --------------------------------------------------------------------------------------
# reading the whole trace


def read_events(tr, checker=None, out=None):
    """Decode the EVENTS chunks in file order (verifying digests, keys and the index),
    writing each event to out (a callable taking the event dict).  Keyframes met in the
    file are given to checker.  Returns the decoder."""
    dec = EventDecoder(tr)
    kf_pos = {k.off: (k, pg, kind) for k, pg, kind in tr.keyframes}
    index = 0
    ended = False
    kf_no = 0
    for c in tr.chunks:
        if c.type == CH_EVENTS:
            if ended:
                raise corrupt("%s: EVENTS chunk after the END record" % c.where())
            if c.key != index:
                raise corrupt("%s: key %d, but the stream has reached index %d"
                              % (c.where(), c.key, index))
            p = tr.payload(c)
            evs = dec.decode_chunk(p, c.key, c.where())
            dg = tr.digest_of.get(c.off)
            if dg is not None:
                stored = parse_digest(tr, tr.payload(dg), dg)
                check_digest(stored, dec.digest, dg.where())
            index = dec.index
            for ev in evs:
                if checker is not None:
                    checker.event(ev)
                if out is not None:
                    out(ev)
            if dec.end is not None:
                ended = True
        elif c.off in kf_pos:
            k, pg, kind = kf_pos[c.off]
            kno = kf_no
            kf_no += 1
            # FORMAT.md §9: a keyframe MAY follow the EVENTS chunk that holds the END
            # record.  The INDEX cycle of each keyframe must be its KEYFRAME's (§10.1,
            # §11.1).
            cycle, npages, state = parse_keyframe(tr, tr.payload(k), k)
            if tr.index is not None and tr.index_kf_cycles[kno] != cycle:
                raise corrupt("INDEX chunk at offset %d: keyframe %d has cycle %d, its %s "
                              "says %d" % (tr.index_chunk.off, kno, tr.index_kf_cycles[kno],
                                           k.where(), cycle))
            if checker is not None:
                checker.keyframe(k, pg, kind, index, ended)
            else:
                n, seen = 0, set()
                for pc in pg:
                    for space, page, _ in parse_pages(tr, tr.payload(pc), pc):
                        # FORMAT.md §9.1, §11.1: a page twice in one keyframe is corruption
                        # to a full validation
                        if (space, page) in seen:
                            raise corrupt("%s: page %d:0x%x listed twice"
                                          % (k.where(), space, page))
                        seen.add((space, page))
                        n += 1
                if npages != n:
                    raise corrupt("%s: npages %d, its PAGES chunks hold %d"
                                  % (k.where(), npages, n))
                if k.key != index:
                    raise corrupt("%s: key %d but %d issues precede it"
                                  % (k.where(), k.key, index))
    if tr.index is not None:
        # FORMAT.md §6, §10.1, §11.1: a complete trace MUST hold an END record, and its
        # INDEX totals (issues, records, cycle, end_status, raw_size of §13) MUST match
        # the records; a full validation (which this reader always does) reports either
        # as corruption.
        ix = tr.index
        e = dec.end
        if e is None:
            raise corrupt("INDEX chunk at offset %d: the stream has no END record"
                          % tr.index_chunk.off)
        probs = []
        if ix["issues"] != dec.issues:
            probs.append("issues %d != %d" % (ix["issues"], dec.issues))
        if ix["records"] != dec.records:
            probs.append("records %d != %d" % (ix["records"], dec.records))
        if ix["cycle"] != e["cycle"]:
            probs.append("cycle %d != %d" % (ix["cycle"], e["cycle"]))
        if ix["end_status"] != dec.end_status:
            probs.append("end status %d != %d" % (ix["end_status"], dec.end_status))
        if ix["raw_size"] != dec.raw_size:
            probs.append("raw_size %d != %d (section 13)" % (ix["raw_size"], dec.raw_size))
        if probs:
            raise corrupt("INDEX chunk at offset %d does not match the records: %s"
                          % (tr.index_chunk.off, "; ".join(probs)))
        if tr.index_kf_cycles is not None:
            pass
    return dec


def strip_private(ev):
    for w in ev.get("wctl", ()):
        w.pop("_kind", None)
    return ev


def main(argv):
    args = argv[1:]
    keyframes = False
    if args and args[0] == "--keyframes":
        keyframes = True
        args = args[1:]
    if len(args) != 1:
        sys.stderr.write("usage: vxt_spec.py [--keyframes] TRACE\n")
        return 2
    path = args[0]
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        sys.stderr.write("vxt_spec: %s: %s\n" % (path, e.strerror))
        return 2
    outf = sys.stdout
    buf = []
    dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode

    def out(ev):
        buf.append(dumps(strip_private(ev)))
        if len(buf) >= 4096:
            outf.write("\n".join(buf) + "\n")
            buf.clear()
    status = 0
    try:
        tr = Trace(data, path)
        checker = KeyframeChecker(tr) if keyframes else None
        read_events(tr, checker, out)
        if tr.skipped_unknown and (tr.minor > 1 or tr.major > 1):
            # section 3.1: tell the user only when something had to be skipped
            sys.stderr.write("vxt_spec: %s: format %d.%d: fields this reader (1.1) does not "
                             "know were skipped\n" % (path, tr.major, tr.minor))
        if tr.incomplete:
            sys.stderr.write("vxt_spec: %s: incomplete trace (%s): events up to the last "
                             "complete chunk shown\n" % (path, tr.cut_reason))
            status = 1
    except VxtError as e:
        sys.stderr.write("vxt_spec: %s: %s%s\n" % (path, "" if e.kind == "CORRUPT" else
                                                   e.kind.lower() + ": ", e))
        status = 2
    except Mismatch as e:
        sys.stderr.write("vxt_spec: %s: keyframe mismatch: %s\n" % (path, e))
        status = 3
    if buf:
        outf.write("\n".join(buf) + "\n")
    outf.flush()
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
