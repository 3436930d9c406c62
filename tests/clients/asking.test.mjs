// Tools that ask (tests/fixtures/asking/asking.sh) through the SDK clients' own handler
// APIs: the client registers elicitation, sampling and roots handlers and declares the
// capabilities; the tool's mcp_elicit / mcp_confirm / mcp_sample / mcp_roots get the
// handlers' answers. Each for the v1 client, the v2 client in legacy mode and the v2 client
// pinned to 2026-07-28.
//
// In the legacy era the host sends elicitation/create, sampling/createMessage and
// roots/list requests of its own while the tool waits. In 2026-07-28 the call returns
// `resultType: "input_required"` with inputRequests and a requestState; the v2 client's
// multi-round-trip driver (inputRequired.autoFulfill, on by default) passes each embedded
// request to the handler registered for its method and retries the call with the
// inputResponses and the requestState, so callTool resolves with the final result.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';

import { Client, MissingRequiredClientCapabilityError } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

import * as lib from './lib.mjs';

const CLIENT = { name: 'asking-test', version: '1.0.0' };
const MODERN = '2026-07-28';
const PIN = { versionNegotiation: { mode: { pin: MODERN } } };
const T = { timeout: 30000 };

const WHO_SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string' } },
  required: ['name'],
};

// A copy of the fixture in the sandbox, so that its processes name the sandbox directory.
function askingScript(box) {
  const script = path.join(box.dir, 'asking.sh');
  fs.copyFileSync(path.join(lib.root, 'tests', 'fixtures', 'asking', 'asking.sh'), script);
  return script;
}

// handlers: { elicit, sample, roots }, each (params) -> result. The client declares the
// capability of each handler given and registers it with its own setRequestHandler (v1
// takes the request's schema, v2 the method name). Every request a handler gets is
// recorded in `asked` as { method, params, id }: `id` is the JSON-RPC id of the host's
// request (legacy) or, when the v2 driver dispatches an embedded input request locally,
// its inputRequests key.
const KINDS = [
  {
    kind: 'elicit',
    capability: 'elicitation',
    method: 'elicitation/create',
    v1: ElicitRequestSchema,
  },
  {
    kind: 'sample',
    capability: 'sampling',
    method: 'sampling/createMessage',
    v1: CreateMessageRequestSchema,
  },
  { kind: 'roots', capability: 'roots', method: 'roots/list', v1: ListRootsRequestSchema },
];

function capabilitiesFor(handlers) {
  return Object.fromEntries(KINDS.filter((k) => handlers[k.kind]).map((k) => [k.capability, {}]));
}

function registerHandlers(client, handlers, asked, { v1 = false } = {}) {
  for (const { kind, method, v1: schema } of KINDS) {
    const handler = handlers[kind];
    if (!handler) continue;
    // v1 passes `extra.requestId`, v2 a context with `mcpReq.id`.
    client.setRequestHandler(v1 ? schema : method, async (request, extra) => {
      asked.push({ method, params: request.params, id: extra?.requestId ?? extra?.mcpReq?.id });
      return handler(request.params);
    });
  }
}

// Each variant: { era, connect(box, handlers) -> { client, call(params), pid, asked } }.
const variants = {
  'sdk v1': {
    era: 'legacy',
    async connect(box, handlers) {
      const asked = [];
      const client = box.track(new ClientV1(CLIENT, { capabilities: capabilitiesFor(handlers) }));
      registerHandlers(client, handlers, asked, { v1: true });
      const transport = new TransportV1({ command: box.wrapper, args: [askingScript(box)] });
      await client.connect(transport);
      const call = (params) => client.callTool(params, CallToolResultSchema);
      return { client, call, pid: transport.pid, asked };
    },
  },
  'sdk v2 legacy': {
    era: 'legacy',
    connect: (box, handlers) => connectV2(box, handlers, {}),
  },
  'sdk v2 pinned 2026-07-28': {
    era: 'modern',
    connect: (box, handlers) => connectV2(box, handlers, PIN),
  },
};

