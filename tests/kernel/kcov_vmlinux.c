/* SPDX-License-Identifier: MIT */
/*
 * KCOV of vmlinux itself (a kernel with CONFIG_KCOV served by ucov's core,
 * kernel/linux/builtin), each mode a client's own call sequence:
 *   pc      kcov.rst's first program, as the document has it: the PCs of
 *           read(-1, NULL, 0), one "0x..." line each;
 *   cmp     kcov.rst's comparison program over the same call: one line
 *           "cmp TYPE ARG1 ARG2 IP" per record;
 *   unique  ucov's UNIQUE mode over the same call twice: "unique FIRST
 *           SECOND" (the second adds no PC);
 *   ext     ucov's PC_EXT over the same call: "ext N NORMAL";
 *   vhci    a REMOTE section of Bluetooth's hci_rx_work (below);
 *   syz     syzkaller's executor's sequence (a device per thread,
 *           KCOV_INIT_TRACE of kCoverSize words, mmap, KCOV_ENABLE once,
 *           cover[0] reset before each call; the main thread's
 *           KCOV_REMOTE_ENABLE with a common handle): "syz CALLS EMPTY
 *           OUTSIDE", the calls made, those that recorded nothing, and PCs
 *           outside [STEXT, ETEXT) (given, from /proc/kallsyms);
 *   nmi     read(-1, NULL, 0) traced over and over for SECONDS, between
 *           two marks (in the kernel's log and on the console: the host
 *           injects NMIs meanwhile, QEMU's "nmi"; their handler's printk
 *           is instrumented and runs with this task as current). "nmi READS
 *           EXTRA": the reads made and the PCs recorded that the first read
 *           did not record (the task's own way back to user mode after a
 *           switch, say), each distinct one also as "nmi-extra 0x...";
 *           none may be an NMI handler's: kcov.c records nothing in an NMI.
 * usage: kcov_vmlinux pc|cmp|unique|ext|vhci | kcov_vmlinux syz STEXT ETEXT
 *        | kcov_vmlinux nmi SECONDS
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ucov/kcov.h"

#define COVER_SIZE (64 << 10)

/* kcov.rst, "Coverage collection": the program, its one call. */
static int pc_mode(void) {
  unsigned long *cover, n, i;
  int fd = open("/sys/kernel/debug/kcov", O_RDWR);
  if (fd == -1)
    perror("open"), exit(1);
  if (ioctl(fd, KCOV_INIT_TRACE, COVER_SIZE))
    perror("ioctl"), exit(1);
  cover = (unsigned long *)mmap(NULL, COVER_SIZE * sizeof(unsigned long), PROT_READ | PROT_WRITE,
                                MAP_SHARED, fd, 0);
  if ((void *)cover == MAP_FAILED)
    perror("mmap"), exit(1);
  if (ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC))
    perror("ioctl"), exit(1);
  __atomic_store_n(&cover[0], 0, __ATOMIC_RELAXED);
  read(-1, NULL, 0);
  n = __atomic_load_n(&cover[0], __ATOMIC_RELAXED);
  for (i = 0; i < n; i++)
    printf("0x%lx\n", cover[i + 1]);
  if (ioctl(fd, KCOV_DISABLE, 0))
    perror("ioctl"), exit(1);
  if (munmap(cover, COVER_SIZE * sizeof(unsigned long)))
    perror("munmap"), exit(1);
  if (close(fd))
    perror("close"), exit(1);
  return 0;
}

/* kcov.rst, "Comparison operands collection". */
static int cmp_mode(void) {
  uint64_t *cover, type, arg1, arg2, is_const, size, ip;
  unsigned long n, i;
  int fd = open("/sys/kernel/debug/kcov", O_RDWR);
  if (fd == -1)
    perror("open"), exit(1);
  if (ioctl(fd, KCOV_INIT_TRACE, COVER_SIZE))
    perror("ioctl"), exit(1);
  cover = (uint64_t *)mmap(NULL, COVER_SIZE * sizeof(unsigned long), PROT_READ | PROT_WRITE,
                           MAP_SHARED, fd, 0);
  if ((void *)cover == MAP_FAILED)
    perror("mmap"), exit(1);
  if (ioctl(fd, KCOV_ENABLE, KCOV_TRACE_CMP))
    perror("ioctl"), exit(1);
  __atomic_store_n(&cover[0], 0, __ATOMIC_RELAXED);
  read(-1, NULL, 0);
  n = __atomic_load_n(&cover[0], __ATOMIC_RELAXED);
  for (i = 0; i < n; i++) {
    type = cover[i * KCOV_WORDS_PER_CMP + 1];
    arg1 = cover[i * KCOV_WORDS_PER_CMP + 2];
    arg2 = cover[i * KCOV_WORDS_PER_CMP + 3];
    ip = cover[i * KCOV_WORDS_PER_CMP + 4];
    size = 1 << ((type & KCOV_CMP_MASK) >> 1);
    is_const = type & KCOV_CMP_CONST;
    printf("cmp 0x%llx 0x%llx 0x%llx 0x%llx size %llu %s\n", (unsigned long long)type,
           (unsigned long long)arg1, (unsigned long long)arg2, (unsigned long long)ip,
           (unsigned long long)size, is_const ? "const" : "");
  }
  if (ioctl(fd, KCOV_DISABLE, 0))
    perror("ioctl"), exit(1);
  munmap(cover, COVER_SIZE * sizeof(unsigned long));
  close(fd);
  return 0;
}

