/* SPDX-License-Identifier: MIT */
/*
 * POSIX port: the process wrappers gcc calls instead of fork and exec* in code
 * built with --coverage (libgcov's __gcov_fork and __gcov_exec*), with
 * libgcov's semantics: a forked child starts counting from zero (its parent
 * keeps, and writes, what came before); exec writes the counters first, as
 * the new image will not, and a failed exec resets them so nothing is written
 * twice.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

#include "posix.h"
#include "ucov/port/compiler.h"

void __gcov_dump(void);
void __gcov_reset(void);
pid_t __gcov_fork(void);
int __gcov_execl(const char *path, char *arg, ...);
int __gcov_execlp(const char *file, char *arg, ...);
int __gcov_execle(const char *path, char *arg, ...);
int __gcov_execv(const char *path, char *const argv[]);
int __gcov_execvp(const char *file, char *const argv[]);
int __gcov_execve(const char *path, char *const argv[], char *const envp[]);

UCOV_EXPORT UCOV_NOTRACE pid_t __gcov_fork(void) {
  pid_t pid = fork();
  if (pid == 0 && !ucov_posix_counters_borrowed())
    __gcov_reset(); /* (shared counters are the parent's too: never reset by a child) */
  return pid;
}

UCOV_EXPORT UCOV_NOTRACE int __gcov_execv(const char *path, char *const argv[]) {
  __gcov_dump();
  int ret = execv(path, argv);
  __gcov_reset();
  return ret;
}

UCOV_EXPORT UCOV_NOTRACE int __gcov_execvp(const char *file, char *const argv[]) {
  __gcov_dump();
  int ret = execvp(file, argv);
  __gcov_reset();
  return ret;
}

UCOV_EXPORT UCOV_NOTRACE int __gcov_execve(const char *path, char *const argv[],
                                           char *const envp[]) {
  __gcov_dump();
  int ret = execve(path, argv, envp);
  __gcov_reset();
  return ret;
}

/*
 * The NULL-terminated argument list that starts with arg (and, for execle,
 * the environment after it), as a malloc'ed array.
 */
static UCOV_NOTRACE char **collect_args(char *arg, va_list ap, char *const **envp) {
  va_list count;
  va_copy(count, ap);
  size_t n = 1;
  while (va_arg(count, char *))
    n++;
  va_end(count);
  char **argv = malloc((n + 1) * sizeof(char *));
  if (!argv)
    return NULL;
  argv[0] = arg;
  for (size_t i = 1; i <= n; i++)
    argv[i] = va_arg(ap, char *);
  if (envp)
    *envp = va_arg(ap, char *const *);
  return argv;
}

UCOV_EXPORT UCOV_NOTRACE int __gcov_execl(const char *path, char *arg, ...) {
  va_list ap;
  va_start(ap, arg);
  char **argv = collect_args(arg, ap, NULL);
  va_end(ap);
  int ret = argv ? __gcov_execv(path, argv) : -1;
  free(argv);
  return ret;
}

UCOV_EXPORT UCOV_NOTRACE int __gcov_execlp(const char *file, char *arg, ...) {
  va_list ap;
  va_start(ap, arg);
  char **argv = collect_args(arg, ap, NULL);
  va_end(ap);
  int ret = argv ? __gcov_execvp(file, argv) : -1;
  free(argv);
  return ret;
}

UCOV_EXPORT UCOV_NOTRACE int __gcov_execle(const char *path, char *arg, ...) {
  va_list ap;
  char *const *envp = NULL;
  va_start(ap, arg);
  char **argv = collect_args(arg, ap, &envp);
  va_end(ap);
  int ret = argv ? __gcov_execve(path, argv, envp) : -1;
  free(argv);
  return ret;
}
