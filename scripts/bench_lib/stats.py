"""Summaries of latency samples (nanoseconds in, milliseconds out)."""

import statistics


def quantile(values, q):
    """The q-quantile by linear interpolation between closest ranks (q in [0, 1])."""
    if not values:
        return None
    s = sorted(values)
    pos = (len(s) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def summarize(samples_ns):
    """{n, median_ms, p90_ms, p99_ms, max_ms, rps}: rps is sequential throughput, n / sum of
    latencies."""
    if not samples_ns:
        return {"n": 0, "median_ms": None, "p90_ms": None, "p99_ms": None, "max_ms": None, "rps": None}
    total = sum(samples_ns)
    return {
        "n": len(samples_ns),
        "median_ms": statistics.median(samples_ns) / 1e6,
        "p90_ms": quantile(samples_ns, 0.9) / 1e6,
        "p99_ms": quantile(samples_ns, 0.99) / 1e6,
        "max_ms": max(samples_ns) / 1e6,
        "rps": len(samples_ns) / (total / 1e9) if total > 0 else None,
    }


def median_or_none(values):
    return statistics.median(values) if values else None
