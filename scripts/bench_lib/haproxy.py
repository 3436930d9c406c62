"""Throughput behind HAProxy (Debian package haproxy): does the host scale out?

Three hosts serve the bench tools over HTTP (`--http --listen 127.0.0.1:0`). Two HAProxy
processes run side by side: one balances onto the first host alone, one onto all three
(balance roundrobin, /readyz health checks, the drain-safe retry settings of
tests/clients/scale_out.test.mjs, where the reasoning is). wrk loads tools/list and a
trivial tools/call (tool_hi) with the request bodies and headers of the HTTP section
(wrk.write_script) through each HAProxy, and straight to the first host: the baseline.
Runs alternate between the subjects (their order rotates from run to run), so each sees
the same machine load; the medians of the runs are reported.

Besides throughput and latency, each row has the CPU spent per request by the hosts (all
three, with the tool processes they reaped) and by HAProxy, and for three hosts the share
of the requests each host answered (its mcpsh_requests_total, from /metrics).
"""

import os
import re
import shutil
import socket
import statistics
import subprocess
import time
import urllib.parse
import urllib.request

from . import http_client, requests, wrk
from .client import ServerGone, cpu_ns

DIRECT, ONE, THREE = "host, direct", "HAProxy, 1 host", "HAProxy, 3 hosts"
THREADS, CONNECTIONS = 2, 16

_CONFIG = """# Written by scripts/bench (bench_lib/haproxy.py); the settings are those of
# tests/clients/scale_out.test.mjs, whose comments say why.
global
  stats socket %(socket)s mode 600 level admin

defaults
  mode http
  timeout connect 2s
  timeout client 60s
  timeout server 70s
  timeout check 2s
  retries 3
  option redispatch 1
  retry-on conn-failure empty-response 503

frontend mcp
  bind 127.0.0.1:%(port)d
  default_backend hosts

backend hosts
  balance roundrobin
  option httpchk GET /readyz
  http-check expect status 200
  default-server check inter 1s fall 1 rise 1
%(servers)s
"""


def find_haproxy():
    """The haproxy binary: on PATH, or where Debian installs it (/usr/sbin)."""
    found = shutil.which("haproxy")
    if found:
        return found
    for candidate in ("/usr/sbin/haproxy", "/usr/local/sbin/haproxy"):
        if os.access(candidate, os.X_OK):
            return candidate
    return None


class Haproxy:
    """One `haproxy -db -f CFG` process in front of `urls` (the hosts' MCP endpoints)."""

    def __init__(self, binary, workdir, name, urls):
        self.name = name
        self.socket = os.path.join(workdir, "haproxy-%s.sock" % name)
        self.port = http_client.free_port()
        self.servers = ["h%d" % (i + 1) for i in range(len(urls))]
        cfg = os.path.join(workdir, "haproxy-%s.cfg" % name)
        lines = ["  server %s %s" % (s, urllib.parse.urlsplit(u).netloc) for s, u in zip(self.servers, urls)]
        with open(cfg, "w") as f:
            f.write(_CONFIG % {"socket": self.socket, "port": self.port, "servers": "\n".join(lines)})
        self.path = urllib.parse.urlsplit(urls[0]).path
        self.url = "http://127.0.0.1:%d%s" % (self.port, self.path)
        self.log = os.path.join(workdir, "haproxy-%s.log" % name)
        with open(self.log, "ab") as out:
            self.proc = subprocess.Popen([binary, "-db", "-f", cfg], stdin=subprocess.DEVNULL, stdout=out,
                                         stderr=out, start_new_session=True)
        self.pid = self.proc.pid

    def stat(self):
        """`show stat` as one dict per line, keyed by the CSV's header."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(5)
            s.connect(self.socket)
            s.sendall(b"show stat\n")
            data = b""
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
        lines = [line for line in data.decode().split("\n") if line]
        keys = lines[0].lstrip("# ").split(",")
        return [dict(zip(keys, line.split(","))) for line in lines[1:]]

    def wait_up(self, timeout=30):
        """Until every server is UP after a good check; raises RuntimeError otherwise."""
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("haproxy (%s) exited with status %s: %s"
                                   % (self.name, self.proc.returncode, open(self.log).read()[-1000:]))
            try:
                rows = {r["svname"]: r for r in self.stat() if r.get("pxname") == "hosts"}
                last = {s: (rows[s]["status"], rows[s]["check_status"]) for s in self.servers if s in rows}
                if all(last.get(s) == ("UP", "L7OK") for s in self.servers):
                    return
            except (OSError, IndexError, KeyError):
                pass
            time.sleep(0.05)
        raise RuntimeError("haproxy (%s): not every server UP within %d s: %s" % (self.name, timeout, last))

    def close(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.proc.wait()


def requests_answered(url):
    """The sum of a host's mcpsh_requests_total (GET /metrics on its listener)."""
    u = urllib.parse.urlsplit(url)
    with urllib.request.urlopen("%s://%s/metrics" % (u.scheme, u.netloc), timeout=10) as r:
        text = r.read().decode()
    return sum(float(m.group(1)) for m in re.finditer(r"^mcpsh_requests_total\{[^}]*\} (\S+)$", text, re.M))


