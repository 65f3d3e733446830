// outline (LATER §3): the original's format per language, checked against the original's own
// grammars (@vscode/tree-sitter-wasm 0.3.1, walked by bench/syntax-ref.mjs) where installed.
import test from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { latest, envelope } from './helpers.mjs'
import * as ref from '../bench/syntax-ref.mjs'
import { slash } from './platform.mjs'

const FIXTURES = {
  'server.ts': `import { x } from "y";

export abstract class Server {
  private port: number = 3;
  constructor(private readonly name: string) {}
  abstract stop(): void;
  async start(): Promise<void> {
    await x();
  }
  static create() { return null as any; }
}

export interface Options { port?: number; listen(): void }
export type Handler = (req: Request) => Promise<Response>;
export enum Mode { A, B }
namespace Internal { export function helper() {} }
declare module "ambient" { export function g(): void; }
declare function declared(a: number): string;
export const parse = (s: string): number => Number(s);
let notAFunction = 3;
export default function main() {
  const inner = () => 1;
  function nested() {}
}
function* gen() { yield 1; }
`,
  'view.tsx': `import React from "react";
export function App({ name }: { name: string }) {
  return <div className="app">{name}</div>;
}
export const Button = (p: { label: string }) => <button>{p.label}</button>;
class Legacy extends React.Component {
  render() { return <span/>; }
}
`,
  'lib.js': `'use strict'
const a = function () {}
var b = async () => {}
function top(x) {
  return x
}
class K {
  #priv = 1
  static s() {}
  get v() { return 1 }
}
module.exports = { top }
`,
  'app.py': `import os

@dataclass
class Point:
    x: int

    def norm(self) -> float:
        return 0.0

    @property
    def y(self):
        def inner():
            pass
        return inner

async def main():
    pass

LAMBDA = lambda: 1
`,
  'srv.go': `package main

type Server struct {
	port int
}

type Handler interface {
	Serve()
}

type (
	A int
	B string
)

func (s *Server) Start() error {
	return nil
}

func main() {}
`,
  'lib.rs': `use std::fmt;

pub struct Point { x: i32 }

pub enum Shape { Circle, Square }

pub trait Draw {
    fn draw(&self);
    fn default_impl(&self) {}
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.x)
    }
}

mod inner {
    pub fn helper() {}
}

macro_rules! square {
    ($x:expr) => { $x * $x };
}

const C: i32 = 1;
`,
  'Main.java': `package a;

public class Main {
    private int x;
    public Main() {}
    public static void main(String[] args) {}
    interface Inner { void run(); }
    enum Color { RED, GREEN; void f() {} }
    record P(int x, int y) {}
}
`,
  'Prog.cs': `namespace Example;

public class Program
{
    public int Count { get; set; }
    public Program() {}
    public static void Main(string[] args) {}
}

public interface IThing { void Do(); }
public struct S { }
public enum E { A }
public record R(int X);
`,
  'Block.cs': `namespace Outer.Inner
{
    class A { void M() {} }
}
`,
}

for (const [name, src] of Object.entries(FIXTURES)) {
  test(`outline ${name}: the original's format${ref.available ? ' (same as the wasm grammars)' : ''}`, async (t) => {
    const { call } = latest({ [`src/${name}`]: src })
    const r = await call('outline', { path: `src/${name}` })
    assert.equal(r.isError, false, r.text)
    assert.match(slash(r.text), new RegExp(`^src/${name.replace('.', '\\.')} — [a-z-]+, ${src.split('\n').length} lines\n`))
    if (!ref.available) return t.skip('@vscode/tree-sitter-wasm not installed')
    const grammar = r.text.split('\n')[0].split(' — ')[1].split(',')[0]
    assert.equal(slash(r.text), await ref.outline(`src/${name}`, grammar, src))
  })
}

test('outline: the examples of the original tests', async () => {
  const { call } = latest({
    'a.ts': 'export abstract class Server {\n  port = 1;\n  constructor() {}\n  stop(): void {}\n  async start(): Promise<void> {\n  }\n}\n\n\n\n\nconst parse = (s: string): number => Number(s);\n',
    'b.go': 'package x\n\ntype Server struct{}\n\n\n\n\n\n\n\n\n\n\n\nfunc (s *Server) Start() error {\n\treturn nil\n}\n',
    'c.cs': 'namespace Example;\nclass A {}\n',
  })
  const a = (await call('outline', { path: 'a.ts' })).text
  assert.ok(a.includes('\n  abstract class Server (1-7)\n'), a)
  assert.ok(a.includes('\n    async start(): Promise<void> (5-6)\n'), a)
  assert.ok(a.endsWith('\n  const parse = (s: string): number => Number(s); (12-12)'), a)
  assert.ok((await call('outline', { path: 'b.go' })).text.includes('\n  func (s *Server) Start() error (15-17)'))
  assert.ok((await call('outline', { path: 'c.cs' })).text.includes('\n  namespace Example; (1-1)\n'))
})

test('outline: no symbols, syntax-error note, header cut, symbol cap', async () => {
  const many = Array.from({ length: 2005 }, (_, i) => `def f${i}(): pass`).join('\n') + '\n'
  const { call } = latest({
    'empty.py': 'x = 1\n',
    'broken.ts': 'function f( {\n  class\n',
    'long.ts': `function ${'x'.repeat(200)}() {}\n`,
    'many.py': many,
  })
  assert.equal((await call('outline', { path: 'empty.py' })).text, 'empty.py — python, 2 lines\n  (no symbols found)')
  assert.match((await call('outline', { path: 'broken.ts' })).text, /\nnote: file has syntax errors \(\d+\+?\); outline may be incomplete — run check_syntax\.$/)
  assert.equal((await call('outline', { path: 'long.ts' })).text, `long.ts — typescript, 2 lines\n  function ${'x'.repeat(141)}... (1-1)`)
  const m = (await call('outline', { path: 'many.py' })).text.split('\n')
  assert.equal(m.length, 1 + 2000 + 1)
  assert.equal(m.at(-1), '  [... 5 more symbols omitted ...]')
})

