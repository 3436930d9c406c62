// The MCP Inspector's CLI mode (`npx @modelcontextprotocol/inspector --cli`) in its
// default protocol era for a command target, legacy: it starts the host itself over
// stdio, runs the initialize handshake and one method, and exits.
import assert from 'node:assert/strict';
import path from 'node:path';
import test from 'node:test';

import * as lib from './lib.mjs';

// The host's own log lines, as the Inspector passes the server's stderr through.
function hostLines(stderr) {
  return stderr.split('\n').filter((l) => l.includes(' mcp-shell-host '));
}

test('inspector --cli (legacy): list, call, failing call', { timeout: 90000 }, async () => {
  const box = lib.makeSandbox('inspector-legacy');
  try {
    const audit = path.join(box.dir, 'audit.jsonl');
    // -e: environment for the server. The host command line is as a user would type it.
    const target = ['-e', `${lib.MARKER}=${box.dir}`, lib.host, '--audit-log', audit, box.movies];

    const list = await lib.runInspector(box, [...target, '--method', 'tools/list']);
    assert.equal(list.code, 0, list.stderr);
    lib.checkMoviesToolList(list.json.result.tools);

    const ok = await lib.runInspector(box, [
      ...target,
      ...['--method', 'tools/call', '--tool-name', 'check_age'],
      ...['--tool-arg', 'movieId=1', '--tool-arg', 'customerAge=30'],
    ]);
    assert.equal(ok.code, 0, ok.stderr);
    lib.checkAgeOk(ok.json.result);

    const fail = await lib.runInspector(box, [
      ...target,
      ...['--method', 'tools/call', '--tool-name', 'check_age'],
      ...['--tool-arg', 'movieId=4', '--tool-arg', 'customerAge=12'],
    ]);
    // Exit 5 and an error envelope on stderr: the tool returned isError: true.
    assert.equal(fail.code, 5, fail.stderr);
    lib.checkAgeTooYoung(fail.json.result);
    assert.match(fail.stderr, /"code":"tool_is_error"/);

    for (const run of [list, ok, fail]) {
      assert.deepEqual(lib.problemLines(hostLines(run.stderr).join('\n')), []);
    }
    assert.deepEqual(await box.leftovers(), [], 'no host or tool process is left');

    // Three sessions, each initialize first; every request answered without an error.
    const records = lib.readJsonLines(audit);
    assert.equal(records.filter((r) => r.method === 'initialize').length, 3);
    assert.equal(records[0].method, 'initialize');
    assert.equal(records.filter((r) => r.method === 'tools/call').length, 2);
    for (const r of records) {
      assert.equal(r.protocolVersion, '2025-11-25', JSON.stringify(r));
      assert.equal(r.rpcError, undefined, JSON.stringify(r));
    }
  } finally {
    await box.dispose();
  }
});
