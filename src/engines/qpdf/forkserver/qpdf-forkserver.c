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
 * half the CPU of a one-page qpdf run (docs/benchmarks.md, "qpdf forkserver"). The one thing weaker
 * than an exec is that every child shares the forkserver's address-space layout (docs/operations.md).
 *
 * Request: a 4-byte big-endian length, then NUL-terminated fields:
 *   cwd, address-space cap in bytes ("" for none), CPU cap in seconds ("" for none),
 *   number of environment entries N, N entries "NAME=value", then argv (argv[0] names the program).
 * Answer, on the same connection, as frames of a type byte and a 4-byte big-endian length:
 *   'p' the child's pid (4 bytes), first; 'o' stdout and 'e' stderr bytes, in order;
 *   'x' when the child is gone: exit code and signal number (4 bytes each, -1 when not applicable).
 * A child that cannot set up (cwd, limits) writes why on 'e' and exits 126, as quire-exec does.
 * Built by scripts/build-helpers.sh against the libqpdf of the installed qpdf.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <qpdf/qpdfjob-c.h>
#include <qpdf/qpdflogger-c.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define EXIT_SETUP 126
#define CONN_FD 3
#define MAX_REQUEST (4u << 20)
#define MAX_RUNS 4096
/* CPU seconds past the soft cap before the kernel's SIGKILL (src/process/limits.ts: CPU_GRACE_SECONDS). */
#define CPU_GRACE_SECONDS 1

struct run {
  pid_t pid;
  int fd;
};
static struct run runs[MAX_RUNS];

static int write_all(int fd, const void *data, size_t len) {
  const char *p = data;
  while (len > 0) {
    ssize_t n = write(fd, p, len);
    if (n < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    p += n;
    len -= (size_t)n;
  }
  return 0;
}

static void put_u32(unsigned char *at, uint32_t value) {
  at[0] = (unsigned char)(value >> 24);
  at[1] = (unsigned char)(value >> 16);
  at[2] = (unsigned char)(value >> 8);
  at[3] = (unsigned char)value;
}

static int send_frame(int fd, char type, const void *data, size_t len) {
  unsigned char head[5];
  head[0] = (unsigned char)type;
  put_u32(head + 1, (uint32_t)len);
  if (write_all(fd, head, sizeof head) != 0) return -1;
  return len == 0 ? 0 : write_all(fd, data, len);
}

/* ---- the child: qpdf's output, gathered into frames ---- */

/*
 * qpdf writes a line in several small pieces; each stream is gathered here and sent when it holds
 * 32 KiB, or at a newline once 20 ms have passed since the last send (progress lines stay timely
 * without a frame per piece), and whatever is left when the child exits.
 */
struct stream {
  char type;
  size_t size;
  struct timespec sent;
  char data[32 * 1024];
};
static struct stream out_stream = {.type = 'o'};
static struct stream err_stream = {.type = 'e'};

static void flush_stream(struct stream *s) {
  if (s->size > 0) send_frame(CONN_FD, s->type, s->data, s->size);
  s->size = 0;
  clock_gettime(CLOCK_MONOTONIC, &s->sent);
}

static int stream_write(char const *data, size_t len, void *udata) {
  struct stream *s = udata;
  int newline = memchr(data, '\n', len) != NULL;
  while (len > 0) {
    if (s->size == sizeof s->data) flush_stream(s);
    size_t room = sizeof s->data - s->size;
    size_t n = len < room ? len : room;
    memcpy(s->data + s->size, data, n);
    s->size += n;
    data += n;
    len -= n;
  }
  if (newline) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long ms = (now.tv_sec - s->sent.tv_sec) * 1000 + (now.tv_nsec - s->sent.tv_nsec) / 1000000;
    if (ms >= 20) flush_stream(s);
  }
  return 0;
}

static void flush_all(void) {
  flush_stream(&out_stream);
  flush_stream(&err_stream);
}

__attribute__((noreturn, format(printf, 1, 2))) static void setup_failed(const char *format, ...) {
  char message[512];
  va_list args;
  va_start(args, format);
  int n = vsnprintf(message, sizeof message, format, args);
  va_end(args);
  if (n > (int)sizeof message - 1) n = (int)sizeof message - 1;
  send_frame(CONN_FD, 'e', message, n < 0 ? 0 : (size_t)n);
  _exit(EXIT_SETUP);
}

