#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Debian package, end to end: builds it from an existing build folder (`--target package` reuses its
# objects), runs lintian on it (errors fail, warnings are printed), installs it with apt-get, runs the
# installed programs on the installed sample (tilescope-cli summary and report with the installed app's
# pictures, tilescope --screenshot offscreen),
# then removes it (a tilescope installed before is removed too). tools/test.sh runs it after the test
# suite; alone: tools/package-check.sh [BUILD_DIR].
# Needs root or sudo (it installs and removes the package).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=$(cd "${1:-build}" && pwd)
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive

cmake --build "$build" -j "$(nproc)" --target package
version=$(sed -n 's/^CPACK_PACKAGE_VERSION:.*=//p; s/^set(CPACK_PACKAGE_VERSION "\(.*\)")$/\1/p' "$build/CPackConfig.cmake" | head -n 1)
deb="$build/tilescope_${version}_$(dpkg --print-architecture).deb"
[ -f "$deb" ] || { echo "package-check: $deb was not made"; exit 1; }
echo "package-check: $(basename "$deb"), $(du -h "$deb" | cut -f1)"
dpkg-deb --field "$deb" Version Depends Recommends | sed 's/^/package-check:   /'

# lintian: no errors. Warnings and info are printed for the next person to fix.
lintian_log=$(mktemp)
work=$(mktemp -d)
installed=0
cleanup() {
    [ "$installed" -eq 0 ] || $SUDO apt-get remove -y -qq tilescope > /dev/null || true
    rm -rf "$work" "$lintian_log"
}
trap cleanup EXIT
lintian_status=0
lintian --fail-on error --display-info "$deb" > "$lintian_log" 2>&1 || lintian_status=$?
sed -i '/running with root privileges/d' "$lintian_log"
[ "$lintian_status" -eq 0 ] || { cat "$lintian_log"; echo "package-check: lintian reports errors (status $lintian_status)"; exit 1; }
echo "package-check: lintian: $(grep -c '^E:' "$lintian_log" || true) errors, $(grep -c '^W:' "$lintian_log" || true) warnings, $(grep -c '^I:' "$lintian_log" || true) info"
sed 's/^/package-check:   /' "$lintian_log"

# Install it as a user would, and run what was installed, from a folder outside the source tree.
$SUDO apt-get install -y -qq "$deb" > "$work/apt.log" 2>&1 || { cat "$work/apt.log"; echo "package-check: apt-get install failed"; exit 1; }
installed=1
cd "$work"
sample=/usr/share/tilescope/samples/train_scheduled.pt.trace.json.gz
for f in /usr/bin/tilescope /usr/bin/tilescope-cli /usr/share/tilescope/harness/tilescope_harness.py /usr/share/tilescope/devices.json \
    /usr/share/tilescope/examples/train_mlp.py "$sample" /usr/share/applications/tilescope.desktop /usr/share/mime/packages/tilescope.xml \
    /usr/share/icons/hicolor/scalable/apps/tilescope.svg /usr/share/icons/hicolor/48x48/apps/tilescope.png \
    /usr/share/man/man1/tilescope.1.gz /usr/share/man/man1/tilescope-cli.1.gz /usr/share/doc/tilescope/README.md.gz \
    /usr/share/doc/tilescope/sqlite-export.md.gz /usr/share/doc/tilescope/sessions.md.gz; do
    [ -e "$f" ] || { echo "package-check: the package did not install $f"; exit 1; }
done
# The installed programs on the installed files. Run where the source tree (and the build folder in it)
# is hidden under an empty tmpfs when a mount namespace can be had (root): the fallbacks to build-tree
# paths compiled into the binaries then lead nowhere, so what works comes from the prefix.
run_installed() {
    /usr/bin/tilescope-cli --version
    /usr/bin/tilescope-cli summary "$sample" --row-limit 5 > summary.txt
    grep -q "Self CPU time total" summary.txt || { cat summary.txt; echo "package-check: installed tilescope-cli summary printed no key-averages table"; exit 1; }
    echo "package-check: tilescope-cli summary on the installed sample: $(wc -l < summary.txt) lines"
    # The installed harness, found next to the installed binary (bin/../share/tilescope).
    /usr/bin/tilescope-cli capture --script /usr/share/tilescope/examples/train_mlp.py --out session --export-harness harness.py > /dev/null
    grep -q "^EMBEDDED_CONFIG = json.loads(" harness.py || { echo "package-check: the installed CLI exported no harness"; exit 1; }
    export XDG_RUNTIME_DIR=$PWD/runtime && mkdir -m 700 "$XDG_RUNTIME_DIR"
    QT_QPA_PLATFORM=offscreen /usr/bin/tilescope --version
    QT_QPA_PLATFORM=offscreen timeout 120 /usr/bin/tilescope "$sample" --screenshot shot.png > screenshot.log 2>&1 \
        || { cat screenshot.log; echo "package-check: installed tilescope --screenshot failed"; exit 1; }
    [ -s shot.png ] || { echo "package-check: installed tilescope wrote no screenshot"; exit 1; }
    echo "package-check: tilescope --screenshot (offscreen): $(stat -c %s shot.png) bytes"
    # The installed CLI's report, its pictures drawn by the installed app (found beside the CLI in bin).
    timeout 120 /usr/bin/tilescope-cli report "$sample" --out report.md > report.log 2>&1 || { cat report.log; echo "package-check: installed tilescope-cli report failed"; exit 1; }
    if grep -q "no pictures" report.log || [ ! -s report.timeline.png ]; then
        cat report.log; echo "package-check: the installed report has no pictures"; exit 1
    fi
    echo "package-check: tilescope-cli report: $(ls report.*.png | wc -l) pictures from the installed app"
}
export -f run_installed
export sample
if [ "$(id -u)" -eq 0 ] && unshare -m true 2> /dev/null; then
    echo "package-check: running the installed programs with $root hidden"
    unshare -m bash -c 'set -euo pipefail; mount -t tmpfs tmpfs "$1"; cd "$2"; run_installed' _ "$root" "$work"
else
    echo "package-check: running the installed programs (no mount namespace here: $root stays visible)"
    run_installed
fi
# A double-click on a trace opens TileScope: the file manager's type of a trace (GLib's, from the
# shared-mime-info database the package's MIME file joined) and the application registered for it.
if command -v gio > /dev/null && command -v xdg-mime > /dev/null; then
    echo '{"traceEvents": []}' > run.pt.trace.json
    gzip -k run.pt.trace.json
    for f in run.pt.trace.json:application/x-pytorch-trace run.pt.trace.json.gz:application/x-compressed-pytorch-trace; do
        file=${f%%:*} expected=${f#*:}
        type=$(gio info -a standard::content-type "$file" | sed -n 's/^ *standard::content-type: //p')
        app=$(xdg-mime query default "$expected")
        [ "$type" = "$expected" ] && [ "$app" = tilescope.desktop ] \
            || { echo "package-check: $file is '$type' opened by '$app', not $expected opened by tilescope.desktop"; exit 1; }
        echo "package-check: $file is $type, opened by $app"
    done
fi

cd "$root"
$SUDO apt-get remove -y -qq tilescope > /dev/null
installed=0
[ ! -e /usr/bin/tilescope-cli ] || { echo "package-check: apt-get remove left /usr/bin/tilescope-cli"; exit 1; }
echo "package-check: installed, ran and removed $(basename "$deb")"
