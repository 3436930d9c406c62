"""The readable table. Ratios compare medians of the same request kind in the same run:
  x floor = this median / the bash floor median   (1.00 = as fast as spawning a shell)
  x host  = this median / the host median          (the old core's 'times slower')
HTTP rows compare with their own reference: x stdio and +stdio ms against the host over
stdio in the same run; the wrk rows' x host compares throughput (host req/s / this req/s).
CPU ms/req is the mean user+system CPU per request (server plus the children it reaped).
"""

import math

SECTIONS = [
    ("sequential", "Sequential requests (one in flight; client round trip over pipes)"),
    ("startup", "Start-up: spawn the server, send server/discover, until the response"),
    ("edit", "A tools/call right after the script changed on disk"),
    ("reload", "Live reload: requests back to back while a folder of scripts reloads (one in flight)"),
    ("concurrency", "Concurrency: calls written at once, wall time until the last response"),
    ("payload", "Large payloads (peak RSS = VmHWM of the server process)"),
    ("profile", "Where the time of a trivial tools/call goes (floor steps interleaved with host calls)"),
    ("sandbox", "Sandbox levels: one host each, tools/call hi sent to them in turn (ADR 0012)"),
    ("http-load", "HTTP under load: wrk, keep-alive connections, POSTs with the modern headers"),
    ("http-seq", "HTTP against stdio: sequential round trips, one in flight, interleaved in the same run"),
    ("http-idle", "HTTP idle connections: host VmRSS before and with them open"),
    ("haproxy", "Behind HAProxy (balance roundrobin): wrk through HAProxy onto 1 and 3 hosts, and straight to one"),
]


def _ms(v):
    if v is None:
        return "-"
    return "%.3f" % v if v < 10 else "%.1f" % v if v < 1000 else "%.0f" % v


def _num(v):
    if v is None:
        return "-"
    return "%.0f" % v if v >= 100 else "%.1f" % v


def _ratio(v):
    if v is None:
        return "-"
    return "%.3fx" % v if v < 0.1 else "%.2fx" % v if v < 100 else "%.0fx" % v


def _mib(kb):
    return "-" if kb is None else "%.1f" % (kb / 1024)


def _per(v):
    return "-" if v is None else "%.2f" % v


COLUMNS = {
    "sandbox": [("n", lambda r: str(r["n"])), ("median ms", lambda r: _ms(r["median_ms"])),
                ("p90 ms", lambda r: _ms(r["p90_ms"]))],
    "sequential": [("n", lambda r: str(r["n"])), ("median ms", lambda r: _ms(r["median_ms"])),
                   ("p90 ms", lambda r: _ms(r["p90_ms"])), ("p99 ms", lambda r: _ms(r.get("p99_ms"))),
                   ("req/s", lambda r: _num(r["rps"]))],
    "startup": [("n", lambda r: str(r["n"])), ("median ms", lambda r: _ms(r["median_ms"])),
                ("p90 ms", lambda r: _ms(r["p90_ms"])),
                ("idle RSS MiB", lambda r: _mib(r.get("idle_rss_kb")))],
    "edit": [("n", lambda r: str(r["n"])), ("median ms", lambda r: _ms(r["median_ms"])),
             ("p90 ms", lambda r: _ms(r["p90_ms"]))],
    "concurrency": [("bursts", lambda r: str(r["n"])), ("calls", lambda r: str(r["calls"])),
                    ("median wall ms", lambda r: _ms(r["median_ms"])),
                    ("p90 wall ms", lambda r: _ms(r["p90_ms"])), ("calls/s", lambda r: _num(r["rps"]))],
    "payload": [("n", lambda r: str(r["n"])), ("median ms", lambda r: _ms(r["median_ms"])),
                ("p90 ms", lambda r: _ms(r["p90_ms"])),
                ("idle RSS MiB", lambda r: _mib(r.get("idle_rss_kb"))),
                ("peak RSS MiB", lambda r: _mib(r.get("peak_rss_kb"))),
                ("(peak-idle)/payload", lambda r: _per(r.get("peak_over_idle_per_payload")))],
    "reload": [("n", lambda r: str(r["n"])), ("median ms", lambda r: _ms(r["median_ms"])),
               ("p99 ms", lambda r: _ms(r.get("p99_ms"))), ("max ms", lambda r: _ms(r.get("max_ms")))],
    "profile": [("n", lambda r: str(r["n"])), ("median ms", lambda r: _ms(r["median_ms"])),
                ("p90 ms", lambda r: _ms(r["p90_ms"]))],
    "http-load": [("runs", lambda r: str(r["n"])), ("requests", lambda r: str(r["requests"])),
                  ("req/s", lambda r: _num(r["rps"])), ("p50 ms", lambda r: _ms(r["median_ms"])),
                  ("p99 ms", lambda r: _ms(r["p99_ms"]))],
    "http-seq": [("n", lambda r: str(r["n"])), ("median ms", lambda r: _ms(r["median_ms"])),
                 ("p90 ms", lambda r: _ms(r["p90_ms"])), ("req/s", lambda r: _num(r["rps"]))],
    "haproxy": [("runs", lambda r: str(r["n"])), ("requests", lambda r: str(r["requests"])),
                ("req/s", lambda r: _num(r["rps"])), ("p50 ms", lambda r: _ms(r["median_ms"])),
                ("p99 ms", lambda r: _ms(r["p99_ms"])), ("host CPU ms/req", lambda r: _ms(r.get("host_cpu_ms"))),
                ("HAProxy CPU ms/req", lambda r: _ms(r.get("proxy_cpu_ms")))],
    "http-idle": [("answered", lambda r: str(r["n"])), ("idle RSS MiB", lambda r: _mib(r.get("idle_rss_kb"))),
                  ("RSS with them MiB", lambda r: _mib(r.get("rss_kb"))),
                  ("KiB/connection", lambda r: _num(r.get("per_conn_kb")))],
}


