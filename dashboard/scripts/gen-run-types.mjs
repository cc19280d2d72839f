#!/usr/bin/env node
// Generates what the dashboard knows of run.json from loadtest/schema/run.schema.json, the contract
// the bench validates every run against before it writes it:
//   src/data/run.generated.ts        its TypeScript types (json-schema-to-typescript)
//   src/data/runSchema.generated.ts  the schema itself, which validate.ts checks run files with (ajv)
//   npm run gen:types                after changing the schema; tests/generated.test.ts fails until then
// The schema is written into src/ rather than imported from ../loadtest because the dashboard's
// Docker image is built with dashboard/ as its context (docker-compose.yml), where ../loadtest is not.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { compile } from 'json-schema-to-typescript';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SCHEMA = resolve(root, '../loadtest/schema/run.schema.json');
const SOURCE = 'loadtest/schema/run.schema.json';

const header = (what) =>
  [
    `// GENERATED from ${SOURCE} by scripts/gen-run-types.mjs: do not edit.`,
    `// ${what}`,
    '// Regenerate with `npm run gen:types`; tests/generated.test.ts fails while this file is stale.',
    '',
  ].join('\n');

/**
 * The schema without its rules across fields (allOf of if/then, e.g. "ghz drives gRPC only"):
 * TypeScript types cannot state them, and json-schema-to-typescript would widen the cell to
 * `{ [k: string]: unknown } & …` for them. validate.ts checks them with the whole schema.
 */
function withoutRules(schema) {
  if (Array.isArray(schema)) return schema.map(withoutRules);
  if (schema === null || typeof schema !== 'object') return schema;
  const out = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'allOf' && v.every((s) => 'if' in s)) continue;
    out[k] = withoutRules(v);
  }
  return out;
}

async function types(schema) {
  const ts = await compile(withoutRules(schema), 'Run', {
    bannerComment: '',
    ignoreMinAndMaxItems: true,
    // the root's title is a sentence; the type is Run
    customName: (s) => (s.title === schema.title ? 'Run' : undefined),
    style: { singleQuote: true, printWidth: 120, trailingComma: 'all' },
  });
  const what =
    'The types of results/<run-id>/run.json (schemaVersion 2); src/data/types.ts names the ones the app uses.';
  return `${header(what)}\n${ts}`;
}

function schemaModule(text) {
  const what = 'The schema of run.json, for ajv in src/data/validate.ts (why it is copied: scripts/gen-run-types.mjs).';
  return `${header(what)}import type { SchemaObject } from 'ajv';\n\nexport const runSchema: SchemaObject = ${text.trim()};\n`;
}

/** The generated files (paths relative to dashboard/) and their text. */
export async function generate() {
  const text = readFileSync(SCHEMA, 'utf8');
  const schema = JSON.parse(text);
  return {
    'src/data/run.generated.ts': await types(schema),
    'src/data/runSchema.generated.ts': schemaModule(text),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const [path, text] of Object.entries(await generate())) {
    writeFileSync(join(root, path), text);
    console.log(`wrote ${path}`);
  }
}
