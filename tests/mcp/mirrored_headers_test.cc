// The headers an HTTP client mirrors from a modern request (MCP-Protocol-Version,
// Mcp-Method, Mcp-Name, Mcp-Param-*) are checked against its body before anything runs,
// in the order mirrored_headers.h tabulates (the conformance suite's order): a mismatch is
// -32020 with the request's id and a message naming the header and both values.
#include <gtest/gtest.h>

#include "http_core.h"

namespace mcpsh::testing {
namespace {

constexpr int kHeaderMismatch = -32020;
constexpr int kUnsupportedVersion = -32022;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;

std::string message_of(const std::string& line) {
  auto d = parse(line);
  return d.IsObject() && d.HasMember("error") ? d["error"]["message"].GetString() : "";
}

std::string first(const std::shared_ptr<RecordingConnection>& c) {
  return c->lines.empty() ? "" : c->lines.front();
}

// A deploy call that passed every header check: it was handed to the runner.
void expect_runs(HttpCore& http, const std::shared_ptr<RecordingConnection>& c) {
  EXPECT_TRUE(c->lines.empty()) << (c->lines.empty() ? "" : c->lines.front());
  EXPECT_EQ(http.last_handled, mcp::Handled::kPending);
  EXPECT_EQ(http.h.runner.runs.size(), 1u);
}

// A request refused for its headers: -32020 with its id, naming `header`, nothing run.
void expect_mismatch(HttpCore& http, const std::shared_ptr<RecordingConnection>& c,
                     const std::string& header) {
  ASSERT_EQ(c->lines.size(), 1u);
  EXPECT_EQ(error_code(c->lines[0]), kHeaderMismatch) << c->lines[0];
  EXPECT_EQ(id_of(c->lines[0]), "9");
  EXPECT_NE(message_of(first(c)).find(header), std::string::npos) << c->lines[0];
  ASSERT_TRUE(c->kinds[0].error_code.has_value());
  EXPECT_EQ(*c->kinds[0].error_code, kHeaderMismatch);
  EXPECT_TRUE(http.h.runner.runs.empty());
}

TEST(MirroredHeaders, AModernRequestWhoseHeadersMatchIsServed) {
  HttpCore http;
  auto line = http.ask(modern("9", "tools/list"), modern_headers("tools/list"));
  EXPECT_EQ(error_code(line), 0) << line;
  EXPECT_TRUE(parse(line)["result"].HasMember("tools"));
  auto call = http.post(modern_call("9", "echo"), modern_headers("tools/call", "echo"));
  expect_runs(http, call);
}

// ---- MCP-Protocol-Version ------------------------------------------------------------------

TEST(MirroredHeaders, AModernBodyWithoutTheVersionHeaderIsAMismatch) {
  HttpCore http;
  auto headers = modern_headers("tools/list");
  headers.protocol_version.reset();
  auto c = http.post(modern("9", "tools/list"), headers);
  expect_mismatch(http, c, "MCP-Protocol-Version");
}

TEST(MirroredHeaders, AVersionHeaderThatDiffersFromTheBodyIsAMismatchEvenWhenTheBodyIsUnsupported) {
  HttpCore http;
  // server-stateless: header 2026-07-28, body v999.0.0 → -32020, not -32022.
  auto c =
      http.post(modern("9", "server/discover", "", "v999.0.0"), modern_headers("server/discover"));
  expect_mismatch(http, c, "MCP-Protocol-Version");
  EXPECT_EQ(message_of(first(c)),
            "Header mismatch: MCP-Protocol-Version header value '2026-07-28' does not match body "
            "value 'v999.0.0'");
  // A legacy version in the header of a modern body is a mismatch too.
  auto legacy = modern_headers("tools/list");
  legacy.protocol_version = "2025-11-25";
  expect_mismatch(http, http.post(modern("9", "tools/list"), legacy), "MCP-Protocol-Version");
}

TEST(MirroredHeaders, TheSameUnsupportedVersionInHeaderAndBodyIsUnsupported) {
  HttpCore http;
  auto headers = modern_headers("server/discover");
  headers.protocol_version = "v999.0.0";
  auto line = http.ask(modern("9", "server/discover", "", "v999.0.0"), headers);
  ASSERT_EQ(error_code(line), kUnsupportedVersion) << line;
  EXPECT_EQ(id_of(line), "9");
  EXPECT_STREQ(parse(line)["error"]["data"]["requested"].GetString(), "v999.0.0");
}

TEST(MirroredHeaders, AModernVersionHeaderOverABodyWithoutMetaIsAnInvalidModernRequest) {
  HttpCore http;
  // server-stateless: missing _meta, or _meta without the version → -32602, not legacy.
  for (const std::string& params :
       {std::string(""),
        std::string(R"("_meta":{"io.modelcontextprotocol/clientCapabilities":{}})")}) {
    auto line =
        http.ask(request("9", "server/discover", params), modern_headers("server/discover"));
    EXPECT_EQ(error_code(line), kInvalidParams) << line;
    EXPECT_EQ(id_of(line), "9");
  }
}

// ---- Mcp-Method ------------------------------------------------------------------------------

TEST(MirroredHeaders, McpMethodIsRequiredAndComparedExactly) {
  HttpCore http;
  auto none = modern_headers("tools/list");
  none.method.reset();
  expect_mismatch(http, http.post(modern("9", "tools/list"), none), "Mcp-Method");
  expect_mismatch(http, http.post(modern("9", "tools/list"), modern_headers("prompts/list")),
                  "Mcp-Method");
  // Values are case-sensitive.
  expect_mismatch(http, http.post(modern("9", "tools/list"), modern_headers("TOOLS/LIST")),
                  "Mcp-Method");
}

TEST(MirroredHeaders, WhitespaceAroundAHeaderValueIsNotPartOfIt) {
  HttpCore http;
  auto headers = modern_headers(" tools/call\t", "  echo  ");
  headers.protocol_version = " 2026-07-28 ";
  expect_runs(http, http.post(modern_call("9", "echo"), headers));
}

TEST(MirroredHeaders, AnUnknownOrRemovedMethodIsMethodNotFoundWhateverItsHeaders) {
  HttpCore http;
  for (const char* method : {"unknown/method", "initialize", "ping", "logging/setLevel"}) {
    for (const char* header : {method, "tools/list"}) {
      auto line = http.ask(modern("9", method), modern_headers(header));
      EXPECT_EQ(error_code(line), kMethodNotFound) << method << " / " << header << ": " << line;
      EXPECT_EQ(id_of(line), "9");
    }
  }
}

// ---- Mcp-Name --------------------------------------------------------------------------------

TEST(MirroredHeaders, McpNameIsRequiredForToolsCallAndMustNameTheTool) {
  HttpCore http;
  expect_mismatch(http, http.post(modern_call("9", "echo"), modern_headers("tools/call")),
                  "Mcp-Name");
  auto c = http.post(modern_call("9", "echo"), modern_headers("tools/call", "foo"));
  expect_mismatch(http, c, "Mcp-Name");
  EXPECT_EQ(message_of(first(c)),
            "Header mismatch: Mcp-Name header value 'foo' does not match body value 'echo'");
  expect_mismatch(http, http.post(modern_call("9", "echo"), modern_headers("tools/call", "ECHO")),
                  "Mcp-Name");
}

TEST(MirroredHeaders, AnEncodedMcpNameIsDecodedBeforeTheComparison) {
  HttpCore http;
  // "echo" in base64.
  expect_runs(http, http.post(modern_call("9", "echo"),
                              modern_headers("tools/call", "=?base64?ZWNobw==?=")));
  HttpCore bad;
  auto c = bad.post(modern_call("9", "echo"), modern_headers("tools/call", "=?base64?ZWNobw?="));
  expect_mismatch(bad, c, "Mcp-Name");
  EXPECT_NE(message_of(first(c)).find("not a valid header value"), std::string::npos);
}

TEST(MirroredHeaders, AnUnknownToolIsRefusedAsSuchOnceItsNameHeaderMatches) {
  HttpCore http;
  auto headers = modern_headers("tools/call", "nope");
  headers.params = {{"Region", "x"}};
  auto line = http.ask(modern_call("9", "nope"), headers);
  EXPECT_EQ(error_code(line), kInvalidParams) << line;
  EXPECT_NE(message_of(line).find("Tool not found"), std::string::npos) << line;
}

// ---- Mcp-Param-{Name} ------------------------------------------------------------------------

TEST(MirroredHeaders, AnnotatedArgumentsMustBeMirrored) {
  HttpCore http;
  expect_runs(http, http.deploy(R"({"region":"us-west1","note":"n"})", {{"Region", "us-west1"}}));
  HttpCore missing;
  auto c = missing.deploy(R"({"region":"us-west1"})", {});
  expect_mismatch(missing, c, "Mcp-Param-Region");
  EXPECT_EQ(message_of(first(c)),
            "Header mismatch: Mcp-Param-Region header is missing; body value 'us-west1'");
  HttpCore differs;
  expect_mismatch(differs, differs.deploy(R"({"region":"us-west1"})", {{"Region", "us-east1"}}),
                  "Mcp-Param-Region");
}

TEST(MirroredHeaders, ParamHeaderNamesIgnoreCase) {
  HttpCore http;
  expect_runs(http, http.deploy(R"({"region":"eu","dry":false})",
                                {{"REGION", "eu"}, {"dry-run", "false"}}));
}

TEST(MirroredHeaders, AbsentOrNullArgumentsNeedNoHeaderAndMayNotHaveOne) {
  HttpCore http;
  expect_runs(http, http.deploy(R"({"target":{"zone":null}})", {}));
  HttpCore extra;
  expect_mismatch(extra, extra.deploy(R"({})", {{"Region", "eu"}}), "Mcp-Param-Region");
  HttpCore null_with_header;
  expect_mismatch(null_with_header,
                  null_with_header.deploy(R"({"target":{"zone":null}})", {{"Zone", "null"}}),
                  "Mcp-Param-Zone");
}

TEST(MirroredHeaders, HeadersForPropertiesNobodyAnnotatedAreIgnored) {
  HttpCore http;
  expect_runs(http, http.deploy(R"({"note":"n"})", {{"Note", "something else"}}));
}

TEST(MirroredHeaders, ANestedPropertyIsFoundByItsExactPath) {
  HttpCore http;
  expect_runs(http, http.deploy(R"({"target":{"zone":"b"}})", {{"Zone", "b"}}));
  HttpCore differs;
  expect_mismatch(differs, differs.deploy(R"({"target":{"zone":"b"}})", {{"Zone", "c"}}),
                  "Mcp-Param-Zone");
  // Only that path counts: a top-level "zone" is not the annotated property.
  HttpCore elsewhere;
  expect_runs(elsewhere, elsewhere.deploy(R"({"zone":"b"})", {}));
}

TEST(MirroredHeaders, IntegersCompareNumerically) {
  for (const char* header : {"42", "42.0", "4.2e1", " 42 "}) {
    HttpCore http;
    expect_runs(http, http.deploy(R"({"replicas":42})", {{"Replicas", header}}));
  }
  for (const char* header : {"43", "0x2A", "42abc", "", "forty-two", "+42"}) {
    HttpCore http;
    expect_mismatch(http, http.deploy(R"({"replicas":42})", {{"Replicas", header}}),
                    "Mcp-Param-Replicas");
  }
  HttpCore body_float;
  expect_runs(body_float, body_float.deploy(R"({"replicas":42.0})", {{"Replicas", "42"}}));
  HttpCore negative;
  expect_runs(negative, negative.deploy(R"({"replicas":-7})", {{"Replicas", "-7"}}));
}

TEST(MirroredHeaders, BooleansAreLowercaseWords) {
  HttpCore yes;
  expect_runs(yes, yes.deploy(R"({"dry":true})", {{"Dry-Run", "true"}}));
  for (const char* header : {"True", "1", "false"}) {
    HttpCore http;
    expect_mismatch(http, http.deploy(R"({"dry":true})", {{"Dry-Run", header}}),
                    "Mcp-Param-Dry-Run");
  }
}

TEST(MirroredHeaders, ParamValuesAreDecodedAsTheConformanceSuiteSendsThem) {
  // http-custom-header-server-validation's cases, body value first.
  struct Case {
    const char* body;
    const char* header;
    bool accepted;
  };
  const Case cases[] = {
      {"Hello", "=?base64?SGVsbG8=?=", true},            // valid base64
      {"Hello", "=?base64?SGVsbG8?=", false},            // padding missing
      {"Hello", "=?base64?SGVs!!!bG8=?=", false},        // outside the alphabet
      {"SGVsbG8=", "SGVsbG8=", true},                    // no markers: literal
      {"=?base64?SGVsbG8=", "=?base64?SGVsbG8=", true},  // no suffix: literal
      // The spec's encoding table.
      {"Hello, \u4e16\u754c", "=?base64?SGVsbG8sIOS4lueVjA==?=", true},
      {" padded ", "=?base64?IHBhZGRlZCA=?=", true},
      {"line1\\nline2", "=?base64?bGluZTEKbGluZTI=?=", true},
      {"=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=", true},
      // Markers are case-sensitive: an uppercase one is a literal that differs.
      {"Hello", "=?BASE64?SGVsbG8=?=", false},
      // An empty encoded value.
      {"",
       "=?base64?"
       "?=",
       true},
  };
  for (const auto& c : cases) {
    HttpCore http;
    auto conn = http.deploy(std::string(R"({"region":")") + c.body + "\"}", {{"Region", c.header}});
    if (c.accepted) {
      EXPECT_TRUE(conn->lines.empty()) << c.header << ": " << first(conn);
    } else {
      ASSERT_EQ(conn->lines.size(), 1u) << c.header;
      EXPECT_EQ(error_code(conn->lines[0]), kHeaderMismatch) << c.header;
    }
  }
}

TEST(MirroredHeaders, AParamHeaderWithCharactersAFieldValueMayNotHoldIsRefused) {
  for (const char* header : {"eu\x01", "eu\x7f", "\xc3\xa9u"}) {
    HttpCore http;
    auto c = http.deploy(R"({"region":"eu"})", {{"Region", header}});
    expect_mismatch(http, c, "Mcp-Param-Region");
  }
  // The body's "é" arrives base64-encoded.
  HttpCore encoded;
  expect_runs(encoded,
              encoded.deploy("{\"region\":\"\xc3\xa9u\"}", {{"Region", "=?base64?w6l1?="}}));
}

TEST(MirroredHeaders, AnArgumentOfTheWrongShapeCannotBeMirrored) {
  HttpCore http;
  expect_mismatch(http, http.deploy(R"({"region":{"a":1}})", {{"Region", "{\"a\":1}"}}),
                  "Mcp-Param-Region");
}

// ---- the transports that mirror nothing ------------------------------------------------------

TEST(MirroredHeaders, StdioIsUnchanged) {
  HttpCore http;
  auto c = http.h.connect();  // mirrored unset, as on stdio
  http.h.core->handle(c, modern_call("9", "deploy", R"({"region":"eu","replicas":3})"));
  EXPECT_TRUE(c->lines.empty());
  EXPECT_EQ(http.h.runner.runs.size(), 1u);
  // No stateless legacy era either: without initialize, legacy methods do not exist.
  auto d = http.h.connect();
  http.h.core->handle(d, request("10", "ping", ""));
  ASSERT_EQ(d->lines.size(), 1u);
  EXPECT_EQ(error_code(d->lines[0]), kMethodNotFound);
}

}  // namespace
}  // namespace mcpsh::testing