async function connectV2(box, handlers, options) {
  const asked = [];
  const capabilities = capabilitiesFor(handlers);
  const client = box.track(new Client(CLIENT, { ...options, capabilities }));
  registerHandlers(client, handlers, asked);
  const transport = new StdioClientTransport({ command: box.wrapper, args: [askingScript(box)] });
  await client.connect(transport);
  const call = (params) => client.callTool(params);
  return { client, call, pid: transport.pid, asked };
}

// After close: no process left, nothing logged at warning or error level, and the session
// host's tools/call records (audit log) as `check(calls)` expects.
async function finish(t, box, client, pid, check) {
  await client.close();
  assert.deepEqual(await box.leftovers(), [], 'no host or tool process is left');
  const hosts = box.hosts();
  assert.ok(hosts.has(pid), `the session host ${pid} left its record`);
  for (const [p, h] of hosts) {
    lib.showStderr(t, `host ${p}`, h.stderr);
    assert.deepEqual(lib.problemLines(h.stderr), [], `host ${p} logged a problem`);
  }
  const calls = hosts.get(pid).audit.filter((r) => r.method === 'tools/call');
  t.diagnostic(`tools/call audit: ${JSON.stringify(calls)}`);
  check(calls);
}

// The tools/call records of one call answered in one round: legacy, one record (the host
// asked while the tool waited); 2026-07-28, the input_required leg and then the retry.
function checkOneRound(era, tool) {
  return (calls) => {
    assert.deepEqual(
      calls.map((r) => r.tool),
      era === 'modern' ? [tool, tool] : [tool],
      JSON.stringify(calls),
    );
    if (era === 'modern') {
      assert.equal(calls[0].outcome, 'input_required', JSON.stringify(calls[0]));
      assert.notEqual(calls[1].outcome, 'input_required', JSON.stringify(calls[1]));
      for (const r of calls) assert.equal(r.protocolVersion, MODERN, JSON.stringify(r));
    }
    for (const r of calls) assert.equal(r.rpcError, undefined, JSON.stringify(r));
  };
}

// Who asked: a request of the host's own on the wire (legacy), or the embedded request
// `key` of an input_required result, which the v2 driver hands to the handler (2026-07-28).
function checkAskedBy(era, { id }, key) {
  if (era === 'modern') assert.equal(id, key, 'dispatched by the multi-round-trip driver');
  else assert.ok(id !== undefined && id !== key, `a JSON-RPC request from the host: id ${id}`);
}

function checkWhoQuestion(era, asked) {
  assert.deepEqual(
    asked.map((a) => a.method),
    ['elicitation/create'],
  );
  checkAskedBy(era, asked[0], 'who');
  const { params } = asked[0];
  assert.equal(params.message, 'Who is there?');
  assert.deepEqual(params.requestedSchema, WHO_SCHEMA);
  // Form mode, whether the host says so (2026-07-28) or leaves it out (legacy).
  assert.ok(params.mode === undefined || params.mode === 'form', JSON.stringify(params));
}

