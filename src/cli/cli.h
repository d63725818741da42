/* SPDX-License-Identifier: MIT */
/* The ucov command: one function per subcommand, shared helpers. */
#ifndef UCOV_CLI_H
#define UCOV_CLI_H

/* Exit statuses of every subcommand. */
#define UCOV_EXIT_OK 0
#define UCOV_EXIT_FAIL 1
#define UCOV_EXIT_USAGE 2

int cmd_cc(int argc, char **argv);
int cmd_symbolize(int argc, char **argv);

/* The directory holding the running ucov executable (no trailing slash). */
const char *cli_self_dir(void);

#endif
