/* SPDX-License-Identifier: MIT */
/*
 * C++ names demangled for the reports, by the C++ runtime's own demangler
 * (__cxa_demangle of libstdc++, found when the first name needs it), never
 * one written here. Without libstdc++ names stay as the compiler wrote them.
 */
#ifndef UCOV_BASE_DEMANGLE_H
#define UCOV_BASE_DEMANGLE_H

/* name demangled (malloc'd), or NULL: not a mangled C++ name (_Z...), no
 * demangler, or no memory. */
char *cov_demangle(const char *name);

/* f's mangled function names demangled in place (cov_finish: before it
 * merges functions of one name). */
struct cov_file;
void cov_demangle_funcs(struct cov_file *f);

#endif
