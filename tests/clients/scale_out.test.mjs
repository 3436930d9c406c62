// Scale-out behind HAProxy (Debian's package haproxy): three `mcp-shell-host --http`
// instances that share one --state-key-file, behind `balance roundrobin` with /readyz
// health checks, and a real client (the TypeScript SDK v2, pinned to 2026-07-28, every
// request a POST) that talks to HAProxy only. Asserted, step by step:
//   a. HAProxy's checks see all three UP;
//   b. tools/list through HAProxy lists the three tools of scale.sh;
//   c. trivial calls all come back right and every instance served some (audit logs);
//   d. an input_required round whose retry another instance serves (the shared key opens
//      the requestState there); a second set-up without the shared key gets -32602;
//   e. SIGTERM to one instance under load: slow calls running on it finish (it drains),
//      it exits 0, HAProxy takes it out of the rotation, and no call is lost or fails,
//      neither the slow ones nor those sent while it stops.
// The HAProxy settings that make (e) hold, and why, are in the comments of haproxyConfig().
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import test from 'node:test';
import { fileURLToPath } from 'node:url';

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

import * as lib from './lib.mjs';

const T = { timeout: 90000 };
const MODERN = '2026-07-28';
const CLIENT = { name: 'scale-out-test', version: '1.0.0' };
const TOOLS = ['confirm_echo', 'echo', 'slow'];

// HAProxy on PATH or where Debian installs it (/usr/sbin is not on every user's PATH).
function findHaproxy() {
  const dirs = (process.env.PATH ?? '').split(':').filter(Boolean);
  for (const dir of [...dirs, '/usr/sbin', '/usr/local/sbin']) {
    const candidate = path.join(dir, 'haproxy');
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // Not there.
    }
  }
  return null;
}

// Polls the async `probe` until it returns a truthy value; fails naming `what` after
// `timeoutMs`.
async function until(what, probe, timeoutMs = 15000) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    last = await probe();
    if (last) return last;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

// A port free right now on 127.0.0.1, for HAProxy's frontend (it cannot report the port
// it picked for `:0`).
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function exitOf(child) {
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
}

// The sandbox of one set-up: the fixture, the state key and the marks folder.
function makeBox(prefix) {
  const box = lib.makeSandbox(prefix);
  const script = path.join(box.dir, 'scale.sh');
  fs.copyFileSync(fileURLToPath(new URL('./scale.sh', import.meta.url)), script);
  const marks = path.join(box.dir, 'marks');
  fs.mkdirSync(marks);
  const keyFile = path.join(box.dir, 'state.key');
  fs.writeFileSync(keyFile, crypto.randomBytes(48), { mode: 0o600 });
  return { box, script, marks, keyFile };
}

