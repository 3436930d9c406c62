'use strict';
// The real mcp-shell-host on pipes. Contract:
//  - stdout is split on "\n" exactly; every line comes back as its raw bytes, so the
//    caller can check that the host wrote valid UTF-8 (a decoder would hide that).
//  - nextLine(ms) resolves with {raw: Buffer} for each line in order, {eof: true} once
//    stdout is closed (a last line without "\n" comes back with unterminated: true),
//    or {timeout: true} after ms without one.
//  - stderr is collected whole for failure reports.
//  - With MCPSH_WIRE_TRACE=1 in the environment, every line sent (">>") and received
//    ("<<") is echoed to our stderr, for debugging a session.
const { spawn } = require('node:child_process');

const trace = process.env.MCPSH_WIRE_TRACE === '1' ? (line) => process.stderr.write(line + '\n') : () => {};

class HostProcess {
  constructor(binary, args, options = {}) {
    this.child = spawn(binary, args, { stdio: ['pipe', 'pipe', 'pipe'], env: options.env || process.env });
    this.pending = Buffer.alloc(0);
    this.lines = [];
    this.eof = false;
    this.waiter = null;
    this.stderrChunks = [];
    this.exited = new Promise((resolve) => {
      this.child.on('exit', (code, signal) => resolve({ code, signal }));
    });
    this.spawnError = null;
    this.child.on('error', (e) => {
      this.spawnError = e;
      this.finish();
    });
    this.child.stdin.on('error', () => {}); // EPIPE when the host is gone: seen as EOF
    this.child.stdout.on('data', (chunk) => this.onData(chunk));
    this.child.stdout.on('end', () => this.finish());
    this.child.stderr.on('data', (chunk) => this.stderrChunks.push(chunk));
  }

  onData(chunk) {
    this.pending = Buffer.concat([this.pending, chunk]);
    let nl;
    while ((nl = this.pending.indexOf(0x0a)) >= 0) {
      this.lines.push({ raw: this.pending.subarray(0, nl) });
      trace('<< ' + this.pending.subarray(0, nl).toString('utf8'));
      this.pending = this.pending.subarray(nl + 1);
    }
    this.wake();
  }

  finish() {
    if (this.eof) return;
    if (this.pending.length > 0) this.lines.push({ raw: this.pending, unterminated: true });
    this.pending = Buffer.alloc(0);
    this.eof = true;
    this.wake();
  }

  wake() {
    if (!this.waiter) return;
    const w = this.waiter;
    this.waiter = null;
    w();
  }

  async nextLine(ms) {
    const deadline = Date.now() + ms;
    for (;;) {
      if (this.lines.length > 0) return this.lines.shift();
      if (this.eof) return { eof: true };
      const left = deadline - Date.now();
      if (left <= 0) return { timeout: true };
      await new Promise((resolve) => {
        const timer = setTimeout(() => {
          this.waiter = null;
          resolve();
        }, left);
        this.waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  send(text) {
    trace('>> ' + text);
    this.child.stdin.write(text + '\n');
  }

  closeStdin() {
    this.child.stdin.end();
  }

  // Resolves with {code, signal}, or null when the host is still running after ms.
  async waitExit(ms) {
    let timer;
    const timeout = new Promise((resolve) => {
      timer = setTimeout(() => resolve(null), ms);
    });
    const result = await Promise.race([this.exited, timeout]);
    clearTimeout(timer);
    return result;
  }

  kill() {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }

  stderrText() {
    return Buffer.concat(this.stderrChunks).toString('utf8');
  }
}

module.exports = { HostProcess };
