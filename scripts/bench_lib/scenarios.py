"""The measurements. Each returns rows: dicts with a section, a request kind, a subject
('host', 'bash floor', '/bin/true floor', 'old core', ...) and numbers in ms and kB.

Baselines are interleaved with the host's requests (one baseline sample every k host
requests) so that both see the same load. The old core gets few requests: each costs
~0.3-1 s. CPU time (user+system) is reported next to wall time because it hardly
depends on the machine's load: for a server it is its own CPU plus that of the children
it reaped during the measurement, divided by the requests; for a spawned floor it is the
child's rusage.
"""

import json
import os
import shutil
import time

from . import baselines, requests, stats
from .client import StdioServer, now_ns

MIB = 1 << 20


def row(section, kind, subject, samples_ns, errors=0, note="", cpu_ns=None, **extra):
    """cpu_ns: mean CPU per request, or a list of per-sample CPU ns (then averaged)."""
    r = {"section": section, "kind": kind, "subject": subject, "errors": errors, "note": note}
    r.update(stats.summarize(samples_ns))
    if isinstance(cpu_ns, list):
        cpu_ns = sum(cpu_ns) / len(cpu_ns) if cpu_ns else None
    r["cpu_ms"] = cpu_ns / 1e6 if cpu_ns is not None else None
    r.update(extra)
    return r


class CpuMeter:
    """CPU of a server and its reaped children between start() and per_request(n)."""

    def __init__(self, server):
        self.server = server
        self.start()

    def start(self):
        self.c0 = self.server.cpu_ns()

    def per_request(self, n):
        return sum(self.split(n)) if n else None

    def split(self, n):
        """(server's own CPU ns, its children's CPU ns) per request."""
        c1 = self.server.cpu_ns()
        return (c1[0] - self.c0[0]) / n, (c1[1] - self.c0[1]) / n


