#!/usr/bin/env python3
"""t5005: the servers (vxsim/vxrec --dm-port, vxreplay) out of file descriptors.

Each server is started with a limit on its file descriptors (RLIMIT_NOFILE, set in
the child), then the test lowers that limit to the descriptors it holds once it
listens (prlimit), so that the next accept() fails with EMFILE whatever the build
(sanitizers open files of their own); raising it again frees one.  A client that
cannot be accepted waits without the server spinning (its CPU time stays small), the
server says so once, and it is served once a descriptor is free; it does not hold up the kernel's run.  A real
failure of vxreplay's listening socket ends it with status 2, not 0.
"""
import ctypes
import os
import re
import resource
import select
import socket
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
import vxtest  # noqa: E402
from vxdbg import AU, DA, DCTRL, Client  # noqa: E402

HARD = 64  # the children's descriptor limit (the test lowers the soft one below it)
CPU_MAX = 0.3  # CPU seconds a server may use in WAIT seconds while a client waits
WAIT = 1.5


def limited():
    resource.setrlimit(resource.RLIMIT_NOFILE, (HARD, HARD))


def cpu_seconds(pid):
    """user + system CPU time of a running process"""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def fds_of(pid):
    return sorted(int(n) for n in os.listdir("/proc/%d/fd" % pid))


def set_soft_limit(pid, soft):
    resource.prlimit(pid, resource.RLIMIT_NOFILE, (soft, HARD))


def exhaust(test, pid, spare=0):
    """Lower pid's soft limit so that exactly `spare` more descriptors can be opened."""
    fds = fds_of(pid)
    test.assertEqual(fds, list(range(len(fds))), "the server's descriptors are 0..n-1")
    set_soft_limit(pid, len(fds) + spare)


class Reader:
    """A child's stderr, read as it comes."""

    def __init__(self, proc):
        self.proc, self.text = proc, ""

    def until(self, pattern, timeout=30):
        deadline = time.time() + timeout
        while not re.search(pattern, self.text):
            left = deadline - time.time()
            if left <= 0:
                return None
            r, _, _ = select.select([self.proc.stderr], [], [], left)
            if not r:
                return None
            chunk = os.read(self.proc.stderr.fileno(), 4096)
            if not chunk:
                return re.search(pattern, self.text)
            self.text += chunk.decode("utf-8", "replace")
        return re.search(pattern, self.text)

    def rest(self, timeout=30):
        out, err = self.proc.communicate(timeout=timeout)
        self.text += err.decode("utf-8", "replace")
        return out


def nothing_to_read(sock):
    r, _, _ = select.select([sock], [], [], 0)
    return not r


class ServerCase(unittest.TestCase):
    """Servers started (procs) and sockets opened (socks) by a test, ended after it."""

    def assert_no_spin(self, pid, what):
        """pid uses less than CPU_MAX of CPU in WAIT seconds (no busy loop)."""
        cpu0 = cpu_seconds(pid)
        time.sleep(WAIT)
        used = cpu_seconds(pid) - cpu0
        self.assertLess(used, CPU_MAX, "%s: %.2f s of CPU in %.1f s" % (what, used, WAIT))

    def setUp(self):
        self.procs = []
        self.socks = []

    def tearDown(self):
        for s in self.socks:
            s.close()
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.communicate()


