// The tasks of MCP 2025-11-25 through the SDK v1 client's experimental tasks API
// (`client.experimental.tasks`: callToolStream, getTask, getTaskResult, listTasks,
// cancelTask), over stdio, against tests/fixtures/clients_tasks/tasks.sh.
//
// How SDK v1 (1.32.2) drives a task: callToolStream sends tools/call with `task` (its own
// choice when tools/list said the tool's execution.taskSupport is optional or required and
// initialize advertised tasks.requests.tools.call, or the caller's `task` option), yields
// `taskCreated`, then polls tasks/get every pollInterval (the host says 500 ms) and yields
// each answer as `taskStatus`. At `completed` it calls tasks/result and yields `result`; at
// `failed` or `cancelled` it yields an `error` (-32603, "Task … failed" / "was cancelled")
// without asking for the result; at `input_required` it calls tasks/result, which blocks
// until the end, and yields `result`.
//
// Nothing waits for a fixed time: a tool that must still run when the test looks holds on
// a file the test creates once it has seen what it waits for, or runs until cancelled.
//
// SDK v2 (@modelcontextprotocol/client 2.4.0) has no client API for tasks of either era: its
// codecs know the 2025-11-25 task messages, its Client has no method that sends them. Its
// companion package @modelcontextprotocol/ext-tasks (pinned in package.json) has one: a
// session over a connected v2 Client (createTaskSessionFromClient) whose callTool makes a
// task when the tool's declaration or the call's `task.preference` asks for one, follows it
// through notifications/tasks/status (polling tasks/get when none comes within the
// pollInterval), gets the result with tasks/result, and answers the tool's questions
// through `onInputRequest`. The last tests here use it on a v2
// Client in its default (initialize, 2025-11-25) mode. (Its 2026-07-28 side needs a raw
// JSON-RPC path of the application's own, `rawDispatch`: the v2 Client refuses the
// extension's messages; not tested.)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';

import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as TransportV2 } from '@modelcontextprotocol/client/stdio';
import {
  TaskFailedError,
  createTaskSessionFromClient,
  toolDeclarationFromMcpTool,
} from '@modelcontextprotocol/ext-tasks/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  CallToolResultSchema,
  ElicitRequestSchema,
  McpError,
  TaskStatusNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';

import * as lib from './lib.mjs';

const CLIENT = { name: 'tasks-test', version: '1.0.0' };
const T = { timeout: 60000 };
const RELATED = 'io.modelcontextprotocol/related-task';
const WHO_SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string' } },
  required: ['name'],
};

// A copy of the fixture in the sandbox, so that its processes name the sandbox directory.
function tasksScript(box) {
  const script = path.join(box.dir, 'tasks.sh');
  fs.copyFileSync(path.join(lib.root, 'tests', 'fixtures', 'clients_tasks', 'tasks.sh'), script);
  return script;
}

// A v1 client on a host serving the fixture. `elicit` (params -> result), when given, is
// the elicitation handler (and the client declares the capability). Records every
// notifications/tasks/status (`statuses`) and every elicitation request (`asked`).
async function connect(box, { elicit } = {}) {
  const capabilities = elicit ? { elicitation: {} } : {};
  const client = box.track(new Client(CLIENT, { capabilities }));
  const statuses = [];
  const asked = [];
  client.setNotificationHandler(TaskStatusNotificationSchema, (n) => {
    statuses.push(n.params);
  });
  if (elicit) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params);
      return elicit(request.params);
    });
  }
  const transport = new StdioClientTransport({ command: box.wrapper, args: [tasksScript(box)] });
  await client.connect(transport);
  return { client, tasks: client.experimental.tasks, pid: transport.pid, statuses, asked };
}

// Runs a callToolStream to its end; `onMessage(message)` sees each message as it comes
// (and may await: the stream waits). Returns the messages.
async function drain(stream, onMessage = async () => {}) {
  const messages = [];
  for await (const message of stream) {
    messages.push(message);
    await onMessage(message);
  }
  return messages;
}

