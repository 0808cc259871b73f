"""vxt_make - writing traces from trace-format/FORMAT.md alone, for the hand-made traces
of t4004 (its Writer) and the consistently edited recordings of t4001 and t4004: the
primitive encodings (section 2), chunks (section 4) and a whole file with its INDEX and
trailer (sections 3, 10).
"""
import struct

import vxt_spec


def varint(v):
    out = bytearray()
    while True:
        b, v = v & 0x7F, v >> 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def sv32(d):
    d = ((d + 2**31) % 2**32) - 2**31
    return varint(((d << 1) ^ (d >> 31)) & 0xFFFFFFFF)


def sv64(d):
    return varint(((d << 1) ^ (d >> 63)) & (2**64 - 1))


def string(s):
    s = s if isinstance(s, bytes) else s.encode()
    return varint(len(s)) + s


def chunk(t, key, payload):
    h = struct.pack("<BBHIIQI", t, 0, 0, len(payload), len(payload), key,
                    vxt_spec.crc32c(payload))
    return h + struct.pack("<I", vxt_spec.crc32c(h)) + payload


def fix_crcs(data, off):
    """Recompute the payload and header CRCs of the (uncompressed) chunk at off."""
    st = struct.unpack_from("<I", data, off + 4)[0]
    struct.pack_into("<I", data, off + 20, vxt_spec.crc32c(bytes(data[off + 28:off + 28 + st])))
    struct.pack_into("<I", data, off + 24, vxt_spec.crc32c(bytes(data[off:off + 24])))


def signature(minor):
    sig = b"\x89VXT\r\n\x1a\n" + struct.pack("<HH", 1, minor)
    return sig + struct.pack("<I", vxt_spec.crc32c(sig))


def assemble(minor, parts, totals, index_tail=b""):
    """A whole trace of format 1.minor: the signature, then parts in order - bytes are
    written as they are and listed nowhere, a (type, key, payload) tuple as an
    uncompressed chunk - then the INDEX and the trailer.  The INDEX lists every EVENTS
    chunk given as a tuple and every KEYFRAME(2) chunk given so, with the run of PAGES(2)
    chunks of its kind and key before it (other chunks between those skipped); no DIGEST
    (ndigests 0).  totals: issues, records, cycle, end_status, raw_size, and
    kf_cycle_bias (added to every keyframe's cycle)."""
    f = bytearray(signature(minor))
    evs, kfs = [], {6: [], 10: []}
    run = None  # (offset of the first PAGES chunk, its type, its key)
    for part in parts:
        if isinstance(part, (bytes, bytearray)):
            f += part
            continue
        t, key, payload = part
        off = len(f)
        f += chunk(t, key, bytes(payload))
        if t in (5, 9) and not (run and run[1:] == (t, key)):
            run = (off, t, key)
        elif t in (6, 10):
            first = off - run[0] if run and run[1:] == (t - 1, key) else 0
            kfs[t].append((key, off, first, vxt_spec.rvarint(payload, 0)[0]))
            run = None
        elif t == 4:
            evs.append((key, off))
            run = None

    def kflist(lst):
        out, pk, po = varint(len(lst)), 0, 0
        for key, off, first, cyc in lst:
            out += varint(key - pk) + varint(off - po) + varint(first)
            out += varint(cyc + totals.get("kf_cycle_bias", 0))
            pk, po = key, off
        return out
    ix = varint(totals["issues"]) + varint(totals["records"]) + varint(totals["cycle"])
    ix += bytes([totals["end_status"]]) + varint(len(evs))
    pk = po = 0
    for key, off in evs:
        ix += varint(key - pk) + varint(off - po)
        pk, po = key, off
    ix += kflist(kfs[6]) + varint(totals["raw_size"])
    if minor >= 1:
        ix += kflist(kfs[10]) + varint(0)
    ix += index_tail
    io = len(f)
    f += chunk(7, 0, ix)
    t = struct.pack("<Q", io)
    return bytes(f + t + struct.pack("<I", vxt_spec.crc32c(t)) + b"VXTE")


def edit_recording(data, edit):
    """A recorded trace taken apart into (type, key, payload) chunks (payloads
    decompressed; the INDEX left out), edit(chunks) changing that list in place, put
    back together by assemble() with the recording's INDEX totals, so that every CRC,
    offset and keyframe cycle of the INDEX is right for the edited file."""
    tr = vxt_spec.Trace(data)
    chunks, off = [], 16
    while off < tr.prologue_end:          # HEADER, IMAGE, LOAD (and unknown) chunks
        chunks.append(tr._chunk_header(off))
        off = chunks[-1].end
    chunks += [c for c in tr.chunks if c.type != vxt_spec.CH_INDEX]
    parts = [[c.type, c.key, tr.payload(c)] for c in chunks]
    edit(parts)
    totals = {k: tr.index[k] for k in ("issues", "records", "cycle", "end_status", "raw_size")}
    return assemble(tr.minor, [tuple(p) for p in parts], totals)


def header_tags(payload):
    """A HEADER payload (FORMAT.md 5.1) as a list of [tag, value bytes]."""
    out, p = [], 0
    while p < len(payload):
        t, p = vxt_spec.rvarint(payload, p)
        n, p = vxt_spec.rvarint(payload, p)
        out.append([t, bytes(payload[p:p + n])])
        p += n
    return out


def header_payload(tags):
    return b"".join(varint(t) + varint(len(v)) + v for t, v in tags)
