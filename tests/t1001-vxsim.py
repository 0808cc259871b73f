#!/usr/bin/env python3
"""t1001 - the vxsim program: usage errors, bad kernel images, faults, limits,
exit codes, console output, --dump, --stats, --trace-insn, --load, --arg and the
platform-shape options.  Test kernels are crafted here as ELF32 bytes with a
tiny RISC-V encoder, so every expectation is computed independently."""
import os
import re
import select
import signal
import struct
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
import vxtest  # noqa: E402

VXSIM = vxtest.prog("vxsim")
CODE = 0x80000000


# ---- a tiny encoder -------------------------------------------------------------

def r_type(f7, rs2, rs1, f3, rd, opc):
    return (f7 << 25) | (rs2 << 20) | (rs1 << 15) | (f3 << 12) | (rd << 7) | opc


def i_type(imm, rs1, f3, rd, opc):
    return ((imm & 0xfff) << 20) | (rs1 << 15) | (f3 << 12) | (rd << 7) | opc


def s_type(imm, rs2, rs1, f3):
    imm &= 0xfff
    return ((imm >> 5) << 25) | (rs2 << 20) | (rs1 << 15) | (f3 << 12) | ((imm & 31) << 7) | 0x23


def addi(rd, rs1, imm):
    return i_type(imm, rs1, 0, rd, 0x13)


def lui(rd, imm20):
    return ((imm20 & 0xfffff) << 12) | (rd << 7) | 0x37


def lw(rd, imm, rs1):
    return i_type(imm, rs1, 2, rd, 0x03)


def sw(rs2, imm, rs1):
    return s_type(imm, rs2, rs1, 2)


def sb(rs2, imm, rs1):
    return s_type(imm, rs2, rs1, 0)


def csrr(rd, csr):
    return i_type(csr, 0, 2, rd, 0x73)


def tmc(rs1):
    return r_type(0, 0, rs1, 0, 0, 0x0b)


def jal(rd, off):
    off &= 0x1fffff
    return (((off >> 20) & 1) << 31) | (((off >> 1) & 0x3ff) << 21) | (((off >> 11) & 1) << 20) | \
        (((off >> 12) & 0xff) << 12) | (rd << 7) | 0x6f


def bne(rs1, rs2, off):
    off &= 0x1fff
    return (((off >> 12) & 1) << 31) | (((off >> 5) & 0x3f) << 25) | (rs2 << 20) | (rs1 << 15) | \
        (1 << 12) | (((off >> 1) & 0xf) << 8) | (((off >> 11) & 1) << 7) | 0x63


def words(*ws):
    return b"".join(struct.pack("<I", w & 0xffffffff) for w in ws)


def vx(f3, rd, rs1, rs2=0):
    """A custom-0 warp-control instruction: 0 tmc, 1 wspawn, 2 split, 3 join."""
    return r_type(0, rs2, rs1, f3, rd, 0x0b)


def exit_with(reg):
    """Store reg to the exit-code word 0x88 and end the warp."""
    return [sw(reg, 0x88, 0), tmc(0)]


# ---- ELF32 builder ----------------------------------------------------------------

def elf32(segments, entry=CODE, machine=243, cls=1, etype=2, pad=0):
    """segments: list of (vaddr, data, memsz, p_type); pad: bytes between the ELF
    header and the program headers (an odd pad misaligns them)."""
    ehsize, phentsize = 52, 32
    phoff = ehsize + pad
    off = phoff + phentsize * len(segments)
    phdrs, blobs = b"", b""
    for vaddr, data, memsz, ptype in segments:
        phdrs += struct.pack("<IIIIIIII", ptype, off + len(blobs), vaddr, vaddr, len(data),
                             memsz, 5, 4)
        blobs += data
    ident = b"\x7fELF" + bytes([cls, 1, 1, 0]) + b"\0" * 8
    hdr = ident + struct.pack("<HHIIIIIHHHHHH", etype, machine, 1, entry, phoff, 0, 0, ehsize,
                              phentsize, len(segments), 40, 0, 0)
    return hdr + b"\0" * pad + phdrs + blobs


def prog_elf(ws, extra=()):
    code = words(*ws)
    return elf32([(CODE, code, len(code), 1)] + list(extra))


