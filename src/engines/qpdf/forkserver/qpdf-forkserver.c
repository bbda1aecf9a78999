/*
 * quire-qpdf-forkserver: runs qpdf command lines without starting qpdf each time.
 *
 *   quire-qpdf-forkserver SOCKET
 *
 * Started once by the engine spawner (src/process/spawner/forkserver.ts). It loads libqpdf, listens
 * on SOCKET (inside a 0700 directory the spawner made), prints "ready" and then, for each connection,
 * reads one request and forks a child that runs the request's qpdf command line through libqpdf's own
 * CLI entry point (qpdfjob_run_from_argv: the qpdf program's argument parsing, messages and exit codes)
 * and exits. Each run is still its own process, in its own process group, under the request's limits;
 * what it no longer pays is exec, the dynamic linking of libqpdf and its dependencies and C++ start-up:
 * half the CPU of a one-page qpdf run (docs/benchmarks.md, `job-overhead`). The one thing weaker
 * than an exec is that every child shares the forkserver's address-space layout (docs/operations.md).
 *
 * Request: a 4-byte big-endian length, then NUL-terminated fields:
 *   cwd, address-space cap in bytes ("" for none), CPU cap in seconds ("" for none),
 *   number of environment entries N, N entries "NAME=value", then argv (argv[0] names the program).
 * Answer, on the same connection, as frames of a type byte and a 4-byte big-endian length:
 *   'p' the child's pid (4 bytes), first; 'o' stdout and 'e' stderr bytes, in order;
 *   'x' the exit: code and signal number (4 bytes each, -1 when not applicable), sent by the child
 *   itself when its run returns (flushed, just before it exits), and by the forkserver when it has
 *   reaped the child; the first one counts, and the forkserver's is the only one after a signal.
 * A child that cannot set up (cwd, limits) writes why on 'e' and exits 126, as quire-exec does.
 * Built by scripts/build-helpers.sh against the libqpdf of the installed qpdf.
 */
#include "forkserver.h"
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_RUNS 4096

struct run {
  pid_t pid;
  int fd;
};
static struct run runs[MAX_RUNS];

/* ---- the forkserver ---- */

int read_all(int fd, void *data, size_t len) {
  char *p = data;
  while (len > 0) {
    ssize_t n = read(fd, p, len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    p += n;
    len -= (size_t)n;
  }
  return 0;
}

/* Splits the request into its fields in place; returns their number, or 0 when it is malformed. */
size_t split_request(char *request, size_t len, char **fields, size_t max) {
  if (len == 0 || request[len - 1] != '\0') return 0;
  size_t count = 0;
  for (size_t at = 0; at < len; at += strlen(request + at) + 1) {
    if (count == max) return 0;
    fields[count++] = request + at;
  }
  return count;
}

static void start(int conn, pid_t server) {
  /* Only this service's own user may ask (the directory is 0700 too). */
  struct ucred peer;
  socklen_t peer_len = sizeof peer;
  if (getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &peer, &peer_len) != 0 || peer.uid != getuid()) {
    close(conn);
    return;
  }
  /* The spawner writes the whole request at once; a stalled peer must not hold up the others. */
  struct timeval timeout = {.tv_sec = 5};
  setsockopt(conn, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  unsigned char head[4];
  uint32_t len;
  char *request = NULL;
  char **fields = NULL;
  size_t count = 0;
  int slot = -1;
  for (int i = 0; i < MAX_RUNS; i++)
    if (runs[i].pid == 0) {
      slot = i;
      break;
    }
  if (slot >= 0 && read_all(conn, head, 4) == 0 &&
      (len = (uint32_t)head[0] << 24 | (uint32_t)head[1] << 16 | (uint32_t)head[2] << 8 | head[3]) > 0 &&
      len <= MAX_REQUEST && (request = malloc(len + 1)) && read_all(conn, request, len) == 0 &&
      (fields = calloc(len + 1, sizeof *fields))) {
    count = split_request(request, len, fields, len);
  }
  if (count == 0) {
    const char *why = "quire-qpdf-forkserver: refused a malformed request\n";
    send_frame(conn, 'e', why, strlen(why));
    close(conn);
  } else {
    /* The spare if there is one (spare.c), else a fork on the spot. */
    pid_t pid = spare_hand(conn, request, len);
    if (pid < 0) pid = fork();
    if (pid == 0) run_child(conn, server, fields, count);
    if (pid < 0) {
      const char *why = strerror(errno);
      send_frame(conn, 'f', why, strlen(why));
      close(conn);
    } else {
      runs[slot].pid = pid;
      runs[slot].fd = conn;
    }
  }
  free(fields);
  free(request);
}

static void reap(pid_t server) {
  int status;
  pid_t pid;
  while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
    if (spare_reaped(pid)) continue;
    for (int i = 0; i < MAX_RUNS; i++) {
      if (runs[i].pid != pid) continue;
      unsigned char exit_bytes[8];
      put_u32(exit_bytes, (uint32_t)(WIFEXITED(status) ? WEXITSTATUS(status) : -1));
      put_u32(exit_bytes + 4, (uint32_t)(WIFSIGNALED(status) ? WTERMSIG(status) : -1));
      send_frame(runs[i].fd, 'x', exit_bytes, sizeof exit_bytes);
      close(runs[i].fd);
      runs[i].pid = 0;
      break;
    }
  }
  /* The next spare is forked once a run has ended, not beside it: on two cores its fork and warm-up
     would take the CPU the run it follows is using. */
  spare_start(server);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fputs("usage: quire-qpdf-forkserver SOCKET\n", stderr);
    return 2;
  }
  pid_t spawner = getppid();
  /* Dies with the spawner; its children die with it (their own parent-death signal). */
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != spawner) return 1;
  /* No run can gain privileges through a set-uid program, as with quire-exec's setpriv heritage. */
  prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  signal(SIGPIPE, SIG_IGN);
  sigset_t chld;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, NULL);
  int children = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);

  struct sockaddr_un address = {.sun_family = AF_UNIX};
  if (strlen(argv[1]) >= sizeof address.sun_path) {
    fputs("quire-qpdf-forkserver: socket path too long\n", stderr);
    return 1;
  }
  strcpy(address.sun_path, argv[1]);
  int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (children < 0 || listener < 0 || bind(listener, (struct sockaddr *)&address, sizeof address) != 0 ||
      listen(listener, 128) != 0) {
    perror("quire-qpdf-forkserver");
    return 1;
  }
  if (write_all(1, "ready\n", 6) != 0) return 1;

  pid_t self = getpid();
  spare_start(self);
  struct pollfd watched[2] = {{.fd = listener, .events = POLLIN}, {.fd = children, .events = POLLIN}};
  for (;;) {
    if (poll(watched, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return 1;
    }
    if (watched[1].revents & POLLIN) {
      struct signalfd_siginfo info;
      while (read(children, &info, sizeof info) == sizeof info) {
      }
      reap(self);
    }
    if (watched[0].revents & POLLIN) {
      int conn = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
      if (conn >= 0) start(conn, self);
    }
  }
}
