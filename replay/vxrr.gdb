# vxrr.gdb - gdb-multiarch settings and commands for debugging a vxrr trace.
#
#   vxreplay sgemm.vxt            (prints the command below)
#   gdb-multiarch -x vxrr.gdb sgemm.vxt.elf -ex 'target remote :3333'
#
# Threads: each (warp, lane) is a GDB thread ("warp W lane L" in 'info threads';
# the remote id is 1 + gwarp * threads + lane).  Stepping a thread runs its whole
# warp until that lane executes an instruction.  With 'vxreplay --thread-per-warp'
# each warp is one thread and
# 'vx-lane N' chooses the lane whose registers are shown, while that lane is active
# (a masked-off lane gives way to the warp's first active lane).
#
# Commands defined here:
#   vx-when                 current event index, cycle, next issuing warp
#   vx-seek N               go to event index N
#   vx-last W [L]           back to global warp W's last instruction before here (a
#                           warp that finished or waits), selecting lane L of it
#   vx-warps                state of every warp (PC, mask, IPDOM depth, waits)
#   vx-thread W L           select global warp W, lane L
#   vx-warp W               select global warp W (same lane)
#   vx-lane L               select lane L of the current warp
#   vx-checkpoint           remember this position;  vx-restart N goes back to it
#   vx-info-dm              Debug Module state recorded in the trace
#   vx-tls NAME             a runtime thread-local (blockIdx, threadIdx, ...) of the
#                           current lane; also $vx_tls("NAME") in expressions
#   vx-print[/FMT] EXPR     EXPR in every lane of the current warp (thread-locals
#                           such as blockIdx.x read as $vx_tls does)
#   $vx_any("COND")         COND tested in every active lane of the current warp, for
#                           breakpoint conditions GDB cannot send to the server (floats)
# and every 'monitor' command of vxreplay ('monitor help'); after one that moves in
# time (seek, restart) GDB's caches are dropped, as vx-seek does, and after any other
# the registers GDB holds (monitor lane N changes what a warp's thread shows).
#
# A jump in time (vx-seek, vx-restart, or such a monitor command) ends with a real stop
# of the selected thread where it landed: vxrr.gdb arms the server ('monitor stop-step
# TID') and steps that thread, and the server answers the step at once without moving.
# So the CLI prints the location, an IDE (GDB/MI) gets *running then *stopped
# (reason "end-stepping-range", the frame and thread-id; the command's result is
# ^running, as for any command that resumes), and GDB's next resume starts from this
# stop.  Breakpoints at the landing pc are disabled for that step: landing is no hit.

# Reverse stepping sends one packet per instruction; keep breakpoints in the
# target instead of re-inserting them around every step (research notes §2.2).
set breakpoint always-inserted on
# Long seeks and reverse-continues over big traces may take a while.
set remotetimeout 600
# Warps appear and finish as the program runs: no [New Thread] chatter.
set print thread-events off

# Stepping commands move only the selected warp's thread; continue runs all.
# (Needs a connected target, hence the hook.)  The connection's stop is at _start, in
# the runtime's crt0.S: make main's file the default source, so that a bare `break 28`
# means the kernel's line 28, as before connecting.
define target hookpost-remote
  set scheduler-locking step
  python _vx_connected()
end
define target hookpost-extended-remote
  set scheduler-locking step
  python _vx_connected()
end

# finish, reverse-finish, until and advance run to a breakpoint GDB plants for
# the current thread only.  All warps of a kernel run the same code, and with one
# shared timeline GDB cannot skip another warp's hit of that breakpoint without
# moving every warp (research notes §1.3, rr's reverse singlestep): lock the
# scheduler for these commands so that only the current warp's hit counts.  The
# lock is undone when the command's run stops (gdb.events.stop: with async MI, as
# IDEs use, a post-hook would come before that), or at the next prompt when the
# command failed before running.  (vx-hook-lock is a Python command, so that its
# refusal reaches the user, and an IDE's ^error, as a plain message.)
define hook-finish
  vx-hook-lock finish
end
define hook-reverse-finish
  vx-hook-lock reverse-finish
end
define hook-until
  vx-hook-lock until
end
define hook-advance
  vx-hook-lock advance
end

# A continue names no thread to the server (vCont;c), and GDB first steps the last
# stop's thread over its breakpoint: tell the server which thread is selected, so that
# a breakpoint stop reports that lane when it takes part (README: GDB view).
define hook-continue
  python _vx_pick()
end
define hook-reverse-continue
  python _vx_pick()
end

# A monitor command that moves in time (seek, restart) does so behind GDB's back:
# after one, drop GDB's caches as vx-seek does, so that registers, frames and
# watchpoints show the new position.  After any other, drop the registers GDB holds
# (`monitor lane N` changes the lane a warp's thread shows).
define hook-monitor
  python _vx_monitor_before()
end
define hookpost-monitor
  python _vx_monitor_after()
end

python
import gdb
import re

# History is read-only: say so when something assigns to a variable or register
# ("Writing to memory is not allowed"), instead of "Cannot access memory".  GDB
# takes may-write-registers only before it connects (sourced later, a register
# assignment gets the server's E01).
for _setting in ("may-write-memory", "may-write-registers"):
    try:
        gdb.execute("set %s off" % _setting, to_string=True)
    except gdb.error:
        pass


_vx_locked = False  # scheduler-locking is on for finish/until/advance (_vx_lock_for)


def _vx_mi_started():
    """Was GDB started with an MI interpreter (-i mi, --interpreter=mi3: an IDE)?"""
    try:
        with open("/proc/self/cmdline", "rb") as f:
            args = f.read().split(b"\0")
    except OSError:
        return False
    for i, a in enumerate(args):
        name, eq, val = a.lstrip(b"-").partition(b"=")
        if a.startswith(b"-") and name in (b"i", b"interpreter"):
            v = val if eq else (args[i + 1] if i + 1 < len(args) else b"")
            if v.startswith(b"mi"):
                return True
    return False


_VX_MI = _vx_mi_started()


