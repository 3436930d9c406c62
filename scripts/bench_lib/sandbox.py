"""The per-call cost of each sandbox level (ADR 0012): one host per level, all started
side by side, and tools/call of tool_hi sent to them in turn, request by request, so that
every level sees the same load. Twice: with warm processes (the default; the sandbox is
applied when the process is started ahead, off the call's path) and with --warm 0 (every
call forks, builds its Landlock rulesets and applies them on the path; under isolate also
starts bwrap, which makes the namespaces, and the host's binary inside, which applies the
rest)."""

import os

from . import requests
from .scenarios import row

LEVELS = [
    ("none", []),
    ("no-network", ["--sandbox", "no-network"]),
    ("read-only", ["--sandbox", "read-only"]),
    ("read-only,no-network", ["--sandbox", "read-only,no-network"]),
    ("read-only,no-network,read=", ["--sandbox", "read-only,no-network,read={workdir}"]),
    # ADR 0017: through bwrap and the host's binary inside its namespaces.
    ("isolate", ["--sandbox", "isolate"]),
    ("read-only,no-network,procs=512", ["--sandbox", "read-only,no-network,procs=512"]),
]


class SandboxBench:
    def __init__(self, bench, calls):
        self.bench = bench
        self.calls = calls

    def run(self):
        rows = []
        for warm in (True, False):
            kind = "tools/call hi, " + ("warm processes" if warm else "--warm 0")
            rows += self._level_rows(kind, [] if warm else ["--warm", "0"])
        return rows

    def _level_rows(self, kind, extra):
        b = self.bench
        hosts = []
        try:
            for name, options in LEVELS:
                options = [o.replace("{workdir}", b.workdir) for o in options]
                hosts.append((name, b.host(*extra, *options)))
            ok = lambda m: (requests.tool_text(m) or "").rstrip("\n") == "hi"
            for _ in range(b.n["warmup"]):
                for _, h in hosts:
                    h.round_trip(lambda i: requests.call(i, "hi"))
            samples = {name: [] for name, _ in hosts}
            errors = {name: 0 for name, _ in hosts}
            for i in range(self.calls):
                k = i % len(hosts)
                for name, h in hosts[k:] + hosts[:k]:
                    t, msg = h.round_trip(lambda j: requests.call(j, "hi"))
                    samples[name].append(t)
                    errors[name] += not ok(msg)
            rows = []
            for name, _ in hosts:
                subject = "host" if name == "none" else "host --sandbox " + name
                note = "interleaved with the other levels" if name == "none" else ""
                rows.append(row("sandbox", kind, subject, samples[name], errors[name], note=note,
                                **({} if name == "none" else {"ref": "host"})))
            return rows
        finally:
            for _, h in hosts:
                h.close()
