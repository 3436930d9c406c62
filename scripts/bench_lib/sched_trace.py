"""What held up the slow requests: a scheduler trace of the whole machine (`perf sched
record`), matched to the bench's slow round trips on the same clock.

For each slow request (its sent .. answered interval), every moment in which a thread of
the request's path was runnable but not running is looked at: the client's threads and the
host's loop thread (the path when stdin and stdout are pipes, ADR 0021). What ran on that
CPU meanwhile is the request's cause: the idle task (an idle CPU that was slow to wake up:
on a VM, its virtual CPU), a bash (a probe or a tool), another thread of the host (the
reload's build thread, the spawner, the writer), the client or the loop itself, or another
process. A request without any such wait over 0.3 ms is counted as such.

The bench's clock (time.perf_counter_ns) is CLOCK_MONOTONIC; perf records with the same
clock (-k CLOCK_MONOTONIC). Needs perf and the permission to trace the whole machine.
"""

import bisect
import collections
import os
import re
import shutil
import signal
import subprocess

MIN_WAIT_S = 0.0003  # a wait shorter than this is not a cause
_EVENT = re.compile(r"^\s*(.+?)\s+(\d+)/(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+sched:(\w+):\s+(.*)$")
_FIELD = re.compile(r"(\w+)=(\S+)")


def available():
    return shutil.which("perf") is not None


class Recorder:
    """perf sched record -a, from start() to stop()."""

    def __init__(self, path, log_path):
        self.path = path
        self.log_path = log_path
        self.proc = None

    def start(self):
        log = open(self.log_path, "w")
        self.proc = subprocess.Popen(["perf", "sched", "record", "-k", "CLOCK_MONOTONIC", "-a", "-o", self.path],
                                     stdout=log, stderr=log, start_new_session=True)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=120)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc is not None and os.path.exists(self.path)


def classify(path, windows, host_pid, client_pid):
    """windows: [(label, sent_ns, answered_ns)]. Returns {label: Counter(cause)}."""
    out = subprocess.run(["perf", "script", "-i", path, "-F", "comm,pid,tid,cpu,time,event,trace"],
                         capture_output=True, text=True).stdout
    process_of, names = {}, {}
    running = collections.defaultdict(list)  # cpu -> [(start, end, tid)]
    current, runnable = {}, {}
    waits = collections.defaultdict(list)  # tid -> [(start, end, cpu)], in time order
    for line in out.splitlines():
        m = _EVENT.match(line)
        if not m:
            continue
        comm, pid, tid, cpu, t, name, rest = m.groups()
        process_of[int(tid)] = int(pid)
        cpu, t = int(cpu), float(t)
        f = dict(_FIELD.findall(rest))
        if name == "sched_switch":
            prev, nxt = int(f["prev_pid"]), int(f["next_pid"])
            names[prev], names[nxt] = f["prev_comm"], f["next_comm"]
            if cpu in current:
                start, who = current[cpu]
                running[cpu].append((start, t, who))
            current[cpu] = (t, nxt)
            if f["prev_state"].startswith("R") and prev:
                runnable[prev] = (t, cpu)
            if nxt in runnable:
                start, on = runnable.pop(nxt)
                waits[nxt].append((start, t, on))
        elif name == "sched_waking":
            woken = int(f["pid"])
            names.setdefault(woken, f["comm"])
            runnable.setdefault(woken, (t, int(f["target_cpu"])))
    starts = {c: [r[0] for r in rs] for c, rs in running.items()}

    def cause(tid):
        if tid == 0:
            return "an idle CPU (slow to wake up)"
        if names.get(tid) == "bash":
            return "a bash (probe or tool)"
        pid = process_of.get(tid)
        if tid == host_pid:
            return "the host's loop"
        if pid == host_pid:  # the host names its threads (mcpsh-reload, mcpsh-spawner, ...)
            return "the host's thread %s" % names.get(tid, "?")
        if pid == client_pid:
            return "the client"
        return "another process (%s)" % names.get(tid, "?")

    def ran_on(cpu, a, b):
        seen = collections.Counter()
        rs, ss = running.get(cpu, []), starts.get(cpu, [])
        for start, end, who in rs[max(0, bisect.bisect_left(ss, a) - 1):bisect.bisect_right(ss, b)]:
            overlap = min(end, b) - max(start, a)
            if overlap > 0:
                seen[cause(who)] += overlap
        return seen

    path_tids = [t for t, p in process_of.items() if p == client_pid] + [host_pid]
    result = collections.defaultdict(collections.Counter)
    for label, sent_ns, answered_ns in windows:
        a, b = sent_ns / 1e9, answered_ns / 1e9
        blame = collections.Counter()
        for tid in path_tids:
            ws = waits.get(tid, [])
            keys = [w[0] for w in ws]
            for start, end, cpu in ws[max(0, bisect.bisect_left(keys, a - 0.1)):bisect.bisect_right(keys, b)]:
                lo, hi = max(start, a), min(end, b)
                if hi > lo:
                    blame.update(ran_on(cpu, lo, hi))
        top = blame.most_common(1)
        result[label][top[0][0] if top and top[0][1] >= MIN_WAIT_S else "no wait over 0.3 ms"] += 1
    return result
