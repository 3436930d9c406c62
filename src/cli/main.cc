// mcp-shell-host: argv -> options -> verb. No logic beyond choosing the verb.
#include <malloc.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <iostream>

#include "cli/options.h"
#include "cli/verbs.h"
#include "execution/thread_scheduling.h"
#include "sandbox/confine_exec.h"

int main(int argc, char** argv) {
  using namespace mcpsh::cli;
  // Not a verb: the host's own binary, run by bwrap inside an isolate sandbox's namespaces
  // to apply the rest of the sandbox and exec the tool. Nothing else runs first.
  if (argc > 1 && std::strcmp(argv[1], mcpsh::sandbox::kConfineExecFlag) == 0)
    return mcpsh::sandbox::confine_exec(argc, argv);
  // Buffers of 256 KiB and more (a large line, argument or output) get their own mapping,
  // returned to the kernel when freed. Left to itself, glibc raises this threshold after
  // the first large free (up to 32 MiB), and later large buffers then come from the heap:
  // pages touched by earlier calls stay resident and reserved capacity is counted as soon
  // as it reuses them. Measured with scripts/bench (payload): peak RSS over idle for a
  // 4 MiB argument went from 4.1x to 2.2x the payload, a 16 MiB refused line from 2.0x to 1.0x.
  ::mallopt(M_MMAP_THRESHOLD, 256 << 10);
  // A client that goes away must surface as EPIPE on write, not kill us mid-cleanup.
  ::signal(SIGPIPE, SIG_IGN);
  auto parsed = parse_options(argc, argv);
  if (!parsed.options) {
    std::cerr << "mcp-shell-host: " << parsed.error << "\nTry 'mcp-shell-host --help'.\n";
    return 2;
  }
  const Options& o = *parsed.options;
  if (o.show_help) {
    std::cout << usage();
    return 0;
  }
  if (o.show_version) {
    std::cout << "mcp-shell-host " << MCPSH_VERSION << "\n";
    return 0;
  }
  // A request passes through this thread (the event loop) and the threads it makes for
  // lines in and out: they run in short slices, to go first when a request wakes them
  // (adr/0024). The threads that start processes and the reload's thread leave them again.
  if (o.verb == Verb::kServe) mcpsh::execution::use_short_slices();
  int status = 0;
  switch (o.verb) {
    case Verb::kServe:
      status = o.http ? serve_http(o) : serve(o);
      break;
    case Verb::kList:
      status = list(o);
      break;
    case Verb::kCall:
      status = call(o);
      break;
    case Verb::kCheck:
      status = check(o);
      break;
    case Verb::kRead:
      status = read_resource(o);
      break;
    case Verb::kPrompt:
      status = get_prompt(o);
      break;
    case Verb::kConfig:
      status = client_config(o);
      break;
  }
  std::cout.flush();
  return status;
}
