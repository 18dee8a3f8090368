/* Corpus replayer: runs a libFuzzer target's LLVMFuzzerTestOneInput on files, without libFuzzer,
   so the committed corpora and regressions run as an ordinary test (gcc, valgrind, ASan).

     replay_X [--no-fork] [--timeout S] [-v] PATH...

   PATH is a file or a directory (its regular files, sorted by name, not recursive). Every file
   runs in a forked child (unless --no-fork, for a debugger): a child that dies by a signal, exits
   non-zero (a sanitizer report exits 1), or runs past the timeout (default 60 s, SIGALRM) is a
   failure, named with the reason. Ends with `N passed, N failed`; exit status 1 on any failure. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static int g_pass, g_fail, g_fork = 1, g_verbose;
static unsigned g_timeout = 60;

static int read_file(const char* path, uint8_t** data, size_t* size) {
    FILE* f = fopen(path, "rb");
    uint8_t* buf = NULL;
    size_t cap = 0, n = 0;
    if (!f) return 0;
    for (;;) {
        size_t got;
        if (n == cap) {
            uint8_t* nb;
            cap = cap ? cap * 2 : 65536;
            nb = (uint8_t*)realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return 0;
            }
            buf = nb;
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    fclose(f);
    *data = buf;
    *size = n;
    return 1;
}

static int run_one_here(const char* path) {
    uint8_t* data;
    size_t size;
    if (!read_file(path, &data, &size)) {
        fprintf(stderr, "cannot read %s\n", path);
        return 2;
    }
    /* libFuzzer hands the target a buffer of exactly `size` bytes: so do we (ASan sees over-reads) */
    {
        uint8_t* exact = (uint8_t*)malloc(size ? size : 1);
        if (!exact) {
            free(data);
            return 2;
        }
        if (size) memcpy(exact, data, size);
        free(data);
        LLVMFuzzerTestOneInput(exact, size);
        free(exact);
    }
    return 0;
}

static void run_file(const char* path) {
    pid_t pid;
    int st = 0;
    char why[128];
    if (g_verbose) printf("  %s\n", path), fflush(stdout);
    if (!g_fork) {
        if (run_one_here(path) == 0) g_pass++;
        else g_fail++;
        return;
    }
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid < 0) {
        perror("fork");
        g_fail++;
        return;
    }
    if (pid == 0) {
        alarm(g_timeout);
        _exit(run_one_here(path));
    }
    if (waitpid(pid, &st, 0) < 0) {
        perror("waitpid");
        g_fail++;
        return;
    }
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
        g_pass++;
        return;
    }
    if (WIFSIGNALED(st))
        snprintf(why, sizeof why, "%s (signal %d)",
                 WTERMSIG(st) == SIGALRM ? "timeout" : WTERMSIG(st) == SIGSEGV ? "SIGSEGV" : WTERMSIG(st) == SIGABRT ? "SIGABRT" : "signal",
                 WTERMSIG(st));
    else
        snprintf(why, sizeof why, "exit status %d (sanitizer report or error)", WEXITSTATUS(st));
    printf("FAIL %s: %s\n", path, why);
    fflush(stdout);
    g_fail++;
}

/* The file list of the directory being replayed. A global (not a local of run_path) so that in
   the forked children, which inherit it, valgrind's leak check sees it as reachable. */
char** g_replay_names; /* external linkage: the stores must not be optimised away */

static int cmp_str(const void* a, const void* b) { return strcmp(*(const char* const*)a, *(const char* const*)b); }

static void run_path(const char* path) {
    struct stat sb;
    DIR* d;
    struct dirent* de;
    char** names = NULL;
    size_t n = 0, cap = 0, i;
    g_replay_names = NULL;
    if (stat(path, &sb) != 0) {
        printf("FAIL %s: does not exist\n", path);
        g_fail++;
        return;
    }
    if (!S_ISDIR(sb.st_mode)) {
        run_file(path);
        return;
    }
    d = opendir(path);
    if (!d) {
        printf("FAIL %s: cannot open directory\n", path);
        g_fail++;
        return;
    }
    while ((de = readdir(d)) != NULL) {
        char full[4096];
        struct stat fs;
        if (de->d_name[0] == '.') continue;
        snprintf(full, sizeof full, "%s/%s", path, de->d_name);
        if (stat(full, &fs) != 0 || !S_ISREG(fs.st_mode)) continue;
        if (n == cap) {
            char** nn;
            cap = cap ? cap * 2 : 256;
            nn = (char**)realloc(names, cap * sizeof *names);
            if (!nn) break;
            names = g_replay_names = nn;
        }
        names[n] = (char*)malloc(strlen(full) + 1);
        if (!names[n]) break;
        strcpy(names[n], full);
        n++;
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, cmp_str);
    for (i = 0; i < n; i++) run_file(names[i]);
    for (i = 0; i < n; i++) free(names[i]);
    free(names);
    g_replay_names = NULL;
}

int main(int argc, char** argv) {
    int i, n_paths = 0;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--no-fork")) g_fork = 0;
        else if (!strcmp(argv[i], "-v")) g_verbose = 1;
        else if (!strcmp(argv[i], "--timeout") && i + 1 < argc) g_timeout = (unsigned)atoi(argv[++i]);
        else {
            run_path(argv[i]);
            n_paths++;
        }
    }
    if (!n_paths) {
        fprintf(stderr, "usage: %s [--no-fork] [--timeout S] [-v] FILE_OR_DIR...\n", argv[0]);
        return 2;
    }
    printf("%d passed, %d failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
