#!/usr/bin/env node
'use strict';
// Wire conformance: runs the real mcp-shell-host on pipes through a scripted session that
// touches every method and error path, and validates every line it writes to stdout
// against the official MCP JSON Schema, each against the definition that line must
// satisfy (responses by the id of the request sent, notifications by method).
//
// Environment (set by tests/wire/CMakeLists.txt; defaults suit a run from the repo):
//   MCPSH_BINARY       the host binary           (default: <repo>/build/mcp-shell-host)
//   MCPSH_SOURCE_DIR   the repository root       (default: two folders up)
// The official MCP JSON Schemas are vendored in tests/vendor/mcp-schema (see its README.md).
// Exit status: 0 all lines conform, 1 a failure (each printed); nothing here skips.
// By hand: cd tests/wire && npm ci && MCPSH_BINARY=../../build/mcp-shell-host node wire_test.js
// (MCPSH_WIRE_TRACE=1 prints every line sent and received to stderr).
const fs = require('node:fs');
const path = require('node:path');

const root = process.env.MCPSH_SOURCE_DIR || path.resolve(__dirname, '..', '..');
const binary = process.env.MCPSH_BINARY || path.join(root, 'build', 'mcp-shell-host');
const schemaFile = (version) => path.join(root, 'tests', 'vendor', 'mcp-schema', version, 'schema.json');

function fail(why) {
  console.log(`FAILED wire conformance: ${why}`);
  process.exit(1);
}

async function main() {
  for (const version of ['2026-07-28', '2025-11-25'])
    if (!fs.existsSync(schemaFile(version)))
      fail(`${schemaFile(version)} is missing`);
  let libs;
  try {
    libs = {
      schemas: require('./lib/schemas'),
      host: require('./lib/host_process'),
      modern: require('./lib/modern_session'),
      legacy: require('./lib/legacy_session'),
    };
  } catch (e) {
    if (e.code === 'MODULE_NOT_FOUND') fail(`${e.message.split('\n')[0]} (run npm ci in tests/wire)`);
    throw e;
  }
  if (!fs.existsSync(binary)) {
    console.log(`FAILED: no host binary at ${binary}`);
    process.exit(1);
  }

  const modern = new libs.schemas.SchemaSet('2026-07-28', schemaFile('2026-07-28'));
  const legacy = new libs.schemas.SchemaSet('2025-11-25', schemaFile('2025-11-25'));
  const validateTool = libs.schemas.toolSchemaValidator();
  const fixtures = ['tests/fixtures/basic.sh', 'tools/movies.sh', 'tests/fixtures/wire.sh'];
  const args = fixtures.map((f) => path.join(root, f));
  const start = () => new libs.host.HostProcess(binary, args);

  const hosts = [];
  const sessions = [];
  try {
    const h1 = start();
    hosts.push(h1);
    sessions.push(await libs.modern.runModernSession(h1, modern, validateTool));
    const h2 = start();
    hosts.push(h2);
    const outcome = await libs.legacy.runLegacySession(h2, legacy, modern, validateTool);
    sessions.push(outcome.session);
    // The host serves both eras (ADR 0005): a legacy part that could not run is a failure.
    if (outcome.skipped) outcome.session.failures.push(`legacy part (2025-11-25) did not run: ${outcome.skipped}`);
  } finally {
    for (const h of hosts) h.kill();
  }

  const failures = sessions.flatMap((s) => s.failures);
  const lines = sessions.reduce((n, s) => n + s.lineNumber, 0);
  console.log(`validated (2026-07-28): ${modern.summary()}`);
  if (legacy.counts.size > 0) console.log(`validated (2025-11-25): ${legacy.summary()}`);
  const late = sessions.reduce((n, s) => n + s.lateProgressAfterCancel, 0);
  if (late) console.log(`note: ${late} progress notification(s) crossed a cancellation on the wire`);
  if (failures.length > 0) {
    console.log(`\n${failures.length} non-conformance(s):`);
    for (const f of failures) console.log(`- ${f}`);
    hosts.forEach((h, i) => {
      const text = h.stderrText().trim();
      if (text) console.log(`\nstderr of host ${i + 1}:\n${text.split('\n').slice(-40).join('\n')}`);
    });
    console.log(`\nwire conformance: FAILED (${lines} stdout lines checked)`);
    process.exit(1);
  }
  console.log(`wire conformance: PASSED (${lines} stdout lines checked, every one against its definition)`);
}

main().catch((e) => {
  console.log(`FAILED: ${e.stack || e}`);
  process.exit(1);
});