class HaproxyBench:
    def __init__(self, bench, binary):
        """bench: the scenarios.Bench of this run; binary: haproxy."""
        self.b = bench
        self.binary = binary
        self.n = bench.n
        self.progress = bench.progress

    def _host(self, i):
        argv = [self.b.host_bin, "--http", "--listen", "127.0.0.1:0", *self.b.host_options, self.b.script]
        return http_client.HttpServer(argv, os.path.join(self.b.workdir, "host-haproxy-%d.stderr" % i))

    def run(self):
        secs, runs = self.n["wrk_seconds"], self.n["wrk_runs"]
        workdir = self.b.workdir
        kinds = [
            ("tools/list", wrk.write_script(os.path.join(workdir, "wrk-haproxy-list.lua"), "tools/list"),
             lambda u, i: http_client.request(u, i, "tools/list"),
             lambda m: requests.listed(m, "tools", "hi")),
            ("tools/call hi", wrk.write_script(os.path.join(workdir, "wrk-haproxy-call.lua"), "tools/call",
                                               '"name":"hi","arguments":{}', name="hi"),
             lambda u, i: http_client.call(u, i, "hi"),
             lambda m: (requests.tool_text(m) or "").rstrip("\n") == "hi"),
        ]
        self.progress("  wrk -t%d -c%d: %d run(s) of %d s per request kind and subject (%s), alternating"
                      % (THREADS, CONNECTIONS, runs, secs, "; ".join((DIRECT, ONE, THREE))))
        hosts, proxies = [], []
        try:
            for i in range(3):
                hosts.append(self._host(i))
            proxies = [Haproxy(self.binary, workdir, "one", [hosts[0].url]),
                       Haproxy(self.binary, workdir, "three", [h.url for h in hosts])]
            for p in proxies:
                p.wait_up()
            subjects = [(DIRECT, hosts[0].url, None), (ONE, proxies[0].url, proxies[0]),
                        (THREE, proxies[1].url, proxies[1])]
            for _, url, _ in subjects:
                for kind, _, post, ok in kinds:
                    self._check(url, kind, post, ok)
            results = {}
            shares = {kind: [0.0] * len(hosts) for kind, _, _, _ in kinds}
            for r in range(runs):
                for kind, script, _, _ in kinds:
                    k = r % len(subjects)
                    for subject, url, proxy in subjects[k:] + subjects[:k]:
                        before = [requests_answered(h.url) for h in hosts] if subject == THREE else None
                        cpu0 = self._cpu(hosts, proxy)
                        res = wrk.run(url, script, THREADS, CONNECTIONS, secs)
                        cpu1 = self._cpu(hosts, proxy)
                        res["host_cpu_ns"] = cpu1[0] - cpu0[0]
                        res["proxy_cpu_ns"] = cpu1[1] - cpu0[1] if proxy else None
                        if before is not None:
                            after = [requests_answered(h.url) for h in hosts]
                            for i, (a, b) in enumerate(zip(after, before)):
                                shares[kind][i] += a - b
                        results.setdefault((kind, subject), []).append(res)
        finally:
            for p in proxies:
                p.close()
            for h in hosts:
                h.close()
        rows = []
        for kind, _, _, _ in kinds:
            direct = None
            for subject, _, _ in subjects:
                row = self._row(kind, subject, results[(kind, subject)], secs)
                if subject == DIRECT:
                    direct = row
                elif direct and direct["rps"] and row["rps"]:
                    row["x_direct"] = row["rps"] / direct["rps"]
                if subject == THREE:
                    total = sum(shares[kind])
                    if total:
                        row["note"] += "; each host's share %s" % "/".join(
                            "%.0f%%" % (100 * s / total) for s in shares[kind])
                rows.append(row)
        return rows

    @staticmethod
    def _cpu(hosts, proxy):
        """(CPU ns of the hosts and the children they reaped, CPU ns of HAProxy's threads)."""
        host = sum(sum(h.cpu_ns()) for h in hosts)
        return host, cpu_ns(proxy.pid)[0] if proxy else 0

    @staticmethod
    def _check(url, kind, post, ok):
        c = http_client.Connection(url, timeout=30)
        try:
            _, resp = c.round_trip(post(url, 1))
        finally:
            c.close()
        if resp.status != 200 or not ok(resp.message()):
            raise ServerGone("%s at %s: status %d, %r" % (kind, url, resp.status, resp.body[:300]))

    @staticmethod
    def _row(kind, subject, runs, seconds):
        answered = [x for x in runs if x["requests"]]

        def med(key, scale=1):
            vals = [x[key] for x in answered if x.get(key) is not None]
            return statistics.median(vals) / scale if vals else None

        per_request = lambda key: (statistics.median(x[key] / x["requests"] for x in answered) / 1e6
                                   if answered and answered[0].get(key) is not None else None)
        note = "%d run(s) of %d s; medians of the runs" % (len(runs), seconds)
        if len(answered) < len(runs):
            note += "; %d run(s) with no response in time" % (len(runs) - len(answered))
        return {"section": "haproxy", "kind": "%s (wrk -t%d -c%d)" % (kind, THREADS, CONNECTIONS),
                "subject": subject, "n": len(runs), "requests": sum(x["requests"] for x in runs),
                "rps": med("rps"), "median_ms": med("p50_us", 1000), "p99_ms": med("p99_us", 1000),
                "host_cpu_ms": per_request("host_cpu_ns"), "proxy_cpu_ms": per_request("proxy_cpu_ns"),
                "errors": sum(x["errors"] for x in runs), "cpu_ms": None, "x_direct": None, "note": note}
