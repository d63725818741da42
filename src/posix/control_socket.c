/* SPDX-License-Identifier: MIT */
/*
 * POSIX port: the control socket's file (control.h). <runtime dir>/<pid>.sock
 * made and listened on, made again if someone removed or replaced it, left
 * stale by a dead process cleaned up, removed at exit; and the commit record
 * beside it, which a client that recovers reads.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "control.h"
#include "memsink.h"
#include "posix.h"
#include "proto/protocol.h"
#include "ucov/port/objects.h"
#include "ucov/port/port.h"

static pid_t control_pid; /* the process whose socket control_path is */
static char control_path[sizeof(((struct sockaddr_un *)0)->sun_path)];

UCOV_NOTRACE void ucov_control_log(const char *what, const char *detail) {
  char msg[1400];
  snprintf(msg, sizeof(msg), "ucov: control socket: %s%s%s", what, detail ? ": " : "",
           detail ? detail : "");
  ucov_port_log(msg);
}

/*
 * The commit record: <runtime dir>/<pid>.<instance>.commits, what the core
 * knows of its tokens (ucov_objects_commit_record) and which exit files were
 * written ("exited gcov", "exited pgo"). Rewritten whole (a temporary file
 * renamed over it) after every commit, before its reply, and after each exit
 * write: a client that recovers a pull after the process is gone decides
 * from it, and the instance (random, new in every process and forked child)
 * keeps a later process with the same pid from answering for this one.
 */
static uint64_t control_instance;
static pthread_mutex_t record_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned exited_kinds; /* 1: gcov exit files written; 2: pgo's */

UCOV_NOTRACE void ucov_control_commit_record_write(void) {
  if (__atomic_load_n(&control_pid, __ATOMIC_ACQUIRE) != getpid())
    return; /* no socket, no clients: nothing to recover */
  char path[sizeof(control_path) + 40];
  size_t dl = strlen(control_path) - strlen(".sock");
  snprintf(path, sizeof(path), "%.*s.%016llx.commits", (int)dl, control_path,
           (unsigned long long)control_instance);
  pthread_mutex_lock(&record_lock);
  struct ucov_mem_sink out;
  ucov_mem_sink_init(&out);
  char head[128];
  int n = snprintf(head, sizeof(head), "ucov-commits 1\npid %d\ninstance %016llx\n", (int)getpid(),
                   (unsigned long long)control_instance);
  int err = out.sink.write(&out.sink, head, (size_t)n);
  if (!err)
    err = ucov_objects_commit_record(&out.sink);
  static const char *const kinds[] = {"exited gcov\n", "exited pgo\n"};
  for (unsigned k = 0; !err && k < 2; k++)
    if (__atomic_load_n(&exited_kinds, __ATOMIC_SEQ_CST) & (1u << k))
      err = out.sink.write(&out.sink, kinds[k], strlen(kinds[k]));
  if (err)
    ucov_control_log(path, "out of memory");
  else if ((err = ucov_posix_replace(path, out.data, out.len, 0600, NULL)))
    ucov_control_log(path, strerror(-err));
  ucov_mem_sink_free(&out);
  pthread_mutex_unlock(&record_lock);
}

/* (Called with the port lock held, which commit_record_write takes: only
 * noted here, written by ucov_port_exit_drain once the lock is released.) */
UCOV_NOTRACE void ucov_posix_exit_written(unsigned kind) {
  __atomic_fetch_or(&exited_kinds, kind, __ATOMIC_SEQ_CST);
}

UCOV_NOTRACE void ucov_control_unlink_at_exit(void) {
  /* control_pid is published after control_path (release/acquire). */
  if (__atomic_load_n(&control_pid, __ATOMIC_ACQUIRE) == getpid())
    unlink(control_path);
}

/* Sockets of processes that are gone (killed targets leave theirs): removed
 * when no one listens on them and their pid is not alive. */
static UCOV_NOTRACE void clean_stale(const char *dir) {
  DIR *d = opendir(dir);
  if (!d)
    return;
  struct dirent *e;
  while ((e = readdir(d))) {
    char *end;
    long pid = strtol(e->d_name, &end, 10);
    size_t len = strlen(e->d_name);
    if (pid > 0 && len > 8 && !strcmp(e->d_name + len - 8, ".commits")) {
      /* a gone process's commit record: kept 30 days for its recoveries */
      struct stat st;
      char path[sizeof(control_path) + 64];
      if (snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) < (int)sizeof(path) &&
          lstat(path, &st) == 0 && st.st_mtime < time(NULL) - 30 * 86400 &&
          kill((pid_t)pid, 0) != 0 && errno == ESRCH)
        unlink(path);
      continue;
    }
    if (pid <= 0 || strcmp(end, ".sock") != 0 || pid == getpid())
      continue;
    if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
      continue;
    char path[sizeof(control_path)];
    if (snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) < (int)sizeof(path))
      unlink(path);
  }
  closedir(d);
}

/* The listening socket's identity: a program that closes every descriptor
 * (syzkaller's close_range(3, 30)) may reuse its number for a file or a
 * socket of its own, which is never ours to accept on or close. */
static dev_t control_dev;
static ino_t control_ino;

UCOV_NOTRACE int ucov_control_fd_is_ours(int fd) {
  struct stat st;
  return fd >= 0 && fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode) && st.st_dev == control_dev &&
         st.st_ino == control_ino;
}

/* The listening socket, made (again: again, quietly and with the same
 * instance, for a client that closed it). */
UCOV_NOTRACE int ucov_control_listen(int again) {
  char dir[UCOV_CONTROL_DIR_MAX], why[1200];
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  if (ucov_control_serve_dir(dir, sizeof(dir), why, sizeof(why))) {
    ucov_control_log(why, "not serving");
    return -1;
  }
  if (why[0] && !again)
    ucov_control_log(why, NULL);
  clean_stale(dir);
  int n = snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/%d.sock", dir, (int)getpid());
  if (n < 0 || (size_t)n >= sizeof(addr.sun_path)) {
    ucov_control_log(dir, "path too long for a Unix socket");
    return -1;
  }
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return -1;
  unlink(addr.sun_path); /* a stale socket of an earlier process with this pid */
  /* (The directory is private: no one else reaches the socket before chmod.
   * umask is the program's, and process-wide: not ours to change.) */
  if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0 || chmod(addr.sun_path, 0600) != 0 ||
      listen(fd, 64) != 0) {
    ucov_control_log(addr.sun_path, strerror(errno));
    close(fd);
    return -1;
  }
  struct stat st;
  if (fstat(fd, &st) == 0)
    control_dev = st.st_dev, control_ino = st.st_ino;
  memcpy(control_path, addr.sun_path, sizeof(control_path));
  if (!again &&
      getrandom(&control_instance, sizeof(control_instance), 0) != sizeof(control_instance))
    control_instance = (uint64_t)time(NULL) << 20 ^ (uint64_t)getpid();
  __atomic_store_n(&control_pid, getpid(), __ATOMIC_RELEASE);
  return fd;
}

UCOV_NOTRACE void ucov_control_socket_forget(void) {
  __atomic_store_n(&control_pid, 0, __ATOMIC_RELEASE);
}

UCOV_NOTRACE uint64_t ucov_control_instance(void) {
  return control_instance;
}

UCOV_NOTRACE unsigned ucov_control_exited_kinds(void) {
  return __atomic_load_n(&exited_kinds, __ATOMIC_SEQ_CST);
}
