'use strict'
// @clarvis/agent-tools/guard: the guard helpers, also exported from the package root.
const m = require('./index.js')

module.exports = {
  analyzeBash: m.analyzeBash,
  buildGuardContext: m.buildGuardContext,
  withinWorkspace: m.withinWorkspace,
  touchesOutside: m.touchesOutside,
  commandsIn: m.commandsIn,
}
