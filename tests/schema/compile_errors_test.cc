// An invalid tool schema must be refused at startup with a message naming the problem
// and where it is.
#include <gtest/gtest.h>

#include <string>

#include "test_util.h"

namespace mcpsh::schema::testing {
namespace {

struct ErrorCase {
  const char* name;
  const char* schema;
  const char* expected;  // exact message, or a part of it if `exact` is false
  bool exact = true;
};

class CompileErrors : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(CompileErrors, Message) {
  const ErrorCase& c = GetParam();
  std::string error = compile_error(c.schema);
  if (c.exact) {
    EXPECT_EQ(error, c.expected);
  } else {
    EXPECT_NE(error.find(c.expected), std::string::npos) << error;
  }
}

const ErrorCase kErrors[] = {
    {"NotJson", R"({"type": )", "invalid schema: not valid JSON (Invalid value. at offset 9)"},
    {"NotASchema", "5", "invalid schema at #: a schema must be an object or a boolean, got number"},
    {"UnknownType", R"({"type": "int"})",
     R"(invalid schema at #: unknown type "int" in "type" (expected array, boolean, integer, null, number, object or string))"},
    {"LocationIsAPointer", R"({"properties": {"seats": {"maximum": "10"}}})",
     R"(invalid schema at #/properties/seats: "maximum" must be a number)"},
    {"PointerEscapes", R"({"properties": {"a/b~c": {"minimum": null}}})",
     R"(invalid schema at #/properties/a~1b~0c: "minimum" must be a number)"},
    {"NegativeLength", R"({"minLength": -1})",
     R"(invalid schema at #: "minLength" must be a non-negative integer)"},
    {"FractionalCount", R"({"maxItems": 1.5})",
     R"(invalid schema at #: "maxItems" must be a non-negative integer)"},
    {"MultipleOfZero", R"({"multipleOf": 0})",
     R"(invalid schema at #: "multipleOf" must be greater than 0)"},
    {"RequiredNotArray", R"({"required": "name"})",
     R"(invalid schema at #: "required" must be an array of strings)"},
    {"EnumNotArray", R"({"enum": "a"})", R"(invalid schema at #: "enum" must be an array)"},
    {"EmptyAllOf", R"({"allOf": []})",
     R"(invalid schema at #: "allOf" must be a non-empty array of schemas)"},
    {"PropertiesNotObject", R"({"properties": []})",
     R"(invalid schema at #: "properties" must be an object)"},
    {"PropertyNotSchema", R"({"properties": {"a": 5}})",
     "invalid schema at #/properties/a: a schema must be an object or a boolean, got number"},
    {"ItemsArrayIn2020", R"({"items": [{"type": "string"}]})",
     R"(invalid schema at #: "items" must be a schema; for tuples use "prefixItems" (2020-12))"},
    {"BadPattern", R"({"pattern": "("})",
     R"(invalid schema at #: "pattern" "(" is not a supported regular expression: missing ')')"},
    {"Backreference", R"({"pattern": "(a)\\1"})", "backreferences are not supported", false},
    {"Lookbehind", R"({"pattern": "(?<=a)b"})", "lookbehind assertions are not supported", false},
    {"UnknownUnicodeProperty", R"({"pattern": "\\p{Script=Greek}"})",
     "unsupported Unicode property \"Script=Greek\"", false},
    {"BadPatternPropertiesKey", R"({"patternProperties": {"[": {}}})",
     R"(invalid schema at #/patternProperties: key "[" is not a supported regular expression: unterminated character class)"},
    {"RemoteRef", R"({"$ref": "https://example.com/x.json"})",
     R"(unresolvable $ref "https://example.com/x.json" at #: no schema with "$id" "https://example.com/x.json" in this document (remote references are never fetched))"},
    {"RelativeRemoteRef",
     R"({"$id": "https://example.com/a/", "properties": {"x": {"$ref": "b.json"}}})",
     R"(unresolvable $ref "b.json" at #/properties/x: no schema with "$id" "https://example.com/a/b.json")",
     false},
    {"MissingPointerTarget", R"({"$ref": "#/$defs/missing"})",
     R"(unresolvable $ref "#/$defs/missing" at #: nothing at that JSON pointer)"},
    {"MissingAnchor", R"({"$ref": "#nope"})",
     R"(unresolvable $ref "#nope" at #: no anchor "nope")"},
    {"RefToNonSchema", R"({"$defs": {"a": {"enum": [1]}}, "$ref": "#/$defs/a/enum/0"})",
     "invalid schema at #/$defs/a/enum/0: a schema must be an object or a boolean, got number"},
    {"UnsupportedDialect", R"({"$schema": "http://json-schema.org/draft-04/schema#"})",
     R"(unsupported dialect "http://json-schema.org/draft-04/schema#" in "$schema" at # (supported: 2020-12, 2019-09, draft-07))"},
    {"CustomMetaschema", R"({"$schema": "https://example.com/my-meta"})", "unsupported dialect",
     false},
    {"RefCycle",
     R"({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"})",
     "invalid schema: reference cycle #/$defs/a -> #/$defs/b -> #/$defs/a applies a schema to the "
     "same value forever"},
    {"SelfRefThroughAllOf", R"({"allOf": [{"$ref": "#"}]})", "reference cycle", false},
    {"DuplicateId", R"({"$defs": {"a": {"$id": "https://x/a"}, "b": {"$id": "https://x/a"}}})",
     R"(invalid schema at #/$defs/b: duplicate "$id" "https://x/a")"},
    {"IdWithFragment", R"({"$defs": {"a": {"$id": "https://x/a#frag"}}})",
     R"(invalid schema at #/$defs/a: "$id" must not contain a fragment (use "$anchor"), got "https://x/a#frag")"},
    {"BadAnchor", R"({"$anchor": "1abc"})",
     R"(invalid schema at #: "$anchor" must be a name like "node" (letters, digits, -_.))"},
    {"DuplicateAnchor", R"({"$defs": {"a": {"$anchor": "x"}, "b": {"$anchor": "x"}}})",
     R"(invalid schema at #/$defs/b: duplicate anchor "x")"},
    {"RecursiveRefMustBeHash",
     R"({"$schema": "https://json-schema.org/draft/2019-09/schema", "$recursiveRef": "#/x"})",
     R"(invalid schema at #: "$recursiveRef" must be "#")"},
};

INSTANTIATE_TEST_SUITE_P(Schema, CompileErrors, ::testing::ValuesIn(kErrors),
                         [](const auto& info) { return std::string(info.param.name); });

struct AcceptedCase {
  const char* name;
  const char* schema;
};

class CompilesFine : public ::testing::TestWithParam<AcceptedCase> {};

TEST_P(CompilesFine, Compiles) { EXPECT_EQ(compile_error(GetParam().schema), "(compiled)"); }

const AcceptedCase kAccepted[] = {
    {"Empty", "{}"},
    {"True", "true"},
    {"Explicit2020", R"({"$schema": "https://json-schema.org/draft/2020-12/schema"})"},
    {"Explicit2019", R"({"$schema": "https://json-schema.org/draft/2019-09/schema"})"},
    {"Draft07", R"({"$schema": "http://json-schema.org/draft-07/schema#",
                    "items": [{"type": "string"}], "additionalItems": false})"},
    {"UnknownKeywordsAreAnnotations", R"({"x-ui": {"widget": 5}, "title": "T"})"},
    {"FormatIsAnAnnotation", R"({"format": "no-such-format"})"},
    {"MetaschemaRef", R"({"$ref": "https://json-schema.org/draft/2020-12/schema"})"},
    {"DefinitionsByPointer",
     R"({"definitions": {"a": {"type": "string"}}, "$ref": "#/definitions/a"})"},
    {"RecursionThroughChildren", R"({"properties": {"next": {"$ref": "#"}}})"},
    {"UnusedDefs", R"({"$defs": {"a": {"type": "string"}}})"},
};

INSTANTIATE_TEST_SUITE_P(Schema, CompilesFine, ::testing::ValuesIn(kAccepted),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(CompileErrors, UnusedDefinitionIsStillChecked) {
  EXPECT_EQ(compile_error(R"({"$defs": {"unused": {"$ref": "#/nowhere"}}})"),
            R"(unresolvable $ref "#/nowhere" at #/$defs/unused: nothing at that JSON pointer)");
}

}  // namespace
}  // namespace mcpsh::schema::testing