// The shape every stream of a task has: taskCreated first, then taskStatus messages of
// that task, the last one `finalStatus`, then one `result` or `error` (returned).
function checkTaskStream(messages, finalStatus) {
  const show = JSON.stringify(messages);
  assert.ok(messages.length >= 3, show);
  const [created, ...rest] = messages;
  const last = rest.pop();
  assert.equal(created.type, 'taskCreated', show);
  const { task } = created;
  assert.match(task.taskId, /^[A-Za-z0-9_-]{22}$/, 'a base64url id of 128 bits');
  assert.equal(task.status, 'working', show);
  assert.equal(typeof task.createdAt, 'string');
  assert.ok(!Number.isNaN(Date.parse(task.createdAt)), task.createdAt);
  assert.equal(typeof task.lastUpdatedAt, 'string');
  assert.equal(typeof task.ttl, 'number', 'the host keeps tasks for a while');
  assert.equal(task.pollInterval, 500);
  assert.ok(rest.length >= 1, show);
  for (const m of rest) {
    assert.equal(m.type, 'taskStatus', show);
    assert.equal(m.task.taskId, task.taskId, show);
  }
  const statuses = rest.map((m) => m.task.status);
  assert.equal(statuses.at(-1), finalStatus, show);
  // Only the last poll found the task ended (terminal statuses never change).
  for (const s of statuses.slice(0, -1)) {
    assert.ok(s === 'working' || s === 'input_required', show);
  }
  // A task that has ended is not polled for: no pollInterval.
  if (['completed', 'failed', 'cancelled'].includes(finalStatus)) {
    assert.equal(rest.at(-1).task.pollInterval, undefined, show);
  }
  return { taskId: task.taskId, last, polls: rest.map((m) => m.task) };
}

// The result of tasks/result: what the call returned, tagged with its task.
function checkRelated(result, taskId) {
  assert.deepEqual(result._meta?.[RELATED], { taskId }, JSON.stringify(result));
}

// After close: no process left, nothing logged at warning or error level. Returns the
// session host's audit records.
async function finish(t, box, client, pid) {
  await client.close();
  assert.deepEqual(await box.leftovers(), [], 'no host or tool process is left');
  const hosts = box.hosts();
  assert.ok(hosts.has(pid), `the session host ${pid} left its record`);
  for (const [p, h] of hosts) {
    lib.showStderr(t, `host ${p}`, h.stderr);
    assert.deepEqual(lib.problemLines(h.stderr), [], `host ${p} logged a problem`);
  }
  return hosts.get(pid).audit;
}

// How a promise ended: { result } or { error }.
function settle(promise) {
  return promise.then(
    (result) => ({ result }),
    (error) => ({ error }),
  );
}

test("initialize advertises tasks; tools/list each tool's taskSupport", T, async (t) => {
  const box = lib.makeSandbox('tasks-list');
  try {
    const { client, pid } = await connect(box);
    assert.deepEqual(client.getServerCapabilities()?.tasks, {
      list: {},
      cancel: {},
      requests: { tools: { call: {} } },
    });
    const byName = Object.fromEntries((await client.listTools()).tools.map((x) => [x.name, x]));
    assert.deepEqual(Object.keys(byName).sort(), [
      'broken',
      'forever',
      'greet',
      'only_task',
      'plain',
      'steps',
    ]);
    for (const name of ['steps', 'broken', 'greet', 'forever']) {
      assert.deepEqual(byName[name].execution, { taskSupport: 'optional' }, name);
    }
    assert.deepEqual(byName.only_task.execution, { taskSupport: 'required' });
    // No @task: no execution (taskSupport "forbidden" by default).
    assert.equal(byName.plain.execution, undefined);
    // What the SDK concluded from it.
    assert.equal(client.isToolTask('steps'), true);
    assert.equal(client.isToolTaskRequired('only_task'), true);
    assert.equal(client.isToolTask('plain'), false);
    await finish(t, box, client, pid);
  } finally {
    await box.dispose();
  }
});