/* A device of COVER_SIZE words, mapped (the modes below kcov.rst's own). */
static uint64_t *cover_map(const char *who, int *fd) {
  *fd = open("/sys/kernel/debug/kcov", O_RDWR);
  if (*fd < 0 || ioctl(*fd, KCOV_INIT_TRACE, COVER_SIZE))
    perror(who), exit(1);
  uint64_t *a = mmap(NULL, COVER_SIZE * 8, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
  if (a == MAP_FAILED)
    perror(who), exit(1);
  return a;
}

/* read(-1, NULL, 0) traced alone: the area's count reset before, read after. */
static uint64_t traced_read(uint64_t *a) {
  __atomic_store_n(&a[0], 0, __ATOMIC_RELAXED);
  read(-1, NULL, 0);
  return __atomic_load_n(&a[0], __ATOMIC_RELAXED);
}

static int unique_mode(void) {
  enum { BITMAP = 8192 };
  int fd;
  uint64_t *a = cover_map("unique", &fd);
  if (ioctl(fd, KCOV_UNIQUE_ENABLE, BITMAP))
    perror("unique: enable"), exit(1);
  uint64_t *trace = a + BITMAP;
  read(-1, NULL, 0);
  uint64_t first = __atomic_load_n(&trace[0], __ATOMIC_RELAXED);
  read(-1, NULL, 0);
  uint64_t second = __atomic_load_n(&trace[0], __ATOMIC_RELAXED) - first;
  ioctl(fd, KCOV_DISABLE, 0);
  printf("unique %llu %llu\n", (unsigned long long)first, (unsigned long long)second);
  close(fd);
  return 0;
}

/* ucov's PC_EXT over the same call: "ext N NORMAL", its records and those
 * tagged normal (vmlinux has no function entry and exit hooks). */
static int ext_mode(void) {
  int fd;
  uint64_t *a = cover_map("ext", &fd);
  if (ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC_EXT))
    perror("ext: enable"), exit(1);
  uint64_t n = traced_read(a), normal = 0;
  for (uint64_t i = 0; i < n && i + 1 < COVER_SIZE; i++)
    normal += KCOV_RECORD_TYPE(a[i + 1]) == KCOV_RECORD_NORMAL;
  ioctl(fd, KCOV_DISABLE, 0);
  printf("ext %llu %llu\n", (unsigned long long)n, (unsigned long long)normal);
  close(fd);
  return 0;
}

/* --- syzkaller's executor (executor/executor_linux.h), its order of calls --- */
#define K_COVER_SIZE (512 << 10) /* kCoverSize */
#define CALLS 200

static uint64_t stext, etext;
static long empty_calls, outside_pcs, made_calls;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

struct cover {
  int fd;
  uint64_t *data;
};

static void cover_open(struct cover *c) {
  int fd = open("/sys/kernel/debug/kcov", O_RDWR);
  if (fd == -1)
    perror("open of /sys/kernel/debug/kcov failed"), exit(1);
  c->fd = fcntl(fd, F_DUPFD_CLOEXEC, 240); /* (kCoverFd and on) */
  close(fd);
  if (c->fd < 0 || ioctl(c->fd, KCOV_INIT_TRACE, K_COVER_SIZE))
    perror("cover init trace write failed"), exit(1);
  c->data = mmap(NULL, K_COVER_SIZE * 8, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd, 0);
  if (c->data == MAP_FAILED)
    perror("cover mmap failed"), exit(1);
}