class Bench:
    def __init__(self, host_bin, script, workdir, counts, old_core=None, progress=print, host_options=()):
        self.host_bin = host_bin
        self.host_options = list(host_options)
        self.script = script
        self.workdir = workdir
        self.n = counts
        self.progress = progress
        self.floor = baselines.Floor(script)
        self.breakdown = None
        self.old_core = old_core
        self.oldcore_server = None
        self.tools_list_json = None
        if old_core:
            self.tools_list_json = self._host_tools_list()
            self.oldcore_server = baselines.write_oldcore_server(workdir, old_core, script, self.tools_list_json)

    # ---- servers ------------------------------------------------------------------------

    def host(self, *options, script=None):
        argv = [self.host_bin, "serve", *self.host_options, *options, script or self.script]
        return StdioServer(argv, os.path.join(self.workdir, "host.stderr"))

    def old(self, server_script=None):
        return StdioServer(baselines.oldcore_argv(server_script or self.oldcore_server),
                           os.path.join(self.workdir, "oldcore.stderr"), cwd=self.workdir)

    def _host_tools_list(self):
        """The host's own tools/list of the bench script, so both servers list the same tools."""
        s = self.host()
        try:
            _, msg = s.round_trip(lambda i: requests.request(i, "tools/list"))
        finally:
            s.close()
        return json.dumps({"tools": msg["result"]["tools"]})

    @staticmethod
    def _timed(server, make, ok, timeout=60):
        t, msg = server.round_trip(make, timeout)
        return t, ok(msg)

    # ---- sequential request kinds ----------------------------------------------------------

    def sequential(self):
        rows = []
        read_uri = "bench://readme"
        text_is = lambda get, want: lambda m: (get(m) or "").rstrip("\n") == want
        # Kinds measured on one host are interleaved request by request, so that they see the
        # same load; the first of a group is the reference of the others ("x tools/list").
        groups = [
            [("server/discover", lambda i: requests.request(i, "server/discover"),
              lambda m: "supportedVersions" in m.get("result", {}), True)],
            [("tools/list", lambda i: requests.request(i, "tools/list"),
              lambda m: requests.listed(m, "tools", "hi"), True),
             ("resources/list", lambda i: requests.request(i, "resources/list"),
              lambda m: requests.listed(m, "resources", "readme"), False),
             ("resources/templates/list", lambda i: requests.request(i, "resources/templates/list"),
              lambda m: requests.listed(m, "resourceTemplates", "item"), False),
             ("prompts/list", lambda i: requests.request(i, "prompts/list"),
              lambda m: requests.listed(m, "prompts", "greet"), False)],
            [("tools/call hi", lambda i: requests.call(i, "hi"), text_is(requests.tool_text, "hi"), True),
             ("resources/read " + read_uri, lambda i: requests.read(i, read_uri),
              text_is(requests.resource_text, "readme"), False),
             ("prompts/get greet", lambda i: requests.get_prompt(i, "greet"),
              text_is(requests.prompt_text, "hello"), False)],
        ]
        counts = [self.n["seq"], self.n["seq"], self.n["call"]]
        for group, n in zip(groups, counts):
            names = ", ".join(kind for kind, _, _, _ in group)
            olds = sum(1 for *_, old in group if old) if self.oldcore_server else 0
            self.progress("  %s: %d host requests each, %d floor samples each, %d old-core requests"
                          % (names, n, min(n, self.n["floor"]), self.n["old"] * olds))
            rows += self._sequential_group(group, n)
        # With idle time before each call, work a server does between calls (e.g. starting
        # processes ahead) is off the measured path; without it, it competes with the next call.
        pace = self.n["pace_ms"] / 1000
        kind, make, ok, _ = groups[2][0]
        kind = "%s, %d ms apart" % (kind, self.n["pace_ms"])
        self.progress("  %s: %d host requests, %d floor samples" % (kind, self.n["paced"], self.n["paced"]))
        rows += self._sequential_group([(kind, make, ok, False)], self.n["paced"], pace=pace)
        return rows

    def _sequential_group(self, kinds, n, pace=0.0):
        """kinds: (kind, make, ok, old core too); each gets n host requests on one host."""
        host = self.host()
        with_old = [k for k, _, _, old in kinds if old] if self.oldcore_server else []
        old = self.old() if with_old else None
        try:
            for _ in range(self.n["warmup"]):
                for _, make, _, _ in kinds:
                    host.round_trip(make)
            if old:
                for kind, make, _, _ in kinds:
                    if kind in with_old:
                        old.round_trip(make, timeout=120)
            floor_every = max(1, n // self.n["floor"])
            old_every = max(1, n // self.n["old"])
            h = {k: [] for k, _, _, _ in kinds}
            fb = {k: [] for k in h}
            ft = {k: [] for k in h}
            o = {k: [] for k in h}
            host_cpu = CpuMeter(host)
            old_cpu = CpuMeter(old) if old else None
            for i in range(n):
                # Rotate who goes first so that no one always follows the same neighbour.
                steps = []
                for kind, make, ok, _ in kinds:
                    steps.append(lambda kind=kind, make=make, ok=ok: (
                        time.sleep(pace), h[kind].append(self._timed(host, make, ok))))
                    if i % floor_every == 0:
                        steps.append(lambda kind=kind: fb[kind].append(self.floor.bash_tool()))
                        steps.append(lambda kind=kind: ft[kind].append(self.floor.true()))
                    if kind in with_old and i % old_every == 0 and len(o[kind]) < self.n["old"]:
                        steps.append(lambda kind=kind, make=make, ok=ok: o[kind].append(
                            self._timed(old, make, ok, timeout=120)))
                k = i % len(steps)
                for step in steps[k:] + steps[:k]:
                    step()
            # CPU is measured over the whole group: per request of any kind.
            cpu_host = host_cpu.per_request(sum(len(v) for v in h.values()))
            cpu_old = old_cpu.per_request(sum(len(v) for v in o.values())) if old else None
            rows = []
            ref = kinds[0][0]
            ref_median = stats.median_or_none([t for t, _ in h[ref]])
            for kind, _, _, _ in kinds:
                samples = [t for t, _ in h[kind]]
                notes = []
                if pace:
                    notes.append("after %d ms idle each; rps counts busy time only" % (pace * 1000))
                extra = {}
                if len(kinds) > 1:
                    if kind == ref:
                        notes.append("interleaved with the %d kinds below" % (len(kinds) - 1))
                    elif ref_median:
                        extra = {"vs": ref, "x_vs": stats.median_or_none(samples) / ref_median}
                        notes.append("%.2fx %s (same host, interleaved)" % (extra["x_vs"], ref))
                    notes.append("CPU: mean over the group")
                rows += [row("sequential", kind, "host", samples, sum(not good for _, good in h[kind]),
                             cpu_ns=cpu_host, note="; ".join(notes), **extra),
                         row("sequential", kind, "bash floor", [s.wall for s in fb[kind]],
                             cpu_ns=[s.cpu for s in fb[kind]], note='bash -c \'source SCRIPT; tool_hi "{}"\''),
                         row("sequential", kind, "/bin/true floor", [s.wall for s in ft[kind]],
                             cpu_ns=[s.cpu for s in ft[kind]], note="fork+exec")]
                if kind in with_old:
                    rows.append(row("sequential", kind, "old core", [t for t, _ in o[kind]],
                                    sum(not good for _, good in o[kind]), cpu_ns=cpu_old,
                                    note="%d requests only" % len(o[kind])))
            return rows
        finally:
            host.close()
            if old:
                old.close()

    # ---- start-up and idle memory -------------------------------------------------------------

    def startup(self):
        n = self.n["startup"]
        n_old = min(n, self.n["old_startup"]) if self.oldcore_server else 0
        self.progress("  start-up: %d host starts, %d old-core starts" % (n, n_old))
        host_t, rss, fb, old_t, old_rss = [], [], [], [], []
        for i in range(n):
            t, r = self._start_once(self.host)
            host_t.append(t)
            rss.append(r)
            fb.append(self.floor.bash_tool())
            if i < n_old:
                t, r = self._start_once(self.old)
                old_t.append(t)
                old_rss.append(r)
        rows = [row("startup", "start to first response", "host", host_t,
                    idle_rss_kb=stats.median_or_none(rss),
                    note="spawn + server/discover; VmRSS read after the response"),
                row("startup", "start to first response", "bash floor", [s.wall for s in fb],
                    cpu_ns=[s.cpu for s in fb])]
        if n_old:
            rows.append(row("startup", "start to first response", "old core", old_t,
                            idle_rss_kb=stats.median_or_none(old_rss),
                            note="%d starts; RSS of the main bash only" % n_old))
        return rows

    @staticmethod
    def _start_once(start):
        s = start()
        try:
            rid = s.new_id()
            s.send(requests.request(rid, "server/discover"))
            t, _ = s.wait_for([rid], timeout=120)[rid]
            return t - s.t_spawn, s.proc_status("VmRSS")
        finally:
            s.close()

    # ---- a call right after the script changed on disk -----------------------------------------

    def edited_script(self):
        n = self.n["edit"]
        self.progress("  edited script: %d edits" % n)
        d = os.path.join(self.workdir, "edit")
        os.makedirs(d, exist_ok=True)
        script = os.path.join(d, "bench.sh")
        shutil.copyfile(self.script, script)
        host = self.host(script=script)
        try:
            first, nxt = self._edits(host, script, n, "host")
        finally:
            host.close()
        rows_first, rows_next = [first], [nxt]
        if self.oldcore_server:
            copy = os.path.join(d, "oldcore_bench.sh")
            shutil.copyfile(self.oldcore_server, copy)
            old = self.old(copy)
            try:
                first, nxt = self._edits(old, copy, min(n, 3), "old core")
            finally:
                old.close()
            rows_first.append(first)
            rows_next.append(nxt)
        return rows_first + rows_next

    def _edits(self, server, path, n, subject):
        """Appends a comment and a new tool_hi to the script, then calls tool_hi twice."""
        make = lambda i: requests.call(i, "hi")
        for _ in range(3):
            server.round_trip(make, timeout=120)
        first, nxt, seen = [], [], 0
        for i in range(n):
            with open(path, "a") as f:
                f.write("\n# bench edit %d\ntool_hi() { echo 'hi edit %d'; }\n" % (i, i))
            t, msg = server.round_trip(make, timeout=120)
            first.append(t)
            seen += requests.tool_text(msg) == "hi edit %d" % i
            nxt.append(server.round_trip(make, timeout=120)[0])
        return (row("edit", "first call after an edit", subject, first, edits_seen=seen,
                    note="the edit was seen by %d of %d calls" % (seen, n)),
                row("edit", "the call after that", subject, nxt))

    # ---- concurrency ------------------------------------------------------------------------

    def concurrency(self):
        self.progress("  parallel: %d x 8 sleep-1 calls, %d x %d trivial calls"
                      % (self.n["sleep_reps"], self.n["par_reps"], self.n["par"]))
        rows = self._burst("8 x sleep 1", "sleep", '{"seconds":1}', 8, self.n["sleep_reps"],
                           lambda t: t == "slept 1", old_n=8)
        rows += self._burst("%d x hi" % self.n["par"], "hi", "{}", self.n["par"], self.n["par_reps"],
                            lambda t: t == "hi", old_n=self.n["old_par"])
        return rows

    def _burst(self, kind, tool, args, n, reps, ok, old_n):
        host = self.host()
        walls, fl, errors = [], [], 0
        try:
            host.round_trip(lambda i: requests.call(i, "hi"))
            cpu = CpuMeter(host)
            for _ in range(reps):
                wall, bad = self._pipelined(host, tool, args, n, ok)
                walls.append(wall)
                errors += bad
                fl.append(self.floor.parallel(n, tool, args))
            host_cpu = cpu.per_request(reps * n)
        finally:
            host.close()
        rows = [self._burst_row(kind, "host", walls, n, errors, cpu_ns=host_cpu),
                self._burst_row(kind, "bash floor", [s.wall for s in fl], n, 0,
                                cpu_ns=sum(s.cpu for s in fl) / (reps * n), note="%d shells started at once" % n)]
        if self.oldcore_server:
            old = self.old()
            try:
                old.round_trip(lambda i: requests.call(i, "hi"), timeout=120)
                cpu = CpuMeter(old)
                wall, bad = self._pipelined(old, tool, args, old_n, ok, timeout=300)
                old_cpu = cpu.per_request(old_n)
            finally:
                old.close()
            rows.append(self._burst_row(kind, "old core", [wall], old_n, bad, cpu_ns=old_cpu,
                                        note="one burst of %d calls" % old_n))
        return rows

    @staticmethod
    def _burst_row(kind, subject, walls, n, errors, cpu_ns=None, note=""):
        r = row("concurrency", kind, subject, walls, errors, note=note, cpu_ns=cpu_ns, calls=n)
        med = r["median_ms"]
        r["rps"] = n / (med / 1000) if med else None  # calls per second of wall time
        return r

    @staticmethod
    def _pipelined(server, tool, args, n, ok, timeout=60):
        """Writes n calls at once; returns (wall ns until the last response, failures)."""
        ids = [server.new_id() for _ in range(n)]
        data = b"".join(requests.call(i, tool, args) for i in ids)
        t0 = now_ns()
        server.send(data)
        got = server.wait_for(ids, timeout)
        wall = max(t for t, _ in got.values()) - t0
        return wall, sum(1 for _, m in got.values() if not ok(requests.tool_text(m)))

    # ---- large payloads ----------------------------------------------------------------------

    def payloads(self):
        size_in, size_out, reps = self.n["arg_bytes"], self.n["out_bytes"], self.n["payload_reps"]
        self.progress("  payloads: %d x %.0f MiB argument, %d x %.0f MiB output"
                      % (reps, size_in / MIB, reps, size_out / MIB))
        args = '{"data":"' + "a" * (size_in - len('{"data":""}')) + '"}'
        args_path = os.path.join(self.workdir, "args.json")
        with open(args_path, "w") as f:
            f.write(args)
        rows = self._payload("%.0f MiB argument" % (size_in / MIB), [],
                             lambda i: requests.call(i, "arg_length", args),
                             lambda m: requests.tool_text(m) == str(size_in), size_in, reps,
                             lambda: self.floor.bash_tool_stdin_args(args_path),
                             floor_note="bash reads the arguments with read -d '' from a file")
        out_args = '{"bytes":%d}' % size_out
        max_output = "%dM" % max(32, 2 * size_out // MIB)
        rows += self._payload("%.0f MiB output" % (size_out / MIB), ["--max-output", max_output],
                              lambda i: requests.call(i, "bytes", out_args),
                              lambda m: len(requests.tool_text(m) or "") == size_out, size_out, reps,
                              lambda: self.floor.bash_tool("bytes", out_args),
                              note="host run with --max-output %s" % max_output,
                              floor_note="output read through a pipe")
        # An image block: its base64 crosses the side channel and the response once each.
        size_image = self.n["image_bytes"]
        image_args = '{"bytes":%d}' % size_image
        max_image = "%dM" % max(32, 2 * size_image // MIB)
        rows += self._payload("%.0f MiB image" % (size_image / MIB), ["--max-output", max_image],
                              lambda i: requests.call(i, "image", image_args),
                              lambda m: requests.image_size(m) == size_image, size_image, reps,
                              None, note="mcp_image; host run with --max-output %s" % max_image,
                              old_core=False)
        # A line of nested brackets under the default --max-line: refused (-32600) before
        # anything is built from it, so its cost is the line itself.
        size_nested = self.n["nested_bytes"]
        rows += self._payload("%.0f MiB nested line" % (size_nested / MIB), [],
                              lambda i: requests.nested(i, size_nested),
                              lambda m: (m.get("error") or {}).get("code") == -32600, size_nested, reps,
                              None, note="refused as nested too deeply", old_core=False)
        return rows

    def _payload(self, kind, options, make, ok, size, reps, floor, note="", floor_note="", old_core=True):
        rows = []
        subjects = [("host", lambda: self.host(*options), reps)]
        if self.oldcore_server and old_core:
            subjects.append(("old core", self.old, self.n["old_payload"]))
        for subject, start, n in subjects:
            s = start()
            times, fl, errors = [], [], 0
            try:
                s.round_trip(lambda i: requests.request(i, "server/discover"), timeout=120)
                idle = s.proc_status("VmRSS")
                cpu = CpuMeter(s)
                for _ in range(n):
                    t, msg = s.round_trip(make, timeout=300)
                    times.append(t)
                    errors += not ok(msg)
                    if subject == "host" and floor:
                        fl.append(floor())
                own, kids = cpu.split(n)
                peak = s.proc_status("VmHWM")
            finally:
                s.close()
            extra = {"idle_rss_kb": idle, "peak_rss_kb": peak, "payload_bytes": size}
            if peak is not None and idle is not None:
                extra["peak_over_idle_per_payload"] = (peak - idle) * 1024 / size
            split = "CPU/req: server %.0f ms + children %.0f ms" % (own / 1e6, kids / 1e6)
            rows.append(row("payload", kind, subject, times, errors, cpu_ns=own + kids,
                            note="; ".join(x for x in (split, note if subject == "host" else "") if x), **extra))
            if subject == "host" and floor:
                rows.append(row("payload", kind, "bash floor", [x.wall for x in fl], cpu_ns=[x.cpu for x in fl],
                                note=floor_note))
        return rows

    # ---- where the time of a trivial call goes ---------------------------------------------------

    def profile(self):
        """Interleaves host calls of tool_hi with ever larger pieces of such a call done by hand.

        Returns rows; the breakdown (differences of medians) is left in self.breakdown.
        """
        n = self.n["profile"]
        steps = self.floor.profile_steps()
        self.progress("  profile: %d host calls, each followed by the %d floor steps" % (n, len(steps)))
        make = lambda i: requests.call(i, "hi")
        host = self.host()
        samples = {label: [] for label, _ in steps}
        hw = []
        try:
            for _ in range(10):
                host.round_trip(make)
            self0, kids0 = host.cpu_ns()
            for i in range(n):
                hw.append(host.round_trip(make)[0])
                k = i % len(steps)
                for label, argv in steps[k:] + steps[:k]:
                    samples[label].append(self.floor.run(argv))
            self1, kids1 = host.cpu_ns()
        finally:
            host.close()
        host_cpu, kids_cpu = (self1 - self0) / n, (kids1 - kids0) / n
        kind = "tools/call hi, piece by piece"
        rows = [row("profile", kind, label, [s.wall for s in samples[label]], cpu_ns=[s.cpu for s in samples[label]])
                for label, _ in steps]
        rows.append(row("profile", kind, "host", hw, cpu_ns=host_cpu + kids_cpu,
                        note="CPU per call: host %.2f ms + its children %.2f ms" % (host_cpu / 1e6, kids_cpu / 1e6)))
        by = {r["subject"]: r for r in rows}
        labels = [label for label, _ in steps] + ["host"]
        parts = ["fork+exec+exit+reap of a process (/bin/true)", "bash start-up beyond that",
                 "sourcing the script", "running tool_hi", "host overhead (host call minus the floor above)"]
        self.breakdown = []
        for i, text in enumerate(parts):
            prev = by[labels[i - 1]] if i else {"median_ms": 0.0, "cpu_ms": 0.0}
            cur = by[labels[i]]
            self.breakdown.append({"part": text, "wall_ms": cur["median_ms"] - prev["median_ms"],
                                   "cpu_ms": cur["cpu_ms"] - prev["cpu_ms"]})
        self.breakdown.append({"part": "  of which the host process's own CPU", "wall_ms": None,
                               "cpu_ms": host_cpu / 1e6})
        self.breakdown.append({"part": "total: host tools/call round trip", "wall_ms": by["host"]["median_ms"],
                               "cpu_ms": by["host"]["cpu_ms"]})
        return rows