// Starts `mcp-shell-host --http` on a free port; resolves once it logs its address.
async function startHost(setup, name, { sharedKey = true } = {}) {
  const { box, script, marks, keyFile } = setup;
  const auditFile = path.join(box.dir, `audit-${name}.jsonl`);
  const args = ['--http', '--listen', '127.0.0.1:0', '--audit-log', auditFile];
  args.push('--kill-grace', '10');
  if (sharedKey) args.push('--state-key-file', keyFile);
  const child = spawn(lib.host, [...args, script], {
    env: { ...process.env, ...box.env, SCALE_INSTANCE: name, SCALE_MARKS: marks },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const exited = exitOf(child);
  const url = await new Promise((resolve, reject) => {
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      const m = /listening on (http:\/\/\S+)/.exec(stderr);
      if (m) resolve(new URL(m[1]));
    });
    child.on('error', reject);
    child.on('exit', () => reject(new Error(`host ${name} exited before listening: ${stderr}`)));
  });
  return {
    name,
    url,
    pid: child.pid,
    exited,
    stderr: () => stderr,
    audit: () => (fs.existsSync(auditFile) ? lib.readJsonLines(auditFile) : []),
    kill(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
  };
}

// The configuration HAProxy runs with; the comments are the reasoning behind it.
function haproxyConfig({ port, hosts, socket }) {
  const servers = hosts.map((h) => `  server ${h.name} ${h.url.host}`).join('\n');
  return `# Written by tests/clients/scale_out.test.mjs for HAProxy 2.6 (Debian 12's haproxy).
global
  # "show stat" on this socket tells the test which servers are UP and how many requests
  # were retried or redispatched.
  stats socket ${socket} mode 600 level admin

defaults
  mode http
  timeout connect 2s
  timeout client 60s
  # Above the longest tool call (the host's --timeout, 60 s by default): a server timeout
  # would answer 504 while the tool still runs.
  timeout server 70s
  timeout check 2s

  # Retrying a request that failed. HAProxy retries only while nothing of the response has
  # come, and by default only on "conn-failure" (the connection could not be made, so
  # nothing was sent). "retries" counts the attempts. "option redispatch 1" sends every
  # retry to another server than the last one (by default only the last retry may go
  # elsewhere, and a retry on the same server first waits min(timeout connect, 1 s)).
  retries 3
  option redispatch 1

  # retry-on does not look at the method: a POST is retried like a GET. The manual
  # (2.6, "http-request disable-l7-retry"): "This disables any attempt to retry the request
  # if it fails for any other reason than a connection failure. This can be useful for
  # example to make sure POST requests aren't retried on failure." And under retry-on:
  # "You have to make sure the application has a replay protection mechanism built in
  # [...] or it is very dangerous to use any retry-on value beside conn-failure and none."
  # Every MCP request is a POST and a tools/call is not idempotent, so each condition
  # below is one in which the host has not run the call:
  # - conn-failure: a stopping host has closed its listener (README, "Serving over
  #   HTTP": it "stops accepting"): the connection is refused, nothing was sent, and the
  #   retry goes to another instance.
  # - empty-response ("retry when the server connection was closed after part of the
  #   request was sent, and nothing was received from the server"): a stopping host also
  #   "closes idle connections". HAProxy keeps idle keep-alive connections to the servers
  #   in a pool ("http-reuse safe", the default, uses them for every request of a client
  #   connection but its first) and may send a request on one just as the host closes it.
  #   The host closes it only while no byte of a request has reached it (a request that
  #   has begun to arrive is read and answered), so the request never ran, and nothing is
  #   answered. Without empty-response, HAProxy answers 502,
  #   or (on a kept-alive client connection) closes the client's connection for the client
  #   to retry, which clients do not do for a POST: the call is lost. (Measured: one of three
  #   hosts stopped and restarted every 0.7 s under 8 senders, 20 s: 4 of ~690 calls
  #   failed with "fetch failed" without empty-response, none with it; the audit logs
  #   show that none of the failed ones had run, and that with it none ran twice.)
  #   "http-reuse never" would not help (a client connection's own server connection is
  #   kept alive and closed by the host the same way), nor would "option
  #   http-server-close" (a new connection per request, each of which may be closed the
  #   same way; measured as above, 10 of ~640 calls failed with it and without
  #   empty-response, before the host took its listen queue and read partial requests
  #   when it stops).
  #   A call the host did start is answered: a stopping host lets it finish within
  #   --kill-grace (10 s here, above every call of this test), so it is never empty. Only
  #   a host that dies mid-call (SIGKILL, a crash) leaves an empty response, and then
  #   HAProxy runs the call again elsewhere: a replay.
  # - 503: the only 503 the host sends on its MCP endpoint is "too many connections"
  #   (--max-connections), before it reads the request: safe to send elsewhere.
  # Not response-timeout (a slow call would run twice) and not junk-response.
  # Beyond conn-failure, HAProxy keeps a copy of each request to retry it, and "Requests
  # not fitting in a single buffer will never be retried (see the global tune.bufsize
  # setting)": 16384 bytes by default, so calls with larger arguments need a larger one.
  retry-on conn-failure empty-response 503

frontend mcp
  bind 127.0.0.1:${port}
  default_backend hosts

backend hosts
  balance roundrobin
  # /readyz answers 200 while the host takes requests and 503 once it stops; then its
  # listener is closed, so the check is refused: with fall 1 the server is DOWN within one
  # interval, and HAProxy sends it nothing more. rise 1: UP at the first good check.
  option httpchk GET /readyz
  http-check expect status 200
  default-server check inter 200ms fall 1 rise 1
${servers}
`;
}

// Fails the test (it never skips) when HAProxy is not installed.
function needHaproxy() {
  const haproxy = findHaproxy();
  assert.ok(haproxy, 'haproxy is needed: run scripts/install-deps');
  return haproxy;
}

async function startHaproxy(setup, hosts) {
  const haproxy = needHaproxy();
  const port = await freePort();
  const socket = path.join(setup.box.dir, 'haproxy.sock');
  const cfg = path.join(setup.box.dir, 'haproxy.cfg');
  fs.writeFileSync(cfg, haproxyConfig({ port, hosts, socket }));
  const child = spawn(haproxy, ['-db', '-f', cfg], {
    env: { ...process.env, ...setup.box.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = exitOf(child);
  const proxy = {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    output: () => output,
    // `show stat`: one object per line of the CSV, keyed by its header.
    async stat() {
      const text = await new Promise((resolve, reject) => {
        let data = '';
        const conn = net.createConnection(socket, () => conn.end('show stat\n'));
        conn.on('data', (chunk) => (data += chunk));
        conn.on('end', () => resolve(data));
        conn.on('error', reject);
      });
      const [head, ...lines] = text.split('\n').filter(Boolean);
      const keys = head.replace(/^# /, '').split(',');
      return lines.map((line) => Object.fromEntries(line.split(',').map((v, i) => [keys[i], v])));
    },
    async server(name) {
      return (await proxy.stat()).find((r) => r.pxname === 'hosts' && r.svname === name);
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      return exited.finally(() => clearTimeout(timer));
    },
  };
  await until('HAProxy to answer on its stats socket', async () => {
    if (child.exitCode !== null) assert.fail(`haproxy exited: ${output}`);
    return proxy.stat().then(
      () => true,
      () => false,
    );
  });
  return proxy;
}

// A client that talks to HAProxy, pinned to 2026-07-28; `confirm` answers mcp_confirm.
async function connectClient(setup, url, { confirm } = {}) {
  const options = { versionNegotiation: { mode: { pin: MODERN } } };
  if (confirm) options.capabilities = { elicitation: {} };
  const client = setup.box.track(new Client(CLIENT, options));
  if (confirm) client.setRequestHandler('elicitation/create', async () => confirm);
  await client.connect(new StreamableHTTPClientTransport(url));
  assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
  return client;
}

// The tools/call lines of one host's audit log, for `tool`.
function callsOf(host, tool) {
  return host.audit().filter((r) => r.method === 'tools/call' && r.tool === tool);
}

// The tools/call lines for `tool` of every host's audit log, each with the host's name.
function legsOf(hosts, tool) {
  return hosts.flatMap((h) => callsOf(h, tool).map((r) => ({ host: h.name, ...r })));
}

// legsOf(hosts, tool) once it has at least `n` lines. The host writes a request's audit
// line just after it sent the response, so a client may read the log before the line of
// the answer it holds is there.
async function legsAtLeast(hosts, tool, n) {
  return until(`${n} audit line(s) for ${tool}`, () => {
    const legs = legsOf(hosts, tool);
    return legs.length >= n && legs;
  });
}

function callText(client, tool, text) {
  return client.callTool({ name: tool, arguments: { text } }).then((result) => {
    assert.ok(!result.isError, `${tool} ${text}: ${JSON.stringify(result)}`);
    return lib.textOf(result).trim();
  });
}

// Ends a set-up: SIGTERM to the hosts still running (they exit 0), then HAProxy, then
// whatever is left of the sandbox.
async function tearDown(t, setup, hosts, proxy) {
  for (const h of hosts) h.kill('SIGTERM');
  const codes = await Promise.all(
    hosts.map((h) => {
      // A host that does not exit within its grace is killed (and fails the check).
      const timer = setTimeout(() => h.kill('SIGKILL'), 20000);
      return h.exited.finally(() => clearTimeout(timer));
    }),
  );
  if (proxy) {
    await proxy.stop();
    lib.showStderr(t, 'haproxy', proxy.output());
  }
  for (const h of hosts) lib.showStderr(t, `host ${h.name}`, h.stderr());
  await setup.box.dispose();
  return codes;
}

// Starts a host for each name into `hosts` (one by one, so that a failure leaves the
// ones started there for tearDown).
async function startAll(hosts, setup, names, options) {
  for (const name of names) hosts.push(await startHost(setup, name, options));
}

async function allUp(proxy, hosts) {
  await until('HAProxy to see every instance UP after a good check', async () => {
    const rows = await proxy.stat();
    return hosts.every((h) => {
      const r = rows.find((x) => x.pxname === 'hosts' && x.svname === h.name);
      return r && r.status === 'UP' && r.check_status === 'L7OK';
    });
  });
}

test('3 hosts behind HAProxy: calls spread, input_required across hosts, SIGTERM', T, async (t) => {
  needHaproxy();
  const setup = makeBox('scale-out');
  const hosts = [];
  let proxy;
  let passed = false;
  try {
    await startAll(hosts, setup, ['h1', 'h2', 'h3']);
    proxy = await startHaproxy(setup, hosts);

    // a. All three UP.
    await allUp(proxy, hosts);

    // b. tools/list through HAProxy.
    const client = await connectClient(setup, proxy.url);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((x) => x.name).sort(), TOOLS);

    // c. Trivial calls, all at once: each comes back with its argument, every instance
    // served some.
    const texts = Array.from({ length: 30 }, (_, i) => `spread-${i}-${crypto.randomUUID()}`);
    assert.deepEqual(await Promise.all(texts.map((s) => callText(client, 'echo', s))), texts);
    await legsAtLeast(hosts, 'echo', texts.length);
    const spread = hosts.map((h) => callsOf(h, 'echo'));
    t.diagnostic(`echo calls per instance: ${spread.map((c) => c.length).join(', ')}`);
    assert.equal(spread.flat().length, texts.length, 'each call ran once');
    for (const [i, calls] of spread.entries()) {
      assert.ok(calls.length > 0, `instance ${hosts[i].name} served none of the calls`);
      for (const r of calls) {
        assert.equal(r.outcome, 'ok', JSON.stringify(r));
        assert.equal(r.httpStatus, 200, JSON.stringify(r));
      }
    }

    // d. A tool that asks: the first try ends input_required on one instance, the SDK asks
    // its handler and retries with the requestState, and (round robin) another instance
    // serves the retry.
    const asking = await connectClient(setup, proxy.url, { confirm: { action: 'accept' } });
    assert.equal(await callText(asking, 'confirm_echo', 'across'), 'confirmed across');
    const legs = await legsAtLeast(hosts, 'confirm_echo', 2);
    t.diagnostic(`confirm_echo legs: ${JSON.stringify(legs)}`);
    assert.equal(legs.length, 2, JSON.stringify(legs));
    const first = legs.find((r) => r.outcome === 'input_required');
    const retry = legs.find((r) => r.outcome === 'ok');
    assert.ok(first && retry, `one input_required leg and one ok leg: ${JSON.stringify(legs)}`);
    assert.notEqual(first.host, retry.host, 'the retry was served by another instance');
    for (const r of legs) assert.equal(r.rpcError, undefined, JSON.stringify(r));

    // e. SIGTERM to one instance while 12 slow calls run and trivial calls keep coming for
    // ~3 s (4 senders, one call at a time each).
    const victim = hosts[1];
    const others = hosts.filter((h) => h !== victim);
    const started = Date.now();
    const slowTexts = Array.from({ length: 12 }, (_, i) => `slow-${i}`);
    const slow = Promise.allSettled(slowTexts.map((s) => callText(client, 'slow', s)));
    const sent = [];
    const stream = Promise.allSettled(
      Array.from({ length: 4 }, async (_, w) => {
        const results = [];
        for (let i = 0; Date.now() - started < 3000; i++) {
          const text = `new-${w}-${i}`;
          sent.push(text);
          results.push(await callText(client, 'echo', text).then((got) => ({ text, got })));
        }
        return results;
      }),
    );
    // Slow calls are running on the victim once their marks are there (a mark is made
    // before the second of sleep, so two marks leave most of a second before either ends).
    const victimMarks = () =>
      fs.readdirSync(setup.marks).filter((f) => f.startsWith(`${victim.name}.slow-`));
    await until('two slow calls to start on the victim', () => victimMarks().length >= 2);
    const signalled = Date.now();
    victim.kill('SIGTERM');
    t.diagnostic(`SIGTERM to ${victim.name} ${signalled - started} ms after the first call`);

    // Every call, slow and new, completes with its own text.
    const slowResults = await slow;
    const streamResults = await stream;
    const failures = [...slowResults, ...streamResults].filter((r) => r.status === 'rejected');
    assert.deepEqual(failures.map((r) => String(r.reason)), [], 'no call failed');
    assert.deepEqual(slowResults.map((r) => r.value), slowTexts);
    const streamed = streamResults.flatMap((r) => r.value);
    for (const { text, got } of streamed) assert.equal(got, text);
    assert.equal(streamed.length, sent.length, 'every call sent came back');
    t.diagnostic(`${streamed.length} trivial and ${slowTexts.length} slow calls`);

    // The victim drained: it exits 0, and calls it was running finished after the signal.
    const { code, signal } = await victim.exited;
    assert.equal(signal, null, `${victim.name} ended by ${signal}`);
    assert.equal(code, 0, `${victim.name} exits 0 after SIGTERM`);
    const m = /shutting down: [^;]*SIGTERM; (\d+) call\(s\) in flight/.exec(victim.stderr());
    assert.ok(m && Number(m[1]) >= 2, `calls in flight at the signal: ${victim.stderr()}`);
    const drained = callsOf(victim, 'slow').filter((r) => Date.parse(r.time) >= signalled);
    t.diagnostic(`${victim.name} finished ${drained.length} slow call(s) after the signal`);
    assert.ok(drained.length >= 2, `the victim finished its slow calls after SIGTERM`);
    for (const r of victim.audit()) {
      assert.equal(r.httpStatus, 200, JSON.stringify(r));
      assert.equal(r.rpcError, undefined, JSON.stringify(r));
    }
    // Every call is in exactly one audit log: none ran twice.
    const slowServed = await legsAtLeast(hosts, 'slow', slowTexts.length);
    assert.equal(slowServed.length, slowTexts.length, JSON.stringify(slowServed));
    const echoTotal = texts.length + streamed.length;
    const echoServed = await legsAtLeast(hosts, 'echo', echoTotal);
    const perHost = hosts.map((h) => `${h.name} ${callsOf(h, 'echo').length}`).join(', ');
    assert.equal(echoServed.length, echoTotal, `each trivial call ran once (${perHost})`);

    // HAProxy took it out: DOWN, and later calls land on the other two only.
    await until(`HAProxy to mark ${victim.name} DOWN`, async () =>
      (await proxy.server(victim.name))?.status?.startsWith('DOWN'),
    );
    const before = others.map((h) => callsOf(h, 'echo').length);
    const victimSessions = (await proxy.server(victim.name)).stot;
    const later = Array.from({ length: 10 }, (_, i) => `later-${i}`);
    assert.deepEqual(await Promise.all(later.map((s) => callText(client, 'echo', s))), later);
    await legsAtLeast(others, 'echo', before[0] + before[1] + later.length);
    const after = others.map((h) => callsOf(h, 'echo').length);
    assert.equal(after[0] - before[0] + after[1] - before[1], later.length, `${before} ${after}`);
    assert.ok(after[0] > before[0] && after[1] > before[1], 'both remaining instances serve');
    assert.equal((await proxy.server(victim.name)).stot, victimSessions, 'none tried the victim');

    // What HAProxy did meanwhile (for the report): retries, redispatches, errors.
    const rows = await proxy.stat();
    for (const r of rows.filter((x) => x.pxname === 'hosts' || x.pxname === 'mcp')) {
      t.diagnostic(
        `haproxy ${r.pxname}/${r.svname}: status ${r.status}, requests ${r.stot}, ` +
          `retries ${r.wretr}, redispatches ${r.wredis}, conn errors ${r.econ}, ` +
          `resp errors ${r.eresp}, 5xx ${r.hrsp_5xx}`,
      );
    }
    const front = rows.find((x) => x.pxname === 'mcp' && x.svname === 'FRONTEND');
    assert.equal(front.hrsp_5xx, '0', 'HAProxy answered no client with a 5xx');

    await client.close();
    await asking.close();
    passed = true;
  } finally {
    const codes = await tearDown(t, setup, hosts, proxy);
    // Checked only when the steps passed, so that a failing step is what is reported.
    if (passed) {
      for (const [i, exit] of codes.entries()) {
        assert.deepEqual(exit, { code: 0, signal: null }, `host ${hosts[i].name} exits 0`);
      }
    }
  }
});

test('without a shared --state-key-file the retry on another instance is -32602', T, async (t) => {
  needHaproxy();
  const setup = makeBox('scale-nokey');
  const hosts = [];
  let proxy;
  try {
    await startAll(hosts, setup, ['k1', 'k2'], { sharedKey: false });
    proxy = await startHaproxy(setup, hosts);
    await allUp(proxy, hosts);
    const asking = await connectClient(setup, proxy.url, { confirm: { action: 'accept' } });
    const outcome = await asking
      .callTool({ name: 'confirm_echo', arguments: { text: 'alone' } })
      .then(
        (result) => ({ result }),
        (error) => ({ error }),
      );
    assert.ok(outcome.error, `the call must fail: ${JSON.stringify(outcome.result)}`);
    assert.equal(outcome.error.code, -32602, String(outcome.error));
    const legs = await legsAtLeast(hosts, 'confirm_echo', 2);
    t.diagnostic(`confirm_echo legs: ${JSON.stringify(legs)}`);
    const first = legs.find((r) => r.outcome === 'input_required');
    const retry = legs.find((r) => r.rpcError?.code === -32602);
    assert.ok(first && retry, JSON.stringify(legs));
    assert.notEqual(first.host, retry.host);
    await asking.close();
  } finally {
    await tearDown(t, setup, hosts, proxy);
  }
});