test('callToolStream after tools/list: the SDK asks for a task by itself', T, async (t) => {
  const box = lib.makeSandbox('tasks-auto');
  try {
    const { client, tasks, pid, statuses } = await connect(box);
    await client.listTools();
    // steps waits for `gate` after it has reported 1 of 2; the test creates it once a poll
    // shows that report as the status message.
    const gate = path.join(box.dir, 'gate');
    const progress = [];
    const stream = tasks.callToolStream(
      { name: 'steps', arguments: { gate, name: 'auto' } },
      CallToolResultSchema,
      { onprogress: (p) => progress.push(p) },
    );
    const messages = await drain(stream, async (m) => {
      if (m.type === 'taskStatus' && m.task.statusMessage === 'half (1/2)') {
        fs.writeFileSync(gate, '');
      }
    });
    t.diagnostic(`stream: ${JSON.stringify(messages)}`);
    const { taskId, last, polls } = checkTaskStream(messages, 'completed');
    assert.ok(fs.existsSync(gate), 'a poll showed the progress as the status message');
    // Every poll before the last said "working", its message following the tool's.
    const messagesSeen = [undefined, 'started', 'half (1/2)', 'all (2/2)'];
    for (const p of polls.slice(0, -1)) {
      assert.equal(p.status, 'working', JSON.stringify(polls));
      assert.ok(messagesSeen.includes(p.statusMessage), p.statusMessage);
    }

    assert.equal(last.type, 'result', JSON.stringify(last));
    assert.equal(lib.textOf(last.result).trim(), 'done auto');
    assert.ok(!last.result.isError, JSON.stringify(last.result));
    checkRelated(last.result, taskId);

    // The client's progress token stays valid for the task: both reports reached
    // onprogress, tagged with the task.
    assert.deepEqual(progress, [
      { progress: 1, total: 2, message: 'half', _meta: { [RELATED]: { taskId } } },
      { progress: 2, total: 2, message: 'all', _meta: { [RELATED]: { taskId } } },
    ]);

    // notifications/tasks/status at each change (without related-task metadata: the task
    // id is in the params), ending with completed.
    t.diagnostic(`notifications/tasks/status: ${JSON.stringify(statuses)}`);
    assert.ok(statuses.length >= 1);
    for (const s of statuses) {
      assert.equal(s.taskId, taskId);
      assert.equal(s._meta?.[RELATED], undefined, JSON.stringify(s));
    }
    assert.deepEqual(
      statuses.map((s) => s.statusMessage),
      ['started', 'half (1/2)', 'all (2/2)', undefined],
    );
    assert.deepEqual(
      statuses.map((s) => s.status),
      ['working', 'working', 'working', 'completed'],
    );

    // tasks/get after the end: the same task, still kept; tasks/result again: the same result.
    const task = await tasks.getTask(taskId);
    assert.equal(task.status, 'completed');
    assert.deepEqual(task, polls.at(-1));
    assert.deepEqual(await tasks.getTaskResult(taskId, CallToolResultSchema), last.result);

    const audit = await finish(t, box, client, pid);
    const call = audit.find((r) => r.method === 'tools/call');
    assert.equal(call?.tool, 'steps', JSON.stringify(audit));
    assert.equal(call.outcome, 'task', JSON.stringify(call));
    for (const r of audit) assert.equal(r.rpcError, undefined, JSON.stringify(r));
  } finally {
    await box.dispose();
  }
});

test('callToolStream with an explicit task, without tools/list', T, async (t) => {
  const box = lib.makeSandbox('tasks-explicit');
  try {
    const { client, tasks, pid } = await connect(box);
    const gate = path.join(box.dir, 'gate');
    fs.writeFileSync(gate, '');
    // Without tools/list the SDK does not know steps takes tasks: a plain call, one result.
    const plain = await drain(
      tasks.callToolStream({ name: 'steps', arguments: { gate, name: 'plain' } }),
    );
    assert.deepEqual(
      plain.map((m) => m.type),
      ['result'],
      JSON.stringify(plain),
    );
    assert.equal(lib.textOf(plain[0].result).trim(), 'done plain');
    assert.equal(plain[0].result._meta?.[RELATED], undefined);

    // With `task` (a requested ttl, which the host may override) it is a task.
    const messages = await drain(
      tasks.callToolStream(
        { name: 'steps', arguments: { gate, name: 'explicit' } },
        CallToolResultSchema,
        { task: { ttl: 60000 } },
      ),
    );
    t.diagnostic(`stream: ${JSON.stringify(messages)}`);
    const { taskId, last } = checkTaskStream(messages, 'completed');
    assert.equal(last.type, 'result', JSON.stringify(last));
    assert.equal(lib.textOf(last.result).trim(), 'done explicit');
    checkRelated(last.result, taskId);

    const audit = await finish(t, box, client, pid);
    // A task's call leaves two records: its answer (the task) and, with the same id, the
    // end of its run.
    assert.deepEqual(
      audit.filter((r) => r.method === 'tools/call').map((r) => [r.id, r.outcome, r.exitStatus]),
      [
        [1, 'ok', 0],
        [2, 'task', undefined],
        [2, 'ok', 0],
      ],
      JSON.stringify(audit),
    );
  } finally {
    await box.dispose();
  }
});

