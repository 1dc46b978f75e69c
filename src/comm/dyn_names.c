/*
 * The name service: MPI_Publish_name stores a port name under a service name where every job of
 * the user can read it, a file in EMPI_NAMESERV_DIR named by the service name in hex (any byte may
 * occur in it), cut into directories of HEX_PER_LEVEL digits since a file name holds 255 bytes.
 * Creation is exclusive, so one name has one publisher; a process withdraws what it still has
 * published when it finalizes. The file also says which process published it (host and pid): the
 * name of a process on this host that died without finalizing is gone for lookups and free to be
 * published again, not held forever. The default directory is in /tmp, where anyone may have made
 * it first: it is used only if it is ours and nobody else may write in it.
 */
#include "comm/dyn.h"
#include "core/error.h"
#include "core/global.h"
#include "core/info.h"
#include "core/tunables.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#define SERVICE_MAX 1024 /* bytes of a service name (its path is twice that and fits PATH_MAX) */
#define HEX_PER_LEVEL 240

typedef struct published {
    struct published *next;
    char path[4096];
    int levels;   /* directories the file is in, counting the name service's own */
} published_t;

/* Directories the file of a service name of n bytes is in. */
static int levels_of(size_t n)
{
    return 1 + (int)((2 * n - 1) / HEX_PER_LEVEL);
}

static published_t *mine;

/* The file of `service` (making its directories first if `create`); -1 if the name is too long. */
static int service_path(const char *service, int create, char *path, size_t len)
{
    size_t n = strlen(service);
    if (n == 0 || n > SERVICE_MAX)
        return -1;
    const char *dir = empi_tunables.nameserv_dir;
    int w;
    if (dir[0]) {
        w = snprintf(path, len, "%s/", dir);
    } else {
        const char *tmp = getenv("TMPDIR");
        w = snprintf(path, len, "%s/empi-names-%u/", tmp && tmp[0] ? tmp : "/tmp", (unsigned)getuid());
    }
    if (w < 0 || (size_t)w >= len)
        return -1;
    if (create)
        mkdir(path, 0700); /* may exist already */
    struct stat st;
    if (!dir[0] && lstat(path, &st) == 0 &&
        (!S_ISDIR(st.st_mode) || st.st_uid != getuid() || (st.st_mode & (S_IWGRP | S_IWOTH))))
        return -2; /* made by someone else: their names could stand in for ours */
    for (size_t i = 0; i < n && (size_t)w + 4 < len; i++) {
        if (i && (2 * i) % HEX_PER_LEVEL == 0) {
            path[w] = '\0';
            if (create)
                mkdir(path, 0700);
            path[w++] = '/';
        }
        w += snprintf(path + w, len - (size_t)w, "%02x", (unsigned char)service[i]);
    }
    return (size_t)w + 1 < len ? 0 : -1;
}

/* Remove a published file, and its directories when it was the last name there. */
static void withdraw(const char *path, int levels)
{
    unlink(path);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    for (int i = 0; i < levels; i++) {
        char *slash = strrchr(dir, '/');
        if (!slash)
            return;
        *slash = '\0';
        if (rmdir(dir) != 0)   /* fails while other names live there, as it should */
            return;
    }
}

static int check_args(const char *fn, const char *service, MPI_Info info, const char *port, int create, char *path,
                      size_t len)
{
    if (!service)
        return empi_err_noobj(MPI_ERR_ARG, "%s: service_name is NULL", fn);
    if (info != MPI_INFO_NULL && !empi_info_get(info))
        return empi_err_noobj(MPI_ERR_INFO, "%s: info is not a valid info object", fn);
    if (!port)
        return empi_err_noobj(MPI_ERR_ARG, "%s: port_name is NULL", fn);
    int where = service_path(service, create, path, len);
    if (where == -2)
        return empi_err_noobj(MPI_ERR_SERVICE, "%s: the name service's directory %.*s is not this user's alone; "
                              "remove it or set EMPI_NAMESERV_DIR", fn, (int)(strrchr(path, '/') - path), path);
    if (where != 0)
        return empi_err_noobj(MPI_ERR_SERVICE, "%s: service name of %zu bytes is empty or too long (at most %d)", fn,
                              strlen(service), SERVICE_MAX);
    return MPI_SUCCESS;
}

