#!/usr/bin/env bash
# Installs, from Debian 12 packages, whatever Tessera needs to build and test that is missing.
# Nothing else is downloaded, at install or at build time.
set -euo pipefail

packages=(
  g++ cmake ninja-build make
  libboost-graph-dev libboost-program-options-dev
  libyaml-cpp-dev libeigen3-dev nlohmann-json3-dev libfmt-dev doctest-dev
  libboost-mpi-dev openmpi-bin
  libopencv-ml-dev  # CART decision trees for tessera select (Debian 12 packages no mlpack)
  chromium  # headless, for the report.html test (tests/sim/report)
  clang libclang-rt-dev  # libFuzzer and the sanitizer runtimes of Debian's clang, for the fuzz targets (tests/fuzz)
  hipcc libamdhip64-dev  # the AMD build of the kernel suite (kernels/), compile only here
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: everything is installed"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
