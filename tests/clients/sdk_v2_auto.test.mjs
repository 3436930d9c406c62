// The TypeScript SDK v2 client in 'auto' mode: connect() starts a throw-away sibling
// host, sends it server/discover, then ends its stdin and sends it SIGTERM at once
// (SIGKILL after 1 s), and starts the session host only when the era is known. The
// host must answer the probe, die quietly (no warning or error in its log) and leave no
// process behind; the session must then be modern.
import assert from 'node:assert/strict';
import test from 'node:test';

import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

import * as lib from './lib.mjs';

const CLIENT = { name: 'sdk-v2-auto-test', version: '1.0.0' };
const AUTO = { versionNegotiation: { mode: 'auto' } };

// Exit status of every host process the SDK starts, the probe's included. The SDK does
// not expose it: this records it from the child process object that the transport keeps
// in `_process` (an SDK internal; the SDK version is pinned in package-lock.json).
const exits = new Map();
const originalStart = StdioClientTransport.prototype.start;
StdioClientTransport.prototype.start = async function start(...args) {
  await originalStart.apply(this, args);
  const child = this._process;
  child.once('exit', (code, signal) => exits.set(child.pid, { code, signal }));
};

// Connects in auto mode and checks the probe host; returns the client and session pid.
async function connectAuto(t, box) {
  assert.deepEqual(box.processes(), [], 'nothing runs before connect');
  const transport = new StdioClientTransport({ command: box.wrapper, args: [box.movies] });
  const client = box.track(new Client(CLIENT, AUTO));
  await client.connect(transport);
  const session = transport.pid;
  assert.equal(client.getProtocolEra(), 'modern');
  assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');

  // Every process of the sandbox is now the session host or one of its children (warm
  // bash processes): the probe host and everything it started are gone.
  lib.checkMoviesToolList((await client.listTools()).tools);
  const running = box.processes();
  assert.ok(running.some((p) => p.pid === session), 'the session host runs');
  assert.deepEqual(
    running.filter((p) => !lib.familyOf(session, running).includes(p)),
    [],
    'the probe host left nothing behind',
  );
  const probes = [...box.hosts()].filter(([pid]) => pid !== session);
  assert.equal(probes.length, 1, 'exactly one probe host was started');
  const [probePid, probe] = probes[0];
  // SIGTERM (or stdin EOF, whichever the host sees first) ends it normally, with status 0.
  assert.deepEqual(exits.get(probePid), { code: 0, signal: null }, 'how the probe host ended');
  lib.showStderr(t, `probe host ${probePid}`, probe.stderr);
  assert.deepEqual(lib.problemLines(probe.stderr), [], 'the probe host logged no warning or error');
  assert.deepEqual(
    probe.audit.map((r) => [r.method, r.protocolVersion, r.outcome, r.rpcError]),
    [['server/discover', '2026-07-28', 'ok', undefined]],
  );
  return { client, session };
}

// After close: nothing left, and the session saw only modern requests.
async function closeAndCheck(t, box, client, session, methods) {
  await client.close();
  assert.deepEqual(await box.leftovers(), [], 'no host or tool process is left after close');
  await lib.waitFor(() => exits.has(session));
  assert.deepEqual(exits.get(session), { code: 0, signal: null }, 'how the session host ended');
  const h = box.hosts().get(session);
  lib.showStderr(t, `session host ${session}`, h.stderr);
  assert.deepEqual(lib.problemLines(h.stderr), []);
  assert.deepEqual(
    h.audit.map((r) => r.method),
    methods,
  );
  for (const r of h.audit) {
    assert.equal(r.protocolVersion, '2026-07-28', JSON.stringify(r));
    assert.equal(r.rpcError, undefined, JSON.stringify(r));
  }
}

test('auto: probe on a sibling, then a modern session', { timeout: 60000 }, async (t) => {
  const box = lib.makeSandbox('v2-auto');
  try {
    const { client, session } = await connectAuto(t, box);
    lib.checkAgeOk(await lib.callCheckAge(client, lib.AGE_OK));
    lib.checkAgeTooYoung(await lib.callCheckAge(client, lib.AGE_TOO_YOUNG));
    lib.checkBooking(await client.callTool({ name: 'book_tickets', arguments: lib.BOOKING }));
    const methods = ['tools/list', 'tools/call', 'tools/call', 'tools/call'];
    await closeAndCheck(t, box, client, session, methods);
  } finally {
    await box.dispose();
  }
});

test('auto: three connects in a row leave nothing behind', { timeout: 60000 }, async (t) => {
  for (let i = 0; i < 3; i++) {
    const box = lib.makeSandbox(`v2-auto-${i}`);
    try {
      const { client, session } = await connectAuto(t, box);
      lib.checkAgeTooYoung(await lib.callCheckAge(client, lib.AGE_TOO_YOUNG));
      await closeAndCheck(t, box, client, session, ['tools/list', 'tools/call']);
    } finally {
      await box.dispose();
    }
  }
});
