#!/bin/sh
# record.sh - vxrec benchmark (make bench): for sgemm (N=192) and vecadd (N=400000),
# built with vxcc when the RISC-V toolchain is there (else the example kernels as
# built), at 1x1x4x4 and 1x4x8x32, print
#   - recording time / plain vxsim time (same kernel and shape, run one right after
#     the other, in 5 rounds of vxsim, vxrec, vxrec --no-writer-thread, vxrec
#     --discard; the median of the rounds' ratios, so that a host that speeds up or
#     slows down during the run moves both sides of a ratio alike): wall time as
#     vxrec runs by default (a writer thread on 2+ CPUs) and with
#     --no-writer-thread, and CPU time (all threads) by default,
#   - the simulator's own observer path (vxrec --discard: events observed, not
#     recorded) over vxsim, the floor of any recorder built on the observer,
#   - the writer thread's CPU time per warp-instruction (vxrec --timing: encoding,
#     compression, checksums, writing), the time the simulator waited for it and the
#     share of the chunks the simulator's thread compressed for it,
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
   sh "$VXCC" -O2 -DN=400000 -o "$TMP/vecadd-400000.elf" kernel/examples/vecadd.c 2>/dev/null &&
   sh "$VXCC" -O2 -DN=192 -o "$TMP/sgemm-192.elf" kernel/examples/sgemm.cpp 2>/dev/null; then
    kernels="$TMP/vecadd-400000.elf $TMP/sgemm-192.elf"
else
    echo "(vxcc or the RISC-V toolchain is missing: using the example kernels as built)"
    for k in vecadd sgemm; do [ -f "$KDIR/$k.elf" ] && kernels="$kernels $KDIR/$k.elf"; done
fi
if [ -z "$kernels" ]; then
    echo "no kernels to measure (make kernels)"
    exit 0
fi

# not exec: the shell stays to run the trap that removes $TMP
python3 - "$BIN" "$TMP" $kernels <<'PY'
import os, re, resource, statistics, subprocess, sys, time

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

ROUNDS = 5

def med(xs):
    return statistics.median(xs) if xs else 0

print("%-14s %-9s %9s %7s %7s %6s %7s %6s %6s %7s %7s %5s %7s %8s %9s" % (
    "kernel", "shape", "issues", "vxsim s", "vxrec s", "wall x", "1thr x", "cpu x", "obs x",
    "wr ns", "wait s", "sim z", "B/issue", "B/issue*", "raw/trace"))
for k in kernels:
    name = os.path.splitext(os.path.basename(k))[0]
    for sname, shape in shapes:
        trace = os.path.join(tmp, "%s-%s.vxt" % (name, sname))
        vxrec = [os.path.join(binp, "vxrec"), "-f", "--timing"]
        sim, rec, one, obs = [], [], [], []
        for _ in range(ROUNDS):
            sim.append(timed([os.path.join(binp, "vxsim")] + shape + [k]))
            rec.append(timed(vxrec + shape + [k, "-o", trace]))
            one.append(timed(vxrec + ["-q", "--no-writer-thread"] + shape + [k, "-o", trace]))
            obs.append(timed([os.path.join(binp, "vxrec"), "-q", "--discard"] + shape + [k]))
        def ratio(runs, i):
            return med([r[i] / s[i] for r, s in zip(runs, sim) if s[i] > 0])
        sw, rw = med([r[0] for r in sim]), med([r[0] for r in rec])
        wall_x, one_x, cpu_x, obs_x = ratio(rec, 0), ratio(one, 0), ratio(rec, 1), ratio(obs, 0)
        err = sorted(rec, key=lambda r: r[0])[len(rec) // 2][2].stderr
        m_ev = re.search(r"(\d+) events \((\d+) issues", err)
        m_pb = re.search(r"([0-9.]+) bytes/issue", err)
        m_tr = re.search(r"trace (\d+) bytes", err)
        m_raw = re.search(r"raw commit log (\d+) bytes", err)
        m_t = re.search(r"writer thread ([0-9.]+) s CPU; the simulator waited ([0-9.]+) s", err)
        m_z = re.search(r"compressed (\d+) of its (\d+) chunks", err)
        if not (m_ev and m_pb and m_tr and m_raw):
            print("%-14s %-9s vxrec failed: %s" % (name, sname, err.strip()[:200]))
            continue
        issues = int(m_ev.group(2))
        size, raw = int(m_tr.group(1)), int(m_raw.group(1))
        wr_ns = float(m_t.group(1)) / issues * 1e9 if m_t and issues else 0
        wait = float(m_t.group(2)) if m_t else 0
        simz = "%d%%" % (100 * int(m_z.group(1)) // int(m_z.group(2))) if m_z and int(m_z.group(2)) else "-"
        print("%-14s %-9s %9d %7.3f %7.3f %6.2f %7.2f %6.2f %6.2f %7.1f %7.3f %5s %7.2f %8.2f %9.1f" % (
            name, sname, issues, sw, rw, wall_x, one_x, cpu_x, obs_x, wr_ns, wait, simz,
            float(m_pb.group(1)), size / issues if issues else 0, raw / size if size else 0))
print("wall x: vxrec (as it runs by default; a writer thread when 2+ CPUs are online) over")
print("plain vxsim, wall time, run right after it, the median of %d such rounds (vxsim s and" % ROUNDS)
print("vxrec s: the medians of their runs; wr ns, wait s, sim z: of vxrec's median run); 1thr x:")
print("the same with --no-writer-thread; cpu x: CPU time of all of vxrec's threads over vxsim's;")
print("obs x: the simulator with its observer on and nothing recorded (vxrec --discard) over")
print("vxsim, the floor of any recorder built on the observer; wr ns: the writer thread's CPU")
print("time per warp-instruction (encoding, lz4, checksums, writing); wait s: time the simulator")
print("waited, idle, for the writer; sim z: share of the trace's chunks the simulator's thread")
print("compressed for the writer instead of waiting (the writer is the slower thread when > 0).")
print("B/issue: EVENTS chunks per warp-instruction; B/issue*: whole file (image, keyframes) per")
print("warp-instruction; raw/trace: naive fixed-width commit log / trace file.  Targets:")
print("wall x <= 1.5, B/issue <= 6 at 4 threads per warp.")
PY
exit $?
