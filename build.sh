#!/bin/bash
# Build everything, install to a prefix, and run the demo.
#   ./build.sh [PREFIX]        (default prefix: ./install)
# Installs missing Debian packages first (apt-get; run as root or with sudo available).
set -euo pipefail
cd "$(dirname "$0")"
prefix=$(realpath -m "${1:-install}")
scripts/deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DEMPI_BUILD_TESTS=OFF -DCMAKE_INSTALL_PREFIX="$prefix" >/dev/null
cmake --build build
cmake --install build >/dev/null
echo "Installed EtherMPI into $prefix"
scripts/demo.sh "$prefix"