test('a tool that fails: the task is failed, tasks/result has the isError result', T, async (t) => {
  const box = lib.makeSandbox('tasks-failed');
  try {
    const { client, tasks, pid, statuses } = await connect(box);
    await client.listTools();
    const messages = await drain(tasks.callToolStream({ name: 'broken', arguments: {} }));
    t.diagnostic(`stream: ${JSON.stringify(messages)}`);
    const { taskId, last, polls } = checkTaskStream(messages, 'failed');
    // 2025-11-25: a tool result with isError makes the task failed. SDK v1 then ends the
    // stream with an error of its own, without asking for the result.
    assert.equal(polls.at(-1).statusMessage, 'the tool failed');
    assert.equal(last.type, 'error', JSON.stringify(last));
    assert.ok(last.error instanceof McpError, String(last.error));
    assert.equal(last.error.code, -32603);
    assert.match(last.error.message, new RegExp(`Task ${taskId} failed`));
    assert.equal(statuses.at(-1)?.status, 'failed', JSON.stringify(statuses));

    // The result is there for the asking: what the call would have returned.
    const result = await tasks.getTaskResult(taskId, CallToolResultSchema);
    assert.equal(result.isError, true, JSON.stringify(result));
    assert.equal(lib.textOf(result).trim(), 'it broke');
    checkRelated(result, taskId);

    // An ended task cannot be cancelled: -32602.
    const again = await settle(tasks.cancelTask(taskId));
    assert.equal(again.error?.code, -32602, String(again.error ?? JSON.stringify(again.result)));
    await finish(t, box, client, pid);
  } finally {
    await box.dispose();
  }
});

test('a tool that asks inside a task: elicitation/create tagged with the task', T, async (t) => {
  const box = lib.makeSandbox('tasks-elicit');
  try {
    // The elicitation handler answers only once the stream has shown the task
    // input_required: SDK v1 then calls tasks/result, which waits for the end and brings
    // the result (had the handler answered at once, a poll could as well have found the
    // task working or completed).
    let tasks;
    let seenWaiting;
    const waiting = new Promise((resolve) => (seenWaiting = resolve));
    const during = [];
    const conn = await connect(box, {
      elicit: async (params) => {
        // While the host waits for this answer, tasks/get says input_required.
        during.push(await tasks.getTask(params._meta[RELATED].taskId));
        await waiting;
        return { action: 'accept', content: { name: 'Ann' } };
      },
    });
    tasks = conn.tasks;
    const { client, pid, statuses, asked } = conn;
    await client.listTools();
    const stream = tasks.callToolStream({ name: 'greet', arguments: {} });
    const messages = await drain(stream, async (m) => {
      if (m.type === 'taskStatus' && m.task.status === 'input_required') seenWaiting();
    });
    t.diagnostic(`stream: ${JSON.stringify(messages)}`);
    const { taskId, last, polls } = checkTaskStream(messages, 'input_required');
    assert.equal(polls.at(-1).statusMessage, "waiting for the client's answer");
    assert.equal(last.type, 'result', JSON.stringify(last));
    assert.equal(lib.textOf(last.result).trim(), 'Hello, Ann!');
    assert.ok(!last.result.isError, JSON.stringify(last.result));
    checkRelated(last.result, taskId);

    // One question, as the tool asked it, carrying the task it belongs to.
    assert.equal(asked.length, 1, JSON.stringify(asked));
    assert.equal(asked[0].message, 'Who is there?');
    assert.deepEqual(asked[0].requestedSchema, WHO_SCHEMA);
    assert.deepEqual(asked[0]._meta, { [RELATED]: { taskId } });
    assert.equal(during.length, 1);
    assert.equal(during[0].taskId, taskId);
    assert.equal(during[0].status, 'input_required', JSON.stringify(during));

    // The status notifications tell the same story: working, waiting, working, completed.
    t.diagnostic(`notifications/tasks/status: ${JSON.stringify(statuses)}`);
    assert.deepEqual(
      statuses.map((s) => [s.status, s.statusMessage]),
      [
        ['working', 'asking'],
        ['input_required', "waiting for the client's answer"],
        ['working', 'working'],
        ['completed', undefined],
      ],
    );
    assert.equal((await tasks.getTask(taskId)).status, 'completed');
    const audit = await finish(t, box, client, pid);
    assert.deepEqual(
      audit.filter((r) => r.method === 'tools/call').map((r) => r.outcome),
      ['task', 'ok'],
      JSON.stringify(audit),
    );
  } finally {
    await box.dispose();
  }
});

