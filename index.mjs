// ESM entry: the same module as index.js (one native addon instance, one warn sink).
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const m = require('./index.js')

export const {
  createAgentTools,
  probeSandbox,
  analyzeBash,
  buildGuardContext,
  withinWorkspace,
  touchesOutside,
  commandsIn,
  agentToolsFor,
  contentText,
  dispatch,
  listTools,
  resolveConfig,
  buildConfig,
  StartupError,
  ToolError,
  serializeError,
  fsError,
  sweepSpillDir,
  sweepMonitors,
  setWarnSink,
  tools,
  readOnlyTools,
  getTool,
  selectSurface,
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_MAX_FILE_BYTES,
  DEFAULT_BASH_TIMEOUT_MS,
  DEFAULT_BASH_TIMEOUT_MAX_MS,
  DEFAULT_MAX_IMAGE_BYTES,
  DEFAULT_MONITOR_READY_TIMEOUT_MS,
  DEFAULT_MAX_MONITORS,
} = m
export default m
