/*
 * The spare: the next run's child, forked ahead of its request and made ready while it waits. A
 * request handed to it (its connection over a private socket, then its bytes) starts at once, where
 * a fork on request costs a third of a millisecond before the run begins, and it runs without the
 * faults that copy the forkserver's writable pages (warm). The forkserver forks the next spare when a
 * run has ended (qpdf-forkserver.c, reap); a request that finds none (runs at once, a spare that died
 * or a fork that failed) is forked on the spot, as before. A small merge's qpdf run: 3.6 → 2.9 ms,
 * its CPU 3.1 → 3.2 ms.
 */
#include "forkserver.h"
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

static struct {
  pid_t pid;
  int sock;
} spare = {0, -1};

/* The forkserver's writable private mappings, listed once: they do not change after its start. */
#define MAX_WRITABLE 128
static struct {
  unsigned long from, to;
} writable[MAX_WRITABLE];
static int writable_count = -1;

static void list_writable(void) {
  writable_count = 0;
  FILE *maps = fopen("/proc/self/maps", "r");
  if (!maps) return;
  char line[512];
  while (fgets(line, sizeof line, maps) && writable_count < MAX_WRITABLE) {
    unsigned long from, to;
    char perms[5];
    if (sscanf(line, "%lx-%lx %4s", &from, &to, perms) != 3 || strchr(line, '[') != NULL) continue;
    if (perms[0] == 'r' && perms[1] == 'w' && perms[3] == 'p') {
      writable[writable_count].from = from;
      writable[writable_count].to = to;
      writable_count++;
    }
  }
  fclose(maps);
}

/*
 * The forkserver's writable pages copied into the spare while it waits: after a fork the two
 * share them until either writes, and a run writes most of them (libqpdf's and libstdc++'s data).
 * One madvise(MADV_POPULATE_WRITE) per mapping makes the copies at once instead of one fault each.
 * Best effort: a kernel before 5.14 refuses it, and the run then faults as before. Mapping the code
 * ahead as well, or a heap, cost the spare more CPU than it saved the run (a small merge's qpdf run:
 * 0.5–1.1 ms more CPU for 0–0.2 ms less time).
 */
static void warm(void) {
  for (int i = 0; i < writable_count; i++)
    madvise((void *)writable[i].from, writable[i].to - writable[i].from, MADV_POPULATE_WRITE);
}

/* The connection, passed with the request's 4-byte length ahead of its bytes; -1 if none came. */
static int receive(int sock, uint32_t *len) {
  unsigned char head[4];
  char control[CMSG_SPACE(sizeof(int))];
  struct iovec iov = {.iov_base = head, .iov_len = sizeof head};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
  ssize_t n;
  do n = recvmsg(sock, &msg, MSG_WAITALL);
  while (n < 0 && errno == EINTR);
  struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
  if (n != (ssize_t)sizeof head || cmsg == NULL || cmsg->cmsg_type != SCM_RIGHTS) return -1;
  int conn;
  memcpy(&conn, CMSG_DATA(cmsg), sizeof conn);
  *len = (uint32_t)head[0] << 24 | (uint32_t)head[1] << 16 | (uint32_t)head[2] << 8 | head[3];
  return conn;
}

/* The spare's life: ready itself, wait for a request, run it (run_child never returns). */
__attribute__((noreturn)) static void wait_for_run(int sock, pid_t server) {
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != server) _exit(EXIT_SETUP);
  /* Nothing of the forkserver stays open but this spare's socket: no listener, no run's connection. */
  if (sock > 3) close_range(3, (unsigned)sock - 1, 0);
  close_range((unsigned)sock + 1, ~0U, 0);
  warm();
  uint32_t len = 0;
  int conn = receive(sock, &len);
  if (conn < 0 || len == 0 || len > MAX_REQUEST) _exit(EXIT_SETUP);
  char *request = malloc(len + 1);
  char **fields = calloc(len + 1, sizeof *fields);
  if (!request || !fields || read_all(sock, request, len) != 0) _exit(EXIT_SETUP);
  close(sock);
  size_t count = split_request(request, len, fields, len);
  if (count == 0) _exit(EXIT_SETUP);
  run_child(conn, server, fields, count);
}

void spare_start(pid_t server) {
  if (spare.pid != 0) return;
  if (writable_count < 0) list_writable();
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) return;
  pid_t pid = fork();
  if (pid == 0) {
    close(pair[0]);
    wait_for_run(pair[1], server);
  }
  close(pair[1]);
  if (pid < 0) {
    close(pair[0]);
    return;
  }
  spare.pid = pid;
  spare.sock = pair[0];
}

pid_t spare_hand(int conn, const char *request, uint32_t len) {
  if (spare.pid == 0) return -1;
  pid_t pid = spare.pid;
  int sock = spare.sock;
  spare.pid = 0;
  spare.sock = -1;
  unsigned char head[4];
  put_u32(head, len);
  char control[CMSG_SPACE(sizeof(int))];
  memset(control, 0, sizeof control);
  struct iovec iov = {.iov_base = head, .iov_len = sizeof head};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
  struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(cmsg), &conn, sizeof conn);
  ssize_t sent;
  do sent = sendmsg(sock, &msg, MSG_NOSIGNAL);
  while (sent < 0 && errno == EINTR);
  int handed = sent == (ssize_t)sizeof head && write_all(sock, request, len) == 0;
  close(sock);
  if (handed) return pid;
  /* Gone or stuck: it dies, is reaped as no run's, and the request is forked on the spot. */
  kill(pid, SIGKILL);
  return -1;
}

int spare_reaped(pid_t pid) {
  if (pid == 0 || pid != spare.pid) return 0;
  close(spare.sock);
  spare.pid = 0;
  spare.sock = -1;
  return 1;
}
