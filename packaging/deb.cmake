# The Debian package (`cpack -G DEB`, run by scripts/package): the install rules above,
# under /usr. Depends: is what dpkg-shlibdeps finds the binary linked against (libc6,
# libstdc++6, libgcc-s1, Boost.Program_options), plus bash, which runs every tool;
# Recommends: jq, which the example tools and most scripts use to read their arguments;
# Suggests: bubblewrap, which the sandbox word isolate needs (ADR 0017).
set(CPACK_PACKAGE_NAME mcp-shell-host)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "mcp-shell-host")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "serve bash functions as Model Context Protocol tools, resources and prompts")
set(CPACK_PACKAGE_DESCRIPTION
    "mcp-shell-host turns bash scripts into an MCP server: each function tool_<name> is a tool,\n\
resource_<name> a resource, prompt_<name> a prompt. Calls run in fresh bash processes with\n\
timeouts, output limits and cancellation; stdio and Streamable HTTP are served.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "mcp-shell-host maintainers <maintainers@mcp-shell-host.invalid>")
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS bash)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS jq)
set(CPACK_DEBIAN_PACKAGE_SUGGESTS bubblewrap)
set(CPACK_GENERATOR DEB)
include(CPack)
