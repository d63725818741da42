/* SPDX-License-Identifier: MIT */
/*
 * The report side's parsers under fuzzing (tests/fuzz): each harness is one
 * LLVMFuzzerTestOneInput. Built with clang's -fsanitize=fuzzer it fuzzes;
 * linked with replay.c (every configuration) it runs its seed corpus as a
 * regression test. The parsers read files by path: the input is handed over
 * as a memfd's /proc path, and their diagnostics go to a sink that drops them.
 */
#ifndef UCOV_FUZZ_H
#define UCOV_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* data as a file: its path in path (at least 64 bytes); the descriptor to
 * close after, or -1. */
int fuzz_file(const uint8_t *data, size_t size, char *path);

/* Diagnostics dropped (once per process). */
void fuzz_quiet(void);

/* Both: the input as a file, quietly read (fuzz_file's result). */
int fuzz_input(const uint8_t *data, size_t size, char *path);

#endif
