#!/usr/bin/env python3
"""t2004: the vxcc compiler driver: usage and error handling (exit 2 for usage or
set-up errors, 1 for compile/link errors, with gcc's message), -c and object inputs,
several sources, C++ by extension and with -x, the .vxbin format (header and image
checked against objcopy and the ELF's symbols), and the installed layout
(`make install-vxcc PREFIX=...`, the same commands `make install` runs for vxcc,
with and without the prebuilt runtime)."""
import os
import re
import shutil
import struct
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
import vxtest  # noqa: E402

CROSS = "riscv64-unknown-elf-"

HELLO = r"""
#include <vx_print.h>
#include <vx_intrinsics.h>
int helper(int);
int main(void) { vx_printf("sum %d\n", helper(20)); return vx_core_id() * 0; }
"""
HELPER = "int helper(int x) { return x + 22; }\n"
CXX = r"""
#include <vx_spawn.h>
#include <vx_print.h>
template <typename T> struct Acc { T v; Acc() : v(1) {} void add(T x) { v += x; } };
static Acc<int> acc;
int main() { acc.add(41); vx_printf("c++ %d\n", acc.v); return acc.v != 42; }
"""

# A class hierarchy with virtual destructors (their deleting destructors call
# operator delete(void *, size_t)), new and delete of objects and arrays, nothrow new,
# an over-aligned type, and a pure virtual function
CXX_HEAP = r"""
#include <new>
#include <vx_print.h>
struct Shape { virtual int area() const = 0; virtual ~Shape() {} };
struct Sq : Shape { int s; explicit Sq(int a) : s(a) {} int area() const override { return s * s; } };
struct Re : Shape { int w, h; Re(int a, int b) : w(a), h(b) {} int area() const override { return w * h; } };
struct alignas(64) Big { int v[4]; };
int main() {
    Shape *s[2] = {new Sq(3), new Re(2, 5)};
    int sum = s[0]->area() + s[1]->area();
    for (Shape *p : s) delete p;
    int *a = new int[100];
    for (int i = 0; i < 100; i++) a[i] = i;
    int t = a[99];
    delete[] a;
    Big *b = new Big;
    unsigned al = (unsigned)(unsigned long)b % 64;
    delete b;
    int *n = new (std::nothrow) int(7);
    int nv = n ? *n : -1;
    delete n;
    volatile unsigned big = 0xF0000000u; // more than the heap
    char *huge = new (std::nothrow) char[big];
    vx_printf("heap %d %d %u %d %d\n", sum, t, al, nv, huge == nullptr);
    return 0;
}
"""


