// The TypeScript SDK v2 client (@modelcontextprotocol/client) in its default mode,
// 'legacy': the 2025 initialize handshake, then tools/list, tools/call and ping by the
// negotiated revision's rules.
import assert from 'node:assert/strict';
import path from 'node:path';
import test from 'node:test';

import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

import * as lib from './lib.mjs';

const CLIENT = { name: 'sdk-v2-legacy-test', version: '1.0.0' };
const T = { timeout: 60000 };

// Connects the v2 client to the host (started directly, stderr piped to us, with an
// audit log in the sandbox) and returns what the test needs to look at afterwards.
async function connect(box, clientOptions) {
  const audit = path.join(box.dir, 'audit.jsonl');
  const transport = new StdioClientTransport({
    command: lib.host,
    args: ['--audit-log', audit, box.movies],
    env: box.env,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr.on('data', (chunk) => (stderr += chunk));
  const client = box.track(new Client(CLIENT, clientOptions));
  await client.connect(transport);
  return { client, stderr: () => stderr, audit: () => lib.readJsonLines(audit) };
}

test('default mode: initialize handshake, list, call, ping', T, async () => {
  const box = lib.makeSandbox('v2-legacy');
  try {
    const { client, stderr, audit } = await connect(box, undefined);
    assert.equal(client.getProtocolEra(), 'legacy');
    assert.equal(client.getNegotiatedProtocolVersion(), '2025-11-25');
    assert.equal(client.getServerVersion()?.name, 'mcp-shell-host');
    assert.ok(client.getServerCapabilities()?.tools, 'tools capability');

    lib.checkMoviesToolList((await client.listTools()).tools);
    lib.checkAgeOk(await lib.callCheckAge(client, lib.AGE_OK));
    lib.checkAgeTooYoung(await lib.callCheckAge(client, lib.AGE_TOO_YOUNG));
    lib.checkBooking(await client.callTool({ name: 'book_tickets', arguments: lib.BOOKING }));
    assert.deepEqual(await client.ping(), {});
    await client.close();

    assert.deepEqual(await box.leftovers(), [], 'the host and its tools are gone after close');
    const records = audit();
    assert.deepEqual(
      records.map((r) => r.method),
      ['initialize', 'tools/list', 'tools/call', 'tools/call', 'tools/call', 'ping'],
    );
    for (const r of records) {
      assert.equal(r.rpcError, undefined, `no JSON-RPC error: ${JSON.stringify(r)}`);
      assert.equal(r.protocolVersion, '2025-11-25', JSON.stringify(r));
    }
    assert.deepEqual(lib.problemLines(stderr()), []);
  } finally {
    await box.dispose();
  }
});

test('legacy 2025-03-26: no titles, outputSchema or structuredContent', T, async () => {
  const box = lib.makeSandbox('v2-legacy-old');
  try {
    const { client, stderr } = await connect(box, { supportedProtocolVersions: ['2025-03-26'] });
    assert.equal(client.getProtocolEra(), 'legacy');
    assert.equal(client.getNegotiatedProtocolVersion(), '2025-03-26');

    lib.checkMoviesToolList((await client.listTools()).tools, { structured: false });
    lib.checkAgeTooYoung(await lib.callCheckAge(client, lib.AGE_TOO_YOUNG));
    lib.checkBooking(await client.callTool({ name: 'book_tickets', arguments: lib.BOOKING }), {
      structured: false,
    });
    await client.close();

    assert.deepEqual(await box.leftovers(), []);
    assert.deepEqual(lib.problemLines(stderr()), []);
  } finally {
    await box.dispose();
  }
});