class DebugModule(ServerCase):
    def setUp(self):
        super().setUp()
        self.dir = vxtest.tmpdir()

    def run_to_end(self, p, err, c):
        """Client c starts the platform ("s"), activates the Debug Module and waits until
        DCTRL says every warp is unavailable (AU: the kernel has ended), then leaves: the
        server exits 0."""
        self.assertEqual(c.cmd("s"), "+")
        c.wr(DCTRL, DA)
        c.poll(AU, AU)  # the kernel ran to its end
        c.close()
        err.rest()
        self.assertEqual(p.returncode, 0, err.text)

    def start(self, name, args):
        p = subprocess.Popen([vxtest.prog(name), "--dm-port", "0"] + args,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=limited)
        self.procs.append(p)
        err = Reader(p)
        m = err.until(r"Debug Module listening on 127\.0\.0\.1:(\d+)")
        self.assertIsNotNone(m, err.text)
        return p, err, int(m.group(1))

    def client_waits_then_is_served(self, name, args):
        p, err, port = self.start(name, args + [vxtest.kernel("hello")])
        exhaust(self, p.pid)
        c = Client(port, timeout=30)
        self.socks.append(c.sock)
        c.sock.sendall(b"p\n")
        self.assertIsNotNone(err.until(r"%s: cannot accept a Debug Module client: Too many open "
                                       r"files \(it waits, and is served once a file descriptor "
                                       r"is free; trying every 100 ms\)\n" % name), err.text)
        self.assert_no_spin(p.pid, "%s spins while a client waits" % name)
        self.assertTrue(nothing_to_read(c.sock), "not served yet: no descriptor for it")
        self.assertIsNone(p.poll(), "%s still runs: %s" % (name, err.text))
        # a descriptor is free: the waiting client is served, its command answered
        set_soft_limit(p.pid, HARD)
        self.assertEqual(c.recv_line(), "+P")
        self.run_to_end(p, err, c)
        self.assertEqual(err.text.count("cannot accept"), 1, "said once: " + err.text)

    def test_vxsim_client_waits_for_a_descriptor(self):
        """vxsim --dm-port out of descriptors: no busy loop; the client is served once one is free"""
        self.client_waits_then_is_served("vxsim", [])

    def test_vxrec_client_waits_for_a_descriptor(self):
        """vxrec --dm-port out of descriptors: no busy loop; the client is served once one is free"""
        self.client_waits_then_is_served("vxrec", ["-f", "-o", os.path.join(self.dir, "t.vxt")])

    def second_client(self):
        """vxsim whose last descriptor a first client takes, and a second client that connects
        and sends 'p'; the server does not spin meanwhile"""
        p, err, port = self.start("vxsim", [vxtest.kernel("hello")])
        exhaust(self, p.pid, spare=1)
        c = Client(port, timeout=30)
        self.socks.append(c.sock)
        self.assertEqual(c.cmd("p"), "+P")
        c2 = Client(port, timeout=30)
        self.socks.append(c2.sock)
        c2.sock.sendall(b"p\n")
        self.assertIsNotNone(err.until(r"vxsim: cannot accept another Debug Module client to turn "
                                       r"it away: Too many open files \(it waits, and is served "
                                       r"once this one has left\)\n"), err.text)
        self.assert_no_spin(p.pid, "vxsim spins")
        self.assertEqual(c.cmd("p"), "+P", "the first session goes on")
        self.assertTrue(nothing_to_read(c2.sock), "the second client waits")
        return p, err, c, c2

    def test_second_client_waits_its_turn(self):
        """the last descriptor taken by a client: another cannot be turned away; it waits
        (no busy loop) and is served once the first has left"""
        p, err, c, c2 = self.second_client()
        c.close()
        self.assertEqual(c2.recv_line(), "+P", "served once the first has left")
        self.run_to_end(p, err, c2)
        self.assertEqual(err.text.count("cannot accept"), 1, "said once: " + err.text)

    def test_waiting_client_does_not_hold_the_kernel(self):
        """a client that cannot be accepted does not hold up the run: the kernel runs to its
        end, and vxsim exits with its status once the served client has left"""
        p, err, c, c2 = self.second_client()
        self.run_to_end(p, err, c)


# ---- vxreplay -------------------------------------------------------------------------------

def rsp(payload):
    return ("$%s#%02x" % (payload, sum(payload.encode()) & 0xFF)).encode()


def rsp_reply(sock, timeout=30):
    """The next packet's payload (acks skipped)."""
    sock.settimeout(timeout)
    buf = b""
    while True:
        m = re.search(rb"\$([^#]*)#[0-9a-fA-F]{2}", buf)
        if m:
            return m.group(1).decode()
        chunk = sock.recv(4096)
        if not chunk:
            raise EOFError("connection closed; got %r" % buf)
        buf += chunk