def _signed_ms(v):
    return "-" if v is None else ("+" if v >= 0 else "-") + _ms(abs(v))


# The columns after a section's own ones; the default compares with the floor and the host.
TRAILING = {
    "http-load": [("x host", lambda r: _ratio(r.get("x_host")))],
    "http-seq": [("CPU ms/req", lambda r: _ms(r.get("cpu_ms"))), ("x stdio", lambda r: _ratio(r.get("x_ref"))),
                 ("+stdio ms", lambda r: _signed_ms(r.get("minus_ref_ms")))],
    "http-idle": [],
    "haproxy": [("x direct", lambda r: _ratio(r.get("x_direct")))],
    "reload": [],
    "sandbox": [("x none", lambda r: _ratio(r.get("x_ref"))),
                ("+ms vs none", lambda r: _signed_ms(r.get("minus_ref_ms")))],
}


def add_ratios(rows):
    """Sets x_floor and x_host on every row, from rows of the same section and kind."""
    by_kind = {}
    for r in rows:
        by_kind.setdefault((r["section"], r["kind"]), {})[r["subject"]] = r
    for r in rows:
        peers = by_kind[(r["section"], r["kind"])]
        r["x_floor"] = _div(r, peers.get("bash floor"))
        r["x_host"] = _div(r, peers.get("host"))
        if r["section"] == "http-load" and peers.get("host") and r.get("rps"):
            r["x_host"] = peers["host"]["rps"] / r["rps"]
        ref = peers.get(r.get("ref"))
        if ref is not None:
            r["x_ref"] = _div(r, ref)
            if r.get("median_ms") is not None and ref.get("median_ms") is not None:
                r["minus_ref_ms"] = r["median_ms"] - ref["median_ms"]


def goals(rows):
    """Lines that hold the figures of the speed goals against them (empty when not measured)."""
    host = {(r["section"], r["kind"], r["subject"]): r for r in rows}
    out = []
    lists = [(k, host.get(("sequential", k, "host"))) for k in
             ("tools/list", "resources/list", "resources/templates/list", "prompts/list")]
    lists = [(k, r) for k, r in lists if r and r.get("median_ms") is not None]
    if lists:
        out.append("Goal: lists <= 0.2 ms (median round trip): " + ", ".join(
            "%s %s ms%s" % (k, _ms(r["median_ms"]), "" if r["median_ms"] <= 0.2 else " (over)") for k, r in lists))
    reload = {r["subject"]: r for r in rows if r["section"] == "reload"}
    quiet = reload.get("no reload")
    for name in ("one script edited", "every script rewritten"):
        during, swap, took, logged = (reload.get(k + ", " + name) for k in
                                      ("during a reload", "in flight at the swap", "host", "host loop"))
        if not during or during.get("max_ms") is None:
            continue
        verdict = "met" if during["max_ms"] <= 1.0 else "NOT met"
        out.append("Goal: no request delayed by more than 1 ms during a reload (%s): %s."
                   % (name, verdict))
        out.append("  Slowest %s ms (p99 %s ms); without reloads slowest %s ms (p99 %s ms)."
                   % (_ms(during["max_ms"]), _ms(during.get("p99_ms")), _ms(quiet and quiet.get("max_ms")),
                      _ms(quiet and quiet.get("p99_ms"))))
        if quiet and quiet.get("n") and took and took.get("n"):
            out.append("  Over 1 ms: %d of %d requests during these reloads (%.2f%%, %.1f per reload); %.2f%% without."
                       % (during["over_1ms"], during["n"], 100.0 * during["over_1ms"] / during["n"],
                          during["over_1ms"] / took["n"], 100.0 * quiet["over_1ms"] / quiet["n"]))
        out += _by_phase((took or {}).get("per_reload", []), quiet)
        causes = (quiet or {}).get("slow_causes")
        if causes is not None:
            for label in (name, "no reload"):
                c = causes.get(label, {})
                total = sum(c.values())
                out.append("  What held up the requests over 1 ms %s (scheduler trace, --trace): %s."
                           % ("during these reloads" if label == name else "without reloads",
                              ", ".join("%s %d%%" % (k, round(100.0 * v / total))
                                        for k, v in sorted(c.items(), key=lambda kv: -kv[1])) or "none"))
        out.append("  The request in flight at the swap: median %s ms, slowest %s ms; a reload took %s ms"
                   % (_ms(swap and swap.get("median_ms")), _ms(swap and swap.get("max_ms")),
                      _ms(took and took.get("median_ms"))))
        out.append("  (median, write to list_changed, %d reloads)." % (took["n"] if took else 0))
        if took and took.get("slowest_median_ms") is not None:
            out.append("  The slowest request of a reload (median over reloads %s ms) was sent %s ms after the write"
                       % (_ms(took["slowest_median_ms"]), _ms(took["slowest_sent_after_write_ms"])))
            out.append("  (median; the host's debounce is 50 ms, the probes take most of a reload's time).")
        if logged and logged.get("max_ms") is not None:
            out.append("  The swap itself, timed by the host: median %s ms, slowest %s ms of the loop (%d swaps)%s."
                       % (_ms(logged["median_ms"]), _ms(logged["max_ms"]), logged["n"],
                          "" if logged["max_ms"] <= 1.0 else " (over 1 ms)"))
    return out


