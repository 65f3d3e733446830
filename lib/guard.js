'use strict'
// The guard helpers of the original 0.3+ (LATER §2.4), pure JavaScript (a host's guard runs
// in JS, so its context is built there; the realpath-based confinement check, the patch
// parser's names and a checkpoint's paths are the native calls, through the `probe`):
// - `analyzeBash` (`guard/analyze.js`): what a shell command may touch, soundly — every path
//   it may read, write, run or change into, or `undecidable`;
// - `buildGuardContext` (`guard/context.js`): the path facts per tool;
// - `withinWorkspace`, `touchesOutside`, `commandsIn`: fail-closed policy helpers.

const { analyzeBash } = require('./guard/analyze.js')
const { buildGuardContext, withinWorkspace, touchesOutside, commandsIn } = require('./guard/context.js')

module.exports = { analyzeBash, buildGuardContext, withinWorkspace, touchesOutside, commandsIn }