for (const [name, { era, connect }] of Object.entries(variants)) {
  test(`${name}: greet, the elicitation handler accepts`, T, async (t) => {
    const box = lib.makeSandbox('asking-accept');
    try {
      const { client, call, pid, asked } = await connect(box, {
        elicit: () => ({ action: 'accept', content: { name: 'Ann' } }),
      });
      const result = await call({ name: 'greet', arguments: {} });
      assert.equal(lib.textOf(result).trim(), 'Hello, Ann!', JSON.stringify(result));
      assert.ok(!result.isError, JSON.stringify(result));
      checkWhoQuestion(era, asked);
      await finish(t, box, client, pid, checkOneRound(era, 'greet'));
    } finally {
      await box.dispose();
    }
  });

  test(`${name}: greet, the elicitation handler declines`, T, async (t) => {
    const box = lib.makeSandbox('asking-decline');
    try {
      const { client, call, pid, asked } = await connect(box, {
        elicit: () => ({ action: 'decline' }),
      });
      const result = await call({ name: 'greet', arguments: { greeting: 'Hi' } });
      assert.equal(lib.textOf(result).trim(), 'the user declined', JSON.stringify(result));
      assert.ok(!result.isError, JSON.stringify(result));
      checkWhoQuestion(era, asked);
      await finish(t, box, client, pid, checkOneRound(era, 'greet'));
    } finally {
      await box.dispose();
    }
  });

  test(`${name}: three_at_once, elicitation, sampling and roots handlers`, T, async (t) => {
    const box = lib.makeSandbox('asking-three');
    try {
      const { client, call, pid, asked } = await connect(box, {
        elicit: () => ({ action: 'accept' }),
        sample: () => ({
          role: 'assistant',
          content: { type: 'text', text: 'a few words' },
          model: 'm-1',
          stopReason: 'endTurn',
        }),
        roots: () => ({ roots: [{ uri: 'file:///a', name: 'A' }, { uri: 'file:///b' }] }),
      });
      const result = await call({ name: 'three_at_once', arguments: {} });
      assert.equal(
        lib.textOf(result).trim(),
        'go: yes\nwords: [a few words]\njson: "m-1"\nroot: file:///a\nroot: file:///b',
        JSON.stringify(result),
      );
      assert.ok(!result.isError, JSON.stringify(result));

      // Each handler was asked once, with what the tool asked for.
      const byMethod = Object.fromEntries(asked.map((a) => [a.method, a]));
      assert.deepEqual(
        asked.map((a) => a.method).sort(),
        ['elicitation/create', 'roots/list', 'sampling/createMessage'],
      );
      checkAskedBy(era, byMethod['elicitation/create'], 'go');
      checkAskedBy(era, byMethod['sampling/createMessage'], 'words');
      checkAskedBy(era, byMethod['roots/list'], 'where');
      const confirm = byMethod['elicitation/create'].params;
      assert.equal(confirm.message, 'Go ahead?');
      assert.deepEqual(confirm.requestedSchema, { type: 'object', properties: {} });
      const sampling = byMethod['sampling/createMessage'].params;
      assert.deepEqual(sampling.messages, [
        { role: 'user', content: { type: 'text', text: 'Say\ta few\nwords \\ please' } },
      ]);
      assert.equal(sampling.systemPrompt, 'Be brief');
      assert.equal(sampling.maxTokens, 7);
      await finish(t, box, client, pid, checkOneRound(era, 'three_at_once'));
    } finally {
      await box.dispose();
    }
  });

  test(`${name}: no sampling capability, needs_sampling is refused`, T, async (t) => {
    const box = lib.makeSandbox('asking-missing');
    try {
      // The client declares elicitation only.
      const { client, call, pid, asked } = await connect(box, {
        elicit: () => ({ action: 'accept', content: { name: 'Ann' } }),
      });
      const can = await call({ name: 'can', arguments: {} });
      assert.equal(
        lib.textOf(can).trim(),
        'elicitation: yes\nsampling: no\nroots: no',
        JSON.stringify(can),
      );

      const outcome = await call({ name: 'needs_sampling', arguments: {} }).then(
        (result) => ({ result }),
        (error) => ({ error }),
      );
      if (era === 'modern') {
        // A JSON-RPC error -32021 naming the capability.
        assert.ok(outcome.error, `the call must reject: ${JSON.stringify(outcome.result)}`);
        assert.equal(outcome.error.code, -32021, String(outcome.error));
        assert.ok(
          outcome.error instanceof MissingRequiredClientCapabilityError,
          String(outcome.error),
        );
        assert.deepEqual(outcome.error.data?.requiredCapabilities, { sampling: {} });
      } else {
        // A tool result with isError saying which capability is missing.
        assert.ok(outcome.result, `the call must resolve: ${outcome.error}`);
        assert.equal(outcome.result.isError, true, JSON.stringify(outcome.result));
        assert.match(lib.textOf(outcome.result), /sampling capability/);
      }
      assert.deepEqual(asked, [], 'no handler was asked');
      await finish(t, box, client, pid, (calls) => {
        assert.deepEqual(
          calls.map((r) => r.tool),
          ['can', 'needs_sampling'],
        );
        if (era === 'modern') {
          assert.equal(calls[1].rpcError?.code, -32021, JSON.stringify(calls[1]));
        }
      });
    } finally {
      await box.dispose();
    }
  });
}
