// SPDX-License-Identifier: MIT
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/utsname.h>

#include "compat.h"
#include "linux_port.h"
#include "ucov/port/frame.h"
#include "ucov/port/port.h"
#include "ucov/port/sink.h"
#include "ucov/version.h"

/*
 * /dev/ucov: the ucov protocol (docs/protocol.md) on a misc device, for `ucov
 * ls|pull|reset --dev /dev/ucov` in the system and for `ucov relay`. A
 * request frame is written (in one write or several), and its reply is there
 * to read as soon as the write that completed the request returns: the
 * request is served in that write. A frame whose header is bad gets its error
 * reply and what was written is dropped; so does a write that would
 * overflow a request. One request at a time per open file.
 */
struct proto_file {
  struct mutex lock;
  u8 in[UCOV_PROTO_HEADER + UCOV_PROTO_MAX_REQUEST];
  size_t in_len;
  u8 *out; /* the reply: header and payload (kvmalloc'ed) */
  size_t out_len, out_at;
};

static int proto_open(struct inode *inode, struct file *f) {
  struct proto_file *p = kvzalloc(sizeof(*p), GFP_KERNEL);

  if (!p)
    return -ENOMEM;
  mutex_init(&p->lock);
  f->private_data = p;
  return nonseekable_open(inode, f);
}

static int proto_release(struct inode *inode, struct file *f) {
  struct proto_file *p = f->private_data;

  ucov_serve_end();
  kvfree(p->out);
  kvfree(p);
  return 0;
}

/* The reply to keep: a header with op and status, then len bytes. */
static int proto_reply(struct proto_file *p, uint16_t op, uint32_t status, const void *data,
                       size_t len) {
  kvfree(p->out);
  p->out_len = p->out_at = 0;
  p->out = kvmalloc(UCOV_PROTO_HEADER + len, GFP_KERNEL);
  if (!p->out)
    return -ENOMEM;
  ucov_frame_encode(p->out, op, status, (uint32_t)len);
  if (len)
    memcpy(p->out + UCOV_PROTO_HEADER, data, len);
  p->out_len = UCOV_PROTO_HEADER + len;
  return 0;
}

static int proto_error(struct proto_file *p, uint16_t op, uint32_t status) {
  const char *msg = ucov_status_str(status);

  return proto_reply(p, op, status, msg, strlen(msg));
}

/* Serve the request in p->in if it is whole. 0, or -errno. */
static int proto_serve(struct proto_file *p) {
  struct ucov_frame fr;
  struct ucov_buf_sink out;
  uint32_t st;
  u8 eno[4];
  int err;

  if (p->in_len < UCOV_PROTO_HEADER)
    return 0;
  ucov_frame_decode(p->in, &fr);
  st = ucov_frame_check(&fr);
  if (st != UCOV_ST_OK) {
    p->in_len = 0;
    return proto_error(p, fr.op, st);
  }
  if (p->in_len < UCOV_PROTO_HEADER + fr.length)
    return 0;
  ucov_buf_sink_init(&out);
  st = ucov_serve(&fr, (const char *)p->in + UCOV_PROTO_HEADER, &out.sink, eno);
  p->in_len = 0;
  if (st == UCOV_ST_OK)
    err = proto_reply(p, fr.op, st, out.buf, out.len);
  else if (st == UCOV_ST_ERRNO)
    err = proto_reply(p, fr.op, st, eno, sizeof(eno));
  else
    err = proto_error(p, fr.op, st);
  ucov_port_free(out.buf);
  return err;
}

static ssize_t proto_write(struct file *f, const char __user *buf, size_t n, loff_t *pos) {
  struct proto_file *p = f->private_data;
  ssize_t ret = n;
  int err;

  mutex_lock(&p->lock);
  if (n > sizeof(p->in) - p->in_len) {
    p->in_len = 0;
    err = proto_error(p, 0, UCOV_ST_TOO_LARGE);
    ret = err ? err : -EMSGSIZE;
  } else if (copy_from_user(p->in + p->in_len, buf, n)) {
    ret = -EFAULT;
  } else {
    p->in_len += n;
    err = proto_serve(p);
    if (err)
      ret = err;
  }
  mutex_unlock(&p->lock);
  return ret;
}

static ssize_t proto_read(struct file *f, char __user *buf, size_t n, loff_t *pos) {
  struct proto_file *p = f->private_data;
  ssize_t ret;

  mutex_lock(&p->lock);
  ret = min(n, p->out_len - p->out_at);
  if (ret && copy_to_user(buf, p->out + p->out_at, ret))
    ret = -EFAULT;
  else
    p->out_at += ret;
  mutex_unlock(&p->lock);
  return ret;
}

static __poll_t proto_poll(struct file *f, struct poll_table_struct *wait) {
  struct proto_file *p = f->private_data;

  return EPOLLOUT | EPOLLWRNORM | (p->out_at < p->out_len ? EPOLLIN | EPOLLRDNORM : 0);
}

static const struct file_operations proto_fops = {
    .owner = THIS_MODULE,
    .open = proto_open,
    .release = proto_release,
    .read = proto_read,
    .write = proto_write,
    .poll = proto_poll,
    .llseek = UCOV_NO_LLSEEK,
};

static struct miscdevice proto_dev = {
    .minor = MISC_DYNAMIC_MINOR,
    .name = "ucov",
    .fops = &proto_fops,
    .mode = 0600,
};

/* INFO: this kernel. */
int ucov_port_info(struct ucov_sink *s) {
  char buf[256];
  int n = scnprintf(buf, sizeof(buf),
                    "kernel=linux %s\nversion=" UCOV_VERSION "\nprotocol=%d\ntransport=dev\n",
                    utsname()->release, UCOV_PROTO_VERSION);

  return s->write(s, buf, n);
}

int linux_proto_init(void) {
  return misc_register(&proto_dev);
}

void linux_proto_exit(void) {
  misc_deregister(&proto_dev);
}
