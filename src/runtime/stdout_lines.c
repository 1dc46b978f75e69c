/*
 * A rank's stdout is a pipe to mpiexec, which stdio buffers fully: a program's printf lines would
 * reach the user only once 4 KiB have gathered or at exit, and be lost when the rank crashes or
 * aborts. Ranks that mpiexec started line-buffer stdout instead, as on a terminal, which is what
 * printf debugging expects (Open MPI's ranks write to a pty, MPICH's are unbuffered). Done before
 * main because setvbuf must come before any output on the stream; a program's own setvbuf wins.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((constructor)) static void line_buffered_stdout(void)
{
    if (getenv("EMPI_RANK") && !isatty(STDOUT_FILENO))
        setvbuf(stdout, NULL, _IOLBF, 0);
}
