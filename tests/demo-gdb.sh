#!/bin/sh
# demo-gdb.sh - the end of the demo: record a kernel once, then debug it backwards
# and forwards in time with an unmodified gdb-multiarch connected to vxreplay.
#
# Called by tests/demo.sh (make demo); runs on its own too:  sh tests/demo-gdb.sh
set -eu
cd "$(dirname "$0")/.."
BIN=${VXRR_BIN:-$PWD/build/bin}
work=$(mktemp -d /tmp/vxrr-demo-gdb.XXXXXX)
srv=""
cleanup() {
    [ -n "$srv" ] && kill "$srv" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

if ! command -v gdb-multiarch >/dev/null 2>&1; then
    echo "demo-gdb: gdb-multiarch is not installed; skipping the debugger part"
    exit 0
fi

say "Build a small kernel for debugging (tests/kernels/rrtest.c, -O0 -g) and record it"
echo "\$ vxcc -O0 -g -o rrtest.elf tests/kernels/rrtest.c"
"$BIN/vxcc" -O0 -g -o "$work/rrtest.elf" tests/kernels/rrtest.c
echo "\$ vxrec rrtest.elf -o rrtest.vxt"
"$BIN/vxrec" "$work/rrtest.elf" -o "$work/rrtest.vxt"

say "Serve the trace to gdb (vxreplay prints how to connect)"
echo "\$ vxreplay --port 0 --once rrtest.vxt"
"$BIN/vxreplay" --port 0 --once "$work/rrtest.vxt" >"$work/server.out" 2>"$work/server.err" &
srv=$!
port=""
for _ in $(seq 1 100); do
    port=$(sed -n 's/.*listening on .* port \([0-9]*\).*/\1/p' "$work/server.out")
    [ -n "$port" ] && break
    sleep 0.1
done
if [ -z "$port" ]; then
    echo "demo-gdb: vxreplay did not start:"; cat "$work/server.err"; exit 1
fi
sed "s|$work/||g" "$work/server.out"

cat >"$work/session.gdb" <<'EOF'
echo \n(gdb) break leaf\n
break leaf
echo \n(gdb) continue              # run forward until a warp calls leaf()\n
continue
echo \n(gdb) info threads          # one GDB thread per (warp, lane)\n
info threads
echo \n(gdb) next                  # step forward (the whole warp moves: SIMT)\n
next
echo \n(gdb) next\n
next
echo \n(gdb) print y\n
print y
echo \n(gdb) reverse-step          # and back again\n
reverse-step
echo \n(gdb) reverse-step\n
reverse-step
echo \n(gdb) delete\n
delete
echo \n(gdb) reverse-finish        # back out to the caller, before the call\n
reverse-finish
echo \n(gdb) break leaf\n
break leaf
echo \n(gdb) continue              # forward again: the same warp enters leaf() again\n
continue
echo \n(gdb) continue              # then the next warps\n
continue
echo \n(gdb) continue\n
continue
echo \n(gdb) reverse-continue      # back to the previous hit, in the thread that made it\n
reverse-continue
echo \n(gdb) monitor when          # where we are in the recorded history\n
monitor when
echo \n(gdb) delete\n
delete
echo \n(gdb) break leaf if x == 13  # tested in every lane by vxreplay: the lane of task 13\n
break leaf if x == 13
echo \n(gdb) continue\n
continue
echo \n(gdb) print x\n
print x
echo \n(gdb) delete\n
delete
echo \n(gdb) watch total           # a global every lane of every warp stores to\n
watch total
echo \n(gdb) continue\n
continue
echo \n(gdb) continue\n
continue
echo \n(gdb) reverse-continue      # the watchpoint fires backwards: old and new swap\n
reverse-continue
echo \n(gdb) vx-warps              # every warp: PC, thread mask, IPDOM depth, state\n
vx-warps
echo \n(gdb) reverse-continue      # ... and so on back to the start of history\n
delete
reverse-continue
EOF

say "A scripted gdb-multiarch session"
echo "\$ gdb-multiarch -x vxrr.gdb rrtest.elf -ex 'target remote :$port' -x session.gdb"
gdb-multiarch -nx -batch -x "$BIN/vxrr.gdb" -ex "target remote :$port" -x "$work/session.gdb" \
    "$work/rrtest.elf" 2>&1 | sed "s|$work/||g; s|$PWD/||g"
wait "$srv" 2>/dev/null || true
srv=""
