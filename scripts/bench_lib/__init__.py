"""Helpers of scripts/bench: a stdio JSON-RPC client, the baselines, the scenarios, the report."""
