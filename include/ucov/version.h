/* SPDX-License-Identifier: MIT */
/* ucov/version.h - the version of ucov (freestanding). */
#ifndef UCOV_VERSION_H
#define UCOV_VERSION_H

#define UCOV_VERSION "0.1.0"

#endif