def _vx_lock_for(cmd):
    """Lock the scheduler for cmd (a hook); refuse to finish a lane with no position."""
    global _vx_locked
    try:
        pc = int(gdb.parse_and_eval("$pc")) & 0xffffffff
    except gdb.error:
        return
    if pc == 0 and cmd.endswith("finish"):
        raise gdb.GdbError("%s: this lane is parked (pc 0): it has no frame of its own; select "
                           "an active lane (vx-lane)" % cmd)
    if cmd.endswith("finish"):
        try:
            if gdb.selected_frame().older() is None:
                return  # GDB refuses it itself: nothing to unlock afterwards
        except gdb.error:
            return
    global _vx_stepped
    try:
        stale = _vx_stepped is not None and _vx_stepped.is_valid() and \
            _vx_stepped != gdb.selected_thread()
    except gdb.error:
        stale = False
    _vx_stepped = None
    if stale:
        # The thread a jump in time stepped (_vx_stop_step) may keep that stepi's state
        # in GDB (a resume of one thread clears that one's only, and Python is not told
        # which were resumed): locked to another thread, a stop the server reports in
        # it (this thread's lane masked off there) would end this command as the end of
        # that stepi, or show an inlined callee at a breakpoint.  Unlocked, GDB resumes
        # and clears every thread; its own breakpoint here is this thread's, so the
        # server must report its hits in this lane (monitor pick, as for a continue:
        # else they came in the lane GDB last read, and finish ran to the end).
        _vx_pick()
        return
    gdb.execute("set scheduler-locking on", to_string=True)
    _vx_locked = True
    # If the command fails before running, no stop comes: the next prompt unlocks
    # (before_prompt).  MI shows no prompt: there, unlock back in GDB's event loop after
    # the command.  Only there: GDB 13 may crash at exit once an event was posted.
    if _VX_MI:
        gdb.post_event(_vx_unlock)


class VxHookLock(gdb.Command):
    """vx-hook-lock CMD: what vxrr.gdb's hooks on finish, reverse-finish, until and
    advance run (_vx_lock_for); not meant to be typed."""

    def __init__(self):
        super().__init__("vx-hook-lock", gdb.COMMAND_NONE)

    def invoke(self, arg, from_tty):
        _vx_lock_for(arg.strip())


VxHookLock()


def _vx_unlock(*_):
    """Undo _vx_lock_for once its command has stopped (or never ran)."""
    global _vx_locked
    if not _vx_locked:
        return
    try:
        th = gdb.selected_thread()
        if th is not None and th.is_valid() and th.is_running():
            return  # the command runs on (async): its stop will come
    except gdb.error:
        pass
    _vx_locked = False
    try:
        gdb.execute("set scheduler-locking step", to_string=True)
    except gdb.error:
        pass


def _vx_pick():
    """monitor pick: the selected thread, for the continue that follows."""
    try:
        t = gdb.selected_thread()
        if t is not None and t.is_valid():
            _vx_monitor("pick %d" % (t.ptid[1] or t.ptid[2]))
    except gdb.error:  # not connected: the continue says so itself
        pass


def _vx_connected():
    try:
        gdb.execute("list main", to_string=True)
    except gdb.error:  # no main, or no source for it: GDB's default stays
        pass


def _vx_config():
    """Platform shape and thread mode, from 'monitor config'."""
    out = _vx_monitor("config")
    cfg = {}
    for key, val in re.findall(r"(\w+)=(\w+)", out):
        cfg[key] = val
    return cfg


def _vx_refresh(stop=False):
    """The server moved in time behind GDB's back: drop GDB's caches; with stop, show
    GDB a stop here (_vx_stop_step)."""
    gdb.execute("maintenance flush register-cache", to_string=True)
    try:
        gdb.execute("maintenance flush dcache", to_string=True)
    except gdb.error:
        pass
    if stop and _vx_arm_stop():
        # the selected thread is live here: the stop's own thread list will do (at 16K
        # threads a list is about 400 packets)
        _vx_rearm_watchpoints()
        _vx_stop_step(armed=True)
        return
    gdb.selected_inferior().threads()  # refresh the thread list (not every frame)
    try:
        th = gdb.selected_thread()
        # (with stop, not armed: the selected thread is not live here; its warp's
        # threads stay listed, not started yet or finished at the new position)
        if stop or th is None or not th.is_valid() or th.is_exited():
            raise LookupError
    except Exception:  # or GDB has dropped the selected thread's object
        # The selected thread's warp does not run at the new position: take the
        # server's current thread (the next to issue there).
        t = _vx_thread(int(_vx_config().get("thread", "0")))
        if t is not None:
            _vx_switch(t)
    _vx_rearm_watchpoints()
    if stop:
        _vx_stop_step()


_vx_stepped = None  # the thread _vx_stop_step last stepped (until the next _vx_lock_for)
_vx_mon_where = None  # the server's position before a monitor command
_vx_after_stop = None  # what _vx_stop_step restores at its stop, when that comes later
_vx_mon_own = False   # a monitor command of vxrr.gdb's own (never a jump in time) runs
_vx_mon_moved = False  # the last monitor command of the user's moved in time (and showed a stop)


def _vx_monitor(cmd):
    """`monitor CMD` for vxrr.gdb itself (config, lane, warps...): its output, without the
    position check the monitor hooks make around the user's commands."""
    global _vx_mon_own
    _vx_mon_own = True
    try:
        return gdb.execute("monitor " + cmd, to_string=True)
    finally:
        _vx_mon_own = False


def _vx_where():
    """The server's position (its `monitor when` line), or None when it cannot say.
    (Run from a monitor hook, this monitor command runs no hook itself.)"""
    try:
        return gdb.execute("monitor when", to_string=True)
    except gdb.error:
        return None


def _vx_monitor_before():
    global _vx_mon_where
    _vx_mon_where = None if _vx_mon_own else _vx_where()


def _vx_monitor_after():
    before = _vx_mon_where
    if before is None or _vx_mon_own:
        return
    now = _vx_where()
    if now is not None and now != before:
        _vx_refresh(stop=True)
        global _vx_mon_moved
        _vx_mon_moved = True
    else:
        # it may have changed what a thread shows (`monitor lane N` with a thread per
        # warp): GDB reads the registers again (one packet) rather than show the old lane's
        gdb.execute("maintenance flush register-cache", to_string=True)


def _vx_outermost_frame():
    """The selected thread's outermost frame (its entry, in assembly: no locals), or
    None without a frame."""
    try:
        f = gdb.selected_frame()
        while True:
            older = f.older()
            if older is None:
                return f
            f = older
    except gdb.error:
        return None


