#!/usr/bin/env node
// Builds the benchmark corpus in bench/corpus/: one git repository assembled from pinned
// crates (crates.io) and npm packages (npm registry), plus a few generated files, so that any
// machine that reaches those two registries rebuilds the same tree.
//
// Reproducible: every artifact is pinned by version and sha256; generated files come from a
// seeded PRNG; every file gets a distinct mtime derived from a hash of its path (so "newest
// first" has one right answer); the commit has a fixed author, date and message.
// Idempotent: a finished corpus carries a stamp (.git/bench-corpus.json) naming the manifest
// version; a run with a matching stamp does nothing. A build happens in a staging directory
// and is renamed into place only when complete, so an interrupted build leaves nothing behind
// that looks finished. Downloads are cached in bench/.cache/.
//
// Usage: node bench/corpus.mjs [--force]

import { createHash } from 'node:crypto'
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const BENCH = path.dirname(fileURLToPath(import.meta.url))
export const CORPUS = path.join(BENCH, 'corpus')
const CACHE = path.join(BENCH, '.cache')
const STAMP = path.join(CORPUS, '.git', 'bench-corpus.json')

/** Bump when anything below changes what the corpus contains. */
const VERSION = 1

// Searched (tracked) Rust sources: generated SDKs give bulk and file count, the rest is
// ordinary hand-written code. `dir` is where the crate lands.
const CRATES = [
  ['aws-sdk-ec2', '1.75.0', 'f6787d920877cca6a4ee3953093f6a47cefe26de95a4f7b3681c5850bfe657b4'],
  ['aws-sdk-sagemaker', '1.90.0', 'b528ba5beb325a07993a4489b931a2208cf11217714bda968cfe8133e1cb3b79'],
  ['aws-sdk-glue', '1.65.0', '8a540422054cf525835cca6700e37a555acc94b0e882dda44d689b010951554e'],
  ['aws-sdk-rds', '1.56.0', '1df46131f32e70df5f2c139e7f454a5bf2d20fb02944d70d269b3f97460797bd'],
  ['aws-sdk-s3', '1.52.0', 'f571deb0a80c20d21d9f3e8418c1712af9ff4bf399d057e5549a934eca4844e2'],
  ['aws-sdk-iam', '1.46.0', '053df3024ea2ed0431359b3cddecc92dcfadeaedf71dd497292b39e37e597b46'],
  ['windows-sys', '0.59.0', '1e38bc4d79ed67fd075bcc251a1c39b32a1776bbe92e5bef1f0bf1f8c531853b'],
  ['web-sys', '0.3.70', '26fdeaafd9bd129f65e7c031593c24d62186301e0c72c8978fa1678be7d532c0'],
  ['tokio', '1.40.0', 'e2b070231665d27ad9ec9b8df639893f46727666c6767db40317fbe920a5d998'],
  ['syn', '2.0.79', '89132cd0bf050864e1d38dc3bbc07a0eb8e7530af26344d3d2bbbef83499f590'],
  ['libc', '0.2.159', '561d97a539a36e26a9a5fad1ea11a3039a67714694aaa379433e580854bc3dc5'],
  ['regex', '1.11.0', '38200e5ee88914975b69f657f0801b6f6dccafd44fd9326302a4aaeecfacb1d8'],
  ['regex-automata', '0.4.8', '368758f23274712b504848e9d5a6f010445cc8b87a7cdb4d7cbee666c1288da3'],
  ['rustls', '0.23.13', 'f2dabaac7466917e566adb06783a81ca48944c6898a1b08b9374106dd671f4c8'],
  ['serde', '1.0.210', 'c8e3592472072e6e22e0a54d5904d9febf8508f65fb8552499a1abc7d1078c3a'],
  ['clap_builder', '4.5.19', 'a5fbc17d3ef8278f55b282b2a2e75ae6f6c7d4bb70ed3d0382375104bfafdb4b'],
  ['hyper', '1.4.1', '50dfd22e0e76d0f662d429a5f80fcaf3855009297eab6a0a9f8543834744ba05'],
  ['chrono', '0.4.38', 'a21f936df1771bf62b77f047b726c4625ff2e8aa607c01ec06e5a05bd8463401'],
]