test('outline: bad input takes the documented codes', async () => {
  const { call, root } = latest({ 'a.rb': 'def f; end\n', 'notes.txt': 'x', Makefile: 'all:\n', 'bin.ts': Buffer.from([0, 1, 2, 0]), 'big.ts': 'let a = 1;\n'.repeat(200_000) })
  fs.mkdirSync(path.join(root, 'dir.ts'))
  const e = async (args) => envelope(await call('outline', args))
  assert.deepEqual(await e({ path: 'a.rb' }), { error: 'invalid_input', message: 'outline does not support ruby files (supported: typescript, tsx, javascript, python, go, rust, java, c-sharp); check_syntax does support them.' })
  assert.equal((await e({ path: 'notes.txt' })).message, "outline does not support '.txt' files (supported: typescript, tsx, javascript, python, go, rust, java, c-sharp).")
  assert.equal((await e({ path: 'Makefile' })).message, 'outline does not support extensionless files (supported: typescript, tsx, javascript, python, go, rust, java, c-sharp).')
  assert.equal((await e({ path: 'missing.ts' })).error, 'not_found')
  assert.equal((await e({ path: 'dir.ts' })).error, 'not_a_file')
  assert.equal((await e({ path: 'bin.ts' })).error, 'is_binary')
  assert.deepEqual(await e({ path: 'big.ts' }), { error: 'too_large', message: 'File exceeds the 2000000-byte parse limit: big.ts', path: 'big.ts', limit: 2000000 })
  assert.equal((await e({ path: '../x.ts' })).error, 'path_escape')
  assert.equal((await e({})).error, 'invalid_input')
})

test('outline: an aborted signal gives aborted, never a hang', async () => {
  const { tools } = latest({ 'a.ts': 'let a = 1;\n'.repeat(150_000) })
  const ac = new AbortController()
  const p = tools.callTool('outline', { path: 'a.ts' }, ac.signal)
  ac.abort()
  const r = await p
  if (r.isError) assert.equal(JSON.parse(r.text).error, 'aborted')
})

test('outline paths: several files and directories, bounded at a file boundary', async () => {
  const { call } = latest({ 'src/a.ts': 'function a() {}\n', 'src/sub/b.py': 'def b(): pass\n', 'src/notes.md': '# x\n', 'c.go': 'package c\nfunc C() {}\n' })
  const r = await call('outline', { path: 'src', paths: ['c.go', 'nope.ts'] })
  assert.equal(r.isError, false)
  assert.equal(
    slash(r.text),
    'src/a.ts — typescript, 2 lines\n  function a() {} (1-1)\n\nsrc/sub/b.py — python, 2 lines\n  def b(): pass (1-1)\n\nc.go — go, 3 lines\n  func C() {} (2-2)\n\nnope.ts: No such file: nope.ts',
  )
  const files = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`m/f${String(i).padStart(2, '0')}.ts`, `export function f${i}() {}\n`.repeat(20)]))
  const big = latest(files, { maxOutputBytes: 2048 })
  const t = (await big.call('outline', { path: 'm', paths: [] })).text
  assert.ok(Buffer.byteLength(t) <= 2048, String(Buffer.byteLength(t)))
  assert.match(t, /\n\n\[\.\.\. \d+ more files omitted \(maxOutputBytes\) \.\.\.\]$/)
  // Outlined on several threads, listed in order.
  const whole = (await latest(files).call('outline', { path: 'm', paths: [] })).text
  const heads = slash(whole).split('\n\n').map((b) => b.split(' — ')[0])
  assert.deepEqual(heads, Object.keys(files))
  assert.equal(slash(whole).split('\n\n')[7], `m/f07.ts — typescript, 21 lines\n${Array.from({ length: 20 }, (_, k) => `  function f7() {} (${k + 1}-${k + 1})`).join('\n')}`)
  // The single-path form is unchanged: a directory is refused (extensionless → invalid_input).
  assert.equal(envelope(await call('outline', { path: 'src' })).error, 'invalid_input')
})

test('outlineOf / probeTreeSitter', async () => {
  const { tools } = latest({ 'a.ts': 'class A {\n  m() {}\n}\n' })
  const o = await tools.outlineOf('a.ts')
  assert.deepEqual(o, {
    path: 'a.ts', language: 'typescript', lines: 4,
    symbols: [
      { name: 'class A', kind: 'class_declaration', depth: 0, startLine: 1, endLine: 3 },
      { name: 'm() {}', kind: 'method_definition', depth: 1, startLine: 2, endLine: 2 },
    ],
    errorCount: 0, truncated: false,
  })
  await assert.rejects(tools.outlineOf('a.rb'), (e) => e.code === 'invalid_input')
  assert.equal(tools.config.treeSitterAvailable, true)
  const names = tools.listTools().map((t) => t.name)
  assert.deepEqual(names.slice(-7), ['outline', 'check_syntax', 'find_symbol', 'find_references', 'repo_map', 'replace_symbol', 'insert_symbol'])
  const off = latest({}, { probeTreeSitter: () => false })
  assert.equal(off.tools.config.treeSitterAvailable, false)
  assert.ok(!off.tools.listTools().some((t) => t.name === 'outline' || t.name === 'check_syntax'))
  const hidden = envelope(await off.call('outline', { path: 'a.ts' }))
  assert.match(hidden.message, /outline/)
})
