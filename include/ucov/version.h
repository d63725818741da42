/* SPDX-License-Identifier: MIT */
/* ucov/version.h - the version of ucov (freestanding). */
#ifndef UCOV_VERSION_H
#define UCOV_VERSION_H

/* The version this header belongs to: numbers, and as a string. A program
 * can compare UCOV_VERSION_NUMBER with the runtime's, ucov_version(). */
#define UCOV_VERSION_MAJOR 0
#define UCOV_VERSION_MINOR 1
#define UCOV_VERSION_PATCH 0
#define UCOV_VERSION_NUMBER                                                                        \
  (UCOV_VERSION_MAJOR * 10000 + UCOV_VERSION_MINOR * 100 + UCOV_VERSION_PATCH)
#define UCOV_VERSION "0.1.0"

#endif
