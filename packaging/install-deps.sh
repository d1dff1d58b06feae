#!/usr/bin/env bash
# Installs TileScope's build and test dependencies from Debian 12 packages (nothing vendored).
# Usage: packaging/install-deps.sh [--core-only]   (--core-only: no Qt and no Debian torch, for a GPU box
#        that brings its own PyTorch)
set -euo pipefail
core=(build-essential cmake ninja-build pkg-config nlohmann-json3-dev zlib1g-dev libisal-dev libsqlite3-dev python3 clang libclang-rt-14-dev)
# Debian's torch 1.13 (CPU, legacy profiler): the Python harness and LibTorch capture tests.
torch=(python3-torch libtorch-dev)
gui=(qt6-base-dev qt6-base-dev-tools libgl-dev libqcustomplot-dev libqcustomplot2.1-qt6 xvfb xauth)
# Development checks run by .ci/run (the format check), and the browser tst_report renders the report in
# (headless; the test skips without it).
dev=(clang-format chromium)
# tools/package-check.sh: lintian checks the .deb; shared-mime-info, gio and xdg-utils answer which type a
# trace file is and what opens it.
package=(lintian shared-mime-info libglib2.0-bin xdg-utils)
# tests/bench/bench_scan_simdjson: the bare simdjson scan the loader's speed is measured against.
bench=(libsimdjson-dev)
pkgs=("${core[@]}")
[ "${1:-}" = "--core-only" ] || pkgs+=("${torch[@]}" "${gui[@]}" "${dev[@]}" "${package[@]}" "${bench[@]}")
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
    echo "install-deps: all ${#pkgs[@]} packages present"
    exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