class Replay(ServerCase):
    trace = None

    @classmethod
    def setUpClass(cls):
        cls.dir = vxtest.tmpdir()
        cls.trace = os.path.join(cls.dir, "hello.vxt")
        r = vxtest.run([vxtest.prog("vxrec"), "-q", "-o", cls.trace, vxtest.kernel("hello")])
        if r.returncode != 0:
            cls.trace = None
            cls.why = r.stderr

    def setUp(self):
        self.assertIsNotNone(self.trace, "recording hello failed: %s" % getattr(self, "why", ""))
        super().setUp()

    def start(self, *args):
        p = subprocess.Popen([vxtest.prog("vxreplay"), "-p", "0"] + list(args) + [self.trace],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=limited)
        self.procs.append(p)
        out = b""
        while b"target remote" not in out:
            r, _, _ = select.select([p.stdout], [], [], 30)
            chunk = os.read(p.stdout.fileno(), 4096) if r else b""
            self.assertTrue(chunk, "no connect banner: %r" % out)
            out += chunk
        port = int(re.search(rb"listening on \S+ port (\d+)", out).group(1))
        return p, Reader(p), port

    def connect(self, port):
        s = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.socks.append(s)
        return s

    def test_client_waits_for_a_descriptor(self):
        """vxreplay out of descriptors: it says so once, waits without spinning and serves the
        client once a descriptor is free (it used to exit 0 at once)"""
        p, err, port = self.start("--once")
        exhaust(self, p.pid)
        s = self.connect(port)
        s.sendall(rsp("?"))
        self.assertIsNotNone(err.until(r"cannot accept a client for now: Too many open files"),
                             err.text)
        self.assert_no_spin(p.pid, "vxreplay spins")
        self.assertIsNone(p.poll(), "vxreplay still runs: %s" % err.text)
        self.assertTrue(nothing_to_read(s), "not served yet")
        set_soft_limit(p.pid, HARD)
        self.assertTrue(rsp_reply(s).startswith("T"), "served once a descriptor is free")
        s.close()
        err.rest()
        self.assertEqual(p.returncode, 0, err.text)
        self.assertEqual(err.text.count("cannot accept a client"), 1, "said once: " + err.text)

    def test_second_client_under_descriptor_pressure(self):
        """the last descriptor taken by a client: another that connects cannot be turned away;
        vxreplay says so once, the first session goes on, the second is served after it"""
        p, err, port = self.start()
        exhaust(self, p.pid, spare=1)
        a = self.connect(port)
        a.sendall(rsp("?"))
        self.assertTrue(rsp_reply(a).startswith("T"))
        b = self.connect(port)
        b.sendall(rsp("?"))
        self.assertIsNotNone(err.until(r"another client cannot be accepted to be turned away: "
                                       r"Too many open files \(it waits, and is served once "
                                       r"127\.0\.0\.1:\d+ has left\)"), err.text)
        self.assert_no_spin(p.pid, "vxreplay spins")
        a.sendall(b"+" + rsp("?"))
        self.assertTrue(rsp_reply(a).startswith("T"), "the first session goes on")
        self.assertTrue(nothing_to_read(b), "the second client waits")
        a.close()
        self.assertTrue(rsp_reply(b).startswith("T"), "served once the first has left")
        self.assertEqual(err.text.count("cannot be accepted"), 1, "said once: " + err.text)

    def test_listener_failure_exits_2(self):
        """accept() failing on the listening socket itself ends vxreplay with status 2"""
        libc = ctypes.CDLL(None, use_errno=True)
        p, err, port = self.start()
        lfd = fds_of(p.pid)[-1]
        self.assertEqual(os.readlink("/proc/%d/fd/%d" % (p.pid, lfd))[:7], "socket:")
        try:
            pidfd = os.pidfd_open(p.pid)
        except (AttributeError, OSError) as e:
            self.skipTest("no pidfd_open: %s" % e)
        fd = libc.syscall(438, pidfd, lfd, 0)  # pidfd_getfd: the listening socket
        os.close(pidfd)
        if fd < 0:
            self.skipTest("no pidfd_getfd: %s" % os.strerror(ctypes.get_errno()))
        with socket.socket(fileno=fd) as lsock:
            self.assertEqual(lsock.getsockname()[1], port)
            lsock.shutdown(socket.SHUT_RD)  # no longer listening: accept() fails (EINVAL)
        err.rest()
        self.assertEqual(p.returncode, 2, err.text)
        self.assertIn("accept failed: Invalid argument: no client can be served", err.text)


if __name__ == "__main__":
    vxtest.main(DebugModule, Replay)
