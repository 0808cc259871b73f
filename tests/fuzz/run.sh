#!/bin/sh
# run.sh SECONDS - run each libFuzzer harness (build/fuzz/fuzz/*) for SECONDS, on a
# corpus kept in build/fuzz/corpus/<harness>/ and seeded with small traces recorded
# now (uncompressed and compressed, several shapes, keyframes every few issues) and
# with the golden traces; GDB packet seeds for fuzz-gdb.  Crash inputs are left in
# build/fuzz/crashes/.  Exit status: 0 when no harness found a problem, 1 otherwise.
set -u
T=${1:-60}
F=build/fuzz/fuzz
C=build/fuzz/corpus
K=build/kernels
mkdir -p "$C/fuzz-trace" "$C/fuzz-replay" "$C/fuzz-gdb" "$C/fuzz-sim" "$C/fuzz-tools" \
    "$C/fuzz-lines" build/fuzz/crashes
# traces: small on purpose (the fuzzer mutates bytes; the smaller the input, the
# more of it each mutation reaches)
n=0
for k in hello diverge gbar reduce; do
    [ -f "$K/$k.elf" ] || continue
    for shape in "-c 1 -w 2 -t 4" "-c 2 -w 2 -t 8"; do
        for opt in "--no-compress" ""; do
            n=$((n + 1))
            build/bin/vxrec -q -f $shape --max-cycles 300 --keyframe-interval 64 \
                --chunk-size 2048 $opt "$K/$k.elf" -o "$C/fuzz-trace/seed-$n.vxt" \
                >/dev/null 2>&1
            if [ -f "$C/fuzz-trace/seed-$n.vxt" ]; then
                cp "$C/fuzz-trace/seed-$n.vxt" "$C/fuzz-replay/"
                cp "$C/fuzz-trace/seed-$n.vxt" "$C/fuzz-tools/"
            fi
        done
    done
done
# the trace fuzz-gdb serves and fuzz-tools compares with: two warps diverging
VXRR_FUZZ_TRACE=build/fuzz/gdb.vxt
export VXRR_FUZZ_TRACE
build/bin/vxrec -q -f -c 1 -w 2 -t 4 --max-cycles 400 --keyframe-interval 100 \
    "$K/diverge.elf" -o "$VXRR_FUZZ_TRACE" >/dev/null 2>&1
cp tests/golden/*.vxt "$C/fuzz-trace/"
cp tests/golden/*.vxt "$C/fuzz-replay/"
cp tests/golden/*.vxt "$C/fuzz-tools/"
python3 - "$C/fuzz-gdb" <<'PY'
import os, sys
d = sys.argv[1]
def pkt(s):
    return "$%s#%02x" % (s, sum(s.encode()) % 256)
seqs = [
    ["qSupported:multiprocess+;swbreak+;hwbreak+", "?", "g", "qfThreadInfo", "qsThreadInfo"],
    ["QStartNoAckMode", "Hg2", "p20", "m80000000,40", "vCont?", "vCont;s:1"],
    ["Z0,80000010,4", "c", "bc", "z0,80000010,4", "bs", "bs", "s"],
    ["Z2,100,4", "c", "bc", "Z3,100,4", "Z4,100,4", "z2,100,4", "qRcmd,7678"],
    ["qXfer:features:read:target.xml:0,fff", "qC", "T2", "P5=01000000", "D"],
    # vxrr.gdb's thread-specific breakpoint list, then a breakpoint hit
    ["qRcmd," + "thread-breaks 2:80000010 6:80000014".encode().hex(), "Z0,80000010,4", "c",
     "qRcmd," + "thread-breaks".encode().hex(), "bc"],
    ["QTFrame:0", "qAttached", "vMustReplyEmpty", "X80000000,0:", "k"],
    # a seek shown as a stop (monitor stop-step), a step over a watchpoint's access
    ["qRcmd," + "seek 40".encode().hex(), "qRcmd," + "stop-step 1".encode().hex(), "vCont;s:1",
     "qRcmd," + "stop-step".encode().hex(), "c", "Z2,100,4", "vCont;c:5", "z2,100,4",
     "vCont;s:5", "bc", "bs", "qRcmd," + "lane 2 exact".encode().hex(),
     "qRcmd," + "lane auto 3".encode().hex(), "qRcmd," + "warps".encode().hex()],
    # GDB's step over the breakpoint it stopped at, after another thread was picked (Hg),
    # then a continue
    ["Z0,80000010,4", "c", "Hg7", "g", "z0,80000010,4", "Hc1", "bs", "Z0,80000010,4", "Hc0",
     "bc", "Hg3", "z0,80000010,4", "Hc5", "s", "Z0,80000010,4", "Hc0", "c"],
    # the thread the user selected for a continue (vxrr.gdb's monitor pick), kept through
    # GDB's step over, then a reverse continue; a pick of no thread
    ["qRcmd," + "pick 6".encode().hex(), "Z0,80000010,4", "c", "z0,80000010,4", "vCont;s:1",
     "Z0,80000010,4", "c", "qRcmd," + "pick 3".encode().hex(), "bc",
     "qRcmd," + "pick 99999".encode().hex(), "qRcmd," + "pick off".encode().hex(), "c"],
    # conditions (agent expressions): const 1; reg 10 == 0; *(u32 *)(reg 2) < 5, ext 32
    ["Z0,80000010,4;X3,220127", "c", "Z0,80000010,4;X7,26000a22001327", "bc",
     "Z0,80000014,4;X9,260002192022051427;X3,220027", "c", "bc", "z0,80000014,4", "c"],
]
for i, s in enumerate(seqs):
    with open(os.path.join(d, "seed-%d" % i), "w") as f:
        f.write("+" + "".join(pkt(p) for p in s) + "\x03")
PY
# fuzz-sim: the example kernels' code (a .vxbin less its 16-byte header is the raw
# image at 0x80000000), on a few platforms (4, 8 and 32 lanes; the last two also with
# affine log records, 0x40, and deferred compression, 0x80), with and without Debug
# Module steps
python3 - "$C/fuzz-sim" "$K" <<'PY'
import glob, os, struct, sys
d, k = sys.argv[1], sys.argv[2]
steps = [(1, 6, 1), (0, 5, 0), (3, 0, 100), (1, 6, 2), (3, 0, 50), (1, 6, 0)]  # halt, status, run...
for i, f in enumerate(sorted(glob.glob(os.path.join(k, "*.vxbin")))):
    code = open(f, "rb").read()[16:]
    for shape in (0x10, 0x13, 0x1b, 0x5b, 0xeb):
        for st in ([], steps):
            body = bytes([shape, len(st)]) + b"".join(struct.pack("<BBI", *s) for s in st)
            name = "seed-%d-%x-%d" % (i, shape, len(st))
            open(os.path.join(d, name), "wb").write(body + code[:16384])
PY
# fuzz-lines: the example kernels' line tables (DWARF 5 and, rebuilt, 4), and two kernels
sh tests/fuzz/seed-lines.sh "$K" "$C/fuzz-lines"
status=0
for h in fuzz-trace fuzz-replay fuzz-gdb fuzz-sim fuzz-tools fuzz-lines; do
    echo "== $h: $T s"
    if ! "$F/$h" -max_total_time="$T" -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix=build/fuzz/crashes/"$h"- "$C/$h" 2>build/fuzz/$h.log; then
        status=1
        tail -40 build/fuzz/$h.log
    else
        grep -E "stat::number_of_executed_units|cov:" build/fuzz/$h.log | tail -2
    fi
done
exit $status