// npm packages: [name, version, sha256 of the registry tarball, destination].
// typescript brings the multi-MB text files (lib/typescript.js is 8.9 MB).
// The node_modules/ ones are ignored by the root .gitignore: a directory full of files that
// a correct tool must not even open.
const PACKAGES = [
  ['typescript', '5.6.3', 'ef67f8d8ad895858024b7339d3e34bf112cae3c5db1f538c3079038b17ae30fa', 'packages/typescript'],
  ['three', '0.169.0', 'c86d0937570fb425d981e156ddf919c43dbc45d4e91fd7c8dd0de56723b3ec71', 'packages/three'],
  ['date-fns', '2.30.0', '0a6899307d0887bb23b9b982068b4f4a6509e3075fc798ad0d8abe6b0dc2cc4e', 'packages/date-fns'],
  ['core-js', '3.38.1', '224b8d2f0eb0dba25973ac6949f348da77cc5f6ca2fd058064f27acbf04264e0', 'packages/core-js'],
  ['rxjs', '7.8.1', 'c532167725ab7d085123209156c93cef22f2479cb9c8527060f1cd903aa9d149', 'packages/rxjs'],
  ['@types/node', '22.7.4', '0c03483630b7b9c7585b6619fbc240269f9bf744de0ef214ec6a4368b725763c', 'packages/@types/node'],
  ['@mui/icons-material', '5.16.7', 'be107272d8bb06d62624937880fb68ee9708542f4536f788f01220b593e681fa', 'node_modules/@mui/icons-material'],
  ['lodash', '4.17.21', '6a087ac9e5702a0c9d60fbcd48696012646ec8df1491dea472b150e79fcaf804', 'node_modules/lodash'],
  ['moment', '2.30.1', '52219a9fee5e1faade4c72536c173c54cedd5e2619272dd0c251a30aeafcde8c', 'node_modules/moment'],
]

// Nested ignore files: each one hides something the build puts there (see generated()).
const IGNORES = {
  '.gitignore': 'node_modules/\n/build/\n*.log\n!keep.log\n',
  'crates/.gitignore': 'target/\n*.orig\n',
  'packages/.gitignore': '*.map\n',
  'packages/three/.gitignore': '/examples/jsm/libs/\n',
}

const sha256 = (buf) => createHash('sha256').update(buf).digest('hex')
const manifestId = () => sha256(JSON.stringify({ VERSION, CRATES, PACKAGES, IGNORES })).slice(0, 16)

function log(msg) {
  process.stderr.write(`corpus: ${msg}\n`)
}

function run(cmd, args, opts = {}) {
  return execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 30, ...opts })
}

function cached(file, want) {
  try {
    return sha256(fs.readFileSync(file)) === want
  } catch {
    return false
  }
}

function checked(file, want, what) {
  const got = sha256(fs.readFileSync(file))
  if (got !== want) throw new Error(`${what}: sha256 ${got}, expected ${want} (${file})`)
}

function fetchCrate(name, version, hash) {
  const file = path.join(CACHE, `${name}-${version}.crate`)
  if (cached(file, hash)) return file
  log(`download ${name} ${version} (crates.io)`)
  const url = `https://static.crates.io/crates/${name}/${name}-${version}.crate`
  run('curl', ['-fsSL', '--retry', '3', '-o', `${file}.part`, url])
  fs.renameSync(`${file}.part`, file)
  checked(file, hash, `${name}@${version}`)
  return file
}

function fetchPackages() {
  // `npm pack <spec>` fetches the registry tarball unchanged; one npm process for all.
  const missing = PACKAGES.filter(([n, v, h]) => !cached(tarballPath(n, v), h))
  if (missing.length > 0) {
    log(`download ${missing.map(([n, v]) => `${n}@${v}`).join(' ')} (npm)`)
    const out = run('npm', ['pack', '--silent', '--pack-destination', CACHE, ...missing.map(([n, v]) => `${n}@${v}`)], {
      cwd: CACHE,
    })
    void out
  }
  for (const [n, v, h] of PACKAGES) checked(tarballPath(n, v), h, `${n}@${v}`)
}