test('tasks/list shows the tasks; tasks/cancel stops a running one', T, async (t) => {
  const box = lib.makeSandbox('tasks-cancel');
  try {
    const { client, tasks, pid } = await connect(box);
    await client.listTools();
    assert.deepEqual(await tasks.listTasks(), { tasks: [] });

    // One task that completes.
    const gate = path.join(box.dir, 'gate');
    fs.writeFileSync(gate, '');
    const done = checkTaskStream(
      await drain(tasks.callToolStream({ name: 'steps', arguments: { gate, name: 'one' } })),
      'completed',
    );

    // One that runs until it is cancelled: forever writes the pids of its bash and of a
    // background sleep (command line `tag`), then sleeps.
    const tag = `task-forever-${path.basename(box.dir)}`;
    let cancelled;
    let running;
    let listed;
    const messages = await drain(
      tasks.callToolStream({ name: 'forever', arguments: { dir: box.dir, tag } }),
      async (m) => {
        if (m.type !== 'taskCreated') return;
        const pids = path.join(box.dir, 'pids');
        assert.ok(await lib.waitFor(() => fs.existsSync(pids)), 'forever started');
        const [bash, sleep] = fs.readFileSync(pids, 'utf8').trim().split(' ').map(Number);
        running = box.processes().filter((p) => p.pid === bash || p.pid === sleep);
        assert.equal(running.length, 2, JSON.stringify(box.processes()));
        assert.ok(running.some((p) => p.cmdline === `${tag} 300`), JSON.stringify(running));
        listed = await tasks.listTasks();
        cancelled = await tasks.cancelTask(m.task.taskId);
      },
    );
    t.diagnostic(`stream: ${JSON.stringify(messages)}`);
    const forever = checkTaskStream(messages, 'cancelled');
    assert.equal(forever.last.type, 'error', JSON.stringify(forever.last));
    assert.equal(forever.last.error.code, -32603);
    assert.match(forever.last.error.message, /was cancelled/);

    // tasks/list while forever ran: both tasks, in the order they were made.
    assert.deepEqual(
      listed.tasks.map((x) => [x.taskId, x.status]),
      [
        [done.taskId, 'completed'],
        [forever.taskId, 'working'],
      ],
      JSON.stringify(listed),
    );
    assert.equal(listed.nextCursor, undefined);
    // The answer to tasks/cancel is the task, already cancelled.
    assert.equal(cancelled.taskId, forever.taskId);
    assert.equal(cancelled.status, 'cancelled', JSON.stringify(cancelled));

    // The tool's processes are gone, the background sleep too; the session goes on.
    const pids = new Set(running.map((p) => p.pid));
    const left = () =>
      box.processes().filter((p) => pids.has(p.pid) || p.cmdline.startsWith(tag));
    await lib.waitFor(() => left().length === 0);
    assert.deepEqual(left(), [], "the task's processes are gone");

    // It stays cancelled, and tasks/list says so; cancelling it again is -32602.
    assert.equal((await tasks.getTask(forever.taskId)).status, 'cancelled');
    const after = await tasks.listTasks();
    assert.deepEqual(
      after.tasks.map((x) => [x.taskId, x.status]),
      [
        [done.taskId, 'completed'],
        [forever.taskId, 'cancelled'],
      ],
    );
    const again = await settle(tasks.cancelTask(forever.taskId));
    assert.equal(again.error?.code, -32602, String(again.error ?? JSON.stringify(again.result)));
    // tasks/result of a cancelled task: a JSON-RPC error (the call never had a result).
    const result = await settle(tasks.getTaskResult(forever.taskId, CallToolResultSchema));
    assert.ok(result.error, `tasks/result must fail: ${JSON.stringify(result.result)}`);
    assert.equal(result.error.code, -32603, String(result.error));
    // An unknown task: -32602.
    const unknown = await settle(tasks.getTask('no-such-task'));
    assert.equal(unknown.error?.code, -32602, String(unknown.error));

    const audit = await finish(t, box, client, pid);
    assert.deepEqual(
      audit.filter((r) => r.method === 'tools/call').map((r) => [r.tool, r.outcome]),
      [
        ['steps', 'task'],
        ['steps', 'ok'],
        ['forever', 'task'],
        ['forever', 'cancelled'],
      ],
      JSON.stringify(audit),
    );
  } finally {
    await box.dispose();
  }
});