static void *worker(void *arg) {
  struct cover c;
  long empty = 0, outside = 0, calls = 0;
  cover_open(&c);
  if (ioctl(c.fd, KCOV_ENABLE, KCOV_TRACE_PC)) /* cover_enable, once per thread */
    perror("cover enable write trace failed"), exit(1);
  for (int i = 0; i < CALLS; i++) {
    __atomic_store_n(&c.data[0], 0, __ATOMIC_RELAXED); /* cover_reset */
    switch ((i + (int)(intptr_t)arg) % 4) {
    case 0:
      read(-1, NULL, 0);
      break;
    case 1:
      syscall(SYS_getppid);
      break;
    case 2:
      close(-1);
      break;
    default:
      lseek(-1, 0, SEEK_SET);
      break;
    }
    uint64_t n = __atomic_load_n(&c.data[0], __ATOMIC_RELAXED); /* cover_collect */
    calls++;
    if (n == 0 || n >= K_COVER_SIZE)
      empty++;
    for (uint64_t k = 1; k <= n && k < K_COVER_SIZE; k++)
      if (c.data[k] < stext || c.data[k] >= etext)
        outside++;
  }
  pthread_mutex_lock(&mu);
  empty_calls += empty;
  outside_pcs += outside;
  made_calls += calls;
  pthread_mutex_unlock(&mu);
  return NULL;
}

static int syz_mode(void) {
  struct cover extra;
  cover_open(&extra);
  /* the extra coverage of the process: remote, its common handle */
  struct kcov_remote_arg ra;
  memset(&ra, 0, sizeof(ra));
  ra.trace_mode = KCOV_TRACE_PC;
  ra.area_size = K_COVER_SIZE;
  ra.num_handles = 0;
  ra.common_handle = kcov_remote_handle(KCOV_SUBSYSTEM_COMMON, 1);
  if (ioctl(extra.fd, KCOV_REMOTE_ENABLE, &ra))
    perror("remote cover enable write trace failed"), exit(1);
  pthread_t th[2];
  for (intptr_t i = 0; i < 2; i++)
    pthread_create(&th[i], NULL, worker, (void *)i);
  for (int i = 0; i < 2; i++)
    pthread_join(th[i], NULL);
  printf("syz %ld %ld %ld\n", made_calls, empty_calls, outside_pcs);
  return 0;
}

/*
 * A REMOTE section of the kernel's own: Bluetooth's hci_rx_work parses each
 * received packet in a work item, inside kcov_remote_start_common() with the
 * handle of the task that made the packet (the skb's, kcov_common_handle()
 * at its allocation). As syzkaller's executor does it: the main thread's
 * KCOV_REMOTE_ENABLE with a common handle; a thread it starts then (which
 * inherits the handle) traces for itself with a device of its own, opens
 * /dev/vhci, makes a controller (a vendor packet), reads the controller's
 * first command and answers it with a Command Complete event. The main
 * thread prints "vhci N" and the N PCs that came back from the work item
 * into its buffer ("vhci-pc 0x..."), the thread "vhci-own M", its own.
 */
static void *vhci_worker(void *arg) {
  uint64_t *cover = arg;
  int fd;
  uint64_t *own = cover_map("vhci: the thread's kcov", &fd);
  if (ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC))
    perror("vhci: the thread's KCOV_ENABLE"), exit(1);
  int v = open("/dev/vhci", O_RDWR);
  if (v < 0)
    perror("vhci: /dev/vhci"), exit(1);
  unsigned char pkt[1024] = {0xff, 0x00}; /* HCI_VENDOR_PKT: a primary controller */
  if (write(v, pkt, 2) != 2)
    perror("vhci: vendor packet"), exit(1);
  ssize_t n = read(v, pkt, sizeof(pkt)); /* its answer: 0xff, opcode, index */
  if (n != 4 || pkt[0] != 0xff)
    fprintf(stderr, "vhci: vendor answer of %zd bytes\n", n), exit(1);
  n = read(v, pkt, sizeof(pkt)); /* the controller's first command */
  if (n < 4 || pkt[0] != 0x01)
    fprintf(stderr, "vhci: no command (%zd bytes)\n", n), exit(1);
  unsigned char evt[] = {0x04, 0x0e, 0x04, 0x01, pkt[1], pkt[2], 0x00}; /* Command Complete */
  __atomic_store_n(&cover[0], 0, __ATOMIC_RELAXED);
  __atomic_store_n(&own[0], 0, __ATOMIC_RELAXED);
  if (write(v, evt, sizeof(evt)) != (ssize_t)sizeof(evt))
    perror("vhci: event"), exit(1);
  printf("vhci-own %llu\n", (unsigned long long)__atomic_load_n(&own[0], __ATOMIC_RELAXED));
  for (int i = 0; i < 200 && !__atomic_load_n(&cover[0], __ATOMIC_RELAXED); i++)
    usleep(10000);
  close(v);
  ioctl(fd, KCOV_DISABLE, 0);
  close(fd);
  return NULL;
}

