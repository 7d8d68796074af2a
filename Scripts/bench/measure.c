/* Runs one command with its output sent to /dev/null and prints "seconds max_rss_kib status".
 * Scripts/bench.py measures through this small launcher because a child forked from Python
 * reports Python's own resident memory as its peak (Linux keeps the larger of the pre-exec
 * and post-exec high-water marks). Part of btlog, BSD-3-Clause like the rest. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: measure COMMAND [ARGUMENT...]\n"); return 2; }
    int null = open("/dev/null", O_WRONLY);
    if (null < 0) { perror("/dev/null"); return 2; }
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    pid_t pid = fork();
    if (pid < 0) { perror("fork"); return 2; }
    if (pid == 0) {
        dup2(null, 1);
        dup2(null, 2);
        execvp(argv[1], argv + 1);
        _exit(127);
    }
    int status;
    struct rusage usage;
    if (wait4(pid, &status, 0, &usage) < 0) { perror("wait4"); return 2; }
    clock_gettime(CLOCK_MONOTONIC, &end);
    double seconds = (double)(end.tv_sec - start.tv_sec) + (double)(end.tv_nsec - start.tv_nsec) / 1e9;
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    printf("%.6f %ld %d\n", seconds, usage.ru_maxrss, code);
    return 0;
}
