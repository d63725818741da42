/* SPDX-License-Identifier: MIT */
/*
 * The bare-metal port of the ucov core (include/ucov/port/port.h): one CPU, no
 * interrupts (requests are served from the main loop, so the port lock is
 * nothing), memory from a static arena, the module map from the linker's
 * symbols, and KCOV devices for the kernel's command task.
 */
#include "ucov/port/device.h"
#include "ucov/port/task.h"
#include "ucov/port/frame.h"
#include "ucov/port/sink.h"
#include "hw.h"
#include "ucov/kcov.h"
#include "ucov/port/port.h"
#include "ucov/version.h"

#ifndef KERNEL_PATH
#define KERNEL_PATH "kernel.elf"
#endif

/* --- heap: first fit over a static arena, blocks of 16-byte units --- */
#define ARENA_BYTES (8u << 20)
static uint8_t arena[ARENA_BYTES] __attribute__((aligned(16)));
struct block {
  uint32_t size; /* bytes, this header included */
  uint32_t used;
  uint8_t pad[8];
};
static int heap_ready;

static void heap_init(void) {
  struct block *b = (struct block *)arena;
  b->size = ARENA_BYTES;
  b->used = 0;
  heap_ready = 1;
}

void *heap_alloc(size_t n) {
  if (!heap_ready)
    heap_init();
  uint32_t need = (uint32_t)((n + sizeof(struct block) + 15) & ~(size_t)15);
  for (uint32_t off = 0; off < ARENA_BYTES;) {
    struct block *b = (struct block *)(arena + off);
    if (!b->used) { /* join the free blocks that follow */
      struct block *next;
      while (off + b->size < ARENA_BYTES && !(next = (struct block *)(arena + off + b->size))->used)
        b->size += next->size;
    }
    if (!b->used && b->size >= need) {
      if (b->size - need >= 64) {
        struct block *rest = (struct block *)(arena + off + need);
        rest->size = b->size - need;
        rest->used = 0;
        b->size = need;
      }
      b->used = 1;
      uint8_t *p = (uint8_t *)(b + 1);
      for (uint32_t i = 0; i < b->size - sizeof(*b); i++)
        p[i] = 0;
      return p;
    }
    off += b->size;
  }
  return 0;
}

void heap_free(void *p) {
  if (p)
    ((struct block *)p - 1)->used = 0;
}

/* --- the port: the required hooks, and the optional ones it has (log,
 * module map, transport, info, command, devices); the core's defaults do for
 * the others (no files, one module, no LLVM profiles) --- */
void ucov_port_lock(void) {}

void ucov_port_unlock(void) {}

void *ucov_port_alloc(size_t bytes) {
  return heap_alloc(bytes);
}

void ucov_port_free(void *p) {
  heap_free(p);
}

uint64_t *ucov_port_area_alloc(struct ucov_device *dev, uint64_t bytes) {
  (void)dev;
  return bytes < ARENA_BYTES ? heap_alloc((size_t)bytes) : 0;
}

void ucov_port_device_release(struct ucov_device *dev) {
  heap_free(dev->area);
  dev->area = 0;
}

int ucov_port_task_bind(struct ucov_task *task) {
  (void)task;
  return 0;
}

void ucov_port_log(const char *msg) {
  debug_print(msg);
  debug_print("\n");
}

static int put_str(struct ucov_sink *s, const char *str) {
  size_t n = 0;
  while (str[n])
    n++;
  return s->write(s, str, n);
}

static int put_hex(struct ucov_sink *s, uint32_t v) {
  char buf[11] = "0x";
  int n = 2;
  for (int shift = 28; shift >= 0; shift -= 4) {
    unsigned d = (v >> shift) & 15;
    if (d || n > 2 || shift == 0)
      buf[n++] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
  }
  return s->write(s, buf, (size_t)n);
}

extern const char __kernel_text_start[], __kernel_text_end[];

/* The kernel is one module: its image, linked where it runs (bias 0). */
int ucov_port_modules_write(struct ucov_sink *s) {
  int err = put_hex(s, (uint32_t)(uintptr_t)__kernel_text_start);
  err = err ? err : put_str(s, " ");
  err = err ? err : put_hex(s, (uint32_t)(uintptr_t)__kernel_text_end);
  err = err ? err : put_str(s, " 0x0 0x0 r-x - " KERNEL_PATH "\n");
  return err;
}

