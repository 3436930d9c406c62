// The exact wording of violations: what a language model reads after a bad tool call.
#include <gtest/gtest.h>

#include <string>

#include "test_util.h"

namespace mcpsh::schema::testing {
namespace {

struct MessageCase {
  const char* name;
  const char* schema;
  const char* instance;
  const char* expected;  // describe() output; "" = valid
};

class Messages : public ::testing::TestWithParam<MessageCase> {};

TEST_P(Messages, Wording) {
  const MessageCase& c = GetParam();
  EXPECT_EQ(check(compile_or_die(c.schema), c.instance), c.expected);
}

const MessageCase kCases[] = {
    // The wording examples from the product requirements.
    {"TypeMismatch", R"({"properties": {"numTickets": {"type": "integer"}}})",
     R"({"numTickets": "two"})", R"(numTickets: expected integer, got string "two")"},
    {"Maximum", R"({"properties": {"seats": {"maximum": 10}}})", R"({"seats": 11})",
     "seats: must be at most 10"},
    {"MissingRequired", R"({"required": ["showTime"]})", "{}",
     R"((root): missing required property "showTime")"},
    {"NestedPath",
     R"({"properties": {"seats": {"items": {"properties": {"row": {"type": "string"}}}}}})",
     R"({"seats": [{"row": "A"}, {"row": "B"}, {"row": 3}]})",
     "seats[2].row: expected string, got integer 3"},

    // Types.
    {"RootType", R"({"type": "object"})", "[]", "(root): expected object, got array"},
    {"TypeList", R"({"type": ["string", "null"]})", "5",
     "(root): expected string or null, got integer 5"},
    {"NumberIsNotInteger", R"({"type": "integer"})", "1.5",
     "(root): expected integer, got number 1.5"},
    {"OnePointZeroIsInteger", R"({"type": "integer"})", "1.0", ""},
    {"BooleanAndNull", R"({"type": "boolean"})", "null", "(root): expected boolean, got null"},
    {"GotBoolean", R"({"type": "string"})", "true", "(root): expected string, got boolean true"},
    {"GotObject", R"({"type": "array"})", "{}", "(root): expected array, got object"},

    // Values.
    {"Enum", R"({"enum": ["a", "b"]})", R"("c")", R"((root): must be one of "a", "b", got "c")"},
    {"EnumNumbersCompareMathematically", R"({"enum": [1, 2]})", "2.0", ""},
    {"Const", R"({"const": {"a": 1}})", R"({"a": 2})", R"((root): must be exactly {"a":1})"},
    {"LongStringIsCut", R"({"const": "x"})",
     R"("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")",
     R"((root): must be exactly "x")"},
    {"LongValueInEnumIsCut", R"({"enum": ["x"]})",
     R"("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")",
     R"((root): must be one of "x", got "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...")"},

    // Numbers.
    {"ExclusiveMaximum", R"({"exclusiveMaximum": 10})", "10", "(root): must be less than 10"},
    {"Minimum", R"({"minimum": 1})", "0", "(root): must be at least 1"},
    {"ExclusiveMinimum", R"({"exclusiveMinimum": 0})", "0", "(root): must be greater than 0"},
    {"MultipleOf", R"({"multipleOf": 5})", "12", "(root): must be a multiple of 5"},
    {"MultipleOfDecimal", R"({"multipleOf": 0.01})", "19.99", ""},
    {"DecimalLimit", R"({"maximum": 2.5})", "3", "(root): must be at most 2.5"},

    // Strings.
    {"MaxLengthCountsCodePoints", R"({"maxLength": 2})", R"("héé")",
     "(root): must be at most 2 characters long (got 3)"},
    {"MinLengthSingular", R"({"minLength": 1})", R"("")",
     "(root): must be at least 1 character long (got 0)"},
    {"Pattern", R"({"pattern": "^[a-z]+$"})", R"("Abc")",
     R"((root): must match the pattern "^[a-z]+$")"},
    {"PatternIsASearch", R"({"pattern": "b"})", R"("abc")", ""},

    // Arrays.
    {"MaxItems", R"({"maxItems": 1})", "[1, 2]", "(root): must have at most 1 item (got 2)"},
    {"MinItems", R"({"minItems": 2})", "[1]", "(root): must have at least 2 items (got 1)"},
    {"UniqueItems", R"({"uniqueItems": true})", "[1, 2, 1.0]",
     "(root): items must be unique, but items 0 and 2 are equal"},
    {"Contains", R"({"contains": {"type": "integer"}})", R"(["a"])",
     R"((root): must contain at least 1 item matching {"type":"integer"} (found 0))"},
    {"MaxContains", R"({"contains": {"const": 1}, "maxContains": 1})", "[1, 1]",
     R"((root): must contain at most 1 item matching {"const":1} (found 2))"},
    {"TupleTooLong", R"({"prefixItems": [{"type": "string"}], "items": false})", R"(["a", 1])",
     "(root): must have at most 1 item (got 2)"},
    {"EmptyArrayRequired", R"({"items": false})", "[1]",
     "(root): must be an empty array (got 1 item)"},
    {"UnevaluatedItems", R"({"prefixItems": [true], "unevaluatedItems": false})", "[1, 2]",
     "(root): unexpected item at index 1 (not allowed by the schema)"},
    {"RootIndexPath", R"({"items": {"type": "string"}})", R"(["a", 1])",
     "[1]: expected string, got integer 1"},

    // Objects.
    {"AdditionalPropertiesListsAllowed",
     R"({"properties": {"b": {}, "a": {}}, "additionalProperties": false})", R"({"a": 1, "c": 2})",
     R"((root): unexpected property "c" (allowed: "a", "b"))"},
    {"UnevaluatedProperties",
     R"({"allOf": [{"properties": {"a": true}}], "unevaluatedProperties": false})",
     R"({"a": 1, "b": 2})", R"((root): unexpected property "b")"},
    {"PropertyNames", R"({"propertyNames": {"pattern": "^[a-z]+$"}})", R"({"A": 1})",
     R"((root): invalid property name "A": must match the pattern "^[a-z]+$")"},
    {"DependentRequired", R"({"dependentRequired": {"a": ["b"]}})", R"({"a": 1})",
     R"((root): missing property "b", required when "a" is present)"},
    {"MaxProperties", R"({"maxProperties": 1})", R"({"a": 1, "b": 2})",
     "(root): must have at most 1 property (got 2)"},
    {"MinProperties", R"({"minProperties": 2})", R"({"a": 1})",
     "(root): must have at least 2 properties (got 1)"},
    {"FalseProperty", R"({"properties": {"a": false}})", R"({"a": 1})", "a: not allowed here"},
    {"QuotedPathSegment", R"({"properties": {"a b": {"properties": {"c.d": {"type": "null"}}}}})",
     R"({"a b": {"c.d": 1}})", R"(["a b"]["c.d"]: expected null, got integer 1)"},

    // Applicators.
    {"Not", R"({"not": {"type": "string"}})", R"("x")",
     R"((root): must not match {"type":"string"})"},
    {"AnyOfTypes", R"({"anyOf": [{"type": "string"}, {"type": "null"}]})", "5",
     "(root): expected string or null, got integer 5"},
    {"AnyOfValues", R"({"anyOf": [{"const": "a"}, {"enum": ["b", "c"]}]})", R"("d")",
     R"((root): must be one of "a", "b", "c")"},
    {"AnyOfSingleCandidate",
     R"({"anyOf": [{"type": "string"}, {"type": "object", "required": ["id"]}]})", "{}",
     R"((root): missing required property "id")"},
    {"OneOfDiscriminatorPicksBranch",
     R"({"oneOf": [
          {"properties": {"kind": {"const": "circle"}, "r": {"type": "number"}}, "required": ["r"]},
          {"properties": {"kind": {"const": "rect"}, "w": {"type": "number"}}, "required": ["w"]}]})",
     R"({"kind": "rect"})", R"((root): missing required property "w")"},
    {"OneOfDiscriminatorWrong",
     R"({"oneOf": [
          {"properties": {"kind": {"const": "circle"}}, "required": ["r"]},
          {"properties": {"kind": {"const": "rect"}}, "required": ["w"]}]})",
     R"({"kind": "tri"})", R"(kind: must be one of "circle", "rect")"},
    {"AnyOfNoCandidateStandsOut", R"({"anyOf": [{"required": ["x"]}, {"required": ["y"]}]})", "{}",
     "(root): must match one of the 2 alternatives in anyOf, but matches none; closest "
     "failures follow\n"
     "(root): missing required property \"x\" (in anyOf[0])\n"
     "(root): missing required property \"y\" (in anyOf[1])"},
    {"OneOfTooMany", R"({"oneOf": [{"type": "integer"}, {"minimum": 2}]})", "3",
     "(root): must match exactly one alternative in oneOf, but matches oneOf[0] and oneOf[1]"},
    {"IfThenElseReportsBranch",
     R"({"if": {"properties": {"a": {"const": 1}}}, "then": {"required": ["b"]},
         "else": {"required": ["c"]}})",
     R"({"a": 1})", R"((root): missing required property "b")"},
    {"RefKeepsInstancePath",
     R"({"$defs": {"row": {"type": "string"}}, "properties": {"r": {"$ref": "#/$defs/row"}}})",
     R"({"r": 1})", "r: expected string, got integer 1"},
    {"FalseRoot", "false", "1", "(root): not allowed here"},

    // All violations, in instance order.
    {"CollectsAll",
     R"({"type": "object", "required": ["a", "b"],
         "properties": {"x": {"type": "string"}, "y": {"minimum": 0}}})",
     R"({"x": 1, "y": -1})",
     "(root): missing required property \"a\"\n"
     "(root): missing required property \"b\"\n"
     "x: expected string, got integer 1\n"
     "y: must be at least 0"},
};

INSTANTIATE_TEST_SUITE_P(Schema, Messages, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(Describe, RootIsNamedAndLinesAreJoined) {
  EXPECT_EQ(describe({{"", "a"}, {"x[1]", "b"}}), "(root): a\nx[1]: b");
  EXPECT_EQ(describe({}), "");
}

}  // namespace
}  // namespace mcpsh::schema::testing
