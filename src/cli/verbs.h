#pragma once
// One function per verb; each returns the process exit status.
#include "cli/options.h"

namespace mcpsh::cli {

int serve(const Options& options);
int list(const Options& options);
int call(const Options& options);
int check(const Options& options);

}  // namespace mcpsh::cli
