/* SPDX-License-Identifier: MIT */
/*
 * The host tool's small shared pieces: one checked growable array and one
 * string hash (every table of the report side uses these two), its message
 * and file-opening helpers, and one directory walker.
 */
#ifndef UCOV_BASE_UTIL_H
#define UCOV_BASE_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "diag.h"

/*
 * Make room in *arr (capacity *cap elements of elem bytes) for element n:
 * doubled from at least `first` elements. 0, or -1 with *arr and *cap as
 * they were (out of memory, or a size that does not fit a size_t).
 */
int ucov_grow(void **arr, size_t *cap, size_t n, size_t elem, size_t first);

/* Grow array `a` (a pointer variable) with capacity variable `cap` for index n. */
#define UCOV_GROW(a, cap, n, first) ucov_grow((void **)&(a), &(cap), (n), sizeof(*(a)), (first))

/* Who the messages on stderr come from: "ucov report" (the ucov command sets
 * it; "ucov" until then). */
extern const char *ucov_cmd;

/* An error through the diagnostics sink (diag.h): by default on stderr,
 * "<ucov_cmd>: " and then printf's. */
void ucov_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define UCOV_ERR ucov_err
/* The same as an expression that is -1: `return SAY("...")`. */
#define SAY(...) (UCOV_ERR(__VA_ARGS__), -1)
/* An error about a file (the sink's field, never the text's): -1. */
#define SAY_AT(file, ...) (diag_at(DIAG_ERROR, (file), 0, __VA_ARGS__), -1)

/*
 * fopen(path, "r") of a regular file only: a FIFO, a device or a socket would
 * block a reader or never end, so it is refused with errno UCOV_ENOTREG (a
 * directory: EISDIR). Opened without blocking, then made blocking.
 */
#include <stdio.h>
#define UCOV_ENOTREG 4096
FILE *ucov_fopen_regular(const char *path);
/* The same for a descriptor opened O_NONBLOCK (closed on failure). */
FILE *ucov_fdopen_regular(int fd);

/* strerror, and "not a regular file" for UCOV_ENOTREG. */
const char *ucov_strerror(int err);

/* Does s end with suffix? */
int ucov_ends_with(const char *s, const char *suffix);

/* FNV-1a of a string. */
uint64_t ucov_hash_str(const char *s);

/* A text file (a source) whole, NUL-terminated, up to UCOV_MAX_TEXT bytes
 * (as long as it was when opened; less if it shrank meanwhile); NULL, with
 * errno, if it is not a readable regular file of that size, a read fails,
 * or there is no memory. */
#define UCOV_MAX_TEXT (256u << 20)
char *ucov_read_text(const char *path, size_t *len);

/*
 * A directory tree walked depth first, as nftw(root, fn, _, FTW_PHYS) does
 * (fn also gets arg)
 * (fn gets FTW_F for a file of any other type, FTW_D before a directory's
 * entries, FTW_SL for a link, never followed), but with every error said:
 * glibc's nftw takes a directory it could not read to the end for one
 * that ended, so a tree it walked "whole" may lack entries. Returns 0, fn's
 * first nonzero return (the walk stopped), or -1 with errno set when an
 * entry could not be looked at or a directory not read whole (the walk
 * stopped there: what it saw is not all there is).
 */
struct FTW;
struct stat;
int ucov_walk(const char *root,
              int (*fn)(const char *path, const struct stat *st, int type, struct FTW *ftw,
                        void *arg),
              void *arg);
/* The same, links followed (gcovr's walk): a link to a directory is walked
 * as a directory (by the link's path), a link to a file is a file, a
 * dangling link is FTW_SL; each real directory is entered once (a second
 * way to it, or a loop, is passed over). */
int ucov_walk_links(const char *root,
                    int (*fn)(const char *path, const struct stat *st, int type, struct FTW *ftw,
                              void *arg),
                    void *arg);

#endif
