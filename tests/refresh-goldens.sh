#!/bin/sh
# refresh-goldens.sh - re-record the golden traces in tests/golden/kernels/.
#
#   make refresh-goldens      (builds the programs and kernels, then runs this)
#
# The goldens pin what the simulator and the recorder do on a fixed set of small
# kernels.  tests/t6003-golden.py re-records each golden from the kernel image and
# the input files stored inside it (vxdump --extract), with the platform and options
# in its header, and compares the two traces with vxdiff: any change in behaviour
# (an instruction's result, the schedule, a console byte, the exit status) fails
# `make test` and shows the first difference.
#
# When the change is intended: run `make refresh-goldens`, look at what changed
# (this script lists the goldens it rewrote; `vxdiff OLD NEW` shows how, e.g.
# `git show HEAD:tests/golden/kernels/vecadd.vxt > /tmp/old.vxt`), and commit the
# new goldens together with the change.  A golden is rewritten only when vxdiff
# finds a difference, so an unchanged behaviour leaves the files untouched.
#
# Kernels are built here from their sources: the example kernels with small sizes
# and without debug information, the t6-*.S kernels without the runtime.
set -eu
cd "$(dirname "$0")/.."
BIN=${VXRR_BUILD:-build}/bin
OUT=tests/golden/kernels
CROSS=${VXCC_CROSS:-riscv64-unknown-elf-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir -p "$OUT"
for p in vxcc vxrec vxdiff; do
    [ -x "$BIN/$p" ] || { echo "refresh-goldens: $BIN/$p missing (make all)" >&2; exit 2; }
done

# build NAME SOURCE [compiler flags...]
build() {
    name=$1 src=$2
    shift 2
    case $src in
    *.S)
        "$BIN/vxcc" -c "$@" -o "$tmp/$name.o" "$src"
        "${CROSS}ld" -m elf32lriscv -T kernel/link32.ld --no-warn-rwx-segments -o "$tmp/$name.elf" "$tmp/$name.o"
        ;;
    *)
        "$BIN/vxcc" -O2 "$@" -o "$tmp/$name.elf" "$src"
        "${CROSS}strip" --strip-debug "$tmp/$name.elf"
        ;;
    esac
}

# record NAME EXPECTED-EXIT-STATUS [vxrec options...]
record() {
    name=$1 want=$2
    shift 2
    set +e
    "$BIN/vxrec" -q -f "$@" "$tmp/$name.elf" -o "$tmp/$name.vxt" >/dev/null 2>"$tmp/err"
    st=$?
    set -e
    if [ "$st" != "$want" ]; then
        cat "$tmp/err" >&2
        echo "refresh-goldens: $name: vxrec exited with $st, expected $want" >&2
        exit 1
    fi
    if [ -f "$OUT/$name.vxt" ] && "$BIN/vxdiff" -q "$OUT/$name.vxt" "$tmp/$name.vxt"; then
        echo "  unchanged  $OUT/$name.vxt"
    else
        cp "$tmp/$name.vxt" "$OUT/$name.vxt"
        echo "  rewritten  $OUT/$name.vxt ($(wc -c <"$OUT/$name.vxt") bytes)"
    fi
}

# an input file for t6-shape: the words 100..107, little-endian
printf '\144\0\0\0\145\0\0\0\146\0\0\0\147\0\0\0\150\0\0\0\151\0\0\0\152\0\0\0\153\0\0\0' >"$tmp/words.bin"

build t6-regs tests/kernels/t6-regs.S
record t6-regs 7 -w 1 -t 4
build t6-fault tests/kernels/t6-fault.S
record t6-fault 3 -w 1 -t 4
build t6-bar tests/kernels/t6-bar.S
record t6-bar 0 -w 2 -t 4
build t6-shape tests/kernels/t6-shape.S
record t6-shape 0 -c 2 -w 1 -t 4 --load "$tmp/words.bin@0x20000" --arg 0x20000
build hello kernel/examples/hello.c
record hello 0 -w 2 -t 4
build vecadd kernel/examples/vecadd.c -DN=16
record vecadd 0 -c 2 -w 2 -t 4
build diverge kernel/examples/diverge.c -DN=12
record diverge 0 -w 2 -t 4
echo "refresh-goldens: done; review with vxdiff and commit $OUT"
