#!/bin/sh
# races.sh - what vxsim --races costs (make bench): for vecadd (N=400000) and sgemm
# (N=192), built with vxcc, at 1x1x4x4 and 1x4x8x32, the wall time of vxsim --races
# over plain vxsim (run one right after the other, median of 3 rounds' ratios) and the
# peak resident memory of each.  Figures only; nothing here fails on timing.
set -u
BIN=${VXRR_BIN:-build/bin}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/vxrr-bench-races.XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM
if ! command -v riscv64-unknown-elf-gcc >/dev/null 2>&1 ||
   ! sh kernel/vxcc -O2 -DN=400000 -o "$TMP/vecadd-400000.elf" kernel/examples/vecadd.c ||
   ! sh kernel/vxcc -O2 -DN=192 -o "$TMP/sgemm-192.elf" kernel/examples/sgemm.cpp; then
    echo "(vxcc or the RISC-V toolchain is missing: no race-check figures)"
    exit 0
fi
# not exec: the shell stays to run the trap that removes $TMP
python3 - "$BIN" "$TMP/vecadd-400000.elf" "$TMP/sgemm-192.elf" <<'PY'
import os, statistics, subprocess, sys, time

binp, kernels = sys.argv[1], sys.argv[2:]
shapes = [("1x1x4x4", ["-C", "1", "-c", "1", "-w", "4", "-t", "4"]),
          ("1x4x8x32", ["-C", "1", "-c", "4", "-w", "8", "-t", "32"])]


def timed(args):
    """wall seconds, peak RSS (MiB) and exit status of one run (wait4: its own rusage)"""
    t0 = time.perf_counter()
    p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    return wall, ru.ru_maxrss / 1024.0, p.returncode


print("%-14s %-9s %8s %9s %8s %9s %9s" % ("kernel", "shape", "vxsim s", "races s", "races x",
                                          "vxsim MB", "races MB"))
for k in kernels:
    name = os.path.splitext(os.path.basename(k))[0]
    for sname, shape in shapes:
        plain, race = [], []
        for _ in range(3):
            plain.append(timed([os.path.join(binp, "vxsim")] + shape + [k]))
            race.append(timed([os.path.join(binp, "vxsim"), "--races"] + shape + [k]))
        if any(r[2] != 0 for r in plain + race):
            print("%-14s %-9s a run failed (exit %s)" % (name, sname,
                                                        [r[2] for r in plain + race]))
            continue
        ratio = statistics.median([r[0] / p[0] for p, r in zip(plain, race)])
        print("%-14s %-9s %8.3f %9.3f %8.1f %9.0f %9.0f" % (
            name, sname, statistics.median([p[0] for p in plain]),
            statistics.median([r[0] for r in race]), ratio,
            max(p[1] for p in plain), max(r[1] for r in race)))
print("races x: vxsim --races over plain vxsim, wall time, median of 3 rounds; MB: peak")
print("resident memory.  The checker's shadow takes 48 KiB per 4 KiB page the kernel touches,")
print("160 bytes more per word that byte or halfword accesses take apart.")
PY
exit $?
