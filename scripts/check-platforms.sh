#!/usr/bin/env bash
# `npm run check:platforms`: type-check and lint the crate for macOS and Windows from a Linux
# machine, so a `cfg` branch that does not compile is found before the release workflow's
# native runners build it. Needs rustup (it adds the targets' standard libraries).
#
# Only Rust is checked: the C parts (tree-sitter grammars, PCRE2) go through a stand-in
# compiler that writes empty objects, which `cargo clippy` never links. Each target is
# checked twice: the napi-free core with its tests, and the addon with the napi layer.
set -euo pipefail
cd "$(dirname "$0")/.."
targets=(x86_64-pc-windows-gnu x86_64-apple-darwin aarch64-apple-darwin)
rustup target add "${targets[@]}"

stub=$(mktemp -d)
trap 'rm -rf "$stub"' EXIT
cat > "$stub/cc" <<'CC'
#!/bin/sh
out=""; prev=""
for a in "$@"; do
  [ "$prev" = "-o" ] && out="$a"
  prev="$a"
done
[ -n "$out" ] && : > "$out"
exit 0
CC
cat > "$stub/ar" <<'AR'
#!/bin/sh
for a in "$@"; do case "$a" in *.a) : > "$a";; esac; done
exit 0
AR
chmod +x "$stub/cc" "$stub/ar"
# napi-build looks for libnode.dll when targeting windows-gnu; nothing is linked here.
: > "$stub/libnode.dll"

for t in "${targets[@]}"; do
  v=$(echo "$t" | tr '-' '_')
  echo "== $t"
  env "CC_$v=$stub/cc" "AR_$v=$stub/ar" LIBNODE_PATH="$stub" RUSTC_WRAPPER= \
    CARGO_TARGET_DIR="target/check-platforms" \
    cargo clippy --target "$t" --no-default-features --all-targets -- -D warnings
  env "CC_$v=$stub/cc" "AR_$v=$stub/ar" LIBNODE_PATH="$stub" RUSTC_WRAPPER= \
    CARGO_TARGET_DIR="target/check-platforms" \
    cargo clippy --target "$t" -- -D warnings
done
echo "check-platforms: ${targets[*]} compile and lint clean"
