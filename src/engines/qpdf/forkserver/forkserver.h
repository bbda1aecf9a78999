/*
 * What the two halves of quire-qpdf-forkserver share: the answer's frames, written by the forkserver
 * (exit status) and by each run's child (pid, output). qpdf-forkserver.c describes the protocol.
 */
#ifndef QUIRE_FORKSERVER_H
#define QUIRE_FORKSERVER_H
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A run that could not be set up (cwd, limits) exits with this, as quire-exec does. */
#define EXIT_SETUP 126
/* The child's connection to the engine spawner, where its frames go. */
#define CONN_FD 3

int write_all(int fd, const void *data, size_t len);
void put_u32(unsigned char *at, uint32_t value);
/* One frame: a type byte, a 4-byte big-endian length, the payload. */
int send_frame(int fd, char type, const void *data, size_t len);
/* In the forked child: sets the run up from its request fields, runs qpdf's command line, exits. */
/* The merge in one process (merge.cc), run instead of qpdf's command line when argv[0] names it. */
int quire_merge(int argc, char **argv);
__attribute__((noreturn)) void run_child(int conn, pid_t server, char **fields, size_t count);

#endif
