"""A stdio JSON-RPC peer: starts a server process on pipes and times round trips.

A response's time is the moment the read() that completed its line returned, so
parsing (json.loads of a 16 MiB line) is never inside a measured interval.
"""

import collections
import json
import os
import select
import subprocess
import time

now_ns = time.perf_counter_ns


class ServerGone(Exception):
    """The server closed its stdout or did not answer in time."""


def proc_status(pid, field):
    """A /proc/<pid>/status value in kB (VmRSS, VmHWM), or None."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for row in f:
                if row.startswith(field + ":"):
                    return int(row.split()[1])
    except OSError:
        pass
    return None


def cpu_ns(pid):
    """(CPU ns of the process's threads, CPU ns of its reaped children).

    The process's own time comes from /proc/<pid>/task/*/schedstat (nanoseconds); the
    children's from /proc/<pid>/stat (clock ticks, 10 ms: measure many requests)."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    tick = 1e9 / os.sysconf("SC_CLK_TCK")
    utime, stime, cutime, cstime = (int(v) for v in fields[11:15])
    own = 0
    try:
        for task in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/schedstat" % (pid, task)) as f:
                own += int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        own = (utime + stime) * tick
    return own, (cutime + cstime) * tick


class StdioServer:
    """One server process. Not thread-safe: one caller drives it."""

    def __init__(self, argv, stderr_path, cwd=None, env=None, keep_notifications=False):
        self.argv = argv
        self.stderr_path = stderr_path
        with open(stderr_path, "ab") as err:
            self.t_spawn = now_ns()
            self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=err, bufsize=0, cwd=cwd, env=env)
        self.pid = self.proc.pid
        self._in = self.proc.stdin.fileno()
        self._out = self.proc.stdout.fileno()
        self._partial = bytearray()
        self._lines = collections.deque()  # (line bytes, arrival ns)
        self._stash = {}  # id -> (arrival ns, message) read while waiting for another id
        self.notifications = 0
        # (arrival ns, message) of every notification, when a caller wants them (reload).
        self.kept_notifications = [] if keep_notifications else None
        self._next_id = 1
        self.last_sent_ns = None  # when round_trip last sent its request

    def new_id(self):
        i = self._next_id
        self._next_id += 1
        return i

    def send(self, data):
        view = memoryview(data)
        while view:
            n = os.write(self._in, view)
            view = view[n:]

    def _fill(self, deadline):
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([self._out], [], [], left)[0]:
            raise ServerGone("no response within the time limit from %s" % self.argv[0])
        chunk = os.read(self._out, 1 << 20)
        t = now_ns()
        if not chunk:
            raise ServerGone("%s closed its stdout (see %s)" % (self.argv[0], self.stderr_path))
        start = 0
        while True:
            j = chunk.find(b"\n", start)
            if j < 0:
                self._partial += chunk[start:]
                return
            self._partial += chunk[start:j]
            self._lines.append((bytes(self._partial), t))
            self._partial = bytearray()
            start = j + 1

    def wait_for(self, ids, timeout=60.0):
        """{id: (arrival ns, message)} for every id in ids; other lines are stashed/counted."""
        wanted = set(ids)
        got = {i: self._stash.pop(i) for i in list(wanted) if i in self._stash}
        wanted -= got.keys()
        deadline = time.monotonic() + timeout
        while wanted:
            if not self._lines:
                self._fill(deadline)
                continue
            line, t = self._lines.popleft()
            msg = json.loads(line)
            mid = msg.get("id") if isinstance(msg, dict) else None
            if mid is None:
                self.notifications += 1
                if self.kept_notifications is not None:
                    self.kept_notifications.append((t, msg))
            elif mid in wanted:
                wanted.discard(mid)
                got[mid] = (t, msg)
            else:
                self._stash[mid] = (t, msg)
        return got

    def round_trip(self, make_line, timeout=60.0):
        """Sends make_line(id); returns (latency ns, response message)."""
        rid = self.new_id()
        line = make_line(rid)
        t0 = now_ns()
        self.last_sent_ns = t0
        self.send(line)
        t, msg = self.wait_for([rid], timeout)[rid]
        return t - t0, msg

    def proc_status(self, field):
        return proc_status(self.pid, field)

    def cpu_ns(self):
        return cpu_ns(self.pid)

    def close(self, timeout=10.0):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc.stdout.close()
        return self.proc.returncode
