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
