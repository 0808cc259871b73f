#!/bin/sh
# races.sh - what vxsim --races costs (make bench): for vecadd (N=400000) and sgemm
# (N=192), built with vxcc, at 1x1x4x4 and 1x4x8x32, and a 64 KiB table read by every
# warp of 1024 (1x64x16x4: each word's read set holds a read of each warp), the wall
# time of vxsim --races over plain vxsim (run one right after the other, median of 3
# rounds' ratios) and the peak resident memory of each.  Figures only; nothing here
# fails on timing.
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
# every warp reads the whole table, a global barrier, then the warps overwrite it
cat >"$TMP/table.c" <<'EOF'
#include <vx_intrinsics.h>
#include <vx_spawn.h>
#define WORDS 16384u
uint32_t table[WORDS] = {1, 2, 3}, sums[1 << 16];
static void reader(void *arg)
{
    (void)arg;
    uint32_t nt = (uint32_t)vx_num_threads(), s = 0;
    for (uint32_t i = threadIdx.x % nt; i < WORDS; i += nt)
        s += table[i];
    sums[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
static void writer(void *arg)
{
    (void)arg;
    uint32_t n = gridDim.x * blockDim.x;
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < WORDS; i += n)
        table[i] = i;
}
int main(void)
{
    uint32_t grid = (uint32_t)vx_num_cores(), block = (uint32_t)(vx_num_warps() * vx_num_threads());
    vx_spawn_threads(1, &grid, &block, reader, 0);
    if (grid > 1) vx_barrier((int)0x80000000, (int)grid);
    vx_spawn_threads(1, &grid, &block, writer, 0);
    return 0;
}
EOF
if ! sh kernel/vxcc -O2 -o "$TMP/table.elf" "$TMP/table.c"; then
    echo "(the table kernel does not build: no race-check figures)"
    exit 0
fi
# not exec: the shell stays to run the trap that removes $TMP
python3 - "$BIN" "$TMP/vecadd-400000.elf" "$TMP/sgemm-192.elf" "$TMP/table.elf" <<'PY'
import os, statistics, subprocess, sys, time

binp, kernels = sys.argv[1], sys.argv[2:]


def shape(s):
    """(name, vxsim options) of a CxcxWxT shape"""
    return (s, [o for f, v in zip(["-C", "-c", "-w", "-t"], s.split("x")) for o in (f, v)])


runs = [(k, shape(s)) for k in kernels[:2] for s in ("1x1x4x4", "1x4x8x32")]
runs.append((kernels[2], shape("1x64x16x4")))


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
for k, (sname, opts) in runs:
    name = os.path.splitext(os.path.basename(k))[0]
    plain, race = [], []
    for _ in range(3):
        plain.append(timed([os.path.join(binp, "vxsim")] + opts + [k]))
        race.append(timed([os.path.join(binp, "vxsim"), "--races"] + opts + [k]))
    if any(r[2] != 0 for r in plain + race):
        print("%-14s %-9s a run failed (exit %s)" % (name, sname, [r[2] for r in plain + race]))
        continue
    ratio = statistics.median([r[0] / p[0] for p, r in zip(plain, race)])
    print("%-14s %-9s %8.3f %9.3f %8.1f %9.0f %9.0f" % (
        name, sname, statistics.median([p[0] for p in plain]),
        statistics.median([r[0] for r in race]), ratio,
        max(p[1] for p in plain), max(r[1] for r in race)))
print("races x: vxsim --races over plain vxsim, wall time, median of 3 rounds; MB: peak")
print("resident memory.  The checker's shadow takes 48 KiB per 4 KiB page the kernel touches,")
print("160 bytes more per word that byte or halfword accesses take apart, 16 bytes per word")
print("for each warp that read it since its last write with nothing ordering the reads.")
PY
exit $?
