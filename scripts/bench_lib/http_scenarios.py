"""The HTTP measurements: load from wrk, sequential round trips against stdio, idle connections.

The host is started as `mcp-shell-host --http --listen 127.0.0.1:0 [options] SCRIPT` and
says its URL on stderr. The old core's peer is its own HTTP transport (mcpserver_http.sh
behind socat) serving a generated copy of the bench tools on a free port. Sequential
rows put stdio and HTTP in the same run, interleaved request by request, so the
difference of their medians is the cost of the transport on this machine at this load.
"""

import os
import resource
import shutil
import statistics
import time

from . import baselines, http_client, requests, wrk
from .client import ServerGone
from .scenarios import CpuMeter, row

STDIO, HTTP, OLD_HTTP = "host, stdio", "host, HTTP", "old core, HTTP"


def host_http_argv(host_bin, host_options, script, listen="127.0.0.1:0"):
    return [host_bin, "--http", "--listen", listen, *host_options, script]


def probe(host_bin, host_options, script, workdir):
    """None when the binary serves HTTP, else why not (the text for the user)."""
    try:
        http_client.HttpServer(host_http_argv(host_bin, host_options, script),
                               os.path.join(workdir, "http-probe.stderr"), start_timeout=30).close()
        return None
    except http_client.NoHttp as e:
        return str(e)


