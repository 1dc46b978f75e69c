/*
 * empi-info: what this EtherMPI installation is, every knob it reads with current values, and the
 * performance variables a tool can read through MPI_T.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi.h"

/* Exported by libmpi_abi.so for this tool (src/core/info_tool.c). */
typedef struct empi_info_tunable {
    const char *type, *def, *doc;
    char env[96];
    char value[256];
    int set;   /* given in the environment or through MPI_T */
} empi_info_tunable_t;
int empi_info_tunable_count(void);
int empi_info_tunable_get(int i, empi_info_tunable_t *out);
/* Exported by the collective layer (src/coll/coll_select.c): the algorithm registry. */
int empi_info_coll_algorithms(void (*cb)(const char *coll, const char *alg, const char *restrictions,
                                         const char *desc));
/* Exported by the ofi netmod (src/transport/ofi/ofi_provider.c); -1 when built without libfabric. */
int empi_info_ofi_providers(void (*cb)(const char *prov, const char *fabric, const char *domain, int rdma),
                            char *chosen, size_t chosen_len);

static void print_version(void)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len, major, minor, abi_major, abi_minor;
    MPI_Get_library_version(version, &len);
    MPI_Get_version(&major, &minor);
    MPI_Abi_get_version(&abi_major, &abi_minor);
    printf("Library:        %s\n", version);
    printf("MPI standard:   %d.%d\n", major, minor);
    printf("ABI:            MPI standard ABI %d.%d (libmpi_abi.so.1)\n", abi_major, abi_minor);
    printf("Transports:     self, shm (shared memory, CMA single-copy when permitted);\n"
           "                other hosts: EMPI_TRANSPORT = tcp, udp or hybrid (docs/NETWORK.md)\n");
}

/* One line per provider listing its domains (network interfaces for the socket providers). */
static struct {
    char prov[64], domains[512];
    int rdma;
} provs[32];
static int nprovs;

static void add_provider(const char *prov, const char *fabric, const char *domain, int rdma)
{
    (void)fabric;
    int i = 0;
    while (i < nprovs && strcmp(provs[i].prov, prov))
        i++;
    if (i == nprovs) {
        if (nprovs == (int)(sizeof provs / sizeof provs[0]))
            return;
        snprintf(provs[nprovs].prov, sizeof provs[0].prov, "%s", prov);
        provs[nprovs++].rdma = rdma;
    }
    char *d = provs[i].domains;
    size_t used = strlen(d);
    if (!strstr(d, domain) && used + strlen(domain) + 3 < sizeof provs[0].domains)
        snprintf(d + used, sizeof provs[0].domains - used, "%s%s", used ? ", " : "", domain);
}

/* What libfabric offers here (reliable-datagram endpoints) and what EMPI_TRANSPORT=ofi would open. */
static void print_ofi(void)
{
    char chosen[256] = "";
    printf("\nlibfabric providers (FI_EP_RDM; EMPI_TRANSPORT=ofi, EMPI_OFI_PROVIDER):\n");
    int n = empi_info_ofi_providers(add_provider, chosen, sizeof chosen);
    if (n == 0)
        printf("  none\n");
    for (int i = 0; i < nprovs; i++)
        printf("  %-14s%s domains: %s\n", provs[i].prov, provs[i].rdma ? " (RDMA)" : "", provs[i].domains);
    printf("  a job with EMPI_TRANSPORT=ofi would use: %s\n", chosen);
}

/* Read by mpiexec, MPI_Comm_spawn and the compiler wrappers from the environment, not by the
   library's tunable registry. */
static const struct {
    const char *name, *doc;
} tool_env[] = {
    {"EMPI_LAUNCHER_RSH", "mpiexec: the command that reaches remote hosts (default ssh; -launcher-exec)"},
    {"EMPI_BOOTSTRAP_ADDR", "mpiexec: the address remote hosts reach this one at"},
    {"MPIEXEC_TIMEOUT", "mpiexec: end the job after this many seconds (--timeout)"},
    {"MPIEXEC_UNIVERSE_SIZE", "mpiexec: MPI_UNIVERSE_SIZE (-usize)"},
    {"EMPI_MPIEXEC", "MPI_Comm_spawn: the launcher to run (mpiexec sets it for every rank)"},
    {"EMPI_CC", "mpicc: the C compiler (else MPICH_CC, OMPI_CC, cc)"},
    {"EMPI_CXX", "mpicxx: the C++ compiler (else MPICH_CXX, OMPI_CXX, c++)"},
};