static int vhci_mode(void) {
  int fd;
  uint64_t *cover = cover_map("vhci: kcov", &fd);
  struct kcov_remote_arg ra;
  memset(&ra, 0, sizeof(ra));
  ra.trace_mode = KCOV_TRACE_PC;
  ra.area_size = COVER_SIZE;
  ra.common_handle = kcov_remote_handle(KCOV_SUBSYSTEM_COMMON, 0x42);
  if (ioctl(fd, KCOV_REMOTE_ENABLE, &ra))
    perror("vhci: KCOV_REMOTE_ENABLE"), exit(1);
  pthread_t th;
  pthread_create(&th, NULL, vhci_worker, cover);
  pthread_join(th, NULL);
  uint64_t got = __atomic_load_n(&cover[0], __ATOMIC_RELAXED);
  printf("vhci %llu\n", (unsigned long long)got);
  for (uint64_t i = 0; i < got && i + 1 < COVER_SIZE; i++)
    printf("vhci-pc 0x%llx\n", (unsigned long long)cover[i + 1]);
  ioctl(fd, KCOV_DISABLE, 0);
  close(fd);
  return 0;
}

/* A line into the kernel's log and one onto the console (the host's word
 * to start and stop its NMIs). */
static void mark(const char *kmsg, const char *console) {
  int k = open("/dev/kmsg", O_WRONLY), c = open("/dev/console", O_WRONLY);
  if (k < 0 || c < 0 || write(k, kmsg, strlen(kmsg)) < 0 || write(c, console, strlen(console)) < 0)
    perror("nmi: mark"), exit(1);
  close(k);
  close(c);
}

static int nmi_mode(int seconds) {
  enum { REF_MAX = 512, SEEN_MAX = 4096 };
  static uint64_t seen[SEEN_MAX];
  uint64_t ref[REF_MAX], n_ref, reads = 0, extra = 0, n_seen = 0;
  int fd;
  uint64_t *a = cover_map("nmi", &fd);
  /* The reference read before any NMI is sent. */
  if (ioctl(fd, KCOV_ENABLE, KCOV_TRACE_PC))
    perror("nmi: enable"), exit(1);
  n_ref = traced_read(a);
  if (n_ref == 0 || n_ref > REF_MAX)
    fprintf(stderr, "nmi: the first read recorded %llu PCs\n", (unsigned long long)n_ref), exit(1);
  memcpy(ref, a + 1, n_ref * 8);
  mark("ucov-test: nmi trace begin\n", "UCOV-GUEST nmi-start\n");
  time_t end = time(NULL) + seconds;
  while (time(NULL) < end) {
    uint64_t n = traced_read(a);
    reads++;
    for (uint64_t i = 0; i < n && i + 1 < COVER_SIZE; i++) {
      uint64_t j = 0;
      while (j < n_ref && ref[j] != a[i + 1])
        j++;
      if (j < n_ref)
        continue;
      extra++;
      for (j = 0; j < n_seen && seen[j] != a[i + 1]; j++)
        ;
      if (j == n_seen && n_seen < SEEN_MAX)
        seen[n_seen++] = a[i + 1];
    }
  }
  if (ioctl(fd, KCOV_DISABLE, 0))
    perror("nmi: disable"), exit(1);
  mark("ucov-test: nmi trace end\n", "UCOV-GUEST nmi-end\n");
  for (uint64_t j = 0; j < n_seen; j++)
    printf("nmi-extra 0x%llx\n", (unsigned long long)seen[j]);
  printf("nmi %llu %llu\n", (unsigned long long)reads, (unsigned long long)extra);
  close(fd);
  return 0;
}

int main(int argc, char **argv) {
  if (argc >= 2 && !strcmp(argv[1], "pc"))
    return pc_mode();
  if (argc >= 2 && !strcmp(argv[1], "cmp"))
    return cmp_mode();
  if (argc >= 2 && !strcmp(argv[1], "unique"))
    return unique_mode();
  if (argc >= 2 && !strcmp(argv[1], "vhci"))
    return vhci_mode();
  if (argc >= 2 && !strcmp(argv[1], "ext"))
    return ext_mode();
  if (argc == 4 && !strcmp(argv[1], "syz")) {
    stext = strtoull(argv[2], NULL, 16);
    etext = strtoull(argv[3], NULL, 16);
    return syz_mode();
  }
  if (argc == 3 && !strcmp(argv[1], "nmi"))
    return nmi_mode(atoi(argv[2]));
  fprintf(stderr, "usage: kcov_vmlinux pc|cmp|unique|ext|vhci | kcov_vmlinux syz STEXT ETEXT | "
                  "kcov_vmlinux nmi SECONDS\n");
  return 2;
}
