#pragma once
// One function per verb; each returns the process exit status.
#include "cli/options.h"

namespace mcpsh::cli {

int serve(const Options& options);
int serve_http(const Options& options);  // serve --http
int list(const Options& options);
int call(const Options& options);
int check(const Options& options);

}  // namespace mcpsh::cli
