#!/usr/bin/env bash
# Fixture for the HTTP tests: a tool whose event stream is far larger than a client that
# does not read it can hold (tiny log lines become ~115-byte SSE events), then a sleeper.

# Logs about 95,000 one-letter messages (the channel's 1 MiB per call), then sleeps.
tool_chatter() {
  local i
  for ((i = 0; i < 100000; i++)); do mcp_log info x; done
  sleep 1000
}