class HttpBench:
    def __init__(self, bench):
        """bench: the scenarios.Bench of this run (its stdio host, floor, counts, old core)."""
        self.b = bench
        self.n = bench.n
        self.progress = bench.progress
        self.old_script = None
        self.old_note = None
        if bench.oldcore_server:
            core = bench.old_core
            if not baselines.oldcore_http_transport(core):
                self.old_note = "no mcpserver_http.sh next to %s: the old core's HTTP is not measured" % core
            elif not shutil.which("socat"):
                self.old_note = "no socat on PATH (Debian package socat): the old core's HTTP is not measured"
            else:
                self.old_script = baselines.write_oldcore_server(bench.workdir, core, bench.script,
                                                                 bench.tools_list_json, http=True)

    # ---- servers ------------------------------------------------------------------------

    def host(self, *options):
        argv = host_http_argv(self.b.host_bin, self.b.host_options + list(options), self.b.script)
        return http_client.HttpServer(argv, os.path.join(self.b.workdir, "host-http.stderr"))

    def old(self):
        port = http_client.free_port()
        env = dict(os.environ, MCP_HTTP_BIND="127.0.0.1", MCP_HTTP_PORT=str(port), MCP_HTTP_PATH="/mcp")
        return http_client.HttpServer([baselines.BASH, self.old_script],
                                      os.path.join(self.b.workdir, "oldcore-http.stderr"),
                                      url="http://127.0.0.1:%d/mcp" % port, env=env, cwd=self.b.workdir)

    # ---- throughput and latency under load (wrk) ------------------------------------------

    def load(self):
        secs, runs = self.n["wrk_seconds"], self.n["wrk_runs"]
        configs = [(1, 1), (2, 16)]
        self.progress("  wrk tools/list: %d run(s) of %d s per configuration, host%s"
                      % (runs, secs, " and old core" if self.old_script else ""))
        script = wrk.write_script(os.path.join(self.b.workdir, "wrk-tools-list.lua"), "tools/list")
        rows = []
        subjects = [("host", self.host, runs, secs)]
        if self.old_script:
            subjects.append(("old core", self.old, 1, self.n["old_wrk_seconds"]))
        results = {}
        for subject, start, n, s in subjects:
            server = start()
            try:
                self._check_list(server)
                for threads, conns in configs:
                    results[(subject, conns)] = [wrk.run(server.url, script, threads, conns, s) for _ in range(n)]
            finally:
                server.close()
        for threads, conns in configs:
            kind = "tools/list, %d connection%s (wrk -t%d -c%d)" % (conns, "s" if conns > 1 else "", threads, conns)
            for subject, _, _, s in subjects:
                rows.append(self._load_row(kind, subject, results[(subject, conns)], s))
        return rows

    @staticmethod
    def _check_list(server):
        c = server.connection()
        try:
            _, resp = c.round_trip(http_client.request(server.url, 1, "tools/list"))
        finally:
            c.close()
        msg = resp.message()
        if resp.status != 200 or not (msg or {}).get("result", {}).get("tools"):
            raise ServerGone("tools/list over HTTP at %s: status %d, %r" % (server.url, resp.status, resp.body[:300]))

    @staticmethod
    def _load_row(kind, subject, runs, seconds):
        answered = [x for x in runs if x["requests"]]  # a run with no response has no latency
        med = lambda key, scale=1: statistics.median(x[key] for x in answered) / scale if answered else None
        r = {"section": "http-load", "kind": kind, "subject": subject, "n": len(runs),
             "requests": sum(x["requests"] for x in runs), "rps": med("rps"),
             "median_ms": med("p50_us", 1000), "p99_ms": med("p99_us", 1000),
             "errors": sum(x["errors"] for x in runs), "cpu_ms": None,
             "note": "%d run(s) of %d s; medians of the runs" % (len(runs), seconds)}
        if len(answered) < len(runs):
            r["note"] += "; %d run(s) with no response in time" % (len(runs) - len(answered))
        if subject == "old core":
            r["note"] += "; it closes each connection (wrk reconnects, connect time not in latency)"
        if subject == "host" and "16" in kind:
            r["note"] += "; goal >= 20,000 req/s"
        return r

    # ---- sequential round trips: HTTP against stdio in the same run -------------------------

    def round_trips(self):
        rows = []
        kinds = [
            ("tools/list", lambda i: requests.request(i, "tools/list"),
             lambda u, i: http_client.request(u, i, "tools/list"),
             lambda m: any(t.get("name") == "hi" for t in (m or {}).get("result", {}).get("tools", [])),
             self.n["http_list"]),
            ("tools/call hi", lambda i: requests.call(i, "hi"), lambda u, i: http_client.call(u, i, "hi"),
             lambda m: requests.tool_text(m or {}) == "hi", self.n["http_call"]),
        ]
        for kind, line, post, ok, n in kinds:
            self.progress("  %s: %d stdio and %d HTTP round trips interleaved, %d old-core HTTP"
                          % (kind, n, n, self.n["old_http"] if self.old_script else 0))
            rows += self._round_trip_kind(kind, line, post, ok, n)
        return rows

    def _round_trip_kind(self, kind, line, post, ok, n):
        stdio = self.b.host()
        http = self.host()
        old = self.old() if self.old_script else None
        conns = []
        try:
            hc = http.connection()
            conns.append(hc)
            oc = old.connection(timeout=120) if old else None
            if oc:
                conns.append(oc)
            ids = iter(range(1, 1 << 62))
            s_t, h_t, o_t = [], [], []

            def over_stdio(out):
                t, msg = stdio.round_trip(line)
                out.append((t, ok(msg)))

            def over_http(conn, out, url):
                t, resp = conn.round_trip(post(url, next(ids)))
                out.append((t, resp.status == 200 and ok(resp.message())))

            for _ in range(self.n["warmup"]):
                over_stdio([])
                over_http(hc, [], http.url)
            if oc:
                over_http(oc, [], old.url)
            old_every = max(1, n // self.n["old_http"])
            s_cpu, h_cpu = CpuMeter(stdio), CpuMeter(http)
            connects0 = hc.connects
            for i in range(n):
                steps = [lambda: over_stdio(s_t), lambda: over_http(hc, h_t, http.url)]
                if oc and i % old_every == 0 and len(o_t) < self.n["old_http"]:
                    steps.append(lambda: over_http(oc, o_t, old.url))
                k = i % len(steps)
                for step in steps[k:] + steps[:k]:
                    step()
            s_cpu, h_cpu = s_cpu.per_request(n), h_cpu.per_request(n)
            reconnects = hc.connects - connects0
        finally:
            for c in conns:
                c.close()
            stdio.close()
            http.close()
            if old:
                old.close()
        bad = lambda xs: sum(not good for _, good in xs)
        rows = [row("http-seq", kind, STDIO, [t for t, _ in s_t], bad(s_t), cpu_ns=s_cpu, ref=STDIO),
                row("http-seq", kind, HTTP, [t for t, _ in h_t], bad(h_t), cpu_ns=h_cpu, ref=STDIO,
                    note="one keep-alive connection" + (" (%d reconnects)" % reconnects if reconnects else "")
                    + ("; goal: within 0.3 ms of stdio" if kind.startswith("tools/call") else ""))]
        if old:
            rows.append(row("http-seq", kind, OLD_HTTP, [t for t, _ in o_t], bad(o_t), ref=STDIO,
                            note="%d requests; a new connection each (it closes them), connect time included"
                            % len(o_t)))
        return rows

    # ---- memory with many idle keep-alive connections ----------------------------------------

    def idle_connections(self):
        n = self.n["idle_conns"]
        self.progress("  %d idle keep-alive connections" % n)
        _raise_fd_limit(n + 256)  # for this process's sockets and the host's (it inherits it)
        host = self.host()
        conns, ok, errors = [], 0, []
        try:
            first = host.connection(timeout=30)
            conns.append(first)
            for i in range(20):  # the allocator and the script's tools/list are warm
                first.round_trip(http_client.request(host.url, i + 1, "tools/list"))
            before = host.proc_status("VmRSS")
            for i in range(n):
                c = host.connection(timeout=30)
                conns.append(c)
                try:
                    c.send(http_client.request(host.url, i + 1, "tools/list"))
                except OSError as e:
                    errors.append("connect/send: %s" % e)
            deadline = time.monotonic() + 60
            for c in conns[1:]:
                if c.sock is None:
                    continue
                c.sock.settimeout(max(0.1, deadline - time.monotonic()))
                try:
                    resp, _ = c.read_response()
                    ok += resp.status == 200 and c.sock is not None  # answered and kept alive
                    if resp.status != 200:
                        errors.append("status %d" % resp.status)
                except (OSError, ServerGone) as e:
                    errors.append(str(e))
            during = host.proc_status("VmRSS")
        finally:
            for c in conns:
                c.close()
            host.close()
        per = (during - before) / ok if ok and during is not None and before is not None else None
        note = "each sent one tools/list, read its answer, stays open"
        if errors:
            note += "; first failure: %s" % errors[0]
        return [{"section": "http-idle", "kind": "%d idle keep-alive connections" % n, "subject": "host",
                 "n": ok, "errors": n - ok, "idle_rss_kb": before, "rss_kb": during, "per_conn_kb": per,
                 "median_ms": None, "cpu_ms": None, "note": note}]


def _raise_fd_limit(want):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < want:
        target = want if hard == resource.RLIM_INFINITY else min(want, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))

