// Review mode's walks (SPEC §13): every tool that lists or walks a directory sees the staged
// tree — files that exist only in the staging area are there, staged deletions are not — so
// each answers, before accept, what it answers in direct mode after the same steps.
import test from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { createAgentTools } from '../index.mjs'
import { scratch, eventually } from './helpers.mjs'

const FILES = {
  '.gitignore': 'dist/\n*.log\n',
  'src/util.ts': 'export function helper(x: number) {\n  return x + 1\n}\n',
  'src/main.ts': 'import { helper } from "./util"\nexport function main() {\n  return helper(1)\n}\n',
  'src/old.ts': 'export function obsolete() {\n  return "NeedleOld"\n}\n',
  'docs/readme.md': '# Docs\nNeedleDoc\n',
  'keep/a.txt': 'a\n',
}

function ws(files) {
  const root = scratch('review-walks-')
  for (const [rel, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true })
    fs.writeFileSync(path.join(root, rel), content)
  }
  return root
}

// The steps: files in new directories, a deletion, a move, an edit, a file an ignore rule hides.
async function steps(tools) {
  for (const [name, args] of [
    ['write_file', { path: 'lib/deep/fresh.ts', content: 'export function freshThing() {\n  return helper(2) + "NeedleNew"\n}\n' }],
    ['write_file', { path: 'dist/bundle.ts', content: 'export function ignoredThing() { return "NeedleNew" }\n' }],
    ['write_file', { path: 'debug.log', content: 'NeedleNew\n' }],
    ['remove', { path: 'src/old.ts' }],
    ['move', { source: 'docs/readme.md', destination: 'guide/readme.md' }],
    ['edit_file', { path: 'src/util.ts', old_string: 'return x + 1', new_string: 'return x + 2 // NeedleNew' }],
    ['write_file', { path: 'keep/b.txt', content: 'bee\n' }],
  ]) {
    const r = await tools.callTool(name, args)
    assert.equal(r.isError, false, `${name}: ${r.text}`)
  }
}

// Each read, as the model would ask it; glob's lines are compared as a set (a moved file keeps
// its modification time on disk but is fresh in the staging area, so the order may differ).
const READS = [
  ['glob', { pattern: '**/*' }, 'set'],
  ['glob', { pattern: '**/*.ts', path: 'lib' }, 'set'],
  ['glob', { pattern: '*', respect_gitignore: false }, 'set'],
  ['list_dir', {}],
  ['list_dir', { path: 'lib' }],
  ['list_dir', { path: 'lib/deep' }],
  ['list_dir', { path: 'docs' }],
  ['list_dir', { path: 'keep' }],
  ['tree', {}],
  ['tree', { path: 'lib' }],
  ['tree', { respect_gitignore: false, depth: 2, path: 'lib' }],
  ['grep', { pattern: 'Needle\\w+' }],
  ['grep', { pattern: 'Needle\\w+', output_mode: 'content' }],
  ['grep', { pattern: 'NeedleNew', path: 'lib' }],
  ['grep', { pattern: 'Needle', glob: '*.md' }],
  ['grep', { pattern: 'return', output_mode: 'count' }],
  ['find_symbol', { symbol: 'freshThing' }],
  ['find_symbol', { symbol: 'obsolete' }],
  ['find_symbol', { symbol: 'helper' }],
  ['find_references', { symbol: 'helper' }],
  ['repo_map', {}],
  ['outline', { paths: ['lib', 'src'] }],
  ['replace', { pattern: 'Needle(\\w+)', replacement: 'Pin$1', path: '.', dry_run: true }],
]

async function answers(tools) {
  const out = []
  for (const [name, args, how] of READS) {
    const r = await tools.callTool(name, args)
    let text = r.text
    if (how === 'set') text = text.split('\n').sort().join('\n')
    // The tools' own state (the staging area, the index) lives in .clarvis/, which list_dir
    // shows (it applies no ignore rules) whichever of them exists.
    if (name === 'list_dir') text = text.split('\n').filter((l) => l !== '.clarvis/').join('\n')
    out.push([name, JSON.stringify(args), r.isError, text])
  }
  return out
}

for (const searchIndex of ['off', 'on']) {
  const skip = searchIndex === 'on' && process.platform === 'win32' && 'the search index is Unix only'
  test(`walks see the staged tree: every listing equals direct mode's (searchIndex ${searchIndex})`, { skip }, async () => {
    const direct = ws(FILES)
    const staged = ws(FILES)
    const d = createAgentTools({ workspaceRoot: direct, searchIndex })
    const s = createAgentTools({ workspaceRoot: staged, searchIndex, review: true })
    if (searchIndex === 'on') {
      // The index is built from the disk before anything is staged, then answers through it.
      for (const t of [d, s]) {
        await t.callTool('grep', { pattern: 'Needle' })
        await eventually(() => t.searchIndexStatus().state === 'ready', 'the index is ready')
      }
    }
    await steps(d)
    await steps(s)
    // Nothing reached the disk.
    assert.equal(fs.existsSync(path.join(staged, 'lib')), false)
    assert.equal(fs.existsSync(path.join(staged, 'src/old.ts')), true)
    const want = await answers(d)
    const got = await answers(s)
    for (let i = 0; i < want.length; i++) assert.deepEqual(got[i], want[i])
    // The staged tree is really different from the disk's: the staged answers are not the disk's.
    const disk = await answers(createAgentTools({ workspaceRoot: staged, searchIndex }))
    assert.notDeepEqual(disk[0], want[0])
    assert.match(got.find(([n]) => n === 'tree')[3], /lib\/[\s\S]*deep\/[\s\S]*fresh\.ts/)
    assert.doesNotMatch(got.find(([n]) => n === 'glob')[3], /src\/old\.ts|docs\/readme\.md/)
    // After accept the disk is direct mode's, and so is every answer.
    assert.deepEqual((await s.accept()).conflicts, [])
    assert.deepEqual(await answers(createAgentTools({ workspaceRoot: staged, searchIndex })), want)
  })
}
