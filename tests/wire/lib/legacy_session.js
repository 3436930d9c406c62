'use strict';
// The legacy era (2025-11-25): a client that opens with initialize. When the host answers
// it with a result, the rest of the session is checked against the 2025-11-25 schema;
// when it answers with an error, that error is checked against the 2026-07-28 schema and
// the legacy part is reported as not run (wire_test.js counts that as a failure).
const { Session } = require('./session');
const { ERROR_DEFS, legacyExpect, success, toolError, structured } = require('./expect');
const { meta, VERSION } = require('./modern_session');

const LEGACY = '2025-11-25';
const STEP_MS = 30000;

async function runLegacySession(host, legacy, modern, validateTool) {
  const s = new Session(LEGACY, host, legacy);
  const x = legacyExpect(legacy);
  let initialize = null;
  s.request(1, 'initialize', {
    protocolVersion: LEGACY,
    capabilities: {},
    clientInfo: { name: 'wire-conformance-test', version: '1.0.0' },
  }, { checks: [], verify: (msg) => { initialize = msg; return []; } });
  await s.settle(STEP_MS);
  if (!initialize) {
    await s.finish(60000);
    return { session: s, skipped: 'initialize got no response' };
  }

  if (!('result' in initialize)) {
    // A modern-only host: its answer is a 2026-07-28 error, checked as such.
    const code = initialize.error && initialize.error.code;
    for (const [set, def, value] of [
      [modern, 'JSONRPCErrorResponse', initialize],
      [modern, ERROR_DEFS[String(code)], initialize.error],
    ]) {
      if (!def) continue;
      const error = set.check(def, value);
      if (error) s.fail(`initialize: ${error}\n    line: ${JSON.stringify(initialize)}`);
    }
    const text = JSON.stringify(initialize.error || {});
    const note = text.includes(VERSION)
      ? ''
      : ` (note: the spec says a modern-only server SHOULD name its versions, e.g. ${VERSION}, in this error)`;
    await s.finish(60000);
    return { session: s, skipped: `the host answered initialize with error ${code}${note}` };
  }
  const initError =
    legacy.check('JSONRPCResultResponse', initialize) || legacy.check('InitializeResult', initialize.result);
  if (initError) s.fail(`initialize: ${initError}\n    line: ${JSON.stringify(initialize)}`);

  s.notify('notifications/initialized');
  const tools = new Map();
  const booking = { movieId: 2, showTime: '20:45', numTickets: 2, customerAge: 30 };
  s.request(2, 'ping', undefined, x.result('EmptyResult'));
  s.request(3, 'tools/list', undefined, x.result('ListToolsResult', (msg) => {
    for (const t of (msg.result && msg.result.tools) || []) tools.set(t.name, t);
    return tools.has('hi') ? [] : ['tools/list lacks hi'];
  }));
  await s.settle(STEP_MS);
  s.request(4, 'tools/call', { name: 'hi' }, x.result('CallToolResult', success('hi')));
  s.request(5, 'tools/call', { name: 'fail', arguments: {} }, x.result('CallToolResult', toolError));
  s.request(6, 'tools/call', { name: 'book_tickets', arguments: booking },
    x.result('CallToolResult', structured(tools, validateTool, 'book_tickets')));
  // Array output: 2025-11-25 allows only object structuredContent; whatever the host
  // sends for it must still be a valid legacy CallToolResult.
  s.request(7, 'tools/call', { name: 'scores', arguments: {} }, x.result('CallToolResult'));
  s.request('every-block', 'tools/call', { name: 'every_block', arguments: {} }, x.result('CallToolResult'));
  s.request(8, 'tools/call', { name: 'book_tickets', arguments: { ...booking, numTickets: 'two' } },
    x.result('CallToolResult', toolError));
  s.request(9, 'tools/call', { name: 'no_such_tool', arguments: {} }, x.error(-32602));
  s.request(10, 'no/such/method', {}, x.error(-32601));
  await s.settle(STEP_MS);
  // Progress is optional (MAY); whatever arrives must be a legacy ProgressNotification.
  // Before logging/setLevel no log notification may come (the host declares logging).
  s.request(11, 'tools/call', { _meta: { progressToken: 'legacy-11' }, name: 'report', arguments: {} },
    { ...x.result('CallToolResult', success('reported')), progress: [0, 2] });
  await s.settle(STEP_MS);
  s.request(13, 'logging/setLevel', { level: 'warning' }, x.result('EmptyResult'));
  await s.settle(STEP_MS);
  // After it, the tool's warning arrives as a legacy LoggingMessageNotification; its
  // debug line does not.
  s.request(14, 'tools/call', { name: 'report', arguments: {} },
    { ...x.result('CallToolResult', success('reported')), logLevel: 'warning', logs: [1, 1] });
  await s.settle(STEP_MS);
  // A dual-era host MAY also serve modern requests in the same process: whatever it
  // answers must then be a 2026-07-28 response.
  s.request(12, 'tools/list', { _meta: meta() }, {
    checks: [],
    verify: (msg) => {
      const checks = 'result' in msg
        ? [['ListToolsResultResponse', msg], ['ListToolsResult', msg.result]]
        : [['JSONRPCErrorResponse', msg]];
      return checks.map(([def, v]) => modern.check(def, v)).filter(Boolean);
    },
  });
  await s.settle(STEP_MS);
  await s.finish(60000);
  return { session: s, skipped: null };
}

module.exports = { runLegacySession };
