#!/bin/sh
# vxsim throughput (make bench): warp-instructions and lane-operations per second of
# the simulator alone (vxsim, no observer), release build, one host core.
#   loop    a register-only loop on every warp and lane (hand assembled below)
#   sgemm   kernel/examples/sgemm.cpp with N=256 (FP multiply-add heavy)
#   vecadd  kernel/examples/vecadd.c with N=2000000 (memory and runtime heavy; large
#           enough that loading and start-up do not count)
# on the default 1x1x4x4 platform and on 1x4x8x32.  Targets (DESIGN/brief):
# >= 30 M warp-instr/s at 1x1x4x4, >= 300 M lane-ops/s at 1x4x8x32.
# obs x: the same run with the simulator's observer on and nothing recorded
# (vxrec --discard) over plain vxsim, when vxrec is built: what observing costs.
# Figures only; nothing here fails on timing.
set -u
BIN=${VXRR_BIN:-build/bin}
VXSIM="$BIN/vxsim"
VXREC="$BIN/vxrec"
[ -x "$VXSIM" ] || { echo "vxsim not built"; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

cat > "$T/loop.S" <<'EOF'
    .text
    .globl _start
_start:
    li t0, 1024                 # wspawn(all warps, body)
    la t1, body
    .insn r 0x0b, 1, 0, x0, t0, t1
body:
    li a0, -1                   # tmc -1: every lane
    .insn r 0x0b, 0, 0, x0, a0, x0
    li t2, ITER
loop:
    addi t3, t3, 1
    xor t4, t3, t2
    add t5, t5, t4
    addi t2, t2, -1
    bnez t2, loop
    csrr t0, 0xcc1              # warp 0 waits for the others: wspawn(1, 0)
    bnez t0, done
    li a1, 1
    .insn r 0x0b, 1, 0, x0, a1, x0
done:
    .insn r 0x0b, 0, 0, x0, x0, x0
EOF
for it in 1000000 250000; do
    riscv64-unknown-elf-as -march=rv32im_zicsr -mabi=ilp32 --defsym ITER=$it "$T/loop.S" -o "$T/loop.o" &&
        riscv64-unknown-elf-ld -m elf32lriscv -Ttext=0x80000000 -e _start "$T/loop.o" -o "$T/loop$it.elf" ||
        { echo "cannot assemble the loop kernel"; exit 1; }
done
sh kernel/vxcc -O2 -DN=256 -o "$T/sgemm.elf" kernel/examples/sgemm.cpp ||
    { echo "cannot build sgemm"; exit 1; }
sh kernel/vxcc -O2 -DN=2000000 -o "$T/vecadd.elf" kernel/examples/vecadd.c ||
    { echo "cannot build vecadd"; exit 1; }

now() { date +%s.%N; }

# CPU seconds (user + system) of one run, from getrusage (microseconds): the host
# is shared, so wall time would measure the other jobs too.  The difference of
# two readings: python3 may already have waited for children of its own at start-up.
cpu_time() {
    python3 -c '
import resource, subprocess, sys
r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.4f" % (r.ru_utime + r.ru_stime - r0.ru_utime - r0.ru_stime))' "$@"
}

run() { # name shape...
    name=$1
    shift
    best=""
    for i in 1 2 3; do
        t=$(cpu_time "$VXSIM" "$@" "$T/$name.elf")
        best=$(echo "$t ${best:-$t}" | awk '{print ($1 < $2) ? $1 : $2}')
    done
    obs=""
    if [ -x "$VXREC" ]; then
        for i in 1 2 3; do
            t=$(cpu_time "$VXREC" -q --discard "$@" "$T/$name.elf")
            obs=$(echo "$t ${obs:-$t}" | awk '{print ($1 < $2) ? $1 : $2}')
        done
    fi
    stats=$("$VXSIM" --stats "$@" "$T/$name.elf" 2>&1 > /dev/null)
    ins=$(echo "$stats" | awk '/^instructions:/ {print $2}')
    lops=$(echo "$stats" | awk '/^lane-ops:/ {print $2}')
    echo "$name $* $ins $lops $best ${obs:-0}" | awk '{
        n = NF; o = $n; t = $(n - 1); lops = $(n - 2); ins = $(n - 3); shape = "";
        for (i = 2; i <= n - 4; i++) shape = shape " " $i;
        printf "%-13s %-16s %10d instr %11d lane-ops %7.3f s  %6.1f M warp-instr/s  %7.1f M lane-ops/s",
               $1, shape, ins, lops, t, ins / t / 1e6, lops / t / 1e6;
        if (o > 0) printf "  obs x %.2f", o / t;
        printf "\n" }'
}

echo "vxsim throughput (best of 3, CPU time of the process: includes start-up and loading)"
run loop1000000 -c1 -w4 -t4
run loop250000 -c4 -w8 -t32
for k in sgemm vecadd; do
    run $k -c1 -w4 -t4
    run $k -c4 -w8 -t32
done
