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


def sanitized():
    """Are the programs under test a sanitizer build (ASan+UBSan or TSan)?"""
    return os.path.basename(BUILD) in ("debug", "tsan")


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


def task_harts(n, shape):
    """Hart of each task in tasks mode: {task: hart}, for a (clusters, cores, warps,
    threads) shape.  An independent model of the distribution vx_spawn_threads
    documents (kernel/include/vx_spawn.h), used by t2001 and t2003."""
    c, k, w, t = shape
    ncores = c * k
    cap = w * t
    active = min((n + cap - 1) // cap, ncores)
    each, rem = divmod(n, active)
    harts = {}
    for core in range(active):
        first = core * each + min(core, rem)
        count = each + (1 if core < rem else 0)
        runs = count // t
        rpw, rr = divmod(runs, w)
        for wid in range(min(runs, w)):
            nr = rpw + (1 if wid < rr else 0)
            run0 = wid * rpw + min(wid, rr)
            for r in range(nr):
                for lane in range(t):
                    harts[first + (run0 + r) * t + lane] = (core * w + wid) * t + lane
        for lane in range(count % t):
            harts[first + runs * t + lane] = (core * w) * t + lane
    return harts



def main(*cases):
    """Run unittest.TestCase classes and print TAP (tap.py); exit 0 iff all passed.

    Usage at the bottom of a test file:
        if __name__ == "__main__":
            vxtest.main(MyTests)
    A whole file can be skipped with skip_all("reason") before main().
    """
    import sys
    import unittest
    from tap import TAPTestRunner
    suite = unittest.TestSuite()
    for c in cases:
        suite.addTests(unittest.defaultTestLoader.loadTestsFromTestCase(c))
    forgotten = unlisted_cases(sys.modules["__main__"], cases)
    if forgotten:
        # a class the file defines but does not run would pass silently: fail instead
        def test_every_class_is_run(self):
            self.fail("test classes defined but not given to vxtest.main: " +
                      ", ".join(forgotten))
        suite.addTest(type("Unlisted", (unittest.TestCase,),
                           {"test_every_class_is_run": test_every_class_is_run})(
                               "test_every_class_is_run"))
    runner = TAPTestRunner()
    runner.set_stream(True)
    runner.set_format("{method_name}: {short_description}")
    res = runner.run(suite)
    sys.exit(0 if res.wasSuccessful() else 1)


def unlisted_cases(module, cases):
    """Names of the TestCase classes defined in module with test methods of their own
    that are neither among cases nor a base class of one of them."""
    import unittest
    bases = {b for c in cases for b in c.__mro__}
    out = []
    for name, obj in vars(module).items():
        if (isinstance(obj, type) and issubclass(obj, unittest.TestCase) and
                obj.__module__ == module.__name__ and obj not in bases and
                any(k.startswith("test") and callable(v) for k, v in vars(obj).items())):
            out.append(name)
    return sorted(out)


def skip_all(reason):
    """Print a TAP skip-all plan and exit."""
    import sys
    print("1..0 # SKIP " + reason)
    sys.exit(0)
