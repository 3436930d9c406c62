'use strict';
// The 2026-07-28 session: every method and every error class of product.md's table,
// progress and log notifications, and a cancelled call. Each request names the
// definition its response must satisfy.
const { Session } = require('./session');
const { modernExpect, success, toolError, structured } = require('./expect');

const VERSION = '2026-07-28';
const STEP_MS = 30000; // per batch of requests; generous for a loaded, sanitized build

function meta(extra = {}, version = VERSION) {
  return {
    'io.modelcontextprotocol/protocolVersion': version,
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'wire-conformance-test', version: '1.0.0' },
    ...extra,
  };
}

function call(name, args, extraMeta) {
  const params = { _meta: meta(extraMeta), name };
  if (args !== undefined) params.arguments = args;
  return params;
}

async function runModernSession(host, modern, validateTool) {
  const s = new Session(`${VERSION}`, host, modern);
  const x = modernExpect(modern);
  const tools = new Map();

  const supportsModern = (msg) => {
    const v = msg.result && msg.result.supportedVersions;
    return Array.isArray(v) && v.includes(VERSION) ? [] : [`supportedVersions must include ${VERSION}`];
  };
  // server/discover, like every request, refuses a version the host does not serve.
  s.request(1, 'server/discover', { _meta: meta() },
    x.result('DiscoverResultResponse', 'DiscoverResult', supportsModern));
  s.request('discover-unsupported', 'server/discover', { _meta: meta({}, '1999-01-01') },
    x.error('UnsupportedProtocolVersionError'));
  s.request(2, 'tools/list', { _meta: meta() }, x.result('ListToolsResultResponse', 'ListToolsResult', (msg) => {
    for (const t of (msg.result && msg.result.tools) || []) tools.set(t.name, t);
    const missing = ['hi', 'fail', 'book_tickets', 'report', 'linger', 'scores'].filter((n) => !tools.has(n));
    return missing.length ? [`tools/list lacks ${missing.join(', ')}`] : [];
  }));
  await s.settle(STEP_MS);

  // tools/call: the model's error class (isError results) and the client's (errors).
  const booking = { movieId: 2, showTime: '20:45', numTickets: 2, customerAge: 30 };
  const callResult = x.result('CallToolResultResponse', 'CallToolResult');
  const withVerify = (e, v) => ({ ...e, verify: (msg) => [...e.verify(msg), ...v(msg)] });
  s.request(10, 'tools/call', call('hi'), withVerify(callResult, success('hi')));
  s.request(11, 'tools/call', call('fail', { message: 'it broke' }), withVerify(callResult, toolError));
  s.request(12, 'tools/call', call('book_tickets', booking),
    withVerify(callResult, structured(tools, validateTool, 'book_tickets')));
  s.request(13, 'tools/call', call('scores', {}), withVerify(callResult, structured(tools, validateTool, 'scores')));
  s.request(14, 'tools/call', call('broken_output'), withVerify(callResult, toolError));
  const blockTypes = (want) => (msg) => {
    const got = ((msg.result && msg.result.content) || []).map((b) => b.type).join(',');
    return got === want ? [] : [`content types ${got}, wanted ${want}`];
  };
  s.request('every-block', 'tools/call', call('every_block'),
    withVerify(callResult, blockTypes('text,image,audio,resource,resource,resource_link')));
  s.request('input-violation', 'tools/call', call('book_tickets', { ...booking, numTickets: 'two' }),
    withVerify(callResult, toolError));
  s.request(15, 'tools/call', call('bad_utf8'), withVerify(callResult, success()));
  s.request(16, 'tools/call', call('no_such_tool', {}), x.error('InvalidParamsError'));
  s.request(17, 'tools/call', { _meta: meta(), arguments: {} }, x.error('InvalidParamsError'));
  s.request(18, 'tools/call', call('hi', [1, 2]), x.error('InvalidParamsError'));
  s.request(19, 'tools/call', call('hi', 'not an object'), x.error('InvalidParamsError'));
  s.request(20, 'tools/call', { name: 'hi' }, x.error('InvalidParamsError'));
  s.request(21, 'tools/list', undefined, x.error('InvalidParamsError'));
  const noVersion = meta();
  delete noVersion['io.modelcontextprotocol/protocolVersion'];
  s.request(22, 'tools/call', { _meta: noVersion, name: 'hi' }, x.error('InvalidParamsError'));
  const noCaps = meta();
  delete noCaps['io.modelcontextprotocol/clientCapabilities'];
  s.request(23, 'tools/list', { _meta: noCaps }, x.error('InvalidParamsError'));

  const requested = (version) => (msg) => {
    const d = msg.error && msg.error.data;
    const problems = [];
    if (!d || d.requested !== version) problems.push(`error.data.requested must be ${JSON.stringify(version)}`);
    if (!d || !Array.isArray(d.supported) || !d.supported.includes(VERSION))
      problems.push(`error.data.supported must include ${VERSION}`);
    return problems;
  };
  s.request(24, 'tools/call', { _meta: meta({}, '1999-01-01'), name: 'hi' },
    x.error('UnsupportedProtocolVersionError', requested('1999-01-01')));
  s.request(25, 'tools/list', { _meta: meta({}, '2099-12-31') },
    x.error('UnsupportedProtocolVersionError', requested('2099-12-31')));
  s.request(26, 'no/such/method', { _meta: meta() }, x.error('MethodNotFoundError'));
  s.request(27, 'resources/list', { _meta: meta() }, x.error('MethodNotFoundError'));

  // Envelope errors. Those without a usable id come back without one, in order.
  const list = (id) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list', params: { _meta: meta() } });
  s.send('{"jsonrpc": "2.0", "id": 30, "method": "tools/list", ',
    { label: 'invalid JSON', ...x.errorWithoutId('ParseError') });
  s.send(`[${list(31)}]`, { label: 'batch', ...x.errorWithoutId('InvalidRequestError') });
  s.send('[]', { label: 'empty batch', ...x.errorWithoutId('InvalidRequestError') });
  s.send(list(null), { label: 'null id', ...x.errorWithoutId('InvalidRequestError') });
  s.send('"a string"', { label: 'not an object', ...x.errorWithoutId('InvalidRequestError') });
  s.send(JSON.stringify({ jsonrpc: '2.0', id: { a: 1 }, method: 'tools/list' }),
    { label: 'object id', ...x.errorWithoutId('InvalidRequestError') });
  s.send(list(32).replace('"2.0"', '"1.0"'), { id: 32, label: 'jsonrpc 1.0', ...x.error('InvalidRequestError') });
  s.send(JSON.stringify({ id: 33, method: 'tools/list', params: { _meta: meta() } }),
    { id: 33, label: 'no jsonrpc member', ...x.error('InvalidRequestError') });
  s.send(JSON.stringify({ jsonrpc: '2.0', id: 34 }), { id: 34, label: 'no method', ...x.error('InvalidRequestError') });
  s.send(JSON.stringify({ jsonrpc: '2.0', id: 35, method: 'tools/list', params: [1] }),
    { id: 35, label: 'positional params', ...x.error('InvalidParamsError') });

  // Notifications are never answered, whatever is wrong with them.
  s.notify('notifications/initialized');
  s.notify('notifications/no-such-notification', { a: 1 });
  s.host.send(JSON.stringify({ jsonrpc: '1.0', method: 'notifications/initialized' }));
  s.notify('notifications/cancelled', { requestId: 'never-sent' });
  await s.settle(STEP_MS);

  // Progress and log notifications, each only when the request asked for it.
  const logLevel = (level) => ({ 'io.modelcontextprotocol/logLevel': level });
  s.request(40, 'tools/call', call('report', {}, { progressToken: 'tok-40', ...logLevel('info') }),
    { ...withVerify(callResult, success('reported')), progress: [2, 2], logs: [1, 1] });
  await s.settle(STEP_MS);
  s.request(41, 'tools/call', call('report', {}),
    { ...withVerify(callResult, success('reported')), progress: [0, 0], logs: [0, 0] });
  await s.settle(STEP_MS);
  s.request(42, 'tools/call', call('report', {}, { progressToken: 42, ...logLevel('error') }),
    { ...withVerify(callResult, success('reported')), progress: [2, 2], logs: [0, 0] });
  await s.settle(STEP_MS);

  // A cancelled call: wait until its tool runs, cancel it, and it must never be answered
  // (finish() fails if a response comes, or if the tool keeps the host from exiting).
  s.request(50, 'tools/call', call('linger', {}, { progressToken: 'tok-50' }), callResult);
  const linger = s.pending.get('50');
  await s.readUntil(() => linger.progressSeen > 0, STEP_MS, 'linger to report that it started');
  s.cancel(50);
  s.request(51, 'tools/call', call('hi'), withVerify(callResult, success('hi')));
  await s.settle(STEP_MS);
  await s.finish(60000);
  return s;
}

module.exports = { runModernSession, meta, VERSION };
