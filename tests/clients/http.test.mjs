// Real clients over Streamable HTTP against `mcp-shell-host --http`: the TypeScript SDK v2
// client pinned to 2026-07-28 and in `auto` mode, and the v1 SDK client (legacy era:
// initialize over POST, which opens a session; then tools/* in it).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import test from 'node:test';

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import * as lib from './lib.mjs';

const T = { timeout: 60000 };
const MODERN = '2026-07-28';

// Starts the host on a free port; resolves once it logs its address.
async function startHost(box) {
  const audit = path.join(box.dir, 'audit-http.jsonl');
  const child = spawn(
    lib.host,
    ['--http', '--listen', '127.0.0.1:0', '--audit-log', audit, box.movies],
    { env: { ...process.env, ...box.env }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const url = await new Promise((resolve, reject) => {
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      const m = /listening on (http:\/\/\S+)/.exec(stderr);
      if (m) resolve(new URL(m[1]));
    });
    child.on('exit', () => reject(new Error(`host exited before listening: ${stderr}`)));
  });
  return {
    url,
    stderr: () => stderr,
    audit: () => lib.readJsonLines(audit),
    async stop() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

async function modernSession(t, mode) {
  const box = lib.makeSandbox(`http-v2-${typeof mode === 'string' ? mode : 'pinned'}`);
  const server = await startHost(box);
  try {
    const client = box.track(
      new Client({ name: 'sdk-v2-http-test', version: '1.0.0' }, { versionNegotiation: { mode } }),
    );
    await client.connect(new StreamableHTTPClientTransport(server.url));
    assert.equal(client.getProtocolEra(), 'modern');
    assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
    lib.checkMoviesToolList((await client.listTools()).tools);
    lib.checkAgeOk(await lib.callCheckAge(client, lib.AGE_OK));
    lib.checkBooking(await client.callTool({ name: 'book_tickets', arguments: lib.BOOKING }));
    await client.close();
    for (const r of server.audit()) {
      assert.equal(r.rpcError, undefined, JSON.stringify(r));
      assert.equal(r.httpStatus, 200, JSON.stringify(r));
      assert.match(r.remote, /^127\.0\.0\.1:\d+$/);
    }
  } finally {
    const { code } = await server.stop();
    lib.showStderr(t, 'http host', server.stderr());
    assert.equal(code, 0, 'the host exits 0 on SIGTERM');
    await box.dispose();
  }
}

test('SDK v2 pinned to 2026-07-28 over HTTP', T, (t) => modernSession(t, { pin: MODERN }));

test('SDK v2 auto over HTTP', T, (t) => modernSession(t, 'auto'));

test('SDK v1 (legacy) over HTTP: initialize, then tools in its session', T, async (t) => {
  const box = lib.makeSandbox('http-v1');
  const server = await startHost(box);
  try {
    const transport = new TransportV1(server.url);
    const client = box.track(new ClientV1({ name: 'sdk-v1-http-test', version: '1.0.0' }));
    await client.connect(transport);
    assert.equal(client.getServerVersion()?.name, 'mcp-shell-host');
    assert.match(transport.sessionId ?? '', /^[0-9a-f]{32}$/, 'initialize opened a session');
    lib.checkMoviesToolList((await client.listTools()).tools);
    lib.checkAgeOk(await lib.callCheckAge(client, lib.AGE_OK));
    await client.close();
  } finally {
    const { code } = await server.stop();
    lib.showStderr(t, 'http host', server.stderr());
    assert.equal(code, 0);
    await box.dispose();
  }
});
