#include "fuzz_catalog.h"

namespace mcpsh::fuzz {

const discovery::Catalog& fuzz_catalog() {
  static const discovery::Catalog catalog = [] {
    discovery::Catalog c;
    c.tools.push_back({"echo",
                       "/fuzz/echo.sh",
                       R"({"name":"echo","description":"Echoes","inputSchema":{"type":"object",)"
                       R"("properties":{"text":{"type":"string","maxLength":64,)"
                       R"("pattern":"^[a-z ]*$"},"n":{"type":"integer","minimum":0},)"
                       R"("stdout":{"type":"string"}},"required":["text"]}})",
                       true,
                       {}});
    c.tools.push_back(
        {"structured",
         "/fuzz/structured.sh",
         R"({"name":"structured","title":"Structured","inputSchema":{"type":"object"},)"
         R"("outputSchema":{"type":"object","properties":{"v":{"type":"number"},)"
         R"("tags":{"type":"array","items":{"type":"string"}}},"required":["v"]}})",
         true,
         {}});
    c.tools.push_back({"free", "/fuzz/free.sh",
                       R"({"name":"free","inputSchema":{"type":"object"}})", true,
                       std::chrono::milliseconds(1500)});
    c.tools.push_back({"ghost",
                       "/fuzz/free.sh",
                       R"({"name":"ghost","inputSchema":{"type":"object"}})",
                       false,
                       {}});
    // Resources: a fixed URI, a template with a query expansion, and a reserved-expansion
    // template with its own timeout (a read's "$1" reaches the fake runner as arguments);
    // a prompt with a required and an optional argument; completers for the prompt and a
    // template.
    c.resources.push_back({"readme",
                           "/fuzz/docs.sh",
                           "docs://readme",
                           false,
                           R"({"uri":"docs://readme","name":"readme","mimeType":"text/markdown"})",
                           "text/markdown",
                           {},
                           {}});
    c.resources.push_back({"users",
                           "/fuzz/docs.sh",
                           "users://{id}/profile{?fields*}",
                           true,
                           R"({"uriTemplate":"users://{id}/profile{?fields*}","name":"users"})",
                           "",
                           {},
                           {}});
    c.resources.push_back({"files",
                           "/fuzz/docs.sh",
                           "files:///{+path}",
                           true,
                           R"({"uriTemplate":"files:///{+path}","name":"files"})",
                           "application/octet-stream",
                           std::chrono::milliseconds(1500),
                           {}});
    c.prompts.push_back({"review",
                         "/fuzz/docs.sh",
                         R"({"name":"review","arguments":[{"name":"file","required":true},)"
                         R"({"name":"focus","required":false}]})",
                         {{"file", true}, {"focus", false}},
                         {}});
    c.completers.push_back({"review", "/fuzz/docs.sh"});
    c.completers.push_back({"users", "/fuzz/docs.sh"});
    discovery::ServerProfile profile;
    profile.source = "fuzz";
    profile.server_info = R"({"name":"fuzz","version":"1.0.0"})";
    profile.instructions = "Fuzzing.";
    c.profile = profile;
    return c;
  }();
  return catalog;
}

}  // namespace mcpsh::fuzz