def _vx_rearm_watchpoints():
    """Watchpoints keep the value GDB last saw, for their next "Old value": after a
    jump in time re-read it (enabling a watchpoint evaluates its expression again).
    GDB parses the expression again in the selected frame, unless the watchpoint is
    on a frame's locals (it then uses that frame): from the thread's outermost frame,
    so that `watch out[3]` stays the global one, where the new position's frame has
    a local `out` (it then watched that, or could not be enabled at all, and every
    resume failed)."""
    kinds = {gdb.BP_WATCHPOINT, gdb.BP_HARDWARE_WATCHPOINT, gdb.BP_READ_WATCHPOINT,
             gdb.BP_ACCESS_WATCHPOINT}
    wps = [b for b in gdb.breakpoints() if b.is_valid() and b.type in kinds and b.enabled]
    if not wps:
        return
    try:
        selected = gdb.selected_frame()
    except gdb.error:
        selected = None
    outer = _vx_outermost_frame()
    if outer is not None:
        outer.select()
    try:
        for b in wps:
            try:
                b.enabled = False
                b.enabled = True
            except gdb.error:  # out of scope here: GDB deletes or keeps it as it does
                pass
    finally:
        if selected is not None and selected.is_valid():
            selected.select()


def _vx_threads():
    """GDB's threads by remote thread id.  Inferior.threads() fetches the server's
    thread list first (hundreds of packets with 16K threads): once per command."""
    return {t.ptid[1] or t.ptid[2]: t for t in gdb.selected_inferior().threads()}


def _vx_thread(tid):
    """The GDB thread of remote thread id tid, or None."""
    return _vx_threads().get(tid)


def _vx_user_errors(invoke):
    """For a command's or function's invoke: a GDB error comes out as the command's own
    message (gdb.GdbError), not framed as a Python exception, and before connecting as
    'not connected'."""
    def wrapped(self, *args):
        try:
            return invoke(self, *args)
        except gdb.GdbError:
            raise
        except gdb.error as e:
            if gdb.selected_thread() is None:
                raise gdb.GdbError("vxrr: not connected to vxreplay (target remote first)")
            raise gdb.GdbError(str(e))
    return wrapped


def _vx_num(text):
    """TEXT as a number the way GDB and the server read one (decimal, or hex as 0x...,
    a sign allowed), else None."""
    m = re.fullmatch(r"\s*([-+]?)(0[xX][0-9a-fA-F]+|\d+)\s*", text)
    if not m:
        return None
    n = int(m.group(2), 0) if m.group(2)[:2].lower() == "0x" else int(m.group(2), 10)
    return -n if m.group(1) == "-" else n


def _vx_int(text, what):
    n = _vx_num(text)
    if n is None:
        raise gdb.GdbError("%s must be a number, not '%s'" % (what, text))
    return n


def _vx_switch(t):
    """Select thread t the way `thread N` does, so that an IDE (MI) is told
    (=thread-selected); InferiorThread.switch() tells nobody."""
    gdb.execute("thread %d" % t.num, to_string=True)


def _vx_select(gwarp, lane):
    cfg = _vx_config()
    nt = int(cfg.get("threads", "1"))
    nw = int(cfg.get("clusters", "1")) * int(cfg.get("cores", "1")) * int(cfg.get("warps", "1"))
    if not 0 <= gwarp < nw:
        raise gdb.GdbError("no warp %d: global warps are 0..%d" % (gwarp, nw - 1))
    if not 0 <= lane < nt:
        raise gdb.GdbError("no lane %d: lanes are 0..%d" % (lane, nt - 1))
    per_warp = cfg.get("gdb_thread") == "warp"
    tid = 1 + gwarp if per_warp else 1 + gwarp * nt + lane
    t = _vx_thread(tid)  # (the list fetched afresh; `info threads` read every frame too)
    if t is not None:
        switched = t != gdb.selected_thread()  # (GDB then prints the frame itself)
        _vx_switch(t)
        # the server learns the selection for the continue that follows: MI's
        # -exec-continue runs no hook, and GDB sends no Hg for a thread whose registers
        # it holds already (after -thread-info, every one)
        _vx_pick()
        if per_warp:
            _vx_monitor("lane %d" % lane)
            gdb.execute("maintenance flush register-cache", to_string=True)
            if lane not in _vx_active_lanes(gwarp):
                # the warp thread's registers must go with the warp's PC (frames, steps)
                print("vxrr: lane %d is masked off in warp %d here: the warp shows its first "
                      "active lane until lane %d runs again (vx-print shows every lane)"
                      % (lane, gwarp, lane))
            if _VX_MI:
                # the thread GDB shows is the same one: an IDE hears of no change
                # (no =thread-selected), so show it a stop, which refreshes its views
                _vx_stop_step()
                return
            switched = False  # (the frame GDB printed was the lane shown before)
        if not switched:
            gdb.execute("frame")
        return
    raise gdb.GdbError("warp %d lane %d is not a live thread now (see vx-warps; vx-last %d goes "
                       "back to the warp's last instruction)" % (gwarp, lane, gwarp))


def _vx_lane_picked():
    """--thread-per-warp: the lane `monitor lane N [exact]` picked, as that argument
    ("N" or "N exact"), or None in auto mode."""
    m = re.match(r"every warp thread shows lane (\d+)( exactly)?", _vx_monitor("lane"))
    return (m.group(1) + (" exact" if m.group(2) else "")) if m else None


def _vx_current():
    cfg = _vx_config()
    nt = int(cfg.get("threads", "1"))
    th = gdb.selected_thread()
    if th is None:
        raise gdb.GdbError("no thread selected")
    tid = th.ptid[1] or th.ptid[2]
    if cfg.get("gdb_thread") == "warp":
        # the lane picked (monitor lane N: it shows while active, and another lane of
        # the warp while it is masked off; vx-warp keeps the one picked)
        picked = _vx_lane_picked()
        if picked:
            return tid - 1, int(picked.split()[0])
        # else the lane this warp thread shows: its mhartid is (global warp) * threads
        # + lane (read afresh: a `monitor lane N` since changed it behind GDB's cache)
        try:
            gdb.execute("maintenance flush register-cache", to_string=True)
            return tid - 1, int(gdb.parse_and_eval("$mhartid")) % nt
        except gdb.error:
            return tid - 1, int(cfg.get("lane", "0"))
    return (tid - 1) // nt, (tid - 1) % nt


_VX_BREAK_TYPES = (gdb.BP_BREAKPOINT, gdb.BP_HARDWARE_BREAKPOINT)