test('closing the session ends a running task and its processes', T, async (t) => {
  const box = lib.makeSandbox('tasks-close');
  try {
    const { client, tasks, pid } = await connect(box);
    await client.listTools();
    const tag = `task-close-${path.basename(box.dir)}`;
    const stream = tasks.callToolStream({ name: 'forever', arguments: { dir: box.dir, tag } });
    const first = await stream.next();
    assert.equal(first.value?.type, 'taskCreated', JSON.stringify(first));
    const pids = path.join(box.dir, 'pids');
    assert.ok(await lib.waitFor(() => fs.existsSync(pids)), 'forever started');
    assert.ok(box.processes().some((p) => p.cmdline.startsWith(tag)), 'its sleep runs');
    // The host stops with its client: the task fails, its process group is ended.
    await client.close();
    const rest = [];
    for await (const m of stream) rest.push(m);
    assert.equal(rest.at(-1)?.type, 'error', JSON.stringify(rest));
    assert.deepEqual(await box.leftovers(), [], 'no host or tool process is left');
    const host = box.hosts().get(pid);
    lib.showStderr(t, `host ${pid}`, host.stderr);
    assert.deepEqual(lib.problemLines(host.stderr), []);
  } finally {
    await box.dispose();
  }
});

test('@task required: a plain tools/call is -32601, a task call runs', T, async (t) => {
  const box = lib.makeSandbox('tasks-required');
  try {
    const { client, tasks, pid } = await connect(box);
    // Before tools/list the SDK sends the plain call: the host refuses it.
    const plain = await settle(client.callTool({ name: 'only_task', arguments: {} }));
    assert.ok(plain.error instanceof McpError, String(plain.error ?? JSON.stringify(plain.result)));
    assert.equal(plain.error.code, -32601);
    assert.match(plain.error.message, /only_task runs only as a task/);

    // After tools/list the SDK refuses it itself (-32600), sending nothing.
    await client.listTools();
    const guarded = await settle(client.callTool({ name: 'only_task', arguments: {} }));
    assert.equal(guarded.error?.code, -32600, String(guarded.error));
    assert.match(guarded.error.message, /requires task-based execution/);

    // A task on a tool without @task (taskSupport forbidden) is -32601 too.
    const forbidden = await drain(
      tasks.callToolStream({ name: 'plain', arguments: {} }, CallToolResultSchema, { task: {} }),
    );
    assert.deepEqual(
      forbidden.map((m) => m.type),
      ['error'],
      JSON.stringify(forbidden),
    );
    assert.equal(forbidden[0].error.code, -32601, String(forbidden[0].error));
    assert.match(forbidden[0].error.message, /plain does not run as a task/);

    // As a task it runs.
    const messages = await drain(tasks.callToolStream({ name: 'only_task', arguments: {} }));
    const { taskId, last } = checkTaskStream(messages, 'completed');
    assert.equal(lib.textOf(last.result).trim(), 'ran as asked');
    checkRelated(last.result, taskId);

    const audit = await finish(t, box, client, pid);
    const calls = audit.filter((r) => r.method === 'tools/call');
    // The SDK's own refusal never reached the host.
    assert.deepEqual(
      calls.map((r) => [r.tool, r.rpcError?.code ?? r.outcome]),
      [
        ['only_task', -32601],
        ['plain', -32601],
        ['only_task', 'task'],
        ['only_task', 'ok'],
      ],
      JSON.stringify(calls),
    );
  } finally {
    await box.dispose();
  }
});

