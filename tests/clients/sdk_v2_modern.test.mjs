// The TypeScript SDK v2 client pinned to the modern revision: versionNegotiation
// { mode: { pin: '2026-07-28' } }. The SDK probes with server/discover on a throw-away
// sibling process, then talks to a second process with per-request _meta (protocol
// version, client info, capabilities) and never sends initialize. With a prior discover
// result it skips the probe altogether.
import assert from 'node:assert/strict';
import test from 'node:test';

import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

import * as lib from './lib.mjs';

const CLIENT = { name: 'sdk-v2-modern-test', version: '1.0.0' };
const MODERN = '2026-07-28';
const PIN = { versionNegotiation: { mode: { pin: MODERN } } };
const T = { timeout: 60000 };

// What the host's audit log must show for a modern session: only the methods the test
// sent, each carrying the modern revision and our client name in its _meta.
function checkModernSession(records, methods) {
  assert.deepEqual(
    records.map((r) => r.method),
    methods,
  );
  for (const r of records) {
    assert.equal(r.rpcError, undefined, `no JSON-RPC error: ${JSON.stringify(r)}`);
    assert.equal(r.protocolVersion, MODERN, JSON.stringify(r));
    assert.equal(r.client, CLIENT.name, JSON.stringify(r));
  }
}

let discovered;

test('pinned 2026-07-28: probe, then list and call without initialize', T, async (t) => {
  const box = lib.makeSandbox('v2-pinned');
  try {
    const transport = new StdioClientTransport({ command: box.wrapper, args: [box.movies] });
    const client = box.track(new Client(CLIENT, PIN));
    await client.connect(transport);
    assert.equal(client.getProtocolEra(), 'modern');
    assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
    assert.equal(client.getServerVersion()?.name, 'mcp-shell-host');
    assert.ok(client.getServerCapabilities()?.tools, 'tools capability from server/discover');
    discovered = client.getDiscoverResult();
    assert.ok(discovered?.supportedVersions?.includes(MODERN), JSON.stringify(discovered));

    lib.checkMoviesToolList((await client.listTools()).tools);
    lib.checkAgeOk(await lib.callCheckAge(client, lib.AGE_OK));
    lib.checkAgeTooYoung(await lib.callCheckAge(client, lib.AGE_TOO_YOUNG));
    lib.checkBooking(await client.callTool({ name: 'book_tickets', arguments: lib.BOOKING }));
    const session = transport.pid;
    await client.close();
    assert.deepEqual(await box.leftovers(), [], 'no host or tool process is left');

    const hosts = box.hosts();
    assert.equal(hosts.size, 2, 'one probe process and one session process');
    assert.ok(hosts.has(session));
    for (const [pid, h] of hosts) {
      lib.showStderr(t, `${pid === session ? 'session' : 'probe'} host ${pid}`, h.stderr);
      assert.deepEqual(lib.problemLines(h.stderr), [], `host ${pid} logged a problem`);
      if (pid === session) {
        checkModernSession(h.audit, ['tools/list', 'tools/call', 'tools/call', 'tools/call']);
      } else {
        checkModernSession(h.audit, ['server/discover']);
      }
    }
  } finally {
    await box.dispose();
  }
});

test('prior discover result: one process, no probe, no initialize', T, async (t) => {
  if (!discovered) {
    t.skip('needs the discover result of the previous test');
    return;
  }
  const box = lib.makeSandbox('v2-prior');
  try {
    const transport = new StdioClientTransport({ command: box.wrapper, args: [box.movies] });
    const client = box.track(new Client(CLIENT, PIN));
    await client.connect(transport, { prior: { kind: 'modern', discover: discovered } });
    assert.equal(client.getProtocolEra(), 'modern');
    lib.checkAgeTooYoung(await lib.callCheckAge(client, lib.AGE_TOO_YOUNG));
    lib.checkAgeOk(await lib.callCheckAge(client, lib.AGE_OK));
    const session = transport.pid;
    await client.close();
    assert.deepEqual(await box.leftovers(), []);

    const hosts = box.hosts();
    assert.deepEqual([...hosts.keys()], [session], 'one host process: no probe');
    const [h] = hosts.values();
    checkModernSession(h.audit, ['tools/call', 'tools/call']);
    assert.deepEqual(lib.problemLines(h.stderr), []);
  } finally {
    await box.dispose();
  }
});