class VxsimTests(unittest.TestCase):
    def setUp(self):
        self.dir = vxtest.tmpdir()

    def write(self, name, data):
        path = os.path.join(self.dir, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def run_sim(self, *args, kernel=None):
        argv = [VXSIM] + list(args)
        if kernel is not None:
            argv.append(kernel)
        return vxtest.run(argv, timeout=60)

    # -- usage -------------------------------------------------------------------
    def test_help_version(self):
        r = self.run_sim("--help")
        self.assertEqual(r.returncode, 0)
        self.assertIn("usage: vxsim", r.stdout)
        self.assertIn("--max-cycles", r.stdout)
        r = self.run_sim("--version")
        self.assertEqual(r.returncode, 0)
        self.assertRegex(r.stdout, r"^vxsim \(vxrr\) \d+\.\d+\.\d+\n$")

    def test_usage_errors(self):
        k = self.write("ok.elf", prog_elf([tmc(0)]))
        cases = [
            ([], "no kernel"),
            (["--bogus", k], "unknown option"),
            (["--warps", "0", k], "--warps"),
            (["-w0", k], "--warps"),
            (["--threads", "3", k], "power of two"),
            (["-t", "256", k], "--threads"),
            (["--clusters", "x", k], "--clusters"),
            (["--load", "nofile", k], "FILE@ADDR"),
            (["--arg", "0x1ffffffff", k], "--arg"),
            (["--max-cycles", "0", k], "--max-cycles"),
            (["--mem-limit", "12Q", k], "--mem-limit"),
            (["--mem-limit", "5G", k], "more than the guest's 4G address space"),
            (["--dump", "0x100", k], "ADDR:LEN=FILE"),
            (["--dump", "0xFFFFFFF0:1M=x", k], "runs past the 4 GiB address space"),
            (["--dump", "0x10000:4=" + k, k], "the output '%s' is an input of the run" % k),
            (["--trace-insn=" + k, k], "the output '%s' is an input of the run" % k),
            (["--dump", "0x10000:4=" + os.path.join(self.dir, "no", "dir"), k],
             "--dump: cannot write '%s'" % os.path.join(self.dir, "no", "dir")),
            (["--dm-bind", "::1", k], "--dm-port"),
            (["--dm-port", "0", "--dm-bind", "nonexistent.invalid", k],
             "cannot resolve Debug Module bind address 'nonexistent.invalid'"),
            (["--mem-limit", "64Mi", k], "--mem-limit: '64Mi' is not a size"),
            ([k, k], "more than one kernel"),
            (["--warps"], "needs a value"),
            ([os.path.join(self.dir, "missing.elf")], "cannot read"),
            (["-C", "100", "-c", "400", "-w", "2", k], "32768"),
        ]
        for args, msg in cases:
            r = self.run_sim(*args)
            self.assertEqual(r.returncode, 2, "%s: rc %d, stderr %s" % (args, r.returncode, r.stderr))
            self.assertIn(msg, r.stderr, args)
            self.assertTrue(r.stderr.startswith("vxsim: "), r.stderr)

    # -- bad kernel images ------------------------------------------------------------
    def bad_image(self, name, data, msg):
        r = self.run_sim(kernel=self.write(name, data))
        self.assertEqual(r.returncode, 2, "%s: %s" % (name, r.stderr))
        self.assertIn(msg, r.stderr)
        self.assertIn(name, r.stderr, "the message names the file")

    def test_bad_images(self):
        good = prog_elf([tmc(0)])
        self.bad_image("text.elf", b"this is not an ELF file\n", "not an ELF file")
        self.bad_image("e64.elf", good[:4] + b"\x02" + good[5:], "ELF64")
        self.bad_image("x86.elf", elf32([(CODE, words(tmc(0)), 4, 1)], machine=62),
                       "not RISC-V")
        self.bad_image("dyn.elf", elf32([(CODE, words(tmc(0)), 4, 1)], etype=3),
                       "not an executable")
        self.bad_image("noload.elf", elf32([(CODE, words(tmc(0)), 4, 4)]), "no loadable")
        self.bad_image("io.elf", elf32([(0x8000, words(tmc(0)), 4, 1)], entry=0x8000),
                       "overlaps the IO region")
        self.bad_image("lmem.elf", elf32([(0xFFFF0000, words(tmc(0)), 4, 1)]),
                       "past global memory")
        self.bad_image("trunc.elf", good[:30], "truncated")
        phoff = struct.unpack_from("<I", good, 28)[0]   # the program header table, cut inside
        self.bad_image("truncph.elf", good[:phoff + 8], "program headers extend past the end")
        # e_phnum PN_XNUM with no section header 0 to hold the count: libelf took the ELF
        # header for it (count = e_phoff, 52) and the bytes after the table for headers
        xnum = bytearray(good + bytes(phoff + 52 * 32))
        struct.pack_into("<H", xnum, 44, 0xFFFF)
        struct.pack_into("<H", xnum, 48, 1)                            # e_shnum 1,
        self.assertEqual(struct.unpack_from("<I", xnum, 32)[0], 0)   # e_shoff 0: none
        self.bad_image("xnum.elf", bytes(xnum), "e_phnum is PN_XNUM")
        self.bad_image("truncseg.elf", good[:-2], "truncated")
        self.bad_image("fsz.elf", elf32([(CODE, words(tmc(0), tmc(0)), 4, 1)]),
                       "file size")
        self.bad_image("short.vxbin", b"\0" * 10, "truncated")
        self.bad_image("inv.vxbin", struct.pack("<QQ", CODE + 16, CODE) + words(tmc(0)),
                       "below min_vma")
        self.bad_image("io.vxbin", struct.pack("<QQ", 0x100, 0x200) + words(tmc(0)), "IO region")
        self.bad_image("empty.bin", b"", "empty")

    def test_bad_image_headers(self):
        """(from a coverage review) a cut ELF header, on a file and on standard input, an
        unknown class, big-endian data, a .vxbin image larger than its [min_vma, max_vma)"""
        good = prog_elf([tmc(0)])
        self.bad_image("ten.elf", b"\x7fELF" + good[4:10], "truncated ELF header (10 bytes)")
        r = subprocess.run([VXSIM, "-"], input=good[:10], capture_output=True, text=False,
                           timeout=60)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn(b"-: truncated ELF header (10 bytes)", r.stderr)
        self.bad_image("class3.elf", good[:4] + b"\x03" + good[5:], "unknown ELF class 3")
        self.bad_image("msb.elf", good[:5] + b"\x02" + good[6:], "not a little-endian ELF file")
        self.bad_image("big.vxbin", struct.pack("<QQ", CODE, CODE + 4) + b"\0" * 16,
                       "image (16 bytes) is larger than [min_vma, max_vma)")

    def test_unaligned_program_headers(self):
        body = words(addi(10, 0, 5), *exit_with(10))
        data = elf32([(CODE, body, len(body) + 64, 1)], pad=3)
        r = self.run_sim(kernel=self.write("odd.elf", data))
        self.assertEqual(r.returncode, 5, r.stderr)

    def test_vxbin_and_raw(self):
        body = words(addi(10, 0, 9), *exit_with(10))
        vxbin = struct.pack("<QQ", CODE, CODE + 0x1000) + body
        r = self.run_sim(kernel=self.write("k.vxbin", vxbin))
        self.assertEqual(r.returncode, 9, r.stderr)
        r = self.run_sim(kernel=self.write("k.bin", body))
        self.assertEqual(r.returncode, 9, r.stderr)

    # -- running -----------------------------------------------------------------
    def test_exit_code_and_console(self):
        ws = [addi(5, 0, 0x40), addi(6, 0, ord("h")), sb(6, 0, 5), addi(6, 0, ord("i")),
              sb(6, 0, 5), addi(6, 0, 10), sb(6, 0, 5), addi(6, 0, ord("x")), sb(6, 3, 5),
              addi(10, 0, 42)] + exit_with(10)
        r = self.run_sim(kernel=self.write("con.elf", prog_elf(ws)))
        self.assertEqual(r.returncode, 42, r.stderr)
        self.assertEqual(r.stdout, "#0: hi\n#3: x\n", "newline-terminated line, then the flush")

    def test_console_line_longer_than_4096(self):
        """(from a coverage review) a console line of 10000 bytes is printed as pieces of
        4096, 4096 and 1808 bytes, each as a line of its own slot (vx_sim.h, STATE.md 6);
        recorded, the same output, and the trace verifies"""
        ws = [addi(5, 0, ord("z")), lui(6, 2), addi(6, 6, 10000 - 8192),
              sb(5, 0x40, 0), addi(6, 6, -1), bne(6, 0, -8),
              addi(7, 0, 10), sb(7, 0x40, 0)] + exit_with(0)
        k = self.write("long.elf", prog_elf(ws))
        want = "".join("#0: " + "z" * n + "\n" for n in (4096, 4096, 1808))
        r = self.run_sim(kernel=k)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, want)
        t = os.path.join(self.dir, "long.vxt")
        r = vxtest.run([vxtest.prog("vxrec"), "-q", k, "-o", t], timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, want)
        v = vxtest.run([vxtest.prog("vxrec"), "--verify", t], timeout=120)
        self.assertEqual(v.returncode, 0, v.stderr)

    def test_exit_code_mod_256(self):
        ws = [addi(10, 0, 0x101)] + exit_with(10)
        r = self.run_sim(kernel=self.write("x.elf", prog_elf(ws)))
        self.assertEqual(r.returncode, 1)

    def test_fault(self):
        ws = [addi(5, 0, 4), lw(10, 0, 5)]
        r = self.run_sim(kernel=self.write("f.elf", prog_elf(ws)))
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("kernel fault at pc 0x80000004 (core 0, warp 0, lanes 0x1)", r.stderr)
        self.assertIn("unmapped address 0x00000004", r.stderr)
        self.assertIn("[lw a0, 0(t0)]", r.stderr)
        self.assertIn("SIGSEGV", r.stderr)
        r = self.run_sim(kernel=self.write("ill.elf", prog_elf([0xffffffff])))
        self.assertEqual(r.returncode, 3)
        self.assertIn("illegal instruction 0xffffffff", r.stderr)
        self.assertIn("SIGILL", r.stderr)

    def test_max_cycles(self):
        r = self.run_sim("--max-cycles", "1000", kernel=self.write("loop.elf", prog_elf([jal(0, 0)])))
        self.assertEqual(r.returncode, 4, r.stderr)
        self.assertIn("cycle limit of 1000 reached", r.stderr)

    def test_closed_pipe_keeps_dump_files(self):
        """(from a review) vxsim whose standard output is a pipe nobody reads any more
        (`vxsim --dump ... k.elf | head -1`) is not killed by SIGPIPE: it finishes the run,
        writes its --dump file (the same bytes as a run writing to /dev/null), says the
        console output was lost and exits 2; it exited 141 leaving the file empty"""
        k = vxtest.kernel("printf")
        if not os.path.exists(k):
            self.skipTest("make kernels")
        ref, got = os.path.join(self.dir, "ref.bin"), os.path.join(self.dir, "got.bin")
        r = subprocess.run([VXSIM, "--dump", "0x10000:4K=" + ref, k], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        rd, wr = os.pipe()
        os.close(rd)                                     # nobody will ever read
        p = subprocess.Popen([VXSIM, "--dump", "0x10000:4K=" + got, k], stdout=wr,
                             stderr=subprocess.PIPE, text=True)
        os.close(wr)
        err = p.communicate(timeout=60)[1]
        self.assertEqual(p.returncode, 2, err)            # not -SIGPIPE
        self.assertIn("could not be written to standard output: Broken pipe", err)
        with open(ref, "rb") as a, open(got, "rb") as b:
            want = a.read()
            self.assertEqual(len(want), 4096)
            self.assertEqual(b.read(), want)

    def test_load_host_out_of_memory_is_not_the_guest_limit(self):
        """(from a review) a --load that finds the host out of memory (24 MiB under 40-80 MiB
        address-space limits) says so, not "guest memory limit of 1073741824 bytes
        exceeded" (the loader's writes ignored why no page came); the guest limit is still
        named when it is the cause (two 600 KiB loads under --mem-limit 1M)"""
        if vxtest.sanitized():
            self.skipTest("sanitizer builds reserve address space of their own")
        import resource
        k = self.write("halt.elf", prog_elf([addi(10, 0, 0), tmc(0)]))
        big = self.write("big.dat", b"\x5a" * (24 << 20))
        pages = 0
        for mib in (40, 50, 60, 70, 80):
            limit = lambda: resource.setrlimit(resource.RLIMIT_AS, (mib << 20, mib << 20))  # noqa
            r = subprocess.run([VXSIM, "--load", big + "@0x10000000", k], capture_output=True,
                               text=True, timeout=60, preexec_fn=limit)
            if r.returncode == 0:                          # room enough for it
                continue
            self.assertEqual(r.returncode, 2, (mib, r.stderr))
            self.assertNotIn("exceeded", r.stderr, mib)
            if "no page for the write" in r.stderr:
                pages += 1
                self.assertIn("out of host memory", r.stderr, mib)
        self.assertGreater(pages, 0, "no limit made a load's page allocation fail")
        small = self.write("small.dat", b"\x5a" * (600 << 10))
        r = self.run_sim("--mem-limit", "1M", "--load", small + "@0x10000000",
                         "--load", small + "@0x20000000", kernel=k)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("guest memory limit of 1048576 bytes exceeded writing 0x200", r.stderr)
        self.assertNotIn("host", r.stderr)

    def test_host_out_of_memory_is_not_a_kernel_fault(self):
        """the host running out of memory (an address-space limit far below the guest's 1 GiB)
        is an error of the run (exit 2, 'out of host memory'), not a kernel fault; vxrec ends
        the trace as aborted, and the trace verifies"""
        if vxtest.sanitized():
            self.skipTest("sanitizer builds reserve address space of their own")
        import resource
        ws = [lui(5, 0x10), lui(6, 1), sw(0, 0, 5), 0x006282b3, jal(0, -8)]  # walk pages, storing
        k = self.write("walk.elf", prog_elf(ws))
        limit = lambda: resource.setrlimit(resource.RLIMIT_AS, (300 << 20, 300 << 20))  # noqa: E731
        r = subprocess.run([VXSIM, k], capture_output=True, text=True, timeout=120, preexec_fn=limit)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("out of host memory", r.stderr)
        self.assertIn("the guest memory limit was not reached", r.stderr)
        self.assertNotIn("kernel fault", r.stderr)
        t = os.path.join(self.dir, "walk.vxt")
        r = subprocess.run([vxtest.prog("vxrec"), "-q", "--no-writer-thread", k, "-o", t],
                           capture_output=True, text=True, timeout=120, preexec_fn=limit)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("out of host memory", r.stderr)
        self.assertIn("ends there (its end record: aborted)", r.stderr)
        d = vxtest.run([vxtest.prog("vxdump"), "--kind", "end,fault", t])
        self.assertIn("end aborted", d.stdout)
        self.assertNotIn("exceeds the guest memory limit", d.stdout)
        v = vxtest.run([vxtest.prog("vxrec"), "--verify", t], timeout=120)
        self.assertEqual(v.returncode, 0, v.stderr)

    def test_mem_limit(self):
        # x5 walks pages from 0x10000 storing to each: exceeds an 8 KiB limit (code page + 1)
        ws = [lui(5, 0x10), lui(6, 1), sw(0, 0, 5), 0x006282b3, jal(0, -8)]  # add x5,x5,x6
        r = self.run_sim("--mem-limit", "8K", kernel=self.write("mem.elf", prog_elf(ws)))
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("memory limit", r.stderr)

    def test_mem_limit_suffixes(self):
        """--mem-limit takes a size with K/M/G, also written KiB/MiB/GiB or KB/MB/GB (from the
        coverage review; 64Mi is refused in test_usage_errors)"""
        k = self.write("ok.elf", prog_elf([tmc(0)]))
        for v in ("64M", "64MiB", "64MB"):
            r = self.run_sim("--mem-limit", v, kernel=k)
            self.assertEqual(r.returncode, 0, (v, r.stderr))

    def test_load_arg_dump(self):
        data = self.write("data.bin", bytes(range(16)))
        ws = [lui(5, 0x20), lw(10, 4, 5), addi(10, 10, 1), sw(10, 8, 5),
              csrr(11, 0x340), sw(11, 12, 5), lw(12, 0, 5), tmc(0)]
        out = os.path.join(self.dir, "out.bin")
        out2 = os.path.join(self.dir, "out2.bin")
        r = self.run_sim("--load", data + "@0x20000", "--arg=0x1234",
                         "--dump", "0x20000:16=" + out, "--dump=0x20008:0x4=" + out2,
                         kernel=self.write("load.elf", prog_elf(ws)))
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out, "rb") as f:
            got = f.read()
        want = bytearray(range(16))
        want[8:12] = struct.pack("<I", 0x07060504 + 1)
        want[12:16] = struct.pack("<I", 0x1234)
        self.assertEqual(got, bytes(want))
        with open(out2, "rb") as f:
            self.assertEqual(f.read(), struct.pack("<I", 0x07060505))

    def test_help_to_a_full_disk(self):
        """--help and --version of every program into a full disk: exit 2 and the reason
        (the text is the result; it exited 0 having written nothing)"""
        if not os.path.exists("/dev/full"):
            self.skipTest("no /dev/full")
        for prog in ("vxsim", "vxrec", "vxdump", "vxdiff", "vxreplay"):
            for opt in ("--help", "--version"):
                with open("/dev/full", "w") as full:
                    r = subprocess.run([vxtest.prog(prog), opt], stdout=full,
                                       stderr=subprocess.PIPE, text=True, timeout=60)
                self.assertEqual(r.returncode, 2, (prog, opt, r.stderr))
                self.assertIn("cannot write the output: No space left on device", r.stderr)

    def test_kernel_on_stdin(self):
        """KERNEL '-' reads standard input: an ELF, a .vxbin (told by its header, there is
        no name to go by) and a raw binary each run as what they are"""
        raw = words(addi(5, 0, 42), *exit_with(5))
        r = subprocess.run([VXSIM, "-"], input=raw, capture_output=True, timeout=60)
        self.assertEqual(r.returncode, 42, r.stderr)
        r = subprocess.run([VXSIM, "-"], input=prog_elf([addi(5, 0, 43)] + exit_with(5)),
                           capture_output=True, timeout=60)
        self.assertEqual(r.returncode, 43, r.stderr)
        # read once: the kernel and a --load both from it is refused (the load got 0 bytes)
        r = subprocess.run([VXSIM, "--load", "-@0x10000", "-"], input=raw, capture_output=True,
                           timeout=60)
        self.assertEqual(r.returncode, 2)
        self.assertIn(b"it can be read once", r.stderr)
        vxbin = vxtest.kernel("hello")[:-4] + ".vxbin"
        if os.path.exists(vxbin):
            with open(vxbin, "rb") as f:
                r = subprocess.run([VXSIM, "-"], stdin=f, capture_output=True, timeout=60)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stdout, b"#0: Hello World!\n")

    def test_console_reaches_a_pipe_line_by_line(self):
        """vxsim's output in a pipe: each kernel line is written when complete, so a kernel
        that then spins until SIGINT or SIGTERM has not lost it in a buffer"""
        ws = [addi(13, 0, ord("G")), sb(13, 0x40, 0), addi(13, 0, 10), sb(13, 0x40, 0), jal(0, 0)]
        k = self.write("spin.elf", prog_elf(ws))
        for sig in (signal.SIGINT, signal.SIGTERM):
            p = subprocess.Popen([VXSIM, k], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            ready, _, _ = select.select([p.stdout], [], [], 20)
            p.send_signal(sig)
            out, err = p.communicate(timeout=60)
            self.assertTrue(ready, "nothing came before the signal (%s)" % sig)
            self.assertIn(b"#0: G\n", out)

    def test_dump_local_memory_of_a_core(self):
        """--dump ADDR:LEN@CORE=FILE writes that core's local memory: each of 3 cores
        stores 0x11 + its core id at 0xFFFF0008 of its own local memory"""
        ws = [csrr(5, 0xCC2), addi(5, 5, 0x11), lui(6, 0xFFFF0), sw(5, 8, 6), tmc(0)]
        k = self.write("lmem.elf", prog_elf(ws))
        outs = [os.path.join(self.dir, "lmem%d.bin" % c) for c in range(4)]
        r = self.run_sim("-c", "3", "--dump", "0xFFFF0008:4=" + outs[3],
                         *["--dump=0xFFFF0000:12@%d=%s" % (c, outs[c]) for c in range(3)],
                         kernel=k)
        self.assertEqual(r.returncode, 0, r.stderr)
        for c in range(3):
            with open(outs[c], "rb") as f:
                self.assertEqual(f.read(), bytes(8) + struct.pack("<I", 0x11 + c), "core %d" % c)
        with open(outs[3], "rb") as f:
            self.assertEqual(f.read(), struct.pack("<I", 0x11), "no @CORE: core 0's")
        # a core the platform lacks, and a malformed core: refused before the run
        r = self.run_sim("-c", "3", "--dump", "0xFFFF0000:4@3=" + outs[0], kernel=k)
        self.assertEqual(r.returncode, 2)
        self.assertIn("there is no core 3 (the platform has 3 cores: 0..2)", r.stderr)
        for bad in ("0xFFFF0000:4@=x", "0xFFFF0000:4@one=x", "0xFFFF0000:@1=x"):
            r = self.run_sim("--dump", bad, kernel=k)
            self.assertEqual(r.returncode, 2, bad)
            self.assertIn("--dump wants ADDR:LEN=FILE or ADDR:LEN@CORE=FILE", r.stderr)

    def test_source_file_is_not_run(self):
        """a C file given as the kernel: refused with a hint (it ran as raw code, faulted)"""
        src = self.write("k.c", b"#include <vx_print.h>\nint main(void) { return 0; }\n")
        r = self.run_sim(kernel=src)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("is text, not a kernel image", r.stderr)
        self.assertIn("build it with vxcc", r.stderr)

    def test_load_errors(self):
        k = self.write("k.elf", prog_elf([tmc(0)]))
        data = self.write("d.bin", b"abcd")
        r = self.run_sim("--load", data + "@0x10", kernel=k)
        self.assertEqual(r.returncode, 2)
        self.assertIn("not inside global memory", r.stderr)
        r = self.run_sim("--load", os.path.join(self.dir, "nope") + "@0x10000", kernel=k)
        self.assertEqual(r.returncode, 2)
        self.assertIn("cannot read", r.stderr)
        r = self.run_sim("--dump", "0x10:4=" + os.path.join(self.dir, "x"), kernel=k)
        self.assertEqual(r.returncode, 2)
        self.assertIn("not readable", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "x")), "refused before the run")
        # two dumps into one file, and a dump onto the instruction log: refused
        r = self.run_sim("--dump", "0x10000:4=" + os.path.join(self.dir, "y"),
                         "--dump", "0x10004:4=" + os.path.join(self.dir, ".", "y"), kernel=k)
        self.assertEqual(r.returncode, 2)
        self.assertIn("two --dump options write", r.stderr)
        r = self.run_sim("--trace-insn=" + os.path.join(self.dir, "t.txt"),
                         "--dump", "0x10000:4=" + os.path.join(self.dir, ".", "t.txt"), kernel=k)
        self.assertEqual(r.returncode, 2)
        self.assertIn("is also the output", r.stderr)
        # a dump to a file that is not a regular one (nothing to empty first)
        r = self.run_sim("--dump", "0x10000:4=/dev/null", kernel=k)
        self.assertEqual(r.returncode, 0, r.stderr)
        # a --load larger than guest memory is refused as soon as that much is read
        r = self.run_sim("--mem-limit", "1M", "--load", "/dev/zero@0x10000", kernel=k)
        self.assertEqual(r.returncode, 2)
        self.assertIn("cannot read '/dev/zero': larger than 1048576 bytes (the guest memory limit", r.stderr)
        # so is a kernel file (it read up to 4 GiB first), or one beyond 256 MiB under a
        # smaller limit (its debug information may be larger than the image)
        r = self.run_sim("--mem-limit", "300M", kernel="/dev/zero")
        self.assertEqual(r.returncode, 2)
        self.assertIn("cannot read '/dev/zero': larger than 314572800 bytes (the guest memory limit", r.stderr)
        r = self.run_sim("--mem-limit", "1M", kernel="/dev/zero")
        self.assertEqual(r.returncode, 2)
        self.assertIn("cannot read '/dev/zero': larger than 268435456 bytes (the most a kernel", r.stderr)
        hello = vxtest.kernel("hello")
        if os.path.exists(hello):   # it does not fit in 4 KiB: the message names it
            r = self.run_sim("--mem-limit", "4K", kernel=hello)
            self.assertEqual(r.returncode, 2)
            self.assertIn("cannot load kernel '%s'" % hello, r.stderr)
        # a file known too large (a sparse 3 GiB) is refused before it is read: within an
        # address-space limit far below the 1 GiB it would have read first
        sparse = self.write("sparse.bin", b"")
        os.truncate(sparse, 3 << 30)
        if not vxtest.sanitized():
            import resource
            limit = lambda: resource.setrlimit(resource.RLIMIT_AS, (200 << 20, 200 << 20))  # noqa
            r = subprocess.run([VXSIM, "--load", sparse + "@0x10000", k], capture_output=True,
                               text=True, timeout=60, preexec_fn=limit)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn("cannot read '%s': larger than 1073741824 bytes" % sparse, r.stderr)
        if os.path.exists("/dev/full"):   # a lost instruction trace is an error, not silence
            r = self.run_sim("--trace-insn=/dev/full", kernel=k)
            self.assertEqual(r.returncode, 2)
            self.assertIn("cannot write '/dev/full'", r.stderr)
            with open("/dev/full", "w") as full:   # so are lost --stats (they exited 0)
                r = subprocess.run([VXSIM, "--stats", k], stdout=subprocess.DEVNULL, stderr=full,
                                   timeout=60)
            self.assertEqual(r.returncode, 2)
            with open("/dev/full", "w") as full:   # and --trace-insn to standard error
                r = subprocess.run([VXSIM, "--trace-insn", k], stdout=subprocess.DEVNULL,
                                   stderr=full, timeout=60)
            self.assertEqual(r.returncode, 2)
            r = subprocess.run([VXSIM, k], stdout=subprocess.DEVNULL, timeout=60)
            self.assertEqual(r.returncode, 0)      # the same run, its output kept

    def test_shape(self):
        # exit code = NT * 100 + NW * 10 + total cores (all single digits here)
        ws = [csrr(5, 0xFC0), csrr(6, 0xFC1), csrr(7, 0xFC2), addi(8, 0, 100),
              0x02828533,  # mul a0, t0, s0 (a0 = NT*100)
              addi(8, 0, 10), 0x028305b3,  # mul a1, t1, s0
              0x00b50533,  # add a0, a0, a1
              0x00750533,  # add a0, a0, t2
              ] + exit_with(10)
        k = self.write("shape.elf", prog_elf(ws))
        r = self.run_sim(kernel=k)
        self.assertEqual(r.returncode, (4 * 100 + 4 * 10 + 1) & 0xff, r.stderr)
        r = self.run_sim("-C", "2", "-c3", "--warps=7", "-t", "1", kernel=k)
        self.assertEqual(r.returncode, (1 * 100 + 7 * 10 + 6) & 0xff, r.stderr)
        r = self.run_sim("--clusters", "1", "--cores", "2", "-w", "2", "--threads=2", kernel=k)
        self.assertEqual(r.returncode, (2 * 100 + 2 * 10 + 2) & 0xff, r.stderr)

    def test_stats(self):
        ws = [addi(10, 0, 0), addi(10, 10, 1), addi(10, 10, 1)] + exit_with(10)
        r = self.run_sim("--stats", kernel=self.write("s.elf", prog_elf(ws)))
        self.assertEqual(r.returncode, 2, r.stderr)  # the kernel's exit code is 2
        self.assertIn("instructions: 5\n", r.stderr)
        self.assertIn("cycles: 5\n", r.stderr)
        self.assertIn("lane-ops: 5\n", r.stderr)
        self.assertIn("warp 0:0: 5 instructions", r.stderr)
        # two cores: each runs the 5 instructions in the same 5 cycles
        r = self.run_sim("--stats", "-c", "2", "-t", "2",
                         kernel=self.write("s.elf", prog_elf(ws)))
        self.assertIn("instructions: 10\n", r.stderr)
        self.assertIn("cycles: 5\n", r.stderr)
        self.assertIn("warp 1:0: 5 instructions", r.stderr)

    def test_trace_insn(self):
        ws = [addi(10, 0, 42), addi(5, 0, 0x100), sw(10, 0, 5), tmc(0)]
        k = self.write("t.elf", prog_elf(ws))
        r = self.run_sim("--trace-insn", kernel=k)
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = [ln for ln in r.stderr.splitlines() if ln.startswith("[")]
        self.assertEqual(len(lines), 5, r.stderr)  # 4 issues + the end record
        self.assertRegex(lines[0], r"^\[0\] 0 0:0 0x80000000 mask=0x1 +addi a0, zero, 0x2a +\| a0=\{0x2a\}$")
        self.assertIn("mem[0x00000100].4=0x2a@0", lines[2])
        self.assertIn("tmask(0:0 0x0)", lines[3])
        self.assertIn("deactivate", lines[3])
        self.assertIn("end status=1", lines[4])
        f = os.path.join(self.dir, "trace.txt")
        r = self.run_sim("--trace-insn=" + f, kernel=k)
        self.assertEqual(r.returncode, 0)
        with open(f) as fh:
            self.assertEqual(len(fh.read().splitlines()), 5)
        r = self.run_sim("--trace-insn", kernel=self.write("tf.elf", prog_elf([lw(1, 0, 0)])))
        self.assertIn("FAULT: load at unmapped address", r.stderr)

    # A kernel for the warp-control effects of --trace-insn: warp 0 spawns warps 1-3 at
    # 0x40 (they end there), turns on its 4 lanes, splits on lane & 1 (then: lanes 1, 3;
    # else: lanes 0, 2), joins twice, prints 'd' and ends.
    WCTL = [addi(5, 0, 4), lui(6, 0x80000), addi(6, 6, 0x40),
            vx(1, 0, 5, 6),                           # 0x0c wspawn t0, t1
            addi(5, 0, -1), tmc(5),                   # 0x10, 0x14: all lanes
            csrr(10, 0xcc0), i_type(1, 10, 7, 6, 0x13),  # 0x18 a0 = lane, 0x1c t1 = a0 & 1
            vx(2, 7, 6),                              # 0x20 split t2, t1
            addi(8, 10, 100),                         # 0x24
            vx(3, 0, 7),                              # 0x28 join t2
            addi(5, 0, 1), tmc(5),                    # 0x2c, 0x30: lane 0
            addi(28, 0, ord("d")), sb(28, 0x40, 0),   # 0x34, 0x38: console 'd'
            tmc(0),                                   # 0x3c warp 0 ends
            tmc(0)]                                   # 0x40 the spawned warps end

    def test_trace_insn_warp_control(self):
        """--trace-insn names each warp-control effect with its arguments (from the
        coverage review): wspawn, activation of the spawned warps and the caller's unstall;
        the split's push (orig 0xf, else 0x5), else and pop; the console byte"""
        k = self.write("wctl.elf", prog_elf(self.WCTL))
        r = self.run_sim("--trace-insn", kernel=k)
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = [ln for ln in r.stderr.splitlines() if ln.startswith("[")]
        at = lambda pc: [ln for ln in lines if " 0:0 0x%08x " % (CODE + pc) in ln]  # noqa: E731
        self.assertEqual(len(at(0x0c)), 1)
        self.assertTrue(at(0x0c)[0].endswith(
            "| spawn-wait(0:0 n=4 pc=0x80000040) activate(0:1 pc=0x80000040 0x1) "
            "activate(0:2 pc=0x80000040 0x1) activate(0:3 pc=0x80000040 0x1) unstall(0:0)"), at(0x0c))
        self.assertTrue(at(0x14)[0].endswith("| tmask(0:0 0xf)"), at(0x14))
        split = at(0x20)
        self.assertEqual(len(split), 1)
        self.assertIn(" t2={0x0,0x0,0x0,0x0} ipdom-push(0:0 orig=0xf else=0x5 pc=0x80000024 depth=1)"
                      " tmask(0:0 0xa)", split[0])
        joins = at(0x28)
        self.assertEqual(len(joins), 2, "the join runs once per side")
        self.assertIn("mask=0xa ", joins[0])
        self.assertTrue(joins[0].endswith("| ipdom-else(0:0 depth=1) tmask(0:0 0x5)"), joins[0])
        self.assertIn("mask=0x5 ", joins[1])
        self.assertTrue(joins[1].endswith("| ipdom-pop(0:0 depth=0) tmask(0:0 0xf)"), joins[1])
        self.assertTrue(at(0x38)[0].endswith("| con0<-'d'"), at(0x38))
        self.assertEqual(len([ln for ln in lines if " 0x80000040 " in ln and "deactivate" in ln]), 3)

    def test_trace_insn_debug_module(self):
        """--trace-insn under --dm-port: a line per Debug Module event, and the stepped
        and injected issues marked 'step' and 'inject'"""
        from vxdbg import Server, AU
        k = self.write("wctl.elf", prog_elf(self.WCTL))
        f = os.path.join(self.dir, "dm-trace.txt")
        s = Server(VXSIM, ["--trace-insn=" + f, k])
        try:
            self.assertIsNotNone(s.port, s.stderr)
            c = s.connect()
            c.start_halted()
            self.assertEqual(c.step(), CODE + 4)
            self.assertEqual(c.read_gpr(5), 4, "t0 = 4 after the first instruction")
            c.resume_all()
            c.poll(AU, AU)
            c.close()
            rc, out, err = s.wait()
        finally:
            s.kill()
        self.assertEqual(rc, 0, err)
        with open(f) as fh:
            lines = fh.read().splitlines()
        self.assertGreater(sum(1 for ln in lines if re.match(r"^\[\d+\] \d+ dm op=\d+ addr=0x", ln)), 10)
        step = [ln for ln in lines if " step " in ln]
        self.assertEqual(len(step), 1, step)
        self.assertRegex(step[0], r"^\[\d+\] \d+ 0:0 0x80000000 mask=0x1 step +addi t0, zero, 4 +\| t0=\{0x4\}$")
        inj = [ln for ln in lines if " inject " in ln]
        self.assertEqual(len(inj), 1, inj)
        self.assertRegex(inj[0], r"^\[\d+\] \d+ 0:0 0x80000004 mask=0x1 inject +csrw dscratch0, t0 +\| dscratch0=\{0x4\}$")

    def test_example_kernels(self):
        path = vxtest.kernel("vecadd")
        if not os.path.exists(path):
            self.skipTest("example kernels not built (make kernels)")
        r = self.run_sim(kernel=path)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("PASSED", r.stdout)


if __name__ == "__main__":
    vxtest.main(VxsimTests)
