#!/bin/bash
# Install the Debian packages the build and tests need (skipped when all are present).
set -euo pipefail
pkgs=(cmake ninja-build gcc g++ make python3 python3-venv python3-pip python3-dev iproute2 nftables procps pkg-config
      binutils libfabric-dev libfabric-bin)
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "Installing: ${missing[*]}"
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO=sudo
    $SUDO apt-get update -q
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${missing[@]}"
fi
