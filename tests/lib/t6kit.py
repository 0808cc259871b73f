"""t6kit - helpers for the vxdump / vxdiff tests (tests/t6*.py).

Builds the tiny hand-written kernels of tests/kernels/t6-*.S (assembled with
vxcc -c and linked with the kernel linker script, without the runtime), records
traces with vxrec and runs vxdump / vxdiff.
"""
import json
import os
import shutil
import subprocess

import vxtest

KDIR = os.path.join(vxtest.ROOT, "tests", "kernels")
LD = "riscv64-unknown-elf-ld"


def have_toolchain():
    return shutil.which(LD) is not None and os.path.exists(vxtest.prog("vxcc"))


def build(name, out_dir, defines=()):
    """Assemble tests/kernels/NAME.S into OUT_DIR/NAME.elf (defines: -DX=Y strings)."""
    src = os.path.join(KDIR, name + ".S")
    obj = os.path.join(out_dir, name + ".o")
    elf = os.path.join(out_dir, name + "".join(d.replace("=", "_") for d in defines) + ".elf")
    r = vxtest.run([vxtest.prog("vxcc"), "-c"] + list(defines) + ["-o", obj, src])
    if r.returncode:
        raise RuntimeError("vxcc failed on %s: %s" % (src, r.stderr))
    r = vxtest.run([LD, "-m", "elf32lriscv", "-T", os.path.join(vxtest.ROOT, "kernel", "link32.ld"),
                    "--no-warn-rwx-segments", "-o", elf, obj])
    if r.returncode:
        raise RuntimeError("ld failed on %s: %s" % (obj, r.stderr))
    return elf


def vxcc(src, out, defines=()):
    """vxcc -O2 [defines] -o OUT SRC (a C or C++ kernel); returns OUT."""
    r = vxtest.run([vxtest.prog("vxcc"), "-O2"] + list(defines) + ["-o", out, src])
    if r.returncode:
        raise RuntimeError("vxcc %s: %s" % (src, r.stderr))
    return out


def record(kernel, trace, args=(), expect=None):
    """vxrec -q -f [args] KERNEL -o TRACE; returns the CompletedProcess."""
    r = vxtest.run([vxtest.prog("vxrec"), "-q", "-f"] + list(args) + [kernel, "-o", trace])
    if expect is not None and r.returncode != expect:
        raise RuntimeError("vxrec %s: exit %d, expected %d: %s" % (kernel, r.returncode, expect, r.stderr))
    return r


def vxdump(*args):
    return vxtest.run([vxtest.prog("vxdump")] + list(args))


def vxdiff(*args):
    return vxtest.run([vxtest.prog("vxdiff")] + list(args))


def events(trace, *args):
    """vxdump --json: the list of event objects (asserts exit status 0)."""
    r = vxdump("--json", *(list(args) + [trace]))
    if r.returncode != 0:
        raise RuntimeError("vxdump --json %s: exit %d: %s" % (trace, r.returncode, r.stderr))
    return [json.loads(line) for line in r.stdout.splitlines()]


def summary(trace, *args):
    r = vxdump("--summary", "--json", *(list(args) + [trace]))
    if r.returncode != 0:
        raise RuntimeError("vxdump --summary %s: exit %d: %s" % (trace, r.returncode, r.stderr))
    return json.loads(r.stdout)


def popcount_hex(s):
    return bin(int(s, 16)).count("1")


def nm_functions(elf):
    """(addr, size, name) of the function symbols, read with nm (an independent reader)."""
    r = vxtest.run(["riscv64-unknown-elf-nm", "-S", "--defined-only", elf])
    out = []
    for line in r.stdout.splitlines():
        f = line.split()
        if len(f) == 4 and f[2] in "tT":
            out.append((int(f[0], 16), int(f[1], 16), f[3]))
    return out


def chunks(data):
    """[(offset, type, stored_len, key)] of a trace's chunks (FORMAT.md §3-§4), until the trailer."""
    import struct
    out = []
    off = 16
    while off + 28 <= len(data):
        typ, flags, res, stored, raw, key = struct.unpack_from("<BBHIIQ", data, off)
        if typ == 0 or typ > 10 or res:  # 8..10: DIGEST, PAGES2, KEYFRAME2 (format 1.1)
            break
        out.append((off, typ, stored, key))
        off += 28 + stored
        if typ == 7:  # INDEX: the trailer follows
            break
    return out
