#!/bin/sh
# make demo: the whole story on one example kernel.
set -eu
cd "$(dirname "$0")/.."
BIN="$PWD/build/bin"
K="$PWD/build/kernels"
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

say "Run the sgemm example kernel on vxsim (1 cluster x 2 cores x 4 warps x 4 threads)"
echo "\$ vxsim -c 2 -w 4 -t 4 --stats build/kernels/sgemm.elf"
"$BIN/vxsim" -c 2 -w 4 -t 4 --stats "$K/sgemm.elf"

if [ -x "$BIN/vxrec" ]; then
    work=$(mktemp -d /tmp/vxrr-demo.XXXXXX)
    trap 'rm -rf "$work"' EXIT
    say "Record it"
    echo "\$ vxrec -c 2 -w 4 -t 4 build/kernels/sgemm.elf -o sgemm.vxt"
    "$BIN/vxrec" -c 2 -w 4 -t 4 "$K/sgemm.elf" -o "$work/sgemm.vxt"
    say "Verify the trace against a fresh re-simulation, and check it for data races"
    echo "\$ vxrec --verify sgemm.vxt --races"
    "$BIN/vxrec" --verify "$work/sgemm.vxt" --races
    if [ -x "$BIN/vxdump" ]; then
        say "First events of the trace"
        "$BIN/vxdump" --to 12 "$work/sgemm.vxt"
    fi
    if [ -f tests/demo-gdb.sh ] && [ -x "$BIN/vxreplay" ]; then
        say "Reverse-debug it with gdb-multiarch"
        sh tests/demo-gdb.sh
    fi
fi
