// The import graph of src/ (type-only imports included): no cycle between files, none between the
// top-level folders of src/ or between feature modules, and the lower layers import nothing above them.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import madge from 'madge';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const graph = await madge(SRC, { fileExtensions: ['ts'], baseDir: SRC });
const files = graph.obj();

/** The folder a file belongs to: src/<folder>, src/modules/<feature>, or a file at the top of src/ or src/modules/. */
function unitOf(file: string): string {
  const parts = file.split('/');
  if (parts[0] === 'modules' && parts.length > 2) return `modules/${parts[1]}`;
  return parts.length > 1 && parts[0] !== 'modules' ? parts[0]! : file;
}

/** unit → unit → one import that makes the edge (for the message). */
function unitGraph(): Map<string, Map<string, string>> {
  const units = new Map<string, Map<string, string>>();
  for (const [file, imports] of Object.entries(files)) {
    const from = unitOf(file);
    const edges = units.get(from) ?? new Map<string, string>();
    units.set(from, edges);
    for (const target of imports) {
      const to = unitOf(target);
      if (to !== from && !edges.has(to)) edges.set(to, `${file} → ${target}`);
    }
  }
  return units;
}

/** Strongly connected components of more than one unit (Tarjan): each is a cycle between folders. */
function cycles(units: Map<string, Map<string, string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    for (const w of units.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      component.push(w);
    } while (w !== v);
    if (component.length > 1) found.push(component.sort());
  };
  for (const v of units.keys()) if (!index.has(v)) visit(v);
  return found;
}

test('no import cycle between files of src/ (madge --circular)', () => {
  assert.deepEqual(graph.circular(), []);
});

test('no import cycle between top-level folders of src/ or between feature modules', () => {
  const units = unitGraph();
  const described = cycles(units).map((component) => component.flatMap((from) => [...units.get(from)!]
    .filter(([to]) => component.includes(to)).map(([to, via]) => `${from} → ${to} (${via})`)));
  assert.deepEqual(described, []);
});

// The lower layers, and what each may import (besides itself); everything else builds on them.
const LAYERS: Record<string, string[]> = {
  lib: [],
  db: ['lib', 'config.ts'],
  access: ['lib', 'db'],
  http: ['lib', 'db', 'access', 'config.ts'],
  extraction: ['lib'],
};

test('lib/, db/, access/, http/ and extraction/ import only the layers below them', () => {
  const units = unitGraph();
  const breaches = Object.entries(LAYERS).flatMap(([layer, allowed]) => [...(units.get(layer) ?? [])]
    .filter(([to]) => !allowed.includes(to)).map(([to, via]) => `${layer} → ${to} (${via})`));
  assert.deepEqual(breaches, []);
});