def _vx_arm_stop():
    """Arm the server's stop-step for the selected thread: False (not armed) when that
    thread is not live at the server's position."""
    try:
        th = gdb.selected_thread()
        if th is None or not th.is_valid() or th.is_exited():
            return False
        return not _vx_monitor("stop-step %d" % (th.ptid[1] or th.ptid[2])).strip()
    except gdb.error:
        return False


def _vx_stop_step(armed=False):
    """After a jump in time GDB still has its last stop: show it a real one here, so that
    it reports the new position as any stop (the CLI prints the location; an IDE gets
    *stopped, with the frame and thread, and refreshes its views; GDB's own stop state,
    which its next resume uses, is this one).  A stepi of the selected thread that the
    server answers at once, without moving (`monitor stop-step`)."""
    try:
        th = gdb.selected_thread()
        if th is None or not th.is_valid() or th.is_exited() or th.is_running():
            if armed:
                _vx_monitor("stop-step off")
            return
        pc = int(gdb.parse_and_eval("$pc")) & 0xffffffff
    except gdb.error:
        if armed:
            _vx_monitor("stop-step off")
        return
    # GDB would take a stop at a breakpoint's address for a hit of it (its count, its
    # commands, a tbreak deleted): the seek only arrived there
    off = [loc for b in gdb.breakpoints()
           if b.is_valid() and b.enabled and b.type in _VX_BREAK_TYPES
           for loc in b.locations if loc.enabled and loc.address == pc]
    # the CLI shows where the jump landed (function, file, line), not just the line a
    # stepi in the same frame shows; an IDE reads the *stopped record instead
    fi = None
    if not _VX_MI:
        try:
            if gdb.parameter("print frame-info") == "auto":
                gdb.execute("set print frame-info source-and-location", to_string=True)
                fi = "auto"
        except (gdb.error, RuntimeError):
            pass
    def restore(*_):
        for loc in off:
            try:
                loc.enabled = True
            except (gdb.error, RuntimeError):
                pass
        if fi:
            gdb.execute("set print frame-info " + fi, to_string=True)

    global _vx_after_stop, _vx_stepped
    try:
        for loc in off:
            loc.enabled = False
        if not armed:
            _vx_monitor("stop-step")
        try:
            gdb.execute("stepi")
            _vx_stepped = th
        except gdb.error as e:
            _vx_monitor("stop-step off")
            print("vxrr: GDB was not shown the stop here (%s)" % e)
    finally:
        # From GDB's event loop (MI) the stepi returns before its stop: GDB takes a
        # breakpoint's hit when the stop comes, before the stop event
        if th.is_valid() and th.is_running():
            _vx_after_stop = restore
        else:
            restore()


class VxThread(gdb.Command):
    """vx-thread WARP LANE: select global warp WARP (core * warps + warp), lane LANE."""

    def __init__(self):
        super().__init__("vx-thread", gdb.COMMAND_RUNNING)

    @_vx_user_errors
    def invoke(self, arg, from_tty):
        a = gdb.string_to_argv(arg)
        if len(a) != 2:
            raise gdb.GdbError("usage: vx-thread WARP LANE")
        _vx_select(_vx_int(a[0], "WARP"), _vx_int(a[1], "LANE"))


class VxWarp(gdb.Command):
    """vx-warp WARP: select global warp WARP, keeping the current lane."""

    def __init__(self):
        super().__init__("vx-warp", gdb.COMMAND_RUNNING)

    @_vx_user_errors
    def invoke(self, arg, from_tty):
        a = gdb.string_to_argv(arg)
        if len(a) != 1:
            raise gdb.GdbError("usage: vx-warp WARP")
        _, lane = _vx_current()
        _vx_select(_vx_int(a[0], "WARP"), lane)


class VxLane(gdb.Command):
    """vx-lane LANE: select lane LANE of the current warp."""

    def __init__(self):
        super().__init__("vx-lane", gdb.COMMAND_RUNNING)

    @_vx_user_errors
    def invoke(self, arg, from_tty):
        a = gdb.string_to_argv(arg)
        if len(a) != 1:
            raise gdb.GdbError("usage: vx-lane LANE")
        gw, _ = _vx_current()
        _vx_select(gw, _vx_int(a[0], "LANE"))


def _vx_move(cmd, arg):
    """vx-seek, vx-restart: the monitor command (its hook refreshes GDB and shows it the
    stop when the position changed); a stop is shown also where it did not (a seek to
    the current position: GDB's last stop may be another thread's, or older)."""
    global _vx_mon_moved
    what = "an event index" if cmd == "seek" else "a checkpoint number from vx-checkpoint"
    n = _vx_num(arg)
    if n is None or n < 0:
        raise gdb.GdbError("usage: vx-%s N (%s)" % (cmd, what))
    # an index past 2^64 is past the end of history as any other (the server goes to
    # the end); the server's own parser takes 64 bits only
    n = min(n, (1 << 64) - 1)
    # fail as other commands do (a script stops there; an IDE gets ^error), not print
    # the server's complaint, then show a stop as if it had moved
    if cmd == "restart" and not re.search(r"^checkpoint %d at event" % n,
                                          _vx_monitor("info checkpoints"), re.M):
        raise gdb.GdbError("no checkpoint %d (vx-checkpoint makes one)" % n)
    _vx_mon_moved = False
    gdb.execute("monitor %s %d" % (cmd, n))
    if not _vx_mon_moved:
        _vx_stop_step()


class VxSeek(gdb.Command):
    """vx-seek N: go to event index N of the trace."""

    def __init__(self):
        super().__init__("vx-seek", gdb.COMMAND_RUNNING)

    @_vx_user_errors
    def invoke(self, arg, from_tty):
        if not arg.strip():
            raise gdb.GdbError("usage: vx-seek N")
        _vx_move("seek", arg)