static void set_limit(int resource, const char *text, rlim_t grace, const char *name) {
  if (*text == '\0') return;
  char *end;
  errno = 0;
  unsigned long long value = strtoull(text, &end, 10);
  if (errno != 0 || *end != '\0' || value >= RLIM_INFINITY - grace)
    setup_failed("quire-qpdf-forkserver: bad %s limit\n", name);
  struct rlimit limit = {.rlim_cur = (rlim_t)value, .rlim_max = (rlim_t)value + grace};
  if (setrlimit(resource, &limit) != 0)
    setup_failed("quire-qpdf-forkserver: cannot set the %s limit: %s\n", name, strerror(errno));
}

/* Everything after the fork, in the child. `fields` points into the request, which the child owns. */
__attribute__((noreturn)) static void child(int conn, pid_t server, char **fields, size_t count) {
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  signal(SIGPIPE, SIG_DFL);
  /* Its own process group, killed as a unit by the service (runner.ts), like a spawned engine. */
  setpgid(0, 0);
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != server) _exit(EXIT_SETUP);
  if (conn != CONN_FD && dup2(conn, CONN_FD) < 0) _exit(EXIT_SETUP);
  int null = open("/dev/null", O_RDWR);
  if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0) _exit(EXIT_SETUP);
  /* Nothing of the forkserver or of other runs stays open: no other run's connection, no listener. */
  close_range(CONN_FD + 1, ~0U, 0);
  clock_gettime(CLOCK_MONOTONIC, &out_stream.sent);
  err_stream.sent = out_stream.sent;
  uint32_t pid = (uint32_t)getpid();
  unsigned char pid_bytes[4];
  put_u32(pid_bytes, pid);
  if (send_frame(CONN_FD, 'p', pid_bytes, sizeof pid_bytes) != 0) _exit(EXIT_SETUP);

  if (count < 5) setup_failed("quire-qpdf-forkserver: malformed request\n");
  const char *cwd = fields[0];
  set_limit(RLIMIT_AS, fields[1], 0, "address-space");
  set_limit(RLIMIT_CPU, fields[2], CPU_GRACE_SECONDS, "CPU");
  struct rlimit no_core = {0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  char *end;
  unsigned long env_count = strtoul(fields[3], &end, 10);
  if (*end != '\0' || env_count > count - 5) setup_failed("quire-qpdf-forkserver: malformed request\n");
  if (chdir(cwd) != 0) setup_failed("quire-qpdf-forkserver: cannot enter %s: %s\n", cwd, strerror(errno));
  clearenv();
  for (unsigned long i = 0; i < env_count; i++) putenv(fields[4 + i]);
  char **argv = fields + 4 + env_count;
  argv[count - 4 - env_count] = NULL;

  qpdflogger_handle logger = qpdflogger_default_logger();
  qpdflogger_set_info(logger, qpdf_log_dest_custom, stream_write, &out_stream);
  qpdflogger_set_warn(logger, qpdf_log_dest_custom, stream_write, &err_stream);
  qpdflogger_set_error(logger, qpdf_log_dest_custom, stream_write, &err_stream);
  qpdflogger_set_save(logger, qpdf_log_dest_custom, stream_write, &out_stream, 0);
  qpdflogger_cleanup(&logger);
  atexit(flush_all); /* also when qpdf itself calls exit() */
  exit(qpdfjob_run_from_argv((char const *const *)argv));
}

/* ---- the forkserver ---- */

static int read_all(int fd, void *data, size_t len) {
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
static size_t split(char *request, size_t len, char **fields, size_t max) {
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
    count = split(request, len, fields, len);
  }
  if (count == 0) {
    const char *why = "quire-qpdf-forkserver: refused a malformed request\n";
    send_frame(conn, 'e', why, strlen(why));
    close(conn);
  } else {
    pid_t pid = fork();
    if (pid == 0) child(conn, server, fields, count);
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

static void reap(void) {
  int status;
  pid_t pid;
  while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
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
      reap();
    }
    if (watched[0].revents & POLLIN) {
      int conn = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
      if (conn >= 0) start(conn, self);
    }
  }
}
