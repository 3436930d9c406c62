#include "schema/metaschema.h"

#include <array>

// Text of the normative documents published at https://json-schema.org/draft/2020-12/
// (the metaschema and the vocabulary metaschemas it references), minified; unchanged
// otherwise. Copied from the copy shipped with python jsonschema-specifications 2025.9.1.

namespace mcpsh::schema::detail {
namespace {

constexpr std::array kMetaschemas{
    EmbeddedSchema{
        "https://json-schema.org/draft/2020-12/schema",
        R"json({"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://json-schema.org)json"
        R"json(/draft/2020-12/schema","$vocabulary":{"https://json-schema.org/draft/2020-12/vocab/core")json"
        R"json(:true,"https://json-schema.org/draft/2020-12/vocab/applicator":true,"https://json-schema)json"
        R"json(.org/draft/2020-12/vocab/unevaluated":true,"https://json-schema.org/draft/2020-12/vocab/)json"
        R"json(validation":true,"https://json-schema.org/draft/2020-12/vocab/meta-data":true,"https://j)json"
        R"json(son-schema.org/draft/2020-12/vocab/format-annotation":true,"https://json-schema.org/draf)json"
        R"json(t/2020-12/vocab/content":true},"$dynamicAnchor":"meta","title":"Core and Validation spec)json"
        R"json(ifications meta-schema","allOf":[{"$ref":"meta/core"},{"$ref":"meta/applicator"},{"$ref")json"
        R"json(:"meta/unevaluated"},{"$ref":"meta/validation"},{"$ref":"meta/meta-data"},{"$ref":"meta/)json"
        R"json(format-annotation"},{"$ref":"meta/content"}],"type":["object","boolean"],"$comment":"Thi)json"
        R"json(s meta-schema also defines keywords that have appeared in previous drafts in order to pr)json"
        R"json(event incompatible extensions as they remain in common use.","properties":{"definitions")json"
        R"json(:{"$comment":"\"definitions\" has been replaced by \"$defs\".","type":"object","addition)json"
        R"json(alProperties":{"$dynamicRef":"#meta"},"deprecated":true,"default":{}},"dependencies":{"$)json"
        R"json(comment":"\"dependencies\" has been split and replaced by \"dependentSchemas\" and \"dep)json"
        R"json(endentRequired\" in order to serve their differing semantics.","type":"object","addition)json"
        R"json(alProperties":{"anyOf":[{"$dynamicRef":"#meta"},{"$ref":"meta/validation#/$defs/stringAr)json"
        R"json(ray"}]},"deprecated":true,"default":{}},"$recursiveAnchor":{"$comment":"\"$recursiveAnch)json"
        R"json(or\" has been replaced by \"$dynamicAnchor\".","$ref":"meta/core#/$defs/anchorString","d)json"
        R"json(eprecated":true},"$recursiveRef":{"$comment":"\"$recursiveRef\" has been replaced by \"$)json"
        R"json(dynamicRef\".","$ref":"meta/core#/$defs/uriReferenceString","deprecated":true}}})json"},
    EmbeddedSchema{
        "https://json-schema.org/draft/2020-12/meta/core",
        R"json({"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://json-schema.org)json"
        R"json(/draft/2020-12/meta/core","$vocabulary":{"https://json-schema.org/draft/2020-12/vocab/co)json"
        R"json(re":true},"$dynamicAnchor":"meta","title":"Core vocabulary meta-schema","type":["object")json"
        R"json(,"boolean"],"properties":{"$id":{"$ref":"#/$defs/uriReferenceString","$comment":"Non-emp)json"
        R"json(ty fragments not allowed.","pattern":"^[^#]*#?$"},"$schema":{"$ref":"#/$defs/uriString"})json"
        R"json(,"$ref":{"$ref":"#/$defs/uriReferenceString"},"$anchor":{"$ref":"#/$defs/anchorString"},)json"
        R"json("$dynamicRef":{"$ref":"#/$defs/uriReferenceString"},"$dynamicAnchor":{"$ref":"#/$defs/an)json"
        R"json(chorString"},"$vocabulary":{"type":"object","propertyNames":{"$ref":"#/$defs/uriString"})json"
        R"json(,"additionalProperties":{"type":"boolean"}},"$comment":{"type":"string"},"$defs":{"type")json"
        R"json(:"object","additionalProperties":{"$dynamicRef":"#meta"}}},"$defs":{"anchorString":{"typ)json"
        R"json(e":"string","pattern":"^[A-Za-z_][-A-Za-z0-9._]*$"},"uriString":{"type":"string","format)json"
        R"json(":"uri"},"uriReferenceString":{"type":"string","format":"uri-reference"}}})json"},
    EmbeddedSchema{
        "https://json-schema.org/draft/2020-12/meta/applicator",
        R"json({"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://json-schema.org)json"
        R"json(/draft/2020-12/meta/applicator","$vocabulary":{"https://json-schema.org/draft/2020-12/vo)json"
        R"json(cab/applicator":true},"$dynamicAnchor":"meta","title":"Applicator vocabulary meta-schema)json"
        R"json(","type":["object","boolean"],"properties":{"prefixItems":{"$ref":"#/$defs/schemaArray"})json"
        R"json(,"items":{"$dynamicRef":"#meta"},"contains":{"$dynamicRef":"#meta"},"additionalPropertie)json"
        R"json(s":{"$dynamicRef":"#meta"},"properties":{"type":"object","additionalProperties":{"$dynam)json"
        R"json(icRef":"#meta"},"default":{}},"patternProperties":{"type":"object","additionalProperties)json"
        R"json(":{"$dynamicRef":"#meta"},"propertyNames":{"format":"regex"},"default":{}},"dependentSch)json"
        R"json(emas":{"type":"object","additionalProperties":{"$dynamicRef":"#meta"},"default":{}},"pro)json"
        R"json(pertyNames":{"$dynamicRef":"#meta"},"if":{"$dynamicRef":"#meta"},"then":{"$dynamicRef":")json"
        R"json(#meta"},"else":{"$dynamicRef":"#meta"},"allOf":{"$ref":"#/$defs/schemaArray"},"anyOf":{")json"
        R"json($ref":"#/$defs/schemaArray"},"oneOf":{"$ref":"#/$defs/schemaArray"},"not":{"$dynamicRef")json"
        R"json(:"#meta"}},"$defs":{"schemaArray":{"type":"array","minItems":1,"items":{"$dynamicRef":"#)json"
        R"json(meta"}}}})json"},
    EmbeddedSchema{
        "https://json-schema.org/draft/2020-12/meta/unevaluated",
        R"json({"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://json-schema.org)json"
        R"json(/draft/2020-12/meta/unevaluated","$vocabulary":{"https://json-schema.org/draft/2020-12/v)json"
        R"json(ocab/unevaluated":true},"$dynamicAnchor":"meta","title":"Unevaluated applicator vocabula)json"
        R"json(ry meta-schema","type":["object","boolean"],"properties":{"unevaluatedItems":{"$dynamicR)json"
        R"json(ef":"#meta"},"unevaluatedProperties":{"$dynamicRef":"#meta"}}})json"},
    EmbeddedSchema{
        "https://json-schema.org/draft/2020-12/meta/validation",
        R"json({"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://json-schema.org)json"
        R"json(/draft/2020-12/meta/validation","$vocabulary":{"https://json-schema.org/draft/2020-12/vo)json"
        R"json(cab/validation":true},"$dynamicAnchor":"meta","title":"Validation vocabulary meta-schema)json"
        R"json(","type":["object","boolean"],"properties":{"type":{"anyOf":[{"$ref":"#/$defs/simpleType)json"
        R"json(s"},{"type":"array","items":{"$ref":"#/$defs/simpleTypes"},"minItems":1,"uniqueItems":tr)json"
        R"json(ue}]},"const":true,"enum":{"type":"array","items":true},"multipleOf":{"type":"number","e)json"
        R"json(xclusiveMinimum":0},"maximum":{"type":"number"},"exclusiveMaximum":{"type":"number"},"mi)json"
        R"json(nimum":{"type":"number"},"exclusiveMinimum":{"type":"number"},"maxLength":{"$ref":"#/$de)json"
        R"json(fs/nonNegativeInteger"},"minLength":{"$ref":"#/$defs/nonNegativeIntegerDefault0"},"patte)json"
        R"json(rn":{"type":"string","format":"regex"},"maxItems":{"$ref":"#/$defs/nonNegativeInteger"},)json"
        R"json("minItems":{"$ref":"#/$defs/nonNegativeIntegerDefault0"},"uniqueItems":{"type":"boolean")json"
        R"json(,"default":false},"maxContains":{"$ref":"#/$defs/nonNegativeInteger"},"minContains":{"$r)json"
        R"json(ef":"#/$defs/nonNegativeInteger","default":1},"maxProperties":{"$ref":"#/$defs/nonNegati)json"
        R"json(veInteger"},"minProperties":{"$ref":"#/$defs/nonNegativeIntegerDefault0"},"required":{"$)json"
        R"json(ref":"#/$defs/stringArray"},"dependentRequired":{"type":"object","additionalProperties":)json"
        R"json({"$ref":"#/$defs/stringArray"}}},"$defs":{"nonNegativeInteger":{"type":"integer","minimu)json"
        R"json(m":0},"nonNegativeIntegerDefault0":{"$ref":"#/$defs/nonNegativeInteger","default":0},"si)json"
        R"json(mpleTypes":{"enum":["array","boolean","integer","null","number","object","string"]},"str)json"
        R"json(ingArray":{"type":"array","items":{"type":"string"},"uniqueItems":true,"default":[]}}})json"},
    EmbeddedSchema{
        "https://json-schema.org/draft/2020-12/meta/meta-data",
        R"json({"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://json-schema.org)json"
        R"json(/draft/2020-12/meta/meta-data","$vocabulary":{"https://json-schema.org/draft/2020-12/voc)json"
        R"json(ab/meta-data":true},"$dynamicAnchor":"meta","title":"Meta-data vocabulary meta-schema",")json"
        R"json(type":["object","boolean"],"properties":{"title":{"type":"string"},"description":{"type")json"
        R"json(:"string"},"default":true,"deprecated":{"type":"boolean","default":false},"readOnly":{"t)json"
        R"json(ype":"boolean","default":false},"writeOnly":{"type":"boolean","default":false},"examples)json"
        R"json(":{"type":"array","items":true}}})json"},
    EmbeddedSchema{
        "https://json-schema.org/draft/2020-12/meta/format-annotation",
        R"json({"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://json-schema.org)json"
        R"json(/draft/2020-12/meta/format-annotation","$vocabulary":{"https://json-schema.org/draft/202)json"
        R"json(0-12/vocab/format-annotation":true},"$dynamicAnchor":"meta","title":"Format vocabulary m)json"
        R"json(eta-schema for annotation results","type":["object","boolean"],"properties":{"format":{")json"
        R"json(type":"string"}}})json"},
    EmbeddedSchema{
        "https://json-schema.org/draft/2020-12/meta/content",
        R"json({"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://json-schema.org)json"
        R"json(/draft/2020-12/meta/content","$vocabulary":{"https://json-schema.org/draft/2020-12/vocab)json"
        R"json(/content":true},"$dynamicAnchor":"meta","title":"Content vocabulary meta-schema","type":)json"
        R"json(["object","boolean"],"properties":{"contentEncoding":{"type":"string"},"contentMediaType)json"
        R"json(":{"type":"string"},"contentSchema":{"$dynamicRef":"#meta"}}})json"},
};

}  // namespace

std::span<const EmbeddedSchema> metaschemas_2020_12() { return kMetaschemas; }

}  // namespace mcpsh::schema::detail
