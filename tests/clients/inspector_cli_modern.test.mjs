// The MCP Inspector's CLI mode with --protocol-era modern and auto: the v2 SDK inside it
// probes with server/discover on the connection itself (the Inspector starts one host
// per run) and then sends per-request _meta, never initialize. The host runs through the
// sandbox wrapper, so every host process leaves its stderr and audit log.
import assert from 'node:assert/strict';
import test from 'node:test';

import * as lib from './lib.mjs';

const T = { timeout: 90000 };

// Every host the Inspector started spoke only 2026-07-28, answered without a JSON-RPC
// error, logged no problem, and is gone. Returns the methods the hosts received.
async function checkHosts(t, box, label) {
  assert.deepEqual(await box.leftovers(), [], 'no host or tool process is left');
  const hosts = box.hosts();
  assert.ok(hosts.size >= 1);
  const methods = [];
  for (const [pid, h] of hosts) {
    lib.showStderr(t, `${label} host ${pid}`, h.stderr);
    assert.deepEqual(lib.problemLines(h.stderr), [], `host ${pid} logged a problem`);
    for (const r of h.audit) {
      assert.equal(r.protocolVersion, '2026-07-28', JSON.stringify(r));
      assert.equal(r.rpcError, undefined, JSON.stringify(r));
      methods.push(r.method);
    }
  }
  t.diagnostic(`${label}: methods ${methods.join(' ')}`);
  assert.ok(!methods.includes('initialize'), methods.join(' '));
  assert.ok(methods.includes('server/discover'), methods.join(' '));
  return methods;
}

test('inspector --cli --protocol-era modern: list and a failing call', T, async (t) => {
  const box = lib.makeSandbox('inspector-modern');
  try {
    const target = ['--protocol-era', 'modern', box.wrapper, box.movies];
    const list = await lib.runInspector(box, [...target, '--method', 'tools/list']);
    assert.equal(list.code, 0, list.stderr);
    lib.checkMoviesToolList(list.json.result.tools);

    const fail = await lib.runInspector(box, [
      ...target,
      ...['--method', 'tools/call', '--tool-name', 'check_age'],
      ...['--tool-arg', 'movieId=4', '--tool-arg', 'customerAge=12'],
    ]);
    assert.equal(fail.code, 5, fail.stderr);
    lib.checkAgeTooYoung(fail.json.result);

    const methods = await checkHosts(t, box, 'modern');
    assert.ok(methods.includes('tools/list') && methods.includes('tools/call'), methods.join(' '));
  } finally {
    await box.dispose();
  }
});

test('inspector --cli --protocol-era auto: a structured call', T, async (t) => {
  const box = lib.makeSandbox('inspector-auto');
  try {
    const run = await lib.runInspector(box, [
      ...['--protocol-era', 'auto', box.wrapper, box.movies],
      ...['--method', 'tools/call', '--tool-name', 'book_tickets'],
      ...['--tool-args-json', JSON.stringify(lib.BOOKING)],
    ]);
    assert.equal(run.code, 0, run.stderr);
    lib.checkBooking(run.json.result);
    const methods = await checkHosts(t, box, 'auto');
    assert.ok(methods.includes('tools/call'), methods.join(' '));
  } finally {
    await box.dispose();
  }
});
