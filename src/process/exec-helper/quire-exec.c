/*
 * quire-exec: the exec helper every engine run starts through (src/process/limits.ts `withLimits`).
 * It sets on itself what the engine must run under, then execs the engine in place, so the pid the
 * engine spawner forked is the engine's pid (and its process group), and everything set here is
 * inherited by the engine and by every program the engine starts.
 *
 *   quire-exec [--as=BYTES] [--cpu=SECONDS] [--net] -- COMMAND [ARG...]
 *
 * --as caps the address space (soft = hard); --cpu sets the soft CPU cap, the hard one a second later.
 *
 * It does, in one exec, what util-linux's `setpriv --pdeathsig KILL -- [unshare --net --]
 * [prlimit --as=N --cpu=N:N+1 --]` does in two or three (the fallback limits.ts keeps for hosts without
 * a C compiler), with the same semantics, so the runner maps its failures the same way:
 *   - exit 127 and "failed to execute COMMAND: <reason>" when COMMAND is not found, 126 when it is
 *     found but cannot be executed (util-linux's errexec convention; runner.ts maps 127 + that text
 *     to `engine_unavailable`);
 *   - exit 126 with a "quire-exec: ..." message when its own arguments are wrong or a limit or the
 *     network namespace cannot be set: COMMAND never runs without what it was asked to run under.
 * Built by scripts/build-helpers.sh (static when libc.a is installed: no dynamic loader, no
 * shared libraries to map, which is most of what each util-linux exec costs).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

/* A failure of the helper itself, as distinct from the engine's exit codes (coreutils' nice/env use
 * 125 for that; 126 keeps util-linux's meaning "the command could not be run"). */
#define EXIT_HELPER 126
#define EXIT_NOT_FOUND 127

#define USAGE "usage: quire-exec [--as=BYTES] [--cpu=SECONDS] [--net] -- COMMAND [ARG...]"

__attribute__((format(printf, 1, 2), noreturn)) static void fail(const char *format, ...) {
  va_list args;
  va_start(args, format);
  fputs("quire-exec: ", stderr);
  vfprintf(stderr, format, args);
  fputc('\n', stderr);
  va_end(args);
  exit(EXIT_HELPER);
}

/*
 * A limit as prlimit(1) reads a plain number: decimal digits only. Anything else (empty, a sign,
 * spaces, a suffix, a value that does not fit below RLIM_INFINITY) is refused rather than read as
 * some other limit, which is what strtoull's silent 0 or wrap-around would give.
 */
static rlim_t parse_limit(const char *flag, const char *text) {
  if (*text == '\0') fail("%s: a number is missing", flag);
  rlim_t value = 0;
  for (const char *p = text; *p; p++) {
    if (*p < '0' || *p > '9') fail("%s: not a decimal number", flag);
    rlim_t digit = (rlim_t)(*p - '0');
    if (value > (RLIM_INFINITY - 2 - digit) / 10) fail("%s: number too large", flag);
    value = value * 10 + digit;
  }
  return value;
}

struct request {
  int has_as, has_cpu, net;
  rlim_t as, cpu;
  char **command;
};

/* Reads every flag before anything is applied, so a bad argument never leaves a half-set process. */
static struct request parse(int argc, char **argv) {
  struct request req = {0};
  int i = 1;
  for (; i < argc; i++) {
    const char *arg = argv[i];
    if (strcmp(arg, "--") == 0) break;
    if (strncmp(arg, "--as=", 5) == 0) {
      if (req.has_as) fail("--as given twice");
      req.as = parse_limit(arg, arg + 5);
      req.has_as = 1;
    } else if (strncmp(arg, "--cpu=", 6) == 0) {
      if (req.has_cpu) fail("--cpu given twice");
      req.cpu = parse_limit(arg, arg + 6);
      req.has_cpu = 1;
    } else if (strcmp(arg, "--net") == 0) {
      if (req.net) fail("--net given twice");
      req.net = 1;
    } else {
      fail("unknown argument %s (%s)", arg, USAGE);
    }
  }
  if (i >= argc) fail("missing -- before the command (%s)", USAGE);
  if (i + 1 >= argc) fail("missing command after -- (%s)", USAGE);
  req.command = argv + i + 1;
  return req;
}

/*
 * The CPU cap's hard limit is this much above the soft one: at the soft cap the kernel sends SIGXCPU,
 * which ends an engine that does not handle it and which the runner reports as `timeout`; one that
 * catches it is SIGKILLed at the hard cap. (Soft = hard would SIGKILL at once, read as a crash.)
 */
#define CPU_GRACE_SECONDS 1

/* The engine can lower its caps but never raise them: the hard limit is set too. */
static void set_limit(int resource, rlim_t soft, rlim_t hard, const char *name) {
  struct rlimit limit = {soft, hard};
  if (setrlimit(resource, &limit) != 0) fail("cannot set the %s limit: %s", name, strerror(errno));
}

int main(int argc, char **argv) {
  /*
   * First, before anything can fail or take time: the kernel SIGKILLs this process (then the
   * engine) when the engine spawner that forked it dies, even by SIGKILL. The engine leads its own
   * process group, so a kill of the service's group would miss it. The parent's pid is read before
   * the call: if it changes across the call, the spawner died in between and no signal will come.
   */
  pid_t parent = getppid();
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) fail("cannot set the parent-death signal: %s", strerror(errno));
  /*
   * If the spawner died even before the first getppid(), this process was already handed to init
   * (pid 1), which is never the parent of an engine start (the spawner is, and the helper runs
   * before bwrap, outside any sandbox's pid namespace): go the way the signal would have sent us.
   * A subreaper between the spawner and init would take the orphan instead and go unnoticed; the
   * service runs under none (tini in the image is pid 1).
   */
  if (getppid() != parent || parent == 1) raise(SIGKILL);

  struct request req = parse(argc, argv);

  /*
   * A new network namespace holds only a loopback device that is down: no socket reaches any host,
   * this one included. Asked for and not possible (no CAP_SYS_ADMIN) is a failed run, never a run
   * with the host's network; callers that can do without probe first (network-isolation.ts).
   */
  if (req.net && unshare(CLONE_NEWNET) != 0) fail("cannot make a network namespace: %s", strerror(errno));
  if (req.has_as) set_limit(RLIMIT_AS, req.as, req.as, "AS");
  if (req.has_cpu) set_limit(RLIMIT_CPU, req.cpu, req.cpu + CPU_GRACE_SECONDS, "CPU");

  /* execvp: the engine is named as the service names it (a bare name searched in the run's PATH). */
  execvp(req.command[0], req.command);
  int error = errno;
  fprintf(stderr, "quire-exec: failed to execute %s: %s\n", req.command[0], strerror(error));
  return error == ENOENT ? EXIT_NOT_FOUND : EXIT_HELPER;
}