// --- SDK v2 with @modelcontextprotocol/ext-tasks -----------------------------------------

// A v2 Client (default mode: initialize, 2025-11-25) on a host serving the fixture, and an
// ext-tasks session over it that knows the tools from tools/list. `onInputRequest`, when
// given, answers the tool's questions (the client then declares elicitation).
async function connectExtTasks(box, { onInputRequest } = {}) {
  const capabilities = onInputRequest ? { elicitation: {} } : {};
  const client = box.track(new ClientV2(CLIENT, { capabilities }));
  const transport = new TransportV2({ command: box.wrapper, args: [tasksScript(box)] });
  await client.connect(transport);
  assert.equal(client.getNegotiatedProtocolVersion(), '2025-11-25');
  const tools = new Map((await client.listTools()).tools.map((x) => [x.name, x]));
  const session = createTaskSessionFromClient(client, {
    endpointId: `mcp-shell-host ${box.dir}`,
    tools: {
      currentTool: (name) => tools.has(name) && toolDeclarationFromMcpTool(tools.get(name)),
    },
    onInputRequest,
  });
  return { client, session, pid: transport.pid };
}

test('ext-tasks: preference decides, events follow the task, the result', T, async (t) => {
  const box = lib.makeSandbox('ext-tasks-call');
  try {
    const { client, session, pid } = await connectExtTasks(box);
    assert.deepEqual(session.capabilities, {
      inventory: 'server-list',
      execution: true,
      cancellation: true,
      inputResponses: false,
      requestedRetention: true,
    });
    const gate = path.join(box.dir, 'gate');
    // taskSupport optional, no preference: a plain call.
    fs.writeFileSync(`${gate}-open`, '');
    const plain = await session.callTool('steps', { gate: `${gate}-open`, name: 'plain' });
    assert.equal(plain.kind, 'immediate');
    const settledPlain = await plain.settle();
    assert.equal(settledPlain.outcome.status, 'completed');
    assert.equal(lib.textOf(settledPlain.outcome.result).trim(), 'done plain');

    // `prefer`: a task. steps holds until the test has seen its progress as the status.
    const execution = await session.callTool(
      'steps',
      { gate, name: 'preferred' },
      { task: { preference: 'prefer' } },
    );
    assert.equal(execution.kind, 'task');
    const { taskId } = execution.handle;
    const events = [];
    const { outcome, lastTask } = await execution.settle({
      onEvent: (e) => {
        events.push(e.type === 'task' ? [e.task.status, e.task.statusMessage] : e.outcome.status);
        if (e.type === 'task' && e.task.statusMessage === 'half (1/2)') fs.writeFileSync(gate, '');
      },
    });
    t.diagnostic(`events: ${JSON.stringify(events)}`);
    assert.ok(fs.existsSync(gate), 'an event showed the progress as the status message');
    assert.equal(outcome.status, 'completed', JSON.stringify(outcome));
    assert.equal(lib.textOf(outcome.result).trim(), 'done preferred');
    checkRelated(outcome.result, taskId);
    // Events: the task as notifications/tasks/status showed it, then the outcome (tasks/result).
    // Whether the "completed" notification is seen before tasks/result's answer is the
    // client's affair: both come, in that order, on stdout.
    assert.equal(lastTask.taskId, taskId);
    assert.equal(events.at(-1), 'completed');
    assert.deepEqual(events[0], ['working', undefined]);
    assert.ok(
      events.slice(0, -1).every(([status]) => status === 'working' || status === 'completed'),
      JSON.stringify(events),
    );

    // taskSupport required: a task without asking.
    const only = await session.callTool('only_task', {});
    assert.equal(only.kind, 'task');
    const settledOnly = await only.settle();
    assert.equal(lib.textOf(settledOnly.outcome.result).trim(), 'ran as asked');

    await session.close();
    const audit = await finish(t, box, client, pid);
    assert.deepEqual(
      audit.filter((r) => r.method === 'tools/call').map((r) => [r.tool, r.outcome]),
      [
        ['steps', 'ok'],
        ['steps', 'task'],
        ['steps', 'ok'],
        ['only_task', 'task'],
        ['only_task', 'ok'],
      ],
      JSON.stringify(audit),
    );
  } finally {
    await box.dispose();
  }
});

