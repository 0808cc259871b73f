"""vxdbg - a small VxDebug client for the tests (the algorithms of research §6.5).

It talks the VxDebug TCP line protocol to `vxsim --dm-port` and implements what a
real VxDebug debugger does on top of the Debug Module registers: wake the DM,
reset with halt, select warps and threads, halt/resume/step, read and write GPRs
through injected `csrw/csrr dscratch`, CSRs and memory through injected loads and
stores, software breakpoints by storing `ebreak` over an instruction.
"""
import os
import re
import select
import socket
import struct
import subprocess
import time

# ---- Debug Module register map (vxdebug-spec.md) -------------------------------------
PLATFORM, DCONFIG, DSELECT, WMASK, WACTIVE, WSTATUS, DCTRL, DPC, INJECT = range(9)
DSCRATCH0 = 9

DA = 1 << 31
NT = 1 << 30
AH = 1 << 29
NH = 1 << 28
AR = 1 << 27
NR = 1 << 26
AU = 1 << 25
NU = 1 << 24
SERR = 1 << 13
IERR = 1 << 12
IR = 1 << 6
SR = 1 << 3
RHR = 1 << 2
RR = 1 << 1
HR = 1 << 0

HC_NONE, HC_EBREAK, HC_HALTREQ, HC_STEP, HC_RESETHALTREQ = range(5)


def hacause(d):
    return (d >> 9) & 7


def injectstate(d):
    return (d >> 7) & 3


def stepstate(d):
    return (d >> 4) & 3


def dselect(win, warp, thread):
    return (win << 22) | (warp << 7) | thread


# ---- RV32 encoders --------------------------------------------------------------------

def enc_i(op, f3, rd, rs1, imm):
    return ((imm & 0xFFF) << 20) | (rs1 << 15) | (f3 << 12) | (rd << 7) | op


def enc_s(op, f3, rs1, rs2, imm):
    return (((imm >> 5) & 0x7F) << 25) | (rs2 << 20) | (rs1 << 15) | (f3 << 12) | \
        ((imm & 0x1F) << 7) | op


def enc_r(op, f3, f7, rd, rs1, rs2):
    return (f7 << 25) | (rs2 << 20) | (rs1 << 15) | (f3 << 12) | (rd << 7) | op


def enc_b(f3, rs1, rs2, off):
    o = off & 0x1FFF
    return (((o >> 12) & 1) << 31) | (((o >> 5) & 0x3F) << 25) | (rs2 << 20) | (rs1 << 15) | \
        (f3 << 12) | (((o >> 1) & 0xF) << 8) | (((o >> 11) & 1) << 7) | 0x63


def ADDI(rd, rs1, imm): return enc_i(0x13, 0, rd, rs1, imm)
def ADD(rd, rs1, rs2): return enc_r(0x33, 0, 0, rd, rs1, rs2)
def LW(rd, rs1, imm): return enc_i(0x03, 2, rd, rs1, imm)
def SW(rs2, rs1, imm): return enc_s(0x23, 2, rs1, rs2, imm)
def SB(rs2, rs1, imm): return enc_s(0x23, 0, rs1, rs2, imm)
def LUI(rd, imm20): return ((imm20 & 0xFFFFF) << 12) | (rd << 7) | 0x37
def BNE(rs1, rs2, off): return enc_b(1, rs1, rs2, off)
def CSRRW(rd, csr, rs1): return enc_i(0x73, 1, rd, rs1, csr)
def CSRRS(rd, csr, rs1): return enc_i(0x73, 2, rd, rs1, csr)
def CSRR(rd, csr): return CSRRS(rd, csr, 0)
def CSRW(csr, rs1): return CSRRW(0, csr, rs1)
def TMC(rs1): return enc_r(0x0B, 0, 0, 0, rs1, 0)


EBREAK = 0x00100073
# A kernel that needs --allow-misaligned: sw a0 = 0x44332211 at 0x10001, lw a1 from
# 0x10002 (0x443322), the exit code word = a1 (status 0x22); then tmc 0
MISALIGNED = [LUI(12, 0x10), LUI(10, 0x44332), ADDI(10, 10, 0x211), SW(10, 12, 1), LW(11, 12, 2),
              SW(11, 0, 0x88), TMC(0)]
