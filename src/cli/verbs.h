#pragma once
// One function per verb; each returns the process exit status.
#include "cli/options.h"

namespace mcpsh::cli {

int serve(const Options& options);
int serve_http(const Options& options);  // serve --http
int list(const Options& options);
int call(const Options& options);
int check(const Options& options);
int read_resource(const Options& options);  // read: resources/read of one URI
int get_prompt(const Options& options);     // prompt: prompts/get of one prompt
int client_config(const Options& options);  // config: a client's configuration snippet

}  // namespace mcpsh::cli
