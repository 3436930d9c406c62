'use strict';
// The official MCP JSON Schemas, compiled by ajv (an implementation independent of the
// host's own validator). Contract:
//  - SchemaSet(label, file) loads one schema.json; check(def, value) validates value
//    against "#/$defs/<def>" and returns null, or a message with every ajv error.
//  - Each successful check is counted per definition, for the summary.
//  - ajv runs in strict mode; only union types ("type": ["string", "integer"], used by
//    RequestId) need allowing. Formats ("uri", "byte", ...) come from ajv-formats.
const fs = require('node:fs');
const Ajv2020 = require('ajv/dist/2020');
const addFormats = require('ajv-formats');

class SchemaSet {
  constructor(label, file) {
    this.label = label;
    this.ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
    addFormats(this.ajv);
    this.schema = JSON.parse(fs.readFileSync(file, 'utf8'));
    this.ajv.addSchema(this.schema, label);
    this.counts = new Map();
  }

  has(def) {
    return Object.prototype.hasOwnProperty.call(this.schema.$defs, def);
  }

  check(def, value) {
    if (!this.has(def)) return `the ${this.label} schema has no definition ${def}`;
    const validate = this.ajv.getSchema(`${this.label}#/$defs/${def}`);
    if (validate(value)) {
      this.counts.set(def, (this.counts.get(def) || 0) + 1);
      return null;
    }
    return `not a valid ${def} (${this.label}):\n` + formatErrors(validate.errors);
  }

  summary() {
    return [...this.counts.entries()].map(([def, n]) => `${def} ${n}`).join(', ');
  }
}

function formatErrors(errors) {
  return (errors || [])
    .map((e) => `    ${e.instancePath || '(root)'} ${e.message} [${e.schemaPath}]` +
      (e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ''))
    .join('\n');
}

// Validates structuredContent against a tool's own outputSchema. Tool schemas are
// whatever authors wrote, so this instance is not strict about unknown keywords.
function toolSchemaValidator() {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);
  return (schema, value) => {
    let validate;
    try {
      validate = ajv.compile(schema);
    } catch (e) {
      return `the outputSchema does not compile: ${e.message}`;
    }
    return validate(value) ? null : formatErrors(validate.errors);
  };
}

module.exports = { SchemaSet, toolSchemaValidator };
