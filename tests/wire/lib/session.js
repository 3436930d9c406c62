'use strict';
// A scripted client session that knows, for every line the host writes, which schema
// definition it must satisfy. Contract:
//  - send()/request() register an expectation before the line goes out. A response is
//    matched to its expectation by id; an error response without an id (parse error,
//    batch, "id": null) is matched to the oldest expectation registered with noId.
//  - Notifications are matched by method: notifications/progress to the pending request
//    whose progressToken it carries, notifications/message to the pending request that
//    set a log level. Anything else the host writes is a failure ("unexpected").
//  - Each expectation lists checks [schemaSet, definition, pointer]: the line (pointer
//    "") or a part of it ("/error", "/result") is validated against that definition.
//  - settle() reads until every registered expectation is met or its deadline passes;
//    a missing response is a failure. Failures are collected, never thrown, so one run
//    reports every non-conformance.
const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];
const utf8 = new TextDecoder('utf-8', { fatal: true });

function pointerGet(value, pointer) {
  if (!pointer) return value;
  return pointer
    .split('/')
    .slice(1)
    .reduce((v, part) => (v === undefined || v === null ? undefined : v[part]), value);
}

class Session {
  constructor(name, host, notificationSchemas) {
    this.name = name;
    this.host = host;
    this.notificationSchemas = notificationSchemas; // SchemaSet for notifications
    this.failures = [];
    this.pending = new Map(); // JSON of id -> expectation
    this.noId = []; // expectations for error responses without an id, in send order
    this.cancelled = new Map(); // JSON of id -> expectation of a cancelled request
    this.finishedTokens = new Set(); // JSON of progress tokens whose response arrived
    this.cancelledTokens = new Set();
    this.lineNumber = 0;
    this.lateProgressAfterCancel = 0;
    this.sawEof = false; // stdout closed: later waits report shortly
  }

  fail(message) {
    this.failures.push(`[${this.name}] ${message}`);
  }

  // Sends one raw line. expect: {label, id?, noId?, checks, progressToken?, logLevel?,
  // progress?: [min, max], logs?: [min, max], verify?(msg) -> [messages]}; null: no answer.
  send(text, expect) {
    if (expect) {
      const e = { progressSeen: 0, logsSeen: 0, lastProgress: -Infinity, ...expect };
      if (e.noId) this.noId.push(e);
      else this.pending.set(JSON.stringify(e.id), e);
    }
    this.host.send(text);
  }

  request(id, method, params, expect) {
    const message = { jsonrpc: '2.0', id, method };
    if (params !== undefined) message.params = params;
    const meta = params && params._meta;
    this.send(JSON.stringify(message), {
      id,
      label: `${method} id ${JSON.stringify(id)}`,
      progressToken: meta ? meta.progressToken : undefined,
      logLevel: meta ? meta['io.modelcontextprotocol/logLevel'] : undefined,
      ...expect,
    });
  }

  notify(method, params) {
    const message = { jsonrpc: '2.0', method };
    if (params !== undefined) message.params = params;
    this.host.send(JSON.stringify(message));
  }

  // Cancels a pending request: from now on any response to it is a failure.
  cancel(id) {
    const key = JSON.stringify(id);
    const e = this.pending.get(key);
    if (e) {
      this.pending.delete(key);
      this.cancelled.set(key, e);
      if (e.progressToken !== undefined) this.cancelledTokens.add(JSON.stringify(e.progressToken));
    }
    this.notify('notifications/cancelled', { requestId: id, reason: 'wire test cancels it' });
  }

  outstanding() {
    return this.pending.size + this.noId.length;
  }

  // Reads lines until every expectation is met; ms bounds the whole wait.
  async settle(ms) {
    await this.readUntil(() => this.outstanding() === 0, ms, 'responses');
  }

  // Reads lines until done() holds; false when the deadline passed or stdout closed.
  async readUntil(done, ms, what) {
    const deadline = Date.now() + ms;
    while (!done()) {
      const line = await this.host.nextLine(deadline - Date.now());
      if (line.timeout || line.eof) {
        const expected = this.describeOutstanding() || 'a condition';
        if (line.eof && this.sawEof) this.fail(`never answered (stdout was closed): ${expected}`);
        else {
          const why = line.eof ? 'the host closed stdout' : `nothing more within ${ms} ms`;
          this.fail(`waiting for ${what}: ${why}; still expected: ${expected}`);
        }
        this.sawEof = this.sawEof || Boolean(line.eof);
        this.dropOutstanding();
        return false;
      }
      this.dispatch(line);
    }
    return true;
  }

  describeOutstanding() {
    return [...this.pending.values(), ...this.noId]
      .map((e) => `${e.label} -> ${e.checks.map((c) => c[1]).join(' + ')}`)
      .join('; ');
  }

  dropOutstanding() {
    this.pending.clear();
    this.noId = [];
  }

