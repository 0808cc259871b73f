#!/bin/sh
# diff.sh - vxdiff benchmark (make bench): two recordings of a 40 M-issue loop, compared
#   same     identical traces (every chunk skipped by its digest)
#   damaged  the same, with a byte flipped in B's last EVENTS chunk but one (the run of
#            identical chunks before it skipped, the damage then reported)
# printed as CPU seconds and as the ratio damaged / same, measured side by side.  A
# vxdiff that compared the skipped run again on meeting the damage took about 100x.
# Figures only; nothing here fails on timing.
set -u
BIN=${VXRR_BIN:-build/bin}
[ -x "$BIN/vxdiff" ] && [ -x "$BIN/vxrec" ] || { echo "vxdiff or vxrec not built"; exit 1; }
command -v riscv64-unknown-elf-as >/dev/null 2>&1 || { echo "(no RISC-V toolchain: skipped)"; exit 0; }
T=$(mktemp -d "${TMPDIR:-/tmp}/vxrr-bench-diff.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
cat > "$T/spin.S" <<'ASM'
    .text
    .globl _start
_start:
    li t4, 0
    li t5, 40000000
1:  addi t4, t4, 1
    bltu t4, t5, 1b
    li a0, 0
    sw a0, 0x88(zero)
    .insn r 0x0b, 0, 0, x0, x0, x0
ASM
riscv64-unknown-elf-as -march=rv32im -mabi=ilp32 "$T/spin.S" -o "$T/spin.o" &&
    riscv64-unknown-elf-ld -m elf32lriscv -Ttext=0x80000000 -e _start "$T/spin.o" -o "$T/spin.elf" ||
    { echo "cannot assemble the loop kernel"; exit 1; }
"$BIN/vxrec" -q -f -w 1 -t 1 "$T/spin.elf" -o "$T/a.vxt" || { echo "vxrec failed"; exit 1; }
python3 - "$BIN" "$T" <<'PY'
import resource, struct, subprocess, sys
binp, tmp = sys.argv[1], sys.argv[2]
a, b, c = tmp + "/a.vxt", tmp + "/b.vxt", tmp + "/c.vxt"
data = bytearray(open(a, "rb").read())
open(c, "wb").write(data)  # an identical copy (not the same file)
ev, off = [], 16          # EVENTS chunks (type 4), walked by their headers (FORMAT.md 4)
while off < len(data) - 16:
    t, _, _, stored, _, key = struct.unpack_from("<BBHIIQ", data, off)
    if t == 4:
        ev.append((off, stored))
    off += 28 + stored
o, stored = ev[-2]
data[o + 28 + stored // 2] ^= 0x10
open(b, "wb").write(data)

def cpu(args):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime - r0.ru_utime - r0.ru_stime

same, damaged = [], []
for _ in range(3):
    same.append(cpu([binp + "/vxdiff", "-q", a, c]))
    damaged.append(cpu([binp + "/vxdiff", "-q", a, b]))
s, d = min(same), min(damaged)
print("vxdiff, %d EVENTS chunks: same %.3f s, damaged at the end %.3f s CPU; damaged/same %.1fx"
      % (len(ev), s, d, d / s if s > 0 else float("inf")))
PY
