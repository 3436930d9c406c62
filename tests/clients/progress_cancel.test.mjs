// Progress and cancellation through the SDK clients' own APIs: `onprogress` (the client
// sends a progressToken; the tool calls mcp_progress) and an AbortSignal (the client
// sends notifications/cancelled; the host must stop the tool's processes). Each for
// the v1 client, the v2 client in legacy mode and the v2 client pinned to 2026-07-28.
//
// Both SDKs dispatch notifications a microtask later than responses, so a progress
// notification read in the same chunk as the call's result finds its handler gone and is
// dropped; the host sends them in the right order (see steps.sh for how the test waits).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';

import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';

import * as lib from './lib.mjs';

const CLIENT = { name: 'progress-cancel-test', version: '1.0.0' };
const T = { timeout: 60000 };

// Each variant: connect(box) -> { client, call(params, options), pid }.
const variants = {
  'sdk v1': async (box) => {
    const transport = new TransportV1({ command: box.wrapper, args: [box.steps] });
    const client = box.track(new ClientV1(CLIENT));
    await client.connect(transport);
    // v1's callTool takes the result schema before the request options.
    const call = (params, options) => client.callTool(params, CallToolResultSchema, options);
    return { client, call, pid: transport.pid };
  },
  'sdk v2 legacy': async (box) => connectV2(box, undefined),
  'sdk v2 pinned 2026-07-28': async (box) =>
    connectV2(box, { versionNegotiation: { mode: { pin: '2026-07-28' } } }),
};

async function connectV2(box, options) {
  const transport = new StdioClientTransport({ command: box.wrapper, args: [box.steps] });
  const client = box.track(new Client(CLIENT, options));
  await client.connect(transport);
  return { client, call: (params, opts) => client.callTool(params, opts), pid: transport.pid };
}

for (const [name, connect] of Object.entries(variants)) {
  test(`${name}: progress notifications, then the result`, T, async () => {
    const box = lib.makeSandbox('progress');
    try {
      const { client, call } = await connect(box);
      // The tool waits for gate.N before it goes on after its N-th report.
      const gate = path.join(box.dir, 'gate');
      const progress = [];
      const onprogress = (p) => {
        progress.push(p);
        fs.writeFileSync(`${gate}.${progress.length}`, '');
      };
      const result = await call({ name: 'steps', arguments: { gate } }, { onprogress });
      assert.equal(lib.textOf(result).trim(), 'done');
      assert.ok(!result.isError);
      // Both reports reach the client, in order, with the numbers and message the tool gave.
      assert.deepEqual(progress, [
        { progress: 1, total: 2, message: 'first half' },
        { progress: 2, total: 2, message: 'second half' },
      ]);
      await client.close();
      assert.deepEqual(await box.leftovers(), []);
      for (const h of box.hosts().values()) assert.deepEqual(lib.problemLines(h.stderr), []);
    } finally {
      await box.dispose();
    }
  });

  test(`${name}: an aborted call stops the tool`, T, async () => {
    const box = lib.makeSandbox('cancel');
    try {
      const { client, call, pid } = await connect(box);
      const abort = new AbortController();
      const pending = call({ name: 'wait', arguments: {} }, { signal: abort.signal }).then(
        (result) => ({ result }),
        (error) => ({ error }),
      );
      const sleep = () => box.processes().find((p) => /^sleep 60\b/.test(p.cmdline));
      const tool = await lib.waitFor(sleep);
      assert.ok(tool, 'the tool is running');
      assert.notEqual(tool.pgid, pid, 'the tool runs in a process group of its own');
      abort.abort('the user gave up');
      const outcome = await pending;
      assert.ok(outcome.error, `the call must reject: ${JSON.stringify(outcome.result)}`);

      // The host stops the tool's process group; the session host stays.
      const group = () => box.processes().filter((p) => p.pgid === tool.pgid);
      await lib.waitFor(() => group().length === 0);
      assert.deepEqual(group(), [], 'the tool processes are gone while the session goes on');
      // The session is still usable.
      const after = await call({ name: 'hi', arguments: {} }, {});
      assert.equal(lib.textOf(after).trim(), 'hi');
      await client.close();
      assert.deepEqual(await box.leftovers(), []);

      const session = box.hosts().get(pid);
      const waitCall = session.audit.find((r) => r.tool === 'wait');
      assert.equal(waitCall?.outcome, 'cancelled', JSON.stringify(session.audit));
      for (const h of box.hosts().values()) assert.deepEqual(lib.problemLines(h.stderr), []);
    } finally {
      await box.dispose();
    }
  });
}
