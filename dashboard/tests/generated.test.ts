import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { generate } from '../scripts/gen-run-types.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

describe('the files generated from loadtest/schema/run.schema.json', () => {
  it('are what the schema makes of them now (else: npm run gen:types)', async () => {
    const files = await generate();
    expect(Object.keys(files).length).toBeGreaterThan(0);
    for (const [path, text] of Object.entries(files)) {
      const stale = `${path} is out of date with the schema: npm run gen:types`;
      expect(readFileSync(join(root, path), 'utf8'), stale).toBe(text);
    }
  });
});
