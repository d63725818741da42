/* SPDX-License-Identifier: MIT */
/*
 * rserv: a threaded request server for the REMOTE coverage example. Clients
 * send lines "HANDLE REQUEST" (HANDLE in hex, REQUEST an HTTP request with
 * \r \n escapes) on a Unix socket; a pool of worker threads parses each
 * request inside ucov_remote_start(HANDLE) / ucov_remote_stop(), so the
 * coverage of a request lands in the buffer of the client that registered
 * HANDLE (see rcli.c). A request containing "SLOW" keeps its worker busy for
 * a while (for tests that kill a client mid-request).
 * usage: rserv SOCKET
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <ucov/ucov.h>

#include "../demo/httpreq.h"
#include "../demo/unescape.h"

#define WORKERS 4

static int queue[256], q_head, q_tail;
static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t q_cond = PTHREAD_COND_INITIALIZER;

/* Serve one connection: each line is a request done for its handle. */
static void serve(int fd) {
  FILE *in = fdopen(fd, "r"), *out = fdopen(dup(fd), "w");
  char line[8192];
  while (in && out && fgets(line, sizeof(line), in)) {
    char *req = strchr(line, ' ');
    if (!req)
      break;
    *req++ = 0;
    req[strcspn(req, "\n")] = 0;
    uint64_t handle = strtoull(line, NULL, 16);
    int slow = strstr(req, "SLOW") != NULL;
    size_t len = unescape(req);
    struct http_request r;
    ucov_remote_start(handle);
    int err = http_parse(req, len, &r);
    if (slow)
      usleep(500000);
    ucov_remote_stop();
    fprintf(out, "ok %s\n", http_strerror(err));
    fflush(out);
  }
  if (in)
    fclose(in);
  if (out)
    fclose(out);
}

static void *worker(void *arg) {
  (void)arg;
  for (;;) {
    pthread_mutex_lock(&q_lock);
    while (q_head == q_tail)
      pthread_cond_wait(&q_cond, &q_lock);
    int fd = queue[q_head++ % 256];
    pthread_mutex_unlock(&q_lock);
    serve(fd);
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: rserv SOCKET\n");
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);
  int lfd = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", argv[1]);
  unlink(argv[1]);
  if (lfd < 0 || bind(lfd, (struct sockaddr *)&addr, sizeof(addr)) || listen(lfd, 16)) {
    perror(argv[1]);
    return 1;
  }
  pthread_t th[WORKERS];
  for (int i = 0; i < WORKERS; i++)
    pthread_create(&th[i], NULL, worker, NULL);
  for (;;) {
    int fd = accept(lfd, NULL, NULL);
    if (fd < 0)
      continue;
    pthread_mutex_lock(&q_lock);
    queue[q_tail++ % 256] = fd;
    pthread_cond_signal(&q_cond);
    pthread_mutex_unlock(&q_lock);
  }
}
