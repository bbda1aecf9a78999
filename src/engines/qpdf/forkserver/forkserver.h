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

/* The largest request the forkserver reads. */
#define MAX_REQUEST (4u << 20)

int write_all(int fd, const void *data, size_t len);
int read_all(int fd, void *data, size_t len);
/* A request's NUL-terminated fields into `fields` (at most `max`); 0 when it is malformed. */
size_t split_request(char *request, size_t len, char **fields, size_t max);
void put_u32(unsigned char *at, uint32_t value);
/* One frame: a type byte, a 4-byte big-endian length, the payload. */
int send_frame(int fd, char type, const void *data, size_t len);
/* In the forked child: sets the run up from its request fields, runs qpdf's command line, exits. */
/* The merge in one process (merge.cc), run instead of qpdf's command line when argv[0] names it. */
int quire_merge(int argc, char **argv);
__attribute__((noreturn)) void run_child(int conn, pid_t server, char **fields, size_t count);
/* The spare (spare.c): forks one if there is none; hands it a request (its pid, or -1 when there is
 * no spare or it could not take it); 1 when a reaped pid was the spare, which is then forgotten. */
void spare_start(pid_t server);
pid_t spare_hand(int conn, const char *request, uint32_t len);
int spare_reaped(pid_t pid);

#endif
