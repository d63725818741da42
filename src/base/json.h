/* SPDX-License-Identifier: MIT */
/*
 * A small JSON reader (a tree in one arena, freed at once) for gcov's
 * --json-format output and ucov's own JSON, and helpers to write JSON.
 */
#ifndef UCOV_BASE_JSON_H
#define UCOV_BASE_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum json_type { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

struct json {
  enum json_type type;
  int boolean;
  double number;      /* JSON_NUMBER */
  uint64_t u64;       /* JSON_NUMBER: exact when it is a non-negative integer */
  int is_u64;         /* ... and it was one */
  const char *string; /* JSON_STRING (NUL-terminated, UTF-8) */
  const char *key;    /* a member of an object: its key */
  size_t len;         /* JSON_STRING: bytes; ARRAY/OBJECT: members */
  struct json *first; /* ARRAY/OBJECT: first member */
  struct json *next;  /* the next member of the parent */
};

struct json_doc {
  struct json *root;
  char error[160]; /* why parsing failed, with the byte offset */
  void *arena;
};

/*
 * Parse one JSON value from text[0..len); *used gets the bytes consumed
 * (whitespace after it included), so a stream of values can be read one by
 * one. Returns 0, or -1 with doc->error set. json_free frees the tree.
 */
int json_parse(struct json_doc *doc, const char *text, size_t len, size_t *used);
void json_free(struct json_doc *doc);

/* An object's member by key, or NULL. */
const struct json *json_get(const struct json *obj, const char *key);
/* A member's value as a u64 (0 unless a non-negative integer), a string (NULL if not one). */
uint64_t json_u64(const struct json *v);
const char *json_str(const struct json *v);

/* Write s as a JSON string (quotes, escapes). */
void json_put_string(FILE *f, const char *s);

#endif
