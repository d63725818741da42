/* SPDX-License-Identifier: MIT */
/* A recursive-descent parser of integer expressions. */
#include "subsys.h"

struct cursor {
  const char *s, *end;
  const char *err;
};

static void skip_blanks(struct cursor *c) {
  while (c->s < c->end && (*c->s == ' ' || *c->s == '\t'))
    c->s++;
}

static long expr(struct cursor *c);

static long primary(struct cursor *c) {
  skip_blanks(c);
  if (c->s == c->end) {
    c->err = "unexpected end";
    return 0;
  }
  if (*c->s == '(') {
    c->s++;
    long v = expr(c);
    skip_blanks(c);
    if (c->s == c->end || *c->s != ')') {
      if (!c->err)
        c->err = "missing )";
      return 0;
    }
    c->s++;
    return v;
  }
  if (*c->s == '-') {
    c->s++;
    return -primary(c);
  }
  if (*c->s < '0' || *c->s > '9') {
    c->err = "unexpected character";
    return 0;
  }
  long v = 0;
  while (c->s < c->end && *c->s >= '0' && *c->s <= '9')
    v = v * 10 + (*c->s++ - '0');
  return v;
}

static long term(struct cursor *c) {
  long v = primary(c);
  for (;;) {
    skip_blanks(c);
    if (c->err || c->s == c->end || (*c->s != '*' && *c->s != '/' && *c->s != '%'))
      return v;
    char op = *c->s++;
    long r = primary(c);
    if (op == '*') {
      v *= r;
    } else if (r == 0) {
      c->err = "division by zero";
      return 0;
    } else {
      v = op == '/' ? v / r : v % r;
    }
  }
}

static long expr(struct cursor *c) {
  long v = term(c);
  for (;;) {
    skip_blanks(c);
    if (c->err || c->s == c->end || (*c->s != '+' && *c->s != '-'))
      return v;
    char op = *c->s++;
    long r = term(c);
    v = op == '+' ? v + r : v - r;
  }
}

int parse_expr(const char *s, size_t n, long *value, const char **err) {
  struct cursor c = {s, s + n, 0};
  long v = expr(&c);
  skip_blanks(&c);
  if (!c.err && c.s != c.end)
    c.err = "trailing characters";
  if (c.err) {
    *err = c.err;
    return -1;
  }
  *value = v;
  return 0;
}
