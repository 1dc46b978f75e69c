#!/bin/sh
# EMPI_LAUNCHER_RSH stand-in that "reaches" host H on this very machine: it runs the command
# with EMPI_HOSTNAME=H, so the ranks started there count as a separate host (their own node,
# reached over the network transport instead of shared memory). Called like ssh: HOST CMD ARGS...
host=$1
shift
EMPI_HOSTNAME=$host
export EMPI_HOSTNAME
exec "$@"