function tarballPath(name, version) {
  // npm pack names "@scope/x" as "scope-x-<version>.tgz".
  return path.join(CACHE, `${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`)
}

/** Deterministic byte stream (xorshift32), so generated files are the same everywhere. */
function prng(seed) {
  let x = seed >>> 0 || 1
  return () => {
    x ^= x << 13
    x >>>= 0
    x ^= x >>> 17
    x ^= x << 5
    x >>>= 0
    return x
  }
}

function binaryBlob(seed, size) {
  const next = prng(seed)
  const buf = Buffer.alloc(size)
  for (let i = 0; i < size; i += 4) buf.writeUInt32LE(next(), i < size - 3 ? i : size - 4)
  // Text a binary-blind tool would report: binary files must be skipped, not matched.
  const bait = Buffer.from('\nimpl Default for Config { fn default() -> Self { todo!() } } // return error\n')
  for (let off = 1000; off + bait.length < size; off += 50_000) bait.copy(buf, off)
  buf[0] = 0x89 // a PNG-like header with a NUL early on
  buf[1] = 0x00
  return buf
}

function logText(seed, lines) {
  const next = prng(seed)
  const words = ['GET', 'POST', 'request', 'response', 'timeout', 'retry', 'error', 'cache', 'hit', 'miss', 'user', 'session']
  const out = []
  for (let i = 0; i < lines; i++) {
    const a = words[next() % words.length]
    const b = words[next() % words.length]
    out.push(`2024-01-${String((i % 28) + 1).padStart(2, '0')} ${a} ${b} id=${next().toString(16)} took=${next() % 1000}ms`)
  }
  return out.join('\n') + '\n'
}

/** Files the build adds besides the downloaded sources, by path relative to the corpus. */
function generated() {
  const files = {}
  // A few binary files (tracked, so tools see them and must skip them as binary).
  for (let i = 0; i < 4; i++) files[`assets/blob-${i}.bin`] = binaryBlob(1000 + i, [65_536, 262_144, 1_048_576, 3_145_728][i])
  // Ignored build output and logs; one log re-included by negation.
  for (let i = 0; i < 200; i++) files[`build/out/chunk-${i}.js`] = `// generated chunk ${i}\nexport default function chunk${i}() { return ${i} }\n`
  for (let i = 0; i < 20; i++) files[`logs/run-${i}.log`] = logText(2000 + i, 2000)
  files['logs/keep.log'] = logText(3000, 2000)
  // A nested target/ in a crate: ignored by crates/.gitignore.
  for (let i = 0; i < 300; i++) files[`crates/tokio-1.40.0/target/debug/deps/unit-${i}.d`] = `/target/debug/deps/unit-${i}: src/lib.rs\n`
  // One more multi-MB text file, of the log kind (tracked).
  files['data/access.txt'] = logText(4000, 60_000)
  for (const [p, body] of Object.entries(IGNORES)) files[p] = body
  return files
}

function walk(dir, rel, out) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (rel === '' && e.name === '.git') continue
    const r = rel ? `${rel}/${e.name}` : e.name
    if (e.isDirectory()) walk(path.join(dir, e.name), r, out)
    else if (e.isFile()) out.push(r)
  }
  return out
}

