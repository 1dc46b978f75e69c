#!/bin/bash
# Run the whole test suite: a -Werror build with every test, then the suite again under
# AddressSanitizer + UndefinedBehaviorSanitizer, then the threaded tests under ThreadSanitizer.
#   ./test.sh            everything
#   ./test.sh --quick    the -Werror build only
set -euo pipefail
cd "$(dirname "$0")"
scripts/deps.sh
scripts/peers.sh mpich
jobs=$(nproc)
status=0

cmake -S . -B build-test -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEMPI_WERROR=ON >/dev/null
cmake --build build-test
(cd build-test && ctest --output-on-failure --timeout 300 -j "$jobs") || status=1

if [ "${1:-}" != "--quick" ]; then
    cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DEMPI_WERROR=ON -DEMPI_SANITIZE=address >/dev/null
    cmake --build build-asan
    # The ABI interop test loads MPICH's library too, and mpi4py runs in Python: neither is built
    # with the sanitizer. Under the sanitizer each network suite takes minutes, so one of each kind
    # stays: the loopback suites run the same programs and transport code as their namespace twins,
    # and the namespace hybrid suite carries traffic over both tcp and udp (net_udp keeps udp's
    # loss cases); of libfabric's providers, tcp;ofi_rxm (atomics, reads and writes) and
    # udp;ofi_rxd under loss stay. coll_sweep keeps 1-5 and 9 ranks, and the 4-per-node fake nodes.
    skip_asan="abi.interop|abi.mpi4py|large|net\.loopback\.(tcp|udp|hybrid|ofi-.*)$|net\.netns\.(tcp|udp)$"
    skip_asan+="|net\.netns\.ofi-(tcp|rxd)$|coll_sweep\.np[678]$|coll_sweep\.fake_nodes\.np6$"
    (cd build-asan && ASAN_OPTIONS=detect_leaks=0 ctest --output-on-failure --timeout 600 -j "$jobs" \
        -E "$skip_asan") || status=1
    # Only what the threaded tests need is built; tests/tsan.supp lists the races tests make on purpose.
    cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEMPI_WERROR=ON -DEMPI_SANITIZE=thread >/dev/null
    cmake --build build-tsan --target mpi_abi mpiexec threads_pt2pt threads_callbacks comm_threads \
        comm_create_group_threads async_progress async_progress_direct mpit_threads
    (cd build-tsan && TSAN_OPTIONS="halt_on_error=1 suppressions=$PWD/../tests/tsan.supp" \
        ctest --output-on-failure --timeout 600 -j "$jobs" -R "thread|async_progress" -E "^net") || status=1
fi
exit $status
