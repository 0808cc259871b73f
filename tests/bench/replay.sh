#!/bin/sh
# Benchmark of vxreplay, measured through the GDB remote protocol (a Python RSP
# client; see tests/t5000-rsp.py): on a trace of about 47 million
# warp-instructions (sgemm, N = 304 by default), the latency of reverse-stepi at
# 200 random positions (median, p99), reverse-continue from the end of history
# to a breakpoint near the start, a continue from the start to one near the end,
# a forward pass over every issue, seeks to 100 random event indices, and the
# server's peak memory (VmHWM).  Prints what it measured; never fails on timing.
#
#   VXRR_BENCH_N=128 sh tests/bench/replay.sh     a smaller trace (quick look)
set -u
cd "$(dirname "$0")/../.."
BIN=${VXRR_BIN:-$PWD/build/bin}
N=${VXRR_BENCH_N:-304}
work=$(mktemp -d /tmp/vxrr-bench-replay.XXXXXX)
trap 'rm -rf "$work"' EXIT

if ! "$BIN/vxcc" -O2 -g -DN="$N" -o "$work/sgemm.elf" kernel/examples/sgemm.cpp; then
    echo "replay bench: cannot build sgemm (vxcc)"; exit 1
fi
echo "recording sgemm N=$N (1x1x4x4) ..."
t0=$(date +%s.%N)
"$BIN/vxrec" -q -o "$work/sgemm.vxt" "$work/sgemm.elf" >/dev/null || { echo "replay bench: vxrec failed"; exit 1; }
t1=$(date +%s.%N)
echo "  recorded in $(echo "$t1 - $t0" | bc) s, $(du -h "$work/sgemm.vxt" | cut -f1) on disk"

VXRR_BIN="$BIN" /usr/bin/python3 - "$work/sgemm.vxt" <<'EOF'
import importlib.util, os, random, re, statistics, sys, time
spec = importlib.util.spec_from_file_location("t5000", os.path.join("tests", "t5000-rsp.py"))
rsp = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rsp)
os.environ.setdefault("VXRR_BUILD", os.path.dirname(os.environ["VXRR_BIN"]))

trace = sys.argv[1]
srv = rsp.Server(trace)
c = srv.client(timeout=3600)
c.handshake()
events = int(re.search(r"events=(\d+)", c.monitor("config")[1]).group(1))
print("trace: %d events (warp-instructions)" % events)

def vmhwm():
    with open("/proc/%d/status" % srv.p.pid) as f:
        for line in f:
            if line.startswith("VmHWM"):
                return int(line.split()[1]) // 1024
    return -1

def timed(payload):
    t = time.perf_counter()
    r = c.cmd(payload)
    return time.perf_counter() - t, r

def seek(n):
    c.monitor("seek %d" % n)

# A breakpoint near the start: the PC that issues at event 200 (startup code, run once).
seek(200)
bp_pc = rsp.le32(rsp.parse_stop(c.cmd("?"))[1]["20"])

# reverse-continue right after start-up (format 1.1: the chunk digests are read from the
# trace at start-up; a 1.0 trace would still be computing them)
assert c.cmds("Z0,%x,4" % bp_pc) == "OK"
seek(events)
summary = re.search(r"trace summary: (\d+) of (\d+)", c.monitor("stats")[1])
dt, r = timed("bc")
print("reverse-continue from the end to a breakpoint near the start, right after start-up "
      "(%s of %s chunk digests known): %.3f s" % (summary.group(1), summary.group(2), dt) if summary else
      "reverse-continue from the end, right after start-up: %.3f s" % dt)
c.cmds("z0,%x,4" % bp_pc)

# A continue from the start to a breakpoint near the end (the exit path, run once):
# it jumps, by way of keyframes, over the chunks whose digests rule the breakpoint out.
seek(events - 1)
end_pc = rsp.le32(rsp.parse_stop(c.cmd("?"))[1]["20"])
seek(0)
assert c.cmds("Z0,%x,4" % end_pc) == "OK"
dt, r = timed("vCont;c")
when = c.monitor("when")[1].strip()
print("continue from the start to a breakpoint near the end, after start-up: %.3f s (%s)" % (dt, when))
c.cmds("z0,%x,4" % end_pc)
seek(0)

# Forward continue over the whole trace, replaying and verifying every issue (a read
# watchpoint on a word nothing reads keeps it from jumping chunks by their digests).
assert c.cmds("Z3,4,4") == "OK"
dt, r = timed("vCont;c")
print("continue from the start to the end of history, running every issue (a read "
      "watchpoint set: loads observed): %.2f s (%.1f M issues/s, every one verified)"
      % (dt, events / dt / 1e6))
c.cmds("z3,4,4")

# reverse-continue from the end to the breakpoint near the start
assert c.cmds("Z0,%x,4" % bp_pc) == "OK"
seek(events)
dt, r = timed("bc")
sig, f = rsp.parse_stop(r)
when = c.monitor("when")[1].strip()
print("reverse-continue from the end to a breakpoint near the start (after a forward pass): %.3f s (%s)" % (dt, when))
c.cmds("z0,%x,4" % bp_pc)

# reverse-stepi at 200 random positions (the seek before each is not timed)
rng = random.Random(1)
lat = []
for i in range(200):
    seek(rng.randrange(1, events))
    assert c.cmds("Hc0") == "OK"
    dt, r = timed("bs")
    lat.append(dt * 1000)
lat.sort()
p99 = lat[int(len(lat) * 0.99) - 1]
print("reverse-stepi at 200 random positions: median %.3f ms, p99 %.3f ms, max %.3f ms"
      % (statistics.median(lat), p99, lat[-1]))
# and a run of 200 reverse-stepi in a row (what reverse-next/step do)
seek(events // 2)
run = []
for i in range(200):
    dt, r = timed("bs")
    run.append(dt * 1000)
run.sort()
print("200 consecutive reverse-stepi: median %.3f ms, p99 %.3f ms" % (statistics.median(run), run[int(len(run) * 0.99) - 1]))

# seeks to 100 random event indices
st = []
for i in range(100):
    n = rng.randrange(0, events + 1)
    t = time.perf_counter()
    seek(n)
    st.append((time.perf_counter() - t) * 1000)
st.sort()
print("seek to 100 random event indices: median %.1f ms, p99 %.1f ms, max %.1f ms"
      % (statistics.median(st), st[98], st[-1]))
stats = c.monitor("stats")[1].strip().replace("\n", "; ")
print("server: %s" % stats)
print("server peak memory (VmHWM): %d MiB (checkpoint budget 512 MiB)" % vmhwm())
c.send("D"); c.reply(); c.close()
srv.stop()

# A second session on the same trace (nothing is saved between sessions: the digests are in
# the trace).
srv = rsp.Server(trace)
c = srv.client(timeout=3600)
c.handshake()
assert c.cmds("Z0,%x,4" % bp_pc) == "OK"
seek(events)
summary = re.search(r"trace summary: (\d+) of (\d+)", c.monitor("stats")[1])
dt, r = timed("bc")
print("second server on the same trace, reverse-continue right after start-up "
      "(%s of %s chunk digests): %.3f s" % (summary.group(1), summary.group(2), dt))
c.send("D"); c.reply(); c.close()
srv.stop()
EOF