function build(stage) {
  fs.mkdirSync(stage, { recursive: true })
  for (const [name, version, hash] of CRATES) {
    const file = fetchCrate(name, version, hash)
    fs.mkdirSync(path.join(stage, 'crates'), { recursive: true })
    run('tar', ['-xzf', file, '-C', path.join(stage, 'crates')])
  }
  fetchPackages()
  for (const [name, version, , dest] of PACKAGES) {
    const dir = path.join(stage, dest)
    fs.mkdirSync(dir, { recursive: true })
    run('tar', ['-xzf', tarballPath(name, version), '-C', dir, '--strip-components=1'])
  }
  for (const [rel, body] of Object.entries(generated())) {
    const p = path.join(stage, rel)
    fs.mkdirSync(path.dirname(p), { recursive: true })
    fs.writeFileSync(p, body)
  }
  // Make every file writable (some tarballs ship read-only files) and give each a distinct
  // mtime in an order unrelated to its path, so a sort by mtime is fully determined.
  const files = walk(stage, '', [])
  const ranked = files.map((f) => [sha256(f), f]).sort((a, b) => (a[0] < b[0] ? -1 : 1))
  const base = 1_600_000_000
  ranked.forEach(([, f], i) => {
    const p = path.join(stage, f)
    fs.chmodSync(p, 0o644)
    fs.utimesSync(p, base + i * 10, base + i * 10)
  })
  log(`git commit of ${files.length} files (ignored ones stay untracked)`)
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: 'bench',
    GIT_AUTHOR_EMAIL: 'bench@example.invalid',
    GIT_COMMITTER_NAME: 'bench',
    GIT_COMMITTER_EMAIL: 'bench@example.invalid',
    GIT_AUTHOR_DATE: '2024-01-01T00:00:00Z',
    GIT_COMMITTER_DATE: '2024-01-01T00:00:00Z',
    GIT_CONFIG_NOSYSTEM: '1',
  }
  const git = (...args) => run('git', ['-c', 'core.compression=1', '-c', 'gc.auto=0', '-c', 'core.autocrlf=false', ...args], { cwd: stage, env })
  git('init', '-q', '-b', 'main')
  git('add', '-A')
  git('commit', '-q', '--no-verify', '-m', 'benchmark corpus')
  return files
}

function stats(root) {
  const all = walk(root, '', [])
  let bytes = 0
  for (const f of all) bytes += fs.statSync(path.join(root, f)).size
  const tracked = run('git', ['ls-files', '-z'], { cwd: root }).toString().split('\0').filter(Boolean)
  let trackedBytes = 0
  for (const f of tracked) trackedBytes += fs.statSync(path.join(root, f)).size
  const commit = run('git', ['rev-parse', 'HEAD'], { cwd: root }).toString().trim()
  return { files: all.length, bytes, trackedFiles: tracked.length, trackedBytes, commit }
}

/** The corpus stamp if the corpus is complete and current, else null. */
export function corpusInfo() {
  try {
    const s = JSON.parse(fs.readFileSync(STAMP, 'utf8'))
    return s.manifest === manifestId() ? s : null
  } catch {
    return null
  }
}

/** Builds the corpus unless a current one exists. Returns its stamp. */
export function ensureCorpus({ force = false } = {}) {
  const have = corpusInfo()
  if (have && !force) return have
  const t0 = Date.now()
  fs.mkdirSync(CACHE, { recursive: true })
  for (const e of fs.readdirSync(BENCH)) if (e.startsWith('corpus.stage-')) fs.rmSync(path.join(BENCH, e), { recursive: true, force: true })
  const stage = path.join(BENCH, `corpus.stage-${process.pid}`)
  log(`building ${CORPUS} (downloads are cached in ${CACHE})`)
  build(stage)
  const info = { manifest: manifestId(), version: VERSION, ...stats(stage), builtIn: `${((Date.now() - t0) / 1000).toFixed(0)} s` }
  fs.writeFileSync(path.join(stage, '.git', 'bench-corpus.json'), JSON.stringify(info, null, 2) + '\n')
  fs.rmSync(CORPUS, { recursive: true, force: true })
  fs.renameSync(stage, CORPUS)
  log(
    `done in ${info.builtIn}: ${info.files} files, ${(info.bytes / 1e6).toFixed(1)} MB ` +
      `(${info.trackedFiles} tracked files, ${(info.trackedBytes / 1e6).toFixed(1)} MB)`,
  )
  return info
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const info = ensureCorpus({ force: process.argv.includes('--force') })
    process.stdout.write(JSON.stringify(info, null, 2) + '\n')
  } catch (e) {
    process.stderr.write(`corpus: build failed: ${e.stderr ? e.stderr.toString() : ''}${e.message}\n`)
    process.exit(1)
  }
}
