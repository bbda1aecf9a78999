/*
 * The child half of quire-qpdf-forkserver (qpdf-forkserver.c): after the fork, the run takes its own
 * process group, the parent-death signal, its connection as fd 3 and nothing else of the forkserver,
 * the request's caps, cwd and environment, and runs the command line through libqpdf's own CLI entry
 * point, its output going back as frames.
 */
#include "forkserver.h"
#include <malloc.h>
#include <errno.h>
#include <fcntl.h>
#include <qpdf/qpdfjob-c.h>
#include <qpdf/qpdflogger-c.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* CPU seconds past the soft cap before the kernel's SIGKILL (src/process/limits.ts: CPU_GRACE_SECONDS). */
#define CPU_GRACE_SECONDS 1

int write_all(int fd, const void *data, size_t len) {
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

void put_u32(unsigned char *at, uint32_t value) {
  at[0] = (unsigned char)(value >> 24);
  at[1] = (unsigned char)(value >> 16);
  at[2] = (unsigned char)(value >> 8);
  at[3] = (unsigned char)value;
}

int send_frame(int fd, char type, const void *data, size_t len) {
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

/*
 * The end of a run that returned: its output and files flushed, then its exit status sent by the
 * child itself, so the run is over for the service without waiting for the kernel to tear the
 * process down and the forkserver to reap it (half a millisecond of a small merge's four). The
 * forkserver's own 'x' after the reap still follows; it is the only one when the run ends by a
 * signal (a limit) or by qpdf calling exit() itself.
 */
__attribute__((noreturn)) static void finish(int code) {
  flush_all();
  fflush(NULL);
  unsigned char exit_bytes[8];
  put_u32(exit_bytes, (uint32_t)code);
  put_u32(exit_bytes + 4, (uint32_t)-1);
  send_frame(CONN_FD, 'x', exit_bytes, sizeof exit_bytes);
  _exit(code);
}

/* Everything after the fork, in the child. `fields` points into the request, which the child owns. */
void run_child(int conn, pid_t server, char **fields, size_t count) {
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
  /* The run's large buffers (qpdf holds each stream it writes whole, to know its /Length) come from
     the heap and stay there when freed, instead of a fresh mapping each: every page of a new mapping
     is a fault and a zeroed page, and its unmapping frees them again. The run is one process that
     exits when done, so nothing is held longer than the run; the heap gives back a free top past
     64 MiB, so an address-space limit near a run's peak is not reached sooner. Streams past 32 MiB
     (glibc's largest threshold) are still mapped alone. */
  mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
  mallopt(M_TRIM_THRESHOLD, 64 * 1024 * 1024);
  /* No fast bins: qpdf frees small objects by the thousand between larger allocations, each of which
     then consolidated the fast bins first (malloc_consolidate, 7 % of a 10-file merge's run). Small
     chunks are reused through the thread cache instead, made deep by the forkserver's start
     (GLIBC_TUNABLES, src/process/spawner/forkserver.ts). */
  mallopt(M_MXFAST, 0);
  if (strcmp(argv[0], "quire-qpdf-merge") == 0) finish(quire_merge((int)(count - 4 - env_count), argv));
  finish(qpdfjob_run_from_argv((char const *const *)argv));
}
