"""JSON-RPC request lines of the 2026-07-28 revision (every request carries its _meta)."""

import json

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "mcp-shell-host-bench", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
_META_JSON = json.dumps(META, separators=(",", ":"))


def request(req_id, method, params_json=""):
    """One request line (bytes, newline-terminated). params_json: members without braces."""
    params = (params_json + "," if params_json else "") + '"_meta":' + _META_JSON
    return ('{"jsonrpc":"2.0","id":%d,"method":"%s","params":{%s}}\n' % (req_id, method, params)).encode()


def call(req_id, tool, arguments_json="{}"):
    """A tools/call line; arguments_json is inserted verbatim, so megabytes cost one copy."""
    return request(req_id, "tools/call", '"name":"%s","arguments":%s' % (tool, arguments_json))


def read(req_id, uri):
    """A resources/read line."""
    return request(req_id, "resources/read", '"uri":%s' % json.dumps(uri))


def get_prompt(req_id, name, arguments_json="{}"):
    """A prompts/get line."""
    return request(req_id, "prompts/get", '"name":%s,"arguments":%s' % (json.dumps(name), arguments_json))


def listen(req_id, tools=True, prompts=True, resources=True):
    """A subscriptions/listen line for the list_changed kinds asked for."""
    wanted = {"toolsListChanged": tools, "promptsListChanged": prompts, "resourcesListChanged": resources}
    return request(req_id, "subscriptions/listen", '"notifications":' + json.dumps(wanted))


def nested(req_id, size):
    """A tools/list line of `size` bytes whose params hold one array nested as deep as fits."""
    head = '{"jsonrpc":"2.0","id":%d,"method":"tools/list","params":{"deep":' % req_id
    depth = (size - len(head) - len("}}\n")) // 2
    return (head + "[" * depth + "]" * depth + "}}\n").encode()


def tool_text(response):
    """The first text block of a CallToolResult, or None when the response is not one."""
    try:
        return response["result"]["content"][0]["text"]
    except (KeyError, IndexError, TypeError):
        return None


def listed(response, key, name):
    """Whether a list result's `key` array (tools, resources, prompts, ...) has an entry called name."""
    try:
        return any(entry.get("name") == name for entry in response["result"][key])
    except (KeyError, TypeError, AttributeError):
        return False


def resource_text(response):
    """The text of the first content of a ReadResourceResult, or None."""
    try:
        return response["result"]["contents"][0]["text"]
    except (KeyError, IndexError, TypeError):
        return None


def prompt_text(response):
    """The text of the first message of a GetPromptResult, or None."""
    try:
        return response["result"]["messages"][0]["content"]["text"]
    except (KeyError, IndexError, TypeError):
        return None


def image_size(response):
    """Bytes of the first image block of a CallToolResult (from its base64), or None."""
    try:
        for block in response["result"]["content"]:
            if block["type"] == "image":
                data = block["data"]
                return len(data) // 4 * 3 - data[-2:].count("=")
    except (KeyError, IndexError, TypeError):
        pass
    return None


def is_ok_result(response):
    r = response.get("result") if isinstance(response, dict) else None
    return isinstance(r, dict) and not r.get("isError", False)
