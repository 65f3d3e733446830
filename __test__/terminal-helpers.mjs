// What the terminal test files share (terminal.test.mjs, terminal_windows.test.mjs).
import { after } from 'node:test'
import assert from 'node:assert/strict'
import { latest as made } from './helpers.mjs'

/** A successful result's JSON. */
export const json = (r) => {
  assert.equal(r.isError, false, r.text)
  return JSON.parse(r.text)
}

/** The longest `wait_ms` a turn asks for. */
export const LONG = 30000

/**
 * `latest` (a workspace and its tools) whose monitors are all stopped when the file's tests
 * end. Monitors outlive their host: whatever a failed test left running (a flood, a REPL) is
 * stopped then, so a failure does not leave programs behind on the machine.
 */
export function stoppingAfter() {
  const opened = []
  after(async () => {
    for (const tools of opened) {
      const list = JSON.parse((await tools.callTool('monitor_list', {})).text)
      for (const m of Array.isArray(list) ? list : list.monitors ?? []) await tools.callTool('monitor_stop', { id: m.id })
    }
  })
  return (...a) => {
    const t = made(...a)
    opened.push(t.tools)
    return t
  }
}
