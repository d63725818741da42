/* SPDX-License-Identifier: MIT */
/*
 * rcli: a client of rserv that gets exactly the coverage of its own requests.
 * It opens a KCOV device, registers handle (USB subsystem, INSTANCE) with the
 * running server over its ucov control socket (ucov_remote_attach), sends
 * REQUEST COUNT times carrying that handle, and prints the PCs its buffer
 * received, one a line (for `ucov symbolize --modules` with the server's map).
 * usage: rcli SERVER_PID SOCKET INSTANCE COUNT REQUEST
 * exit: 0, 3 if the registration failed (the reason on stderr).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <ucov/ucov.h>

#define COVER_SIZE (1 << 16)

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: rcli SERVER_PID SOCKET INSTANCE COUNT REQUEST\n");
    return 2;
  }
  pid_t server = (pid_t)atoi(argv[1]);
  uint64_t handle = kcov_remote_handle(KCOV_SUBSYSTEM_USB, strtoull(argv[3], NULL, 0));
  int count = atoi(argv[4]);

  int fd = ucov_open();
  if (fd < 0 || ucov_ioctl(fd, KCOV_INIT_TRACE, COVER_SIZE)) {
    perror("ucov");
    return 1;
  }
  uint64_t *cover = mmap(NULL, COVER_SIZE * 8, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  struct kcov_remote_arg *arg = calloc(1, sizeof(*arg) + sizeof(uint64_t));
  arg->trace_mode = KCOV_TRACE_PC;
  arg->area_size = 4096;
  arg->num_handles = 1;
  arg->handles[0] = handle;
  int link = ucov_remote_attach(server, fd, arg);
  free(arg);
  if (link < 0) {
    perror("attach");
    return 3;
  }
  __atomic_store_n(&cover[0], 0, __ATOMIC_RELAXED);

  int s = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", argv[2]);
  if (s < 0 || connect(s, (struct sockaddr *)&addr, sizeof(addr))) {
    perror(argv[2]);
    return 1;
  }
  FILE *in = fdopen(s, "r"), *out = fdopen(dup(s), "w");
  char line[256];
  for (int i = 0; i < count; i++) {
    fprintf(out, "%llx %s\n", (unsigned long long)handle, argv[5]);
    fflush(out);
    if (!fgets(line, sizeof(line), in))
      return 1;
  }
  /* Each reply came after its worker's ucov_remote_stop(): the records are in. */
  uint64_t n = __atomic_load_n(&cover[0], __ATOMIC_ACQUIRE);
  for (uint64_t i = 0; i < n; i++)
    printf("0x%llx\n", (unsigned long long)cover[i + 1]);
  fprintf(stderr, "rcli: %d requests, %llu PCs\n", count, (unsigned long long)n);
  fclose(in);
  fclose(out);
  close(link); /* unregisters the handle */
  munmap(cover, COVER_SIZE * 8);
  ucov_close(fd);
  return 0;
}