static void print_tool_env(int verbose)
{
    int n = (int)(sizeof tool_env / sizeof tool_env[0]);
    printf("\nRead by mpiexec, MPI_Comm_spawn and the compiler wrappers (%d; environment only):\n", n);
    for (int i = 0; i < n; i++) {
        const char *v = getenv(tool_env[i].name);
        printf("  %-28s %s%s\n", tool_env[i].name, v ? "value " : "not set", v ? v : "");
        if (verbose)
            printf("      %s\n", tool_env[i].doc);
    }
}

static void print_tunables(int verbose)
{
    int n = empi_info_tunable_count();
    printf("\nTunables (%d; set as environment variables, or as MPI_T control variables empi_<name>):\n", n);
    for (int i = 0; i < n; i++) {
        empi_info_tunable_t t;
        if (empi_info_tunable_get(i, &t) != 0)
            continue;
        printf("  %-28s %-7s value %-10s default %-10s%s\n", t.env, t.type, t.value, t.def,
               t.set ? " (set)" : "");
        if (verbose)
            printf("      %s\n", t.doc);
    }
}

static int algs_verbose;
static char last_coll[32];

static void print_algorithm(const char *coll, const char *alg, const char *restrictions, const char *desc)
{
    if (strcmp(coll, last_coll)) {
        snprintf(last_coll, sizeof last_coll, "%s", coll);
        printf("  %s\n", coll);
    }
    printf("    %-22s restrictions: %s\n", alg, restrictions);
    if (algs_verbose && desc)
        printf("        %s\n", desc);
}

/* What EMPI_<COLLECTIVE>_ALGORITHM and the tuning table (EMPI_TUNING_FILE) may name. */
static void print_algorithms(int verbose)
{
    algs_verbose = verbose;
    printf("\nCollective algorithms (EMPI_<COLLECTIVE>_ALGORITHM=<name> forces one; a call that does not\n"
           "meet its restrictions falls back to an algorithm that fits, with one warning):\n");
    empi_info_coll_algorithms(print_algorithm);
}

static const char *pvar_class_name(int c)
{
    switch (c) {
    case MPI_T_PVAR_CLASS_STATE: return "state";
    case MPI_T_PVAR_CLASS_LEVEL: return "level";
    case MPI_T_PVAR_CLASS_HIGHWATERMARK: return "highwatermark";
    case MPI_T_PVAR_CLASS_COUNTER: return "counter";
    default: return "other";
    }
}

/* Listed through the standard MPI_T interface, which works without MPI_Init. */
static void print_pvars(int verbose)
{
    int provided, n;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS)
        return;
    if (MPI_T_pvar_get_num(&n) == MPI_SUCCESS) {
        printf("\nMPI_T performance variables (%d):\n", n);
        for (int i = 0; i < n; i++) {
            char name[128], desc[512];
            int name_len = sizeof name, desc_len = sizeof desc, var_class;
            if (MPI_T_pvar_get_info(i, name, &name_len, NULL, &var_class, NULL, NULL, desc, &desc_len, NULL, NULL,
                                    NULL, NULL) != MPI_SUCCESS)
                continue;
            printf("  %-36s %s\n", name, pvar_class_name(var_class));
            if (verbose)
                printf("      %s\n", desc);
        }
    }
    MPI_T_finalize();
}

static void usage(FILE *f)
{
    fprintf(f, "usage: empi-info [--brief | --version | --help]\n"
               "  Prints the version, transports, libfabric providers, every EMPI_* tunable with its value,\n"
               "  default and description, every collective algorithm with its restrictions, and the MPI_T\n"
               "  performance variables. --brief leaves out the descriptions; --version prints the first lines.\n");
}

int main(int argc, char **argv)
{
    int brief = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--brief") || !strcmp(argv[i], "-b")) {
            brief = 1;
        } else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--version") || !strcmp(argv[i], "-V")) {
            print_version();
            return 0;
        } else {
            fprintf(stderr, "empi-info: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return 1;
        }
    }
    print_version();
    print_ofi();
    print_tunables(!brief);
    print_tool_env(!brief);
    print_algorithms(!brief);
    print_pvars(!brief);
    return 0;
}