class Vxcc(unittest.TestCase):
    def setUp(self):
        if not os.path.exists(vxtest.prog("vxcc")):
            self.skipTest("vxcc not built")
        if shutil.which(CROSS + "gcc") is None:
            self.skipTest("RISC-V toolchain missing")
        self.tmp = vxtest.tmpdir()

    def write(self, name, text):
        p = os.path.join(self.tmp, name)
        with open(p, "w") as f:
            f.write(text)
        return p

    def vxcc(self, *args, prog=None):
        return vxtest.run([prog or vxtest.prog("vxcc")] + list(args), cwd=self.tmp)

    def vxsim(self, elf):
        if not os.path.exists(vxtest.prog("vxsim")):
            self.skipTest("vxsim not built")
        return vxtest.run([vxtest.prog("vxsim"), elf])

    def test_help_version(self):
        """--help and --version exit 0"""
        r = self.vxcc("--help")
        self.assertEqual(r.returncode, 0)
        self.assertIn("Usage: vxcc", r.stdout)
        r = self.vxcc("--version")
        self.assertEqual(r.returncode, 0)
        self.assertRegex(r.stdout, r"^vxcc \(vxrr\) \d+\.\d+")

    def test_usage_errors(self):
        """usage errors exit 2 and say what is wrong"""
        cases = [
            ((), "no input files"),
            (("missing.c",), "missing.c: no such file"),
            ((self.write("x.txt", "hello"),), "unknown file type"),
            (("-o",), "-o needs a file name"),
            (("-march=rv64gc", self.write("a.c", "int main(void){return 0;}")),
             "always built for -march=rv32imaf"),
            (("--vxbim", self.write("b.c", "int main(void){return 0;}")),
             "unknown option '--vxbim'"),
        ]
        for args, msg in cases:
            r = self.vxcc(*args)
            self.assertEqual(r.returncode, 2, "%s: %s" % (args, r.stderr))
            self.assertIn(msg, r.stderr)
            self.assertTrue(r.stderr.startswith("vxcc: "), r.stderr)
        # -o naming an input (either order): refused, the source intact
        src = self.write("same.c", "int main(void){return 0;}\n")
        for args in (("-o", src, src), (src, "-o", src), ("-c", "-o", src, src)):
            r = self.vxcc(*args)
            self.assertEqual(r.returncode, 2, "%s: %s" % (args, r.stderr))
            self.assertIn("the output file (-o) is this input", r.stderr)
            with open(src) as f:
                self.assertEqual(f.read(), "int main(void){return 0;}\n")

    def test_readme_example(self):
        """the README's kernel builds and checks itself on several shapes (several cores too),
        with no data race for vxsim --races to report"""
        with open(os.path.join(vxtest.ROOT, "README.md")) as f:
            readme = f.read()
        part = readme[readme.index("## Writing and building a kernel"):]
        code = re.search(r"```c\n(.*?)```", part, re.S).group(1)
        src = self.write("add.c", code)
        elf = os.path.join(self.tmp, "add.elf")
        r = self.vxcc("-O2", "-o", elf, src)
        self.assertEqual(r.returncode, 0, r.stderr)
        for shape in ([], ["-c", "2"], ["-c", "2", "-w", "8", "-t", "8"], ["-C", "2", "-c", "3"]):
            r = vxtest.run([vxtest.prog("vxsim"), "--races"] + shape + [elf])
            self.assertEqual((r.returncode, r.stdout), (0, "#0: c[63] = 189\n"), (shape, r.stderr))

    def test_print_runtime(self):
        """--print-runtime names the runtime in use, and refuses one without headers"""
        r = self.vxcc("--print-runtime")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(os.path.isdir(os.path.join(r.stdout.strip(), "include")), r.stdout)
        env = dict(os.environ, VXCC_HOME=os.path.join(self.tmp, "nonexist"))
        r = subprocess.run([vxtest.prog("vxcc"), "--print-runtime"], env=env, capture_output=True,
                           text=True, timeout=60)
        self.assertEqual(r.returncode, 2)
        self.assertIn("runtime headers missing", r.stderr)

    def test_gcc_long_options(self):
        """gcc's own long options still pass: --param (both spellings)"""
        src = self.write("p.c", "int main(void){return 0;}")
        out = os.path.join(self.tmp, "p.elf")
        for args in (("--param", "max-inline-insns-auto=10"), ("--param=max-inline-insns-auto=10",)):
            r = self.vxcc(*(args + ("-O2", "-o", out, src)))
            self.assertEqual(r.returncode, 0, r.stderr)

    def test_compile_error(self):
        """a compile error exits 1 with gcc's diagnostic naming the file and line"""
        src = self.write("bad.c", "int main(void) { return undefined_thing; }\n")
        r = self.vxcc("-o", "bad.elf", src)
        self.assertEqual(r.returncode, 1)
        self.assertIn("bad.c:1", r.stderr)
        self.assertIn("undefined_thing", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "bad.elf")))

    def test_link_error(self):
        """an undefined function is a link error (exit 1)"""
        src = self.write("nolink.c", "int nowhere(void);\nint main(void){return nowhere();}\n")
        r = self.vxcc("-o", "nolink.elf", src)
        self.assertEqual(r.returncode, 1)
        self.assertIn("nowhere", r.stderr)

    def test_own_start(self):
        """(from running upstream Vortex's basic test) a kernel with its own _start links
        without vxrr's crt0, as with Vortex's libvortex.a, and can call vx_perf_dump,
        which writes core 0's counters as 64-bit pairs from 0x80, skipping the exit
        word's slot at 0x88"""
        start = self.write("start.S", """
    .section .init, "ax"
    .globl _start
_start:
    li    sp, 0xFFFF0000
    call  main
    mv    s0, a0
    call  vx_perf_dump
    sw    s0, 0x88(zero)
    .insn r 0x0B, 0, 0, x0, x0, x0
""")
        main = self.write("own.c", "int main(void)\n{\n    return 42;\n}\n")
        out = os.path.join(self.tmp, "own.elf")
        r = self.vxcc("-O2", "-o", out, main, start)
        self.assertEqual(r.returncode, 0, r.stderr)
        syms = subprocess.run([CROSS + "nm", out], capture_output=True, text=True).stdout
        self.assertNotIn("__vx_init_regs", syms, "crt0 stays out")
        self.assertIn(" vx_perf_dump\n", syms)
        if not os.path.exists(vxtest.prog("vxsim")):
            self.skipTest("vxsim not built")
        dump = os.path.join(self.tmp, "mpm.bin")
        s = vxtest.run([vxtest.prog("vxsim"), "--dump", "0x80:256=" + dump, out])
        self.assertEqual(s.returncode, 42, s.stderr)
        with open(dump, "rb") as f:
            w = struct.unpack("<64I", f.read())
        cycles, instret = w[0], w[4]
        # read a few instructions apart (mcycle first) in a run of about 20 issues
        self.assertTrue(0 < cycles < 50 and 0 < instret < 50, (cycles, instret))
        self.assertEqual(w[2:4], (42, 0), "the exit word's slot holds the status")
        self.assertEqual((w[1], w[5]) + w[6:], (0,) * 60, "high halves and MPM counters 0")

    def test_objects_and_several_sources(self):
        """-c gives an object; objects and sources link together; the kernel runs"""
        main = self.write("main.c", HELLO)
        helper = self.write("helper.c", HELPER)
        r = self.vxcc("-O2", "-c", helper, "-o", "helper.o")
        self.assertEqual(r.returncode, 0, r.stderr)
        obj = os.path.join(self.tmp, "helper.o")
        h = subprocess.run([CROSS + "readelf", "-h", obj], capture_output=True, text=True)
        self.assertIn("REL (Relocatable file)", h.stdout)
        self.assertIn("RISC-V", h.stdout)
        for inputs in ([main, obj], [main, helper]):
            out = os.path.join(self.tmp, "two.elf")
            r = self.vxcc("-O2", "-o", out, *inputs)
            self.assertEqual(r.returncode, 0, r.stderr)
            s = self.vxsim(out)
            self.assertEqual((s.returncode, s.stdout), (0, "#0: sum 42\n"), s.stderr)

    def test_cxx(self):
        """C++ by extension and with -x c++ (templates, a global constructor)"""
        for name, lang in (("k.cpp", ()), ("k_as_c.c", ("-x", "c++"))):
            src = self.write(name, CXX)
            out = os.path.join(self.tmp, name + ".elf")
            r = self.vxcc("-O2", "-Wall", "-Werror", *lang, src, "-o", out)
            self.assertEqual(r.returncode, 0, r.stderr)
            s = self.vxsim(out)
            self.assertEqual((s.returncode, s.stdout), (0, "#0: c++ 42\n"), s.stderr)

    def test_cxx_heap_and_virtual_destructors(self):
        """new, delete (sized, array, nothrow, over-aligned) and virtual destructors link and
        run (the runtime's operators, on malloc); a throwing new that fails stops the kernel
        with a message.  Before, a class with a virtual destructor did not link: "undefined
        reference to operator delete(void*, unsigned int)" """
        src = self.write("heap.cpp", CXX_HEAP)
        out = os.path.join(self.tmp, "heap.elf")
        r = self.vxcc("-O2", "-Wall", "-Wextra", "-Werror", src, "-o", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        s = self.vxsim(out)
        self.assertEqual((s.returncode, s.stdout), (0, "#0: heap 19 99 0 7 1\n"), s.stderr)
        oom = self.write("oom.cpp", "char *volatile p; volatile unsigned big = 0xF0000000u;\n"
                         "int main() { p = new char[big]; return p[0]; }\n")
        out = os.path.join(self.tmp, "oom.elf")
        r = self.vxcc("-O2", oom, "-o", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        s = self.vxsim(out)
        self.assertEqual(s.returncode, 3, s.stderr)
        self.assertIn("operator new: out of memory (4026531840 bytes)", s.stdout)
        # (from the whole-diff review) an over-aligned new of a size that the rounding up to
        # its alignment wraps (GCC passes SIZE_MAX for an array size that overflows) is out
        # of memory too: it returned a block of the heap
        big = self.write("bigal.cpp", "struct alignas(32) V { char c[32]; };\n"
                         "V *volatile p; volatile unsigned n = 0x7FFFFFFFu;\n"
                         "int main() { p = new V[n]; return p != nullptr; }\n")
        out = os.path.join(self.tmp, "bigal.elf")
        r = self.vxcc("-O2", big, "-o", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        s = self.vxsim(out)
        self.assertEqual(s.returncode, 3, (s.stdout, s.stderr))
        self.assertIn("operator new: out of memory (4294967295 bytes)", s.stdout)

    def test_static_destructors_run_once(self):
        """a static object's destructor runs once, after every core's main, on any number of
        cores (from a review: each core's exit ran what picolibc's one atexit list still
        held, so with 2 or 4 cores it ran on the cores that exited first, core 0's never,
        and cores exiting together raced on the list); a core with more to do in main
        (core 1 here) is still running main when the others have returned"""
        src = self.write("dtor.cpp", """
#include <vx_intrinsics.h>
#include <vx_print.h>
volatile int mains_done;
struct G { ~G() { vx_printf("dtor after %d mains\\n", mains_done); } } g;
int main() {
  for (volatile int i = 0; i < 200 * (int)(vx_core_id() == 1); i++) {}
  __atomic_fetch_add(&mains_done, 1, __ATOMIC_RELAXED);
  return 0;
}
""")
        out = os.path.join(self.tmp, "dtor.elf")
        r = self.vxcc("-O2", src, "-o", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        for cores in (1, 2, 4):
            s = vxtest.run([vxtest.prog("vxsim"), "-c", str(cores), out])
            self.assertEqual(s.returncode, 0, s.stderr)
            lines = [ln.split(": ", 1)[1] for ln in s.stdout.splitlines()]
            self.assertEqual(lines, ["dtor after %d mains" % cores], (cores, s.stdout))

    def test_exit_runs_atexit_destructors_and_fini_array_onexit(self):
        """exit (the last core's return from main) runs the atexit handlers, the
        destructors and what newer picolibc keeps in .fini_array_onexit, each once (from
        the trixie review: picolibc 1.8.10 calls its atexit list from a
        .fini_array_onexit entry, which link32.ld dropped, so atexit handlers and static
        destructors never ran)"""
        src = self.write("fini.c", """
#include <stdlib.h>
#include <vx_print.h>
static void by_atexit(void) { vx_printf("atexit handler\\n"); }
__attribute__((destructor)) static void by_destructor(void) { vx_printf("destructor\\n"); }
static void by_onexit(void) { vx_printf("onexit entry\\n"); }
__attribute__((used, section(".fini_array_onexit"))) static void (*const onexit_p)(void) =
    by_onexit;
int main(void) { atexit(by_atexit); return 0; }
""")
        out = os.path.join(self.tmp, "fini.elf")
        r = self.vxcc("-O2", src, "-o", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        for cores in (1, 2):
            s = vxtest.run([vxtest.prog("vxsim"), "-c", str(cores), out])
            self.assertEqual(s.returncode, 0, s.stderr)
            lines = [ln.split(": ", 1)[1] for ln in s.stdout.splitlines()]
            self.assertEqual(sorted(lines), ["atexit handler", "destructor", "onexit entry"],
                             (cores, s.stdout))

    def test_cxx_standard_headers(self):
        """<algorithm>, <cmath>, <limits>, <new>, <utility>, <cstdint>... (kernel/include/c++)"""
        src = os.path.join(vxtest.ROOT, "tests", "kernels", "cxxstd.cpp")
        out = os.path.join(self.tmp, "cxxstd.elf")
        r = self.vxcc("-O2", "-Wall", "-Wextra", "-Werror", src, "-o", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        s = self.vxsim(out)
        self.assertEqual(s.returncode, 0, s.stderr)
        # by hand: what C++ says these calls give (libstdc++ on the host prints the same)
        self.assertEqual(s.stdout.replace("#0: ", "").splitlines(), [
            "ints 7 -5 1", "minmax 3 9 10 1.50", "swap 2 1", "fill 4 4", "pair 1 2.5", "new 42",
            "math 1.414214 1.414214 1024.000000 -3.000000", "abs 4 1.5 7", "class 1 1 1 1",
            "limits 2147483647 4294967295 -9223372036854775808 1.19209e-07 -1.79769e+308 24",
            "traits 1 0", "str 3 1", "limits.h 2147483647 3.40282e+38",
            "promote 1024.0 1 3.0 0 1", "more 1 2.5 4 3 9 3.4028e+38 1 3 -2.0"])

    def test_elf_layout(self):
        """RV32 ELF, entry _start at 0x80000000, no compressed instructions"""
        src = self.write("main.c", HELLO)
        self.write("helper.c", HELPER)
        out = os.path.join(self.tmp, "k.elf")
        r = self.vxcc("-O2", "-o", out, src, os.path.join(self.tmp, "helper.c"))
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out, "rb") as f:
            ident = f.read(52)
        self.assertEqual(ident[:5], b"\x7fELF\x01")            # ELF32
        self.assertEqual(struct.unpack_from("<H", ident, 18)[0], 243)  # EM_RISCV
        self.assertEqual(struct.unpack_from("<I", ident, 24)[0], 0x80000000)
        flags = struct.unpack_from("<I", ident, 36)[0]
        self.assertEqual(flags & 1, 0, "EF_RISCV_RVC set")
        self.assertEqual(flags & 6, 2, "not the single-float ABI")

    def test_vxbin(self):
        """-o k.vxbin and --vxbin: u64 min_vma, u64 max_vma (_end), objcopy image"""
        src = self.write("main.c", HELLO)
        helper = self.write("helper.c", HELPER)
        elf = os.path.join(self.tmp, "k.elf")
        r = self.vxcc("-O2", "--vxbin", "-o", elf, src, helper)
        self.assertEqual(r.returncode, 0, r.stderr)
        img = os.path.join(self.tmp, "k.img")
        subprocess.run([CROSS + "objcopy", "-O", "binary", elf, img], check=True)
        nm = subprocess.run([CROSS + "nm", elf], capture_output=True, text=True).stdout
        end = int([ln.split()[0] for ln in nm.splitlines() if ln.endswith(" _end")][0], 16)
        with open(img, "rb") as f:
            image = f.read()
        direct = os.path.join(self.tmp, "direct.vxbin")
        r = self.vxcc("-O2", "-o", direct, src, helper)
        self.assertEqual(r.returncode, 0, r.stderr)
        for path in (os.path.join(self.tmp, "k.vxbin"), direct):
            with open(path, "rb") as f:
                data = f.read()
            lo, hi = struct.unpack_from("<QQ", data)
            self.assertEqual(lo, 0x80000000)
            self.assertEqual(hi, end)
            self.assertEqual(data[16:], image)
            s = self.vxsim(path)
            self.assertEqual((s.returncode, s.stdout), (0, "#0: sum 42\n"), s.stderr)

    def install_vxcc(self, *args):
        """make install-vxcc ARGS (the kernel part of make install), outside the caller's make"""
        env = dict(os.environ)
        env.pop("MAKEFLAGS", None)
        env.pop("MFLAGS", None)
        r = subprocess.run(["make", "-s", "-C", vxtest.ROOT, "install-vxcc"] + list(args),
                           capture_output=True, text=True, env=env, timeout=600)
        self.assertEqual(r.returncode, 0, r.stdout[-2000:] + r.stderr[-2000:])

    def test_installed_layout(self):
        """make install-vxcc PREFIX=... (the kernel part of make install), into a PREFIX
        with a space (unquoted, it made vx/bin in the source tree): the installed vxcc
        finds its runtime, prebuilt or not; the runtime's files keep their times, by
        which the installed vxcc tells a prebuilt runtime older than its sources (each
        installed file was newer than the last: a stale runtime was taken)"""
        prefix = os.path.join(self.tmp, "pre fix")
        self.install_vxcc("PREFIX=" + prefix)
        vxcc = os.path.join(prefix, "bin", "vxcc")
        share = os.path.join(prefix, "share", "vxrr", "kernel")
        self.assertTrue(os.access(vxcc, os.X_OK))
        for f in ("include/vx_intrinsics.h", "include/VX_config.h", "include/c++/algorithm",
                  "link32.ld", "src/crt0.S"):
            self.assertTrue(os.path.exists(os.path.join(share, f)), f)
        r = vxtest.run([vxcc, "--print-runtime"])
        self.assertEqual(r.stdout.strip(), os.path.realpath(share))
        for f in ("src/crt0.S", "src/vx_spawn.c", "include/vx_intrinsics.h", "link32.ld"):
            src = os.path.join(vxtest.ROOT, "kernel", f)
            self.assertEqual(os.stat(os.path.join(share, f)).st_mtime_ns, os.stat(src).st_mtime_ns, f)
        main = self.write("main.c", HELLO)
        helper = self.write("helper.c", HELPER)
        shutil.rmtree(os.path.join(share, "lib"), ignore_errors=True)  # no prebuilt runtime
        for run in range(2):
            out = os.path.join(self.tmp, "inst%d.elf" % run)
            r = vxtest.run([vxcc, "-O2", "-o", out, main, helper])
            self.assertEqual(r.returncode, 0, r.stderr)
            s = self.vxsim(out)
            self.assertEqual((s.returncode, s.stdout), (0, "#0: sum 42\n"), s.stderr)
            # the second time with a prebuilt runtime copied from the build tree
            lib = os.path.join(vxtest.KERNELS, "lib")
            if not os.path.exists(os.path.join(lib, "libvxrt.a")):
                break
            os.makedirs(os.path.join(share, "lib"), exist_ok=True)
            for f in ("crt0.o", "vx_syscalls.o", "libvxrt.a"):
                shutil.copy(os.path.join(lib, f), os.path.join(share, "lib", f))

    def test_reinstall_without_prebuilt_runtime(self):
        """an install without a prebuilt runtime (make kernels not run: KLIB names an empty
        directory here) removes the one an earlier install left in PREFIX: it was kept,
        and when it was newer than the sources now installed (another clone, checked out
        before the first was built), the installed vxcc linked that stale runtime"""
        lib = os.path.join(vxtest.KERNELS, "lib")
        if not os.path.exists(os.path.join(lib, "libvxrt.a")):
            self.skipTest("no prebuilt runtime (make kernels)")
        prefix = os.path.join(self.tmp, "pre fix")
        old = os.path.join(prefix, "share", "vxrr", "kernel", "lib")
        os.makedirs(old)
        for f in ("crt0.o", "vx_syscalls.o", "libvxrt.a"):  # an earlier install's
            shutil.copy(os.path.join(lib, f), os.path.join(old, f))
        empty = os.path.join(self.tmp, "no-kernels")
        os.makedirs(empty)
        self.install_vxcc("PREFIX=" + prefix, "KLIB=" + empty)
        self.assertEqual(sorted(os.listdir(old)), [])
        r = vxtest.run([os.path.join(prefix, "bin", "vxcc"), "-v", "-O2", "-o",
                        os.path.join(self.tmp, "re.elf"), self.write("re.c", HELLO.replace(
                            "helper(20)", "20 + 22"))])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("crt0.S", r.stderr)  # the runtime compiled from the installed sources

    def test_installed_runtime_sources(self):
        """the prebuilt runtime make install-vxcc installs names its sources where they are
        installed (PREFIX/share/vxrr/kernel/src) in its debug information, not in the
        source tree: with the tree moved or deleted, GDB said "kernel/src/crt0.S: No such
        file or directory" at the first stop, and in vx_printf, vx_spawn_threads, ..."""
        if not os.path.exists(os.path.join(vxtest.KERNELS, "lib", "libvxrt.a")):
            self.skipTest("no prebuilt runtime (make kernels)")
        prefix = os.path.join(self.tmp, "pré fix")
        self.install_vxcc("PREFIX=" + prefix)
        share = os.path.join(prefix, "share", "vxrr")
        out = os.path.join(self.tmp, "dbg.elf")
        r = vxtest.run([os.path.join(prefix, "bin", "vxcc"), "-O2", "-g", "-o", out,
                        self.write("dbg.c", HELLO.replace("helper(20)", "20 + 22"))])
        self.assertEqual(r.returncode, 0, r.stderr)
        r = vxtest.run([CROSS + "readelf", "--debug-dump=info", out])
        self.assertEqual(r.returncode, 0, r.stderr)
        # each compilation unit: (name, comp_dir)
        units, name = [], None
        for line in r.stdout.splitlines():
            m = re.search(r"DW_AT_(name|comp_dir)\s*: (?:\([^()]*\): )?(.*)$", line)
            if m and m.group(1) == "name" and name is None:
                name = m.group(2)
            elif m and m.group(1) == "comp_dir" and name is not None:
                units.append((name, m.group(2)))
            if "DW_TAG_compile_unit" in line:
                name = None
        runtime = set(os.listdir(os.path.join(vxtest.ROOT, "kernel", "src")))
        found = set()
        for name, comp_dir in units:
            src = os.path.join(comp_dir, name)
            base = os.path.basename(src)
            if base not in runtime:
                continue
            found.add(base)
            self.assertEqual(src, os.path.join(share, "kernel", "src", base))
            self.assertTrue(os.path.exists(src), src)
        self.assertTrue({"crt0.S", "vx_print.c"} <= found, units)

    def test_verbose(self):
        """-v prints the gcc commands"""
        src = self.write("v.c", "int main(void){return 0;}\n")
        r = self.vxcc("-v", "-o", "v.elf", src)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("-march=rv32imaf", r.stderr)
        self.assertIn("link32.ld", r.stderr)
        # the build tree's runtime, made by `make kernels`, is up to date for vxcc: it
        # links it instead of compiling the runtime's sources again
        if os.path.exists(os.path.join(vxtest.ROOT, "build", "kernels", "lib", "libvxrt.a")):
            self.assertNotIn("crt0.S", r.stderr)
            self.assertIn("libvxrt.a", r.stderr)


if __name__ == "__main__":
    vxtest.main(Vxcc)
