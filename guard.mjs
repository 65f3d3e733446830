// @clarvis/agent-tools/guard (ESM): the same functions as the package root's.
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const m = require('./index.js')

export const { analyzeBash, buildGuardContext, withinWorkspace, touchesOutside, commandsIn } = m