  // After stdin is closed: everything still written is checked like any other line,
  // and the host must close stdout and exit 0 within ms.
  async finish(ms) {
    this.host.closeStdin();
    const deadline = Date.now() + ms;
    for (;;) {
      const line = await this.host.nextLine(deadline - Date.now());
      if (line.eof) break;
      if (line.timeout) {
        this.fail(`the host did not close stdout within ${ms} ms after stdin was closed` +
          (this.cancelled.size ? ' (a cancelled tool may still be running)' : ''));
        this.host.kill();
        break;
      }
      this.dispatch(line);
    }
    if (this.outstanding() > 0) this.fail(`no response before exit: ${this.describeOutstanding()}`);
    const exit = await this.host.waitExit(Math.max(1000, deadline - Date.now()));
    if (!exit) {
      this.fail('the host did not exit after closing stdout');
      this.host.kill();
    } else if (exit.code !== 0) {
      this.fail(`the host exited with ${exit.code === null ? 'signal ' + exit.signal : 'status ' + exit.code}`);
    }
  }

  dispatch(line) {
    const n = ++this.lineNumber;
    let text;
    try {
      text = utf8.decode(line.raw);
    } catch {
      text = line.raw.toString('utf8');
      this.fail(`stdout line ${n} is not valid UTF-8: ${text}`);
    }
    if (line.unterminated) this.fail(`stdout ends with a line that has no newline: ${text}`);
    let msg;
    try {
      msg = JSON.parse(text);
    } catch (e) {
      return this.fail(`stdout line ${n} is not JSON (${e.message}): ${text}`);
    }
    if (msg === null || typeof msg !== 'object' || Array.isArray(msg))
      return this.fail(`stdout line ${n} is not a JSON object: ${text}`);
    const where = `stdout line ${n}`;
    if ('method' in msg) {
      if ('id' in msg) return this.fail(`${where}: a request from the host, which sends none: ${text}`);
      return this.onNotification(msg, text, where);
    }
    // "id": null is how some servers answer what they cannot tie to a request: matched
    // like an id-less error, where the schema (RequestId) and the check of no "id" fail it.
    if ('error' in msg && msg.id === null && this.noId.length > 0)
      return this.onResponse(this.noId.shift(), msg, text, where);
    if ('id' in msg) {
      const key = JSON.stringify(msg.id);
      const e = this.pending.get(key);
      if (!e) {
        if (this.cancelled.has(key))
          return this.fail(`${where}: a response to cancelled request ${key}, which must get none: ${text}`);
        return this.fail(`${where}: a response to no outstanding request (id ${key}): ${text}`);
      }
      this.pending.delete(key);
      return this.onResponse(e, msg, text, where);
    }
    if ('error' in msg && this.noId.length > 0) return this.onResponse(this.noId.shift(), msg, text, where);
    return this.fail(`${where}: an id-less message that no request explains: ${text}`);
  }

  onResponse(e, msg, text, where) {
    const problems = [];
    if (('result' in msg) === ('error' in msg))
      problems.push('a response must have exactly one of "result" and "error" (JSON-RPC 2.0)');
    for (const [set, def, pointer] of e.checks) {
      const error = set.check(def, pointerGet(msg, pointer));
      if (error) problems.push(pointer ? `${pointer}: ${error}` : error);
    }
    if (e.progress) problems.push(...countProblem('notifications/progress', e.progressSeen, e.progress));
    if (e.logs) problems.push(...countProblem('notifications/message', e.logsSeen, e.logs));
    if (e.verify) problems.push(...e.verify(msg));
    if (e.progressToken !== undefined) this.finishedTokens.add(JSON.stringify(e.progressToken));
    for (const p of problems) this.fail(`${e.label}, ${where}: ${p}\n    line: ${text}`);
  }

  onNotification(msg, text, where) {
    const def = {
      'notifications/progress': 'ProgressNotification',
      'notifications/message': 'LoggingMessageNotification',
    }[msg.method];
    if (!def) return this.fail(`${where}: an unexpected notification ${JSON.stringify(msg.method)}: ${text}`);
    const error = this.notificationSchemas.check(def, msg);
    if (error) this.fail(`${where}: ${error}\n    line: ${text}`);
    const params = msg.params || {};
    if (def === 'ProgressNotification') {
      const token = JSON.stringify(params.progressToken);
      const e = [...this.pending.values()].find((p) => JSON.stringify(p.progressToken) === token);
      if (!e) {
        if (this.cancelledTokens.has(token)) {
          this.lateProgressAfterCancel++; // may cross the cancellation on the wire
          return;
        }
        const why = this.finishedTokens.has(token)
          ? 'after the response to its request (progress MUST stop after completion)'
          : 'for a token no pending request gave';
        return this.fail(`${where}: progress ${why}: ${text}`);
      }
      e.progressSeen++;
      if (!(params.progress > e.lastProgress))
        this.fail(`${e.label}, ${where}: progress must increase with each notification: ${text}`);
      e.lastProgress = params.progress;
      return;
    }
    const asking = [...this.pending.values()].filter((p) => p.logLevel !== undefined);
    if (asking.length === 0)
      return this.fail(`${where}: a log notification while no pending request set a log level: ${text}`);
    const e = asking[0];
    e.logsSeen++;
    if (LOG_LEVELS.includes(params.level) && LOG_LEVELS.indexOf(params.level) < LOG_LEVELS.indexOf(e.logLevel))
      this.fail(`${e.label}, ${where}: level ${params.level} is below the requested ${e.logLevel}: ${text}`);
  }
}

function countProblem(what, seen, [min, max]) {
  if (seen >= min && seen <= max) return [];
  const want = min === max ? `${min}` : `${min} to ${max}`;
  return [`expected ${want} ${what} before the response, got ${seen}`];
}

module.exports = { Session, pointerGet };