def _by_phase(per_reload, quiet):
    """Lines: the requests over 1 ms by the phase of the reload they fell in, each phase's
    share against the share without reloads, and how many more than that share predicts
    (with its Poisson standard deviation): a phase within about two of it delays requests
    no more than the machine does without any reload."""
    slow = [d.get("over_1ms_by_phase") for d in per_reload]
    sent = [d.get("requests_by_phase") for d in per_reload]
    if not slow or not all(slow) or not all(sent):
        return []
    out = ["  Of those, by the phase of the reload they fell in (host's log): " + ", ".join(
        "%s %d" % (phase, sum(p[phase] for p in slow)) for phase in slow[0]) + "."]
    if not quiet or not quiet.get("n"):
        return out
    rate = quiet["over_1ms"] / quiet["n"]
    parts = []
    for phase in slow[0]:
        n, k = sum(p[phase] for p in sent), sum(p[phase] for p in slow)
        if n:
            expected = rate * n
            parts.append("%s %d of %d (%.2f%%, %+.1f on %.1f expected, sd %.1f)"
                         % (phase, k, n, 100.0 * k / n, k - expected, expected, math.sqrt(expected)))
    out.append("  Per phase against the %.2f%% without reloads: %s." % (100.0 * rate, "; ".join(parts)))
    return out


def _div(r, base):
    if base is None or not base.get("median_ms") or r.get("median_ms") is None:
        return None
    return r["median_ms"] / base["median_ms"]


def render_breakdown(parts):
    out = ["", "  Breakdown (differences of medians; wall time includes waiting for a CPU):",
           "  %-52s %9s %9s" % ("part", "wall ms", "CPU ms")]
    for p in parts:
        out.append("  %-52s %9s %9s" % (p["part"], _ms(p["wall_ms"]), _ms(p["cpu_ms"])))
    return out


def render(machine, rows, notes, breakdown=None):
    out = []
    out.append("mcp-shell-host benchmark")
    for k, v in machine.items():
        out.append("  %-16s %s" % (k + ":", v))
    for section, title in SECTIONS:
        srows = [r for r in rows if r["section"] == section]
        if not srows:
            continue
        trailing = TRAILING.get(section, [
            ("CPU ms/req" if section != "concurrency" else "CPU ms/call", lambda r: _ms(r.get("cpu_ms"))),
            ("x floor", lambda r: _ratio(r.get("x_floor"))), ("x host", lambda r: _ratio(r.get("x_host")))])
        cols = [("request kind", None), ("subject", None)] + COLUMNS[section] + trailing + \
               [("errors", lambda r: str(r["errors"]) if r["errors"] else ""), ("note", lambda r: r["note"])]
        table = []
        last_kind = None
        for r in srows:
            cells = [r["kind"] if r["kind"] != last_kind else "", r["subject"]]
            cells += [f(r) for _, f in cols[2:]]
            last_kind = r["kind"]
            table.append(cells)
        widths = [max(len(h), *(len(c[i]) for c in table)) for i, (h, _) in enumerate(cols)]
        out.append("")
        out.append(title)
        line = lambda cells: "  " + "  ".join(
            c.ljust(w) if i < 2 or i == len(cols) - 1 else c.rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths))).rstrip()
        out.append(line([h for h, _ in cols]))
        out.append("  " + "-" * (sum(widths) + 2 * (len(widths) - 1)))
        for i, cells in enumerate(table):
            if i and cells[0]:
                out.append("")
            out.append(line(cells))
        if section == "profile" and breakdown:
            out.extend(render_breakdown(breakdown))
    out.append("")
    out.append("x floor = median / median of the bash floor of the same kind; "
               "x host = median / median of the host.")
    out.append("CPU ms/req = mean user+system CPU per request: of the server and the children it reaped")
    out.append("(tool processes, jq), or of the spawned floor process; it depends little on the load.")
    out.extend(notes)
    goal_lines = goals(rows)
    if goal_lines:
        out.append("")
        out.extend(goal_lines)
    return "\n".join(out)