test('ext-tasks: a question inside a task, a failed task, a cancelled one', T, async (t) => {
  const box = lib.makeSandbox('ext-tasks-more');
  try {
    const asked = [];
    const { client, session, pid } = await connectExtTasks(box, {
      onInputRequest: async (request, context) => {
        asked.push({ request, context: { ...context, signal: undefined } });
        return { action: 'accept', content: { name: 'Ann' } };
      },
    });

    // greet asks (elicitation/create with related-task) while its task runs. It waits for
    // `start` until callTool has returned: ext-tasks 0.2.2 answers a question about a task
    // whose CreateTaskResult it has read but not yet registered with an error
    // (InputCorrelationError "zero-matches", which the tool sees as a refusal).
    const start = path.join(box.dir, 'start');
    const greet = await session.callTool('greet', { start }, { task: { preference: 'require' } });
    fs.writeFileSync(start, '');
    const greeted = await greet.settle();
    assert.equal(greeted.outcome.status, 'completed', JSON.stringify(greeted.outcome));
    assert.equal(lib.textOf(greeted.outcome.result).trim(), 'Hello, Ann!');
    const { taskId } = greet.handle;
    assert.equal(asked.length, 1, JSON.stringify(asked));
    assert.equal(asked[0].request.kind, 'elicitation');
    assert.equal(asked[0].request.params.message, 'Who is there?');
    assert.deepEqual(asked[0].request.params._meta, { [RELATED]: { taskId } });
    assert.equal(asked[0].context.scope, 'task');
    assert.equal(asked[0].context.delivery, 'peer-request');
    assert.equal(asked[0].context.taskId, taskId);

    // broken: failed, with the host's status message.
    const broken = await session.callTool('broken', {}, { task: { preference: 'require' } });
    const failed = await broken.settle();
    assert.equal(failed.outcome.status, 'failed', JSON.stringify(failed.outcome));
    assert.ok(failed.outcome.error instanceof TaskFailedError, String(failed.outcome.error));
    assert.equal(failed.outcome.error.message, 'the tool failed');

    // forever: cancelled through the execution, its processes end.
    const tag = `ext-forever-${path.basename(box.dir)}`;
    const forever = await session.callTool(
      'forever',
      { dir: box.dir, tag },
      { task: { preference: 'require' } },
    );
    const pids = path.join(box.dir, 'pids');
    assert.ok(await lib.waitFor(() => fs.existsSync(pids)), 'forever started');
    const [bash, sleep] = fs.readFileSync(pids, 'utf8').trim().split(' ').map(Number);
    const left = () =>
      box.processes().filter((p) => p.pid === bash || p.pid === sleep || p.cmdline.startsWith(tag));
    assert.equal(left().length, 2, JSON.stringify(box.processes()));
    await forever.cancel();
    const cancelled = await forever.settle();
    assert.equal(cancelled.outcome.status, 'cancelled', JSON.stringify(cancelled.outcome));
    await lib.waitFor(() => left().length === 0);
    assert.deepEqual(left(), [], "the task's processes are gone");

    // The session's inventory (tasks/list): the three tasks and how they ended.
    const listed = await session.listTasks();
    assert.deepEqual(
      listed.tasks.map((x) => x.status),
      ['completed', 'failed', 'cancelled'],
      JSON.stringify(listed),
    );
    assert.equal(listed.tasks[0].taskId, taskId);

    await session.close();
    await finish(t, box, client, pid);
  } finally {
    await box.dispose();
  }
});
