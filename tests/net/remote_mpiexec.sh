#!/bin/sh
# mpiexec with every rank on "remote" fake hosts (fake_rsh.sh, through proxies), so the launcher
# tests of tests/shell run across hosts too. The real mpiexec is $EMPI_TEST_MPIEXEC.
here=$(cd "$(dirname "$0")" && pwd)
EMPI_LAUNCHER_RSH="$here/fake_rsh.sh"
EMPI_BOOTSTRAP_ADDR=127.0.0.1
export EMPI_LAUNCHER_RSH EMPI_BOOTSTRAP_ADDR
exec "$EMPI_TEST_MPIEXEC" -hosts hA,hB "$@"
