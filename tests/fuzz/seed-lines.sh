#!/bin/sh
# seed-lines.sh KDIR OUT [VXCC] - the seeds of fuzz-lines (run.sh), into OUT: the
# .debug_line section of every kernel of KDIR (DWARF 5), that of vecadd rebuilt with
# -gdwarf-4, and two whole kernels (hello, and the DWARF 4 vecadd).  Run from the
# source tree.  (objcopy -O binary writes the sections a loader would load and no
# other: .debug_line is marked so in the copy, or its seed is empty.)
set -u
K=$1
O=$2
VXCC=${3:-build/bin/vxcc}
mkdir -p "$O"
line_table() {
    riscv64-unknown-elf-objcopy -O binary --only-section=.debug_line \
        --set-section-flags .debug_line=alloc "$1" "$2" 2>/dev/null || rm -f "$2"
}
for k in "$K"/*.elf; do
    [ -f "$k" ] && line_table "$k" "$O/seed-$(basename "$k" .elf)"
done
[ -f "$K/hello.elf" ] && cp "$K/hello.elf" "$O/seed-hello.elf"
if [ -x "$VXCC" ]; then
    "$VXCC" -O2 -gdwarf-4 -o "$O/seed-v4.elf" kernel/examples/vecadd.c 2>/dev/null &&
        line_table "$O/seed-v4.elf" "$O/seed-v4"
fi
exit 0
