'use strict';
// Expectation builders shared by both eras: which definitions a response must satisfy,
// plus the few checks the schemas cannot express (they leave objects open and make
// CallToolResultResponse an anyOf that InputRequiredResult, requiring only resultType,
// almost always satisfies).
const { isDeepStrictEqual } = require('node:util');

const ERROR_DEFS = {
  '-32700': 'ParseError',
  '-32600': 'InvalidRequestError',
  '-32601': 'MethodNotFoundError',
  '-32602': 'InvalidParamsError',
  '-32603': 'InternalError',
};

// Modern (2026-07-28) expectations.
function modernExpect(modern) {
  return {
    // A result response: the *ResultResponse definition for the line, and the result
    // itself against its own definition (for tools/call that resolves the anyOf).
    result(responseDef, resultDef, ...verify) {
      return {
        checks: [
          [modern, responseDef, ''],
          [modern, resultDef, '/result'],
        ],
        verify: (msg) => [completeResult(msg), ...verify.flatMap((v) => v(msg))].filter(Boolean),
      };
    },
    // An error response: JSONRPCErrorResponse for the line, the error definition for
    // "error" (UnsupportedProtocolVersionError is defined as a whole response).
    error(errorDef, ...verify) {
      const whole = errorDef === 'UnsupportedProtocolVersionError';
      return {
        checks: [
          [modern, 'JSONRPCErrorResponse', ''],
          [modern, errorDef, whole ? '' : '/error'],
        ],
        verify: (msg) => verify.flatMap((v) => v(msg)).filter(Boolean),
      };
    },
    // An error that the host cannot tie to a request: it must carry no "id" member.
    errorWithoutId(errorDef) {
      return { noId: true, ...this.error(errorDef, (msg) => ('id' in msg ? ['must have no "id" member'] : [])) };
    },
  };
}

// Legacy (2025-11-25) expectations: that schema has no *ResultResponse definitions, so
// the line is a JSONRPCResultResponse and the result is checked on its own.
function legacyExpect(legacy) {
  return {
    result(resultDef, ...verify) {
      return {
        checks: [
          [legacy, 'JSONRPCResultResponse', ''],
          [legacy, resultDef, '/result'],
        ],
        verify: (msg) => verify.flatMap((v) => v(msg)).filter(Boolean),
      };
    },
    error(code) {
      return {
        checks: [[legacy, 'JSONRPCErrorResponse', '']],
        verify: (msg) => (msg.error && msg.error.code === code ? [] : [`expected error code ${code}`]),
      };
    },
  };
}

// resultType is a plain string in the schema; a finished result says "complete", and
// every modern result names the server (the product requires it on every result).
function completeResult(msg) {
  const r = msg.result;
  if (!r || typeof r !== 'object') return null;
  if (r.resultType !== 'complete') return `result.resultType is ${JSON.stringify(r.resultType)}, not "complete"`;
  if (!r._meta || !r._meta['io.modelcontextprotocol/serverInfo'])
    return 'result._meta["io.modelcontextprotocol/serverInfo"] is missing';
  return null;
}

function success(text) {
  return (msg) => {
    const r = msg.result || {};
    const problems = [];
    if (r.isError) problems.push('expected a successful tool result, got isError: true');
    const first = (r.content || [])[0];
    if (text !== undefined && !(first && first.type === 'text' && first.text === text))
      problems.push(`expected the text ${JSON.stringify(text)}`);
    return problems;
  };
}

// An isError result (the model's error class), which carries no structuredContent.
function toolError(msg) {
  const r = msg.result || {};
  const problems = [];
  if (r.isError !== true) problems.push('expected a CallToolResult with isError: true');
  if ('structuredContent' in r) problems.push('an isError result must carry no structuredContent');
  return problems;
}

// structuredContent conforms to the outputSchema that tools/list advertised, and the
// same JSON is in a text block (the spec's SHOULD for backwards compatibility).
function structured(tools, validateTool, name) {
  return (msg) => {
    const r = msg.result || {};
    const problems = [];
    if (r.isError) problems.push('expected a successful tool result, got isError: true');
    if (!('structuredContent' in r)) return [...problems, 'expected structuredContent'];
    const tool = tools.get(name);
    if (!tool || !tool.outputSchema) problems.push(`tools/list advertised no outputSchema for ${name}`);
    else {
      const error = validateTool(tool.outputSchema, r.structuredContent);
      if (error) problems.push(`structuredContent does not match the advertised outputSchema:\n${error}`);
    }
    const texts = (r.content || []).filter((c) => c.type === 'text').map((c) => c.text);
    const same = texts.some((t) => {
      try {
        return isDeepStrictEqual(JSON.parse(t), r.structuredContent);
      } catch {
        return false;
      }
    });
    if (!same) problems.push('no text block carries the structuredContent as JSON');
    return problems;
  };
}

module.exports = { ERROR_DEFS, modernExpect, legacyExpect, success, toolError, structured };