/* The transport: COM1. A frame's bytes come within about a second. */
int ucov_port_transport_read(int wait) {
  return serial_read(wait ? 0 : 1000000u);
}

void ucov_port_transport_write(const void *buf, size_t n) {
  serial_write(buf, n);
}

int ucov_port_info(struct ucov_sink *s) {
  return put_str(s, "kernel=ucov-baremetal\nexe=" KERNEL_PATH "\nversion=" UCOV_VERSION
                    "\nprotocol=1\ntransport=serial\n");
}

/*
 * Kernel tasks: 0 runs the host's commands, 1 to 3 are the scheduler's. Each
 * has its own tracing state, switched with the task as a kernel switches
 * current: a KCOV device enabled in one task records that task's PCs only.
 * Each task has a device: the command task's is enabled for traced commands
 * (kcov/1.kcov), the scheduler tasks' are enabled from boot (kcov/2.kcov to
 * kcov/4.kcov: counter, worker, idle), as a kernel thread that traces itself.
 */
#define KTASKS 4
#define TRACE_WORDS (1u << 16)
static struct ucov_task ktask_state[KTASKS];
static int ktask_current;
static struct ucov_device task_dev[KTASKS];
static int task_dev_ready[KTASKS];
#define cmd_dev task_dev[0]
#define cmd_dev_ready task_dev_ready[0]

void ktask_switch(int to) {
  if (to == ktask_current || to < 0 || to >= KTASKS)
    return;
  ktask_state[ktask_current] = ucov_task_self;
  ucov_task_self = ktask_state[to];
  ktask_current = to;
}

/* Boot: the scheduler tasks' devices, enabled in their own contexts. */
void ktasks_init(void) {
  for (int i = 1; i < KTASKS; i++) {
    ktask_switch(i);
    if (ucov_device_ioctl(&task_dev[i], KCOV_INIT_TRACE, TRACE_WORDS) == 0 &&
        ucov_device_ioctl(&task_dev[i], KCOV_ENABLE, KCOV_TRACE_PC) == 0)
      task_dev_ready[i] = 1;
    ktask_switch(0);
  }
}

struct ucov_device *ucov_port_device_next(struct ucov_device *prev, uint32_t *id) {
  for (int i = prev ? (int)(prev - task_dev) + 1 : 0; i < KTASKS; i++)
    if (task_dev_ready[i]) {
      *id = (uint32_t)i + 1;
      return &task_dev[i];
    }
  return 0;
}

static char answer[64 * 1024];

/* A kernel command; with UCOV_COMMAND_TRACE, traced (KCOV_TRACE_PC) as a
 * task traces itself. Reply: u32 text length, the text, then with TRACE the
 * trace buffer (u64 count, u64 PCs). */
int ucov_port_command(uint32_t flags, const char *cmd, size_t len, struct ucov_sink *out) {
  int trace = flags & UCOV_COMMAND_TRACE;
  if (flags & ~UCOV_COMMAND_TRACE)
    return -UCOV_EINVAL;
  if (trace && !cmd_dev_ready) {
    if (ucov_device_ioctl(&cmd_dev, KCOV_INIT_TRACE, TRACE_WORDS))
      return -UCOV_ENOMEM;
    cmd_dev_ready = 1;
  }
  if (trace) {
    cmd_dev.area[0] = 0;
    if (ucov_device_ioctl(&cmd_dev, KCOV_ENABLE, KCOV_TRACE_PC))
      return -UCOV_EBUSY;
  }
  size_t n = 0;
  kernel_command(cmd, len, answer, sizeof(answer), &n);
  if (trace)
    ucov_device_ioctl(&cmd_dev, KCOV_DISABLE, 0);
  uint8_t w[4];
  ucov_put32(w, (uint32_t)n);
  int err = out->write(out, w, 4);
  err = err ? err : out->write(out, answer, n);
  if (!err && trace) {
    uint64_t count = cmd_dev.area[0];
    if (count > TRACE_WORDS - 1)
      count = TRACE_WORDS - 1;
    err = out->write(out, &cmd_dev.area[0], (size_t)(count + 1) * 8);
  }
  return err;
}
