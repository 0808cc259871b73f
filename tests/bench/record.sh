#!/bin/sh
# record.sh - vxrec benchmark (make bench): for sgemm and vecadd, larger variants built
# with vxcc when the RISC-V toolchain is there (else the example kernels as built), at
# 1x1x4x4 and 1x4x8x32, print
#   - recording time / plain vxsim time (same kernel and shape, run one after the
#     other, best of 3; wall and CPU time), and the part of it that is the
#     simulator's own observer path (vxrec --discard: events observed, not recorded),
#   - what recording itself costs per warp-instruction: (vxrec - vxrec --discard) CPU
#     time / issues (encoding, compression, checksums, writing),
#   - trace bytes per warp-instruction (EVENTS chunks) and for the whole file,
#   - compression ratio: raw commit-log size (FORMAT.md section 13) / trace size.
# Prints figures; never fails on timing.
set -u
BIN=${VXRR_BIN:-build/bin}
KDIR=${VXRR_KERNELS:-build/kernels}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/vxrr-bench-record.XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM
VXCC=kernel/vxcc

kernels=""
if command -v riscv64-unknown-elf-gcc >/dev/null 2>&1 && [ -f "$VXCC" ] &&
   sh "$VXCC" -O2 -DN=20000 -o "$TMP/vecadd-20000.elf" kernel/examples/vecadd.c 2>/dev/null &&
   sh "$VXCC" -O2 -DN=64 -o "$TMP/sgemm-64.elf" kernel/examples/sgemm.cpp 2>/dev/null; then
    kernels="$TMP/vecadd-20000.elf $TMP/sgemm-64.elf"
else
    echo "(vxcc or the RISC-V toolchain is missing: using the example kernels as built)"
    for k in vecadd sgemm; do [ -f "$KDIR/$k.elf" ] && kernels="$kernels $KDIR/$k.elf"; done
fi
if [ -z "$kernels" ]; then
    echo "no kernels to measure (make kernels)"
    exit 0
fi

exec python3 - "$BIN" "$TMP" $kernels <<'PY'
import os, re, resource, subprocess, sys, time

binp, tmp, kernels = sys.argv[1], sys.argv[2], sys.argv[3:]
shapes = [("1x1x4x4", ["-C", "1", "-c", "1", "-w", "4", "-t", "4"]),
          ("1x4x8x32", ["-C", "1", "-c", "4", "-w", "8", "-t", "32"])]

def timed(args):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return wall, cpu, p

print("%-14s %-9s %10s %8s %8s %7s %7s %7s %8s %8s %9s %9s" % (
    "kernel", "shape", "issues", "vxsim s", "vxrec s", "wall x", "cpu x", "obs x",
    "own ns", "B/issue", "B/issue*", "raw/trace"))
for k in kernels:
    name = os.path.splitext(os.path.basename(k))[0]
    for sname, shape in shapes:
        trace = os.path.join(tmp, "%s-%s.vxt" % (name, sname))
        sim = [timed([os.path.join(binp, "vxsim")] + shape + [k]) for _ in range(3)]
        rec = [timed([os.path.join(binp, "vxrec"), "-f"] + shape + [k, "-o", trace]) for _ in range(3)]
        obs = [timed([os.path.join(binp, "vxrec"), "-q", "--discard"] + shape + [k]) for _ in range(3)]
        ow, oc = min(o[0] for o in obs), min(o[1] for o in obs)
        sw, sc = min(s[0] for s in sim), min(s[1] for s in sim)
        rw, rc = min(r[0] for r in rec), min(r[1] for r in rec)
        err = rec[-1][2].stderr
        m_ev = re.search(r"(\d+) events \((\d+) issues", err)
        m_pb = re.search(r"([0-9.]+) bytes/issue", err)
        m_tr = re.search(r"trace (\d+) bytes", err)
        m_raw = re.search(r"raw commit log (\d+) bytes", err)
        if not (m_ev and m_pb and m_tr and m_raw):
            print("%-14s %-9s vxrec failed: %s" % (name, sname, err.strip()[:200]))
            continue
        issues = int(m_ev.group(2))
        size, raw = int(m_tr.group(1)), int(m_raw.group(1))
        print("%-14s %-9s %10d %8.3f %8.3f %7.2f %7.2f %7.2f %8.1f %8.2f %9.2f %9.1f" % (
            name, sname, issues, sw, rw, rw / sw if sw else 0, rc / sc if sc else 0,
            ow / sw if sw else 0, (rc - oc) / issues * 1e9 if issues else 0,
            float(m_pb.group(1)), size / issues if issues else 0, raw / size if size else 0))
print("B/issue: EVENTS chunks per warp-instruction; B/issue*: whole file (image, keyframes) per")
print("warp-instruction; raw/trace: naive fixed-width commit log / trace file; wall x, cpu x:")
print("recording over plain vxsim, best of 3 each, measured back to back on this machine;")
print("obs x: the simulator with its observer on and nothing recorded (vxrec --discard) over")
print("plain vxsim: the floor of any recorder built on the observer.  own ns: (vxrec - vxrec")
print("--discard) CPU time per warp-instruction, what the recorder adds to the observer.")
PY
