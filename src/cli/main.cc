// mcp-shell-host: argv -> options -> verb. No logic beyond choosing the verb.
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "cli/options.h"
#include "cli/verbs.h"

int main(int argc, char** argv) {
  using namespace mcpsh::cli;
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
  int status = 0;
  switch (o.verb) {
    case Verb::kServe:
      status = serve(o);
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
  }
  std::cout.flush();
  return status;
}
