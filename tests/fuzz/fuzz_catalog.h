#pragma once
// The in-memory catalog the line target serves: one tool per shape the protocol treats
// differently (input schema with a pattern, output schema, no arguments, a per-tool
// timeout, advertised but not implemented), resources (a fixed URI and two
// templates), a prompt, completers for the prompt and a template, and a server profile.
#include "discovery/catalog.h"

namespace mcpsh::fuzz {

const discovery::Catalog& fuzz_catalog();

}  // namespace mcpsh::fuzz
