// The TypeScript SDK v1 client (@modelcontextprotocol/sdk 1.x): Client and
// StdioClientTransport, which know only the legacy era (initialize handshake).
import assert from 'node:assert/strict';
import path from 'node:path';
import test from 'node:test';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

import * as lib from './lib.mjs';

const CLIENT = { name: 'sdk-v1-test', version: '1.0.0' };

async function connect(box, script) {
  const audit = path.join(box.dir, 'audit.jsonl');
  const transport = new StdioClientTransport({
    command: lib.host,
    args: ['--audit-log', audit, script],
    env: box.env,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr.on('data', (chunk) => (stderr += chunk));
  const client = box.track(new Client(CLIENT));
  await client.connect(transport);
  return { client, stderr: () => stderr, audit: () => lib.readJsonLines(audit) };
}

test('movies.sh: initialize, list, call, ping', { timeout: 60000 }, async () => {
  const box = lib.makeSandbox('v1-movies');
  try {
    const { client, stderr, audit } = await connect(box, box.movies);
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
    // The legacy era names the client once, in initialize.
    assert.equal(records[0].client, CLIENT.name);
    assert.deepEqual(lib.problemLines(stderr()), []);
  } finally {
    await box.dispose();
  }
});

test('basic.sh fixture: hi succeeds, fail is a tool error', { timeout: 60000 }, async () => {
  const box = lib.makeSandbox('v1-basic');
  try {
    const { client, stderr } = await connect(box, box.basic);
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes('hi') && names.includes('fail'), names.join(' '));
    assert.ok(!names.includes('helper_not_a_tool'));

    const hi = await client.callTool({ name: 'hi', arguments: {} });
    assert.equal(lib.textOf(hi).trim(), 'hi');
    assert.ok(!hi.isError);

    const args = { message: 'the disk is full' };
    const fail = await client.callTool({ name: 'fail', arguments: args });
    assert.equal(fail.isError, true);
    assert.match(lib.textOf(fail), /the disk is full/);

    await client.close();
    assert.deepEqual(await box.leftovers(), []);
    // basic.sh prints at top level; the host must keep that off the protocol stream
    // (the client would have failed to parse it) and may log it.
    assert.deepEqual(
      lib.problemLines(stderr()).filter((l) => !/warning: .*basic\.sh/.test(l)),
      [],
    );
  } finally {
    await box.dispose();
  }
});