/* The port in the file at path into port (MPI_MAX_PORT_NAME), and its publisher; 0, or -1 if none. */
static int read_record(const char *path, char *port, char *host, size_t hostlen, long *pid)
{
    char buf[MPI_MAX_PORT_NAME + 512];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    char *nl = strchr(buf, '\n');
    if (nl)
        *nl++ = '\0';
    size_t plen = strnlen(buf, MPI_MAX_PORT_NAME - 1);
    memcpy(port, buf, plen);
    port[plen] = '\0';
    host[0] = '\0';
    *pid = 0;
    if (nl && sscanf(nl, "%ld", pid) == 1) {
        const char *sp = strchr(nl, ' ');
        snprintf(host, hostlen, "%s", sp ? sp + 1 : "");
        host[strcspn(host, "\n")] = '\0';
    }
    return 0;
}

static int publisher_gone(const char *host, long pid)
{
    char here[256];
    return pid > 0 && gethostname(here, sizeof here) == 0 && strcmp(here, host) == 0 && kill((pid_t)pid, 0) != 0 &&
           errno == ESRCH;
}

/* The file's port if its publisher may still be alive; a dead one's file is removed. */
static int read_port(const char *path, int levels, char *port)
{
    char host[256];
    long pid;
    if (read_record(path, port, host, sizeof host, &pid) != 0)
        return -1;
    if (publisher_gone(host, pid)) {
        withdraw(path, levels);
        return -1;
    }
    return 0;
}

EMPI_WEAK_ALIAS(Publish_name)
int PMPI_Publish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    static const char fn[] = "MPI_Publish_name";
    published_t *p = calloc(1, sizeof *p);
    if (!p)
        return empi_err_noobj(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    int rc = check_args(fn, service_name, info, port_name, 1, p->path, sizeof p->path);
    if (rc != MPI_SUCCESS) {
        free(p);
        return rc;
    }
    p->levels = levels_of(strlen(service_name));
    int fd = open(p->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600), err = fd < 0 ? errno : 0;
    /* Another process withdrawing its last name removes the shared directory, possibly between
       our mkdir and this open: make it again. A dead publisher's name is removed by read_port. */
    char old[MPI_MAX_PORT_NAME];
    for (int tries = 0; fd < 0 && (err == ENOENT || (err == EEXIST && read_port(p->path, p->levels, old) != 0)) &&
                        tries < 8;
         tries++) {
        service_path(service_name, 1, p->path, sizeof p->path);
        fd = open(p->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        err = fd < 0 ? errno : 0;
    }
    if (fd < 0) {
        free(p);
        return empi_err_noobj(MPI_ERR_SERVICE, "%s: cannot publish '%s': %s", fn, service_name,
                              err == EEXIST ? "the name is published already" : strerror(err));
    }
    char record[MPI_MAX_PORT_NAME + 320], host[256] = "";
    gethostname(host, sizeof host);
    int len = snprintf(record, sizeof record, "%s\n%ld %s\n", port_name, (long)getpid(), host);
    int ok = len > 0 && (size_t)len < sizeof record && write(fd, record, (size_t)len) == len;
    close(fd);
    if (!ok) {
        withdraw(p->path, p->levels);
        free(p);
        return empi_err_noobj(MPI_ERR_SERVICE, "%s: cannot write the name service's file", fn);
    }
    empi_lock();
    p->next = mine;
    mine = p;
    empi_unlock();
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Lookup_name)
int PMPI_Lookup_name(const char *service_name, MPI_Info info, char *port_name)
{
    static const char fn[] = "MPI_Lookup_name";
    char path[4096];
    EMPI_CHECK(check_args(fn, service_name, info, port_name, 0, path, sizeof path));
    if (read_port(path, levels_of(strlen(service_name)), port_name) != 0)
        return empi_err_noobj(MPI_ERR_NAME, "%s: no port is published under '%s'", fn, service_name);
    return MPI_SUCCESS;
}

EMPI_WEAK_ALIAS(Unpublish_name)
int PMPI_Unpublish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    static const char fn[] = "MPI_Unpublish_name";
    char path[4096];
    EMPI_CHECK(check_args(fn, service_name, info, port_name, 0, path, sizeof path));
    empi_lock();
    published_t **pp = &mine;
    while (*pp && strcmp((*pp)->path, path) != 0)
        pp = &(*pp)->next;
    char port[MPI_MAX_PORT_NAME];
    int found = *pp && read_port(path, (*pp)->levels, port) == 0 && strcmp(port, port_name) == 0;
    if (found) {
        published_t *p = *pp;
        *pp = p->next;
        withdraw(p->path, p->levels);
        free(p);
    }
    empi_unlock();
    if (!found)
        return empi_err_noobj(MPI_ERR_SERVICE, "%s: this process did not publish '%s' with that port", fn,
                              service_name);
    return MPI_SUCCESS;
}

void empi_dyn_names_finalize(void)
{
    while (mine) {
        published_t *p = mine;
        mine = p->next;
        withdraw(p->path, p->levels);
        free(p);
    }
}
