// What the platform running the suite can do, as skip reasons (SPEC §9, Platforms). A test
// that cannot run here says why: `test(name, { skip: noSh }, fn)` skips with the reason on
// Windows without Git for Windows' sh and runs everywhere else.
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { createAgentTools } from '../index.mjs'

/** Running on Windows (natively or under Wine). */
export const windows = process.platform === 'win32'

/** Running under Wine: `npm run test:windows` sets CLARVIS_WINE=1. */
export const wine = windows && process.env.CLARVIS_WINE === '1'

/** The home directory the tools give a shell's `~` (`HOME`; on Windows, where it is usually
 * unset, `USERPROFILE`, as Git for Windows' sh does). */
export const home = process.env.HOME || (windows ? process.env.USERPROFILE : undefined)

/** A `/`-separated relative path as the tools display it here: `path.relative`'s form
 * (`sub\\b.txt` on Windows, as the original shows it; SPEC §9, Platforms). */
export const native = (p) => p.split('/').join(path.sep)

/** The tools' text with Windows' display separators turned back into `/`, for assertions
 * written once for every platform (windows_paths.test.mjs asserts the `\\` form itself). */
export const slash = (text) => (windows ? text.replaceAll('\\', '/') : text)

/** Asks the tools themselves whether they find a shell (they look beyond PATH on Windows). */
async function shellFound() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cat-sh-'))
  try {
    const tools = createAgentTools({ workspaceRoot: dir, compat: '0.1' })
    const r = await tools.callTool('bash', { command: 'exit 0' })
    return !(r.isError && r.text.includes('no sh.exe found'))
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

/** Skip reason for tests that run commands (bash, monitors), or false. */
export const noSh =
  windows && !(await shellFound()) && 'bash and monitors need sh.exe from Git for Windows, which is not installed here'

/** Skip reason for the Unix terminal tests (terminal.test.mjs: `stdin` pipes, python3, top,
 * /proc, process groups), or false. Windows runs its own (terminal_windows.test.mjs). */
export const noTty = windows && 'these terminal tests drive Unix programs and /proc; Windows has terminal_windows.test.mjs'

/** Skip reason for terminal monitors on Windows (ConPTY), or false: Windows only, not Wine
 * (measured: SPEC §9, "Terminal monitors on Windows"), and they run `sh -c` like every
 * monitor, so they need Git for Windows' sh. */
export const noConpty =
  (!windows && 'Windows only (ConPTY)') ||
  (wine &&
    "Wine has no sh.exe, and Wine 8's pseudo consoles give a program no standard handles bound to the console (its output never reaches it) and do not resize; the ConPTY layer is tested under Wine by the Rust tests of src/terminal/conpty.rs") ||
  noSh

/** Skip reason for tests of Unix process control (signals, sessions, process groups), or false. */
export const noSignals = windows && 'Unix signals and process groups: Windows ends processes with TerminateProcess'

/** The permission bits a file given `mode` shows here: Windows keeps only the read-only
 * attribute (Node shows 0o666 or 0o444), which is what the tools carry over there. */
export const modeAs = (mode) => (windows ? (mode & 0o200 ? 0o666 : 0o444) : mode)

/** Skip reason for tests of Unix permission bits beyond the read-only attribute, or false. */
export const noModes = windows && 'Windows keeps only a read-only attribute, not Unix permission bits'

/** Skip reason for tests of FIFOs, /proc or other Unix-only files, or false. */
export const unixOnly = windows && 'Unix-only files (FIFOs, /proc, /dev)'

function canLink(type) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cat-ln-'))
  try {
    fs.mkdirSync(path.join(dir, 'd'))
    fs.writeFileSync(path.join(dir, 'd', 'f'), 'x')
    fs.symlinkSync(path.join(dir, 'd'), path.join(dir, 'l'), type)
    // Wine's CreateSymbolicLink reports success and makes nothing: check the link works.
    return fs.readFileSync(path.join(dir, 'l', 'f'), 'utf8') === 'x'
  } catch {
    return false
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

/** Whether Node's fetch reaches a local HTTP server (under Wine 8 undici's connect fails with
 * `UNKNOWN` while http.get works). */
async function fetchWorks() {
  const server = http.createServer((_, res) => res.end('ok'))
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  try {
    return (await (await fetch(`http://127.0.0.1:${server.address().port}/`)).text()) === 'ok'
  } catch {
    return false
  } finally {
    server.close()
  }
}

/** Skip reason for tests that talk HTTP through fetch (MCP over HTTP, the SDK clients), or false. */
export const noFetch = windows && !(await fetchWorks()) && "Node's fetch cannot connect to 127.0.0.1 here (Wine: undici's connect fails with UNKNOWN)"

/** Skip reason for tests that run git (a real repository's ignore files), or false. */
export const noGit = spawnSync('git', ['--version']).error ? 'git is not installed here' : false

/** Skip reason for tests that make symbolic links (Windows needs Developer Mode or admin), or false. */
export const noSymlinks =
  !canLink('dir') &&
  (wine ? 'Wine cannot create symbolic links (its CreateSymbolicLink makes nothing)' : 'this account cannot create symbolic links (Windows: enable Developer Mode)')

/** Skip reason for tests that make junctions (Wine cannot), or false. */
export const noJunctions = (!windows && 'junctions are a Windows feature') || (!canLink('junction') && 'this system cannot create junctions (Wine)')
