# shellcheck shell=bash
# Sourced by the GPU scripts (tools/gpu/*.sh): builds tilescope-cli on the GPU machine (Release, no Qt, no
# tests) in build-gpu and sets `cli` to it; CLI=path/to/tilescope-cli skips the build.
# core needs nlohmann/json's headers. On a box without them, carry Debian's package: here, in the repo root,
#   echo /.deb/ >> .git/info/exclude; mkdir -p .deb; (cd .deb && apt-get download nlohmann-json3-dev)
# and name `.deb` in the device run's carry; it is unpacked under /tmp (not /) and CMake is pointed at it.
# A build-gpu configured before (e.g. by prove_torch_capture.sh against the bundled LibTorch) is reused.
# Usage: source tools/gpu/build_cli.sh; build_cli LOGDIR   (cmake.log and build.log go to LOGDIR)
build_cli() {
    local logs=$1 root deb prefix=()
    root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
    if [ -n "${CLI:-}" ]; then
        cli=$CLI
        return 0
    fi
    mkdir -p "$logs"
    for deb in "$root"/.deb/nlohmann-json3-dev_*.deb; do
        [ -f "$deb" ] || continue
        mkdir -p /tmp/tilescope-deps && dpkg -x "$deb" /tmp/tilescope-deps || return 1
        prefix=(-DCMAKE_PREFIX_PATH=/tmp/tilescope-deps/usr)
        echo "== nlohmann/json from $(basename "$deb"), unpacked under /tmp/tilescope-deps"
    done
    if [ -f "$root/build-gpu/build.ninja" ]; then
        echo "== reusing build-gpu"
    else
        cmake -S "$root" -B "$root/build-gpu" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTILESCOPE_BUILD_GUI=OFF \
            -DTILESCOPE_BUILD_TESTS=OFF -DTILESCOPE_BUILD_BENCHMARKS=OFF "${prefix[@]}" > "$logs/cmake.log" 2>&1 \
            || { tail -30 "$logs/cmake.log"; return 1; }
    fi
    cmake --build "$root/build-gpu" --target tilescope-cli -j "$(nproc)" > "$logs/build.log" 2>&1 \
        || { tail -40 "$logs/build.log"; return 1; }
    cli="$root/build-gpu/app/tilescope-cli"
    echo "== cli: $cli"
}
