# The Node.js that tests/wire and tests/clients run on: the pinned one in tests/node (which
# scripts/install-deps installs when the system's is older than the pinned clients need),
# else the first node on PATH.
#
# Sets MCPSH_NODE (the executable), MCPSH_NODE_ENV (an ENVIRONMENT_MODIFICATION list that
# puts its folder first on PATH, so that npm and the scripts' `node` are that one too) and
# MCPSH_NODE_PROBLEM (empty when node and npm are usable, else why not). Tests that need
# node fail with MCPSH_NODE_PROBLEM when it is set: they never skip. Configure with
# -DMCPSH_NODE_TESTS=OFF to leave them out on purpose.
option(MCPSH_NODE_TESTS "Run the wire conformance and real-client tests (need node >= 22.19 and npm)" ON)

set(MCPSH_NODE_MIN_VERSION 22.19)
# Searched on every configure (NO_CACHE, into names never cached): a node installed into
# tests/node after the first configure is picked up.
unset(mcpsh_local_node)
find_program(mcpsh_local_node node PATHS ${CMAKE_CURRENT_SOURCE_DIR}/node/node_modules/.bin
             NO_DEFAULT_PATH NO_CACHE)
unset(mcpsh_path_node)
find_program(mcpsh_path_node node NO_CACHE)
unset(mcpsh_path_npm)
find_program(mcpsh_path_npm npm NO_CACHE)
if(mcpsh_local_node)
  set(MCPSH_NODE ${mcpsh_local_node})
else()
  set(MCPSH_NODE ${mcpsh_path_node})
endif()
set(MCPSH_NPM ${mcpsh_path_npm})

set(MCPSH_NODE_PROBLEM "")
if(NOT MCPSH_NODE OR NOT MCPSH_NPM)
  set(MCPSH_NODE_PROBLEM "node and npm are needed: run scripts/install-deps")
else()
  execute_process(COMMAND ${MCPSH_NODE} --version OUTPUT_VARIABLE node_version
                  OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE node_status)
  string(REGEX REPLACE "^v" "" node_version "${node_version}")
  if(NOT node_status EQUAL 0 OR node_version VERSION_LESS MCPSH_NODE_MIN_VERSION)
    set(MCPSH_NODE_PROBLEM
        "${MCPSH_NODE} is version ${node_version}; the pinned clients need ${MCPSH_NODE_MIN_VERSION} or newer: run scripts/install-deps")
  endif()
endif()
if(MCPSH_NODE_TESTS AND MCPSH_NODE_PROBLEM)
  message(WARNING "${MCPSH_NODE_PROBLEM} (the wire and client tests will fail)")
endif()

get_filename_component(node_dir "${MCPSH_NODE}" DIRECTORY)
set(MCPSH_NODE_ENV "PATH=path_list_prepend:${node_dir}")

# Registers a test that fails at once with MCPSH_NODE_PROBLEM, in place of tests that need node.
function(mcpsh_node_missing_test name label)
  add_test(NAME ${name} COMMAND sh -c "echo 'FAILED: ${MCPSH_NODE_PROBLEM}'; exit 1")
  set_tests_properties(${name} PROPERTIES LABELS ${label})
endfunction()
