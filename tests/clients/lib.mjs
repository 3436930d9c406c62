// Shared helpers for the client tests: where the host and the example tools are, a
// per-test sandbox that records each host process's stderr and audit log, and the
// expectations on tools/movies.sh that every client must see.
//
// Environment (set by tests/clients/CMakeLists.txt):
//   MCPSH_HOST  the mcp-shell-host binary under test
//   MCPSH_ROOT  the repository root (tools/movies.sh, tests/fixtures/basic.sh)
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const host = process.env.MCPSH_HOST;
export const root = process.env.MCPSH_ROOT;
if (!host || !root) {
  throw new Error('MCPSH_HOST and MCPSH_ROOT must be set (run these tests through ctest)');
}

// Environment variable that marks every process started for one sandbox: the host
// passes its environment on to discovery probes and tools, so a process left behind
// carries it even when it was re-parented and its command line names nothing of ours.
export const MARKER = 'MCPSH_CLIENT_TEST_SANDBOX';

// One client test's private directory, with copies of the example scripts in it
// (tools/movies.sh, tests/fixtures/basic.sh, tests/clients/steps.sh).
// Processes are ours when their environment has MARKER=<dir> (pass `box.env` to the
// client's server parameters) or their command line names the directory.
//
// `wrapper` is a command that execs the host (same pid, so the client's SIGTERM reaches
// the host itself) with MARKER set, stderr redirected to stderr-<pid>.txt and
// --audit-log audit-<pid>.jsonl. It exists because the v2 SDK discards the stderr of its
// `auto`/pinned probe process; through the wrapper every host process leaves its own record.
export function makeSandbox(prefix) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `mcpsh-${prefix}-`));
  const movies = path.join(dir, 'movies.sh');
  const basic = path.join(dir, 'basic.sh');
  fs.copyFileSync(path.join(root, 'tools', 'movies.sh'), movies);
  fs.copyFileSync(path.join(root, 'tests', 'fixtures', 'basic.sh'), basic);
  const steps = path.join(dir, 'steps.sh');
  fs.copyFileSync(fileURLToPath(new URL('./steps.sh', import.meta.url)), steps);
  const wrapper = path.join(dir, 'host.sh');
  const clients = [];
  fs.writeFileSync(
    wrapper,
    '#!/usr/bin/env bash\n' +
      `export ${MARKER}=${shellQuote(dir)}\n` +
      `exec ${shellQuote(host)} --audit-log ${shellQuote(dir)}/audit-$$.jsonl "$@" ` +
      `2>${shellQuote(dir)}/stderr-$$.txt\n`,
    { mode: 0o755 },
  );
  return {
    dir,
    env: { [MARKER]: dir },
    movies,
    basic,
    steps,
    wrapper,
    // pid -> { stderr: string, audit: object[] } for every host the wrapper started.
    hosts() {
      const out = new Map();
      for (const name of fs.readdirSync(dir)) {
        const m = /^(stderr|audit)-(\d+)\.(txt|jsonl)$/.exec(name);
        if (!m) continue;
        const pid = Number(m[2]);
        if (!out.has(pid)) out.set(pid, { stderr: '', audit: [] });
        const text = fs.readFileSync(path.join(dir, name), 'utf8');
        if (m[1] === 'stderr') out.get(pid).stderr = text;
        else out.get(pid).audit = parseJsonLines(text);
      }
      return out;
    },
    // Live processes of this sandbox: hosts, their warm bash processes and tools.
    processes() {
      return processesMatching(dir);
    },
    // Waits until no process of this sandbox is left; returns those left after `timeoutMs`.
    async leftovers(timeoutMs = 10000) {
      let left = processesMatching(dir);
      await waitFor(() => (left = processesMatching(dir)).length === 0, timeoutMs);
      return left;
    },
    // Registers a connected client for dispose(); returns it.
    track(client) {
      clients.push(client);
      return client;
    },
    // For `finally`: closes the tracked clients (a failed assertion must not leave a host
    // running, which would keep node alive until the ctest timeout), kills what is still
    // running from this sandbox (only our own processes: the directory is unique), and
    // removes the directory.
    async dispose() {
      for (const client of clients) await client.close().catch(() => {});
      for (const p of processesMatching(dir)) {
        try {
          process.kill(p.pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function readJsonLines(file) {
  return parseJsonLines(fs.readFileSync(file, 'utf8'));
}

function parseJsonLines(text) {
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

function shellQuote(s) {
  return `'${s.replaceAll("'", "'\\''")}'`;
}

// Live, non-zombie processes ({ pid, ppid, pgid, cmdline }) that belong to sandbox `dir`:
// its marker is in their environment or `dir` is in their command line.
export function processesMatching(dir) {
  const marker = `${MARKER}=${dir}\0`;
  const found = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      const environ = fs.readFileSync(`/proc/${entry}/environ`, 'utf8');
      if (!cmdline.includes(dir) && !environ.includes(marker)) continue;
      const { state, ppid, pgid } = statOf(entry);
      if (state === 'Z') continue;
      found.push({ pid: Number(entry), ppid, pgid, cmdline: cmdline.replaceAll('\0', ' ').trim() });
    } catch {
      // The process ended while we looked, or is not ours to read.
    }
  }
  return found;
}

// State, parent and process group of a process, from /proc/<pid>/stat.
function statOf(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const [state, ppid, pgid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { state, ppid: Number(ppid), pgid: Number(pgid) };
}

// The processes in `list` (from processesMatching) that are `pid` or descend from it,
// e.g. a live host and its warm bash processes and tools.
export function familyOf(pid, list) {
  const byPid = new Map(list.map((p) => [p.pid, p]));
  const inFamily = (p) => {
    for (let q = p, hops = 0; q && hops < 64; q = byPid.get(q.ppid), hops++) {
      if (q.pid === pid) return true;
    }
    return false;
  };
  return list.filter(inFamily);
}

// Polls `probe` until it returns a truthy value or `timeoutMs` passes (there is no
// event to wait on for "a process has gone"); returns the last value.
export async function waitFor(probe, timeoutMs = 10000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

// Log lines the host wrote at warning or error level (format: "<time> mcp-shell-host
// <level>: <text>"), plus any line that is not in that format at all.
export function problemLines(stderrText) {
  return stderrText
    .split('\n')
    .filter(Boolean)
    .filter((line) => !/^\S+ mcp-shell-host (info|debug): /.test(line));
}

// Shows a host's stderr in the test report, one diagnostic line per log line.
export function showStderr(t, label, text) {
  for (const line of text.split('\n').filter(Boolean)) t.diagnostic(`${label}: ${line}`);
}

// --- What every client must see from tools/movies.sh -------------------------------

export function textOf(result) {
  assert.ok(Array.isArray(result.content), `content is not an array: ${JSON.stringify(result)}`);
  return result.content
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('');
}

export function checkMoviesToolList(tools, { structured = true } = {}) {
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  assert.deepEqual(Object.keys(byName).sort(), ['book_tickets', 'check_age', 'list_movies']);
  const checkAge = byName.check_age;
  assert.equal(checkAge.inputSchema.type, 'object');
  assert.deepEqual([...checkAge.inputSchema.required].sort(), ['customerAge', 'movieId']);
  assert.equal(checkAge.inputSchema.properties.movieId.type, 'integer');
  assert.match(checkAge.description, /may watch a film/);
  assert.equal(checkAge.annotations.readOnlyHint, true);
  if (structured) {
    assert.equal(checkAge.title, 'Check age');
    assert.equal(byName.book_tickets.outputSchema.type, 'object');
  } else {
    assert.equal(checkAge.title, undefined, 'no title before 2025-06-18');
    assert.equal(byName.book_tickets.outputSchema, undefined, 'no outputSchema before 2025-06-18');
  }
}

export const AGE_OK = { movieId: 1, customerAge: 30 };
export const AGE_OK_TEXT = 'ok: a customer aged 30 may watch "Pip the Lighthouse Cat" (rated U)';
export const AGE_TOO_YOUNG = { movieId: 4, customerAge: 12 };
export const AGE_TOO_YOUNG_TEXT =
  'not allowed: "Night Shift" is rated 18, so customers must be at least 18 (customerAge was 12)';
export const BOOKING = { movieId: 2, showTime: '20:45', numTickets: 2, customerAge: 30 };

// Calls check_age with `args` (AGE_OK or AGE_TOO_YOUNG) through an SDK client.
export function callCheckAge(client, args) {
  return client.callTool({ name: 'check_age', arguments: args });
}

export function checkAgeOk(result) {
  assert.equal(textOf(result).trim(), AGE_OK_TEXT);
  assert.ok(!result.isError, `isError must be absent or false: ${JSON.stringify(result)}`);
}

export function checkAgeTooYoung(result) {
  assert.equal(textOf(result).trim(), AGE_TOO_YOUNG_TEXT);
  assert.equal(result.isError, true);
}

// book_tickets prints JSON; from 2025-06-18 on it is also structuredContent, which the
// SDK clients validate against the tool's outputSchema.
export function checkBooking(result, { structured = true } = {}) {
  assert.ok(!result.isError, `booking failed: ${JSON.stringify(result)}`);
  const booking = JSON.parse(textOf(result));
  assert.match(booking.bookingId, /^BK-2-2045-\d{4}$/);
  assert.equal(booking.totalPrice, '21.00');
  assert.equal(booking.numTickets, 2);
  if (structured) assert.deepEqual(result.structuredContent, booking);
  else assert.equal(result.structuredContent, undefined);
}

// --- The MCP Inspector's CLI -----------------------------------------------------------

// The Inspector's `mcp-inspector` bin (what `npx @modelcontextprotocol/inspector` runs).
function inspectorBin() {
  const url = new URL('./node_modules/@modelcontextprotocol/inspector/', import.meta.url);
  const dir = fileURLToPath(url);
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  return path.join(dir, pkg.bin['mcp-inspector']);
}

// Runs `mcp-inspector --cli --format json ARGS...` with HOME in the sandbox (so that its
// catalog and storage files stay there). Resolves to { code, stdout, stderr, json } where
// json is the parsed stdout, or undefined when stdout is empty.
export function runInspector(box, args, timeoutMs = 60000) {
  const argv = [inspectorBin(), '--cli', '--format', 'json', ...args];
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      argv,
      { env: { ...process.env, HOME: box.dir }, timeout: timeoutMs, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') {
          reject(new Error(`inspector did not finish (${error.message}); stderr: ${stderr}`));
          return;
        }
        let json;
        try {
          json = stdout.trim() ? JSON.parse(stdout) : undefined;
        } catch {
          reject(new Error(`inspector stdout is not JSON: ${stdout}`));
          return;
        }
        resolve({ code: error ? error.code : 0, stdout, stderr, json });
      },
    );
  });
}