class VxLast(gdb.Command):
    """vx-last WARP [LANE]: go back to global warp WARP's last instruction before here and
select it (lane LANE, else its first active lane there): a warp that finished or waits
at a barrier is shown where it stopped, also when GDB never listed its threads."""

    def __init__(self):
        super().__init__("vx-last", gdb.COMMAND_RUNNING)

    @_vx_user_errors
    def invoke(self, arg, from_tty):
        global _vx_mon_moved
        a = gdb.string_to_argv(arg)
        if len(a) not in (1, 2):
            raise gdb.GdbError("usage: vx-last WARP [LANE]")
        gwarp = _vx_int(a[0], "WARP")
        lane = _vx_int(a[1], "LANE") if len(a) == 2 else None
        if gwarp < 0:
            raise gdb.GdbError("usage: vx-last WARP [LANE]")
        _vx_mon_moved = False
        out = gdb.execute("monitor last-issue %d" % gwarp, to_string=True)
        # (a long search's progress notes may come first)
        for line in out.splitlines():
            if line.startswith(("usage:", "going back failed")) or " issued nothing before" in line:
                raise gdb.GdbError(line.replace("monitor last-issue", "vx-last"))
            if line.startswith("interrupted before"):
                print("vx-last: " + line)
        if not _vx_mon_moved:
            _vx_stop_step()
        if lane is None:
            lanes = _vx_active_lanes(gwarp)
            lane = lanes[0] if lanes else 0
        _vx_select(gwarp, lane)


class VxRestart(gdb.Command):
    """vx-restart N: go back to checkpoint N (made by vx-checkpoint)."""

    def __init__(self):
        super().__init__("vx-restart", gdb.COMMAND_RUNNING)

    @_vx_user_errors
    def invoke(self, arg, from_tty):
        if not arg.strip():
            raise gdb.GdbError("usage: vx-restart N")
        _vx_move("restart", arg)


def _vx_tls_place(name):
    """(type, offset) of thread-local variable NAME: GDB 13 cannot read thread-local
    storage on a bare-metal target, but the offset is in the debug info, and on RISC-V
    a thread's variable is at $tp + offset (tp points at its TLS block)."""
    sym = gdb.lookup_global_symbol(name) or gdb.lookup_static_symbol(name)
    if sym is None:
        sym = gdb.lookup_symbol(name)[0]
    if sym is None:
        raise gdb.GdbError("no symbol \"%s\"" % name)
    out = gdb.execute("info address " + name, to_string=True)
    m = re.search(r"thread-local variable at offset (0x[0-9a-fA-F]+|\d+)", out)
    if not m:
        raise gdb.GdbError("%s is not a thread-local variable" % name)
    return sym.type, int(m.group(1), 0)


def _vx_tls(name):
    t, off = _vx_tls_place(name)
    tp = int(gdb.parse_and_eval("$tp")) & 0xffffffff
    return gdb.Value(tp + off).cast(t.pointer()).dereference()


def _vx_tls_missing(name):
    tp = int(gdb.parse_and_eval("$tp")) & 0xffffffff
    return ("%s: no value here (tp = %#x: the runtime has not set this lane's "
            "thread-local block up yet at this position)" % (name, tp))


def _vx_scalar_fields(t, prefix, bit):
    """(name, type, bit offset, bit size: 0 unless a bitfield) of the scalar members of
    struct or union type t at bit offset bit, anonymous members flattened, arrays left
    out."""
    t = t.strip_typedefs()
    if t.code not in (gdb.TYPE_CODE_STRUCT, gdb.TYPE_CODE_UNION):
        return []
    out = []
    for f in t.fields():
        if f.bitpos is None:
            continue
        ft = f.type.strip_typedefs()
        name = prefix + "." + f.name if f.name else prefix
        b = bit + f.bitpos
        if ft.code in (gdb.TYPE_CODE_STRUCT, gdb.TYPE_CODE_UNION):
            out += _vx_scalar_fields(f.type, name, b)
        elif ft.code in (gdb.TYPE_CODE_INT, gdb.TYPE_CODE_FLT, gdb.TYPE_CODE_PTR,
                         gdb.TYPE_CODE_ENUM, gdb.TYPE_CODE_BOOL, gdb.TYPE_CODE_CHAR):
            out.append((name, f.type, b, f.bitsize))
    return out