CSR_DSCRATCH = 0x7B2
CSR_THREAD_ID = 0xCC0
CSR_WARP_ID = 0xCC1
CSR_CORE_ID = 0xCC2
CSR_MHARTID = 0xF14
T0, T1 = 5, 6


class DmError(Exception):
    pass


class Client:
    """One connection to the VxDebug TCP server."""

    def __init__(self, port, host="127.0.0.1", timeout=30):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.buf = b""
        self.nw = None
        self.nt = None

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    # -- raw protocol
    def send_raw(self, data):
        self.sock.sendall(data)

    def recv_line(self):
        while b"\n" not in self.buf:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise DmError("server closed the connection")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line.decode("ascii", "replace")

    def cmd(self, line):
        if isinstance(line, str):
            line = line.encode()
        self.send_raw(line + b"\n")
        return self.recv_line()

    def rd(self, addr):
        r = self.cmd("r%04x" % addr)
        if not r.startswith("+"):
            raise DmError("read of DM register 0x%x failed: %r" % (addr, r))
        return int(r[1:], 16)

    def wr(self, addr, val):
        r = self.cmd("w%04x:%08x" % (addr, val & 0xFFFFFFFF))
        if r != "+":
            raise DmError("write of DM register 0x%x failed: %r" % (addr, r))

    def poll(self, mask, want, tries=2000, delay=0.002):
        """Poll DCTRL until (DCTRL & mask) == want; return DCTRL."""
        d = 0
        for _ in range(tries):
            d = self.rd(DCTRL)
            if d & mask == want:
                return d
            time.sleep(delay)
        raise DmError("DCTRL 0x%08x never had 0x%x under mask 0x%x" % (d, want, mask))

    # -- session
    def wake(self):
        assert self.cmd("p") == "+P"
        d = self.rd(DCTRL)
        if d & NT:
            self.poll(NT, 0)
        if not self.rd(DCTRL) & DA:
            self.wr(DCTRL, DA)
            self.poll(DA, DA)
        p = self.rd(PLATFORM)
        self.platform = p
        self.nw = ((p >> 21) & 0x7F) * ((p >> 12) & 0x1FF) * ((p >> 3) & 0x1FF)
        self.nt = 1 << (p & 7)
        return p

    def select_warps(self, warps):
        """Global warp-select mask := the given set of gwarps."""
        nwin = (self.nw + 31) // 32
        for w in range(nwin):
            m = 0
            for g in warps:
                if g // 32 == w:
                    m |= 1 << (g % 32)
            self.wr(DSELECT, dselect(w, 0, 0))
            self.wr(WMASK, m)

    def select_all(self):
        self.select_warps(range(self.nw))

    def select(self, warp, thread=0):
        self.wr(DSELECT, dselect(warp // 32, warp, thread))

    def reset_halt(self):
        self.select_all()
        self.wr(DCTRL, DA | RHR)
        self.wr(DCTRL, DA | NT)
        return self.poll(NT, 0)

    def halt_all(self):
        self.select_all()
        self.wr(DCTRL, DA | HR)

    def resume_all(self):
        self.select_all()
        self.wr(DCTRL, DA | RR)

    def start_halted(self, warp=0, thread=0):
        """Wake the DM, reset the platform with every warp halted, start it (warp 0 halts
        at its first instruction) and select warp, thread."""
        self.wake()
        self.reset_halt()
        if self.cmd("s") != "+":
            raise DmError("the platform did not start")
        self.select(warp, thread)

    def run_to_breakpoint(self, addr, orig):
        """A software breakpoint on warp 0, lane 0: ebreak stored at addr (ebreak halting the
        warp), the platform resumed until a warp halts there, the instruction orig put back;
        warp 0 lane 0 is selected again."""
        self.select(0, 0)
        self.write_mem(addr, EBREAK)
        self.wr(DCONFIG, 0x88000001)
        self.resume_all()
        self.poll(NH, NH)
        self.select(0, 0)
        self.write_mem(addr, orig)

    def status(self):
        """Halted bits of every warp, as a list of booleans."""
        out = []
        for w in range((self.nw + 31) // 32):
            self.wr(DSELECT, dselect(w, 0, 0))
            s = self.rd(WSTATUS)
            out += [bool(s >> i & 1) for i in range(32)]
        return out[:self.nw]

    def active(self):
        out = []
        for w in range((self.nw + 31) // 32):
            self.wr(DSELECT, dselect(w, 0, 0))
            s = self.rd(WACTIVE)
            out += [bool(s >> i & 1) for i in range(32)]
        return out[:self.nw]

    def step(self):
        self.wr(DCTRL, DA | SR)
        d = self.poll(3 << 4, 0)
        if d & SERR:
            raise DmError("step refused (steperr)")
        return self.rd(DPC)

    def inject(self, insn):
        self.wr(INJECT, insn)
        self.wr(DCTRL, DA | IR)
        d = self.poll(3 << 7, 0)
        if d & IERR:
            raise DmError("injection of 0x%08x failed (injecterr)" % insn)
        return d

    # -- registers, CSRs, memory of the selected thread (research §6.5)
    def read_gpr(self, n):
        if n == 0:
            return 0
        self.inject(CSRW(CSR_DSCRATCH, n))
        return self.rd(DSCRATCH0)

    def write_gpr(self, n, v):
        self.wr(DSCRATCH0, v)
        self.inject(CSRR(n, CSR_DSCRATCH))

    def read_csr(self, c):
        t0 = self.read_gpr(T0)
        self.inject(CSRR(T0, c))
        v = self.read_gpr(T0)
        self.write_gpr(T0, t0)
        return v

    def read_mem(self, addr):
        t0, t1 = self.read_gpr(T0), self.read_gpr(T1)
        self.write_gpr(T0, addr)
        self.inject(LW(T1, T0, 0))
        v = self.read_gpr(T1)
        self.write_gpr(T0, t0)
        self.write_gpr(T1, t1)
        return v

    def write_mem(self, addr, v):
        t0, t1 = self.read_gpr(T0), self.read_gpr(T1)
        self.write_gpr(T0, addr)
        self.write_gpr(T1, v)
        self.inject(SW(T1, T0, 0))
        self.write_gpr(T0, t0)
        self.write_gpr(T1, t1)


# ---- running vxsim with the Debug Module -------------------------------------------------

def ipv6_loopback():
    """Whether this host can listen on ::1."""
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as so:
            so.bind(("::1", 0))
        return True
    except OSError:
        return False


LISTEN = re.compile(r"Debug Module listening on ([0-9.]+|\[[0-9a-fA-F:.]+\]):(\d+)")


class Server:
    """vxsim --dm-port 0 ...: the process, its port, its collected output."""

    def __init__(self, vxsim, args, timeout=60):
        self.proc = subprocess.Popen([vxsim, "--dm-port", "0"] + list(args),
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.stderr = b""
        self.port = None
        self.host = None  # the address announced (brackets stripped)
        deadline = time.time() + timeout
        while self.port is None:
            left = deadline - time.time()
            if left <= 0 or self.proc.poll() is not None:
                break
            r, _, _ = select.select([self.proc.stderr], [], [], left)
            if not r:
                break
            chunk = os.read(self.proc.stderr.fileno(), 4096)
            if not chunk:
                break
            self.stderr += chunk
            m = LISTEN.search(self.stderr.decode("utf-8", "replace"))
            if m:
                self.host = m.group(1).strip("[]")
                self.port = int(m.group(2))

    def connect(self):
        return Client(self.port, self.host)

    def wait(self, timeout=60):
        out, err = self.proc.communicate(timeout=timeout)
        self.stderr += err
        return self.proc.returncode, out.decode("utf-8", "replace"), \
            self.stderr.decode("utf-8", "replace")

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.communicate()


def elf_symbol(path, name):
    """Address of a symbol in an ELF32 little-endian file (None if absent)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 1:
        return None
    shoff, = struct.unpack_from("<I", data, 0x20)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x2E)
    secs = [struct.unpack_from("<IIIIIIIIII", data, shoff + i * shentsize) for i in range(shnum)]
    for sec in secs:
        if sec[1] != 2:  # SHT_SYMTAB
            continue
        strtab = secs[sec[6]]
        for off in range(sec[4], sec[4] + sec[5], 16):
            st_name, st_value = struct.unpack_from("<II", data, off)
            s0 = strtab[4] + st_name
            s1 = data.index(b"\0", s0)
            if data[s0:s1].decode() == name:
                return st_value
    return None
