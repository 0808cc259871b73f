"""vxtest - helpers shared by the Python TAP tests (python3-tap).

Paths: VXRR_BUILD (set by `make test`; default build/) holds bin/ with the programs;
kernels are in build/kernels/ (mode independent).  Every test runs from the
repository root.
"""
import os
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.join(ROOT, os.environ.get("VXRR_BUILD", "build"))
BIN = os.path.join(BUILD, "bin")
KERNELS = os.path.join(ROOT, "build", "kernels")


def prog(name):
    """Absolute path of a built program."""
    return os.path.join(BIN, name)


def kernel(name):
    """Absolute path of a built example kernel (build/kernels/NAME.elf)."""
    return os.path.join(KERNELS, name + ".elf")


def run(args, timeout=300, input=None, cwd=None):
    """Run a command; return CompletedProcess with text stdout/stderr."""
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout,
                          input=input, cwd=cwd)


def tmpdir():
    """A temporary directory removed at exit."""
    d = tempfile.TemporaryDirectory(prefix="vxrr-test-")
    _keep.append(d)
    return d.name


_keep = []