def _vx_tls_form(ftype, bit, bits):
    """The expression that reads a thread-local scalar at bit offset bit from tp (bits
    wide when a bitfield) in a condition GDB compiles for the server: integers only, so
    a float reads its bit pattern.  None when no such expression exists."""
    ft = ftype.strip_typedefs()
    if bits:  # a bitfield: the 32-bit word that holds it, shifted and masked
        w, sh = bit // 32 * 4, bit % 32
        if sh + bits > 32:
            return None
        word = "*(unsigned int *)($tp + %d)" % w
        if ft.code == gdb.TYPE_CODE_INT and ft.is_signed:
            return "((int)(%s << %d) >> %d)" % (word, 32 - sh - bits, 32 - bits)
        return "(%s >> %d & %#x)" % (word, sh, (1 << bits) - 1)
    if bit % 8:
        return None
    if ft.code == gdb.TYPE_CODE_FLT:
        return "*(%s *)($tp + %d)" % ("unsigned int" if ft.sizeof == 4 else "unsigned long long",
                                      bit // 8)
    return "*(%s *)($tp + %d)" % (ftype, bit // 8)


class VxTlsFunction(gdb.Function):
    """$vx_tls("NAME"): the selected thread's thread-local variable NAME, such as
    blockIdx or threadIdx (p $vx_tls("blockIdx").x)."""

    def __init__(self):
        super().__init__("vx_tls")

    @_vx_user_errors
    def invoke(self, name):
        try:
            n = name.string()
        except gdb.error:
            raise gdb.GdbError('$vx_tls takes the name as a string: $vx_tls("blockIdx")')
        v = _vx_tls(n)
        try:
            v.fetch_lazy()
        except gdb.MemoryError:
            raise gdb.GdbError(_vx_tls_missing(n))
        return v


class VxTls(gdb.Command):
    """vx-tls NAME: print the selected thread's thread-local variable NAME (blockIdx,
    threadIdx, ...) and the expression that reads it in a breakpoint condition the
    server evaluates for every lane."""

    def __init__(self):
        super().__init__("vx-tls", gdb.COMMAND_DATA)

    @_vx_user_errors
    def invoke(self, arg, from_tty):
        name = arg.strip()
        if not name:
            raise gdb.GdbError("usage: vx-tls NAME")
        t, off = _vx_tls_place(name)
        try:
            print("%s = %s" % (name, _vx_tls(name)))
        except gdb.MemoryError:  # the offsets below hold anyway
            print(_vx_tls_missing(name))
        fields = _vx_scalar_fields(t, name, 8 * off)
        if not fields:
            fields = [(name, t, 8 * off, 0)]
        # GDB compiles these to bytecode (members of anonymous structs it does not)
        print("in a condition (evaluated for every lane):")
        for fname, ftype, fbit, fbits in fields:
            form = _vx_tls_form(ftype, fbit, fbits)
            if form is None:
                print("  %s: none (a bitfield across words): use $vx_any" % fname)
            elif ftype.strip_typedefs().code == gdb.TYPE_CODE_FLT:
                # GDB tests a float itself, in one lane: compare the bits instead
                print("  %s: %s (its bits: %s)" % (fname, form, "2.5f is 0x40200000"
                                                   if ftype.sizeof == 4 else
                                                   "2.5 is 0x4004000000000000"))
            else:
                print("  %s: %s" % (fname, form))


# ---- $vx_any("COND"): a condition GDB tests itself, tested in every active lane ----
#
# GDB sends a breakpoint's condition to vxreplay, which tests it in every lane of a
# warp that reaches the breakpoint, only when it can compile it to bytecode (integer
# arithmetic on registers, memory and variables).  Any other condition (floats,
# function calls, convenience variables) GDB tests itself, in the one thread each
# stop names: the first active lane.  $vx_any("COND") tests COND in each active lane
# of that warp instead, and the stop then selects the first lane where it holds.

_vx_any_hit = None  # (thread, lane for monitor lane or None) where $vx_any last held
_vx_shape = {}  # connection number -> 'monitor config' (the platform shape)


def _vx_shape_cfg():
    key = gdb.selected_inferior().connection_num
    if key not in _vx_shape:
        _vx_shape[key] = _vx_config()
    return _vx_shape[key]


def _vx_warp_now(gwarp):
    """(the lanes of global warp gwarp active now, its state: "ready", "finished",
    "not started", ...), from its row of 'monitor warps'."""
    for line in _vx_monitor("warps").splitlines():
        f = line.split()
        if len(f) >= 7 and f[0] == str(gwarp):
            mask = int(f[4], 16)
            state = " ".join(f[6:]).replace("<- current", "").strip()
            return [l for l in range(mask.bit_length()) if mask >> l & 1], state
    return [], ""


def _vx_active_lanes(gwarp):
    """The lanes of global warp gwarp active now (its thread mask, 'monitor warps')."""
    return _vx_warp_now(gwarp)[0]


def _vx_truth(expr):
    """Does EXPR hold in the selected thread?  Its thread-locals (blockIdx.x) are read as
    $vx_tls does when GDB cannot read them, as vx-print does (_vx_eval)."""
    try:
        v = gdb.parse_and_eval(expr)
    except gdb.error as e:
        alt = _vx_tls_rewritten(expr) if "thread-local" in str(e) else None
        if alt is None:
            raise
        v = gdb.parse_and_eval(alt)
    if v.type.strip_typedefs().code == gdb.TYPE_CODE_FLT:
        return float(v) != 0.0
    return int(v) != 0


class _VxLanes:
    """with _VxLanes(): visit the lanes of the selected thread's warp (select(l)), then
    come back to that thread (and, with --thread-per-warp, to the lane it showed)."""

    def __init__(self, prefix=""):
        self.prefix = prefix

    def __enter__(self):
        cfg = _vx_shape_cfg()
        self.nt = int(cfg.get("threads", "1"))
        self.per_warp = cfg.get("gdb_thread") == "warp"
        self.th = gdb.selected_thread()
        if self.th is None:
            raise gdb.GdbError("%sno thread selected" % self.prefix)
        tid = self.th.ptid[1] or self.th.ptid[2]
        self.gw, self.lane = (tid - 1, None) if self.per_warp else divmod(tid - 1, self.nt)
        self.tmap = {} if self.per_warp else _vx_threads()
        if self.per_warp:
            self.restore = _vx_lane_picked() or "auto"
            try:  # the lane the warp's thread shows now
                self.lane = int(gdb.parse_and_eval("$mhartid")) % self.nt
            except gdb.error:
                pass
        return self

    def select(self, l):
        """Show lane l: its thread (the warp's with --thread-per-warp), or None."""
        if self.per_warp:
            # exactly lane l, masked off too (at its own position), as its own thread
            # shows it with one thread per lane
            _vx_monitor("lane %d exact" % l)
            gdb.execute("maintenance flush register-cache", to_string=True)
            return self.th
        t = self.tmap.get(1 + self.gw * self.nt + l)
        if t is not None and t.is_valid():
            t.switch()
        return t

    def __exit__(self, *exc):
        if self.per_warp:
            _vx_monitor("lane " + self.restore)
        self.th.switch()
        # read the thread's registers again, so that GDB names it to the server (Hg):
        # the server takes the thread GDB last named as the selected one when a resume
        # names none (a reverse-continue), not the last lane visited here
        gdb.execute("maintenance flush register-cache", to_string=True)
        try:
            gdb.parse_and_eval("$pc").fetch_lazy()
        except gdb.error:
            pass
        return False


class VxAnyFunction(gdb.Function):
    """$vx_any("COND"): 1 when COND holds in any active lane of the selected thread's
    warp, else 0.  For breakpoint conditions GDB cannot send to vxreplay (floats,
    function calls): 'break inv_len if $vx_any("x == 0 && y == 0")' tests every
    active lane, and the stop selects the first lane where COND holds."""

    def __init__(self):
        super().__init__("vx_any")

    @_vx_user_errors
    def invoke(self, cond):
        global _vx_any_hit
        try:
            expr = cond.string()
        except gdb.error:
            raise gdb.GdbError('$vx_any takes the condition as a string: $vx_any("x > 0.5")')
        # one timeline: other lanes moved with the last resume even where GDB resumed one
        # thread only, and GDB would read them from its cache
        gdb.execute("maintenance flush register-cache", to_string=True)
        hit = None
        with _VxLanes("$vx_any: ") as v:
            lanes = _vx_active_lanes(v.gw)
            if v.lane in lanes:  # the stop's own lane first
                lanes.remove(v.lane)
                lanes.insert(0, v.lane)
            for l in lanes:
                t = v.select(l)
                if t is None:
                    continue
                try:
                    holds = _vx_truth(expr)
                except gdb.error as e:
                    raise gdb.GdbError("$vx_any: cannot evaluate \"%s\" in warp %d lane %d: %s"
                                       % (expr, v.gw, l, e))
                if holds:
                    # (a warp thread that shows lane l already: nothing to select)
                    hit = (t, l if v.per_warp and l != v.lane else None)
                    break
        _vx_any_hit = hit
        return 1 if hit else 0


_vx_tls_names = {}  # identifier -> is it a thread-local variable (_vx_tls_rewritten)


def _vx_tls_rewritten(expr):
    """EXPR with the thread-local variables it names (blockIdx.x) read as
    $vx_tls("blockIdx").x, since GDB cannot find thread-local storage on a bare-metal
    target; None when it names none."""
    found = False

    def sub(m):
        nonlocal found
        n = m.group(1)
        if n not in _vx_tls_names:
            try:
                _vx_tls_place(n)
                _vx_tls_names[n] = True
            except Exception:  # no such symbol, or not thread-local
                _vx_tls_names[n] = False
        found = found or _vx_tls_names[n]
        return '$vx_tls("%s")' % n if _vx_tls_names[n] else n
    # identifiers that are not members (.x, ->x), convenience variables or in a string
    out = re.sub(r'(?<![\w.$"])(?<!->)([A-Za-z_]\w*)', sub, expr)
    return out if found else None


def _vx_text(v, fmt):
    return v.format_string(format=fmt) if fmt else str(v)


def _vx_eval(expr, fmt=None):
    """EXPR's value as text (in print/FMT's format FMT, one letter, when given), its
    thread-locals read as $vx_tls does when GDB cannot."""
    try:
        return _vx_text(gdb.parse_and_eval(expr), fmt)
    except gdb.error as e:
        alt = _vx_tls_rewritten(expr) if "thread-local" in str(e) else None
        if alt is None:
            raise
    return _vx_text(gdb.parse_and_eval(alt), fmt)


def _vx_eval_text(expr, fmt=None):
    """EXPR in the selected thread's newest frame, as text ("<error>" when it fails).  A
    lane that waits after a vx_split stands in the inlined intrinsic (its pc is the
    split's next instruction), where the caller's locals are not in scope: then in the
    first frame outside the inlined vx_* intrinsics.  Thread-local variables are read
    as $vx_tls does (_vx_tls_rewritten)."""
    try:
        return _vx_eval(expr, fmt)
    except gdb.error as e:
        first = e
    try:
        f = gdb.newest_frame()
        while f is not None and f.type() == gdb.INLINE_FRAME and (f.name() or "").startswith("vx_"):
            f = f.older()
        if f is None or f == gdb.newest_frame():
            return "<%s>" % first
        f.select()
        return _vx_eval(expr, fmt)
    except gdb.error:
        return "<%s>" % first


class VxPrint(gdb.Command):
    """vx-print[/FMT] EXPR: EXPR in every lane of the selected thread's warp (FMT: a
    format letter of print/FMT, x d u o t c f a z), one line per lane
    (each in its own newest frame; outside an inlined vx_* intrinsic when EXPR is not in
    scope there; the runtime's thread-locals, such as blockIdx, read as $vx_tls does).
    A masked-off lane is marked: "waits" (for its side of a split: its values are those
    it waits with) or "parked" (by tmc/pred: it has no position of its own, its values
    are the ones it was parked with: registers, globals and thread-locals read, a
    local variable does not, as there is no frame to find it in); every lane of a warp that has "finished" or is
    "not started" (yet) is marked so."""

    def __init__(self):
        super().__init__("vx-print", gdb.COMMAND_DATA)

    @_vx_user_errors
    def invoke(self, arg, from_tty):
        expr, fmt = arg.strip(), None
        m = re.match(r"/(\S*)\s*(.*)$", expr, re.S)
        if m:
            if not re.fullmatch(r"[xduotcfaz]", m.group(1)):
                raise gdb.GdbError("vx-print/FMT: FMT is one of print's format letters "
                                   "x d u o t c f a z, not '%s'" % m.group(1))
            fmt, expr = m.group(1), m.group(2).strip()
        if not expr:
            raise gdb.GdbError("usage: vx-print[/FMT] EXPR")
        lines = []
        with _VxLanes() as v:
            active, state = _vx_warp_now(v.gw)
            for l in range(v.nt):
                if v.select(l) is None:
                    lines.append("  lane %d: (no thread)" % l)
                    continue
                how = ""
                if state in ("finished", "not started"):  # the whole warp: no lane runs
                    how = " (%s)" % state
                elif l not in active:
                    how = " (parked)" if int(gdb.parse_and_eval("$pc")) == 0 else " (waits)"
                lines.append("  lane %d%s: %s" % (l, how, _vx_eval_text(expr, fmt)))
        print("warp %d, %s:" % (v.gw, expr))
        print("\n".join(lines))


_vx_cond_warned = set()  # (breakpoint number, condition) already warned of


def _vx_check_conditions(*_):
    """Warn of breakpoint conditions GDB evaluates itself (in one lane only).  Looked at
    when the inferior resumes and before each prompt: GDB decides where a condition is
    evaluated when it inserts the breakpoint, not when it creates it."""
    try:
        # only conditions are looked at: no listing without one (GDB 13 hits an internal
        # error listing, as the run starts, a thread-specific breakpoint whose thread
        # has just gone)
        if not any(b.is_valid() and b.condition for b in gdb.breakpoints()):
            return
        out = gdb.execute("info breakpoints", to_string=True)
    except gdb.error:
        return
    num = None  # the breakpoint (or dprintf) row the condition lines below belong to
    for line in out.splitlines():
        m = re.match(r"^(\d+)\s+(hw breakpoint|breakpoint|dprintf|\S+)\s", line)
        if m:  # a watchpoint's or catchpoint's row: its conditions are not looked at
            num = int(m.group(1)) if m.group(2) in ("breakpoint", "hw breakpoint",
                                                    "dprintf") else None
            continue
        m = re.match(r"^\s+stop only if (.*) \(host evals\)$", line)
        if not m or num is None or "$vx_any" in m.group(1):
            continue
        cond = m.group(1)
        if (num, cond) in _vx_cond_warned:
            continue
        _vx_cond_warned.add((num, cond))
        print("vxrr: GDB tests the condition of breakpoint %d itself, in the first active "
              "lane of each warp that reaches it, not in every lane (it cannot compile it "
              "for the server: floats, calls or thread-locals such as blockIdx, or another "
              "condition at the same address is such).  To test every active lane:\n"
              "  condition %d $vx_any(\"%s\")"
              % (num, num, cond.replace("\\", "\\\\").replace('"', '\\"')))


def _vx_on_stop(event):
    """One timeline: a step of one warp (scheduler locked) moves the others too, but
    GDB only drops the stepped thread's registers.  Drop them all at every stop.
    After a breakpoint whose $vx_any condition held, select the lane where it held."""
    global _vx_any_hit, _vx_after_stop
    try:
        gdb.execute("maintenance flush register-cache", to_string=True)
    except gdb.error:
        pass
    _vx_unlock()
    after, _vx_after_stop = _vx_after_stop, None
    if after is not None:
        after()
    hit, _vx_any_hit = _vx_any_hit, None
    if hit is None or not isinstance(event, gdb.BreakpointEvent):
        return
    if not any(b.condition and "$vx_any" in b.condition for b in event.breakpoints):
        return
    t, lane = hit
    try:
        if lane is not None:
            # (auto stays auto: the lane shows for this stop's warp until the next stop)
            auto = _vx_monitor("lane").startswith("auto")
            _vx_monitor(("lane auto %d" if auto else "lane %d") % lane)
            gdb.execute("maintenance flush register-cache", to_string=True)
        elif t.is_valid() and t != gdb.selected_thread():
            print("vxrr: $vx_any held first in thread %d \"%s\"; selecting it:" % (t.num, t.name))
            gdb.execute("thread %d" % t.num)  # (the command: an IDE is told of the switch)
            return
        else:
            return
        print("vxrr: $vx_any held first in lane %d; selected it:" % lane)
        gdb.execute("frame")
    except gdb.error:
        pass


_vx_tb_sent = None  # the last `monitor thread-breaks` argument the server took
_vx_tid_of = {}  # GDB's global thread number -> the server's thread id (never changes)


def _vx_thread_breaks(event=None, read_threads=True, deleted=False):
    """Tell the server the thread-specific breakpoints (`break LOC thread N`): a warp
    reaches a breakpoint in all its active lanes at once, and the server reports one
    lane; GDB ignores the stop when that is not thread N (and the hit in N is lost).
    With this list the server reports N's lane when it is active.  Sent when the list
    changes, and at each stop while it is not empty (a new connection starts empty).
    The thread list is read only when a breakpoint is made or changed: GDB deletes a
    thread's breakpoints while it updates its thread list, and reading the list again
    from inside that (Inferior.threads) is a recursive internal error."""
    global _vx_tb_sent
    # (from breakpoint_deleted, the breakpoint going is still listed: leave it out, or
    # the server keeps it, and its warp stays live there, until the next stop)
    gone = event if isinstance(event, gdb.Breakpoint) and deleted else None
    try:
        bps = [b for b in gdb.breakpoints()
               if b.is_valid() and b.thread is not None and b.enabled and b != gone
               and b.type in (gdb.BP_BREAKPOINT, gdb.BP_HARDWARE_BREAKPOINT)]
        if not bps and not _vx_tb_sent:
            return  # none, and the server has none: nothing to do
        inf = gdb.selected_inferior()
        if read_threads and any(b.thread not in _vx_tid_of for b in bps):
            for t in inf.threads():
                _vx_tid_of[t.global_num] = t.ptid[1]
        pairs = []
        for b in bps:
            if b.thread in _vx_tid_of:
                for loc in b.locations:
                    if loc.enabled and loc.address is not None:
                        pairs.append("%x:%x" % (_vx_tid_of[b.thread], loc.address))
        arg = " ".join(pairs)
        if arg == _vx_tb_sent and not (arg and isinstance(event, gdb.StopEvent)):
            return
        if not inf.pid:
            return
        _vx_monitor("thread-breaks " + arg)
        _vx_tb_sent = arg
    except (gdb.error, AttributeError, RuntimeError):
        pass


_VX_WATCH_Z = {gdb.BP_HARDWARE_WATCHPOINT: 2, gdb.BP_READ_WATCHPOINT: 3,
               gdb.BP_ACCESS_WATCHPOINT: 4}


def _vx_watch_core(b):
    """A watchpoint on local memory watches the core of the thread selected when it is
    made.  GDB inserts it again after each stop it causes, with whichever thread is
    selected then: name its core to the server now (GDB inserts it right after this
    event)."""
    try:
        z = _VX_WATCH_Z.get(b.type)
        th = gdb.selected_thread()
        if z is None or th is None or not gdb.selected_inferior().pid:
            return
        expr = re.sub(r"^\s*-(l|location)\s+", "", b.expression or "")
        v = gdb.parse_and_eval(expr)
        if v.address is None:
            return
        addr, n = int(v.address) & 0xffffffff, v.type.sizeof
        if not (0xffff0000 <= addr < 0xffff4000) or n <= 0:
            return
        cfg = _vx_config()
        tid = th.ptid[1] or th.ptid[2]
        gw = tid - 1 if cfg.get("gdb_thread") == "warp" else (tid - 1) // int(cfg["threads"])
        core = gw // int(cfg["warps"])
        _vx_monitor("watch-core %d 0x%x %d %d" % (z, addr, n, core))
    except (gdb.error, KeyError, ValueError, AttributeError, RuntimeError):
        pass


gdb.events.breakpoint_created.connect(_vx_watch_core)
gdb.events.breakpoint_created.connect(_vx_thread_breaks)
gdb.events.breakpoint_modified.connect(_vx_thread_breaks)
gdb.events.breakpoint_deleted.connect(
    lambda b: _vx_thread_breaks(b, read_threads=False, deleted=True))
gdb.events.stop.connect(lambda ev: _vx_thread_breaks(ev, read_threads=False))
gdb.events.stop.connect(_vx_on_stop)
gdb.events.cont.connect(_vx_check_conditions)

gdb.events.before_prompt.connect(_vx_check_conditions)
gdb.events.before_prompt.connect(_vx_unlock)

VxThread()
VxWarp()
VxLane()
VxSeek()
VxRestart()
VxLast()
VxTlsFunction()
VxTls()
VxAnyFunction()
VxPrint()
end

define vx-when
  monitor when
end
document vx-when
Show the current event index, its cycle and the warp that issues next.
end

define vx-warps
  monitor warps
end
document vx-warps
Show every warp: PC, thread mask, IPDOM depth and state (ready, barrier, finished, ...).
end

define vx-checkpoint
  monitor checkpoint
end
document vx-checkpoint
Remember the current position; vx-restart N returns to it.
end

define vx-info-dm
  monitor info dm
end
document vx-info-dm
Debug Module state at this point of the recording: halted warps, hacause, ebreak-halt.
end
